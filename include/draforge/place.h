/* DRAForge C ABI: cluster-wide placement. On which nodes a pod's claims fit (kube-scheduler's DRA
 * Filter run on every node), how many more claims like a given one fit, and where, a replay of the
 * pending pods in the scheduler's queue order, and the pods a pending pod would preempt.
 *
 * Nodes, for both: the snapshot's Node objects (their labels feed node selectors); when it has
 * none, the node names that node-local ResourceSlices (spec.nodeName) name. Only DRA is considered:
 * node affinity, taints, resources and the pod's spec.nodeName are not. Results are deterministic.
 *
 * Thread-safety: these functions only read `snapshot` (an immutable handle) and may run on any
 * thread, concurrently with each other on the same snapshot. No callbacks. */
#ifndef DRAFORGE_PLACE_H
#define DRAFORGE_PLACE_H

#include <stdint.h>

#include "draforge/alloc.h"
#include "draforge/cluster.h"
#include "draforge/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Places pod `pod` ("namespace/name" or "name": namespace "default") of `snapshot`: its claims are
 * resolved as the scheduler's DRA PreFilter does (a template's claim not created yet is
 * instantiated in memory), then allocated together on every node against the snapshot's allocated
 * state; claims already allocated pin the node and are not re-allocated.
 * `options` may be NULL (Kubernetes 1.37's defaults); feature_gates, unlock_locked_gates and
 * max_steps (per node) are used, node_labels_json and prune_search are not (labels come from the
 * Node objects).
 * On success `*out` (the caller frees it with draforge_buffer_dispose) holds one JSON object:
 *   {"pod":"ns/name", "nodeSource":"nodes"|"slices",
 *    "claims":[{"name":<spec.resourceClaims[].name>, "claim":"ns/name",
 *               "source":"claim"|"template"|"template-instantiated", "template":"..." (templates only),
 *               "allocated":bool, "found":bool}],
 *    "unresolvable":["why no node can fit", ...], "fittingNodes":["node", ...],
 *    "nodes":[{"node", "fits":bool, "outcome":"allocated"|"unschedulable"|"error",
 *              "allocations":[{"claim","existing":bool,"allocation":status.allocation}] (fits only),
 *              "reasons":[...], "why":"...", "error":"..." (not fitting; error only with outcome
 *              "error"), "searchSteps":N}]}
 * (nodes sorted by name). A node where the allocator failed (a CEL runtime error, max_steps) has
 * outcome "error"; that is not an error of this call.
 * Errors: DRAFORGE_ENOTFOUND for a pod not in the snapshot; DRAFORGE_EINVALID for NULL arguments,
 * bad options or feature gates; DRAFORGE_EINTERNAL when an allocation cannot be encoded. */
DRAFORGE_API int draforge_place_pod_json(draforge_buffer *out, const draforge_snapshot *snapshot, const char *pod,
                                         const draforge_allocate_options *options, draforge_error **error);

/* What draforge_how_many_more_json copies. */
typedef enum draforge_prototype_kind {
  DRAFORGE_PROTOTYPE_CLAIM = 0,   /* a ResourceClaim */
  DRAFORGE_PROTOTYPE_TEMPLATE = 1, /* a ResourceClaimTemplate's claim (spec.spec) */
  DRAFORGE_PROTOTYPE_POD = 2       /* a Pod: a copy of every claim of the pod (its templates
                                    * instantiated) plus one pod whose requests must fit the node's
                                    * allocatable minus the pods bound there */
} draforge_prototype_kind;

/* How many more claims like claim or template `name` ("namespace/name" or "name": namespace
 * "default") of `snapshot` fit, and where: copies with fresh names ("<name>-more-<i>") are allocated
 * one at a time, node by node in name order (a node is filled until the next copy does not fit),
 * until no node fits another, `cap` copies are placed or the allocator reports an error. Greedy:
 * devices reachable from several nodes go to the first node that takes them. `kind` is a
 * draforge_prototype_kind. `cap`: 0 for the default (1000), else > 0. `options` as for
 * draforge_place_pod_json (max_steps: per allocation attempt).
 * On success `*out` (free with draforge_buffer_dispose) holds:
 *   {"prototype":"resourceclaim ns/name"|"resourceclaimtemplate ns/name"|"pod ns/name", "total":N, "cap":N,
 *    "stop":"exhausted"|"cap"|"error"|"no-nodes", "error":"...", "errorNode":"..." (stop "error"),
 *    "nodes":[{"node","count":N,"reasons":[why the next copy did not fit],"why":"..." (with
 *              reasons: the explain funnel's sentence)}],
 *    "copies":[{"claim":"ns/name","node","allocation":status.allocation}]}
 * For DRAFORGE_PROTOTYPE_POD also "resourcesChecked":bool (false when the nodes come from slices,
 * which have no allocatable) and per node "limitedBy":"devices"|"cpu"|"memory"|"pods"|...; a node
 * stopped by its resources has "why":"cpu: 10 requested, 6 free (allocatable 64)".
 * An allocator error stops the count (stop "error"); that is not an error of this call.
 * Errors: DRAFORGE_ENOTFOUND for an unknown claim or template; DRAFORGE_EINVALID for NULL
 * arguments, an unknown kind, a negative cap, bad options or feature gates. */
DRAFORGE_API int draforge_how_many_more_json(draforge_buffer *out, const draforge_snapshot *snapshot, int kind,
                                             const char *name, int64_t cap, const draforge_allocate_options *options,
                                             draforge_error **error);

/* Options of draforge_replay_json(). Initialise with DRAFORGE_REPLAY_OPTIONS_INIT or
 * draforge_replay_options_init(); fields are only ever appended. */
typedef struct draforge_replay_options {
  unsigned int version; /* DRAFORGE_REPLAY_OPTIONS_VERSION */
  /* How a pod's node is chosen among the nodes that fit: "first-fit" (NULL or "": the first in name
   * order), "most-allocated" or "least-allocated" (the highest or lowest share of the node's
   * node-local devices allocated once the pod is placed there; ties: name order). */
  const char *policy;
  /* Non-zero (the default): a node whose devices do not fit gets the explain funnel's sentence as
   * its reason; zero: the allocator's reasons only (faster). */
  int explain;
} draforge_replay_options;

#define DRAFORGE_REPLAY_OPTIONS_VERSION 1
#define DRAFORGE_REPLAY_OPTIONS_INIT {DRAFORGE_REPLAY_OPTIONS_VERSION, NULL, 1}

/* Fills `options` with the defaults of `version`. Errors: DRAFORGE_EINVALID for NULL or an unknown
 * version. */
DRAFORGE_API int draforge_replay_options_init(draforge_replay_options *options, unsigned int version);

/* Replays the pending pods of `snapshot` (no spec.nodeName, not terminal, not being deleted,
 * schedulerName "default-scheduler" or unset) in kube-scheduler's queue order (spec.priority
 * descending, then metadata.creationTimestamp, then namespace/name), one at a time, on a copy of the
 * snapshot (which is not changed): every node goes through kube-scheduler's filters in order
 * (Node objects only: NodeUnschedulable, TaintToleration, NodeAffinity with spec.nodeSelector, and
 * NodeResourcesFit: the pod's requests against the Node's allocatable minus the pods bound there),
 * then the nodes that pass are judged as draforge_place_pod_json judges them (DynamicResources); the
 * policy picks among the nodes that fit; the pod's binding and its claims' allocations are committed
 * before the next pod. Preemption is not considered. `options` and `alloc_options` may be NULL (defaults); of `alloc_options`,
 * feature_gates, unlock_locked_gates, kubernetes_version and max_steps (per pod and node) are used.
 * On success `*out` (free with draforge_buffer_dispose) holds:
 *   {"policy":"first-fit"|"most-allocated"|"least-allocated", "order":["ns/name", ...],
 *    "placed":[{"pod","node","claims":[{"claim":"ns/name","existing":bool,
 *                                      "results":status.allocation.devices.results}],
 *               "feasible":["node", ...]}],
 *    "pending":[{"pod","nodes":[{"node","filter","reason"}]}]}
 * ("filter": the plugin that rejected the node, "NodeUnschedulable", "TaintToleration",
 * "NodeAffinity", "NodeResourcesFit" or "DynamicResources"; "reason": its words and detail)
 * (placed and pending in queue order; pending nodes sorted by name; "feasible": every node the pod
 * fits on at its turn, by name, the policy's choice among them).
 * Errors: DRAFORGE_EINVALID for NULL out or snapshot, an unknown policy, bad options or feature
 * gates, a pod whose spec.priority or metadata.creationTimestamp is malformed, a bad resource
 * list in a Node or Pod, or a malformed spec.taints, spec.unschedulable, spec.tolerations or
 * spec.affinity (the message names the object and field). */
DRAFORGE_API int draforge_replay_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                      const draforge_replay_options *options,
                                      const draforge_allocate_options *alloc_options, draforge_error **error);

