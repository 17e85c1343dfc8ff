#include "graph/graph.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::graph {
namespace {

// O: std::optional<std::string> or api::BoxedOptional<std::string> (a view into the object, never
// into a temporary copy).
template <typename O>
std::string_view OptView(const O& s) {
  return s.has_value() ? std::string_view(*s) : std::string_view();
}

std::string Str(std::string_view s) { return std::string(s); }

auto EdgeOrderKey(const Edge& e) {
  return std::tie(e.from, e.to, e.kind, e.label);
}

auto AllocationOrderKey(const Allocation& a) {
  return std::tie(a.share_id, a.request, a.driver, a.pool, a.device, a.admin_access, a.node, a.node_known, a.claim_id);
}

// A total order on edges (allocation details break ties), so that an unstable sort is deterministic.
bool EdgeLess(const Edge& a, const Edge& b) {
  const auto ka = EdgeOrderKey(a);
  const auto kb = EdgeOrderKey(b);
  if (ka != kb) return ka < kb;
  if ((a.allocation != nullptr) != (b.allocation != nullptr)) return a.allocation == nullptr;
  if (!a.allocation) return false;
  return AllocationOrderKey(*a.allocation) < AllocationOrderKey(*b.allocation);
}

// Sorts `items` by `less` through a permutation (the elements are large: moving them once is cheaper
// than moving them at every step of the sort). Equal elements keep their order.
template <typename T, typename Less>
void SortLarge(std::vector<T>& items, Less less) {
  std::vector<uint32_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (less(items[a], items[b])) return true;
    if (less(items[b], items[a])) return false;
    return a < b;
  });
  std::vector<T> sorted;
  sorted.reserve(items.size());
  for (const uint32_t i : order) sorted.push_back(std::move(items[i]));
  items = std::move(sorted);
}

// --- building -------------------------------------------------------------------------------------

class Builder {
 public:
  // Adds a node unless one with this id exists; returns the node (new or existing).
  Node& Add(NodeKind kind, std::string_view ns, std::string_view name, std::string id, bool missing) {
    auto [it, inserted] = index_.try_emplace(id, nodes_.size());
    if (!inserted) return nodes_[it->second];
    Node n;
    n.id = std::move(id);
    n.kind = kind;
    n.name = Str(name);
    n.namespace_ = Str(ns);
    n.missing = missing;
    nodes_.push_back(std::move(n));
    return nodes_.back();
  }
  Node& Named(NodeKind kind, std::string_view ns, std::string_view name, bool missing) {
    return Add(kind, ns, name, NodeId(kind, ns, name), missing);
  }
  bool Has(const std::string& id) const { return index_.contains(id); }

  void Link(std::string from, std::string to, EdgeKind kind, std::string label,
            std::shared_ptr<const Allocation> allocation = nullptr) {
    edges_.push_back(Edge{std::move(from), std::move(to), kind, std::move(label), std::move(allocation)});
  }

  std::vector<Node> TakeNodes() {
    return std::vector<Node>(std::make_move_iterator(nodes_.begin()), std::make_move_iterator(nodes_.end()));
  }
  std::vector<Edge> TakeEdges() { return std::move(edges_); }

 private:
  std::deque<Node> nodes_;  // a deque: references returned by Add stay valid as nodes are added
  absl::flat_hash_map<std::string, size_t> index_;
  std::vector<Edge> edges_;
};

void SetAttr(Node& n, std::string key, AttributeValue value) {
  for (Attribute& a : n.attributes) {
    if (a.key == key) {
      a.value = std::move(value);
      return;
    }
  }
  n.attributes.push_back(Attribute{std::move(key), std::move(value)});
}

// Adds the Request entries and the class edges of one DeviceClaim; records request -> class.
void AddRequests(Builder& b, std::vector<Request>& requests, const std::string& owner_id, EdgeKind edge_kind,
                 const api::DeviceClaim* devices, std::map<std::string, std::string, std::less<>>* class_of_request) {
  if (devices == nullptr) return;
  auto add_class_edge = [&](const std::string& request_name, std::string_view class_name) {
    if (class_of_request != nullptr) (*class_of_request)[request_name] = Str(class_name);
    if (class_name.empty()) return;
    const Node& cls = b.Named(NodeKind::kDeviceClass, {}, class_name, /*missing=*/true);
    b.Link(owner_id, cls.id, edge_kind, request_name);
  };
  for (const api::DeviceRequest& req : devices->requests) {
    const std::string name = Str(OptView(req.name));
    Request r;
    r.owner_id = owner_id;
    r.name = name;
    if (req.exactly) {
      r.device_class_name = Str(OptView(req.exactly->device_class_name));
      r.allocation_mode = Str(OptView(req.exactly->allocation_mode));
      r.count = req.exactly->count;
      r.admin_access = req.exactly->admin_access.value_or(false);
    }
    r.first_available = !req.first_available.empty();
    requests.push_back(r);
    if (req.exactly) add_class_edge(name, r.device_class_name);
    for (const api::DeviceSubRequest& sub : req.first_available) {
      Request s;
      s.owner_id = owner_id;
      s.name = absl::StrCat(name, "/", AV(OptView(sub.name)));
      s.device_class_name = Str(OptView(sub.device_class_name));
      s.allocation_mode = Str(OptView(sub.allocation_mode));
      s.count = sub.count;
      s.alternative = true;
      requests.push_back(s);
      add_class_edge(s.name, s.device_class_name);
    }
  }
}

