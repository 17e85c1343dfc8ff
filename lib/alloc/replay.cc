#include "alloc/replay.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <variant>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "alloc/node_filters.h"
#include "alloc/node_resources.h"
#include "alloc/placement.h"
#include "api/object.h"
#include "api/pod_resources.h"
#include "common/status.h"
#include "rapidjson/document.h"

namespace draforge::alloc {
namespace {

constexpr char kDefaultScheduler[] = "default-scheduler";

std::string PodKey(const api::Pod& pod) {
  return absl::StrCat(pod.metadata.namespace_.value_or("default"), "/", pod.metadata.name.value_or(""));
}

// What orders a pod in the scheduling queue.
struct QueueKey {
  int64_t priority = 0;
  absl::Time created = absl::InfinitePast();
  std::string key;
};

absl::StatusOr<QueueKey> QueueKeyOf(const api::Pod& pod) {
  QueueKey out;
  out.key = PodKey(pod);
  ASSIGN_OR_RETURN(out.priority, PodPriority(pod));
  if (const auto& ts = pod.metadata.creation_timestamp; ts && !ts->empty()) {
    std::string err;
    if (!absl::ParseTime(absl::RFC3339_full, *ts, &out.created, &err)) {
      return absl::InvalidArgumentError(
          absl::StrCat("pod ", out.key, ": metadata.creationTimestamp: not an RFC 3339 time: \"", *ts, "\""));
    }
  }
  return out;
}


// Device shares per node, for the allocated policies: the devices of the node-local ResourceSlices
// (spec.nodeName) of each node, and which of them are allocated.
class DeviceShares {
 public:
  explicit DeviceShares(const store::Snapshot& snapshot) {
    for (const api::ResourceSlice* s : snapshot.ResourceSlices()) {
      if (!s->spec || !s->spec->node_name || s->spec->node_name->empty()) continue;
      for (const api::Device& d : s->spec->devices) {
        DeviceID id{s->spec->driver.value_or(""), s->spec->pool ? s->spec->pool->name.value_or("") : "",
                    d.name.value_or("")};
        node_of_[id.String()] = *s->spec->node_name;
        ++total_[*s->spec->node_name];
      }
    }
    for (const api::ResourceClaim* c : snapshot.ResourceClaims()) {
      if (c->status && c->status->allocation) Add(*c->status->allocation);
    }
  }

  // The share of `node`'s devices allocated once `extra` is added (0 for a node without devices).
  double Share(const std::string& node, const std::vector<const api::AllocationResult*>& extra) const {
    auto total = total_.find(node);
    if (total == total_.end() || total->second == 0) return 0;
    std::set<std::string> taken;
    for (const api::AllocationResult* a : extra) {
      for (const std::string& id : Ids(*a)) {
        auto it = node_of_.find(id);
        if (it != node_of_.end() && it->second == node && !allocated_.contains(id)) taken.insert(id);
      }
    }
    auto used = used_.find(node);
    const int64_t n = (used == used_.end() ? 0 : used->second) + static_cast<int64_t>(taken.size());
    return static_cast<double>(n) / static_cast<double>(total->second);
  }

  void Add(const api::AllocationResult& a) {
    for (const std::string& id : Ids(a)) {
      if (!allocated_.insert(id).second) continue;
      if (auto it = node_of_.find(id); it != node_of_.end()) ++used_[it->second];
    }
  }

 private:
  static std::vector<std::string> Ids(const api::AllocationResult& a) {
    std::vector<std::string> out;
    if (a.devices) {
      for (const auto& r : a.devices->results) out.push_back(ResultDeviceID(r).String());
    }
    return out;
  }

