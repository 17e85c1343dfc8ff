/* DRAForge C ABI: a live Kubernetes cluster. Where to find it (kubeconfig rules), REST calls with
 * JSON in and out, the live source that keeps a draforge_cluster equal to the API server's objects
 * (list + watch), and Lease leader election.
 *
 * The library never reads the environment: the caller passes $KUBECONFIG, $HOME, the in-cluster
 * values and the environment an exec credential plugin should see in draforge_kube_config_options.
 * (The C++ API's draforge::KubeConfigOptionsFromEnvironment() fills them from the calling process.)
 *
 * Errors of the calls that reach the API server:
 *  - DRAFORGE_EAPI: the server answered with an error status. draforge_kube_error_status_code()
 *    gives its HTTP code (404, 409, 410, ...) and draforge_kube_error_reason() its metav1.Status
 *    reason ("NotFound", "Conflict", "AlreadyExists", "Gone", "Expired", "Forbidden", "Invalid",
 *    ...), so callers branch as client-go's apierrors.IsNotFound etc. do.
 *  - DRAFORGE_EUNAVAILABLE: the server could not be reached or did not answer in time (connection,
 *    TLS, a timeout, an exec plugin that failed), or the call's deadline had passed (then nothing
 *    was sent).
 *  - DRAFORGE_EINVALID / DRAFORGE_ENOTFOUND / DRAFORGE_ELIMIT as elsewhere (bad arguments, a missing
 *    kubeconfig file, an answer over the size limit).
 *
 * Times are wall-clock instants in nanoseconds since the Unix epoch (int64_t); a call's deadline is
 * absolute. DRAFORGE_KUBE_NO_DEADLINE means none.
 *
 * Thread-safety: a draforge_kube_client may be used by any number of threads at once. The calls on
 * a draforge_kube_source or draforge_kube_leader_elector may run concurrently with each other, except
 * that _stop and _destroy must not be called from that handle's own callback (they join the thread
 * the callback runs on). Each callback's thread is documented where it is declared.
 */
#ifndef DRAFORGE_KUBE_H
#define DRAFORGE_KUBE_H

#include <stddef.h>
#include <stdint.h>

#include "draforge/cluster.h"
#include "draforge/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* No deadline (the default of every options struct here). */
#define DRAFORGE_KUBE_NO_DEADLINE INT64_MAX

/* Log levels of draforge_kube_log_fn. */
typedef enum draforge_kube_log_level {
  DRAFORGE_KUBE_LOG_DEBUG = 0,
  DRAFORGE_KUBE_LOG_INFO = 1,
  DRAFORGE_KUBE_LOG_WARNING = 2,
  DRAFORGE_KUBE_LOG_ERROR = 3
} draforge_kube_log_level;

/* Receives the client's log lines (requests, retries, the live source's list/watch failures and
 * backoffs, leader election changes). Called from whichever thread did the work (a caller's thread,
 * a source thread, the elector thread), possibly from several at once: it must be thread-safe.
 * `message` is valid only during the call. */
typedef void (*draforge_kube_log_fn)(void *user_data, int level, const char *message);

/* ---------------------------------------------------------------------------------------------
 * Configuration: client-go's loading rules.
 *
 * The first of these that applies is used:
 *   1. `kubeconfig` (an explicit path, kubectl's --kubeconfig): it must exist.
 *   2. `kubeconfig_env` ($KUBECONFIG): a ':'-separated list of files merged as kubectl merges them
 *      (the first file to define a cluster, user or context name wins; current-context from the
 *      first file that sets it; files that do not exist are skipped). When none of them exists,
 *      in-cluster (4) is used if available, else the error names the files.
 *   3. `home` + "/.kube/config", when that file exists.
 *   4. In-cluster: `service_host` and `service_port` (KUBERNETES_SERVICE_HOST/PORT) with the
 *      service account token and CA at `token_path` and `ca_path`.
 * `context` selects the kubeconfig context (default: its current-context). An exec credential
 * plugin runs with `environment` (plus the kubeconfig's exec.env), never with an empty one.
 * ------------------------------------------------------------------------------------------- */