std::string DeviceNodeName(const api::ResourceSlice& slice, const api::Device& device) {
  if (device.node_name.has_value() && !device.node_name->empty()) return *device.node_name;
  return slice.spec ? Str(OptView(slice.spec->node_name)) : std::string();
}

}  // namespace

// --- names and ids ------------------------------------------------------------------------------------

std::string_view NodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kPod:
      return "Pod";
    case NodeKind::kResourceClaim:
      return "ResourceClaim";
    case NodeKind::kResourceClaimTemplate:
      return "ResourceClaimTemplate";
    case NodeKind::kDeviceClass:
      return "DeviceClass";
    case NodeKind::kResourceSlice:
      return "ResourceSlice";
    case NodeKind::kDevice:
      return "Device";
    case NodeKind::kPool:
      return "Pool";
    case NodeKind::kNode:
      return "Node";
  }
  return "";
}

std::string_view EdgeKindName(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::kPodClaim:
      return "podClaim";
    case EdgeKind::kPodTemplate:
      return "podTemplate";
    case EdgeKind::kTemplateClass:
      return "templateClass";
    case EdgeKind::kClaimClass:
      return "claimClass";
    case EdgeKind::kClassSlice:
      return "classSlice";
    case EdgeKind::kSliceDevice:
      return "sliceDevice";
    case EdgeKind::kDevicePool:
      return "devicePool";
    case EdgeKind::kSlicePool:
      return "slicePool";
    case EdgeKind::kPoolNode:
      return "poolNode";
    case EdgeKind::kAllocation:
      return "allocation";
  }
  return "";
}

std::string NodeId(NodeKind kind, std::string_view ns, std::string_view name) {
  if (ns.empty()) return absl::StrCat(AV(NodeKindName(kind)), "/", AV(name));
  return absl::StrCat(AV(NodeKindName(kind)), "/", AV(ns), "/", AV(name));
}

std::string PoolId(std::string_view driver, std::string_view pool) {
  return absl::StrCat("Pool/", AV(driver), "/", AV(pool));
}

std::string DeviceId(std::string_view driver, std::string_view pool, std::string_view device) {
  return absl::StrCat("Device/", AV(driver), "/", AV(pool), "/", AV(device));
}

std::optional<std::string> SingleNodeName(const api::NodeSelector* selector) {
  if (selector == nullptr || selector->node_selector_terms.size() != 1) return std::nullopt;
  const api::NodeSelectorTerm& term = selector->node_selector_terms.front();
  if (term.match_expressions.size() + term.match_fields.size() != 1) return std::nullopt;
  const bool is_field = term.match_fields.size() == 1;
  const api::NodeSelectorRequirement& r = is_field ? term.match_fields.front() : term.match_expressions.front();
  const std::string_view want_key = is_field ? "metadata.name" : "kubernetes.io/hostname";
  if (OptView(r.key) != want_key || OptView(r.operator_) != "In" || r.values.size() != 1) return std::nullopt;
  return r.values.front();
}

// --- Node / Graph ----------------------------------------------------------------------------------------

const AttributeValue* Node::Find(std::string_view key) const {
  for (const Attribute& a : attributes) {
    if (a.key == key) return &a.value;
  }
  return nullptr;
}

std::string Node::AttributeText(std::string_view key) const {
  const AttributeValue* v = Find(key);
  if (v == nullptr) return "";
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  if (const auto* i = std::get_if<int64_t>(v)) return absl::StrCat(*i);
  return std::get<bool>(*v) ? "true" : "false";
}

Graph::Graph(std::vector<Node> nodes, std::vector<Edge> edges, std::vector<Request> requests,
             uint64_t snapshot_generation, std::string resource_version)
    : requests_(std::move(requests)),
      snapshot_generation_(snapshot_generation),
      resource_version_(std::move(resource_version)) {
  SortLarge(nodes, [](const Node& a, const Node& b) { return a.id < b.id; });
  nodes.erase(std::unique(nodes.begin(), nodes.end(), [](const Node& a, const Node& b) { return a.id == b.id; }),
              nodes.end());
  for (Node& n : nodes) {
    std::stable_sort(n.attributes.begin(), n.attributes.end(),
                     [](const Attribute& a, const Attribute& b) { return a.key < b.key; });
  }
  nodes_ = std::move(nodes);

  SortLarge(edges, EdgeLess);
  edges.erase(std::unique(edges.begin(), edges.end(),
                          [](const Edge& a, const Edge& b) {
                            return !a.allocation && !b.allocation && EdgeOrderKey(a) == EdgeOrderKey(b);
                          }),
              edges.end());
  edges_ = std::move(edges);

  by_target_.resize(edges_.size());
  for (size_t i = 0; i < edges_.size(); ++i) by_target_[i] = i;
  std::sort(by_target_.begin(), by_target_.end(), [this](size_t a, size_t b) {
    const int cmp = edges_[a].to.compare(edges_[b].to);
    return cmp != 0 ? cmp < 0 : a < b;
  });
}

