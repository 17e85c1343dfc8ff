// Fault injection on a SimulatedDevicePool's JSON: the user's object is edited in place (only
// spec.faults changes), so whatever else it holds -- labels, annotations, fields of a newer version --
// is kept exactly, and clearing a fault gives back the object (and therefore its slices) as they were.
#ifndef DRAFORGE_SIM_FAULTS_H_
#define DRAFORGE_SIM_FAULTS_H_

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "sim/simulated_device_pool.h"

namespace draforge::sim {

// Appends `fault` to spec.faults of `pool_json` (a whole SimulatedDevicePool object). The result is
// decoded, validated and expanded before it is accepted: on any error `pool_json` is left unchanged
// and the error names the object and field (a duplicate name is kAlreadyExists; a device or node the
// pool does not have, or a bad parameter, kInvalidArgument).
absl::Status InjectFault(rapidjson::Document& pool_json, const Fault& fault);

// InjectFault with the fault given as one spec.faults[] item in JSON (what the C ABI takes): the
// item is appended as given, so its errors name the field where the pool decoder finds them
// ("spec.faults[2].type: Unsupported value ...").
absl::Status InjectFault(rapidjson::Document& pool_json, const rapidjson::Value& fault_json);

// Removes the fault called `name` from spec.faults (and spec.faults itself when it becomes empty, so
// the object is byte-identical to what it was before the first injection). kNotFound when the pool
// has no such fault; `pool_json` is then unchanged.
absl::Status ClearFault(rapidjson::Document& pool_json, std::string_view name);

// Removes every fault; returns how many there were.
absl::StatusOr<int> ClearAllFaults(rapidjson::Document& pool_json);

// The faults of a pool, in spec order (what `draforge fault list` prints).
absl::StatusOr<std::vector<Fault>> ListFaults(const rapidjson::Value& pool_json);

// One line describing what a fault does ("taint gpu.nvidia.com/xid=48:NoSchedule on gpu-0 of node-1").
std::string DescribeFault(const SimulatedDevicePool& pool, const Fault& fault);

}  // namespace draforge::sim

#endif  // DRAFORGE_SIM_FAULTS_H_