typedef struct draforge_kube_config_options {
  unsigned int version;       /* DRAFORGE_KUBE_CONFIG_OPTIONS_VERSION */
  const char *kubeconfig;     /* explicit kubeconfig path; NULL or "": none */
  const char *kubeconfig_env; /* the value of $KUBECONFIG; NULL or "": unset */
  const char *home;           /* the home directory ($HOME); NULL or "": no ~/.kube/config */
  const char *context;        /* NULL or "": the kubeconfig's current-context */
  /* The environment of exec credential plugins, as "NAME=value" strings (typically the caller's
   * environ); `environment_count` entries. NULL with a count of 0: an empty environment. */
  const char *const *environment;
  size_t environment_count;
  const char *service_host; /* KUBERNETES_SERVICE_HOST; NULL or "": not in a pod */
  const char *service_port; /* KUBERNETES_SERVICE_PORT */
  /* The service account files; NULL: /var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,
   * namespace}. */
  const char *token_path;
  const char *ca_path;
  const char *namespace_path;
  const char *user_agent; /* User-Agent header; NULL: "draforge" */
  /* Per-request timeout in milliseconds (watches have their own); 0: 30 s. */
  int64_t timeout_ms;
  draforge_kube_log_fn log; /* may be NULL */
  void *log_user_data;
} draforge_kube_config_options;

#define DRAFORGE_KUBE_CONFIG_OPTIONS_VERSION 1
#define DRAFORGE_KUBE_CONFIG_OPTIONS_INIT \
  {DRAFORGE_KUBE_CONFIG_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL}

/* Fills `options` with the defaults of `version` (as DRAFORGE_KUBE_CONFIG_OPTIONS_INIT). Errors:
 * DRAFORGE_EINVALID for NULL or an unknown version. */
DRAFORGE_API int draforge_kube_config_options_init(draforge_kube_config_options *options, unsigned int version);

/* Which configuration the rules above pick, without connecting, as JSON in `*out`:
 * {"source":"kubeconfig"|"KUBECONFIG"|"home"|"in-cluster"|"none","files":[...],"server":"https://...",
 *  "context":"...","namespace":"...","exec":true|false}. "none" (nothing configured) is a result,
 * not an error; credentials are never included. Errors: the kubeconfig's (DRAFORGE_EINVALID naming
 * the file, context, cluster or user and the field; DRAFORGE_ENOTFOUND for a missing explicit
 * kubeconfig or a file it names). */
DRAFORGE_API int draforge_kube_config_resolve(draforge_buffer *out, const draforge_kube_config_options *options,
                                              draforge_error **error);

/* ---------------------------------------------------------------------------------------------
 * Client.
 * ------------------------------------------------------------------------------------------- */

/* A connection to one API server. Create with draforge_kube_client_create(), destroy with
 * draforge_kube_client_destroy(). Every call may run concurrently with any other. */
typedef struct draforge_kube_client draforge_kube_client;

/* Resolves the configuration (see above) and creates a client in `*out`. Nothing is sent yet.
 * Errors: those of draforge_kube_config_resolve(); DRAFORGE_ENOTFOUND "no cluster configured: ..."
 * when the rules find nothing. */
DRAFORGE_API int draforge_kube_client_create(draforge_kube_client **out, const draforge_kube_config_options *options,
                                             draforge_error **error);
/* Ends the client's running watches, then frees it; NULL is a no-op. Sources and electors created on
 * it keep what they need of it alive until they are destroyed. */
DRAFORGE_API void draforge_kube_client_destroy(draforge_kube_client *client);
/* The server URL ("https://host:port"), borrowed from `client`. */
DRAFORGE_API const char *draforge_kube_client_server(const draforge_kube_client *client);
/* The default namespace of the configuration (the context's, the pod's, or "default"), borrowed. */
DRAFORGE_API const char *draforge_kube_client_namespace(const draforge_kube_client *client);
/* The kubeconfig context used ("" in-cluster), borrowed. */
DRAFORGE_API const char *draforge_kube_client_context(const draforge_kube_client *client);
/* GET /version: the server's version.Info JSON ({"major","minor","gitVersion",...}) in `*out`. */
DRAFORGE_API int draforge_kube_client_server_version(draforge_buffer *out, draforge_kube_client *client,
                                                     draforge_error **error);
/* GET /version as draforge_kube_client_server_version(), ended at `deadline_unix_ns` (ns since the
 * epoch, as draforge_kube_now(); DRAFORGE_KUBE_NO_DEADLINE: the client's timeout): a probe of
 * whether the API server answers that needs no RBAC and returns in bounded time whatever the
 * client's timeout (a node plugin's readiness must turn within seconds of the API server going
 * away). Errors: as draforge_kube_client_server_version(); DRAFORGE_EUNAVAILABLE when the deadline
 * passes first (nothing is sent when it has passed already). Any thread. */
