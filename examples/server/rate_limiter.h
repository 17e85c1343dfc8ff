// RateLimiter: a token bucket per client address (requests per second, burst of twice that), so
// one noisy client cannot starve the others. Thread-safe.
#ifndef DRAFORGE_EXAMPLES_SERVER_RATE_LIMITER_H_
#define DRAFORGE_EXAMPLES_SERVER_RATE_LIMITER_H_

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

namespace draforge::server {

class RateLimiter {
 public:
  // `per_second` 0 disables limiting.
  explicit RateLimiter(double per_second);

  // Takes one token for `client`; false when its bucket is empty.
  bool Allow(const std::string& client, std::chrono::steady_clock::time_point now);

 private:
  struct Bucket {
    double tokens = 0;
    std::chrono::steady_clock::time_point last;
  };
  // Bound on tracked addresses: past it the table is cleared (every client starts with a full
  // bucket again), which keeps memory fixed against a flood of addresses.
  static constexpr size_t kMaxClients = 65536;
  const double rate_;
  const double burst_;
  std::mutex mu_;  // guards buckets_
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_RATE_LIMITER_H_
