/* DRAForge C ABI: package catalogs, the fixed shapes in which a platform sells capacity (a package ID
 * expands to a pod's CPU and memory and N devices of one DeviceClass), how many more units of each
 * package fit, and the inventory fields such a platform reports. docs/packages.md describes the
 * catalog format and how capacity is counted.
 *
 * `catalog` is the catalog's YAML or JSON text, `catalog_len` its length in bytes (it need not be
 * NUL-terminated). A catalog that does not parse or validate is DRAFORGE_EINVALID with every problem
 * in the message, one per line, each with its field path ("packages[2].allocation.count: Invalid
 * value: 3: must equal gpu (2)").
 *
 * Every function fills `*out` (the caller's; free with draforge_buffer_dispose()) with one JSON
 * object and returns DRAFORGE_OK, or returns an error code with `*error` set (when not NULL).
 *
 * Thread-safety: the functions only read their arguments; snapshots are immutable. Any number of
 * calls may run at once, from any thread. No callbacks. */
#ifndef DRAFORGE_PACKAGE_H
#define DRAFORGE_PACKAGE_H

#include <stddef.h>
#include <stdint.h>

#include "draforge/alloc.h"
#include "draforge/cluster.h"
#include "draforge/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses and validates `catalog`; with a `snapshot` (may be NULL) also checks it against the cluster
 * (every allocation.deviceClassName must be a DeviceClass of the snapshot).
 * `*out`: {"packages":[{"id","specName","cpu","memory","gpu","deviceClassName","claimRequestName",
 * "count"}], "problems":["packages[0].allocation.deviceClassName: Not found: ...", ...]}; problems
 * against the cluster are a result, not an error. Errors: DRAFORGE_EINVALID for NULL out or catalog,
 * or a catalog that does not parse or validate. */
DRAFORGE_API int draforge_package_validate_json(draforge_buffer *out, const char *catalog, size_t catalog_len,
                                                const draforge_snapshot *snapshot, draforge_error **error);

/* Expands package `id` of `catalog` into the objects one unit is made of: a ResourceClaim
 * "<name>-<claimRequestName>" (one request of `count` devices of the DeviceClass; none for gpu 0)
 * and a Pod `name` in `namespace_` (NULL or "": "default") whose only container (image `image`)
 * requests and limits the package's cpu and memory and lists the claim under resources.claims.
 * `*out`: {"objects":[ResourceClaim, Pod]} as the API server would accept them (apiVersion,
 * kind, metadata, spec). Errors: DRAFORGE_ENOTFOUND for an unknown id; DRAFORGE_EINVALID for NULL
 * arguments, a bad catalog, or a name, namespace or image the API server would reject. */
DRAFORGE_API int draforge_package_expand_json(draforge_buffer *out, const char *catalog, size_t catalog_len,
                                              const char *id, const char *name, const char *namespace_,
                                              const char *image, draforge_error **error);

/* How many more units of each package of `catalog` (only `id` when not NULL or "") fit in
 * `snapshot` now, per node and cluster-wide: the engine of draforge_how_many_more_json with a pod
 * prototype (devices through the allocator; cpu, memory and pod slots against each Node's
 * status.allocatable minus the pods bound there; nodes filled in name order). `namespace_` (NULL
 * or "": "default") is where the units would go; with `quota` non-zero its ResourceQuotas cap the
 * total (status.hard minus status.used). `cap`: 0 for 1000, else > 0, per package. `options` as
 * for draforge_how_many_more_json (may be NULL).
 * `*out`: {"namespace","quota":bool,"packages":[{"id","specName","cpu","memory","gpu",
 * "deviceClassName","capacity":{"prototype":"package <id>","total","cap","stop":"exhausted"|"cap"|
 * "error"|"no-nodes"|"quota","resourcesChecked":bool,"quota":{"quotas","units","why"} (with quota),
 * "nodes":[{"node","count","reasons","why","limitedBy":"devices"|"cpu"|"memory"|"pods"|...}],
 * "copies":[]}}]}. Errors: DRAFORGE_ENOTFOUND for an unknown id; DRAFORGE_EINVALID for NULL
 * out/snapshot/catalog, a bad catalog, a negative cap, bad options, a Node or Pod whose resource
 * lists do not parse, or a bad ResourceQuota. */
DRAFORGE_API int draforge_package_capacity_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                const char *catalog, size_t catalog_len, const char *id,
                                                const char *namespace_, int quota, int64_t cap,
                                                const draforge_allocate_options *options, draforge_error **error);

/* The inventory fields a platform reports, from observed state only (ResourceSlices and
 * ResourceClaim.status): {"totalGpuAllocatable","draClaimCount","draAllocatedClaims",
 * "draAllocatedDevices","draResourceSlices","draDevices","namespaces":{"<ns>":{"draClaimCount",
 * "draAllocatedClaims","draAllocatedDevices"}}} (docs/packages.md defines each). Errors:
 * DRAFORGE_EINVALID for NULL out or snapshot. */
DRAFORGE_API int draforge_package_inventory_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                 draforge_error **error);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_PACKAGE_H */
