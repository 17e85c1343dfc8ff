/* DRAForge C ABI: the simulation controller's plans. Which writes publish SimulatedDevicePools
 * (sim.draforge.io/v1alpha1) as ResourceSlices, which pending claims the simulator allocates and
 * where, and which binding conditions it sets: pure decisions (no client, no clock: the caller
 * passes the tick and the time), objects in as JSON or a snapshot, plans out as JSON. A controller
 * reads the cluster, asks for a plan, and sends the plan's bodies as conditional writes
 * (kube.h): each body carries the metadata.resourceVersion it was planned from.
 *
 * Thread-safety: every function may run concurrently with any other; a snapshot may be shared.
 */
#ifndef DRAFORGE_RECONCILE_H
#define DRAFORGE_RECONCILE_H

#include <stddef.h>
#include <stdint.h>

#include "draforge/cluster.h"
#include "draforge/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The SimulatedDevicePool custom resource. */
#define DRAFORGE_RECONCILE_POOL_API_VERSION "sim.draforge.io/v1alpha1"
#define DRAFORGE_RECONCILE_POOL_RESOURCE "simulateddevicepools"
#define DRAFORGE_RECONCILE_POOL_KIND "SimulatedDevicePool"
/* The label the controller puts on every slice it manages, as a label selector. */
#define DRAFORGE_RECONCILE_MANAGED_SELECTOR "app.kubernetes.io/managed-by=draforge-sim"

/* The plan that makes the managed slices match the pools, in `*out`:
 *   {"pools":[{"name","index","valid":bool,"error":"why it does not expand" (only when !valid),
 *              "actions":[{"type":"create"|"update"|"delete","name","slice":{ResourceSlice}}],
 *              "status":{the pool object with its new status} | null}],
 *    "orphans":[{"type":"delete","name","slice":{...}}], "invalid":N}
 * `pools_json` is a SimulatedDevicePool list (an object with "items", as draforge_kube_list
 * returns, or a JSON array of objects), in list order: the object listed first keeps a contested
 * pool. `slices_json` is the list of managed ResourceSlices (same forms); those without a pool
 * owner are ignored, those that do not decode skipped. Per pool, the actions come in order (creates
 * and updates, then deletions); an update's slice carries the existing resourceVersion, a delete's
 * slice is the existing one (send its uid and resourceVersion as preconditions). A pool that does
 * not expand has no actions (it keeps its last good slices) and a status saying why. "status" is
 * the body of an update of the status subresource (with the read resourceVersion), or null when
 * the status would not change. `tick` is the simulation clock (flap faults alternate with it), `now`
 * the RFC 3339 time for condition transitions. Errors: DRAFORGE_EINVALID when a list is not JSON or
 * not a list. */
DRAFORGE_API int draforge_reconcile_pools(draforge_buffer *out, const char *pools_json, size_t pools_size,
                                          const char *slices_json, size_t slices_size, int64_t tick, const char *now,
                                          draforge_error **error);

/* Whether the simulator allocates the claim `claim_json` (a whole ResourceClaim as read, with its
 * resourceVersion) and where, against `snapshot` (its ResourceSlices, DeviceClasses, claims, Pods
 * and Nodes): not allocated yet, not being deleted, not owned by or referenced from a Pod (those are
 * kube-scheduler's); tried alone on each node in turn (the snapshot's Nodes, then the nodes that
 * node-local slices name), the first where it fits wins. In `*out`: {"allocate":false}, or
 * {"allocate":true,"node":"...","body":{the claim with status.allocation}} (the body of an update of
 * the status subresource). Errors: DRAFORGE_EINVALID when `claim_json` is not a claim object,
 * DRAFORGE_ENOTFOUND when the snapshot does not hold that claim. */
DRAFORGE_API int draforge_reconcile_claim_allocation(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                     const char *claim_json, size_t claim_size,
                                                     draforge_error **error);

/* The binding conditions the simulator sets on claim `claim_json` (a whole ResourceClaim as read):
 * for every allocated device of `snapshot`'s slices that carries binding conditions, its conditions
 * True in status.devices (for a device of a binding-failure fault, the failure condition alone), with
 * lastTransitionTime `now`. In `*out`: {"write":false} when nothing is missing, or
 * {"write":true,"body":{the claim with status.devices completed}}. Errors: DRAFORGE_EINVALID naming
 * the claim and field when its status.allocation or status.devices is malformed. */
DRAFORGE_API int draforge_reconcile_binding_conditions(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                       const char *claim_json, size_t claim_size, const char *now,
                                                       draforge_error **error);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_RECONCILE_H */
