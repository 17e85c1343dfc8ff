/* DRAForge C ABI: inventory views of a snapshot (summary, pools, devices, claims, graph,
 * diagnostics, one claim's diagnosis, and what changed between two snapshots), as JSON.
 *
 * One schema per concept: every view's JSON is the schema of the draforge-server route that serves
 * it (examples/server/openapi.json, installed as share/draforge/openapi.json), so the server, the
 * CLI, Python and any C caller read the same documents; tests/capi/inventory_schema_test.py checks
 * the output against those schemas. Each view starts with "snapshot":{"generation":N,
 * "resourceVersion":"..."} (SnapshotRef) unless said otherwise.
 *
 * Every function returns DRAFORGE_OK and fills `*out` (the caller's; free with
 * draforge_buffer_dispose()), or an error code with `*error` set (when `error` is not NULL).
 * NULL `out` or snapshot: DRAFORGE_EINVALID. String filters: NULL or "" means "any".
 *
 * Thread-safety: snapshots are immutable; any number of these calls may run at once on the same
 * or different snapshots, from any thread. No callback is involved.
 */
#ifndef DRAFORGE_INVENTORY_H
#define DRAFORGE_INVENTORY_H

#include <stddef.h>
#include <stdint.h>

#include "draforge/cluster.h"
#include "draforge/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The `allocated` filter of draforge_inventory_devices_json(): either state. */
#define DRAFORGE_INVENTORY_ANY (-1)
/* The device page size when `limit` is 0, and the largest `limit` accepted (openapi.json). */
#define DRAFORGE_INVENTORY_DEFAULT_DEVICE_LIMIT 1000
#define DRAFORGE_INVENTORY_MAX_DEVICE_LIMIT 10000

/* Summary (GET /api/v1/summary): object counts (with "anomalies"), utilisation per driver and per
 * pool. */
DRAFORGE_API int draforge_inventory_summary_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                 draforge_error **error);

/* PoolList (GET /api/v1/pools): the ResourceSlice pools of driver `driver` whose slices are local
 * to node `node`, sorted by (driver, pool), each with its slices, completeness, validity, devices,
 * allocated and tainted devices, utilisation and shared counters (capacity and consumption). This is
 * the pool schema; draforge_snapshot_pools_json() is the deprecated older one. */
DRAFORGE_API int draforge_inventory_pools_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                               const char *driver, const char *node, draforge_error **error);

/* DeviceList (GET /api/v1/devices): devices of the pools' current generation matching `driver`,
 * `pool`, `node` and `allocated` (1: held by a claim, 0: free, DRAFORGE_INVENTORY_ANY: either),
 * sorted by (driver, pool, device); items [offset, offset + limit) of them, "total" counting every
 * match. `limit` 0 means DRAFORGE_INVENTORY_DEFAULT_DEVICE_LIMIT. Attributes and capacity are
 * spelled as in the ResourceSlice. Errors: DRAFORGE_EINVALID when `limit` is over
 * DRAFORGE_INVENTORY_MAX_DEVICE_LIMIT or `allocated` is not -1, 0 or 1 (the message names it). */
DRAFORGE_API int draforge_inventory_devices_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                 const char *driver, const char *pool, const char *node,
                                                 int allocated, size_t offset, size_t limit,
                                                 draforge_error **error);

/* ClaimList (GET /api/v1/claims): ResourceClaims of `namespace_` in state `state` ("pending",
 * "allocated" (allocated, not reserved) or "reserved"; NULL: any), sorted by (namespace, name),
 * with their requests, allocation, reservedFor, consuming pods and status. Errors:
 * DRAFORGE_EINVALID for any other state, "" included (a filter given empty is a mistake, not
 * "any"), message "\"state\" must be pending, allocated or reserved, not \"...\"". */
DRAFORGE_API int draforge_inventory_claims_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                const char *namespace_, const char *state, draforge_error **error);

/* {"snapshot":{...},"items":[Pod...]}: the Pods of `namespace_` (NULL: every namespace), sorted by
 * (namespace, name), each with its node, phase and the ResourceClaims it uses, resolved as the
 * scheduler and the kubelet resolve them: spec.resourceClaims in order ({"name","resourceClaimName"
 * ("" while a template's claim is not created),"resourceClaimTemplateName","stored","reserved",
 * "state" (the stored claim's pending/allocated/reserved, "" when not stored)}), then the claims whose
 * status.reservedFor names the pod without the pod naming them ("name" ""). No server route serves
 * this view yet. Errors: DRAFORGE_EINVALID for NULL out or snapshot. */
DRAFORGE_API int draforge_inventory_pods_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                              const char *namespace_, draforge_error **error);

