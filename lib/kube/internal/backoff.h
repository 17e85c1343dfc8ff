// The reflector's backoff: exponential, jittered, and starting over after a quiet spell, with the
// numbers of client-go's reflector (tools/cache/reflector.go: NewExponentialBackoffManager with
// 800 ms, 30 s, 2 min, factor 2, jitter 1.0).
#ifndef DRAFORGE_KUBE_INTERNAL_BACKOFF_H_
#define DRAFORGE_KUBE_INTERNAL_BACKOFF_H_

#include <cstdint>
#include <random>

#include "absl/time/time.h"

namespace draforge::kube::internal {

struct BackoffPolicy {
  absl::Duration initial = absl::Milliseconds(800);
  absl::Duration max = absl::Seconds(30);  // the base stops doubling here; jitter may add to it
  // Each wait is the base plus a random part in [0, jitter * base): many clients that failed
  // together (an API server restart) do not come back in step.
  double jitter = 1.0;
  // No backoff for this long means health: the next one starts from `initial` again.
  absl::Duration reset_after = absl::Minutes(2);
};

class Backoff {
 public:
  explicit Backoff(BackoffPolicy policy, uint64_t seed = std::random_device{}());
  // The next wait, at time `now` (the caller's clock, so tests need no real time).
  absl::Duration Next(absl::Time now);

 private:
  BackoffPolicy policy_;
  absl::Duration base_;
  absl::Time last_ = absl::InfinitePast();
  std::mt19937_64 rng_;
};

}  // namespace draforge::kube::internal

#endif  // DRAFORGE_KUBE_INTERNAL_BACKOFF_H_
