#include "metrics.h"

namespace draforge::controller {

std::string Metrics::Render() const {
  std::string out;
  auto gauge = [&](const char* name, const char* help, int64_t v, const char* type = "gauge") {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " +
           std::to_string(v) + "\n";
  };
  gauge("draforge_sim_leader", "1 while this replica holds the Lease", leader.load());
  gauge("draforge_sim_reconcile_rounds_total", "reconcile rounds run as leader", rounds.load(), "counter");
  gauge("draforge_sim_reconcile_errors_total", "rounds that hit an API error", round_errors.load(), "counter");
  gauge("draforge_sim_slices_created_total", "ResourceSlices created", slices_created.load(), "counter");
  gauge("draforge_sim_slices_updated_total", "ResourceSlices updated", slices_updated.load(), "counter");
  gauge("draforge_sim_slices_deleted_total", "ResourceSlices deleted", slices_deleted.load(), "counter");
  gauge("draforge_sim_write_conflicts_total", "writes refused for a stale resourceVersion", write_conflicts.load(),
        "counter");
  gauge("draforge_sim_claims_allocated_total", "ResourceClaims allocated", claims_allocated.load(), "counter");
  gauge("draforge_sim_binding_condition_updates_total", "claim status.devices condition writes",
        binding_updates.load(), "counter");
  gauge("draforge_sim_pools", "SimulatedDevicePools seen in the last round", pools.load());
  gauge("draforge_sim_invalid_pools", "SimulatedDevicePools that do not expand", invalid_pools.load());
  return out;
}

}  // namespace draforge::controller
