// core/v1 node taints and pod tolerations, as kube-scheduler's TaintToleration and NodeUnschedulable
// filters read them (k8s.io/api core/v1 Toleration.ToleratesTaint and
// k8s.io/component-helpers/scheduling/corev1 FindMatchingUntoleratedTaint, v1.37).
//
// Node keeps spec verbatim and Pod keeps spec.tolerations among its unmodelled fields, so decoding
// and encoding stay lossless: this file reads them. A field of the wrong shape is an error naming the
// object and the field path ("node n1: spec.taints[0].key: expected string, got number").
//
// Matching (ToleratesTaint):
//   * an empty toleration effect matches every taint effect, otherwise the effects must be equal;
//   * an empty toleration key matches every key (with operator Exists), otherwise the keys must be
//     equal;
//   * operator "" or Equal: the values must be equal; Exists: any value;
//   * Lt and Gt (TaintTolerationComparisonOperators, alpha and off by default in 1.37) and any other
//     operator tolerate nothing, as upstream with the gate off.
#ifndef DRAFORGE_API_TAINTS_H_
#define DRAFORGE_API_TAINTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/node.h"
#include "api/pod.h"

namespace draforge::api {

// core/v1 Taint.
struct Taint {
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::optional<std::string> effect;  // NoSchedule, PreferNoSchedule, NoExecute
  std::optional<std::string> time_added;
  friend bool operator==(const Taint&, const Taint&) = default;
};

// core/v1 Toleration.
struct Toleration {
  std::optional<std::string> key;
  std::optional<std::string> operator_;  // Exists, Equal (default Equal); Lt, Gt behind a gate
  std::optional<std::string> value;
  std::optional<std::string> effect;
  std::optional<int64_t> toleration_seconds;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

// node.kubernetes.io/unschedulable: the taint that spec.unschedulable stands for.
inline constexpr char kTaintNodeUnschedulable[] = "node.kubernetes.io/unschedulable";

// The node's spec.taints (empty when absent). Errors: InvalidArgument naming the node and field.
absl::StatusOr<std::vector<Taint>> NodeTaints(const Node& node);

// The node's spec.unschedulable (false when absent). Errors: InvalidArgument naming the node when it
// is not a boolean.
absl::StatusOr<bool> NodeUnschedulable(const Node& node);

// The pod's spec.tolerations (empty when absent). Errors: InvalidArgument naming the pod and field.
absl::StatusOr<std::vector<Toleration>> PodTolerations(const Pod& pod);

// Whether `toleration` tolerates `taint` (the rules at the top of this file).
bool ToleratesTaint(const Toleration& toleration, const Taint& taint);
// Whether any of `tolerations` tolerates `taint` (TolerationsTolerateTaint).
bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint);

// The first taint with effect NoSchedule or NoExecute that no toleration tolerates, in the node's
// order (FindMatchingUntoleratedTaint with the scheduler's DoNotScheduleTaintsFilterFunc); null
// when every such taint is tolerated. PreferNoSchedule taints never block. Points into `taints`.
const Taint* FindUntoleratedNoScheduleTaint(const std::vector<Taint>& taints,
                                            const std::vector<Toleration>& tolerations);

// kubectl's spelling of a taint: "key=value:Effect" ("key:Effect" without a value).
std::string TaintString(const Taint& taint);

}  // namespace draforge::api

#endif  // DRAFORGE_API_TAINTS_H_
