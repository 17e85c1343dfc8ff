/* DRAForge C ABI: the structured allocator (kube-scheduler's, Kubernetes 1.37) and explain.
 *
 * "Does not fit" is a result, not an error: draforge_allocate() returns DRAFORGE_OK and a result
 * whose outcome is DRAFORGE_OUTCOME_UNSCHEDULABLE, with kube-scheduler's reasons. Error codes are
 * for bad input (a missing claim or DeviceClass, a CEL runtime error, an invalid feature gate) and
 * limits (DRAFORGE_ELIMIT when max_steps is reached).
 *
 * Thread-safety: draforge_allocate() and draforge_explain() may run concurrently on the same
 * snapshot. Results and explanations are immutable and may be read from several threads.
 */
#ifndef DRAFORGE_ALLOC_H
#define DRAFORGE_ALLOC_H

#include <stdint.h>

#include "draforge/cluster.h"
#include "draforge/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options of draforge_allocate() and draforge_explain(). Initialise with
 * DRAFORGE_ALLOCATE_OPTIONS_INIT or draforge_allocate_options_init(); fields are only ever
 * appended, and `version` says which fields the caller knows. */
typedef struct draforge_allocate_options {
  unsigned int version; /* DRAFORGE_ALLOCATE_OPTIONS_VERSION */
  /* Feature gates on top of Kubernetes 1.37's defaults, as kube-scheduler's --feature-gates
   * ("DRAListTypeAttributes=true,DRAConsumableCapacity=false"). NULL or "": the 1.37 defaults. */
  const char *feature_gates;
  /* Non-zero: gates that 1.37 locks to their default may be changed (for what-if studies); zero:
   * changing one is an error, as in kube-scheduler. */
  int unlock_locked_gates;
  /* The node's labels as a JSON object ({"zone":"a"}), used by node selectors. NULL: the labels of
   * the Node object of that name in the snapshot, or none. */
  const char *node_labels_json;
  /* Abort the search with DRAFORGE_ELIMIT after this many search steps (0: no limit): the
   * deterministic analogue of kube-scheduler's filter timeout. */
  int64_t max_steps;
  /* Since version 2. Non-zero (the default, and what version 1 callers always get): skip the parts
   * of the search that provably cannot succeed (a device interchangeable with one that already
   * failed at the same search position; positions with fewer candidate devices left than the
   * request still needs). The outcome, the devices chosen, the reasons and any error are the same
   * either way; only the search step count is lower, so max_steps is reached later. Zero:
   * kube-scheduler's search step for step, so that draforge_allocation_result_search_steps()
   * equals upstream's count (to compare work with upstream, or to bound the search exactly as
   * kube-scheduler would). */
  int prune_search;
  /* Since version 3. The Kubernetes version whose kube-scheduler to reproduce ("1.34" to "1.37";
   * "v1.35.2" and a server's gitVersion are accepted, only the minor counts): its feature gates,
   * their defaults and locks (feature_gates is applied on top of that version's defaults), and the
   * allocator variant it runs for them. NULL or "" (and version 1 and 2 callers): 1.37.
   * draforge_kubernetes_versions_json() lists the supported versions. */
  const char *kubernetes_version;
} draforge_allocate_options;

#define DRAFORGE_ALLOCATE_OPTIONS_VERSION 3
#define DRAFORGE_ALLOCATE_OPTIONS_INIT {DRAFORGE_ALLOCATE_OPTIONS_VERSION, NULL, 0, NULL, 0, 1, NULL}

/* Fills `options` with the defaults of `version` (the same values as DRAFORGE_ALLOCATE_OPTIONS_INIT
 * for the current version). Writes only the fields that `version` has, so a caller built against
 * an older header (whose struct is smaller) may pass its own version. Errors: DRAFORGE_EINVALID for
 * a NULL pointer or a version this library does not know. */
DRAFORGE_API int draforge_allocate_options_init(draforge_allocate_options *options, unsigned int version);

/* The effective feature gates for `feature_gates` (same syntax as the option; NULL: defaults), as
 * a JSON object {"DRAAdminAccess":true,...} in `*out`. Errors: DRAFORGE_EINVALID naming the item
 * ("unrecognized feature gate: X", "cannot set feature gate X to false, feature is locked to true"
 * unless `unlock_locked_gates`). */
DRAFORGE_API int draforge_feature_gates_json(draforge_buffer *out, const char *feature_gates, int unlock_locked_gates,
                                             draforge_error **error);

/* As draforge_feature_gates_json(), for the gates of `kubernetes_version` ("1.34" to "1.37"; NULL or
 * "": 1.37): a gate that version does not have is "unrecognized feature gate: X", as its
 * kube-scheduler says. Errors also: DRAFORGE_EINVALID "kubernetes_version: unsupported Kubernetes
 * version X (supported: ...)". */
DRAFORGE_API int draforge_kubernetes_feature_gates_json(draforge_buffer *out, const char *kubernetes_version,
                                                        const char *feature_gates, int unlock_locked_gates,
                                                        draforge_error **error);

/* The Kubernetes versions DRAForge reproduces, oldest first, as a JSON array in `*out`:
 * [{"version":"1.34","latest":false,"allocatorVariant":"experimental",
 *   "servedVersions":{"ResourceSlice":["v1","v1beta2","v1beta1"],...},
 *   "featureGates":[{"name":"DRAAdminAccess","default":true,"locked":false,"maturity":"BETA"},...]},...]
 * (allocatorVariant: the variant that version's defaults run). Errors: DRAFORGE_EINVALID for NULL. */
DRAFORGE_API int draforge_kubernetes_versions_json(draforge_buffer *out, draforge_error **error);

