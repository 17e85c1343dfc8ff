/* DRAForge C ABI: simulated device pools (sim.draforge.io/v1alpha1 SimulatedDevicePool): the
 * driver profiles, expansion into the ResourceSlices the real drivers would publish, faults, and
 * the plans of `draforge scenario apply` (which objects a scenario creates in a cluster).
 *
 * Objects go in and come out as JSON text (a whole SimulatedDevicePool object, as a file or the API
 * server holds it). Every call is pure: no file, network or environment is read, so every function
 * may be called from any thread at any time; nothing here keeps state between calls.
 */
#ifndef DRAFORGE_SIM_H
#define DRAFORGE_SIM_H

#include <stdint.h>

#include "draforge/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The SimulatedDevicePool custom resource. */
#define DRAFORGE_SIM_GROUP "sim.draforge.io"
#define DRAFORGE_SIM_VERSION "v1alpha1"
#define DRAFORGE_SIM_API_VERSION "sim.draforge.io/v1alpha1"
#define DRAFORGE_SIM_KIND "SimulatedDevicePool"
#define DRAFORGE_SIM_RESOURCE "simulateddevicepools"
/* Labels on every slice an expansion publishes: managed-by=draforge-sim and pool=<object name>. */
#define DRAFORGE_SIM_MANAGED_BY_LABEL "app.kubernetes.io/managed-by"
#define DRAFORGE_SIM_MANAGED_BY_VALUE "draforge-sim"
#define DRAFORGE_SIM_POOL_LABEL "sim.draforge.io/pool"
/* The label on every object a scenario creates; its value is the scenario's name. */
#define DRAFORGE_SIM_SCENARIO_LABEL "sim.draforge.io/scenario"

/* The driver profiles as a JSON array in `*out`, in the order `draforge sim profiles` lists them:
 * [{"name","driver" ("" when the pool's spec.driver decides),"unit","defaultDevicesPerNode",
 * "options":[...],"description"}]. Errors: DRAFORGE_EINVALID for a NULL `out`. */
DRAFORGE_API int draforge_sim_profiles_json(draforge_buffer *out, draforge_error **error);

/* The fault types (spec.faults[].type) as a JSON array of names in `*out`: ["taint","xid",
 * "gpu-lost","health-unknown","remove-device","remove-slice","flap","incomplete-pool",
 * "stale-generation","binding-failure"]. Errors: DRAFORGE_EINVALID for a NULL `out`. */
DRAFORGE_API int draforge_sim_fault_types_json(draforge_buffer *out, draforge_error **error);

/* Decodes and validates one SimulatedDevicePool (JSON text of the whole object). Returns DRAFORGE_OK
 * when it is well-formed; otherwise DRAFORGE_EINVALID with a message naming the object and field
 * ("SimulatedDevicePool \"gpus\": spec.devicesPerNode: ..."). Whether its devices can be published
 * is draforge_sim_expand()'s question. */
DRAFORGE_API int draforge_sim_pool_check(const char *pool_json, size_t size, draforge_error **error);

/* Options of draforge_sim_expand(). Initialise with DRAFORGE_SIM_EXPAND_OPTIONS_INIT or
 * draforge_sim_expand_options_init(). */
typedef struct draforge_sim_expand_options {
  unsigned int version; /* DRAFORGE_SIM_EXPAND_OPTIONS_VERSION */
  /* The simulation clock in ticks (flap faults alternate with it); 0 for an offline expansion. */
  int64_t tick;
} draforge_sim_expand_options;

#define DRAFORGE_SIM_EXPAND_OPTIONS_VERSION 1
#define DRAFORGE_SIM_EXPAND_OPTIONS_INIT {DRAFORGE_SIM_EXPAND_OPTIONS_VERSION, 0}

/* Fills `options` with the defaults of `version`. Errors: DRAFORGE_EINVALID for NULL or an unknown
 * version. */
DRAFORGE_API int draforge_sim_expand_options_init(draforge_sim_expand_options *options, unsigned int version);

/* Expands SimulatedDevicePools into the ResourceSlices the real drivers would publish.
 * `pools_json` is a JSON array of whole SimulatedDevicePool objects. `*out` receives
 * {"slices":[ResourceSlice objects in resource.k8s.io/v1, pool by pool, counter slices first],
 *  "pools":[{"driver","pool","generation","resourceSliceCount"}]}. The same input gives the same
 * bytes. `options` may be NULL. Errors (nothing is returned): DRAFORGE_EINVALID naming the object
 * and field for a pool that does not decode or cannot be published (unknown profile, a device count
 * the driver's layout cannot publish, a fault naming a device it does not have), and for two pools
 * that would publish the same pool or slice name. */
DRAFORGE_API int draforge_sim_expand(draforge_buffer *out, const char *pools_json, size_t size,
                                     const draforge_sim_expand_options *options, draforge_error **error);