  std::map<std::string, std::string> node_of_;  // device ID -> node
  std::map<std::string, int64_t> total_;        // node -> devices
  std::map<std::string, int64_t> used_;         // node -> allocated devices
  std::set<std::string> allocated_;
};


// Binds `pod` to `node` in `working` and records its claims' allocations.
absl::Status Commit(store::Cluster& working, const api::Pod& pod, const PodPlacement& placement,
                    const NodePlacement& node) {
  api::Pod bound = pod;
  if (!bound.spec) bound.spec.emplace();
  bound.spec->node_name = node.node;
  api::ResourceClaimConsumerReference ref;
  ref.resource = "pods";
  ref.name = pod.metadata.name;
  ref.uid = pod.metadata.uid;
  for (size_t i = 0; i < placement.claims.size(); ++i) {
    const PlacedClaim& pc = placement.claims[i];
    api::ResourceClaim claim = *pc.claim;
    if (!claim.status) claim.status.emplace();
    if (!claim.status->allocation) claim.status->allocation = node.allocations[i].allocation;
    bool reserved = false;
    for (const auto& r : claim.status->reserved_for) reserved = reserved || store::ReservesPod(r, &pod, *ref.name);
    if (!reserved) claim.status->reserved_for.push_back(ref);
    if (pc.source == ClaimSource::kTemplateInstantiated) {
      if (!bound.status) bound.status.emplace();
      api::PodResourceClaimStatus st;
      st.name = pc.pod_claim;
      st.resource_claim_name = claim.metadata.name;
      auto& statuses = bound.status->resource_claim_statuses;
      std::erase_if(statuses, [&](const api::PodResourceClaimStatus& s) { return s.name == st.name; });
      statuses.push_back(std::move(st));
    }
    RETURN_IF_ERROR(working.Apply(api::Object{"resource.k8s.io/v1", std::move(claim)}));
  }
  return working.Apply(api::Object{"v1", std::move(bound)});
}

}  // namespace

bool IsPendingPod(const api::Pod& pod) {
  if (pod.metadata.deletion_timestamp) return false;
  if (pod.spec && pod.spec->node_name && !pod.spec->node_name->empty()) return false;
  if (pod.status && pod.status->phase && (*pod.status->phase == "Succeeded" || *pod.status->phase == "Failed")) {
    return false;
  }
  if (pod.spec) {
    if (const api::RawJson* raw = api::FindRaw(pod.spec->other, "schedulerName")) {
      return raw->json == absl::StrCat("\"", kDefaultScheduler, "\"") || raw->json == "\"\"" || raw->json == "null";
    }
  }
  return true;
}

std::unique_ptr<store::Cluster> WorkingCopy(const store::Snapshot& snapshot) {
  std::vector<api::Object> objects;
  for (api::Kind kind : {api::Kind::kDeviceClass, api::Kind::kResourceClaim, api::Kind::kResourceClaimTemplate,
                         api::Kind::kResourceSlice, api::Kind::kDeviceTaintRule, api::Kind::kPod, api::Kind::kNode}) {
    for (const api::Object* o : snapshot.List(kind)) objects.push_back(*o);
  }
  auto cluster = std::make_unique<store::Cluster>();
  // Every object came out of a store, so Replace cannot reject it.
  (void)cluster->Replace(std::move(objects), "");
  return cluster;
}

absl::StatusOr<int64_t> PodPriority(const api::Pod& pod) {
  if (pod.spec) {
    if (const api::RawJson* raw = api::FindRaw(pod.spec->other, "priority")) {
      rapidjson::Document d;
      d.Parse(raw->json.data(), raw->json.size());
      if (d.HasParseError() || !d.IsInt64()) {
        return absl::InvalidArgumentError(
            absl::StrCat("pod ", PodKey(pod), ": spec.priority: want an integer, got ", raw->json));
      }
      return d.GetInt64();
    }
  }
  return 0;
}

std::string_view ReplayPolicyName(ReplayPolicy policy) {
  switch (policy) {
    case ReplayPolicy::kFirstFit:
      return "first-fit";
    case ReplayPolicy::kMostAllocated:
      return "most-allocated";
    case ReplayPolicy::kLeastAllocated:
      return "least-allocated";
  }
  return "first-fit";
}

std::optional<ReplayPolicy> ParseReplayPolicy(std::string_view name) {
  for (ReplayPolicy p : {ReplayPolicy::kFirstFit, ReplayPolicy::kMostAllocated, ReplayPolicy::kLeastAllocated}) {
    if (ReplayPolicyName(p) == name) return p;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<const api::Pod*>> ReplayQueue(const store::Snapshot& snapshot) {
  std::vector<std::pair<QueueKey, const api::Pod*>> queue;
  for (const api::Object* o : snapshot.List(api::Kind::kPod)) {
    const auto& pod = std::get<api::Pod>(o->value);
    if (!IsPendingPod(pod)) continue;
    ASSIGN_OR_RETURN(QueueKey key, QueueKeyOf(pod));
    queue.emplace_back(std::move(key), &pod);
  }
  std::sort(queue.begin(), queue.end(), [](const auto& a, const auto& b) {
    return std::tie(b.first.priority, a.first.created, a.first.key) <
           std::tie(a.first.priority, b.first.created, b.first.key);
  });
  std::vector<const api::Pod*> out;
  for (const auto& [key, pod] : queue) out.push_back(pod);
  return out;
}

struct ReplayStep::State {
  ReplayOptions options;
  std::vector<NodeInfo> nodes;
  std::map<std::string, NodeResources> resources;
  std::map<std::string, FilterNode> filter_nodes;
  DeviceShares shares;
  std::unique_ptr<store::Cluster> working;
  PlaceOptions place;
};

ReplayStep::ReplayStep(std::unique_ptr<State> state) : state_(std::move(state)) {}
ReplayStep::~ReplayStep() = default;
store::Cluster& ReplayStep::working() { return *state_->working; }

absl::StatusOr<std::unique_ptr<ReplayStep>> ReplayStep::Start(const store::Snapshot& snapshot,
                                                              const ReplayOptions& options) {
  // Node filters and resources, only with Node objects (as HowManyMore: nodes named by slices have no
  // allocatable, labels or taints).
  std::string node_source;
  std::vector<NodeInfo> nodes = PlacementNodes(snapshot, &node_source);
  std::map<std::string, NodeResources> resources;
  std::map<std::string, FilterNode> filter_nodes;
  if (node_source == "nodes") {
    std::vector<const api::Node*> node_objects;
    for (const NodeInfo& n : nodes) node_objects.push_back(snapshot.GetNode(n.name));
    ASSIGN_OR_RETURN(std::vector<NodeResources> free, NodeResources::Of(snapshot, node_objects));
    for (size_t i = 0; i < nodes.size(); ++i) {
      resources.emplace(nodes[i].name, std::move(free[i]));
      ASSIGN_OR_RETURN(FilterNode fn, FilterNode::Of(*node_objects[i]));
      filter_nodes.emplace(nodes[i].name, std::move(fn));
    }
  }
  PlaceOptions place;
  place.features = options.features;
  place.max_steps = options.max_steps;
  // The explain funnel's sentences are read only for a pod that fits nowhere: the first pass of
  // each pod runs without them (most of a replay's cost when most pods fit), and only a pod that
  // fits on no node is judged again with them (Place, below).
  place.explain = false;
  auto state = std::unique_ptr<State>(new State{options, std::move(nodes), std::move(resources),
                                                std::move(filter_nodes), DeviceShares(snapshot),
                                                WorkingCopy(snapshot), place});
  return std::unique_ptr<ReplayStep>(new ReplayStep(std::move(state)));
}

absl::StatusOr<std::variant<ReplayedPod, PendingPod>> ReplayStep::Place(std::string_view ns, std::string_view name) {
  State& st = *state_;
  const auto& nodes = st.nodes;
  auto& resources = st.resources;
  const auto& filter_nodes = st.filter_nodes;
  const ReplayOptions& options = st.options;
  std::shared_ptr<const store::Snapshot> current = st.working->snapshot();
  const api::Pod* found = current->GetPod(ns, name);
  if (found == nullptr) return absl::NotFoundError(absl::StrCat("pod ", std::string(ns), "/", std::string(name), " not found"));
  const api::Pod& pod = *found;
  ASSIGN_OR_RETURN(api::ResourceList request_list, api::PodRequests(pod));
  const SchedulerResources requests = ToSchedulerResources(request_list);
  ASSIGN_OR_RETURN(PodNodeFilters filters, PodNodeFilters::Of(pod));
  PendingPod pending{PodKey(pod), {}};

  // PreFilter: a pod whose required node affinity names no node fits nowhere.
  if (!filter_nodes.empty()) {
    if (std::optional<NodeRejection> rejected = filters.PreFilter()) {
      for (const NodeInfo& n : nodes) pending.nodes.push_back(NodeReason{n.name, rejected->plugin, rejected->Text()});
      return pending;
    }
  }
  // The filters in kube-scheduler's order: NodeUnschedulable, TaintToleration, NodeAffinity, then
  // NodeResourcesFit; DynamicResources (Place) runs only on the nodes that pass them.
  std::map<std::string, NodeReason> rejected;
  std::set<std::string> candidates;
  for (const NodeInfo& n : nodes) {
    if (auto fn = filter_nodes.find(n.name); fn != filter_nodes.end()) {
      if (std::optional<NodeRejection> r = filters.Check(fn->second)) {
        rejected.emplace(n.name, NodeReason{n.name, r->plugin, r->Text()});
        continue;
      }
    }
    if (auto free = resources.find(n.name); free != resources.end()) {
      if (std::optional<ResourceShortfall> shortfall = free->second.Check(requests)) {
        rejected.emplace(n.name, NodeReason{n.name, "NodeResourcesFit", shortfall->why});
        continue;
      }
    }
    candidates.insert(n.name);
  }
  PlaceOptions place = st.place;
  place.only_nodes = &candidates;
  ASSIGN_OR_RETURN(PodPlacement placement, alloc::Place(*current, pod, place));
  if (options.explain && placement.unresolvable.empty() && !candidates.empty() && placement.FittingNodes().empty()) {
    PlaceOptions explained = place;
    explained.explain = true;
    ASSIGN_OR_RETURN(placement, alloc::Place(*current, pod, explained));
  }
  if (!placement.unresolvable.empty()) {
    // DynamicResources' PreFilter rejects the pod before any node is filtered.
    for (const NodeInfo& n : nodes) {
      pending.nodes.push_back(NodeReason{n.name, "DynamicResources", placement.unresolvable.front()});
    }
    return pending;
  }

  const NodePlacement* chosen = nullptr;
  std::vector<std::string> feasible;
  double best = 0;
  auto next = placement.nodes.begin();
  for (const NodeInfo& n : nodes) {
    if (auto r = rejected.find(n.name); r != rejected.end()) {
      pending.nodes.push_back(std::move(r->second));
      continue;
    }
    // Place judged exactly the candidates, in the same name order.
    const NodePlacement& np = *next++;
    if (!np.fits()) {
      pending.nodes.push_back(NodeReason{np.node, "DynamicResources", np.why});
      continue;
    }
    feasible.push_back(np.node);
    if (options.policy == ReplayPolicy::kFirstFit) {
      if (chosen == nullptr) chosen = &np;
      continue;
    }
    std::vector<const api::AllocationResult*> extra;
    for (const ClaimAllocation& ca : np.allocations) {
      if (!ca.existing) extra.push_back(&ca.allocation);
    }
    const double share = st.shares.Share(np.node, extra);
    const bool better = options.policy == ReplayPolicy::kMostAllocated ? share > best : share < best;
    if (chosen == nullptr || better) {
      chosen = &np;
      best = share;
    }
  }
  if (chosen == nullptr) return pending;
  ReplayedPod placed{PodKey(pod), chosen->node, {}, std::move(feasible)};
  for (const ClaimAllocation& ca : chosen->allocations) {
    placed.claims.push_back(ReplayedClaim{ca.claim, ca.existing, ca.allocation});
    if (!ca.existing) st.shares.Add(ca.allocation);
  }
  if (auto free = resources.find(chosen->node); free != resources.end()) free->second.Take(requests);
  RETURN_IF_ERROR(Commit(*st.working, pod, placement, *chosen));
  return placed;
}

absl::StatusOr<ReplayResult> Replay(const store::Snapshot& snapshot, const ReplayOptions& options) {
  ReplayResult out;
  out.policy = options.policy;
  ASSIGN_OR_RETURN(std::vector<const api::Pod*> queue, ReplayQueue(snapshot));
  for (const api::Pod* pod : queue) out.order.push_back(PodKey(*pod));
  ASSIGN_OR_RETURN(std::unique_ptr<ReplayStep> step, ReplayStep::Start(snapshot, options));
  for (const api::Pod* queued : queue) {
    ASSIGN_OR_RETURN(auto result, step->Place(queued->metadata.namespace_.value_or("default"),
                                              queued->metadata.name.value_or("")));
    if (auto* placed = std::get_if<ReplayedPod>(&result)) {
      out.placed.push_back(std::move(*placed));
    } else {
      out.pending.push_back(std::move(std::get<PendingPod>(result)));
    }
  }
  out.after = step->working().snapshot();
  return out;
}

}  // namespace draforge::alloc
