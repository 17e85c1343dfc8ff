#include "alloc/defrag.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/placement.h"
#include "alloc/whatif_edits.h"
#include "api/codec.h"
#include "common/status.h"
#include "rapidjson/document.h"

namespace draforge::alloc {
namespace {

constexpr char kShapePod[] = "defrag-shape";
constexpr char kMirrorPodAnnotation[] = "kubernetes.io/config.mirror";

std::string Ns(const api::ObjectMeta& m) { return m.namespace_.value_or("default"); }
std::string KeyOf(const api::ObjectMeta& m) { return absl::StrCat(Ns(m), "/", m.name.value_or("")); }

bool Terminal(const api::Pod& pod) {
  return pod.status && pod.status->phase && (*pod.status->phase == "Succeeded" || *pod.status->phase == "Failed");
}

bool Bound(const api::Pod& pod) { return pod.spec && pod.spec->node_name && !pod.spec->node_name->empty(); }

// Pods an operator does not move: DaemonSet pods (pinned to their node) and mirror pods (static).
bool Movable(const api::Pod& pod) {
  if (pod.metadata.deletion_timestamp || Terminal(pod) || !Bound(pod)) return false;
  if (pod.metadata.annotations.Contains(kMirrorPodAnnotation)) return false;
  for (const auto& o : pod.metadata.owner_references) {
    if (o.controller.value_or(false) && o.kind.value_or("") == "DaemonSet") return false;
  }
  return true;
}

// One consumer group: pods that must move together because they share allocated claims.
struct Group {
  std::vector<const api::Pod*> pods;  // sorted by key
  std::vector<std::string> pod_keys;
  std::vector<std::string> claims;   // allocated claims, sorted
  std::vector<std::string> devices;  // their results' devices
  std::set<std::string> nodes;
};

// The consumer groups of `snapshot`: bound, movable pods with at least one allocated claim that has a
// device result, joined through shared claims.
std::vector<Group> ConsumerGroups(const store::Snapshot& snapshot) {
  std::vector<const api::Pod*> pods;
  std::map<std::string, size_t> index;
  std::map<std::string, std::vector<size_t>> claim_pods;  // claim key -> pod indexes
  std::map<std::string, const api::ResourceClaim*> claims;
  for (const api::Pod* p : snapshot.Pods()) {
    if (!Movable(*p)) continue;
    const size_t i = pods.size();
    bool holds = false;
    for (const store::PodClaim& pc : snapshot.ClaimsForPod(Ns(p->metadata), p->metadata.name.value_or(""))) {
      const api::ResourceClaim* c = pc.claim;
      if (c == nullptr || !c->status || !c->status->allocation || !c->status->allocation->devices ||
          c->status->allocation->devices->results.empty()) {
        continue;
      }
      const std::string key = KeyOf(c->metadata);
      claims[key] = c;
      claim_pods[key].push_back(i);
      holds = true;
    }
    if (!holds) continue;
    index[KeyOf(p->metadata)] = i;
    pods.push_back(p);
  }
  // Union-find over the pods.
  std::vector<size_t> parent(pods.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& [claim, ps] : claim_pods) {
    // A claim also reserved by a pod that cannot move pins every pod that shares it.
    for (size_t j = 1; j < ps.size(); ++j) parent[find(ps[j])] = find(ps[0]);
  }
  std::set<size_t> pinned;
  for (const auto& [key, c] : claims) {
    for (const api::Pod* p : snapshot.PodsForClaim(Ns(c->metadata), c->metadata.name.value_or(""))) {
      if (!Movable(*p) && !Terminal(*p) && Bound(*p)) {
        for (size_t i : claim_pods[key]) pinned.insert(find(i));
      }
    }
  }
  std::map<size_t, Group> groups;
  for (size_t i = 0; i < pods.size(); ++i) {
    if (pinned.contains(find(i))) continue;
    Group& g = groups[find(i)];
    g.pods.push_back(pods[i]);
    g.pod_keys.push_back(KeyOf(pods[i]->metadata));
    g.nodes.insert(*pods[i]->spec->node_name);
  }
  for (const auto& [key, ps] : claim_pods) {
    const size_t root = find(ps[0]);
    auto it = groups.find(root);
    if (it == groups.end()) continue;
    it->second.claims.push_back(key);
    for (const auto& r : claims[key]->status->allocation->devices->results) {
      it->second.devices.push_back(ResultDeviceID(r).String());
    }
  }
  std::vector<Group> out;
  for (auto& [root, g] : groups) out.push_back(std::move(g));
  std::sort(out.begin(), out.end(), [](const Group& a, const Group& b) { return a.pod_keys < b.pod_keys; });
  return out;
}

// Required node affinity `matchFields: metadata.name <op> [node]`, ANDed with the pod's own terms.
absl::Status Pin(api::Pod& pod, std::string_view node, bool not_in) {
  if (!pod.spec) pod.spec.emplace();
  rapidjson::Document d;
  auto& alloc = d.GetAllocator();
  auto field = std::find_if(pod.spec->other.begin(), pod.spec->other.end(),
                            [](const auto& kv) { return kv.first == "affinity"; });
  if (field != pod.spec->other.end()) {
    d.Parse(field->second.json.data(), field->second.json.size());
    if (d.HasParseError() || !(d.IsObject() || d.IsNull())) {
      return absl::InvalidArgumentError(absl::StrCat("pod ", KeyOf(pod.metadata), ": spec.affinity: expected object"));
    }
  }
  if (!d.IsObject()) d.SetObject();
  auto member = [&](rapidjson::Value& v, const char* name, rapidjson::Type type) -> rapidjson::Value& {
    auto it = v.FindMember(name);
    if (it == v.MemberEnd() || it->value.GetType() != type) {
      if (it != v.MemberEnd()) v.RemoveMember(it);
      v.AddMember(rapidjson::Value(name, alloc), rapidjson::Value(type), alloc);
      it = v.FindMember(name);
    }
    return it->value;
  };
  rapidjson::Value& na = member(d, "nodeAffinity", rapidjson::kObjectType);
  rapidjson::Value& req = member(na, "requiredDuringSchedulingIgnoredDuringExecution", rapidjson::kObjectType);
  rapidjson::Value& terms = member(req, "nodeSelectorTerms", rapidjson::kArrayType);
  if (terms.Empty()) terms.PushBack(rapidjson::Value(rapidjson::kObjectType), alloc);
  for (auto& term : terms.GetArray()) {
    if (!term.IsObject()) continue;
    rapidjson::Value& fields = member(term, "matchFields", rapidjson::kArrayType);
    rapidjson::Value req_v(rapidjson::kObjectType);
    req_v.AddMember("key", "metadata.name", alloc);
    req_v.AddMember("operator", rapidjson::Value(not_in ? "NotIn" : "In", alloc), alloc);
    rapidjson::Value values(rapidjson::kArrayType);
    values.PushBack(rapidjson::Value(std::string(node).c_str(), alloc), alloc);
    req_v.AddMember("values", values, alloc);
    fields.PushBack(req_v, alloc);
  }
  std::string json = api::WriteJson(d, false);
  if (field != pod.spec->other.end()) {
    field->second = api::RawJson(std::move(json));
  } else {
    pod.spec->other.emplace_back("affinity", api::RawJson(std::move(json)));
  }
  return absl::OkStatus();
}

// `pod` created again: no node, no status (a new claim from its templates), pending.
api::Pod Recreated(const api::Pod& pod) {
  api::Pod p = pod;
  p.spec->node_name.reset();
  p.metadata.resource_version.reset();
  p.status.emplace();
  p.status->phase = "Pending";
  return p;
}

std::vector<api::Object> Objects(const store::Snapshot& snapshot, bool keep_pending) {
  std::vector<api::Object> out;
  for (api::Kind kind : {api::Kind::kDeviceClass, api::Kind::kResourceClaim, api::Kind::kResourceClaimTemplate,
                         api::Kind::kResourceSlice, api::Kind::kDeviceTaintRule, api::Kind::kPod, api::Kind::kNode}) {
    for (const api::Object* o : snapshot.List(kind)) {
      if (kind == api::Kind::kPod && !keep_pending) {
        const auto& pod = std::get<api::Pod>(o->value);
        if (!Bound(pod) && !Terminal(pod)) continue;
      }
      out.push_back(*o);
    }
  }
  return out;
}

std::shared_ptr<const store::Snapshot> SnapshotOf(std::vector<api::Object> objects) {
  store::Cluster cluster;
  // Every object came out of a store (or was checked by the caller), so Replace cannot reject it.
  (void)cluster.Replace(std::move(objects), "");
  return cluster.snapshot();
}

// Replays `pods` (new pending pods) on `state` without its other pending pods.
// With `explain`, pending pods get the explain funnel's sentences (slower; for what is shown).
absl::StatusOr<ReplayResult> ReplayOnly(const store::Snapshot& state, const std::vector<api::Pod>& pods,
                                        const DefragOptions& options, bool explain = false) {
  std::vector<api::Object> objects = Objects(state, false);
  for (const api::Pod& p : pods) objects.push_back(api::Object{"v1", p});
  std::shared_ptr<const store::Snapshot> s = SnapshotOf(std::move(objects));
  ReplayOptions ro;
  ro.features = options.features;
  ro.max_steps = options.max_steps;
  ro.explain = explain;
  return Replay(*s, ro);
}

struct MoveResult {
  DefragMove move;
  std::shared_ptr<const store::Snapshot> after;
};

// Moves `group` on `state`: its pods deleted, created again pinned away from `room` (else to it).
absl::StatusOr<std::optional<MoveResult>> MoveGroup(const store::Snapshot& state, const Group& group,
                                                    const std::string& room, const DefragOptions& options) {
  std::vector<WhatifEdit> edits;
  for (const std::string& key : group.pod_keys) edits.push_back(WhatifEdit{WhatifEditKind::kDeletePod, key, 0});
  ASSIGN_OR_RETURN(WhatifEditResult deleted, ApplyWhatifEdits(state, edits));
  for (bool away : {true, false}) {
    std::vector<api::Pod> pods;
    for (const api::Pod* p : group.pods) {
      api::Pod np = Recreated(*p);
      RETURN_IF_ERROR(Pin(np, room, away));
      pods.push_back(std::move(np));
    }
    ASSIGN_OR_RETURN(ReplayResult r, ReplayOnly(*deleted.snapshot, pods, options));
    if (r.placed.size() != pods.size()) continue;
    MoveResult out;
    out.move.pods = group.pod_keys;
    out.move.claims = group.claims;
    out.move.from_node = *group.nodes.begin();
    out.move.to_node = r.placed.front().node;
    out.move.from_devices = group.devices;
    std::set<std::string> after_claims;
    for (const ReplayedPod& rp : r.placed) {
      for (const ReplayedClaim& rc : rp.claims) {
        if (!after_claims.insert(rc.claim).second) continue;
        out.move.claims_after.push_back(rc.claim);
        if (!rc.allocation.devices) continue;
        for (const auto& res : rc.allocation.devices->results) out.move.to_devices.push_back(ResultDeviceID(res).String());
      }
    }
    out.after = r.after;
    return std::optional<MoveResult>(std::move(out));
  }
  return std::optional<MoveResult>();
}

// The shape's pod, pinned to `node` when given, replayed alone on `state`.
absl::StatusOr<ReplayResult> ReplayShape(const store::Snapshot& state, const DefragShape& shape,
                                         const std::string& node, const DefragOptions& options, bool explain = false) {
  api::Pod pod = shape.pod;
  if (!node.empty()) RETURN_IF_ERROR(Pin(pod, node, false));
  return ReplayOnly(state, {pod}, options, explain);
}

// Combinations of k indexes out of n, in lexicographic order.
bool NextCombination(std::vector<size_t>& c, size_t n) {
  const size_t k = c.size();
  for (size_t i = k; i-- > 0;) {
    if (c[i] < n - k + i) {
      ++c[i];
      for (size_t j = i + 1; j < k; ++j) c[j] = c[j - 1] + 1;
      return true;
    }
  }
  return false;
}

DefragShape PodShape(std::string description, const api::Pod& pod) {
  DefragShape s;
  s.description = std::move(description);
  s.pod = pod;
  if (!s.pod.spec) s.pod.spec.emplace();
  s.pod.spec->node_name.reset();
  s.pod.status.reset();
  return s;
}

}  // namespace

absl::StatusOr<DefragShape> ShapeFromObjects(const std::vector<api::Object>& objects) {
  for (const api::Object& o : objects) {
    if (const auto* pod = std::get_if<api::Pod>(&o.value)) {
      DefragShape s = PodShape(absl::StrCat("pod ", KeyOf(pod->metadata)), *pod);
      if (!s.pod.metadata.namespace_) s.pod.metadata.namespace_ = "default";
      for (const api::Object& other : objects) {
        if (other.kind() == api::Kind::kResourceClaim || other.kind() == api::Kind::kResourceClaimTemplate) {
          s.objects.push_back(other);
        }
      }
      return s;
    }
  }
  for (api::Kind want : {api::Kind::kResourceClaim, api::Kind::kResourceClaimTemplate}) {
    for (const api::Object& o : objects) {
      if (o.kind() != want) continue;
      api::Object copy = o;
      const std::string ns = Ns(copy.metadata());
      copy.metadata().namespace_ = ns;
      const std::string name = copy.metadata().name.value_or("");
      api::Pod pod;
      pod.metadata.name = kShapePod;
      pod.metadata.namespace_ = ns;
      pod.spec.emplace();
      api::PodResourceClaim prc;
      prc.name = "shape";
      if (auto* claim = std::get_if<api::ResourceClaim>(&copy.value)) {
        claim->status.reset();
        claim->metadata.resource_version.reset();
        prc.resource_claim_name = name;
      } else {
        prc.resource_claim_template_name = name;
      }
      pod.spec->resource_claims.push_back(std::move(prc));
      DefragShape s;
      s.description = absl::StrCat(want == api::Kind::kResourceClaim ? "resourceclaim " : "resourceclaimtemplate ",
                                   ns, "/", name);
      s.pod = std::move(pod);
      s.objects.push_back(std::move(copy));
      return s;
    }
  }
  return absl::InvalidArgumentError("shape: no Pod, ResourceClaim or ResourceClaimTemplate found");
}

absl::StatusOr<DefragShape> ShapeFromPod(const store::Snapshot& snapshot, std::string_view ns, std::string_view name) {
  const api::Pod* pod = snapshot.GetPod(ns, name);
  if (pod == nullptr) return absl::NotFoundError(absl::StrCat("shape: pod \"", AV(ns), "/", AV(name), "\" not found"));
  return PodShape(absl::StrCat("pod ", AV(ns), "/", AV(name)), *pod);
}

absl::StatusOr<DefragAdvice> Defrag(const store::Snapshot& snapshot, const DefragShape& shape,
                                    const DefragOptions& options) {
  if (options.max_moves < 1 || options.max_candidates < 1 || options.max_trials < 1) {
    return absl::InvalidArgumentError("defrag: max_moves, max_candidates and max_trials must be at least 1");
  }
  DefragAdvice out;
  out.shape = shape.description;
  out.max_moves = options.max_moves;
  out.max_candidates = options.max_candidates;
  out.max_trials = options.max_trials;

  // The cluster with the shape's objects (those it does not hold already) and without the shape's pod
  // if it is stored (it is placed as a new pending pod).
  std::vector<api::Object> objects = Objects(snapshot, false);
  std::erase_if(objects, [&](const api::Object& o) {
    const auto* p = std::get_if<api::Pod>(&o.value);
    return p != nullptr && KeyOf(p->metadata) == KeyOf(shape.pod.metadata);
  });
  for (const api::Object& o : shape.objects) {
    if (snapshot.Get(o.kind(), Ns(o.metadata()), o.metadata().name.value_or("")) == nullptr) objects.push_back(o);
  }
  const std::shared_ptr<const store::Snapshot> base = SnapshotOf(std::move(objects));

  ASSIGN_OR_RETURN(ReplayResult now, ReplayShape(*base, shape, "", options, true));
  if (!now.placed.empty()) {
    out.fits_now = true;
    out.shape_node = now.placed.front().node;
    out.shape_claims = now.placed.front().claims;
    return out;
  }
  if (!now.pending.empty()) out.blocked = now.pending.front().nodes;

  // Nodes where moving pods can change the answer, and their candidate groups.
  const std::vector<Group> groups = ConsumerGroups(*base);
  std::vector<std::pair<std::string, std::vector<size_t>>> rooms;
  for (const NodeReason& r : out.blocked) {
    if (r.filter != "DynamicResources" && r.filter != "NodeResourcesFit") continue;
    std::vector<size_t> cands;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (groups[i].nodes.contains(r.node)) cands.push_back(i);
    }
    std::stable_sort(cands.begin(), cands.end(), [&](size_t a, size_t b) {
      return groups[a].devices.size() < groups[b].devices.size();
    });
    if (cands.size() > static_cast<size_t>(options.max_candidates)) cands.resize(options.max_candidates);
    if (!cands.empty()) rooms.emplace_back(r.node, std::move(cands));
  }

