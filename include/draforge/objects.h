/* DRAForge C ABI: decoding, inspecting and encoding Kubernetes objects (draforge_objects).
 *
 * Thread-safety: a draforge_objects handle is immutable once parsed or loaded and may be read from
 * several threads at once.
 */
#ifndef DRAFORGE_OBJECTS_H
#define DRAFORGE_OBJECTS_H

#include "draforge/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A set of decoded Kubernetes objects (DRA kinds, Pods, Nodes, and other kinds kept opaque).
 * Destroy with draforge_objects_destroy(). */
typedef struct draforge_objects draforge_objects;

typedef enum draforge_format { DRAFORGE_FORMAT_JSON = 0, DRAFORGE_FORMAT_YAML = 1 } draforge_format;

/* Decodes JSON or YAML text (one object, several YAML documents, or List kinds) into `*out`. Every
 * object must decode: the first that does not fails the call with its message (file-independent:
 * "ResourceSlice \"x\": spec.driver: expected string, got integer"). */
DRAFORGE_API int draforge_objects_parse(draforge_objects **out, const char *data, size_t size,
                                        draforge_error **error);
/* Frees `objects`; NULL is a no-op. */
DRAFORGE_API void draforge_objects_destroy(draforge_objects *objects);
/* The number of objects. */
DRAFORGE_API size_t draforge_objects_count(const draforge_objects *objects);
/* The kind ("ResourceSlice"), apiVersion as read, and "namespace/name" (or "name") of object `index`,
 * borrowed from `objects`; NULL when `index` is out of range. */
DRAFORGE_API const char *draforge_objects_kind(const draforge_objects *objects, size_t index);
DRAFORGE_API const char *draforge_objects_api_version(const draforge_objects *objects, size_t index);
DRAFORGE_API const char *draforge_objects_key(const draforge_objects *objects, size_t index);
/* Encodes object `index` into `*out` as `format`, converting DRA objects to `api_version`
 * ("resource.k8s.io/v1", ...; NULL or "" keeps the version it was read in). */
DRAFORGE_API int draforge_objects_encode(draforge_buffer *out, const draforge_objects *objects, size_t index,
                                         const char *api_version, draforge_format format, draforge_error **error);

/* How draforge_objects_load reads its sources. Initialise with DRAFORGE_LOAD_OPTIONS_INIT or
 * draforge_load_options_init(); fields are only ever appended. */
typedef struct draforge_load_options {
  unsigned int version;
  /* Unknown fields are errors (kubectl's --validate=strict) instead of warnings. Default 0. */
  int strict;
  /* The largest file (and standard input) accepted, in bytes; 0: the default, 32 MiB. */
  size_t max_bytes;
  /* The text of standard input, for the path "-" (the library never reads standard input itself:
   * the caller reads it and passes it here). NULL: "-" is an error. Borrowed for the call only. */
  const char *stdin_data;
  size_t stdin_size;
} draforge_load_options;

#define DRAFORGE_LOAD_OPTIONS_VERSION 1
#define DRAFORGE_LOAD_OPTIONS_INIT {DRAFORGE_LOAD_OPTIONS_VERSION, 0, 0, NULL, 0}

/* Initialises `options` as DRAFORGE_LOAD_OPTIONS_INIT does. Errors: DRAFORGE_EINVALID for NULL or a
 * version this library does not know. */
DRAFORGE_API int draforge_load_options_init(draforge_load_options *options, unsigned int version);

/* Reads the manifests `paths[0..count)` into `*out` (the caller's), as `kubectl apply -f` without -R
 * does: "-" is standard input (options->stdin_data); a directory contributes its regular .yaml,
 * .yml and .json files, sorted by name, not recursively; anything else is read as a file. Objects
 * keep the order of the sources; List kinds are expanded.
 *
 * The call fails (nothing in `*out`) when a source cannot be read (DRAFORGE_ENOTFOUND), is larger
 * than options->max_bytes (DRAFORGE_ELIMIT) or is not JSON/YAML (DRAFORGE_EINVALID); the message
 * starts with the source's name. An object that does not decode does NOT fail the call: it is kept
 * in the set with its message (draforge_objects_error), so that a caller can report every bad object
 * at once; such an entry has an empty key and cannot be encoded, validated or applied. `options` may
 * be NULL (defaults; "-" is then an error). */
