// graph::Graph: the relationship graph over a store::Snapshot.
//
//   Pod -> ResourceClaim            spec.resourceClaims[].resourceClaimName, or a template's claim as
//                                   recorded in status.resourceClaimStatuses; also status.reservedFor
//   Pod -> ResourceClaimTemplate    a template claim that has not been created yet
//   ResourceClaimTemplate -> DeviceClass, ResourceClaim -> DeviceClass
//                                   one edge per request and per firstAvailable alternative, labelled
//                                   "req" or "req/sub"
//   DeviceClass -> ResourceSlice    slices whose driver serves the class (see below)
//   ResourceSlice -> Device, Device -> Pool, ResourceSlice -> Pool
//   Pool -> Node                    node-local pools (every current slice has the same spec.nodeName)
//   ResourceClaim -> Device         one edge per allocation result, labelled with its request
//
// DeviceClass -> ResourceSlice: which drivers could serve a class depends on CEL selectors that the
// graph does not evaluate. The graph uses the evidence it has: a class is linked to every slice of a
// driver when an allocation result of a claim request using that class names a device of that
// driver. A class no allocation used has no such edge.
//
// Objects that are referenced but not in the snapshot (a claim a pod names, a missing DeviceClass, a
// device an allocation names but no slice lists, ...) are nodes with `missing` set, so that dangling
// references are visible instead of dropped.
//
// Node ids (stable, used in every export):
//   Pod/<ns>/<name>  ResourceClaim/<ns>/<name>  ResourceClaimTemplate/<ns>/<name>
//   DeviceClass/<name>  ResourceSlice/<name>  Node/<name>
//   Pool/<driver>/<pool>  Device/<driver>/<pool>/<device>
// (pool names may contain '/'; driver and device names cannot, so Device ids stay unambiguous.)
#ifndef DRAFORGE_GRAPH_GRAPH_H_
#define DRAFORGE_GRAPH_GRAPH_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/node_selector.h"
#include "store/cluster.h"

namespace draforge::graph {

enum class NodeKind {
  kPod,
  kResourceClaim,
  kResourceClaimTemplate,
  kDeviceClass,
  kResourceSlice,
  kDevice,
  kPool,
  kNode,
};
// "Pod", "ResourceClaim", ..., "Device", "Pool", "Node" (the id prefix).
std::string_view NodeKindName(NodeKind kind);

enum class EdgeKind {
  kPodClaim,       // "podClaim"       Pod -> ResourceClaim, label: the pod's claim entry name
  kPodTemplate,    // "podTemplate"    Pod -> ResourceClaimTemplate, label: the pod's claim entry name
  kTemplateClass,  // "templateClass"  label: request name
  kClaimClass,     // "claimClass"     label: request name
  kClassSlice,     // "classSlice"     label: driver
  kSliceDevice,    // "sliceDevice"
  kDevicePool,     // "devicePool"
  kSlicePool,      // "slicePool"
  kPoolNode,       // "poolNode"
  kAllocation,     // "allocation"     ResourceClaim -> Device, label: request name
};
std::string_view EdgeKindName(EdgeKind kind);

// Label of a Pod -> ResourceClaim edge known only from the claim's status.reservedFor.
inline constexpr char kReservedForLabel[] = "(reservedFor)";

using AttributeValue = std::variant<std::string, int64_t, bool>;
struct Attribute {
  std::string key;
  AttributeValue value;
  friend bool operator==(const Attribute&, const Attribute&) = default;
};

// Attributes by kind (all present unless noted):
//   Pod: node (spec.nodeName, "" if unscheduled), phase
//   ResourceClaim: allocated (bool), reservedFor (int)
//   ResourceSlice: driver, pool, generation (int), node (spec.nodeName or ""), devices (int),
//                  current (bool: at its pool's highest generation)
//   Device: driver, pool, slice ("" when missing), node (device or slice nodeName, or ""),
//           inUse (bool: a result without adminAccess names it)
//   Pool: driver, generation, resourceSliceCount, slices (int, current generation), complete (bool),
//         devices (int), node ("" unless node-local), invalid (bool), invalidReason (when invalid)
//   ResourceClaimTemplate, DeviceClass, Node: none
struct Node {
  std::string id;
  NodeKind kind = NodeKind::kPod;
  std::string name;        // Device: the device name; Pool: the pool name
  std::string namespace_;  // "" for cluster-scoped kinds
  bool missing = false;    // referenced, but not in the snapshot
  std::vector<Attribute> attributes;  // sorted by key

