/* DRAForge C ABI: writing files crash-safely (the library's one atomic writer, also behind the CDI
 * spec writer).
 *
 * Thread-safety: the call may run concurrently with itself, also on the same path: each writer has
 * its own temporary file and the last rename wins, whole.
 */
#ifndef DRAFORGE_FILES_H
#define DRAFORGE_FILES_H

#include "draforge/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Replaces the file `path` by `size` bytes of `data` with permission bits `mode` (e.g. 0644,
 * applied whatever the umask), so that at every moment `path` is either the previous complete file
 * or the new one, also across a crash or power loss: the bytes go to a temporary file in the same
 * directory (".<name>.<16 hex digits>.tmp"), which is fsynced, the directory fsynced, the file
 * renamed over `path` and the directory fsynced again. The directory must exist; a symlink at `path`
 * is replaced, not followed. On failure the temporary file is removed and the previous file stays.
 * `data` may be NULL when `size` is 0 (an empty file).
 * Errors (each naming the path and the system's reason): DRAFORGE_EINVALID for a NULL or empty path,
 * a path ending in '/' or a mode beyond 07777; DRAFORGE_ENOTFOUND for a missing directory;
 * DRAFORGE_ELIMIT for a full disk or quota; another negative code for other I/O errors (permission
 * denied, read-only file system). */
DRAFORGE_API int draforge_file_write_atomic(const char *path, const char *data, size_t size, unsigned int mode,
                                            draforge_error **error);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_FILES_H */
