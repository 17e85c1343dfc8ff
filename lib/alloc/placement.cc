#include "alloc/placement.h"

#include "alloc/internal/optional_node_operations.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/explain.h"
#include "alloc/explain_context.h"
#include "alloc/internal/optional_node_operations.h"
#include "alloc/namespace_quota.h"
#include "alloc/node_resources.h"
#include "api/labels.h"
#include "api/object.h"
#include "common/status.h"

namespace draforge::alloc {
namespace {

// The ResourceClaimReservedForMaxSize of resource.k8s.io.
constexpr size_t kReservedForMaxSize = 256;
constexpr char kPodClaimNameAnnotation[] = "resource.kubernetes.io/pod-claim-name";

std::string Key(std::string_view ns, std::string_view name) { return absl::StrCat(AV(ns), "/", AV(name)); }

std::string ClaimKey(const api::ResourceClaim& c) {
  return Key(c.metadata.namespace_.value_or("default"), c.metadata.name.value_or(""));
}

// Five characters of the API server's generateName alphabet (k8s.io/apimachinery rand.String),
// derived from `seed` and `salt` instead of drawn at random.
std::string Suffix(std::string_view seed, int salt) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : seed) {
    h ^= c;
    h *= 1099511628211ull;
  }
  for (int i = 0; i < 4; ++i) {
    h ^= static_cast<unsigned char>(salt >> (8 * i));
    h *= 1099511628211ull;
  }
  std::string out;
  for (int i = 0; i < 5; ++i) {
    out.push_back(kAlphabet[h % (sizeof(kAlphabet) - 1)]);
    h /= (sizeof(kAlphabet) - 1);
  }
  return out;
}

// generateName of the claim the resourceclaim controller creates (pkg/controller/resourceclaim).
std::string GenerateName(std::string_view pod, std::string_view claim) {
  std::string name = absl::StrCat(AV(pod), "-", AV(claim), "-");
  constexpr size_t kMaxBaseLen = 57;  // room for 5 random characters in a 63-character name
  if (name.size() > kMaxBaseLen) {
    const size_t len = name.size();
    name = absl::StrCat(AV(pod.substr(0, pod.size() * kMaxBaseLen / len)), "-",
                        AV(claim.substr(0, claim.size() * kMaxBaseLen / len)));
  }
  return name;
}

std::string PodNamespace(const api::Pod& pod) { return pod.metadata.namespace_.value_or("default"); }

// A snapshot holding what the allocator and explain read from `base` (classes, claims, slices,
// taint rules) plus `extra` claims: explain finds claims by name.
std::shared_ptr<const store::Snapshot> WithClaims(const store::Snapshot& base,
                                                  const std::vector<const api::ResourceClaim*>& extra) {
  std::vector<api::Object> objects;
  for (api::Kind kind : {api::Kind::kDeviceClass, api::Kind::kResourceClaim, api::Kind::kResourceSlice,
                         api::Kind::kDeviceTaintRule}) {
    for (const api::Object* o : base.List(kind)) objects.push_back(*o);
  }
  for (const api::ResourceClaim* c : extra) objects.push_back(api::Object{"resource.k8s.io/v1", *c});
  store::Cluster cluster;
  if (!cluster.Replace(std::move(objects), "").ok()) return nullptr;
  return cluster.snapshot();
}

// One compiled nodeSelector of an allocated claim (nullopt: the allocation has none, any node).
struct Pin {
  const PlacedClaim* claim;
  std::optional<api::CompiledNodeSelector> selector;
};

}  // namespace

std::string_view ClaimSourceName(ClaimSource source) {
  switch (source) {
    case ClaimSource::kClaim:
      return "claim";
    case ClaimSource::kTemplate:
      return "template";
    case ClaimSource::kTemplateInstantiated:
      return "template-instantiated";
  }
  return "claim";
}

std::string_view StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kExhausted:
      return "exhausted";
    case StopReason::kCap:
      return "cap";
    case StopReason::kError:
      return "error";
    case StopReason::kNoNodes:
      return "no-nodes";
    case StopReason::kQuota:
      return "quota";
  }
  return "error";
}