/* The same replay as draforge_replay_json, and the cluster after it: on success `*after` (destroy
 * with draforge_snapshot_destroy) is a snapshot of the copy the replay worked on, every placed pod
 * bound (spec.nodeName), its claims allocated (status.allocation) and reserved for it
 * (status.reservedFor), the claims of its templates created and named in its
 * status.resourceClaimStatuses; pending pods as they were. `out` may be NULL; otherwise it holds
 * draforge_replay_json's JSON. Errors: as draforge_replay_json; DRAFORGE_EINVALID for NULL after or
 * snapshot. */
DRAFORGE_API int draforge_replay_after(draforge_snapshot **after, draforge_buffer *out,
                                       const draforge_snapshot *snapshot, const draforge_replay_options *options,
                                       const draforge_allocate_options *alloc_options, draforge_error **error);

/* Applies what-if edits, in order, to a copy of `snapshot` (which is not changed), for a replay or
 * any other question asked of the result. `edits_json` is a JSON array of edits:
 *   {"op":"add-nodes","like":"NODE","count":N}  N copies of Node NODE (NODE-whatif-1..) with copies
 *                                                of its node-local ResourceSlices (pool NODE renamed
 *                                                to the copy's name, devices identical)
 *   {"op":"delete-claim","name":"NS/NAME"}       the ResourceClaim is gone, its devices free
 *   {"op":"delete-pod","name":"NS/NAME"}         the Pod is gone; it leaves its claims' reservedFor, a
 *                                                claim reserved by nobody is deallocated, the claims
 *                                                it owns (template claims) are deleted
 *   {"op":"drain-node","name":"NODE"}            kubectl drain: cordoned (spec.unschedulable), its
 *                                                pods but DaemonSet and mirror pods pending again
 *                                                (no nodeName), their claims released as above
 *   {"op":"delete-node","name":"NODE"}           the Node and its node-local ResourceSlices are
 *                                                gone, all its pods pending again
 *   {"op":"add-nodes","count":N,"node":{Node},"slices":[{ResourceSlice}...],
 *    "simulatedDevicePools":[{SimulatedDevicePool}...]}
 *                                                N nodes of a template that is not in the snapshot
 *                                                (named <node>-whatif-1..), each with copies of the
 *                                                slices (spec.nodeName the template's name) and of
 *                                                what each SimulatedDevicePool's driver profile
 *                                                publishes on such a node
 *   {"op":"taint-devices","rule":{DeviceTaintRule}}  the rule is added (its taint on the devices it
 *                                                selects)
 *   {"op":"set-class-selectors","name":"CLASS","selectors":[{"cel":{"expression":"..."}}]}
 *                                                DeviceClass CLASS's spec.selectors replaced
 * (a name without "/" is in namespace "default"; objects are decoded and checked as the API server
 * would). On success `*out` is the edited snapshot (destroy
 * with draforge_snapshot_destroy) and, when `changes` is not NULL, `*changes` (free with
 * draforge_buffer_dispose) holds a JSON array with one sentence per edit saying what it did.
 * Errors: DRAFORGE_EINVALID for NULL out, snapshot or edits_json, a malformed edit (the message
 * names the entry, "edits[1].op: ..."), a count below 1 or a copy whose name is taken;
 * DRAFORGE_ENOTFOUND for a node, pod, claim or class that does not exist (named). */
