#include "kube/internal/files.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace draforge::kube::internal {

absl::StatusOr<std::string> ReadFileText(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    std::string msg = absl::StrCat(AV(what), ": cannot read ", path, ": ", std::strerror(err));
    if (err == ENOENT) return absl::NotFoundError(msg);
    if (err == EACCES) return absl::PermissionDeniedError(msg);
    return absl::InternalError(msg);
  }
  std::string data;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    data.append(buf, static_cast<size_t>(in.gcount()));
    if (data.size() > kMaxFileBytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat(AV(what), ": ", path, " is larger than ", kMaxFileBytes, " bytes"));
    }
  }
  if (in.bad()) return absl::InternalError(absl::StrCat(AV(what), ": error reading ", path));
  return data;
}

std::string ResolvePath(std::string_view base_dir, std::string_view path) {
  if (path.empty() || path.front() == '/' || base_dir.empty()) return std::string(path);
  std::string out(base_dir);
  if (out.back() != '/') out.push_back('/');
  out.append(path);
  return out;
}

std::string DirName(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

}  // namespace draforge::kube::internal