const Node* Graph::FindNode(std::string_view id) const {
  auto it = std::lower_bound(nodes_.begin(), nodes_.end(), id,
                             [](const Node& n, std::string_view key) { return n.id < key; });
  return it != nodes_.end() && it->id == id ? &*it : nullptr;
}

std::vector<const Edge*> Graph::EdgesFrom(std::string_view id) const {
  std::vector<const Edge*> out;
  auto it = std::lower_bound(edges_.begin(), edges_.end(), id,
                             [](const Edge& e, std::string_view key) { return e.from < key; });
  for (; it != edges_.end() && it->from == id; ++it) out.push_back(&*it);
  return out;
}

std::vector<const Edge*> Graph::EdgesTo(std::string_view id) const {
  std::vector<const Edge*> out;
  auto it = std::lower_bound(by_target_.begin(), by_target_.end(), id,
                             [this](size_t e, std::string_view key) { return edges_[e].to < key; });
  for (; it != by_target_.end() && edges_[*it].to == id; ++it) out.push_back(&edges_[*it]);
  return out;
}

std::vector<const Allocation*> Graph::Allocations() const {
  std::vector<const Allocation*> out;
  for (const Edge& e : edges_) {
    if (e.allocation) out.push_back(e.allocation.get());
  }
  return out;
}

std::vector<const Request*> Graph::RequestsOf(std::string_view owner_id) const {
  std::vector<const Request*> out;
  for (const Request& r : requests_) {
    if (r.owner_id == owner_id) out.push_back(&r);
  }
  return out;
}

// --- BuildGraph ----------------------------------------------------------------------------------------

