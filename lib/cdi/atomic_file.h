// Crash-safe replacement of a whole file: the one atomic writer of DRAForge (lib/cdi is the only
// code that writes files). CDI specs (cdi/writer.h) and any other file a front end writes (the C
// ABI's draforge_file_write_atomic: `draforge dump -o`, `draforge fault --in-place`) go through it.
//
// The bytes go to a temporary file in the target's directory (".<file>.<16 hex digits>.tmp", created
// O_EXCL, locked with flock by its writer so that a sweeper can tell an abandoned one), are written
// fully with the requested mode whatever the umask and fsynced; the directory is fsynced (a
// directory that cannot be synced fails the write while the previous file still stands), the file
// renamed over the target, and the directory fsynced again. At every moment the target is the
// previous complete file or the new one; on any failure the temporary file is removed.
#ifndef DRAFORGE_CDI_ATOMIC_FILE_H_
#define DRAFORGE_CDI_ATOMIC_FILE_H_

#include <sys/types.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace draforge::cdi {

// Replaces `file_name` (a plain name) in the open directory `dir_fd` by `bytes` with permission bits
// `mode`; messages name `target` (the file's path). Errors as WriteFileAtomic's.
absl::Status ReplaceFileAt(int dir_fd, const std::string& file_name, const std::string& target, std::string_view bytes,
                           mode_t mode);

// Replaces the file `path` by `bytes` with permission bits `mode` (e.g. 0644). The directory must
// exist; a symlink at `path` is replaced, not followed. Errors, each naming the path:
// kInvalidArgument for an empty path, one ending in '/', or a mode beyond 07777; kNotFound for a
// missing directory; kPermissionDenied for a read-only or unwritable directory; kResourceExhausted
// for a full disk or quota; kUnavailable for other I/O errors. The previous file is left intact.
absl::Status WriteFileAtomic(const std::string& path, std::string_view bytes, mode_t mode);

}  // namespace draforge::cdi

#endif  // DRAFORGE_CDI_ATOMIC_FILE_H_
