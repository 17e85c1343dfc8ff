#include "alloc/explain.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/internal/explain_shared.h"
#include "alloc/internal/funnel.h"
#include "alloc/internal/node_verdicts.h"
#include "common/status.h"

namespace draforge::alloc {

std::string_view FunnelStepName(FunnelStep step) {
  switch (step) {
    case FunnelStep::kDriver: return "driver";
    case FunnelStep::kClass: return "class";
    case FunnelStep::kRequest: return "request";
    case FunnelStep::kTaints: return "taints";
    case FunnelStep::kAllocated: return "allocated";
    case FunnelStep::kCapacity: return "capacity";
    case FunnelStep::kConstraints: return "constraints";
    case FunnelStep::kNode: return "node";
  }
  return "";
}

std::string_view ConflictKindName(ConflictKind kind) {
  switch (kind) {
    case ConflictKind::kSameDevice: return "same-device";
    case ConflictKind::kCounters: return "counters";
    case ConflictKind::kCapacity: return "capacity";
    case ConflictKind::kConstraint: return "constraint";
    case ConflictKind::kCompatibility: return "compatibility";
  }
  return "";
}

namespace {

// The base request name of a funnel entry ("gpus/four" -> "gpus").
std::string_view BaseRequest(std::string_view request) { return request.substr(0, request.find('/')); }

// Whether `c` can be part of a node name (RFC 1123 subdomain characters).
bool NameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

// `reason` with "node <name>" replaced by "the node", where <name> is a whole name.
std::string WithoutNodeName(const std::string& reason, const std::string& name) {
  const std::string needle = absl::StrCat("node ", name);
  std::string out;
  size_t from = 0;
  while (true) {
    size_t at = reason.find(needle, from);
    while (at != std::string::npos) {
      const size_t end = at + needle.size();
      const bool whole = (end == reason.size() || !NameChar(reason[end])) && (at == 0 || !NameChar(reason[at - 1]));
      if (whole) break;
      at = reason.find(needle, at + 1);
    }
    if (at == std::string::npos) break;
    absl::StrAppend(&out, reason.substr(from, at - from), "the node");
    from = at + needle.size();
  }
  absl::StrAppend(&out, reason.substr(from));
  return out;
}

}  // namespace

std::vector<std::string> Explanation::FittingNodes() const {
  std::vector<std::string> out;
  for (const NodeVerdict& v : nodes) {
    if (v.fits()) out.push_back(v.node);
  }
  return out;
}

std::vector<NodeReasonGroup> GroupNodesByReason(const std::vector<NodeVerdict>& verdicts) {
  std::vector<NodeReasonGroup> out;
  std::map<std::string, size_t> index;
  for (const NodeVerdict& v : verdicts) {
    if (v.fits()) continue;
    std::string reason = WithoutNodeName(v.reason, v.node);
    auto [it, inserted] = index.emplace(reason, out.size());
    if (inserted) out.push_back(NodeReasonGroup{std::move(reason), {}});
    out[it->second].nodes.push_back(v.node);
  }
  return out;
}

std::string FirstBlockingReason(const Explanation& ex) {
  size_t i = 0;
  while (i < ex.requests.size()) {
    const std::string_view base = BaseRequest(ex.requests[i].request);
    size_t j = i;
    bool all_short = true;
    std::vector<std::string> sentences;
    while (j < ex.requests.size() && BaseRequest(ex.requests[j].request) == base) {
      all_short = all_short && ex.requests[j].first_short.has_value();
      sentences.push_back(ex.requests[j].sentence);
      ++j;
    }
    if (all_short) return absl::StrJoin(sentences, "; ");
    i = j;
  }
  if (!ex.conflicts.empty()) return ex.conflicts.front().sentence;
  return "";
}

absl::StatusOr<Explanation> Explain(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                    const NodeInfo* node, const Features& features) {
  ExplainOptions options;
  options.features = features;
  return Explain(snapshot, ns, name, node, options);
}

absl::StatusOr<Explanation> Explain(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                    const NodeInfo* node, const ExplainOptions& options) {
  const api::ResourceClaim* claim = snapshot.GetResourceClaim(ns, name);
  if (claim == nullptr) {
    return absl::NotFoundError(absl::StrCat("resourceclaim ", AV(ns), "/", AV(name), " not found"));
  }
  if (!claim->spec || !claim->spec->devices) {
    return absl::InvalidArgumentError(absl::StrCat("resourceclaim ", AV(ns), "/", AV(name), ": spec.devices is not set"));
  }
  internal::ExplainShared* context =
      options.context != nullptr && options.context->Fits(snapshot, options.features) ? &options.context->shared() : nullptr;
  internal::SharedFunnelState shared;
  if (context != nullptr) {
    // The context's allocated state holds every claim's allocation: right for a claim without one.
    if (!claim->status || !claim->status->allocation) shared.allocated = &context->allocated;
    shared.node_independent = &context->node_independent;
    shared.selectors = &context->selectors;
  }
  Explanation ex = internal::Funnel(snapshot, *claim, absl::StrCat(AV(ns), "/", AV(name)), node, options.features,
                                    options.only_node_devices, context != nullptr ? &shared : nullptr)
                       .Run();
  if (node == nullptr && options.max_nodes > 0) {
    internal::AddNodeVerdicts(snapshot, *claim, options.features, options.max_nodes, ex, context);
  }
  return ex;
}

}  // namespace draforge::alloc
