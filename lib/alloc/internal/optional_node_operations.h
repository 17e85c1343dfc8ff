// DRAOptionalNodeOperations (KEP-5729, alpha in 1.37): a ResourceSlice may say that the kubelet skips
// some node operations (skipNodeOperations) for its devices. Such devices are allocated only for a
// node that declares the feature in Node.status.declaredFeatures, and only with the gate on; the
// allocation result carries the slice's list (upstream experimental allocator, allocateDevice and
// the result builder). The other variants ignore the field (Features::ExperimentalAllocator).
#ifndef DRAFORGE_ALLOC_INTERNAL_OPTIONAL_NODE_OPERATIONS_H_
#define DRAFORGE_ALLOC_INTERNAL_OPTIONAL_NODE_OPERATIONS_H_

#include <string>
#include <string_view>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/features.h"
#include "api/node.h"
#include "api/resource_claim.h"
#include "api/resource_slice.h"
#include "store/cluster.h"

namespace draforge::alloc::internal {

// The feature name a node declares (component-helpers nodedeclaredfeatures, feature gate name).
inline constexpr std::string_view kOptionalNodeOperationsFeature = "DRAOptionalNodeOperations";

// The strings of node.status.declaredFeatures, in order; empty when absent or malformed.
std::vector<std::string> DeclaredFeatures(const api::Node& node);

// Whether the devices of `slice` may be allocated for a node: true when the slice asks to skip no
// node operation or when upstream's variant for `features` ignores the field
// (Features::ExperimentalAllocator); otherwise only with the gate on and `node_declares` (the node
// declares the feature, DeclaresOptionalNodeOperations).
bool SkipNodeOperationsAllowed(const api::ResourceSlice& slice, bool node_declares, const Features& features);

// Whether `node` declares DRAOptionalNodeOperations: its declared_features, or, when not given, the
// status.declaredFeatures of the Node of that name in `snapshot` (no such Node: no).
bool DeclaresOptionalNodeOperations(const NodeInfo& node, const store::Snapshot& snapshot);

// Whether a device of `allocation` skips node operations: kube-scheduler's Filter then only accepts
// nodes that declare the feature, whatever the gates (dynamicresources.go,
// allocationResultRequiresDRAOptionalNodeOperations).
bool RequiresOptionalNodeOperations(const api::AllocationResult& allocation);

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_OPTIONAL_NODE_OPERATIONS_H_