/* Adds a fault to a pool. `fault_json` is one spec.faults[] item ({"name","type","nodes",
 * "devices","key","value","effect","xid","slice","period","missingSlices"}). `*out` receives the
 * whole pool with the fault appended; nothing else of the object changes. The edited pool is
 * decoded and expanded before it is accepted. Errors: DRAFORGE_EINVALID naming the field for a bad
 * fault or a device or node the pool does not have, and for a pool that does not decode; also for
 * a fault name the pool already has. */
DRAFORGE_API int draforge_sim_fault_inject(draforge_buffer *out, const char *pool_json, size_t pool_size,
                                           const char *fault_json, size_t fault_size, draforge_error **error);

/* Removes the fault called `name`; `*out` receives the pool (spec.faults itself removed when it
 * becomes empty, so the object is what it was before the first injection). Errors:
 * DRAFORGE_ENOTFOUND when the pool has no such fault (the message lists the ones it has),
 * DRAFORGE_EINVALID for a pool that does not decode. */
DRAFORGE_API int draforge_sim_fault_clear(draforge_buffer *out, const char *pool_json, size_t size, const char *name,
                                          draforge_error **error);

/* Removes every fault; `*out` receives the pool and `*cleared` (may be NULL) how many there were.
 * Errors: DRAFORGE_EINVALID for a pool that does not decode. */
DRAFORGE_API int draforge_sim_fault_clear_all(draforge_buffer *out, int64_t *cleared, const char *pool_json,
                                              size_t size, draforge_error **error);

/* The faults of a pool, in spec order, as a JSON array in `*out`: [{"name","type","description"}],
 * the description one line saying what the fault does ("taint gpu.nvidia.com/xid=48:NoSchedule on
 * gpu-0 of node-1"). Errors: DRAFORGE_EINVALID for a pool that does not decode. */
DRAFORGE_API int draforge_sim_faults_json(draforge_buffer *out, const char *pool_json, size_t size,
                                          draforge_error **error);

/* How draforge_sim_scenario_plan() treats SimulatedDevicePools. */
typedef enum draforge_sim_scenario_mode {
  DRAFORGE_SIM_SCENARIO_SLICES = 0, /* replaced by the ResourceSlices they expand to */
  DRAFORGE_SIM_SCENARIO_POOLS = 1   /* created as they are, for draforge-controller */
} draforge_sim_scenario_mode;

/* The kinds a scenario creates, in creation order (a reset deletes them in the reverse order), as a
 * JSON array in `*out`: [{"kind","group","version","resource","namespaced"}], the API resource each
 * is written to. Errors: DRAFORGE_EINVALID for a NULL `out`. */
DRAFORGE_API int draforge_sim_scenario_kinds_json(draforge_buffer *out, draforge_error **error);

/* The plan for applying a scenario. `objects` is JSON or YAML text as draforge_objects_parse() reads
 * it (one object, a stream of documents, a List, or a JSON array of objects); `scenario` a valid
 * name (draforge_sim_scenario_name_valid). Every pool is expanded first, in both modes, so a pool
 * that would not publish stops the plan. `*out` receives {"writes":[{"kind","apiVersion",
 * "namespace" ("" when cluster-scoped),"name","ref" ("deviceclass/NAME","resourceclaim/NS/NAME"),
 * "group","version","resource","namespaced","body"}],"notes":[...]}: writes in creation order, each
 * body labelled with the scenario label and without status or server-set metadata; notes say what
 * was left out on purpose. Errors (nothing planned): DRAFORGE_EINVALID for an invalid name, an
 * object that does not decode, a pool that does not expand, or a kind a scenario does not create. */
DRAFORGE_API int draforge_sim_scenario_plan(draforge_buffer *out, const char *objects, size_t size,
                                            const char *scenario, draforge_sim_scenario_mode mode,
                                            draforge_error **error);

/* Sets `*owned` to 1 when `object_json` (a whole object as a cluster returns it) carries
 * DRAFORGE_SIM_SCENARIO_LABEL=`scenario`, else 0: apply only overwrites, and reset only deletes,
 * such objects. Errors: DRAFORGE_EINVALID for NULL arguments or text that is not JSON. */
DRAFORGE_API int draforge_sim_scenario_owns(int *owned, const char *object_json, size_t size, const char *scenario,
                                            draforge_error **error);

/* A scenario name from a file or folder path into `*out`: the last element without its extension
 * (for scenario.<ext>, its folder's name), lower-cased, other characters than letters, digits, '-',
 * '_' and '.' replaced by '-', trimmed to 63 characters, alphanumeric at both ends. The file system
 * is not read. May be "" (the caller must then ask for a name). Errors: DRAFORGE_EINVALID for NULL. */
DRAFORGE_API int draforge_sim_scenario_name_from_path(draforge_buffer *out, const char *path,
                                                      draforge_error **error);

/* 1 when `name` is a valid scenario name (a label value: 1 to 63 letters, digits, '-', '_' or '.',
 * alphanumeric at both ends), else 0 (also for NULL). */
DRAFORGE_API int draforge_sim_scenario_name_valid(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_SIM_H */