Graph BuildGraph(const store::Snapshot& snap, const BuildOptions& options) {
  Builder b;
  std::vector<Request> requests;

  // Devices that allocation results name (for all_devices = false).
  absl::flat_hash_set<std::string> allocated_ids;
  const std::vector<store::AllocatedDevice> allocations = snap.AllAllocations();
  for (const store::AllocatedDevice& a : allocations) allocated_ids.insert(DeviceId(a.driver, a.pool, a.device));

  // Stored objects first, so that references to them are not "missing".
  for (const api::Pod* pod : snap.Pods()) {
    Node& n = b.Named(NodeKind::kPod, OptView(pod->metadata.namespace_), OptView(pod->metadata.name), false);
    SetAttr(n, "node", Str(pod->spec ? OptView(pod->spec->node_name) : std::string_view()));
    SetAttr(n, "phase", Str(pod->status ? OptView(pod->status->phase) : std::string_view()));
  }
  for (const api::ResourceClaim* claim : snap.ResourceClaims()) {
    Node& n =
        b.Named(NodeKind::kResourceClaim, OptView(claim->metadata.namespace_), OptView(claim->metadata.name), false);
    SetAttr(n, "allocated", claim->status.has_value() && claim->status->allocation.has_value());
    SetAttr(n, "reservedFor", static_cast<int64_t>(claim->status ? claim->status->reserved_for.size() : 0));
  }
  for (const api::ResourceClaimTemplate* t : snap.ResourceClaimTemplates()) {
    b.Named(NodeKind::kResourceClaimTemplate, OptView(t->metadata.namespace_), OptView(t->metadata.name), false);
  }
  for (const api::DeviceClass* c : snap.DeviceClasses()) {
    b.Named(NodeKind::kDeviceClass, {}, OptView(c->metadata.name), false);
  }
  for (const api::Node* node : snap.Nodes()) {
    b.Named(NodeKind::kNode, {}, OptView(node->metadata.name), false);
  }

  // Pools, slices, devices.
  for (const store::PoolInfo& pool : snap.Pools()) {
    const std::string pool_id = PoolId(pool.driver, pool.pool);
    Node& pn = b.Add(NodeKind::kPool, {}, pool.pool, pool_id, false);
    SetAttr(pn, "driver", Str(pool.driver));
    SetAttr(pn, "generation", pool.generation);
    SetAttr(pn, "resourceSliceCount", pool.resource_slice_count);
    SetAttr(pn, "slices", static_cast<int64_t>(pool.slices.size()));
    SetAttr(pn, "complete", pool.complete);
    SetAttr(pn, "devices", static_cast<int64_t>(pool.device_count));
    SetAttr(pn, "node", Str(pool.node_name));
    SetAttr(pn, "invalid", pool.invalid);
    if (pool.invalid) SetAttr(pn, "invalidReason", pool.invalid_reason);
    if (!pool.node_name.empty()) {
      const Node& node = b.Named(NodeKind::kNode, {}, pool.node_name, /*missing=*/true);
      b.Link(pool_id, node.id, EdgeKind::kPoolNode, "");
    }
    // Current slices first, so that a device's "slice" attribute names a current slice.
    std::vector<const api::ResourceSlice*> slices = pool.slices;
    for (const api::ResourceSlice* s : snap.SlicesByPool(pool.driver, pool.pool)) {
      if (std::find(pool.slices.begin(), pool.slices.end(), s) == pool.slices.end()) slices.push_back(s);
    }
    for (const api::ResourceSlice* slice : slices) {
      const std::string_view slice_name = OptView(slice->metadata.name);
      Node& sn = b.Named(NodeKind::kResourceSlice, {}, slice_name, false);
      const int64_t gen = slice->spec && slice->spec->pool ? slice->spec->pool->generation.value_or(0) : 0;
      SetAttr(sn, "driver", Str(pool.driver));
      SetAttr(sn, "pool", Str(pool.pool));
      SetAttr(sn, "generation", gen);
      SetAttr(sn, "node", Str(slice->spec ? OptView(slice->spec->node_name) : std::string_view()));
      SetAttr(sn, "devices", static_cast<int64_t>(slice->spec ? slice->spec->devices.size() : 0));
      SetAttr(sn, "current", gen == pool.generation);
      const std::string slice_id = sn.id;
      b.Link(slice_id, pool_id, EdgeKind::kSlicePool, "");
      if (!slice->spec) continue;
      for (const api::Device& device : slice->spec->devices) {
        const std::string_view dname = OptView(device.name);
        std::string device_id = DeviceId(pool.driver, pool.pool, dname);
        if (!options.all_devices && !allocated_ids.contains(device_id)) continue;
        const bool is_new = !b.Has(device_id);
        Node& dn = b.Add(NodeKind::kDevice, {}, dname, device_id, false);
        if (is_new) {
          SetAttr(dn, "driver", Str(pool.driver));
          SetAttr(dn, "pool", Str(pool.pool));
          SetAttr(dn, "slice", Str(slice_name));
          SetAttr(dn, "node", DeviceNodeName(*slice, device));
          SetAttr(dn, "inUse", snap.InUse(pool.driver, pool.pool, dname));
          b.Link(device_id, pool_id, EdgeKind::kDevicePool, "");
        }
        b.Link(slice_id, std::move(device_id), EdgeKind::kSliceDevice, "");
      }
    }
  }

  // Pods -> claims and templates.
  for (const api::Pod* pod : snap.Pods()) {
    const std::string_view ns = OptView(pod->metadata.namespace_);
    const std::string_view name = OptView(pod->metadata.name);
    const std::string pod_id = NodeId(NodeKind::kPod, ns, name);
    for (const store::PodClaim& pc : snap.ClaimsForPod(ns, name)) {
      const std::string label = pc.ref.name.empty() ? std::string(kReservedForLabel) : Str(pc.ref.name);
      if (!pc.ref.claim_name.empty()) {
        const Node& cn = b.Named(NodeKind::kResourceClaim, ns, pc.ref.claim_name, /*missing=*/true);
        b.Link(pod_id, cn.id, EdgeKind::kPodClaim, label);
      } else if (!pc.ref.template_name.empty() && !pc.ref.status_recorded) {
        const Node& tn = b.Named(NodeKind::kResourceClaimTemplate, ns, pc.ref.template_name, /*missing=*/true);
        b.Link(pod_id, tn.id, EdgeKind::kPodTemplate, label);
      }
    }
  }

  // Claims: reservations of pods that are not stored, requests, allocations.
  std::map<std::string, std::set<std::string>> drivers_of_class;
  for (const api::ResourceClaim* claim : snap.ResourceClaims()) {
    const std::string_view ns = OptView(claim->metadata.namespace_);
    const std::string claim_id = NodeId(NodeKind::kResourceClaim, ns, OptView(claim->metadata.name));
    if (claim->status) {
      for (const api::ResourceClaimConsumerReference& ref : claim->status->reserved_for) {
        if (OptView(ref.resource) != "pods" || !OptView(ref.api_group).empty()) continue;
        if (snap.GetPod(ns, OptView(ref.name)) != nullptr) continue;  // linked from the pod's side
        const Node& pn = b.Named(NodeKind::kPod, ns, OptView(ref.name), /*missing=*/true);
        b.Link(pn.id, claim_id, EdgeKind::kPodClaim, kReservedForLabel);
      }
    }
    std::map<std::string, std::string, std::less<>> class_of_request;
    AddRequests(b, requests, claim_id, EdgeKind::kClaimClass,
                claim->spec && claim->spec->devices ? &*claim->spec->devices : nullptr, &class_of_request);
    if (!claim->status || !claim->status->allocation) continue;
    const api::AllocationResult& alloc = *claim->status->allocation;
    const std::optional<std::string> node =
        SingleNodeName(alloc.node_selector ? &*alloc.node_selector : nullptr);
    if (!alloc.devices) continue;
    for (const api::DeviceRequestAllocationResult& r : alloc.devices->results) {
      Allocation a;
      a.claim_id = claim_id;
      a.request = Str(OptView(r.request));
      a.driver = Str(OptView(r.driver));
      a.pool = Str(OptView(r.pool));
      a.device = Str(OptView(r.device));
      a.share_id = Str(OptView(r.share_id));
      a.admin_access = r.admin_access.value_or(false);
      a.node_known = node.has_value();
      a.node = node.value_or("");
      std::string device_id = DeviceId(a.driver, a.pool, a.device);
      if (!b.Has(device_id)) {
        // Every device of every slice (current or stale) was added above, and with all_devices
        // false every allocated one still was: this device is listed by no slice.
        Node& dn = b.Add(NodeKind::kDevice, {}, a.device, device_id, /*missing=*/true);
        SetAttr(dn, "driver", a.driver);
        SetAttr(dn, "pool", a.pool);
        SetAttr(dn, "slice", std::string());
        SetAttr(dn, "node", std::string());
        SetAttr(dn, "inUse", snap.InUse(a.driver, a.pool, a.device));
        const std::string pool_id = PoolId(a.driver, a.pool);
        if (!b.Has(pool_id)) {
          Node& pn = b.Add(NodeKind::kPool, {}, a.pool, pool_id, /*missing=*/true);
          SetAttr(pn, "driver", a.driver);
        }
        b.Link(device_id, pool_id, EdgeKind::kDevicePool, "");
      }
      auto cls = class_of_request.find(a.request);
      if (cls != class_of_request.end() && !cls->second.empty() && !a.driver.empty()) {
        drivers_of_class[cls->second].insert(a.driver);
      }
      std::string label = a.request;
      b.Link(claim_id, std::move(device_id), EdgeKind::kAllocation, std::move(label),
             std::make_shared<const Allocation>(std::move(a)));
    }
  }
  for (const api::ResourceClaimTemplate* t : snap.ResourceClaimTemplates()) {
    const std::string id =
        NodeId(NodeKind::kResourceClaimTemplate, OptView(t->metadata.namespace_), OptView(t->metadata.name));
    const api::DeviceClaim* devices =
        t->spec && t->spec->spec && t->spec->spec->devices ? &*t->spec->spec->devices : nullptr;
    AddRequests(b, requests, id, EdgeKind::kTemplateClass, devices, nullptr);
  }

  // DeviceClass -> ResourceSlice, from the drivers allocations of the class ended up on.
  for (const auto& [cls, drivers] : drivers_of_class) {
    const std::string class_id = NodeId(NodeKind::kDeviceClass, {}, cls);
    for (const std::string& driver : drivers) {
      for (const api::ResourceSlice* slice : snap.SlicesByDriver(driver)) {
        b.Link(class_id, NodeId(NodeKind::kResourceSlice, {}, OptView(slice->metadata.name)), EdgeKind::kClassSlice,
               driver);
      }
    }
  }

  return Graph(b.TakeNodes(), b.TakeEdges(), std::move(requests), snap.generation(), snap.resource_version());
}

