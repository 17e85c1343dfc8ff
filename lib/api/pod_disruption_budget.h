// policy/v1 PodDisruptionBudget, as far as kube-scheduler's preemption reads it
// (pkg/scheduler/framework/preemption/util.go FilterVictimsWithPDBViolation): the namespace,
// spec.selector, status.disruptionsAllowed and status.disruptedPods; spec.minAvailable and
// spec.maxUnavailable are kept as text for display (the disruption controller, not the scheduler,
// turns them into disruptionsAllowed). The store keeps a PDB as an opaque object (api::OtherObject,
// whose raw JSON is the whole object), so it decodes and encodes without loss; this file reads the
// typed view from that JSON.
#ifndef DRAFORGE_API_POD_DISRUPTION_BUDGET_H_
#define DRAFORGE_API_POD_DISRUPTION_BUDGET_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/labels.h"
#include "api/map.h"
#include "api/object.h"

namespace draforge::api {

struct PodDisruptionBudget {
  std::string ns;
  std::string name;
  // spec.selector as metav1.LabelSelectorAsSelector reads it: matchLabels become `In [value]`
  // requirements, matchExpressions are In, NotIn, Exists, DoesNotExist.
  bool has_selector = false;        // spec.selector is set (nil matches nothing)
  std::vector<LabelRequirement> selector;  // empty with has_selector: the empty selector
  // Why spec.selector does not parse (an unknown operator, values where none belong, a bad key or
  // value): the scheduler then treats the PDB as matching no pod. Empty when it parses.
  std::string selector_error;
  std::string min_available;    // spec.minAvailable as written ("2", "50%"); empty when unset
  std::string max_unavailable;  // spec.maxUnavailable as written; empty when unset
  int32_t disruptions_allowed = 0;   // status.disruptionsAllowed (0 when there is no status)
  std::set<std::string> disrupted_pods;  // the pod names of status.disruptedPods

  // Whether the PDB selects a pod with these labels, as the scheduler decides it: a nil or empty
  // selector, or one that does not parse, selects nothing; a pod without labels is never selected.
  bool Selects(const Map<std::string>& pod_labels) const;
};

// Whether `object` is a policy/v1 PodDisruptionBudget.
bool IsPodDisruptionBudget(const OtherObject& object);

// The typed view of a PodDisruptionBudget. Errors: InvalidArgument naming the PDB and field for a
// field of the wrong shape (spec.selector not an object, status.disruptionsAllowed not a 32-bit
// integer, ...). A selector of the right shape that does not parse is not an error (selector_error).
absl::StatusOr<PodDisruptionBudget> ReadPodDisruptionBudget(const OtherObject& object);

}  // namespace draforge::api

#endif  // DRAFORGE_API_POD_DISRUPTION_BUDGET_H_