DRAFORGE_API int draforge_kube_client_server_version_until(draforge_buffer *out, draforge_kube_client *client,
                                                           int64_t deadline_unix_ns, draforge_error **error);

/* The HTTP status code of an API server error (DRAFORGE_EAPI), e.g. 404 or 409; 0 for any other
 * error or NULL. */
DRAFORGE_API int draforge_kube_error_status_code(const draforge_error *error);
/* The metav1.Status reason of an API server error ("NotFound", "Conflict", "AlreadyExists", "Gone",
 * "Expired", ...), borrowed from `error`; "" for any other error or NULL. */
DRAFORGE_API const char *draforge_kube_error_reason(const draforge_error *error);

/* ---------------------------------------------------------------------------------------------
 * REST with JSON. A resource is named by its apiVersion ("resource.k8s.io/v1", "v1",
 * "coordination.k8s.io/v1", "sim.draforge.io/v1alpha1") and plural resource ("resourceslices",
 * "pods", "leases"). `namespace_`: NULL or "" for cluster-scoped resources (and, for list, all
 * namespaces); the namespace for namespaced ones.
 * ------------------------------------------------------------------------------------------- */

typedef enum draforge_kube_patch_type {
  DRAFORGE_KUBE_PATCH_MERGE = 0,           /* application/merge-patch+json */
  DRAFORGE_KUBE_PATCH_STRATEGIC_MERGE = 1, /* application/strategic-merge-patch+json */
  DRAFORGE_KUBE_PATCH_APPLY = 2,           /* server-side apply (needs field_manager) */
  DRAFORGE_KUBE_PATCH_JSON = 3             /* application/json-patch+json */
} draforge_kube_patch_type;

/* Options of the REST calls; each field says which calls read it. Initialise with
 * DRAFORGE_KUBE_REQUEST_OPTIONS_INIT or draforge_kube_request_options_init() (a zeroed struct has
 * a deadline in 1970: every call would fail). `options` may be NULL: the defaults. */
typedef struct draforge_kube_request_options {
  unsigned int version; /* DRAFORGE_KUBE_REQUEST_OPTIONS_VERSION */
  /* get, list (every page), create, update, patch, delete: no attempt starts at or after this
   * instant, each attempt's timeout is clipped to it, and no retry is made past it (a leader passes
   * draforge_kube_leader_elector_deadline()). Without one, each request ends by the client's
   * timeout_ms. */
  int64_t deadline_unix_ns;
  const char *subresource;       /* get, update, patch: "status", ...; NULL: the object itself */
  const char *label_selector;    /* list */
  const char *field_selector;    /* list */
  int64_t limit;                 /* list: page size (every page is read and joined); 0: one request */
  const char *resource_version;  /* list: "" a consistent read, "0" any (the watch cache) */
  const char *field_manager;     /* create, update, patch (required for server-side apply) */
  int dry_run;                   /* create, update, patch, delete: dryRun=All */
  int force;                     /* patch (server-side apply): take conflicting fields */
  const char *precondition_uid;  /* delete: preconditions.uid */
  const char *precondition_resource_version; /* delete: preconditions.resourceVersion */
  const char *propagation_policy; /* delete: Foreground, Background, Orphan */
  int64_t grace_period_seconds;   /* delete; -1: the object's default */
} draforge_kube_request_options;

#define DRAFORGE_KUBE_REQUEST_OPTIONS_VERSION 1
#define DRAFORGE_KUBE_REQUEST_OPTIONS_INIT \
  {DRAFORGE_KUBE_REQUEST_OPTIONS_VERSION, DRAFORGE_KUBE_NO_DEADLINE, NULL, NULL, NULL, 500, NULL, NULL, 0, 0, NULL, NULL, NULL, -1}

/* Fills `options` with the defaults of `version`. Errors: DRAFORGE_EINVALID for NULL or an unknown
 * version. */
DRAFORGE_API int draforge_kube_request_options_init(draforge_kube_request_options *options, unsigned int version);