// --- FilterGraph ---------------------------------------------------------------------------------------

namespace {

using NodeSet = std::vector<bool>;

class Adjacency {
 public:
  explicit Adjacency(const Graph& g) : g_(g), out_(g.nodes().size()), in_(g.nodes().size()) {
    for (size_t i = 0; i < g.edges().size(); ++i) {
      const Edge& e = g.edges()[i];
      const size_t from = IndexOf(e.from);
      const size_t to = IndexOf(e.to);
      if (from == kNone || to == kNone) continue;
      out_[from].push_back({to, i});
      in_[to].push_back({from, i});
    }
  }

  static constexpr size_t kNone = static_cast<size_t>(-1);
  size_t IndexOf(std::string_view id) const {
    const Node* n = g_.FindNode(id);
    return n == nullptr ? kNone : static_cast<size_t>(n - g_.nodes().data());
  }

  struct Link {
    size_t node;
    size_t edge;
  };
  const std::vector<Link>& Out(size_t n) const { return out_[n]; }
  const std::vector<Link>& In(size_t n) const { return in_[n]; }

 private:
  const Graph& g_;
  std::vector<std::vector<Link>> out_;
  std::vector<std::vector<Link>> in_;
};

// Seeds plus their ancestors and descendants (never through classSlice) plus context.
NodeSet Closure(const Graph& g, const Adjacency& adj, const NodeSet& seeds) {
  const size_t n = g.nodes().size();
  NodeSet keep = seeds;
  for (const bool forward : {true, false}) {
    NodeSet seen = seeds;
    std::vector<size_t> work;
    for (size_t i = 0; i < n; ++i) {
      if (seeds[i]) work.push_back(i);
    }
    while (!work.empty()) {
      const size_t cur = work.back();
      work.pop_back();
      for (const Adjacency::Link& l : forward ? adj.Out(cur) : adj.In(cur)) {
        if (g.edges()[l.edge].kind == EdgeKind::kClassSlice || seen[l.node]) continue;
        seen[l.node] = true;
        keep[l.node] = true;
        work.push_back(l.node);
      }
    }
  }
  // Context: a device's slices, a slice's pool, a pool's node.
  auto add_context = [&](NodeKind kind, EdgeKind edge, bool via_in) {
    for (size_t i = 0; i < n; ++i) {
      if (!keep[i] || g.nodes()[i].kind != kind) continue;
      for (const Adjacency::Link& l : via_in ? adj.In(i) : adj.Out(i)) {
        if (g.edges()[l.edge].kind == edge) keep[l.node] = true;
      }
    }
  };
  add_context(NodeKind::kDevice, EdgeKind::kSliceDevice, /*via_in=*/true);
  add_context(NodeKind::kResourceSlice, EdgeKind::kSlicePool, /*via_in=*/false);
  add_context(NodeKind::kPool, EdgeKind::kPoolNode, /*via_in=*/false);
  return keep;
}

}  // namespace

