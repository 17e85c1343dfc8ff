// The controller's counters and gauges, served as Prometheus text on /metrics.
#ifndef DRAFORGE_EXAMPLES_CONTROLLER_METRICS_H_
#define DRAFORGE_EXAMPLES_CONTROLLER_METRICS_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace draforge::controller {

struct Metrics {
  std::atomic<int64_t> leader{0};
  std::atomic<int64_t> rounds{0};
  std::atomic<int64_t> round_errors{0};
  std::atomic<int64_t> slices_created{0};
  std::atomic<int64_t> slices_updated{0};
  std::atomic<int64_t> slices_deleted{0};
  std::atomic<int64_t> write_conflicts{0};
  std::atomic<int64_t> claims_allocated{0};
  std::atomic<int64_t> binding_updates{0};
  std::atomic<int64_t> pools{0};
  std::atomic<int64_t> invalid_pools{0};
  // /readyz: the API server answered a list.
  std::atomic<bool> synced{false};

  // Prometheus text exposition format.
  std::string Render() const;
};

}  // namespace draforge::controller

#endif  // DRAFORGE_EXAMPLES_CONTROLLER_METRICS_H_