/* GET one object; its JSON in `*out`. */
DRAFORGE_API int draforge_kube_get(draforge_buffer *out, draforge_kube_client *client, const char *api_version,
                                   const char *resource, const char *namespace_, const char *name,
                                   const draforge_kube_request_options *options, draforge_error **error);
/* LIST, following continue tokens: {"apiVersion","kind","metadata":{"resourceVersion"},"items":[...]}
 * in `*out`, every item with its apiVersion and kind (which the server leaves out of list items).
 * A continue token that expires mid-list is DRAFORGE_EAPI with status 410: list again. */
DRAFORGE_API int draforge_kube_list(draforge_buffer *out, draforge_kube_client *client, const char *api_version,
                                    const char *resource, const char *namespace_,
                                    const draforge_kube_request_options *options, draforge_error **error);
/* POST `body` (JSON, `size` bytes); the created object in `*out`. `namespace_` overrides the body's
 * metadata.namespace when set. An existing object: DRAFORGE_EAPI, 409 "AlreadyExists". */
DRAFORGE_API int draforge_kube_create(draforge_buffer *out, draforge_kube_client *client, const char *api_version,
                                      const char *resource, const char *namespace_, const char *body, size_t size,
                                      const draforge_kube_request_options *options, draforge_error **error);
/* PUT `body` (the whole object, named by its metadata.name), or its status with subresource
 * "status". Optimistic concurrency: a body whose metadata.resourceVersion is stale gets
 * DRAFORGE_EAPI, 409 "Conflict". The stored object in `*out`. */
DRAFORGE_API int draforge_kube_update(draforge_buffer *out, draforge_kube_client *client, const char *api_version,
                                      const char *resource, const char *namespace_, const char *body, size_t size,
                                      const draforge_kube_request_options *options, draforge_error **error);
/* PATCH object `name` with `patch` of type `type` (draforge_kube_patch_type). The patched object
 * in `*out`. Errors also: DRAFORGE_EINVALID for server-side apply without field_manager. */
DRAFORGE_API int draforge_kube_patch(draforge_buffer *out, draforge_kube_client *client, const char *api_version,
                                     const char *resource, const char *namespace_, const char *name, int type,
                                     const char *patch, size_t size, const draforge_kube_request_options *options,
                                     draforge_error **error);
/* DELETE object `name`, with the preconditions of `options` (a stale resourceVersion or another uid:
 * DRAFORGE_EAPI, 409 "Conflict"). The server's answer (the object being deleted, or a Status) in
 * `*out`. */
DRAFORGE_API int draforge_kube_delete(draforge_buffer *out, draforge_kube_client *client, const char *api_version,
                                      const char *resource, const char *namespace_, const char *name,
                                      const draforge_kube_request_options *options, draforge_error **error);

/* Every object of the DRA kinds, Pods and Nodes (resource.k8s.io v1, else the newest beta served,
 * converted), read once, page by page: {"draVersion":"v1","objects":[...],"skipped":["..."]} in
 * `*out`, kind by kind (DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate,
 * DeviceTaintRule, Pod, Node, then core/v1 ResourceQuotas, which the capacity views count within,
 * then scheduling.k8s.io/v1beta1 PodGroups and Workloads, which gang placement reads, when the server
 * serves that version), each list in the server's order. An object that does not decode is not an
 * error: `skipped` says which and why; so is a ResourceQuota, PodGroup or Workload list the identity
 * may not read ("list resourcequotas: ..."). `namespace_`: NULL or "" for every namespace. Errors:
 * the first failed list (a 403 names the verb and resource). */
DRAFORGE_API int draforge_kube_list_cluster_state(draforge_buffer *out, draforge_kube_client *client,
                                                  const char *namespace_, draforge_error **error);

/* ---------------------------------------------------------------------------------------------
 * The live source: list + watch of the kinds DRAForge models into a draforge_cluster, with
 * client-go's reflector semantics (one thread per kind: list, then watch from the list's
 * resourceVersion with bookmarks; resume when a watch ends; relist on 410 Gone; jittered backoff on
 * failures). Objects that do not decode are skipped and logged, never half-stored.
 * ------------------------------------------------------------------------------------------- */

/* Receives "something changed" after the source applied a change to the cluster: `kind` is the
 * kind's name ("ResourceSlice", or a custom resource's kind), borrowed for the call. Runs on the
 * source thread of that kind, so calls for different kinds may overlap: keep it short and
 * thread-safe. It may read the cluster (draforge_cluster_snapshot) and call any function of this
 * ABI except draforge_kube_source_stop/_destroy on the same source. */