Graph FilterGraph(const Graph& g, const Filter& filter) {
  if (filter.empty()) return g;
  const size_t n = g.nodes().size();
  const Adjacency adj(g);
  NodeSet keep(n, true);
  auto intersect = [&](const NodeSet& seeds) {
    const NodeSet part = Closure(g, adj, seeds);
    for (size_t i = 0; i < n; ++i) keep[i] = keep[i] && part[i];
  };

  if (!filter.namespace_.empty()) {
    NodeSet seeds(n, false);
    for (size_t i = 0; i < n; ++i) {
      const Node& node = g.nodes()[i];
      seeds[i] = (node.kind == NodeKind::kPod || node.kind == NodeKind::kResourceClaim ||
                  node.kind == NodeKind::kResourceClaimTemplate) &&
                 node.namespace_ == filter.namespace_;
    }
    intersect(seeds);
  }
  if (!filter.node.empty()) {
    NodeSet seeds(n, false);
    for (size_t i = 0; i < n; ++i) {
      const Node& node = g.nodes()[i];
      switch (node.kind) {
        case NodeKind::kNode:
          seeds[i] = node.name == filter.node;
          break;
        case NodeKind::kPod:
        case NodeKind::kResourceSlice:
        case NodeKind::kPool:
        case NodeKind::kDevice:
          seeds[i] = node.AttributeText("node") == filter.node;
          break;
        case NodeKind::kResourceClaim:
          for (const Edge* e : g.EdgesFrom(node.id)) {
            if (e->allocation && e->allocation->node_known && e->allocation->node == filter.node) seeds[i] = true;
          }
          break;
        default:
          break;
      }
    }
    intersect(seeds);
  }
  if (!filter.driver.empty()) {
    NodeSet seeds(n, false);
    for (size_t i = 0; i < n; ++i) {
      const Node& node = g.nodes()[i];
      switch (node.kind) {
        case NodeKind::kResourceSlice:
        case NodeKind::kPool:
        case NodeKind::kDevice:
          seeds[i] = node.AttributeText("driver") == filter.driver;
          break;
        case NodeKind::kResourceClaim:
          for (const Edge* e : g.EdgesFrom(node.id)) {
            if (e->allocation && e->allocation->driver == filter.driver) seeds[i] = true;
          }
          break;
        case NodeKind::kDeviceClass:
          for (const Edge* e : g.EdgesFrom(node.id)) {
            if (e->kind == EdgeKind::kClassSlice && e->label == filter.driver) seeds[i] = true;
          }
          break;
        default:
          break;
      }
    }
    intersect(seeds);
  }

  std::vector<Node> nodes;
  absl::flat_hash_set<std::string_view> kept_ids;
  for (size_t i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    nodes.push_back(g.nodes()[i]);
    kept_ids.insert(g.nodes()[i].id);
  }
  std::vector<Edge> edges;
  for (const Edge& e : g.edges()) {
    if (kept_ids.contains(e.from) && kept_ids.contains(e.to)) edges.push_back(e);
  }
  std::vector<Request> requests;
  for (const Request& r : g.requests()) {
    if (kept_ids.contains(r.owner_id)) requests.push_back(r);
  }
  return Graph(std::move(nodes), std::move(edges), std::move(requests), g.snapshot_generation(), g.resource_version());
}

// --- ToJson ----------------------------------------------------------------------------------------------