std::vector<std::string> PodPlacement::FittingNodes() const {
  std::vector<std::string> out;
  for (const NodePlacement& n : nodes) {
    if (n.fits()) out.push_back(n.node);
  }
  return out;
}

api::ResourceClaim InstantiateTemplate(const api::Pod& pod, std::string_view pod_claim_name,
                                       const api::ResourceClaimTemplate& tmpl, std::string_view name) {
  api::ResourceClaim claim;
  const std::string pod_name = pod.metadata.name.value_or("");
  claim.metadata.namespace_ = PodNamespace(pod);
  claim.metadata.generate_name = GenerateName(pod_name, pod_claim_name);
  claim.metadata.name = name.empty() ? absl::StrCat(*claim.metadata.generate_name,
                                                    Suffix(absl::StrCat(*claim.metadata.namespace_, "/", pod_name, "/",
                                                                        pod.metadata.uid.value_or(""), "/",
                                                                        AV(pod_claim_name)),
                                                           0))
                                     : std::string(name);
  if (tmpl.spec && tmpl.spec->metadata) {
    claim.metadata.labels = tmpl.spec->metadata->labels;
    claim.metadata.annotations = tmpl.spec->metadata->annotations;
  }
  claim.metadata.annotations.Set(kPodClaimNameAnnotation, std::string(pod_claim_name));
  api::OwnerReference owner;
  owner.api_version = "v1";
  owner.kind = "Pod";
  owner.name = pod_name;
  owner.uid = pod.metadata.uid.value_or("");
  owner.controller = true;
  owner.block_owner_deletion = true;
  claim.metadata.owner_references.push_back(std::move(owner));
  claim.spec = tmpl.spec && tmpl.spec->spec ? *tmpl.spec->spec : api::ResourceClaimSpec{};
  return claim;
}

std::vector<NodeInfo> PlacementNodes(const store::Snapshot& snapshot, std::string* source) {
  std::vector<NodeInfo> out;
  for (const api::Node* n : snapshot.Nodes()) out.push_back(NodeInfo::FromNode(*n));
  if (!out.empty()) {
    if (source != nullptr) *source = "nodes";
    return out;
  }
  std::set<std::string> names;
  for (const api::ResourceSlice* s : snapshot.ResourceSlices()) {
    if (s->spec && s->spec->node_name && !s->spec->node_name->empty()) names.insert(*s->spec->node_name);
  }
  for (const std::string& n : names) out.push_back(NodeInfo{n, {}});
  if (source != nullptr) *source = "slices";
  return out;
}

absl::StatusOr<PodPlacement> Place(const store::Snapshot& snapshot, std::string_view ns, std::string_view pod,
                                   const PlaceOptions& options) {
  const api::Pod* p = snapshot.GetPod(ns, pod);
  if (p == nullptr) return absl::NotFoundError(absl::StrCat("pod ", Key(ns, pod), " not found"));
  return Place(snapshot, *p, options);
}