DRAFORGE_API int draforge_whatif_edit(draforge_snapshot **out, draforge_buffer *changes,
                                      const draforge_snapshot *snapshot, const char *edits_json,
                                      draforge_error **error);

/* --- Gang placement ---------------------------------------------------------------------------- */

/* Places the pending members of PodGroup `group` ("ns/name"; scheduling.k8s.io/v1beta1, gate
 * GenericWorkload: the pods whose spec.schedulingGroup.podGroupName names it) all or nothing, as
 * kube-scheduler 1.37's pod group scheduling cycle does, on a copy of `snapshot` (which is not
 * changed): each member in turn (priority descending, then creation time, then name) goes through
 * the filters and DynamicResources as in draforge_replay_json and is committed before the next; the
 * cycle stops when gang.minCount can no longer be reached by the members already bound, those placed
 * and those left ("basic" groups need one). Claims the PodGroup declares in spec.resourceClaims
 * (DRAWorkloadResourceClaims) are generated once for the group when a template's claim does not exist
 * yet, allocated by the first member that uses them and shared by the others, whose nodes the
 * allocation then pins. `workload_template`: NULL or "", else "WORKLOAD/TEMPLATE" to build the
 * PodGroup from that Workload's podGroupTemplate when no PodGroup `group` exists. `options` and
 * `alloc_options` as draforge_replay_json. On success `*out` (free with draforge_buffer_dispose):
 *   {"group":"ns/name","policy":"gang"|"basic","minCount":N,"fits":bool,
 *    "status":"" | "minCount (N) cannot be satisfied: S scheduled, R remaining" | "waiting for ...",
 *    "blocking":"ns/pod" | "", "scheduled":[bound members], "order":[pending members in order],
 *    "placed":[{"pod","node","feasible":[every node it fit on at its turn],
 *               "claims":[{"claim","existing","results"}]}],
 *    "unschedulable":[{"pod","nodes":[{"node","filter","reason"}]}], "notTried":["ns/pod", ...],
 *    "groupClaims":[{"name","claim","source":"claim"|"template"|"template-instantiated","existing",
 *                    "allocatedBy","members":[...],"results"}]}
 * When "fits" is false nothing binds ("placed" is the placement the scheduler undoes); when true the
 * placed members bind and the unschedulable ones stay pending. A gang that does not fit is a result.
 * Errors: DRAFORGE_EINVALID for NULL out, snapshot or group, a malformed workload_template, PodGroup,
 * Workload or member (named), bad options; DRAFORGE_ENOTFOUND for a PodGroup, Workload, template or
 * group claim template that does not exist. */