DRAFORGE_API int draforge_objects_load(draforge_objects **out, const char *const *paths, size_t count,
                                       const draforge_load_options *options, draforge_error **error);
/* Where object `index` came from: the source's path (or "<stdin>"; "" for draforge_objects_parse),
 * borrowed from `objects`; NULL when `index` is out of range. */
DRAFORGE_API const char *draforge_objects_source(const draforge_objects *objects, size_t index);
/* The position of object `index` within its source (from 0, after expanding Lists) and the line its
 * YAML document starts on (from 1); both 0 when `index` is out of range. */
DRAFORGE_API size_t draforge_objects_position(const draforge_objects *objects, size_t index);
DRAFORGE_API size_t draforge_objects_line(const draforge_objects *objects, size_t index);
/* Why object `index` could not be decoded (borrowed), or NULL when it was decoded (or `index` is out
 * of range). The message names the object and field ("ResourceSlice \"x\": spec.driver: ..."). */
DRAFORGE_API const char *draforge_objects_error(const draforge_objects *objects, size_t index);
/* The decoder's warnings about object `index` (unknown fields when not strict): their number, and
 * warning `warning` borrowed from `objects` (NULL when out of range). */
DRAFORGE_API size_t draforge_objects_warning_count(const draforge_objects *objects, size_t index);
DRAFORGE_API const char *draforge_objects_warning(const draforge_objects *objects, size_t index, size_t warning);

/* Validates object `index` as the API server validates a create request, into `*out` as JSON:
 *   {"valid":true|false,"message":"ResourceSlice.resource.k8s.io \"x\" is invalid: [...]",
 *    "errors":[{"field":"spec.driver","type":"Invalid value","value":"\"Foo\"","detail":"...",
 *               "error":"spec.driver: Invalid value: \"Foo\": ..."}]}
 * "message" is "" when valid. Only DRA kinds are validated; Pods, Nodes, ResourcePoolStatusRequests
 * and other kinds are always valid. Errors: DRAFORGE_ENOTFOUND for an index out of range,
 * DRAFORGE_EINVALID for an entry that did not decode (draforge_objects_error). */
DRAFORGE_API int draforge_objects_validate_json(draforge_buffer *out, const draforge_objects *objects, size_t index,
                                                draforge_error **error);

/* Re-serialises the JSON text `data[0..size)` as `format` into `*out`: JSON indented by two spaces
 * (the layout of the API server's fixtures and `kubectl get -o json`), or YAML as kubectl prints it
 * (block style, keys sorted, strings quoted only where YAML needs it). For front ends
 * that build documents (a List of objects, a result) and print them as kubectl would. Errors:
 * DRAFORGE_EINVALID for text that is not JSON (line:column in the message). */
DRAFORGE_API int draforge_json_reformat(draforge_buffer *out, const char *data, size_t size, draforge_format format,
                                        draforge_error **error);

/* The kind `name` names as kubectl accepts it (case-insensitive kind, singular or plural resource,
 * "po"/"no"), into `*out` as JSON: {"kind":"ResourceSlice","resource":"resourceslices",
 * "namespaced":false}. For front ends that take a kind on their command line or in a URL and must
 * know it before reading any object. Errors: DRAFORGE_EUNSUPPORTED for a kind DRAForge does not
 * model (message "unknown kind \"...\""), DRAFORGE_EINVALID for NULL arguments. Thread-safe. */
DRAFORGE_API int draforge_kind_info_json(draforge_buffer *out, const char *name, draforge_error **error);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_OBJECTS_H */