absl::StatusOr<PodPlacement> Place(const store::Snapshot& snapshot, const api::Pod& pod, const PlaceOptions& options) {
  PodPlacement out;
  const std::string ns = PodNamespace(pod);
  const std::string pod_name = pod.metadata.name.value_or("");
  out.pod = Key(ns, pod_name);

  // Resolve the claims (PreFilter).
  std::set<const api::ResourceClaim*> seen;
  std::set<std::string> generated;  // names given to instantiated claims
  for (const store::PodClaimRef& ref : store::ResolvePodClaims(pod)) {
    PlacedClaim pc;
    pc.pod_claim = std::string(ref.name);
    pc.template_name = std::string(ref.template_name);
    if (ref.template_name.empty()) {
      pc.source = ClaimSource::kClaim;
      pc.key = Key(ns, ref.claim_name);
      pc.claim = ref.claim_name.empty() ? nullptr : snapshot.GetResourceClaim(ns, ref.claim_name);
      if (pc.claim == nullptr) {
        out.unresolvable.push_back(ref.claim_name.empty()
                                       ? absl::StrCat("pod claim ", pc.pod_claim,
                                                      ": neither resourceClaimName nor resourceClaimTemplateName is set")
                                       : absl::StrCat("resourceclaim \"", pc.key, "\" not found"));
      }
    } else {
      if (ref.status_recorded && ref.claim_name.empty()) continue;  // "no claim needed"
      pc.source = ClaimSource::kTemplate;
      if (!ref.claim_name.empty()) pc.claim = snapshot.GetResourceClaim(ns, ref.claim_name);
      if (pc.claim == nullptr) {
        pc.source = ClaimSource::kTemplateInstantiated;
        const api::ResourceClaimTemplate* tmpl = snapshot.GetResourceClaimTemplate(ns, ref.template_name);
        if (tmpl == nullptr) {
          pc.key = ref.claim_name.empty() ? Key(ns, GenerateName(pod_name, ref.name)) : Key(ns, ref.claim_name);
          out.unresolvable.push_back(
              absl::StrCat("resourceclaimtemplate \"", Key(ns, ref.template_name), "\" not found"));
        } else {
          std::string name(ref.claim_name);
          if (name.empty()) {
            // A name no stored claim has.
            const std::string base = GenerateName(pod_name, ref.name);
            const std::string seed = absl::StrCat(ns, "/", pod_name, "/", pod.metadata.uid.value_or(""), "/",
                                                  AV(ref.name));
            for (int salt = 0;
                 name.empty() || snapshot.GetResourceClaim(ns, name) != nullptr || generated.count(name) > 0; ++salt) {
              name = base + Suffix(seed, salt);
            }
          }
          generated.insert(name);
          pc.instantiated = std::make_shared<const api::ResourceClaim>(InstantiateTemplate(pod, ref.name, *tmpl, name));
          pc.claim = pc.instantiated.get();
          pc.key = Key(ns, name);
        }
      } else {
        pc.key = Key(ns, ref.claim_name);
      }
    }
    if (pc.claim != nullptr) {
      if (!seen.insert(pc.claim).second) continue;  // the same claim twice: allocated once
      pc.allocated = pc.claim->status && pc.claim->status->allocation;
      if (pc.claim->metadata.deletion_timestamp) {
        out.unresolvable.push_back(absl::StrCat("resourceclaim \"", pc.key, "\" is being deleted"));
      }
      if (pc.claim->status && pc.claim->status->reserved_for.size() >= kReservedForMaxSize) {
        bool reserved = false;
        for (const auto& r : pc.claim->status->reserved_for) reserved = reserved || store::ReservesPod(r, &pod, pod_name);
        if (!reserved) out.unresolvable.push_back(absl::StrCat("resourceclaim \"", pc.key, "\" in use"));
      }
    }
    out.claims.push_back(std::move(pc));
  }

  const std::vector<NodeInfo> nodes = PlacementNodes(snapshot, &out.node_source);

  // Allocated claims pin nodes; pending ones are allocated.
  std::vector<Pin> pins;
  std::vector<const api::ResourceClaim*> pending;
  std::vector<const api::ResourceClaim*> instantiated;
  absl::Status pin_error;
  if (out.unresolvable.empty()) {
    for (const PlacedClaim& pc : out.claims) {
      if (pc.instantiated) instantiated.push_back(pc.claim);
      if (!pc.allocated) {
        pending.push_back(pc.claim);
        continue;
      }
      Pin pin{&pc, std::nullopt};
      if (const auto& sel = pc.claim->status->allocation->node_selector) {
        auto compiled = api::CompileNodeSelector(*sel);
        if (!compiled.ok()) {
          if (pin_error.ok()) {
            pin_error = absl::InvalidArgumentError(absl::StrCat("resourceclaim ", pc.key,
                                                                ": status.allocation.nodeSelector: ",
                                                                compiled.status().message()));
          }
          continue;
        }
        pin.selector = *std::move(compiled);
      }
      pins.push_back(std::move(pin));
    }
  }

  AllocatedState state;
  AllocateOptions aopts;
  aopts.features = options.features;
  aopts.max_steps = options.max_steps;
  if (!pending.empty()) {
    state = AllocatedStateFromSnapshot(snapshot, pending);
    aopts.allocated_state = &state;
  }
  std::shared_ptr<const store::Snapshot> borrowed(std::shared_ptr<const store::Snapshot>(), &snapshot);
  Allocator allocator(borrowed, aopts);
  std::shared_ptr<const store::Snapshot> explain_snapshot;  // built on first use
  // What the explanations on every node share (allocated state, node-independent slices, compiled
  // selectors and their results): built on first use, for the snapshot they explain.
  std::unique_ptr<ExplainContext> explain_context;

  for (const NodeInfo& node : nodes) {
    if (options.only_nodes != nullptr && !options.only_nodes->contains(node.name)) continue;
    NodePlacement np;
    np.node = node.name;
    if (!out.unresolvable.empty()) {
      np.reasons = out.unresolvable;
      np.why = out.unresolvable.front();
      out.nodes.push_back(std::move(np));
      continue;
    }
    if (!pin_error.ok()) {
      np.outcome = Outcome::kError;
      np.error = pin_error;
      np.why = std::string(pin_error.message());
      out.nodes.push_back(std::move(np));
      continue;
    }
    std::vector<std::string> pinned_elsewhere;
    for (const Pin& pin : pins) {
      if (pin.selector && !pin.selector->Matches(node.labels, node.name)) pinned_elsewhere.push_back(pin.claim->key);
    }
    if (!pinned_elsewhere.empty()) {
      np.reasons.push_back("resourceclaim not available on the node");
      np.why = absl::StrCat(pinned_elsewhere.size() == 1 ? "claim " : "claims ", absl::StrJoin(pinned_elsewhere, ", "),
                            pinned_elsewhere.size() == 1 ? " is" : " are",
                            " already allocated and the allocation's node selector does not select node ", node.name);
      out.nodes.push_back(std::move(np));
      continue;
    }
    // kube-scheduler's Filter: an allocation with devices that skip node operations is only usable
    // on a node that declares DRAOptionalNodeOperations (checked whatever the gates).
    std::vector<std::string> needs_feature;
    if (!pins.empty() && !internal::DeclaresOptionalNodeOperations(node, snapshot)) {
      for (const Pin& pin : pins) {
        if (internal::RequiresOptionalNodeOperations(*pin.claim->claim->status->allocation)) {
          needs_feature.push_back(pin.claim->key);
        }
      }
    }
    if (!needs_feature.empty()) {
      np.reasons.push_back("resourceclaim not available on the node");
      np.why = absl::StrCat(needs_feature.size() == 1 ? "claim " : "claims ", absl::StrJoin(needs_feature, ", "),
                            needs_feature.size() == 1 ? " is" : " are",
                            " allocated with devices that skip node operations, and node ", node.name,
                            " does not declare DRAOptionalNodeOperations");
      out.nodes.push_back(std::move(np));
      continue;
    }
    AllocateResult r;
    r.outcome = Outcome::kAllocated;
    if (!pending.empty()) r = allocator.Allocate(pending, node);
    np.outcome = r.outcome;
    np.search_steps = r.search_steps;
    switch (r.outcome) {
      case Outcome::kAllocated: {
        size_t next = 0;
        for (const PlacedClaim& pc : out.claims) {
          ClaimAllocation ca;
          ca.claim = pc.key;
          ca.existing = pc.allocated;
          ca.allocation = pc.allocated ? *pc.claim->status->allocation : std::move(r.allocations[next++]);
          np.allocations.push_back(std::move(ca));
        }
        break;
      }
      case Outcome::kError:
        np.error = r.error;
        np.why = std::string(r.error.message());
        break;
      case Outcome::kUnschedulable: {
        np.reasons = r.reasons;
        if (!options.explain) {
          np.why = absl::StrJoin(r.reasons, "; ");
          break;
        }
        if (!instantiated.empty() && explain_snapshot == nullptr) explain_snapshot = WithClaims(snapshot, instantiated);
        const store::Snapshot& es = instantiated.empty() || explain_snapshot == nullptr ? snapshot : *explain_snapshot;
        if (explain_context == nullptr) explain_context = std::make_unique<ExplainContext>(es, options.features);
        ExplainOptions explain_options;
        explain_options.features = options.features;
        explain_options.context = explain_context.get();
        bool alone_fit = true;
        for (const api::ResourceClaim* c : pending) {
          if (!c->spec || !c->spec->devices) continue;
          const std::string key = ClaimKey(*c);
          auto ex = Explain(es, c->metadata.namespace_.value_or("default"), c->metadata.name.value_or(""), &node,
                            explain_options);
          if (!ex.ok()) {
            np.why = absl::StrCat("claim ", key, ": ", ex.status().message());
            break;
          }
          const std::string sentence = FirstBlockingReason(*ex);
          if (!sentence.empty()) {
            np.why = absl::StrCat("claim ", key, ": ", sentence);
            break;
          }
          if (ex->outcome != Outcome::kAllocated) {
            alone_fit = false;
            if (np.why.empty()) {
              np.why = absl::StrCat("claim ", key, ": every request has enough devices on its own, but not all "
                                    "together (constraints, shared counters or capacity)");
            }
          }
        }
        if (np.why.empty()) {
          np.why = alone_fit && pending.size() > 1
                       ? absl::StrCat("each claim fits alone on node ", node.name, ", but not all together")
                       : absl::StrJoin(r.reasons, "; ");
        }
        break;
      }
    }
    out.nodes.push_back(std::move(np));
  }
  return out;
}

