#include "rate_limiter.h"

#include <algorithm>

namespace draforge::server {

RateLimiter::RateLimiter(double per_second) : rate_(per_second), burst_(std::max(1.0, 2 * per_second)) {}

bool RateLimiter::Allow(const std::string& client, std::chrono::steady_clock::time_point now) {
  if (rate_ <= 0) return true;
  std::lock_guard lock(mu_);
  if (buckets_.size() >= kMaxClients && buckets_.count(client) == 0) buckets_.clear();
  auto [it, inserted] = buckets_.try_emplace(client, Bucket{burst_, now});
  Bucket& b = it->second;
  if (!inserted) {
    const double elapsed = std::chrono::duration<double>(now - b.last).count();
    b.tokens = std::min(burst_, b.tokens + elapsed * rate_);
    b.last = now;
  }
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

}  // namespace draforge::server
