#include "kube/internal/backoff.h"

#include <algorithm>

namespace draforge::kube::internal {

Backoff::Backoff(BackoffPolicy policy, uint64_t seed) : policy_(policy), base_(policy.initial), rng_(seed) {}

absl::Duration Backoff::Next(absl::Time now) {
  // Measured from the previous backoff, as client-go does: a steady stream of failures never
  // resets, a failure after two healthy minutes starts small again.
  if (last_ == absl::InfinitePast() || now - last_ > policy_.reset_after) base_ = policy_.initial;
  last_ = now;
  absl::Duration wait = base_;
  base_ = std::min(base_ * 2, policy_.max);
  if (policy_.jitter > 0) {
    std::uniform_real_distribution<double> extra(0.0, policy_.jitter);
    wait += wait * extra(rng_);
  }
  return wait;
}

}  // namespace draforge::kube::internal
