/* DRAForge C ABI: decoding, inspecting and encoding Kubernetes objects (draforge_objects).
 *
 * Thread-safety: a draforge_objects handle is immutable once parsed and may be read from several
 * threads at once.
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

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_OBJECTS_H */
