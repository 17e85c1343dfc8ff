// Driver profiles: the devices, attributes, capacities, counters and slice layout of real DRA drivers,
// so that the drivers' own DeviceClasses select the simulated devices and their demo claims allocate.
//
// Each profile follows one driver's source (docs/simulation.md names the files and commits):
//   example-gpu, example-gpu-partitionable, example-gpu-consumable, example-net
//                 kubernetes-sigs/dra-example-driver internal/profiles/{gpu,net}
//   nvidia-gpu, nvidia-gpu-mig
//                 kubernetes-sigs/dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin (deviceinfo.go, mig.go,
//                 partitions.go): full GPUs, and the DynamicMIG layout with one counter set per GPU
//   google-tpu    kubernetes-sigs/dra-driver-google-tpu (one device per chip)
//   cpu-individual, cpu-grouped
//                 kubernetes-sigs/dra-driver-cpu (one device per CPU; one per NUMA node with
//                 consumable dra.cpu/cpu)
//   custom        the device template given inline
#ifndef DRAFORGE_SIM_PROFILES_H_
#define DRAFORGE_SIM_PROFILES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/resource_slice.h"
#include "sim/simulated_device_pool.h"

namespace draforge::sim {

struct ProfileInfo {
  std::string_view name;
  std::string_view driver;  // the driver name the real driver registers
  std::string_view unit;    // what spec.devicesPerNode counts ("GPUs", "CPUs", ...)
  int64_t default_devices_per_node = 0;
  // Options (spec.options keys) the profile reads; any other key is an error.
  std::vector<std::string_view> options;
  std::string_view description;
};

// Every profile, in the order `draforge sim profiles` lists them. Static data; never null.
const std::vector<ProfileInfo>& Profiles();
// The profile called `name`, or nullptr (borrowed from Profiles()).
const ProfileInfo* FindProfile(std::string_view name);

// What a profile publishes for one pool, before overrides, taints and faults.
struct PoolContent {
  // Counter sets of the pool; published in slices of their own (the Kubernetes 1.35+ rule: a slice
  // has devices or sharedCounters, never both), before the device slices.
  std::vector<api::CounterSet> shared_counters;
  // Devices in groups: each group is published in its own slice(s), as the real driver groups them
  // (dra-driver-cpu: one group per NUMA node; the others: one group).
  std::vector<std::vector<api::Device>> device_groups;
  // True when the real driver publishes all of a pool's devices in one ResourceSlice; then a pool
  // that needs more than one is refused (see CheckLayout in expand.cc).
  bool single_slice = false;
};

// Generates the devices of one pool. `pool_name` seeds the deterministic UUIDs (the real drivers seed
// theirs with the node name). Errors (kInvalidArgument) name the object and field: a bad option,
// devicesPerNode outside the profile's rule (with the rule explained).
absl::StatusOr<PoolContent> GeneratePool(const SimulatedDevicePool& pool, const ProfileInfo& profile,
                                         std::string_view driver, std::string_view pool_name);

}  // namespace draforge::sim

#endif  // DRAFORGE_SIM_PROFILES_H_
