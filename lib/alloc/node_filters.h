// kube-scheduler's node filters that come before NodeResourcesFit and DynamicResources in the
// default profile (pkg/scheduler/apis/config/v1/default_plugins.go, v1.37), run in that order; the
// first that rejects a node gives its reason, as the framework stops at the first failing filter:
//
//   NodeUnschedulable  spec.unschedulable, unless the pod tolerates
//                      node.kubernetes.io/unschedulable:NoSchedule   "node(s) were unschedulable"
//   TaintToleration    a NoSchedule or NoExecute taint no toleration tolerates (api/taints.h)
//                                                                     "node(s) had untolerated taint(s)"
//   NodeAffinity       spec.nodeSelector and the required node affinity (api/node_affinity.h)
//                                                      "node(s) didn't match Pod's node affinity/selector"
//
// NodeAffinity's PreFilter is kept too: when every required term names nodes with
// `matchFields: metadata.name In [...]`, only the union of those nodes is filtered; the others get
// the framework's "node(s) didn't satisfy plugin(s) [NodeAffinity]", and an empty union rejects
// every node with "pod affinity terms conflict".
//
// NodeName (spec.nodeName) is not checked: the pods placed here are the pending ones, which have
// none. NodePorts, volume and topology-spread/inter-pod-affinity filters are not modelled.
#ifndef DRAFORGE_ALLOC_NODE_FILTERS_H_
#define DRAFORGE_ALLOC_NODE_FILTERS_H_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/map.h"
#include "api/node.h"
#include "api/node_affinity.h"
#include "api/pod.h"
#include "api/taints.h"

namespace draforge::alloc {

// What the filters read of a Node, decoded once.
struct FilterNode {
  std::string name;
  api::Map<std::string> labels;
  bool unschedulable = false;
  std::vector<api::Taint> taints;

  // Errors: InvalidArgument naming the node and field (spec.taints, spec.unschedulable).
  static absl::StatusOr<FilterNode> Of(const api::Node& node);
};

// Why a filter rejects a node.
struct NodeRejection {
  std::string plugin;  // "NodeUnschedulable", "TaintToleration", "NodeAffinity"
  std::string reason;  // the plugin's status message, word for word
  std::string detail;  // TaintToleration: the taint ("dedicated=gpu:NoSchedule"); else empty
  // "reason: detail", or the reason alone.
  std::string Text() const;
};

// The filters for one pod: tolerations and affinity decoded once, then checked against many nodes.
class PodNodeFilters {
 public:
  // Errors: InvalidArgument naming the pod and field (spec.tolerations, spec.affinity).
  static absl::StatusOr<PodNodeFilters> Of(const api::Pod& pod);

  // NodeAffinity's PreFilter rejection of the pod as a whole ("pod affinity terms conflict": every
  // required term names nodes and together they name none), or nullopt.
  std::optional<NodeRejection> PreFilter() const;
  // The first filter that rejects `node` (NodeAffinity's PreFilter restriction first, then the filters
  // in order), or nullopt when all pass. Call only when PreFilter() passes.
  std::optional<NodeRejection> Check(const FilterNode& node) const;

 private:
  std::vector<api::Toleration> tolerations_;
  api::RequiredNodeAffinity affinity_;
  // NodeAffinity's PreFilter result: the only nodes filtered (unset: every node).
  std::optional<std::set<std::string>> node_names_;
};

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_NODE_FILTERS_H_
