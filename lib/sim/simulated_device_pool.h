// SimulatedDevicePool (sim.draforge.io/v1alpha1, cluster-scoped): one custom resource that describes
// simulated DRA devices -- which driver profile, which nodes, how many devices, overrides, taints,
// binding conditions and injected faults. lib/sim expands it into the ResourceSlices the real driver
// would publish (expand.h).
//
// The object arrives as an api::OtherObject (lib/api keeps kinds it does not model as raw JSON);
// DecodeSimulatedDevicePool reads it. Fields that have a resource.k8s.io shape (attributes,
// capacity, the custom device template, counter sets, node selectors, taints) are decoded by
// lib/api's own decoder, so they are checked exactly as the API server checks a ResourceSlice.
//
// Faults live in the pool's spec (spec.faults): injecting one is adding an entry, clearing it is
// removing the entry, and because expansion is a pure function of the spec, clearing restores the
// previous slices byte for byte (docs/simulation.md).
#ifndef DRAFORGE_SIM_SIMULATED_DEVICE_POOL_H_
#define DRAFORGE_SIM_SIMULATED_DEVICE_POOL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/map.h"
#include "api/meta.h"
#include "api/node_selector.h"
#include "api/object.h"
#include "api/resource_common.h"
#include "api/resource_slice.h"
#include "rapidjson/document.h"