absl::StatusOr<HowManyMoreResult> HowManyMore(const store::Snapshot& snapshot, const UnitPrototype& unit,
                                              const HowManyMoreOptions& options) {
  if (options.cap <= 0) return absl::InvalidArgumentError(absl::StrCat("cap must be positive, got ", options.cap));
  HowManyMoreResult out;
  out.cap = options.cap;
  out.prototype = unit.description;
  out.pod = unit.pod_requests.has_value();
  const std::string& ns = unit.ns;

  std::string node_source;
  const std::vector<NodeInfo> nodes = PlacementNodes(snapshot, &node_source);
  for (const NodeInfo& n : nodes) out.nodes.push_back(NodeCount{n.name, 0, {}, {}, {}});

  int64_t limit = options.cap;
  if (options.quota) {
    ASSIGN_OR_RETURN(QuotaHeadroom headroom,
                     NamespaceQuotaHeadroom(snapshot, ns, UnitQuotaUsage(unit.pod_requests, unit.claims)));
    out.quota_checked = true;
    out.quota_units = headroom.units;
    out.quota_why = std::move(headroom.why);
    out.quotas = std::move(headroom.quotas);
    if (out.quota_units && *out.quota_units < limit) limit = *out.quota_units;
  }
  if (nodes.empty()) {
    out.stop = StopReason::kNoNodes;
    return out;
  }

  // Node resources: only with Node objects (nodes named by slices have no allocatable).
  SchedulerResources pod_requests;
  std::vector<NodeResources> node_resources;
  if (unit.pod_requests && node_source == "nodes") {
    out.resources_checked = true;
    pod_requests = ToSchedulerResources(*unit.pod_requests);
    std::vector<const api::Node*> node_objects;
    for (const NodeInfo& n : nodes) node_objects.push_back(snapshot.GetNode(n.name));
    ASSIGN_OR_RETURN(node_resources, NodeResources::Of(snapshot, node_objects));
  }

  AllocatedState state = AllocatedStateFromSnapshot(snapshot);
  AllocateOptions aopts;
  aopts.features = options.features;
  aopts.max_steps = options.max_steps;
  aopts.allocated_state = &state;
  std::shared_ptr<const store::Snapshot> borrowed(std::shared_ptr<const store::Snapshot>(), &snapshot);
  Allocator allocator(borrowed, aopts);

  // The next unit's claims, renamed for every unit.
  std::vector<api::ResourceClaim> copies;
  for (const api::ResourceClaim& prototype : unit.claims) {
    api::ResourceClaim copy;
    copy.metadata.namespace_ = ns;
    copy.metadata.labels = prototype.metadata.labels;
    copy.metadata.annotations = prototype.metadata.annotations;
    copy.spec = prototype.spec ? *prototype.spec : api::ResourceClaimSpec{};
    copies.push_back(std::move(copy));
  }
  int64_t serial = 0;
  auto rename = [&] {
    for (size_t c = 0; c < copies.size(); ++c) {
      const std::string base = absl::StrCat(unit.claims[c].metadata.name.value_or("claim"), "-more-");
      std::string name;
      do {
        name = absl::StrCat(base, ++serial);
      } while (snapshot.GetResourceClaim(ns, name) != nullptr);
      copies[c].metadata.name = std::move(name);
    }
  };
  rename();
  std::vector<const api::ResourceClaim*> pending;
  for (const api::ResourceClaim& c : copies) pending.push_back(&c);
  std::vector<api::ResourceClaim> placed_copies;  // with status.allocation, for explain

  out.stop = StopReason::kExhausted;
  for (size_t i = 0; i < nodes.size() && out.stop == StopReason::kExhausted; ++i) {
    while (true) {
      if (out.total >= limit) {
        out.stop = limit < options.cap ? StopReason::kQuota : StopReason::kCap;
        break;
      }
      if (!node_resources.empty()) {
        if (auto shortfall = node_resources[i].Check(pod_requests)) {
          out.nodes[i].reasons = {shortfall->reason};
          out.nodes[i].why = shortfall->why;
          out.nodes[i].limited_by = shortfall->resource;
          break;
        }
      }
      AllocateResult r;
      r.outcome = Outcome::kAllocated;
      if (!pending.empty()) r = allocator.Allocate(pending, nodes[i]);
      out.search_steps += r.search_steps;
      if (r.outcome == Outcome::kError) {
        out.stop = StopReason::kError;
        out.error = r.error;
        out.error_node = nodes[i].name;
        break;
      }
      if (r.outcome == Outcome::kUnschedulable) {
        out.nodes[i].reasons = std::move(r.reasons);
        out.nodes[i].limited_by = "devices";
        break;
      }
      if (!node_resources.empty()) node_resources[i].Take(pod_requests);
      for (size_t c = 0; c < copies.size(); ++c) {
        state.Add(r.allocations[c]);
        if (options.explain) {
          api::ResourceClaim placed = copies[c];
          placed.status.emplace().allocation = r.allocations[c];
          placed_copies.push_back(std::move(placed));
        }
        if (options.keep_allocations) {
          out.copies.push_back(PlacedCopy{ClaimKey(copies[c]), nodes[i].name, std::move(r.allocations[c])});
        }
      }
      ++out.nodes[i].count;
      ++out.total;
      rename();
    }
  }

  // Why no more fit on the nodes the devices stopped: the funnel of the next unit in the final state.
  std::shared_ptr<const store::Snapshot> final_snapshot;
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeCount& n = out.nodes[i];
    if (n.reasons.empty() || n.limited_by != "devices") continue;
    n.why = absl::StrJoin(n.reasons, "; ");
    if (!options.explain) continue;
    if (final_snapshot == nullptr) {
      std::vector<const api::ResourceClaim*> extra;
      for (const auto& c : placed_copies) extra.push_back(&c);
      for (const auto& c : copies) extra.push_back(&c);
      final_snapshot = WithClaims(snapshot, extra);
      if (final_snapshot == nullptr) break;
    }
    for (const api::ResourceClaim& copy : copies) {
      if (!copy.spec || !copy.spec->devices) continue;
      auto ex = Explain(*final_snapshot, ns, copy.metadata.name.value_or(""), &nodes[i], options.features);
      if (!ex.ok()) continue;
      if (std::string sentence = FirstBlockingReason(*ex); !sentence.empty()) {
        n.why = copies.size() == 1 ? std::move(sentence) : absl::StrCat("claim ", ClaimKey(copy), ": ", sentence);
        break;
      }
    }
  }
  return out;
}

