// The ResourceSlices of a snapshot that are not tied to one node by spec.nodeName (allNodes, a
// nodeSelector, per-device node selection), prepared once per snapshot for GatherPools: each
// slice's node selector compiled once, and the slices whose selector can only select nodes with
// particular label values (or names) indexed by them, so that one node looks only at the slices
// that may select it. On a cluster with a network-attached pool per rack, a node then visits its
// rack's pool rather than every rack's, and compiles no selector.
#ifndef DRAFORGE_ALLOC_INTERNAL_NODE_INDEPENDENT_SLICES_H_
#define DRAFORGE_ALLOC_INTERNAL_NODE_INDEPENDENT_SLICES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "api/labels.h"
#include "api/resource_slice.h"
#include "store/cluster.h"

namespace draforge::alloc::internal {

// One node-independent slice. `selector` is set when the slice's node fields come down to
// spec.nodeSelector (no spec.nodeName, allNodes unset or false): the compiled selector, or its
// strict parse error.
struct NodeIndependentSlice {
  const api::ResourceSlice* slice = nullptr;
  std::optional<absl::StatusOr<api::CompiledNodeSelector>> selector;
};

class NodeIndependentSlices {
 public:
  // Every slice of `snapshot` without spec.nodeName, in name order. Borrows the snapshot's slices.
  explicit NodeIndependentSlices(const store::Snapshot& snapshot);

  // The slices that can be relevant for `node`, in name order: every slice except those whose
  // selector cannot select it (each term of such a selector requires a label, or metadata.name, to
  // be In a list of values that the node's does not belong to). The caller still matches each one.
  std::vector<const NodeIndependentSlice*> For(const NodeInfo& node) const;
  size_t size() const { return slices_.size(); }

 private:
  // Index of `slices_[i]` under each value its selector's term requires, or in `always_`.
  void Index(uint32_t i);

  std::vector<NodeIndependentSlice> slices_;
  std::vector<uint32_t> always_;  // looked at by every node
  // label key -> value -> slices; by_name_: metadata.name -> slices.
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, std::vector<uint32_t>>> by_label_;
  absl::flat_hash_map<std::string, std::vector<uint32_t>> by_name_;
};

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_NODE_INDEPENDENT_SLICES_H_
