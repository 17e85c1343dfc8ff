#include "alloc/gang.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <variant>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "alloc/placement.h"
#include "api/object.h"
#include "api/pod_group.h"
#include "common/status.h"

namespace draforge::alloc {
namespace {

std::string Key(const api::ObjectMeta& m) {
  return absl::StrCat(m.namespace_.value_or("default"), "/", m.name.value_or(""));
}

bool IsBound(const api::Pod& pod) {
  if (pod.metadata.deletion_timestamp) return false;
  if (!pod.spec || !pod.spec->node_name || pod.spec->node_name->empty()) return false;
  return !(pod.status && pod.status->phase &&
           (*pod.status->phase == "Succeeded" || *pod.status->phase == "Failed"));
}

absl::StatusOr<api::PodGroup> FindGroup(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                        const GangOptions& options) {
  if (const api::Object* o = snapshot.GetOther(api::kSchedulingGroup, api::kPodGroupKind, ns, name)) {
    return api::DecodePodGroup(*o);
  }
  if (options.workload.empty()) {
    return absl::NotFoundError(absl::StrCat("podgroup ", std::string(ns), "/", std::string(name), " not found"));
  }
  const api::Object* w = snapshot.GetOther(api::kSchedulingGroup, api::kWorkloadKind, ns, options.workload);
  if (w == nullptr) {
    return absl::NotFoundError(absl::StrCat("workload ", std::string(ns), "/", options.workload, " not found"));
  }
  ASSIGN_OR_RETURN(api::Workload workload, api::DecodeWorkload(*w));
  return api::PodGroupFromTemplate(workload, options.template_name, name);
}

// The pod claim entry of `pod` that uses the group's claim `gc` (resourceclaim.BindTo: same name, same
// claim or template reference), or null.
const api::PodResourceClaim* UsesGroupClaim(const api::Pod& pod, const api::PodGroupResourceClaim& gc) {
  if (!pod.spec) return nullptr;
  for (const api::PodResourceClaim& pc : pod.spec->resource_claims) {
    if (pc.name == gc.name && pc.resource_claim_name == gc.resource_claim_name &&
        pc.resource_claim_template_name == gc.resource_claim_template_name) {
      return &pc;
    }
  }
  return nullptr;
}

// Makes the group's template claims exist in the working copy as the resourceclaim controller would
// (one claim per group entry, owned by the PodGroup) and points each pending member's
// status.resourceClaimStatuses at them. Fills `claims` with one GroupClaim per spec entry.
absl::Status ResolveGroupClaims(const store::Snapshot& snapshot, const api::PodGroup& group,
                                const std::vector<const api::Pod*>& members, store::Cluster& working,
                                std::vector<GroupClaim>& claims) {
  const std::string ns = group.metadata.namespace_.value_or("default");
  std::map<std::string, std::string> generated;  // group claim name -> ResourceClaim name
  for (const api::PodGroupResourceClaim& gc : group.resource_claims) {
    GroupClaim out;
    out.name = gc.name;
    if (gc.resource_claim_name) {
      out.source = "claim";
      out.claim = absl::StrCat(ns, "/", *gc.resource_claim_name);
    } else if (gc.resource_claim_template_name) {
      std::optional<std::string> name;
      for (const auto& st : group.resource_claim_statuses) {
        if (st.name == gc.name && st.resource_claim_name) name = st.resource_claim_name;
      }
      if (name && snapshot.GetResourceClaim(ns, *name) != nullptr) {
        out.source = "template";
      } else {
        const api::ResourceClaimTemplate* tmpl =
            snapshot.GetResourceClaimTemplate(ns, *gc.resource_claim_template_name);
        if (tmpl == nullptr) {
          return absl::NotFoundError(absl::StrCat("podgroup ", Key(group.metadata), ": spec.resourceClaims ", gc.name,
                                                  ": resourceclaimtemplate ", ns, "/",
                                                  *gc.resource_claim_template_name, " not found"));
        }
        // InstantiateTemplate builds the claim for a pod; the group's claim differs only in its owner.
        api::Pod owner;
        owner.metadata.name = group.metadata.name;
        owner.metadata.namespace_ = ns;
        owner.metadata.uid = group.metadata.uid;
        api::ResourceClaim claim = InstantiateTemplate(owner, gc.name, *tmpl);
        for (api::OwnerReference& ref : claim.metadata.owner_references) {
          ref.api_version = absl::StrCat(api::kSchedulingGroup, "/v1beta1");
          ref.kind = api::kPodGroupKind;
        }
        name = claim.metadata.name;
        out.source = "template-instantiated";
        RETURN_IF_ERROR(working.Apply(api::Object{"resource.k8s.io/v1", std::move(claim)}));
      }
      out.claim = absl::StrCat(ns, "/", *name);
      generated[gc.name] = *name;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("podgroup ", Key(group.metadata), ": spec.resourceClaims ",
                                                     gc.name, ": neither resourceClaimName nor "
                                                     "resourceClaimTemplateName is set"));
    }
    if (const api::ResourceClaim* c = snapshot.GetResourceClaim(ns, out.claim.substr(ns.size() + 1))) {
      if (c->status && c->status->allocation) {
        out.existing = true;
        out.allocated = true;
        out.allocation = *c->status->allocation;
      }
    }
    claims.push_back(std::move(out));
  }
  // The controller records the group's claim in each member's status, as it does a pod's own.
  for (const api::Pod* member : members) {
    api::Pod pod = *member;
    bool changed = false;
    for (const api::PodGroupResourceClaim& gc : group.resource_claims) {
      auto g = generated.find(gc.name);
      if (g == generated.end() || UsesGroupClaim(pod, gc) == nullptr) continue;
      if (!pod.status) pod.status.emplace();
      auto& statuses = pod.status->resource_claim_statuses;
      auto it = std::find_if(statuses.begin(), statuses.end(),
                             [&](const api::PodResourceClaimStatus& s) { return s.name == gc.name; });
      if (it != statuses.end() && it->resource_claim_name == g->second) continue;
      if (it != statuses.end()) statuses.erase(it);
      api::PodResourceClaimStatus st;
      st.name = gc.name;
      st.resource_claim_name = g->second;
      statuses.push_back(std::move(st));
      changed = true;
    }
    if (changed) RETURN_IF_ERROR(working.Apply(api::Object{"v1", std::move(pod)}));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GangResult> PlaceGang(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                     const GangOptions& options) {
  ASSIGN_OR_RETURN(api::PodGroup group, FindGroup(snapshot, ns, name, options));
  GangResult out;
  out.group = absl::StrCat(std::string(ns), "/", std::string(name));
  out.policy = group.scheduling_policy.gang ? "gang" : "basic";
  // gangscheduling.getMinCount: a basic group needs one pod.
  out.min_count = group.scheduling_policy.gang ? group.scheduling_policy.gang->min_count : 1;

  // Members: the pods of the namespace whose spec.schedulingGroup names the group.
  std::set<std::string> member_keys;
  // validatePodGroup: every member has the group's priority (spec.priority, 0 when unset), else the
  // cycle fails before any pod is tried.
  const int64_t group_priority = group.priority.value_or(0);
  std::string invalid;
  for (const api::Pod* pod : snapshot.Pods(ns)) {
    ASSIGN_OR_RETURN(std::optional<std::string> pg, api::PodGroupNameOf(*pod));
    if (!pg || *pg != name) continue;
    ASSIGN_OR_RETURN(int64_t priority, PodPriority(*pod));
    if (priority != group_priority && invalid.empty()) {
      invalid = absl::StrCat("all pods in a single pod group should have the same priority as the pod group's "
                             "priority, got ", priority, " and ", group_priority);
    }
    if (IsBound(*pod)) {
      out.scheduled.push_back(Key(pod->metadata));
    } else {
      member_keys.insert(Key(pod->metadata));
    }
  }
  // The pending members in the scheduling queue's order (replay's queue holds every pending pod).
  ASSIGN_OR_RETURN(std::vector<const api::Pod*> queue, ReplayQueue(snapshot));
  std::vector<const api::Pod*> members;
  for (const api::Pod* pod : queue) {
    if (member_keys.contains(Key(pod->metadata))) {
      members.push_back(pod);
      out.order.push_back(Key(pod->metadata));
    }
  }

  ASSIGN_OR_RETURN(std::unique_ptr<ReplayStep> step, ReplayStep::Start(snapshot, options.replay));
  RETURN_IF_ERROR(ResolveGroupClaims(snapshot, group, members, step->working(), out.group_claims));

  const int64_t min_count = out.min_count;
  int64_t scheduled = static_cast<int64_t>(out.scheduled.size());
  int64_t remaining = static_cast<int64_t>(members.size());
  // PreEnqueue: the members wait in the queue until minCount of them exist.
  if (scheduled + remaining < min_count) {
    out.status = "waiting for minCount pods from a gang to appear in scheduling queue";
    out.not_tried = out.order;
    return out;
  }
  if (!invalid.empty()) {
    out.status = std::move(invalid);
    out.not_tried = out.order;
    return out;
  }
  bool stopped = false;
  for (size_t i = 0; i < members.size(); ++i) {
    const api::Pod& pod = *members[i];
    if (stopped) {
      out.not_tried.push_back(Key(pod.metadata));
      continue;
    }
    ASSIGN_OR_RETURN(auto result, step->Place(pod.metadata.namespace_.value_or("default"),
                                              pod.metadata.name.value_or("")));
    --remaining;
    if (auto* placed = std::get_if<ReplayedPod>(&result)) {
      ++scheduled;
      out.placed.push_back(std::move(*placed));
    } else {
      out.unschedulable.push_back(std::move(std::get<PendingPod>(result)));
      // PlacementFeasible: once minCount is out of reach the cycle stops.
      if (scheduled + remaining < min_count) {
        out.status = absl::StrCat("minCount (", min_count, ") cannot be satisfied: ", scheduled, " scheduled, ",
                                  remaining, " remaining");
        out.blocking = out.unschedulable.back().pod;
        stopped = true;
      }
    }
  }
  out.fits = scheduled >= min_count;
  if (!out.fits && out.status.empty()) {
    out.status = absl::StrCat("minCount (", min_count, ") is not yet satisfied: ", scheduled, " scheduled, ",
                              remaining, " remaining");
  }

  // Which placed members use each group claim, and the allocation the first of them made.
  for (GroupClaim& gc : out.group_claims) {
    for (const ReplayedPod& p : out.placed) {
      for (const ReplayedClaim& c : p.claims) {
        if (c.claim != gc.claim) continue;
        gc.members.push_back(p.pod);
        if (!gc.allocated) {
          gc.allocated = true;
          gc.allocation = c.allocation;
          gc.allocated_by = p.pod;
        }
      }
    }
  }
  return out;
}

}  // namespace draforge::alloc