/* The outcome of an allocation. */
typedef enum draforge_outcome {
  DRAFORGE_OUTCOME_ALLOCATED = 0,    /* every claim got devices */
  DRAFORGE_OUTCOME_UNSCHEDULABLE = 1 /* the claims do not fit on the node: see the reasons */
} draforge_outcome;

/* The result of draforge_allocate(). Destroy with draforge_allocation_result_destroy(). */
typedef struct draforge_allocation_result draforge_allocation_result;

/* Allocates the claims named in `claims` ("namespace/name"; a name alone means namespace
 * "default"), all or none, on node `node`, against `snapshot` (already-allocated claims are the
 * allocated state; re-allocating a claim ignores its old status.allocation). `options` may be NULL
 * (defaults). On DRAFORGE_OK `*out` holds a result (the caller's), allocated or unschedulable.
 * Errors: DRAFORGE_EINVALID (no claims, an empty node, a claim without spec.devices, a missing
 * DeviceClass, a CEL runtime error, bad options), DRAFORGE_ENOTFOUND (a claim is not in the
 * snapshot), DRAFORGE_ELIMIT (max_steps). */
DRAFORGE_API int draforge_allocate(draforge_allocation_result **out, const draforge_snapshot *snapshot,
                                   const char *const *claims, size_t claim_count, const char *node,
                                   const draforge_allocate_options *options, draforge_error **error);
/* Frees `result`; NULL is a no-op. */
DRAFORGE_API void draforge_allocation_result_destroy(draforge_allocation_result *result);
/* The outcome (a draforge_outcome value). */
DRAFORGE_API int draforge_allocation_result_outcome(const draforge_allocation_result *result);
/* The number of claims allocated (the claim_count given; 0 when unschedulable). */
DRAFORGE_API size_t draforge_allocation_result_claim_count(const draforge_allocation_result *result);
/* "namespace/name" of claim `index`, borrowed from `result`; NULL when out of range. */
DRAFORGE_API const char *draforge_allocation_result_claim(const draforge_allocation_result *result, size_t index);
/* status.allocation of claim `index` as Kubernetes writes it (resource.k8s.io/v1 JSON) in `*out`.
 * Errors: DRAFORGE_ENOTFOUND when `index` is out of range. */
DRAFORGE_API int draforge_allocation_result_allocation_json(draforge_buffer *out,
                                                            const draforge_allocation_result *result, size_t index,
                                                            draforge_error **error);
/* The number of reasons (unschedulable: kube-scheduler's message first, then invalid pools). */
DRAFORGE_API size_t draforge_allocation_result_reason_count(const draforge_allocation_result *result);
/* Reason `index`, borrowed from `result`; NULL when out of range. */
DRAFORGE_API const char *draforge_allocation_result_reason(const draforge_allocation_result *result, size_t index);
/* The number of search steps taken (a deterministic work counter). */
DRAFORGE_API int64_t draforge_allocation_result_search_steps(const draforge_allocation_result *result);
/* The whole result as JSON in `*out`: {"outcome":"allocated"|"unschedulable","node":...,
 * "allocations":{"ns/name":status.allocation,...},"reasons":[...],"searchSteps":N}. */
DRAFORGE_API int draforge_allocation_result_json(draforge_buffer *out, const draforge_allocation_result *result,
                                                 draforge_error **error);

/* Why a claim is pending: per request, the funnel from every published device to those usable on
 * the node. Destroy with draforge_explanation_destroy(). */
typedef struct draforge_explanation draforge_explanation;

/* Explains claim `claim` ("namespace/name" or "name") of `snapshot` on node `node` (NULL or "": no
 * node; the node step is skipped, and the JSON gets the verdict on every node: "nodes",
 * "nodesSummary", "nodesTotal", "nodesTruncated", "nodeSource"; see docs/c-api.md). `options` may be NULL; max_steps and prune_search are not used
 * (explain does not search). Errors:
 * DRAFORGE_ENOTFOUND for an unknown claim, DRAFORGE_EINVALID for a claim without spec.devices or
 * bad options. */
DRAFORGE_API int draforge_explain(draforge_explanation **out, const draforge_snapshot *snapshot, const char *claim,
                                  const char *node, const draforge_allocate_options *options,
                                  draforge_error **error);
/* Frees `explanation`; NULL is a no-op. */
DRAFORGE_API void draforge_explanation_destroy(draforge_explanation *explanation);
/* One or more sentences a user understands ("fits on node node-1", "3 devices match class gpu, all 3
 * are allocated to ..."), borrowed from `explanation`. */
DRAFORGE_API const char *draforge_explanation_summary(const draforge_explanation *explanation);
/* The explanation as JSON in `*out`: {"claim","node","outcome","summary","requests":[{"request",
 * "deviceClass","needed","allMode","adminAccess","steps":[{"step","remaining","detail"}],
 * "firstShortStep","firstEmptyStep","firstError","sentence"}]}. */
DRAFORGE_API int draforge_explanation_json(draforge_buffer *out, const draforge_explanation *explanation,
                                           draforge_error **error);
/* Without a node: the nodes of the explanation's "nodes" that do not fit, grouped by their reason
 * with the node's own name replaced by "the node" (so that "... not reachable from node node-2" and
 * "... node node-3" form one group), in order of each group's first node, as JSON in `*out`:
 * [{"reason":"...","nodes":["node-2","node-3"]}]. `[]` with a node, or when every node fits. For a
 * short view of many nodes (draforge explain prints it past 10 nodes). Errors: DRAFORGE_EINVALID for
 * NULL arguments. Reads `explanation` only: safe to call from several threads at once. */
DRAFORGE_API int draforge_explanation_node_groups_json(draforge_buffer *out, const draforge_explanation *explanation,
                                                       draforge_error **error);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_ALLOC_H */
