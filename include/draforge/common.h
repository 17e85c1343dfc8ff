/* DRAForge C ABI: visibility, error codes, errors and buffers shared by every public C header.
 *
 * Conventions (see docs/api-stability.md):
 *  - Every fallible call returns int: DRAFORGE_OK (0) or a negative draforge_error_code, and fills
 *    `*error` (when `error` is not NULL) with an error object that the caller destroys with
 *    draforge_error_destroy().
 *  - What comes back through `T **out` belongs to the caller; each handle type's doc names its destroy
 *    call, and destroying NULL is a no-op. Strings returned by value are borrowed from their handle.
 *  - Owned bytes come back in a draforge_buffer; release them with draforge_buffer_dispose().
 */
#ifndef DRAFORGE_COMMON_H
#define DRAFORGE_COMMON_H

#include <stddef.h>

#if defined(_WIN32)
#define DRAFORGE_API __declspec(dllexport)
#else
#define DRAFORGE_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes. Values are never reused. "Does not fit" results are not errors. */
typedef enum draforge_error_code {
  DRAFORGE_OK = 0,
  DRAFORGE_EINVALID = -1,     /* bad input: malformed document, wrong type, invalid argument */
  DRAFORGE_ENOTFOUND = -2,    /* a named object, file or index does not exist */
  DRAFORGE_EUNSUPPORTED = -3, /* well-formed but unusable: unsupported apiVersion or kind */
  DRAFORGE_ELIMIT = -4,       /* a size or cost limit was exceeded */
  DRAFORGE_EINTERNAL = -5,    /* a bug in DRAForge */
  /* Since 0.1 (kube.h): the Kubernetes API server answered with an error status; its HTTP code and
   * reason: draforge_kube_error_status_code(), draforge_kube_error_reason(). */
  DRAFORGE_EAPI = -6,
  /* Since 0.1 (kube.h): the API server could not be reached or did not answer in time, or the
   * call's deadline had passed before it could be sent. */
  DRAFORGE_EUNAVAILABLE = -7,
  /* Since 0.1: the operating system refused or failed a file operation on a path the caller named
   * (permission denied, a read-only file system, an I/O error); the message names the path. */
  DRAFORGE_EIO = -8
} draforge_error_code;

/* An error: a code and a readable message naming the object and field where it applies. */
typedef struct draforge_error draforge_error;

/* The error's code (never DRAFORGE_OK). */
DRAFORGE_API int draforge_error_code_of(const draforge_error *error);
/* The message, borrowed from `error` (valid until draforge_error_destroy). */
DRAFORGE_API const char *draforge_error_message(const draforge_error *error);
/* The object the error is about, as "Kind/name" or "Kind/namespace/name" ("ResourceSlice/gpu-0"),
 * borrowed from `error`; "" when the error is not about one object. */
DRAFORGE_API const char *draforge_error_object(const draforge_error *error);
/* The field path within that object ("spec.devices[0].name"), borrowed from `error`; "" when the
 * error names no field. */
DRAFORGE_API const char *draforge_error_field(const draforge_error *error);
/* Frees `error`; NULL is a no-op. */
DRAFORGE_API void draforge_error_destroy(draforge_error *error);

/* Bytes owned by the caller. `ptr` is NUL-terminated (not counted in `size`). */
typedef struct draforge_buffer {
  char *ptr;
  size_t size;
} draforge_buffer;

/* Releases the buffer's memory and zeroes it; a zeroed buffer is a no-op. */
DRAFORGE_API void draforge_buffer_dispose(draforge_buffer *buffer);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_COMMON_H */
