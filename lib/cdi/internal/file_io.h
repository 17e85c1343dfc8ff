// POSIX file helpers for lib/cdi (private). Every error names the path and the system's reason.
#ifndef DRAFORGE_CDI_INTERNAL_FILE_IO_H_
#define DRAFORGE_CDI_INTERNAL_FILE_IO_H_

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace draforge::cdi::internal {

// kNotFound for ENOENT, kPermissionDenied for EACCES/EPERM/EROFS, kResourceExhausted for
// ENOSPC/EDQUOT/EFBIG, kUnavailable otherwise: "<what> <path>: <strerror>".
absl::Status ErrnoStatus(int err, std::string_view what, std::string_view path);

// Reads a whole file (at most `max_bytes`; larger is kResourceExhausted).
absl::StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes);
// Reads `name` in the open directory `dir_fd`; ENOENT gives kNotFound.
absl::StatusOr<std::string> ReadFileAt(int dir_fd, const std::string& name, const std::string& path_for_errors,
                                       size_t max_bytes);

struct DirEntry {
  std::string name;
  bool regular = false;  // a regular file, or a symlink to one (runtimes follow symlinks)
  mode_t mode = 0;       // permission bits of the (followed) file
};
// The entries of directory `path` other than "." and "..", sorted by name.
absl::StatusOr<std::vector<DirEntry>> ListDirectory(const std::string& path);

// Whether `name` ends in `suffix`.
bool HasSuffix(std::string_view name, std::string_view suffix);

}  // namespace draforge::cdi::internal

#endif  // DRAFORGE_CDI_INTERNAL_FILE_IO_H_