/* Graph (GET /api/v1/graph): the relationship graph (as draforge_snapshot_graph_json()) cut down to
 * what touches namespace `namespace_`, node `node` and driver `driver` (all NULL: the whole graph).
 * `all_devices` 0 keeps only devices that allocations name. The same bytes as
 * draforge_snapshot_graph_render() with format DRAFORGE_GRAPH_JSON and these filters (one
 * implementation serves both). */
DRAFORGE_API int draforge_inventory_graph_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                               const char *namespace_, const char *node, const char *driver,
                                               int all_devices, draforge_error **error);

/* Diagnostics (GET /api/v1/diagnostics): every pending claim of `namespace_` with what it waits
 * for (outcome, consumers, placement), explain's funnel per request, conflicts and the verdict on
 * every node; and the anomalies. Costs one explain per pending claim (one allocation per node for a
 * claim no pod uses). */
DRAFORGE_API int draforge_inventory_diagnostics_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                     const char *namespace_, draforge_error **error);

/* {"snapshot":{...},"diagnosis":PendingDiagnosis}: the diagnostics entry of one pending claim
 * `claim` ("namespace/name", or "name" in "default"): explain with the node verdicts in the
 * server's shape. Errors: DRAFORGE_ENOTFOUND when no such claim is stored, DRAFORGE_EINVALID when
 * it is not pending (it has an allocation) or `claim` is NULL or empty. */
DRAFORGE_API int draforge_inventory_claim_diagnosis_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                         const char *claim, draforge_error **error);

/* ChangeEvent (the data of the server's `change` event): the objects added, modified or deleted
 * from `before` to `after`, {"generation","resourceVersion" (of `after`),"previousGeneration"
 * (of `before`),"changes":[{"type","kind","namespace","name"}...]} sorted by kind, namespace and
 * name. `changes` (may be NULL) receives how many; 0 when nothing a reader sees differs (only
 * resourceVersions moved), and the JSON then has an empty "changes" list. Snapshots of one cluster
 * compare unchanged objects in O(1); snapshots of different clusters are compared by content. */
DRAFORGE_API int draforge_inventory_changes_json(draforge_buffer *out, size_t *changes, const draforge_snapshot *before,
                                                 const draforge_snapshot *after, draforge_error **error);

/* Options of draforge_inventory_pool_status_json(): the spec of a resource.k8s.io/v1alpha3
 * ResourcePoolStatusRequest. Initialise with DRAFORGE_POOL_STATUS_OPTIONS_INIT or
 * draforge_pool_status_options_init(). */
typedef struct draforge_pool_status_options {
  unsigned int version; /* DRAFORGE_POOL_STATUS_OPTIONS_VERSION */
  const char *driver;   /* spec.driver; required */
  const char *pool_name; /* spec.poolName; NULL or "": every pool of the driver */
  /* spec.limit: at most this many pools in "pools" (poolCount counts all). 0: the default, 100;
   * otherwise 1..1000. */
  int64_t limit;
  /* spec.defaultPartitionTypeAttribute (a fully qualified attribute name); NULL: none. */
  const char *default_partition_type_attribute;
  /* The condition's lastTransitionTime (RFC 3339). NULL: the current time, in seconds, UTC. */
  const char *now;
} draforge_pool_status_options;

#define DRAFORGE_POOL_STATUS_OPTIONS_VERSION 1
#define DRAFORGE_POOL_STATUS_OPTIONS_INIT {DRAFORGE_POOL_STATUS_OPTIONS_VERSION, NULL, NULL, 0, NULL, NULL}

/* Fills `options` with the defaults of `version`. Errors: DRAFORGE_EINVALID for NULL or an unknown
 * version. */
DRAFORGE_API int draforge_pool_status_options_init(draforge_pool_status_options *options, unsigned int version);

/* ResourcePoolStatusRequestStatus (resource.k8s.io/v1alpha3, KEP-5677): pool availability as
 * kube-controller-manager's resourcepoolstatusrequest controller (1.37) computes it for a request
 * with this spec: per pool generation, resourceSliceCount, totalDevices, allocatedDevices,
 * availableDevices, unavailableDevices, nodeName, validationError, partitionSummary and
 * shareableSummary; poolCount; the Complete condition. The JSON is the status upstream writes (no
 * "snapshot" member). Pools with a validationError starting "PoolIncomplete:" are ones upstream
 * would not answer yet (docs/pool-availability.md). Errors: DRAFORGE_EINVALID for NULL arguments,
 * an unknown version, an unset driver or a limit outside 0..1000 (the message names the field). */
DRAFORGE_API int draforge_inventory_pool_status_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                     const draforge_pool_status_options *options,
                                                     draforge_error **error);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_INVENTORY_H */
