/* DRAForge C ABI: Container Device Interface (CDI) specs for the claims allocated on a node, their
 * validation, and crash-safe writing (what a DRA node plugin prepares for the container runtime).
 *
 * Thread-safety: a draforge_cdi_specs handle is immutable and may be read from several threads.
 * Writing the same directory from several threads or processes is safe: each file is replaced
 * whole (temporary file, fsync, rename), the last writer wins.
 */
#ifndef DRAFORGE_CDI_H
#define DRAFORGE_CDI_H

#include "draforge/cluster.h"
#include "draforge/common.h"
#include "draforge/objects.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options of the CDI calls. Initialise with DRAFORGE_CDI_OPTIONS_INIT or draforge_cdi_options_init(). */
typedef struct draforge_cdi_options {
  unsigned int version; /* DRAFORGE_CDI_OPTIONS_VERSION */
  /* Comma-separated drivers whose devices get specs (a node plugin serves one driver); NULL or "":
   * every driver. */
  const char *drivers;
  /* The newest cdiVersion the node's runtimes accept; NULL or "": "0.5.0". A spec that needs a newer
   * version is a failure of its claim (generate) or a problem (validate), never a downgrade. */
  const char *max_version;
  /* Validation level of draforge_cdi_validate(): 0 strict (what DRAForge writes: canonical names,
   * exact minimum cdiVersion), 1 compatible (what released container runtimes accept). */
  int compat;
  /* Since version 2: how every driver's kind and device edits are built (generate, sync, audit).
   * The kind's vendor; NULL or "": "k8s.<driver>". */
  const char *vendor;
  /* The kind's class (lowercase letters, digits, '-'); NULL or "": "draforge". */
  const char *cdi_class;
  /* An absolute host directory: each device also gets a read-only bind mount of
   * "<metadata_dir>/<CDI device name>.json" at "/var/run/draforge/devices/<request>/<device>.json";
   * NULL or "": none. */
  const char *metadata_dir;
} draforge_cdi_options;

#define DRAFORGE_CDI_OPTIONS_VERSION 2
#define DRAFORGE_CDI_OPTIONS_INIT {DRAFORGE_CDI_OPTIONS_VERSION, NULL, NULL, 0, NULL, NULL, NULL}

/* Fills `options` with the defaults of `version`, writing only the fields that `version` has (a
 * caller built against an older header may pass its own version). Errors: DRAFORGE_EINVALID for
 * NULL or an unknown version. */
DRAFORGE_API int draforge_cdi_options_init(draforge_cdi_options *options, unsigned int version);

/* The CDI specs of one node: one spec per (claim, driver). Destroy with draforge_cdi_specs_destroy(). */
typedef struct draforge_cdi_specs draforge_cdi_specs;

/* Builds the specs for the claims of `snapshot` allocated on `node` into `*out` (every spec valid
 * for the strict level). Claims whose spec cannot be built (no UID, a spec above max_version) are
 * listed as failures in draforge_cdi_specs_json(), not errors. `options` may be NULL. Errors:
 * DRAFORGE_EINVALID for an empty node or bad options. */
DRAFORGE_API int draforge_cdi_generate(draforge_cdi_specs **out, const draforge_snapshot *snapshot, const char *node,
                                       const draforge_cdi_options *options, draforge_error **error);
/* Frees `specs`; NULL is a no-op. */
DRAFORGE_API void draforge_cdi_specs_destroy(draforge_cdi_specs *specs);
/* The number of specs. */
DRAFORGE_API size_t draforge_cdi_specs_count(const draforge_cdi_specs *specs);
/* The file name of spec `index` ("k8s.gpu.example.com-draforge_<claimUID>.json"), borrowed from
 * `specs`; NULL when out of range. */
DRAFORGE_API const char *draforge_cdi_specs_file_name(const draforge_cdi_specs *specs, size_t index);
/* The CDI document of spec `index` (JSON, as written to disk) in `*out`. Errors: DRAFORGE_ENOTFOUND
 * when `index` is out of range. */
DRAFORGE_API int draforge_cdi_specs_document(draforge_buffer *out, const draforge_cdi_specs *specs, size_t index,
                                             draforge_error **error);
/* A summary as JSON in `*out`: {"node","specs":[{"claim":"ns/name","claimUID","driver","fileName",
 * "requests":[{"request","cdiDeviceIDs":[...]}]}],"failed":[{"claim","claimUID","driver","fileName",
 * "message"}]}. The cdiDeviceIDs are what NodePrepareResources returns to the kubelet. */