  const AttributeValue* Find(std::string_view key) const;
  // The attribute as text ("" if absent; ints in decimal, bools as true/false).
  std::string AttributeText(std::string_view key) const;
};

// One allocation result of a claim (status.allocation.devices.results[i]).
struct Allocation {
  std::string claim_id;
  std::string request;  // "req", or "req/sub" for a firstAvailable alternative
  std::string driver;
  std::string pool;
  std::string device;
  std::string share_id;  // "" when unset
  bool admin_access = false;
  // The node of status.allocation.nodeSelector when it names exactly one node (see SingleNodeName);
  // otherwise node_known is false and node is "" (cluster-scoped devices, ambiguous selectors).
  std::string node;
  bool node_known = false;
  friend bool operator==(const Allocation&, const Allocation&) = default;
};

// One request of a claim or template; firstAvailable requests give one Request for the parent
// (first_available set, no class) and one per alternative ("req/sub", alternative set).
struct Request {
  std::string owner_id;  // ResourceClaim/... or ResourceClaimTemplate/...
  std::string name;
  std::string device_class_name;  // "" when unset
  std::string allocation_mode;    // as written ("" = default ExactCount)
  std::optional<int64_t> count;   // as written
  bool admin_access = false;
  bool first_available = false;
  bool alternative = false;
  friend bool operator==(const Request&, const Request&) = default;
};

struct Edge {
  std::string from;
  std::string to;
  EdgeKind kind = EdgeKind::kPodClaim;
  std::string label;
  // Set exactly for kAllocation edges (shared, immutable: copies of a graph share it).
  std::shared_ptr<const Allocation> allocation;
};

class Graph {
 public:
  Graph() = default;
  // Sorts nodes by id and edges by (from, to, kind, label, then the allocation's shareID and other
  // fields); drops duplicate nodes (the first wins) and duplicate edges other than allocations (every
  // allocation result is kept). Requests keep their order (spec order).
  Graph(std::vector<Node> nodes, std::vector<Edge> edges, std::vector<Request> requests,
        uint64_t snapshot_generation = 0, std::string resource_version = {});

  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Edge>& edges() const { return edges_; }
  const std::vector<Request>& requests() const { return requests_; }
  uint64_t snapshot_generation() const { return snapshot_generation_; }
  const std::string& resource_version() const { return resource_version_; }

  // The node with this id, or nullptr. O(log n).
  const Node* FindNode(std::string_view id) const;
  // Edges leaving / entering `id`, in edge order. O(log E + result).
  std::vector<const Edge*> EdgesFrom(std::string_view id) const;
  std::vector<const Edge*> EdgesTo(std::string_view id) const;
  // Every allocation result, in edge order.
  std::vector<const Allocation*> Allocations() const;
  // The requests of one claim or template, in spec order.
  std::vector<const Request*> RequestsOf(std::string_view owner_id) const;

 private:
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::vector<size_t> by_target_;  // edge indexes sorted by (to, edge order)
  std::vector<Request> requests_;
  uint64_t snapshot_generation_ = 0;
  std::string resource_version_;
};

struct BuildOptions {
  // Include every device of every slice; false keeps only devices that allocation results name
  // (for very large clusters, where the unallocated devices drown the picture).
  bool all_devices = true;
};

// Builds the graph of `snapshot`. Never fails: dangling references become missing nodes.
Graph BuildGraph(const store::Snapshot& snapshot, const BuildOptions& options = {});

// Filters keep the connected parts: nodes matching a criterion are seeds; a seed keeps its
// ancestors and descendants (following edges backwards, respectively forwards, but never through a
// DeviceClass -> ResourceSlice edge, which only says "could serve"), and every kept device keeps its
// slice, every kept slice its pool, every kept pool its node. With several criteria, a node must be
// kept by each. Edges are kept when both ends are; requests when their owner is.
struct Filter {
  // Seeds: pods, claims and templates of this namespace.
  std::string namespace_;
  // Seeds: the Node, pods with spec.nodeName = node, slices, pools and devices of the node, and
  // claims with an allocation on it.
  std::string node;
  // Seeds: slices, devices and pools of the driver, claims with an allocation result of the
  // driver, classes linked to the driver's slices.
  std::string driver;
  bool empty() const { return namespace_.empty() && node.empty() && driver.empty(); }
};
Graph FilterGraph(const Graph& graph, const Filter& filter);

// The node an allocation's nodeSelector identifies, when it identifies exactly one: a single term
// made of a single requirement, either matchFields metadata.name In [one value] (what the allocator
// writes for node-local devices) or matchExpressions kubernetes.io/hostname In [one value].
// nullopt otherwise (no selector, several terms or requirements, other keys or operators).
std::optional<std::string> SingleNodeName(const api::NodeSelector* selector);

// Ids.
std::string NodeId(NodeKind kind, std::string_view ns, std::string_view name);  // named kinds
std::string PoolId(std::string_view driver, std::string_view pool);
std::string DeviceId(std::string_view driver, std::string_view pool, std::string_view device);

// JSON, compact, deterministic:
//   {"snapshot":{"generation":N,"resourceVersion":"..."},
//    "nodes":[{"id","kind","name","namespace","missing", <attributes by name>}],
//    "edges":[{"from","to","kind","label"[,"allocation":{"request","driver","pool","device",
//              "shareID","adminAccess","node","nodeKnown"}]}],
//    "requests":[{"owner","name","deviceClassName","allocationMode","count"(when set),
//                 "adminAccess","firstAvailable","alternative"}]}
// kind values are NodeKindName / EdgeKindName; attribute names are listed at Node.
std::string ToJson(const Graph& graph);

// Graphviz DOT: a digraph with one statement per node and edge; ids and labels are double-quoted
// with '"' and '\' escaped and line breaks written as \n, so any name is safe.
std::string ToDot(const Graph& graph);

// A readable tree per pod: pod -> claims -> requests -> class -> allocated devices -> node, then the
// claims no pod references. Two spaces of indent per level, '\n' line ends.
std::string ToText(const Graph& graph);

enum class Format { kJson, kDot, kText };

// The graph as every surface serves it (draforge_snapshot_graph_json, draforge_snapshot_graph_render,
// draforge_inventory_graph_json, and through them `draforge graph` and GET /api/v1/graph): built
// from `snapshot` with `build`, cut down by `filter` unless it is empty, written as `format`. One
// function, so that the surfaces cannot drift apart. Never fails.
std::string Render(const store::Snapshot& snapshot, const BuildOptions& build, const Filter& filter, Format format);

}  // namespace draforge::graph

#endif  // DRAFORGE_GRAPH_GRAPH_H_
