// The contents of an alloc::ExplainContext (explain_context.h), read by Explain and the per-node
// verdicts.
#ifndef DRAFORGE_ALLOC_INTERNAL_EXPLAIN_SHARED_H_
#define DRAFORGE_ALLOC_INTERNAL_EXPLAIN_SHARED_H_

#include <string>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/internal/node_independent_slices.h"
#include "alloc/internal/selectors.h"
#include "store/cluster.h"

namespace draforge::alloc::internal {

struct ExplainShared {
  ExplainShared(const store::Snapshot& snapshot, const Features& features);

  // PlacementNodes(snapshot, &node_source) (node_source first: the constructor fills it).
  std::string node_source;
  std::vector<NodeInfo> nodes;
  // Every claim's allocation: what a claim without one (a pending claim) is explained against.
  const AllocatedState allocated;
  const NodeIndependentSlices node_independent;
  SelectorCache selectors;
  // Allocates against `allocated`.
  const Allocator allocator;
};

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_EXPLAIN_SHARED_H_