  // For pruning: the shape's claims as the DRA PreFilter resolves them (a template's claim built in
  // memory), those not allocated yet, and the nodes.
  PlaceOptions place;
  place.features = options.features;
  place.max_steps = options.max_steps;
  place.explain = false;
  const std::set<std::string> no_node;
  place.only_nodes = &no_node;
  ASSIGN_OR_RETURN(const PodPlacement resolved, Place(*base, shape.pod, place));
  if (!resolved.unresolvable.empty()) {
    // The DRA PreFilter rejects the shape on every node (a claim or template not found, ...): no
    // move changes that.
    out.why = absl::StrCat("no move can help: ", resolved.unresolvable.front());
    return out;
  }
  std::vector<const api::ResourceClaim*> shape_claims;
  for (const PlacedClaim& pc : resolved.claims) {
    if (pc.claim != nullptr && !pc.allocated) shape_claims.push_back(pc.claim);
  }
  std::map<std::string, NodeInfo> node_infos;
  for (NodeInfo& n : PlacementNodes(*base)) node_infos.emplace(n.name, std::move(n));

  for (int k = 1; k <= options.max_moves; ++k) {
    for (const auto& [room, cands] : rooms) {
      if (cands.size() < static_cast<size_t>(k)) continue;
      std::vector<size_t> pick(k);
      std::iota(pick.begin(), pick.end(), 0);
      do {
        if (out.trials >= options.max_trials) {
          out.budget_exhausted = true;
          out.why = absl::StrCat("the search budget (", options.max_trials, " sets of moves) ran out at ", k,
                                 " move", k == 1 ? "" : "s", " on node ", room, "; no answer before");
          return out;
        }
        ++out.trials;
        // Pruning: with the set's claims released (every pod sharing them is in the set), the
        // shape's pending claims must fit on the room's node. One allocation, no copy of the cluster.
        std::vector<const api::ResourceClaim*> released = shape_claims;
        for (size_t i : pick) {
          for (const std::string& key : groups[cands[i]].claims) {
            const size_t slash = key.find('/');
            if (const api::ResourceClaim* c = base->GetResourceClaim(key.substr(0, slash), key.substr(slash + 1))) {
              released.push_back(c);
            }
          }
        }
        if (!shape_claims.empty()) {
          const AllocatedState state = AllocatedStateFromSnapshot(*base, released);
          AllocateOptions ao;
          ao.features = options.features;
          ao.max_steps = options.max_steps;
          ao.allocated_state = &state;
          const AllocateResult ar = Allocate(*base, shape_claims, node_infos.at(room), ao);
          if (ar.outcome != Outcome::kAllocated) continue;
        }

        // The moves, one after the other, then the shape.
        std::shared_ptr<const store::Snapshot> state = base;
        std::vector<DefragMove> moves;
        bool ok = true;
        for (size_t i : pick) {
          ASSIGN_OR_RETURN(std::optional<MoveResult> m, MoveGroup(*state, groups[cands[i]], room, options));
          if (!m) {
            ok = false;
            break;
          }
          moves.push_back(std::move(m->move));
          state = m->after;
        }
        if (!ok) continue;
        ASSIGN_OR_RETURN(ReplayResult last, ReplayShape(*state, shape, room, options));
        if (last.placed.empty()) continue;
        out.found = true;
        out.node = room;
        out.moves = std::move(moves);
        out.shape_node = last.placed.front().node;
        out.shape_claims = last.placed.front().claims;
        return out;
      } while (NextCombination(pick, cands.size()));
    }
  }
  size_t considered = 0;
  for (const auto& [room, cands] : rooms) considered += cands.size();
  out.why = absl::StrCat("no set of at most ", options.max_moves, " move", options.max_moves == 1 ? "" : "s",
                         " among ", considered, " consumer group", considered == 1 ? "" : "s", " on ",
                         rooms.size(), " node", rooms.size() == 1 ? "" : "s", " frees room (", out.trials,
                         " set", out.trials == 1 ? "" : "s", " tried)");
  return out;
}

}  // namespace draforge::alloc