DRAFORGE_API int draforge_gang_json(draforge_buffer *out, const draforge_snapshot *snapshot, const char *group,
                                    const char *workload_template, const draforge_replay_options *options,
                                    const draforge_allocate_options *alloc_options, draforge_error **error);

/* --- fragmentation and defrag advice ----------------------------------------------------------- */

/* Options of draforge_fragmentation_json(). Initialise with DRAFORGE_DEFRAG_OPTIONS_INIT or
 * draforge_defrag_options_init(); fields are only ever appended. */
typedef struct draforge_defrag_options {
  unsigned int version; /* DRAFORGE_DEFRAG_OPTIONS_VERSION */
  /* The shape to make room for, as YAML or JSON objects (several separated by "---"): the first Pod
   * with the ResourceClaims and ResourceClaimTemplates beside it, else the first ResourceClaim, else
   * the first ResourceClaimTemplate. NULL or "": no advice (unless shape_pod is set). */
  const char *shape;
  /* "ns/name" of a pod of the snapshot (a pending one) to make room for, when shape is NULL or "". */
  const char *shape_pod;
  int max_moves;        /* most moves tried (>= 1; default 3) */
  int max_candidates;   /* consumer groups considered per node (>= 1; default 16) */
  int64_t max_trials;   /* sets of moves tried before giving up (>= 1; default 1000) */
} draforge_defrag_options;

