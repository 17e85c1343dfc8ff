#include "sim/scenario.h"

#include <utility>

#include "common/status.h"

namespace draforge::sim {

absl::StatusOr<Scenario> SplitScenario(std::vector<api::Object> objects) {
  Scenario out;
  for (api::Object& o : objects) {
    if (IsSimulatedDevicePool(o)) {
      ASSIGN_OR_RETURN(SimulatedDevicePool pool, DecodeSimulatedDevicePool(o));
      out.pools.push_back(std::move(pool));
    } else {
      out.objects.push_back(std::move(o));
    }
  }
  return out;
}

absl::StatusOr<std::vector<api::Object>> Materialize(const Scenario& scenario, const ExpandOptions& options) {
  ASSIGN_OR_RETURN(Expansion expansion, ExpandAll(scenario.pools, options));
  std::vector<api::Object> out = scenario.objects;
  for (api::ResourceSlice& s : expansion.slices) {
    api::Object o;
    o.api_version = "resource.k8s.io/v1";
    o.value = std::move(s);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace draforge::sim
