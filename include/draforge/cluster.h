/* DRAForge C ABI: the object store (draforge_cluster) and its immutable snapshots.
 *
 * A draforge_cluster holds Kubernetes objects keyed by kind, namespace and name, as an informer
 * does; every change publishes a new draforge_snapshot. Readers (graph, allocator, explain) work on
 * a snapshot and never see a later change.
 *
 * Thread-safety: every draforge_cluster call may run concurrently with any other on the same
 * cluster (writers are serialized inside). A draforge_snapshot is immutable: any number of threads
 * may read it at once. A snapshot stays valid after its cluster is destroyed.
 */
#ifndef DRAFORGE_CLUSTER_H
#define DRAFORGE_CLUSTER_H

#include <stdint.h>

#include "draforge/common.h"
#include "draforge/objects.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A mutable object store. Create with draforge_cluster_create(), destroy with
 * draforge_cluster_destroy(). */
typedef struct draforge_cluster draforge_cluster;

/* An immutable view of a cluster at one point. Destroy with draforge_snapshot_destroy(). */
typedef struct draforge_snapshot draforge_snapshot;

/* Creates an empty store in `*out`. `default_namespace` is given to namespaced objects that have
 * none (NULL or "": "default", as kubectl). Errors: DRAFORGE_EINVALID when `out` is NULL. */
DRAFORGE_API int draforge_cluster_create(draforge_cluster **out, const char *default_namespace,
                                         draforge_error **error);
/* Frees `cluster`; NULL is a no-op. Snapshots taken from it stay valid. */
DRAFORGE_API void draforge_cluster_destroy(draforge_cluster *cluster);

/* Decodes JSON or YAML text (one object, a multi-document stream, or List kinds) and adds or
 * updates every object in `cluster`. All or nothing: when one object does not decode or has no
 * name, nothing is applied and the error names it ("object 3 (line 40): ResourceSlice \"x\":
 * spec.driver: ..."). `applied` (may be NULL) receives the number of objects read.
 * Errors: DRAFORGE_EINVALID (syntax, a field, a missing name), DRAFORGE_EUNSUPPORTED (apiVersion),
 * DRAFORGE_ELIMIT (input over 32 MiB). */
DRAFORGE_API int draforge_cluster_apply(draforge_cluster *cluster, const char *data, size_t size, size_t *applied,
                                        draforge_error **error);
/* Like draforge_cluster_apply() on the contents of file `path`; a directory applies every .yaml,
 * .yml and .json file in it (sorted by name, not recursive), all or nothing. Errors also:
 * DRAFORGE_ENOTFOUND when `path` cannot be read; messages start with the file name. */
DRAFORGE_API int draforge_cluster_apply_file(draforge_cluster *cluster, const char *path, size_t *applied,
                                             draforge_error **error);
/* Adds or updates every object of `objects` (borrowed; not modified), all or nothing. */
DRAFORGE_API int draforge_cluster_apply_objects(draforge_cluster *cluster, const draforge_objects *objects,
                                                draforge_error **error);
/* Deletes the object of kind `kind` ("ResourceSlice", "resourceclaims", "pod": as kubectl names
 * kinds) named `name` in `namespace_` (NULL or "": the default namespace; ignored for
 * cluster-scoped kinds). `deleted` (may be NULL) is set to 1 when an object was removed and 0 when
 * none was stored (not an error). Errors: DRAFORGE_EINVALID for an empty name,
 * DRAFORGE_EUNSUPPORTED for a kind DRAForge does not model. */
DRAFORGE_API int draforge_cluster_delete(draforge_cluster *cluster, const char *kind, const char *namespace_,
                                         const char *name, int *deleted, draforge_error **error);
/* The current snapshot, in `*out` (the caller's). O(1). */
DRAFORGE_API int draforge_cluster_snapshot(draforge_snapshot **out, const draforge_cluster *cluster,
                                           draforge_error **error);

/* Frees `snapshot`; NULL is a no-op. */
DRAFORGE_API void draforge_snapshot_destroy(draforge_snapshot *snapshot);
/* The number of published changes before this snapshot (0: empty store). */
DRAFORGE_API uint64_t draforge_snapshot_generation(const draforge_snapshot *snapshot);
/* The resourceVersion of the last change applied ("" when none carried one), borrowed from
 * `snapshot` (valid while it lives); "" for NULL. With the generation it identifies the snapshot
 * to an API client (openapi.json's SnapshotRef). */
