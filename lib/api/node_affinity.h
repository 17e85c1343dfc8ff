// A pod's required node affinity as kube-scheduler's NodeAffinity filter reads it
// (k8s.io/component-helpers/scheduling/corev1/nodeaffinity.GetRequiredNodeAffinity, v1.37):
// spec.nodeSelector (every label equal) AND
// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution (terms ORed, matched by
// api::CompiledNodeSelector, parsed lazily: a term that does not parse matches no node, as the
// scheduler ignores such parse errors). preferredDuringScheduling is a score, not a filter.
//
// Pod keeps spec.affinity verbatim among its unmodelled fields (lossless decoding); this file reads
// it. A field of the wrong shape is an error naming the pod and field path
// ("pod ns/p: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: expected array, got object").
#ifndef DRAFORGE_API_NODE_AFFINITY_H_
#define DRAFORGE_API_NODE_AFFINITY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/labels.h"
#include "api/map.h"
#include "api/pod.h"

namespace draforge::api {

class RequiredNodeAffinity {
 public:
  // The pod's nodeSelector and required node affinity. Errors: InvalidArgument naming the pod and
  // field for a spec.affinity of the wrong shape.
  static absl::StatusOr<RequiredNodeAffinity> Of(const Pod& pod);

  // Whether the node with these labels and this name (metadata.name, for matchFields) satisfies both.
  bool Matches(const Map<std::string>& node_labels, std::string_view node_name) const;
  // Whether there is anything to check (a nodeSelector or a required affinity).
  bool empty() const { return node_selector_.empty() && !required_; }
  // spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution as decoded (unset when
  // the pod has none), for callers that read its terms (the scheduler's PreFilter node names).
  const std::optional<NodeSelector>& required_selector() const { return required_selector_; }

 private:
  std::vector<LabelRequirement> node_selector_;  // key In [value], one per spec.nodeSelector entry
  std::optional<NodeSelector> required_selector_;
  std::optional<CompiledNodeSelector> required_;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_NODE_AFFINITY_H_