typedef void (*draforge_kube_change_fn)(void *user_data, const char *kind);

typedef struct draforge_kube_source_options {
  unsigned int version;   /* DRAFORGE_KUBE_SOURCE_OPTIONS_VERSION */
  const char *namespace_; /* namespaced kinds of this namespace only; NULL or "": every namespace */
  /* Comma-separated kinds (kubectl spelling: "ResourceSlice,resourceclaims"); NULL or "": DeviceClass,
   * ResourceSlice, ResourceClaim, ResourceClaimTemplate, DeviceTaintRule, Pod, Node. */
  const char *kinds;
  /* Comma-separated custom resources also watched and stored as opaque objects, each as
   * "group/version/resource" ("sim.draforge.io/v1alpha1/simulateddevicepools"; "core" names the
   * core group: "core/v1/resourcequotas"), cluster-scoped unless `namespace_` is set. NULL or "":
   * none. */
  const char *custom_resources;
  /* resource.k8s.io version to use; NULL or "": discover (v1, else v1beta2, else v1beta1). */
  const char *dra_version;
  int64_t page_size; /* list page size; 0: 500 */
  draforge_kube_change_fn on_change; /* may be NULL */
  void *on_change_user_data;
} draforge_kube_source_options;

#define DRAFORGE_KUBE_SOURCE_OPTIONS_VERSION 1
#define DRAFORGE_KUBE_SOURCE_OPTIONS_INIT {DRAFORGE_KUBE_SOURCE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, 0, NULL, NULL}

DRAFORGE_API int draforge_kube_source_options_init(draforge_kube_source_options *options, unsigned int version);

/* A running list + watch. Start with draforge_kube_source_start(), destroy with
 * draforge_kube_source_destroy(). */
typedef struct draforge_kube_source draforge_kube_source;

/* Discovers the resource.k8s.io version and starts the source's threads, which fill `cluster`
 * (borrowed: it must outlive the source). `client` may be destroyed before the source. Errors:
 * DRAFORGE_EINVALID for an unknown kind or a malformed custom resource, DRAFORGE_EAPI or
 * DRAFORGE_EUNAVAILABLE when discovery fails (the message names the server). */
DRAFORGE_API int draforge_kube_source_start(draforge_kube_source **out, draforge_kube_client *client,
                                            draforge_cluster *cluster, const draforge_kube_source_options *options,
                                            draforge_error **error);
/* 1 once every kind has been listed into the cluster at least once (an informer's HasSynced), else 0. */
DRAFORGE_API int draforge_kube_source_synced(const draforge_kube_source *source);
/* Waits until synced or `timeout_ms` passed; returns draforge_kube_source_synced(). */
DRAFORGE_API int draforge_kube_source_wait_synced(const draforge_kube_source *source, int64_t timeout_ms);
/* The latest list/watch failure of any kind: DRAFORGE_OK when the latest attempt of every kind
 * succeeded (a watch succeeds once the server accepts it, before any event), else its code, with the error in `*error` (when not NULL). The source keeps retrying. */
DRAFORGE_API int draforge_kube_source_last_error(const draforge_kube_source *source, draforge_error **error);
/* The resource.k8s.io version in use ("v1"), borrowed from `source`. */
DRAFORGE_API const char *draforge_kube_source_dra_version(const draforge_kube_source *source);
/* Counters as JSON in `*out`: {"lists","relistsGone","watches","shortWatches","events",
 * "decodeErrors","errors"}. */
DRAFORGE_API int draforge_kube_source_stats_json(draforge_buffer *out, const draforge_kube_source *source,
                                                 draforge_error **error);
/* Ends the watches and joins the source's threads; no callback runs after it returns. The cluster
 * keeps what it holds. Idempotent. Not from the source's own callback. */
DRAFORGE_API void draforge_kube_source_stop(draforge_kube_source *source);
/* Stops (as above) and frees `source`; NULL is a no-op. */
DRAFORGE_API void draforge_kube_source_destroy(draforge_kube_source *source);