std::string ToJson(const Graph& g) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto str = [&](std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); };
  auto key = [&](std::string_view s) { w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size())); };

  w.StartObject();
  key("snapshot");
  w.StartObject();
  key("generation");
  w.Uint64(g.snapshot_generation());
  key("resourceVersion");
  str(g.resource_version());
  w.EndObject();

  key("nodes");
  w.StartArray();
  for (const Node& n : g.nodes()) {
    w.StartObject();
    key("id");
    str(n.id);
    key("kind");
    str(NodeKindName(n.kind));
    key("name");
    str(n.name);
    key("namespace");
    str(n.namespace_);
    key("missing");
    w.Bool(n.missing);
    for (const Attribute& a : n.attributes) {
      key(a.key);
      if (const auto* s = std::get_if<std::string>(&a.value)) {
        str(*s);
      } else if (const auto* i = std::get_if<int64_t>(&a.value)) {
        w.Int64(*i);
      } else {
        w.Bool(std::get<bool>(a.value));
      }
    }
    w.EndObject();
  }
  w.EndArray();

  key("edges");
  w.StartArray();
  for (const Edge& e : g.edges()) {
    w.StartObject();
    key("from");
    str(e.from);
    key("to");
    str(e.to);
    key("kind");
    str(EdgeKindName(e.kind));
    key("label");
    str(e.label);
    if (e.allocation) {
      const Allocation& a = *e.allocation;
      key("allocation");
      w.StartObject();
      key("request");
      str(a.request);
      key("driver");
      str(a.driver);
      key("pool");
      str(a.pool);
      key("device");
      str(a.device);
      key("shareID");
      str(a.share_id);
      key("adminAccess");
      w.Bool(a.admin_access);
      key("node");
      str(a.node);
      key("nodeKnown");
      w.Bool(a.node_known);
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndArray();

  key("requests");
  w.StartArray();
  for (const Request& r : g.requests()) {
    w.StartObject();
    key("owner");
    str(r.owner_id);
    key("name");
    str(r.name);
    key("deviceClassName");
    str(r.device_class_name);
    key("allocationMode");
    str(r.allocation_mode);
    if (r.count) {
      key("count");
      w.Int64(*r.count);
    }
    key("adminAccess");
    w.Bool(r.admin_access);
    key("firstAvailable");
    w.Bool(r.first_available);
    key("alternative");
    w.Bool(r.alternative);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

// --- ToDot -------------------------------------------------------------------------------------------------

namespace {

// A DOT double-quoted string: '"' and '\' escaped (an unescaped trailing '\' would swallow the
// closing quote), line breaks as \n, other control characters as spaces.
std::string DotQuote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
  }
  out += '"';
  return out;
}

std::string_view DotShape(NodeKind kind) {
  switch (kind) {
    case NodeKind::kPod:
      return "box";
    case NodeKind::kResourceClaim:
      return "ellipse";
    case NodeKind::kResourceClaimTemplate:
      return "note";
    case NodeKind::kDeviceClass:
      return "hexagon";
    case NodeKind::kResourceSlice:
      return "folder";
    case NodeKind::kDevice:
      return "component";
    case NodeKind::kPool:
      return "cylinder";
    case NodeKind::kNode:
      return "box3d";
  }
  return "box";
}

}  // namespace

std::string ToDot(const Graph& g) {
  std::string out = "digraph draforge {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
                    "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  for (const Node& n : g.nodes()) {
    std::string label = absl::StrCat(AV(NodeKindName(n.kind)), "\n");
    if (n.kind == NodeKind::kDevice || n.kind == NodeKind::kPool) {
      absl::StrAppend(&label, n.AttributeText("driver"), "\n");
      if (n.kind == NodeKind::kDevice) absl::StrAppend(&label, n.AttributeText("pool"), "/");
      absl::StrAppend(&label, n.name);
    } else if (!n.namespace_.empty()) {
      absl::StrAppend(&label, n.namespace_, "/", n.name);
    } else {
      absl::StrAppend(&label, n.name);
    }
    if (n.missing) absl::StrAppend(&label, "\n(missing)");
    absl::StrAppend(&out, "  ", DotQuote(n.id), " [label=", DotQuote(label), ", shape=", AV(DotShape(n.kind)));
    if (n.missing) absl::StrAppend(&out, ", style=dashed, color=red");
    absl::StrAppend(&out, "];\n");
  }
  for (const Edge& e : g.edges()) {
    absl::StrAppend(&out, "  ", DotQuote(e.from), " -> ", DotQuote(e.to));
    std::string label = e.label;
    if (e.allocation && !e.allocation->share_id.empty()) absl::StrAppend(&label, " share ", e.allocation->share_id);
    std::vector<std::string> attrs;
    if (!label.empty()) attrs.push_back(absl::StrCat("label=", DotQuote(label)));
    if (e.kind == EdgeKind::kClassSlice) attrs.push_back("style=dotted");
    if (e.kind == EdgeKind::kAllocation) attrs.push_back("color=blue");
    if (!attrs.empty()) {
      out += " [";
      for (size_t i = 0; i < attrs.size(); ++i) absl::StrAppend(&out, i == 0 ? "" : ", ", attrs[i]);
      out += "]";
    }
    out += ";\n";
  }
  out += "}\n";
  return out;
}

// --- ToText ------------------------------------------------------------------------------------------------

