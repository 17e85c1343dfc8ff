// kube::ListClusterState: one consistent-enough read of a cluster's DRA state (what `draforge dump`
// writes and what the CLI's online mode loads into a store::Cluster).
#ifndef DRAFORGE_KUBE_CLUSTER_STATE_H_
#define DRAFORGE_KUBE_CLUSTER_STATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/object.h"
#include "kube/client.h"
#include "kube/reflector.h"

namespace draforge::kube {

struct ClusterStateOptions {
  std::vector<api::Kind> kinds = DefaultReflectorKinds();
  std::string namespace_;  // empty: every namespace
  int64_t page_size = 500;
  // resource.k8s.io version to read; empty: discover (v1, v1beta2, v1beta1), as the Reflector does.
  std::string dra_version;
  // Also list core/v1 ResourceQuotas (stored as opaque objects; the capacity views count within
  // them). One the identity may not list is not an error: `skipped` says so.
  bool resource_quotas = true;
  // Also list scheduling.k8s.io/v1beta1 PodGroups and Workloads (gate GenericWorkload; stored as
  // opaque objects; gang placement reads them). A cluster that does not serve that API version has
  // none: not an error, not skipped; an identity that may not list them gets a `skipped` entry.
  bool pod_groups = true;
  // Also list policy/v1 PodDisruptionBudgets (opaque objects; the preemption what-if reads them),
  // skipped the same way when the identity may not list them.
  bool pod_disruption_budgets = true;
};

struct ClusterState {
  // Every object, kind by kind in options.kinds order, each list in the server's order.
  std::vector<api::Object> objects;
  std::string dra_version;  // the resource.k8s.io version read
  // One per skipped object that did not decode ("list resourceslices: ... : <why>"), and one when
  // ResourceQuotas or PodDisruptionBudgets could not be listed ("list resourcequotas: <why>",
  // "list poddisruptionbudgets: <why>").
  std::vector<std::string> skipped;
};

// Lists every kind (paginated). Errors: the first failed list (a 403 names the verb and resource),
// discovery failures, InvalidArgument for kOther/kResourcePoolStatusRequest. Objects that do not
// decode are not errors: they are reported in `skipped`, never half-kept.
absl::StatusOr<ClusterState> ListClusterState(Client& client, const ClusterStateOptions& options = {});

}  // namespace draforge::kube

#endif  // DRAFORGE_KUBE_CLUSTER_STATE_H_
