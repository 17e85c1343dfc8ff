#include "alloc/preemption.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "alloc/node_filters.h"
#include "alloc/node_resources.h"
#include "alloc/placement.h"
#include "api/object.h"
#include "api/pod_disruption_budget.h"
#include "api/pod_resources.h"
#include "api/raw_json.h"
#include "common/status.h"
#include "rapidjson/document.h"

namespace draforge::alloc {
namespace {

// The DynamicResources words for a claim pinned to another node: preemption on this node cannot
// move it (upstream: UnschedulableAndUnresolvable whatever KEP-5690 does).
constexpr char kClaimNotAvailable[] = "resourceclaim not available on the node";
constexpr char kNoVictims[] = "No preemption victims found for incoming pod";
constexpr char kNotHelpful[] = "preemption is not helpful for scheduling";

std::string KeyOf(const api::ObjectMeta& meta) {
  return absl::StrCat(meta.namespace_.value_or("default"), "/", meta.name.value_or(""));
}

// The plugins whose rejection preemption can resolve (status Unschedulable upstream).
bool Resolvable(const NodeReason& reason, bool dra_aware) {
  if (reason.filter == "NodeResourcesFit") return true;
  if (reason.filter == "DynamicResources") return dra_aware;
  return false;
}

// One pod on a candidate node that preemption may evict.
struct Potential {
  const api::Pod* pod = nullptr;
  std::string key;
  int64_t priority = 0;
  std::string start_text;
  absl::Time start = absl::InfiniteFuture();  // unset: started last (upstream: now)
};

absl::StatusOr<Potential> PotentialOf(const api::Pod& pod) {
  Potential p;
  p.pod = &pod;
  p.key = KeyOf(pod.metadata);
  ASSIGN_OR_RETURN(p.priority, PodPriority(pod));
  if (pod.status) {
    if (const api::RawJson* raw = api::FindRaw(pod.status->other, "startTime")) {
      rapidjson::Document d;
      d.Parse(raw->json.data(), raw->json.size());
      std::string err;
      if (!d.HasParseError() && d.IsNull()) return p;
      if (d.HasParseError() || !d.IsString() || !absl::ParseTime(absl::RFC3339_full, d.GetString(), &p.start, &err)) {
        return absl::InvalidArgumentError(
            absl::StrCat("pod ", p.key, ": status.startTime: not an RFC 3339 time: ", raw->json));
      }
      p.start_text = d.GetString();
    }
  }
  return p;
}

// MoreImportantVictim for single pods: higher priority, then earlier start; then the key, where
// upstream's unstable sort leaves the order open.
bool MoreImportant(const Potential& a, const Potential& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.start != b.start) return a.start < b.start;
  return a.key < b.key;
}

// A working copy in which pods on one node are removed and put back, their claims deallocated while
// every pod using them is removed (DRA-aware) and restored otherwise.
class DryRun {
 public:
  DryRun(const store::Snapshot& base, const api::Pod& preemptor, bool free_claims)
      : base_(base), preemptor_(preemptor), free_claims_(free_claims), working_(WorkingCopy(base)) {}

  absl::Status Remove(const Potential& p) {
    removed_.insert(p.key);
    RETURN_IF_ERROR(working_->Delete(api::Kind::kPod, p.pod->metadata.namespace_.value_or("default"),
                                     p.pod->metadata.name.value_or("")));
    return UpdateClaims(*p.pod);
  }

  absl::Status Restore(const Potential& p) {
    removed_.erase(p.key);
    RETURN_IF_ERROR(working_->Apply(api::Object{"v1", *p.pod}));
    return UpdateClaims(*p.pod);
  }

  std::shared_ptr<const store::Snapshot> snapshot() const { return working_->snapshot(); }

  // The allocated claims `pod` uses, "namespace/name", split by whether the removed pods free them.
  void Claims(const api::Pod& pod, std::vector<std::string>& freed, std::vector<std::string>& kept) const {
    for (const store::PodClaim& pc : base_.ClaimsForPod(pod.metadata.namespace_.value_or("default"),
                                                         pod.metadata.name.value_or(""))) {
      if (pc.claim == nullptr || !pc.claim->status || !pc.claim->status->allocation) continue;
      const std::string key = KeyOf(pc.claim->metadata);
      (Freed(*pc.claim) ? freed : kept).push_back(key);
    }
    std::sort(freed.begin(), freed.end());
    freed.erase(std::unique(freed.begin(), freed.end()), freed.end());
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  }

