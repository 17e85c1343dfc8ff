// Small file helpers for lib/kube (reading credentials; lib/kube never writes files).
#ifndef DRAFORGE_KUBE_INTERNAL_FILES_H_
#define DRAFORGE_KUBE_INTERNAL_FILES_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace draforge::kube::internal {

// The whole file. Errors: NotFound when it does not exist, PermissionDenied, or Internal for other
// read errors; messages name `what` ("client-key of user \"admin\"") and the path.
absl::StatusOr<std::string> ReadFileText(const std::string& path, std::string_view what);

// `path` joined to `base_dir` unless it is absolute (or base_dir is empty).
std::string ResolvePath(std::string_view base_dir, std::string_view path);

// The folder of `path` ("." when none).
std::string DirName(std::string_view path);

}  // namespace draforge::kube::internal

#endif  // DRAFORGE_KUBE_INTERNAL_FILES_H_