absl::StatusOr<HowManyMoreResult> HowManyMore(const store::Snapshot& snapshot, const api::ResourceClaim& prototype,
                                              const HowManyMoreOptions& options) {
  UnitPrototype unit;
  unit.description = absl::StrCat("resourceclaim ", ClaimKey(prototype));
  unit.ns = prototype.metadata.namespace_.value_or("default");
  unit.claims.push_back(prototype);
  if (!unit.claims.front().metadata.name) unit.claims.front().metadata.name = "claim";
  return HowManyMore(snapshot, unit, options);
}

absl::StatusOr<UnitPrototype> PodUnit(const store::Snapshot& snapshot, const api::Pod& pod,
                                      const std::vector<api::ResourceClaim>& claims) {
  UnitPrototype unit;
  unit.ns = PodNamespace(pod);
  const std::string pod_name = pod.metadata.name.value_or("pod");
  unit.description = absl::StrCat("pod ", Key(unit.ns, pod_name));
  ASSIGN_OR_RETURN(api::ResourceList requests, api::PodRequests(pod));
  unit.pod_requests = std::move(requests);
  if (!pod.spec) return unit;
  for (size_t i = 0; i < pod.spec->resource_claims.size(); ++i) {
    const api::PodResourceClaim& pc = pod.spec->resource_claims[i];
    const std::string field = absl::StrCat("pod ", Key(unit.ns, pod_name), ": spec.resourceClaims[", i, "]");
    if (pc.resource_claim_name) {
      const api::ResourceClaim* found = nullptr;
      for (const api::ResourceClaim& c : claims) {
        if (c.metadata.name == pc.resource_claim_name && c.metadata.namespace_.value_or(unit.ns) == unit.ns) found = &c;
      }
      if (found == nullptr) found = snapshot.GetResourceClaim(unit.ns, *pc.resource_claim_name);
      if (found == nullptr) {
        return absl::NotFoundError(
            absl::StrCat(field, ".resourceClaimName: resourceclaim ", Key(unit.ns, *pc.resource_claim_name), " not found"));
      }
      unit.claims.push_back(*found);
    } else if (pc.resource_claim_template_name) {
      const api::ResourceClaimTemplate* t = snapshot.GetResourceClaimTemplate(unit.ns, *pc.resource_claim_template_name);
      if (t == nullptr) {
        return absl::NotFoundError(absl::StrCat(field, ".resourceClaimTemplateName: resourceclaimtemplate ",
                                                Key(unit.ns, *pc.resource_claim_template_name), " not found"));
      }
      api::ResourceClaim c = InstantiateTemplate(pod, pc.name.value_or(""), *t);
      c.metadata.name = absl::StrCat(pod_name, "-", pc.name.value_or("claim"));
      unit.claims.push_back(std::move(c));
    }
  }
  return unit;
}