namespace draforge::sim {

inline constexpr char kGroup[] = "sim.draforge.io";
inline constexpr char kVersion[] = "v1alpha1";
inline constexpr char kApiVersion[] = "sim.draforge.io/v1alpha1";
inline constexpr char kKind[] = "SimulatedDevicePool";
inline constexpr char kResource[] = "simulateddevicepools";

// Labels written on every object the simulator creates, so that `scenario reset` and the controller
// find exactly their own objects and nothing else.
inline constexpr char kManagedByLabel[] = "app.kubernetes.io/managed-by";
inline constexpr char kManagedByValue[] = "draforge-sim";
inline constexpr char kPoolLabel[] = "sim.draforge.io/pool";

// Bounds ValidateSimulatedDevicePool enforces: devicesPerNode per pool, devicesPerNode times the
// number of pools per object, and spec.poolGeneration.
inline constexpr int64_t kMaxDevicesPerNode = 4096;
inline constexpr int64_t kMaxDevicesPerObject = 65536;
inline constexpr int64_t kMaxPoolGeneration = int64_t{1} << 53;

// What a fault does to the published slices (docs/simulation.md has the table).
enum class FaultType {
  kTaint,           // a taint given in full (key, value, effect)
  kXid,             // NVIDIA health event: <driver>/xid=<code>, NoSchedule (None for application XIDs)
  kGpuLost,         // NVIDIA health event: <driver>/gpu-lost, NoSchedule
  kHealthUnknown,   // health cannot be monitored: NVIDIA's <driver>/unmonitored taint, effect None
  kRemoveDevice,    // the devices disappear from their slice (the slice is updated in place)
  kRemoveSlice,     // the driver withdraws one slice; resourceSliceCount shrinks with it
  kFlap,            // the devices disappear and come back every `period` ticks
  kIncompletePool,  // resourceSliceCount claims `missingSlices` more slices than are published
  kStaleGeneration, // the pool is republished at generation+1 and the old slices stay behind
  kBindingFailure,  // devices get binding conditions and the simulator reports the failure one
};

// "taint", "xid", "gpu-lost", "health-unknown", "remove-device", "remove-slice", "flap",
// "incomplete-pool", "stale-generation", "binding-failure".
std::string_view FaultTypeName(FaultType type);
// The type called `name` (as FaultTypeName spells it), or nullopt.
std::optional<FaultType> ParseFaultType(std::string_view name);

// One named fault (spec.faults[]).
struct Fault {
  std::string name;  // unique within the pool; a DNS label
  FaultType type = FaultType::kTaint;
  // Pools the fault applies to, by node name (per-node pools); empty: every pool of the object.
  std::vector<std::string> nodes;
  // Devices the fault applies to, by name; empty: every device (taints, health, removal, flap,
  // binding failure). Ignored by the slice- and pool-level faults.
  std::vector<std::string> devices;
  // kTaint: the taint (key and effect required).
  std::optional<api::DeviceTaint> taint;
  // kXid: the XID code (NVIDIA's list of application XIDs 13, 31, 43, 45, 68, 109 get effect None).
  int64_t xid = 0;
  // kRemoveSlice: index of the slice within the pool (default: the last one).
  std::optional<int64_t> slice;
  // kFlap: ticks per phase (>= 1): absent during even phases, present during odd ones.
  int64_t period = 1;
  // kIncompletePool: how many slices are missing (>= 1).
  int64_t missing_slices = 1;
  friend bool operator==(const Fault&, const Fault&) = default;
};

// A per-device taint (spec.taints[]): a taint on the named devices (empty: all) of the named nodes'
// pools (empty: all).
struct TaintSpec {
  std::vector<std::string> nodes;
  std::vector<std::string> devices;
  api::DeviceTaint taint;
  friend bool operator==(const TaintSpec&, const TaintSpec&) = default;
};

// spec.nodes: exactly one of the three.
struct NodeSelection {
  // One pool per node, named after the node, its slices bound with spec.nodeName (what kubelet
  // plugins publish).
  std::vector<std::string> names;
  // One network-attached pool (named after the object) reachable from the matching nodes.
  std::optional<api::NodeSelector> node_selector;
  // One network-attached pool reachable from every node.
  bool all_nodes = false;
  friend bool operator==(const NodeSelection&, const NodeSelection&) = default;
};

struct SimulatedDevicePoolSpec {
  // The DRA driver name; empty: the profile's (gpu.nvidia.com, ...).
  std::string driver;
  // A profile name from profiles.h.
  std::string profile;
  NodeSelection nodes;
  // Devices per pool in the profile's unit (GPUs, NICs, TPU chips, CPUs, NUMA nodes, template
  // copies); unset: the profile's default.
  std::optional<int64_t> devices_per_node;
  // The pool generation published (spec.poolGeneration, default 0). Kept in the spec, not derived
  // from metadata.generation, so that injecting and clearing a fault does not change it.
  int64_t pool_generation = 0;
  // Profile options (spec.options), string-valued: "partitions", "allowMultipleAllocations",
  // "model", "numaNodes", ... profiles.h lists each profile's options.
  api::Map<std::string> options;
  // Overrides applied to every device after the profile built it.
  api::Map<api::DeviceAttribute> attributes;
  api::Map<api::DeviceCapacity> capacity;
  // Profile `custom`: the device to replicate (its name is the prefix: "<name>-<i>") and the
  // counter sets of each pool.
  std::optional<api::Device> device_template;
  std::vector<api::CounterSet> shared_counters;
  std::vector<TaintSpec> taints;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  std::optional<bool> binds_to_node;
  std::vector<Fault> faults;
  friend bool operator==(const SimulatedDevicePoolSpec&, const SimulatedDevicePoolSpec&) = default;
};

struct SimulatedDevicePool {
  api::ObjectMeta metadata;
  SimulatedDevicePoolSpec spec;
  friend bool operator==(const SimulatedDevicePool&, const SimulatedDevicePool&) = default;
};

// Whether `object` is a SimulatedDevicePool (any version of the sim.draforge.io group).
bool IsSimulatedDevicePool(const api::Object& object);

// Decodes a SimulatedDevicePool from its JSON form (the whole object, as in a file or from the API
// server). status is ignored (the controller owns it). Errors (kInvalidArgument) name the object and
// the field: `SimulatedDevicePool "gpus": spec.devicesPerNode: expected integer, got string`.
// Unknown fields are errors: a misspelt field in a simulation would silently change its meaning.
absl::StatusOr<SimulatedDevicePool> DecodeSimulatedDevicePool(const rapidjson::Value& json);
// The same from an api::Object of kind kOther (what DecodeStream returns for this kind); a different
// kind is kInvalidArgument.
absl::StatusOr<SimulatedDevicePool> DecodeSimulatedDevicePool(const api::Object& object);

// Encodes one fault as its spec.faults[] entry (the CRD's field names); decoding it gives `fault`
// back. The pool itself is edited as JSON (faults.h), so that whatever else the user wrote in the
// object is kept exactly.
rapidjson::Value EncodeFault(const Fault& fault, rapidjson::Document::AllocatorType& allocator);

// Checks what the decoder cannot: a known profile, exactly one node selection, unique fault names,
// fault parameters, devices per node within the profile's rule. The errors name the object and field.
// Faults that name devices or nodes are checked against the expansion (expand.h), not here.
absl::Status ValidateSimulatedDevicePool(const SimulatedDevicePool& pool);

}  // namespace draforge::sim

#endif  // DRAFORGE_SIM_SIMULATED_DEVICE_POOL_H_