namespace {

std::string Indent(int level) { return std::string(static_cast<size_t>(level) * 2, ' '); }

std::string Qualified(const Node& n) {
  return n.namespace_.empty() ? n.name : absl::StrCat(n.namespace_, "/", n.name);
}

void TextAllocation(std::string& out, int level, const Allocation& a, const Node* device) {
  absl::StrAppend(&out, Indent(level), "device ", a.driver, "/", a.pool, "/", a.device);
  if (!a.share_id.empty()) absl::StrAppend(&out, " share ", a.share_id);
  absl::StrAppend(&out, a.node_known ? absl::StrCat(" on node ", a.node) : std::string(" (node unknown)"));
  if (a.admin_access) out += " [adminAccess]";
  if (device == nullptr || device->missing) out += " (not in any ResourceSlice)";
  out += "\n";
}

// A claim or template with its requests and, for claims, the allocation results under them.
void TextClaim(std::string& out, const Graph& g, int level, const Node& owner) {
  std::vector<const Edge*> results;
  for (const Edge* e : g.EdgesFrom(owner.id)) {
    if (e->kind == EdgeKind::kAllocation) results.push_back(e);
  }
  std::vector<bool> shown(results.size(), false);
  for (const Request* r : g.RequestsOf(owner.id)) {
    const int req_level = r->alternative ? level + 1 : level;
    absl::StrAppend(&out, Indent(req_level), r->alternative ? "alternative " : "request ", r->name);
    if (r->first_available) {
      out += " (firstAvailable)";
    } else if (r->device_class_name.empty()) {
      out += " (no deviceClassName)";
    } else {
      absl::StrAppend(&out, " -> DeviceClass ", r->device_class_name);
      const Node* cls = g.FindNode(NodeId(NodeKind::kDeviceClass, {}, r->device_class_name));
      if (cls != nullptr && cls->missing) out += " (not found)";
      if (!r->allocation_mode.empty() && r->allocation_mode != api::kAllocationModeExactCount) {
        absl::StrAppend(&out, ", mode ", r->allocation_mode);
      } else if (r->count && *r->count != 1) {
        absl::StrAppend(&out, ", count ", *r->count);
      }
      if (r->admin_access) out += ", adminAccess";
    }
    out += "\n";
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i]->allocation->request != r->name) continue;
      shown[i] = true;
      TextAllocation(out, req_level + 1, *results[i]->allocation, g.FindNode(results[i]->to));
    }
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (shown[i]) continue;
    absl::StrAppend(&out, Indent(level), "result for request ", results[i]->allocation->request,
                    " (not in the claim's spec)\n");
    TextAllocation(out, level + 1, *results[i]->allocation, g.FindNode(results[i]->to));
  }
}

std::string ClaimState(const Node& claim) {
  if (claim.missing) return "not found";
  std::string s = claim.AttributeText("allocated") == "true" ? "allocated" : "not allocated";
  const std::string reserved = claim.AttributeText("reservedFor");
  if (!reserved.empty() && reserved != "0") absl::StrAppend(&s, ", reserved for ", reserved);
  return s;
}

}  // namespace

std::string ToText(const Graph& g) {
  std::string out;
  absl::flat_hash_set<std::string> claims_with_pod;
  for (const Node& pod : g.nodes()) {
    if (pod.kind != NodeKind::kPod) continue;
    absl::StrAppend(&out, "Pod ", Qualified(pod));
    if (pod.missing) {
      out += " (not found)";
    } else {
      const std::string node = pod.AttributeText("node");
      const std::string phase = pod.AttributeText("phase");
      absl::StrAppend(&out, " (", node.empty() ? std::string("not scheduled") : absl::StrCat("node ", node),
                      phase.empty() ? std::string() : absl::StrCat(", ", phase), ")");
    }
    out += "\n";
    std::vector<const Edge*> claims = g.EdgesFrom(pod.id);
    std::stable_sort(claims.begin(), claims.end(), [](const Edge* a, const Edge* b) { return a->label < b->label; });
    for (const Edge* e : claims) {
      const Node* target = g.FindNode(e->to);
      if (target == nullptr) continue;
      if (e->kind == EdgeKind::kPodClaim) {
        claims_with_pod.insert(target->id);
        absl::StrAppend(&out, Indent(1), "claim ", e->label, ": ResourceClaim ", Qualified(*target), " [",
                        ClaimState(*target), "]\n");
      } else if (e->kind == EdgeKind::kPodTemplate) {
        absl::StrAppend(&out, Indent(1), "claim ", e->label, ": ResourceClaimTemplate ", Qualified(*target),
                        target->missing ? " [template not found, claim not created]\n" : " [claim not created yet]\n");
      } else {
        continue;
      }
      TextClaim(out, g, 2, *target);
    }
  }
  bool header = false;
  for (const Node& claim : g.nodes()) {
    if (claim.kind != NodeKind::kResourceClaim || claims_with_pod.contains(claim.id)) continue;
    if (!header) {
      if (!out.empty()) out += "\n";
      out += "Claims without a pod:\n";
      header = true;
    }
    absl::StrAppend(&out, Indent(1), "ResourceClaim ", Qualified(claim), " [", ClaimState(claim), "]\n");
    TextClaim(out, g, 2, claim);
  }
  if (out.empty()) out = "(no pods or claims)\n";
  return out;
}

std::string Render(const store::Snapshot& snapshot, const BuildOptions& build, const Filter& filter, Format format) {
  Graph g = BuildGraph(snapshot, build);
  if (!filter.empty()) g = FilterGraph(g, filter);
  switch (format) {
    case Format::kDot: return ToDot(g);
    case Format::kText: return ToText(g);
    case Format::kJson: break;
  }
  return ToJson(g);
}

}  // namespace draforge::graph