absl::StatusOr<HowManyMoreResult> HowManyMore(const store::Snapshot& snapshot, PrototypeKind kind, std::string_view ns,
                                              std::string_view name, const HowManyMoreOptions& options) {
  if (kind == PrototypeKind::kClaim) {
    const api::ResourceClaim* c = snapshot.GetResourceClaim(ns, name);
    if (c == nullptr) return absl::NotFoundError(absl::StrCat("resourceclaim ", Key(ns, name), " not found"));
    return HowManyMore(snapshot, *c, options);
  }
  const api::ResourceClaimTemplate* t = snapshot.GetResourceClaimTemplate(ns, name);
  if (t == nullptr) return absl::NotFoundError(absl::StrCat("resourceclaimtemplate ", Key(ns, name), " not found"));
  api::ResourceClaim proto;
  proto.metadata.namespace_ = std::string(ns);
  proto.metadata.name = std::string(name);
  if (t->spec && t->spec->metadata) {
    proto.metadata.labels = t->spec->metadata->labels;
    proto.metadata.annotations = t->spec->metadata->annotations;
  }
  if (t->spec && t->spec->spec) proto.spec = *t->spec->spec;
  ASSIGN_OR_RETURN(HowManyMoreResult r, HowManyMore(snapshot, proto, options));
  r.prototype = absl::StrCat("resourceclaimtemplate ", Key(ns, name));
  return r;
}

}  // namespace draforge::alloc