DRAFORGE_API int draforge_cdi_specs_json(draforge_buffer *out, const draforge_cdi_specs *specs,
                                         draforge_error **error);
/* Makes directory `dir` hold exactly these specs among the files DRAForge owns there (other files
 * are never touched): each file is replaced atomically, stale ones removed. `report` (may be NULL)
 * receives {"written":[...],"unchanged":[...],"removed":[...],"failed":[{"fileName","message"}]}.
 * A file that fails keeps its previous document; the call then returns DRAFORGE_EINVALID or the
 * failure's code with every failure in the message, after doing all it could. Errors also:
 * DRAFORGE_ENOTFOUND, DRAFORGE_EINTERNAL (I/O) when the directory cannot be created or listed. */
DRAFORGE_API int draforge_cdi_specs_write(const draforge_cdi_specs *specs, const char *dir, draforge_buffer *report,
                                          draforge_error **error);

/* Validates one CDI spec document (`format`: JSON or YAML) as a container runtime reads it. Sets
 * `*valid` to 1 or 0 and, when `problems` is not NULL, stores every problem there as a JSON array
 * [{"path":"$.devices[0].name","message":"..."}] (empty when valid). An invalid document is a
 * result, not an error. Errors: DRAFORGE_EINVALID for NULL arguments or bad options. */
DRAFORGE_API int draforge_cdi_validate(int *valid, draforge_buffer *problems, const char *data, size_t size,
                                       draforge_format format, const draforge_cdi_options *options,
                                       draforge_error **error);

/* Every released cdiVersion, oldest first ("0.1.0" ... the newest DRAForge models), as a JSON array
 * in `*out`. Errors: DRAFORGE_EINVALID for a NULL `out`. */
DRAFORGE_API int draforge_cdi_known_versions_json(draforge_buffer *out, draforge_error **error);

/* Makes directory `dir` hold exactly these specs among the files DRAForge owns there, as
 * draforge_cdi_specs_write(), with each file checked against the max_version the specs were built
 * for. A file that cannot be written is a result, not an error: it keeps its previous document and
 * is listed in `*report` ({"written","unchanged","removed","failed":[{"fileName","message"}]}).
 * Errors: DRAFORGE_EINVALID for NULL arguments; DRAFORGE_ENOTFOUND or DRAFORGE_EINTERNAL (I/O) when
 * the directory cannot be created or listed. */
DRAFORGE_API int draforge_cdi_specs_sync(draforge_buffer *report, const draforge_cdi_specs *specs, const char *dir,
                                         draforge_error **error);

/* Audits a node's CDI directory against the claims of `snapshot` allocated on `node`: which of
 * DRAForge's files belong to claims no longer there ("stale"), which claims have no file
 * ("missing"), which files differ from what the allocation requires ("out of date"), and which
 * claims' specs cannot be built ("failed"). `options` must be those the directory was written with
 * (drivers, vendor, class, metadata_dir, max_version); NULL: the defaults. `*out` receives
 * {"node","directory","inSync":[file,...],"findings":[{"status","file","namespace","name","uid",
 * "driver","message"}]}: findings sorted by file; differences are results. Other files are never
 * judged. Errors: DRAFORGE_EINVALID for an empty node or bad options; DRAFORGE_ENOTFOUND or
 * DRAFORGE_EINTERNAL when the directory cannot be listed. The directory is only read. */
DRAFORGE_API int draforge_cdi_audit(draforge_buffer *out, const draforge_snapshot *snapshot, const char *node,
                                    const char *dir, const draforge_cdi_options *options, draforge_error **error);

/* Validates every ".json" and ".yaml" file of directory `dir` as a runtime loads it (also the rule
 * across files: one device defined in two files is dropped from both; with the strict level, file
 * modes other than 0644 and leftover temporary files). `*out` receives [{"file","problems":[{"path",
 * "message"}]}] sorted by file name, files without problems included. Invalid files are results.
 * Errors: DRAFORGE_ENOTFOUND or DRAFORGE_EINTERNAL when the directory cannot be listed. */
DRAFORGE_API int draforge_cdi_validate_directory(draforge_buffer *out, const char *dir,
                                                 const draforge_cdi_options *options, draforge_error **error);

/* Validates the CDI spec file at `path` as draforge_cdi_validate() does, its format taken from its
 * name as runtimes take it (".yaml": YAML, anything else: JSON). Errors: DRAFORGE_ENOTFOUND
 * ("cannot open PATH") or DRAFORGE_EINTERNAL ("cannot read PATH") when the file cannot be read. */
