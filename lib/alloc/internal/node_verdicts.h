// The per-node verdicts of an explanation without a node: on which nodes the claim can be allocated,
// and the first reason on each of the others.
#ifndef DRAFORGE_ALLOC_INTERNAL_NODE_VERDICTS_H_
#define DRAFORGE_ALLOC_INTERNAL_NODE_VERDICTS_H_

#include <cstdint>

#include "alloc/explain.h"
#include "alloc/features.h"
#include "alloc/internal/explain_shared.h"
#include "api/resource_claim.h"
#include "store/cluster.h"

namespace draforge::alloc::internal {

// Fills ex.nodes, ex.nodes_total, ex.node_source and ex.nodes_summary for `claim` (stored in
// `snapshot`; ex.claim is its "ns/name"): the first `max_nodes` nodes of PlacementNodes, in name
// order. A pending claim is allocated alone on each node with alloc::Allocate against the snapshot's
// allocated state, and explained on the nodes where it does not fit; an allocated claim fits where
// its allocation's nodeSelector selects the node (and, for devices that skip node operations, the
// node declares DRAOptionalNodeOperations), as Place() judges it; a nodeSelector that does not parse
// is an error verdict (kError, the message) on every node, as in Place().
// `context` (null: none) is what explanations of the snapshot share (ExplainContext); it must fit.
void AddNodeVerdicts(const store::Snapshot& snapshot, const api::ResourceClaim& claim, const Features& features,
                     int64_t max_nodes, Explanation& ex, ExplainShared* context = nullptr);

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_NODE_VERDICTS_H_
