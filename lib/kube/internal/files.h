// Small file helpers for lib/kube (reading credentials; lib/kube never writes files).
#ifndef DRAFORGE_KUBE_INTERNAL_FILES_H_
#define DRAFORGE_KUBE_INTERNAL_FILES_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace draforge::kube::internal {

// Kubeconfigs, certificates, keys and tokens are kilobytes; a path that names something endless
// (/dev/zero, a FIFO that never closes its write end aside) must not exhaust memory.
inline constexpr size_t kMaxFileBytes = size_t{16} << 20;

// The whole file, at most kMaxFileBytes. Errors: NotFound when it does not exist, PermissionDenied,
// ResourceExhausted when it is larger, or Internal for other read errors; messages name `what`
// ("client-key of user \"admin\"") and the path.
absl::StatusOr<std::string> ReadFileText(const std::string& path, std::string_view what);

// `path` joined to `base_dir` unless it is absolute (or base_dir is empty).
std::string ResolvePath(std::string_view base_dir, std::string_view path);

// The folder of `path` ("." when none).
std::string DirName(std::string_view path);

}  // namespace draforge::kube::internal

#endif  // DRAFORGE_KUBE_INTERNAL_FILES_H_