#define DRAFORGE_DEFRAG_OPTIONS_VERSION 1
#define DRAFORGE_DEFRAG_OPTIONS_INIT {DRAFORGE_DEFRAG_OPTIONS_VERSION, NULL, NULL, 3, 16, 1000}

/* Fills `options` with the defaults of `version`. Errors: DRAFORGE_EINVALID for NULL or an unknown
 * version. */
DRAFORGE_API int draforge_defrag_options_init(draforge_defrag_options *options, unsigned int version);

/* The fragmentation of `snapshot` per pool, node and across the cluster and, with a shape, the
 * defrag advice for it (docs/whatif.md, "Fragmentation" and "Defrag advice", define every number):
 * devices grouped into kinds by driver and size (counters consumed, else capacity); per kind the
 * devices, allocated, tainted, free, "fit" (how many one claim could get now against the free
 * devices and shared counters), "ideal" (how many the free counters would hold if packed) and
 * score = 1 - fit/ideal; per cluster kind the largest fit on one node and score = 1 -
 * largestFit/fit. The advice is the fewest moves (a consumer group's pods deleted and created again
 * pinned to a node, their claims allocated again there by the allocator) after which the shape
 * is placed, each move replayed on the cluster after the ones before it, in a bounded search.
 * The snapshot is not changed. `options` and `alloc_options` may be NULL (defaults); of
 * `alloc_options`, feature_gates, unlock_locked_gates, kubernetes_version and max_steps are used.
 * On success `*out` (free with draforge_buffer_dispose) holds:
 *   {"pools":[{"driver","pool","node","kinds":[KIND],"counters":[{"counterSet","counter","capacity",
 *     "consumed","free"}],"capacity":[CAP]}],
 *    "nodes":[{"node","kinds":[KIND],"capacity":[CAP]}],
 *    "kinds":[{"driver","kind","size","free","fit","largestFit","largestNode","score"}],
 *    "skipped":["driver/pool: why"],
 *    "advice":{"shape","fitsNow","blocked":[{"node","filter","reason"}],"found","node",
 *      "moves":[{"pods","claims","claimsAfter","fromNode","toNode","fromDevices","toDevices"}],
 *      "shapeNode","shapeClaims":[{"claim","results"}],
 *      "search":{"maxMoves","maxCandidates","maxTrials","trials","budgetExhausted"},"why"}}
 * KIND = {"driver","kind","size","devices","allocated","tainted","free","fit","ideal","score"};
 * CAP = {"driver","name","devices","capacity","consumed","free","largest","score"}; "advice" only
 * with a shape. Errors: DRAFORGE_EINVALID for NULL out or snapshot, bad options, feature gates or
 * shape (a document that does not decode, no Pod, claim or template in it), and replay's input
 * errors; DRAFORGE_ENOTFOUND for a shape_pod that is not in the snapshot. */
DRAFORGE_API int draforge_fragmentation_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                             const draforge_defrag_options *options,
                                             const draforge_allocate_options *alloc_options,
                                             draforge_error **error);

/* --- preemption what-if ------------------------------------------------------------------------ */

