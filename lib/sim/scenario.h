// Scenarios: a set of objects (SimulatedDevicePools, DeviceClasses, claims, templates, pods, nodes,
// namespaces) that together describe a simulated cluster.
#ifndef DRAFORGE_SIM_SCENARIO_H_
#define DRAFORGE_SIM_SCENARIO_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/object.h"
#include "sim/expand.h"
#include "sim/simulated_device_pool.h"

namespace draforge::sim {

// Label put on every object `draforge scenario apply` creates: its value is the scenario name, so
// that `scenario reset` deletes exactly those objects.
inline constexpr char kScenarioLabel[] = "sim.draforge.io/scenario";

struct Scenario {
  std::vector<SimulatedDevicePool> pools;
  // Every other object, in input order.
  std::vector<api::Object> objects;
};

// Splits decoded objects into pools and the rest. A SimulatedDevicePool that does not decode is an
// error naming it (nothing is half-read).
absl::StatusOr<Scenario> SplitScenario(std::vector<api::Object> objects);

// The objects a cluster running the simulator holds: the scenario's other objects followed by the
// slices of every pool (ExpandAll, so two pools publishing the same pool are an error). The slices are
// api::Objects in resource.k8s.io/v1.
absl::StatusOr<std::vector<api::Object>> Materialize(const Scenario& scenario, const ExpandOptions& options = {});

}  // namespace draforge::sim

#endif  // DRAFORGE_SIM_SCENARIO_H_
