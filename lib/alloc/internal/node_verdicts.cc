// Explain without a node: the verdict on every node (explain.h NodeVerdict), as kube-scheduler's
// "0/3 nodes are available: ..." gives it, with the reason per node.
#include "alloc/internal/node_verdicts.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/internal/explain_views.h"
#include "alloc/internal/funnel.h"
#include "alloc/internal/optional_node_operations.h"
#include "alloc/internal/pools.h"
#include "alloc/internal/selectors.h"
#include "alloc/placement.h"
#include "api/labels.h"
#include "common/status.h"

namespace draforge::alloc::internal {
namespace {

// The verdict for an allocated claim: its allocation decides the node, it is not allocated again.
struct AllocatedClaimCheck {
  std::optional<api::CompiledNodeSelector> selector;  // nullopt: the allocation has none, any node
  bool requires_node_operations = false;
};

// "1 of 3 nodes" ("0 of 3" with `noun` false); "2 of the first 1000 nodes, 500 more not examined".
std::string OfNodes(int64_t fitting, const Explanation& ex, bool noun) {
  const int64_t examined = static_cast<int64_t>(ex.nodes.size());
  if (!ex.NodesTruncated()) {
    return absl::StrCat(fitting, " of ", examined, !noun ? "" : examined == 1 ? " node" : " nodes");
  }
  return absl::StrCat(fitting, " of the first ", examined, " nodes, ", ex.nodes_total - examined,
                      " more not examined");
}

std::string NodesSummary(const Explanation& ex) {
  if (ex.nodes_total == 0) {
    return absl::StrCat("claim ", ex.claim,
                        " has no node to be allocated on: the snapshot has no Node and no node-local ResourceSlice");
  }
  const std::vector<std::string> fitting = ex.FittingNodes();
  if (!fitting.empty()) {
    return absl::StrCat("claim ", ex.claim, " fits on ", OfNodes(static_cast<int64_t>(fitting.size()), ex, true), ": ",
                        JoinNames(fitting));
  }
  // The scheduler lists every reason with its count; a sentence holds a few.
  constexpr size_t kGroupsShown = 3;
  const std::vector<NodeReasonGroup> groups = GroupNodesByReason(ex.nodes);
  std::vector<std::string> parts;
  for (size_t i = 0; i < groups.size() && i < kGroupsShown; ++i) {
    // A group of one node keeps the node's own sentence.
    const std::string& reason = groups[i].nodes.size() == 1
                                    ? std::find_if(ex.nodes.begin(), ex.nodes.end(),
                                                   [&](const NodeVerdict& v) { return v.node == groups[i].nodes[0]; })
                                          ->reason
                                    : groups[i].reason;
    parts.push_back(absl::StrCat(JoinNames(groups[i].nodes), ": ", reason));
  }
  if (groups.size() > kGroupsShown) {
    size_t rest = 0;
    for (size_t i = kGroupsShown; i < groups.size(); ++i) rest += groups[i].nodes.size();
    parts.push_back(absl::StrCat(rest, rest == 1 ? " more node" : " more nodes", " for ", groups.size() - kGroupsShown,
                                 groups.size() - kGroupsShown == 1 ? " other reason" : " other reasons"));
  }
  return absl::StrCat("claim ", ex.claim, " fits on no node (", OfNodes(0, ex, false), "): ", absl::StrJoin(parts, "; "));
}

}  // namespace


void AddNodeVerdicts(const store::Snapshot& snapshot, const api::ResourceClaim& claim, const Features& features,
                     int64_t max_nodes, Explanation& ex, ExplainShared* context) {
  // What every node's verdict shares: the context's, else made here for this claim.
  std::optional<ExplainShared> own;
  if (context == nullptr) context = &own.emplace(snapshot, features);
  const std::vector<NodeInfo>& all_nodes = context->nodes;
  const size_t examined = std::min<size_t>(all_nodes.size(), static_cast<size_t>(std::max<int64_t>(max_nodes, 0)));
  std::vector<NodeVerdict> verdicts;
  verdicts.reserve(examined);

  const api::AllocationResult* allocation =
      claim.status && claim.status->allocation ? &*claim.status->allocation : nullptr;
  if (allocation != nullptr) {
    AllocatedClaimCheck check;
    std::string bad_selector;  // the selector does not parse: an error on every node, as Place() says
    if (allocation->node_selector) {
      auto compiled = api::CompileNodeSelector(*allocation->node_selector);
      if (compiled.ok()) {
        check.selector = *std::move(compiled);
      } else {
        bad_selector = absl::StrCat("resourceclaim ", ex.claim, ": status.allocation.nodeSelector: ",
                                    compiled.status().message());
      }
    }
    check.requires_node_operations = RequiresOptionalNodeOperations(*allocation);
    for (size_t i = 0; i < examined; ++i) {
      const NodeInfo& node = all_nodes[i];
      NodeVerdict v;
      v.node = node.name;
      if (!bad_selector.empty()) {
        v.outcome = Outcome::kError;
        v.reason = bad_selector;
      } else if (check.selector && !check.selector->Matches(node.labels, node.name)) {
        v.reason = absl::StrCat("the claim is already allocated and the allocation's node selector does not select node ",
                                node.name);
      } else if (check.requires_node_operations && !DeclaresOptionalNodeOperations(node, snapshot)) {
        v.reason = absl::StrCat("the claim is allocated with devices that skip node operations, and node ", node.name,
                                " does not declare DRAOptionalNodeOperations");
      } else {
        v.outcome = Outcome::kAllocated;
      }
      verdicts.push_back(std::move(v));
    }
  } else {
    // A claim without an allocation adds nothing to the allocated state: the context's (every
    // claim's allocations) is the one Allocate would compute for it.
    for (size_t i = 0; i < examined; ++i) {
      const NodeInfo& node = all_nodes[i];
      NodeVerdict v;
      v.node = node.name;
      AllocateResult r = context->allocator.Allocate({&claim}, node);
      v.outcome = r.outcome;
      if (r.outcome == Outcome::kError) {
        v.reason = std::string(r.error.message());
      } else if (r.outcome == Outcome::kUnschedulable) {
        // The funnel on this node's devices (ExplainOptions::only_node_devices); without a
        // node-specific sentence, the allocator's own reasons.
        if (claim.spec && claim.spec->devices) {
          const SharedFunnelState shared{&context->allocated, &context->node_independent, &r, &context->selectors};
          v.reason = FirstBlockingReason(Funnel(snapshot, claim, ex.claim, &node, features, true, &shared).Run());
        }
        if (v.reason.empty()) {
          v.reason = r.reasons.empty() ? std::string("the allocator finds no allocation")
                                       : absl::StrJoin(r.reasons, "; ");
        }
      }
      verdicts.push_back(std::move(v));
    }
  }
  ex.nodes = std::move(verdicts);
  ex.nodes_total = static_cast<int64_t>(all_nodes.size());
  ex.node_source = context->node_source;
  ex.nodes_summary = NodesSummary(ex);
}

}  // namespace draforge::alloc::internal