/* Options of draforge_whatif_preempt_json(). Initialise with DRAFORGE_WHATIF_PREEMPT_OPTIONS_INIT or
 * draforge_whatif_preempt_options_init(); fields are only ever appended. */
typedef struct draforge_whatif_preempt_options {
  unsigned int version; /* DRAFORGE_WHATIF_PREEMPT_OPTIONS_VERSION */
  /* Non-zero (the default): DRA-aware preemption as KEP-5690 proposes (a victim's claims are freed
   * in the dry run when every pod using them is a victim; nodes the DynamicResources filter rejects
   * are candidates). Zero: Kubernetes 1.37 as released, whose DynamicResources plugin frees nothing
   * in the dry run and whose rejections preemption never resolves. */
  int dra_aware;
  /* Non-zero (the default): a node whose devices do not fit gets the explain funnel's sentence. */
  int explain;
} draforge_whatif_preempt_options;

#define DRAFORGE_WHATIF_PREEMPT_OPTIONS_VERSION 1
#define DRAFORGE_WHATIF_PREEMPT_OPTIONS_INIT {DRAFORGE_WHATIF_PREEMPT_OPTIONS_VERSION, 1, 1}

/* Fills `options` with the defaults of `version`. Errors: DRAFORGE_EINVALID for NULL or an unknown
 * version. */
DRAFORGE_API int draforge_whatif_preempt_options_init(draforge_whatif_preempt_options *options,
                                                      unsigned int version);

/* The pods kube-scheduler's DefaultPreemption would evict so that pending pod `pod` ("ns/name" or
 * "name" in namespace "default") can run, computed on a copy of `snapshot` (not changed): the pod
 * is first judged on every node as draforge_replay_json judges it; when no node fits and its
 * spec.preemptionPolicy is not Never, every node whose rejection preemption can resolve
 * (NodeResourcesFit; DynamicResources when DRA-aware) is dry-run: all pods there with a lower
 * spec.priority removed, then put back one by one (PodDisruptionBudget-violating ones first, each
 * group by priority descending then status.startTime) while the pod still fits; a node is chosen as
 * pickOneNodeForPreemption does (fewest PDB violations, lowest highest victim priority, smallest sum
 * of priorities, fewest victims, latest start time, then name order). lib/alloc/preemption.h and
 * docs/whatif.md say exactly how this differs from the released scheduler. `options` and
 * `alloc_options` may be NULL (defaults); of `alloc_options`, feature_gates, unlock_locked_gates,
 * kubernetes_version and max_steps are used. On success `*out` (free with draforge_buffer_dispose)
 * holds:
 *   {"pod":"ns/name","priority":N,"outcome":"preempt"|"fits"|"not-eligible"|"no-candidate",
 *    "draAware":bool,"message":"...","node":"chosen node or \"\"","decidedBy":"the rule that chose it",
 *    "pdbViolations":N,"victims":[VICTIM],"candidates":[{"node","pdbViolations","victims":[VICTIM]}],
 *    "fittingNodes":["nodes where the pod fits now"],"nodes":[{"node","filter","reason"}]}
 * where VICTIM is {"pod","priority","startTime","claimsFreed":["ns/name"],"claimsKept":["ns/name"],
 * "pdbViolated":"ns/name or \"\""} and "nodes" lists every node that is not a candidate with the
 * reason ("filter" "DefaultPreemption" for a node with no lower-priority pod).
 * Errors: DRAFORGE_EINVALID for NULL or empty arguments, bad options or feature gates, a pod that is
 * not pending, a malformed spec.priority, status.startTime, resource list, node filter field or
 * PodDisruptionBudget (the message names the object and field); DRAFORGE_ENOTFOUND for an unknown
 * pod. */
DRAFORGE_API int draforge_whatif_preempt_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                              const char *pod, const draforge_whatif_preempt_options *options,
                                              const draforge_allocate_options *alloc_options,
                                              draforge_error **error);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_PLACE_H */