DRAFORGE_API int draforge_cdi_validate_file(int *valid, draforge_buffer *problems, const char *path,
                                            const draforge_cdi_options *options, draforge_error **error);

/* ---------------------------------------------------------------------------------------------
 * One claim at a time, as a DRA node plugin prepares what the kubelet names
 * (NodePrepareResources / NodeUnprepareResources). Each call is independent and may run on any
 * thread; calls on one directory may overlap (each file is replaced whole).
 * ------------------------------------------------------------------------------------------- */

/* The CDI spec of one ResourceClaim (`claim`: `size` bytes of its JSON, resource.k8s.io v1, v1beta2
 * or v1beta1, as the API server returns it) for `driver` on `node`: the same file name, document
 * and IDs that draforge_cdi_generate() gives the claim on that node. `*out` receives
 * {"claim":"ns/name","namespace","name","claimUID","driver","node","fileName","document":"<the CDI
 * document as written to disk>","devices":[{"requests":["<request>"],"pool","device","shareID"
 * (only when set),"cdiDeviceIDs":["<vendor>/<class>=<name>"]}]}: one device per allocation result
 * of the driver, in result order, as NodePrepareResources returns them (dra/v1 Device). A claim whose
 * allocation's nodeSelector names no single node (none, labels) is accepted on any node. `options`
 * may be NULL (drivers is ignored: `driver` decides). Errors, each naming the claim as
 * "ResourceClaim ns/name (uid U): ...": DRAFORGE_EUNSUPPORTED when the claim is not allocated, is
 * allocated for another node (both nodes named) or has no result of `driver`; DRAFORGE_EINVALID for
 * NULL arguments, an empty node or driver, bad options, JSON that is not a ResourceClaim, an
 * incomplete result, an empty UID or a spec that is not valid. */
DRAFORGE_API int draforge_cdi_claim_spec_json(draforge_buffer *out, const char *claim, size_t size, const char *node,
                                              const char *driver, const draforge_cdi_options *options,
                                              draforge_error **error);

/* The static spec of the devices of `driver` in the ResourceSlices of `node` (spec.nodeName; each
 * pool's newest generation): one CDI device per device, named as the device, each setting
 * DRAFORGE_DEVICE_<NAME>=<driver>/<pool>/<device>. Its file name is "<vendor>-<class>.json", which
 * never collides with a claim's file, and draforge_cdi_specs_write()/_sync() never remove it. `*out`
 * receives {"node","driver","fileName","document"}. `options` may be NULL. Errors:
 * DRAFORGE_ENOTFOUND when the node has no device of the driver; DRAFORGE_EINVALID for NULL
 * arguments, an empty node or driver, bad options, or a device name two pools of the node share. */
DRAFORGE_API int draforge_cdi_node_spec_json(draforge_buffer *out, const draforge_snapshot *snapshot, const char *node,
                                             const char *driver, const draforge_cdi_options *options,
                                             draforge_error **error);

/* Writes the CDI document `data` (`size` bytes of JSON, e.g. a "document" of the calls above kept
 * in a node plugin's checkpoint) as `dir`/`file_name`, crash-safely as draforge_cdi_specs_write()
 * writes each file, after validating it at the strict level against `options`' max_version (NULL:
 * the defaults): nothing is written for a document that fails. The directory (and its parents) is
 * created with mode 0755 when missing. A file that already holds exactly these bytes with mode
 * 0644 is not touched: `*written` (may be NULL) is then 0, else 1. `file_name` is a plain name
 * ending in ".json" not starting with '.'. Errors, naming the file: DRAFORGE_EINVALID for NULL
 * arguments, a bad file name or an invalid document (every problem with its JSON path); I/O errors
 * as draforge_file_write_atomic() (a read-only directory: a negative code, the previous file
 * stays). */
DRAFORGE_API int draforge_cdi_spec_file_write(int *written, const char *dir, const char *file_name, const char *data,
                                              size_t size, const draforge_cdi_options *options,
                                              draforge_error **error);

/* Removes the spec file `dir`/`file_name` (a plain name ending in ".json" or ".yaml", not starting
 * with '.') and fsyncs the directory, so that the removal survives a crash. A missing file is
 * success (removal is idempotent). Errors: DRAFORGE_EINVALID for NULL arguments or any other name
 * (nothing is removed); I/O errors as draforge_file_write_atomic(), naming the file. */
DRAFORGE_API int draforge_cdi_spec_file_remove(const char *dir, const char *file_name, draforge_error **error);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_CDI_H */