 private:
  // Every consumer in status.reservedFor is a removed pod, and so is every pod (pending ones, the
  // preemptor included) that references the claim and is not terminal.
  bool Freed(const api::ResourceClaim& claim) const {
    const std::string ns = claim.metadata.namespace_.value_or("default");
    const std::string preemptor = KeyOf(preemptor_.metadata);
    bool any = false;
    if (claim.status) {
      for (const auto& r : claim.status->reserved_for) {
        if (r.resource.value_or("") != "pods" || !r.api_group.value_or("").empty()) return false;
        if (!removed_.contains(absl::StrCat(ns, "/", r.name.value_or("")))) return false;
        any = true;
      }
    }
    for (const api::Pod* p : base_.PodsForClaim(ns, claim.metadata.name.value_or(""))) {
      const std::string key = KeyOf(p->metadata);
      if (key == preemptor) return false;
      const bool terminal = p->status && p->status->phase &&
                            (*p->status->phase == "Succeeded" || *p->status->phase == "Failed");
      if (terminal) continue;
      if (!removed_.contains(key)) return false;
      any = true;
    }
    return any;
  }

  absl::Status UpdateClaims(const api::Pod& pod) {
    if (!free_claims_) return absl::OkStatus();
    for (const store::PodClaim& pc : base_.ClaimsForPod(pod.metadata.namespace_.value_or("default"),
                                                         pod.metadata.name.value_or(""))) {
      if (pc.claim == nullptr || !pc.claim->status || !pc.claim->status->allocation) continue;
      const std::string key = KeyOf(pc.claim->metadata);
      const bool freed = Freed(*pc.claim);
      if (freed == freed_.contains(key)) continue;
      api::ResourceClaim claim = *pc.claim;
      if (freed) {
        claim.status->allocation.reset();
        claim.status->reserved_for.clear();
        claim.status->devices.clear();
        freed_.insert(key);
      } else {
        freed_.erase(key);
      }
      RETURN_IF_ERROR(working_->Apply(api::Object{"resource.k8s.io/v1", std::move(claim)}));
    }
    return absl::OkStatus();
  }

  const store::Snapshot& base_;
  const api::Pod& preemptor_;
  bool free_claims_;
  std::unique_ptr<store::Cluster> working_;
  std::set<std::string> removed_;
  std::set<std::string> freed_;
};

// FilterVictimsWithPDBViolation for single-pod victims, in the order given: for each, the budget it
// exceeds, or "" (budgets are shared by all the victims, as upstream's pdbsAllowed).
std::vector<std::string> PdbViolations(const std::vector<Potential>& victims,
                                       const std::vector<api::PodDisruptionBudget>& pdbs) {
  std::vector<int64_t> allowed;
  for (const auto& pdb : pdbs) allowed.push_back(pdb.disruptions_allowed);
  std::vector<std::string> out;
  for (const Potential& v : victims) {
    std::string violated;
    const std::string ns = v.pod->metadata.namespace_.value_or("default");
    const std::string name = v.pod->metadata.name.value_or("");
    for (size_t i = 0; i < pdbs.size(); ++i) {
      const api::PodDisruptionBudget& pdb = pdbs[i];
      if (pdb.ns != ns || !pdb.Selects(v.pod->metadata.labels)) continue;
      if (pdb.disrupted_pods.contains(name)) continue;
      if (--allowed[i] < 0) {
        violated = absl::StrCat(pdb.ns, "/", pdb.name);
        break;
      }
    }
    out.push_back(std::move(violated));
  }
  return out;
}

// What the dry run checks on one node: resources (with Node objects) and DynamicResources; the
// other filters do not depend on the pods there and passed already.
class NodeCheck {
 public:
  NodeCheck(const api::Pod& pod, const api::Node* node, const SchedulerResources& requests,
            const PreemptionOptions& options)
      : pod_(pod), node_(node), requests_(requests) {
    place_.features = options.features;
    place_.max_steps = options.max_steps;
    place_.explain = options.explain;
  }