DRAFORGE_API const char *draforge_snapshot_resource_version(const draforge_snapshot *snapshot);
/* The number of stored objects of kind `kind` (kubectl spelling); 0 for an unknown kind. */
DRAFORGE_API size_t draforge_snapshot_count(const draforge_snapshot *snapshot, const char *kind);
/* Every stored object of kind `kind` (NULL: every kind DRAForge models), as a JSON array of
 * resource.k8s.io/v1 (core/v1) objects sorted by (namespace, name), in `*out`. Errors:
 * DRAFORGE_EUNSUPPORTED for an unknown kind. */
DRAFORGE_API int draforge_snapshot_objects_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                const char *kind, draforge_error **error);
/* One object as resource.k8s.io/v1 JSON in `*out`. Errors: DRAFORGE_ENOTFOUND when it is not
 * stored, DRAFORGE_EUNSUPPORTED for an unknown kind. */
DRAFORGE_API int draforge_snapshot_get_json(draforge_buffer *out, const draforge_snapshot *snapshot, const char *kind,
                                            const char *namespace_, const char *name, draforge_error **error);
/* The relationship graph (Pod -> ResourceClaim -> DeviceClass -> ResourceSlice -> Device -> Pool
 * -> Node) as JSON in `*out`: {"snapshot":{...},"nodes":[...],"edges":[...],"requests":[...]}
 * (docs/c-api.md describes the fields). `all_devices` 0 keeps only devices that allocations name. */
DRAFORGE_API int draforge_snapshot_graph_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                              int all_devices, draforge_error **error);
/* DEPRECATED: use draforge_inventory_pools_json() (draforge/inventory.h), whose schema is the pool
 * schema of the server, the CLI and Python. Kept unchanged for existing callers.
 * Every ResourceSlice pool with its utilisation, as a JSON array in `*out`, sorted by (driver,
 * pool): {"driver","pool","generation","slices","resourceSliceCount","complete","invalid",
 * "invalidReason","node","devices","allocated"} where "allocated" counts devices of the current
 * generation that an allocation result without adminAccess names. */
DRAFORGE_API int draforge_snapshot_pools_json(draforge_buffer *out, const draforge_snapshot *snapshot,
                                              draforge_error **error);

/* How draforge_snapshot_graph_render() renders the graph. */
typedef enum draforge_graph_format {
  DRAFORGE_GRAPH_JSON = 0, /* draforge_snapshot_graph_json()'s schema, compact */
  DRAFORGE_GRAPH_DOT = 1,  /* Graphviz: one statement per node and edge, every id quoted */
  DRAFORGE_GRAPH_TEXT = 2  /* a tree per pod (pod -> claims -> requests -> class -> devices -> node),
                              then the claims no pod references; two spaces per level */
} draforge_graph_format;

/* Options of draforge_snapshot_graph_render(). Initialise with DRAFORGE_GRAPH_OPTIONS_INIT or
 * draforge_graph_options_init(); fields are only ever appended. */
typedef struct draforge_graph_options {
  unsigned int version;
  draforge_graph_format format; /* default DRAFORGE_GRAPH_JSON */
  int all_devices;              /* default 1; 0 keeps only devices that allocations name */
  /* Filters (NULL or "": none; several: a part must be kept by each). Each keeps its seeds and
   * what connects to them (docs/c-api.md): the pods, claims and templates of a namespace; the
   * Node, its pods, slices, pools, devices and the claims allocated on it; the slices, devices and
   * pools of a driver and the claims and classes that use them. Borrowed for the call only. */
  const char *namespace_;
  const char *node;
  const char *driver;
} draforge_graph_options;

#define DRAFORGE_GRAPH_OPTIONS_VERSION 1
#define DRAFORGE_GRAPH_OPTIONS_INIT {DRAFORGE_GRAPH_OPTIONS_VERSION, DRAFORGE_GRAPH_JSON, 1, NULL, NULL, NULL}

/* Initialises `options` as DRAFORGE_GRAPH_OPTIONS_INIT does. Errors: DRAFORGE_EINVALID for NULL or
 * an unknown version. */
DRAFORGE_API int draforge_graph_options_init(draforge_graph_options *options, unsigned int version);

/* The relationship graph of `snapshot`, filtered as `options` says, rendered as options->format
 * into `*out` (`options` NULL: the defaults, JSON of the whole graph with every device). Errors:
 * DRAFORGE_EINVALID for NULL arguments, an unknown version or format. */
DRAFORGE_API int draforge_snapshot_graph_render(draforge_buffer *out, const draforge_snapshot *snapshot,
                                                const draforge_graph_options *options, draforge_error **error);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_CLUSTER_H */