/* ---------------------------------------------------------------------------------------------
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's semantics: a candidate takes
 * a Lease that is free or whose holder has not renewed it for lease_duration (on the candidate's own
 * clock); the leader renews every retry_period and stops leading when it could not renew for
 * renew_deadline, before any other candidate may take over. Every leader-gated write should carry
 * draforge_kube_leader_elector_deadline() as its deadline: nothing is sent after this replica's
 * lease may have passed to another.
 * ------------------------------------------------------------------------------------------- */

/* Called on the elector's thread when this candidate starts or stops leading. It may call
 * draforge_kube_leader_elector_is_leader/_deadline/_observed_leader and any other function of this
 * ABI except draforge_kube_leader_elector_stop/_destroy on the same elector. Keep it short: the
 * elector renews on that thread. */
typedef void (*draforge_kube_leader_fn)(void *user_data);
/* Called on the elector's thread when the observed holder changes; `identity` borrowed for the call. */
typedef void (*draforge_kube_new_leader_fn)(void *user_data, const char *identity);

typedef struct draforge_kube_leader_election_options {
  unsigned int version;        /* DRAFORGE_KUBE_LEADER_ELECTION_OPTIONS_VERSION */
  const char *lease_namespace; /* NULL or "": "default" */
  const char *lease_name;      /* required */
  const char *identity;        /* required: unique per candidate */
  int64_t lease_duration_ms;   /* 0: 15000 */
  int64_t renew_deadline_ms;   /* 0: 10000 */
  int64_t retry_period_ms;     /* 0: 2000 */
  int release_on_stop;         /* non-zero (the default): stop hands the Lease back at once */
  draforge_kube_leader_fn on_started_leading; /* may be NULL */
  draforge_kube_leader_fn on_stopped_leading; /* may be NULL */
  draforge_kube_new_leader_fn on_new_leader;  /* may be NULL */
  void *user_data;
} draforge_kube_leader_election_options;

#define DRAFORGE_KUBE_LEADER_ELECTION_OPTIONS_VERSION 1
#define DRAFORGE_KUBE_LEADER_ELECTION_OPTIONS_INIT \
  {DRAFORGE_KUBE_LEADER_ELECTION_OPTIONS_VERSION, NULL, NULL, NULL, 0, 0, 0, 1, NULL, NULL, NULL, NULL}

DRAFORGE_API int draforge_kube_leader_election_options_init(draforge_kube_leader_election_options *options,
                                                             unsigned int version);

/* A candidate. Start with draforge_kube_leader_elector_start(), destroy with
 * draforge_kube_leader_elector_destroy(). */
typedef struct draforge_kube_leader_elector draforge_kube_leader_elector;

/* Starts campaigning on the elector's own thread; `*out` is the caller's. `client` may be destroyed
 * before the elector. Errors: DRAFORGE_EINVALID for an empty lease name or identity, or durations
 * that do not satisfy lease_duration > renew_deadline > retry_period > 0. */
DRAFORGE_API int draforge_kube_leader_elector_start(draforge_kube_leader_elector **out, draforge_kube_client *client,
                                                    const draforge_kube_leader_election_options *options,
                                                    draforge_error **error);
/* 1 while this candidate holds the Lease and has renewed it within renew_deadline, else 0. */
DRAFORGE_API int draforge_kube_leader_elector_is_leader(const draforge_kube_leader_elector *elector);
/* Until when this candidate may act as leader (its last renewal + renew_deadline), in ns since the
 * epoch; INT64_MIN when not leading. Pass it as deadline_unix_ns of every leader-gated write. */
DRAFORGE_API int64_t draforge_kube_leader_elector_deadline(const draforge_kube_leader_elector *elector);
/* The holder this candidate last observed ("" when none), in `*out`. */
DRAFORGE_API int draforge_kube_leader_elector_observed_leader(draforge_buffer *out,
                                                              const draforge_kube_leader_elector *elector,
                                                              draforge_error **error);
/* Stops campaigning: a leader stops leading (on_stopped_leading) and, with release_on_stop, releases
 * the Lease. Joins the elector's thread. Idempotent. Not from the elector's own callbacks. */
DRAFORGE_API void draforge_kube_leader_elector_stop(draforge_kube_leader_elector *elector);
/* Stops (as above) and frees `elector`; NULL is a no-op. */
DRAFORGE_API void draforge_kube_leader_elector_destroy(draforge_kube_leader_elector *elector);

/* The current wall-clock time in ns since the epoch (the clock deadlines are compared with). */
DRAFORGE_API int64_t draforge_kube_now(void);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_KUBE_H */