  // nullopt when the pod fits on `name` in `snap`; else the rejecting filter.
  absl::StatusOr<std::optional<NodeReason>> Check(const store::Snapshot& snap, const std::string& name) const {
    if (node_ != nullptr) {
      ASSIGN_OR_RETURN(std::vector<NodeResources> free, NodeResources::Of(snap, {node_}));
      if (std::optional<ResourceShortfall> s = free[0].Check(requests_)) {
        return NodeReason{name, "NodeResourcesFit", s->why};
      }
    }
    std::set<std::string> only{name};
    PlaceOptions place = place_;
    place.only_nodes = &only;
    ASSIGN_OR_RETURN(PodPlacement placement, Place(snap, pod_, place));
    if (!placement.unresolvable.empty()) return NodeReason{name, "DynamicResources", placement.unresolvable.front()};
    if (placement.nodes.empty() || !placement.nodes.front().fits()) {
      return NodeReason{name, "DynamicResources", placement.nodes.empty() ? "" : placement.nodes.front().why};
    }
    return std::nullopt;
  }

 private:
  const api::Pod& pod_;
  const api::Node* node_;
  SchedulerResources requests_;
  PlaceOptions place_;
};

struct Evaluated {
  PreemptionCandidate candidate;
  int64_t highest = 0;
  int64_t sum = 0;
  absl::Time earliest_of_highest = absl::InfiniteFuture();
};

// SelectVictimsOnNode. Returns the candidate, or the reason the node cannot be made to fit.
absl::StatusOr<std::variant<Evaluated, NodeReason>> SelectVictims(const store::Snapshot& snapshot,
                                                                   const api::Pod& pod, int64_t priority,
                                                                   const std::string& node, const NodeCheck& check,
                                                                   const std::vector<api::PodDisruptionBudget>& pdbs,
                                                                   const PreemptionOptions& options) {
  std::vector<Potential> potential;
  for (const api::Pod* p : snapshot.PodsOnNode(node)) {
    if (!api::OccupiesNode(*p)) continue;
    ASSIGN_OR_RETURN(Potential v, PotentialOf(*p));
    if (v.priority < priority) potential.push_back(std::move(v));
  }
  if (potential.empty()) return NodeReason{node, "DefaultPreemption", kNoVictims};

  DryRun dry(snapshot, pod, options.dra_aware);
  for (const Potential& v : potential) RETURN_IF_ERROR(dry.Remove(v));
  ASSIGN_OR_RETURN(std::optional<NodeReason> rejected, check.Check(*dry.snapshot(), node));
  if (rejected) {
    rejected->reason = absl::StrCat("still rejected with all ", potential.size(),
                                    " lower-priority pod(s) removed: ", rejected->reason);
    return *std::move(rejected);
  }

  std::sort(potential.begin(), potential.end(), MoreImportant);
  const std::vector<std::string> violations = PdbViolations(potential, pdbs);
  std::vector<size_t> order;
  for (size_t i = 0; i < potential.size(); ++i) {
    if (!violations[i].empty()) order.push_back(i);
  }
  const size_t violating = order.size();
  for (size_t i = 0; i < potential.size(); ++i) {
    if (violations[i].empty()) order.push_back(i);
  }

  Evaluated out;
  out.candidate.node = node;
  std::vector<size_t> victims;
  for (size_t n = 0; n < order.size(); ++n) {
    const Potential& v = potential[order[n]];
    RETURN_IF_ERROR(dry.Restore(v));
    ASSIGN_OR_RETURN(std::optional<NodeReason> still, check.Check(*dry.snapshot(), node));
    if (!still) continue;  // reprieved
    RETURN_IF_ERROR(dry.Remove(v));
    victims.push_back(order[n]);
    if (n < violating) ++out.candidate.pdb_violations;
  }
  // Upstream sorts again only when both groups were non-empty; victims are then in importance order
  // either way.
  std::sort(victims.begin(), victims.end());
  if (victims.empty()) {
    // Every pod could stay: upstream reports "expected at least one victim pod" as an error.
    return NodeReason{node, "DefaultPreemption", "the pod fits with every lower-priority pod kept"};
  }
  for (size_t i : victims) {
    const Potential& v = potential[i];
    PreemptionVictim pv;
    pv.pod = v.key;
    pv.priority = v.priority;
    pv.start_time = v.start_text;
    dry.Claims(*v.pod, pv.claims_freed, pv.claims_kept);
    if (i < potential.size() && !violations[i].empty()) pv.pdb_violated = violations[i];
    out.candidate.victims.push_back(std::move(pv));
    if (out.candidate.victims.size() == 1) out.highest = v.priority;
    out.sum += v.priority + (int64_t{1} << 31);
    if (v.priority == out.highest && v.start < out.earliest_of_highest) out.earliest_of_highest = v.start;
  }
  return out;
}

// pickOneNodeForPreemption's default score functions, in order; returns the index and the rule.
std::pair<size_t, std::string> PickOne(const std::vector<Evaluated>& candidates) {
  if (candidates.size() == 1) return {0, "only candidate"};
  using Score = std::function<int64_t(const Evaluated&)>;
  const std::vector<std::pair<Score, std::string>> rules = {
      {[](const Evaluated& e) { return -e.candidate.pdb_violations; }, "fewest PDB violations"},
      {[](const Evaluated& e) { return -e.highest; }, "lowest highest priority"},
      {[](const Evaluated& e) { return -e.sum; }, "smallest priority sum"},
      {[](const Evaluated& e) { return -static_cast<int64_t>(e.candidate.victims.size()); }, "fewest victims"},
      {[](const Evaluated& e) {
         return e.earliest_of_highest == absl::InfiniteFuture() ? std::numeric_limits<int64_t>::max()
                                                                : absl::ToUnixNanos(e.earliest_of_highest);
       },
       "latest start time"},
  };
  std::vector<size_t> all(candidates.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  for (const auto& [score, name] : rules) {
    std::vector<size_t> best;
    int64_t max = std::numeric_limits<int64_t>::min();
    for (size_t i : all) {
      const int64_t s = score(candidates[i]);
      if (s > max) {
        max = s;
        best.clear();
      }
      if (s == max) best.push_back(i);
    }
    if (best.size() == 1) return {best[0], name};
    all = std::move(best);
  }
  return {all[0], "first in name order"};
}

}  // namespace

std::string_view PreemptionOutcomeName(PreemptionOutcome outcome) {
  switch (outcome) {
    case PreemptionOutcome::kPreempt:
      return "preempt";
    case PreemptionOutcome::kFits:
      return "fits";
    case PreemptionOutcome::kNotEligible:
      return "not-eligible";
    case PreemptionOutcome::kNoCandidate:
      return "no-candidate";
  }
  return "no-candidate";
}

absl::StatusOr<PreemptionResult> Preempt(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                         const PreemptionOptions& options) {
  const api::Pod* pod = snapshot.GetPod(ns, name);
  if (pod == nullptr) return absl::NotFoundError(absl::StrCat("pod ", AV(ns), "/", AV(name), " not found"));
  PreemptionResult out;
  out.pod = KeyOf(pod->metadata);
  out.dra_aware = options.dra_aware;
  if (!IsPendingPod(*pod)) {
    return absl::InvalidArgumentError(absl::StrCat("pod ", out.pod, " is not pending",
                                                   pod->spec && pod->spec->node_name && !pod->spec->node_name->empty()
                                                       ? absl::StrCat(" (bound to node ", *pod->spec->node_name, ")")
                                                       : std::string()));
  }
  ASSIGN_OR_RETURN(out.priority, PodPriority(*pod));
  std::vector<api::PodDisruptionBudget> pdbs;
  for (const api::Object* o : snapshot.List(api::Kind::kOther)) {
    const auto& other = std::get<api::OtherObject>(o->value);
    if (!api::IsPodDisruptionBudget(other)) continue;
    ASSIGN_OR_RETURN(api::PodDisruptionBudget pdb, api::ReadPodDisruptionBudget(other));
    pdbs.push_back(std::move(pdb));
  }

  // 1. The scheduling cycle: the filters as Replay runs them.
  std::string node_source;
  const std::vector<NodeInfo> nodes = PlacementNodes(snapshot, &node_source);
  ASSIGN_OR_RETURN(api::ResourceList request_list, api::PodRequests(*pod));
  const SchedulerResources requests = ToSchedulerResources(request_list);
  ASSIGN_OR_RETURN(PodNodeFilters filters, PodNodeFilters::Of(*pod));
  std::map<std::string, NodeReason> rejected;
  std::set<std::string> passed;
  if (node_source == "nodes") {
    if (std::optional<NodeRejection> r = filters.PreFilter()) {
      for (const NodeInfo& n : nodes) {
        out.nodes.push_back(NodeReason{n.name, r->plugin, absl::StrCat(kNotHelpful, ": ", r->Text())});
      }
      out.message = absl::StrCat("0/", nodes.size(), " nodes are available: ", r->Text());
      return out;
    }
  }
  for (const NodeInfo& n : nodes) {
    if (node_source == "nodes") {
      const api::Node* node = snapshot.GetNode(n.name);
      ASSIGN_OR_RETURN(FilterNode fn, FilterNode::Of(*node));
      if (std::optional<NodeRejection> r = filters.Check(fn)) {
        rejected.emplace(n.name, NodeReason{n.name, r->plugin, r->Text()});
        continue;
      }
      ASSIGN_OR_RETURN(std::vector<NodeResources> free, NodeResources::Of(snapshot, {node}));
      if (std::optional<ResourceShortfall> s = free[0].Check(requests)) {
        rejected.emplace(n.name, NodeReason{n.name, "NodeResourcesFit", s->why});
        continue;
      }
    }
    passed.insert(n.name);
  }
  PlaceOptions place;
  place.features = options.features;
  place.max_steps = options.max_steps;
  place.explain = options.explain;
  place.only_nodes = &passed;
  ASSIGN_OR_RETURN(PodPlacement placement, Place(snapshot, *pod, place));
  if (!placement.unresolvable.empty()) {
    // DynamicResources' PreFilter rejects the pod: UnschedulableAndUnresolvable, no preemption.
    for (const NodeInfo& n : nodes) {
      out.nodes.push_back(NodeReason{n.name, "DynamicResources",
                                     absl::StrCat(kNotHelpful, ": ", placement.unresolvable.front())});
    }
    out.message = absl::StrCat("0/", nodes.size(), " nodes are available: ", placement.unresolvable.front());
    return out;
  }
  std::set<std::string> dra_unresolvable;
  for (const NodePlacement& np : placement.nodes) {
    if (np.fits()) {
      out.fitting_nodes.push_back(np.node);
      continue;
    }
    rejected.emplace(np.node, NodeReason{np.node, "DynamicResources", np.why});
    if (np.outcome == Outcome::kError ||
        (!np.reasons.empty() && np.reasons.front() == kClaimNotAvailable)) {
      dra_unresolvable.insert(np.node);
    }
  }
  if (!out.fitting_nodes.empty()) {
    out.outcome = PreemptionOutcome::kFits;
    return out;
  }

  // 2. PodEligibleToPreemptOthers.
  if (pod->spec) {
    if (const api::RawJson* raw = api::FindRaw(pod->spec->other, "preemptionPolicy"); raw && raw->json == "\"Never\"") {
      out.outcome = PreemptionOutcome::kNotEligible;
      out.message = "not eligible due to preemptionPolicy=Never.";
      return out;
    }
  }

  // 3-4. The candidates.
  std::vector<Evaluated> evaluated;
  for (const NodeInfo& n : nodes) {
    NodeReason& why = rejected.at(n.name);
    if (!Resolvable(why, options.dra_aware) || dra_unresolvable.contains(n.name)) {
      why.reason = absl::StrCat(kNotHelpful, ": ", why.reason);
      out.nodes.push_back(why);
      continue;
    }
    NodeCheck check(*pod, node_source == "nodes" ? snapshot.GetNode(n.name) : nullptr, requests, options);
    ASSIGN_OR_RETURN(auto result, SelectVictims(snapshot, *pod, out.priority, n.name, check, pdbs, options));
    if (auto* reason = std::get_if<NodeReason>(&result)) {
      out.nodes.push_back(std::move(*reason));
      continue;
    }
    evaluated.push_back(std::get<Evaluated>(std::move(result)));
  }
  for (const Evaluated& e : evaluated) out.candidates.push_back(e.candidate);
  if (evaluated.empty()) {
    out.outcome = PreemptionOutcome::kNoCandidate;
    out.message = absl::StrCat("0/", nodes.size(), " nodes can be made to fit by preemption");
    return out;
  }

  // 5. pickOneNodeForPreemption.
  auto [best, rule] = PickOne(evaluated);
  out.outcome = PreemptionOutcome::kPreempt;
  out.node = evaluated[best].candidate.node;
  out.victims = evaluated[best].candidate.victims;
  out.pdb_violations = evaluated[best].candidate.pdb_violations;
  out.decided_by = rule;
  out.message = absl::StrCat("preempt ", out.victims.size(), " pod(s) on node ", out.node);
  return out;
}

}  // namespace draforge::alloc
