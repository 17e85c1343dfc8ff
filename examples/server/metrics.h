// Metrics: the server's Prometheus counters, gauges and histograms, rendered in the text exposition
// format (version 0.0.4). Thread-safe.
#ifndef DRAFORGE_EXAMPLES_SERVER_METRICS_H_
#define DRAFORGE_EXAMPLES_SERVER_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "draforge/draforge.hpp"

namespace draforge::server {

class Metrics {
 public:
  // Upper bounds of the latency histogram, in seconds.
  static constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,   0.5,   1,     2.5};

  // One answered request. `route` is a bounded label (the endpoint path, "static" or "other").
  void CountRequest(const std::string& route, int status);
  // Time spent producing one API response.
  void ObserveLatency(const std::string& route, double seconds);
  void CountRateLimited();
  void CountEventsSent(uint64_t n);

  // The exposition text: the counters above plus gauges read now (`sse_clients`, `events_published`,
  // and the store and utilisation figures of `snapshot`, from the library's summary view).
  std::string Render(const Snapshot& snapshot, int64_t sse_clients, uint64_t events_published,
                     bool ready) const;

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> buckets{};
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;  // guards everything below
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::map<std::string, Histogram> latency_;
  uint64_t rate_limited_ = 0;
  uint64_t events_sent_ = 0;
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_METRICS_H_
