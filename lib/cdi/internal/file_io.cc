#include "cdi/internal/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace draforge::cdi::internal {
namespace {

absl::StatusOr<std::string> ReadFd(int fd, const std::string& path, size_t max_bytes) {
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "reading", path);
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat("reading ", path, ": larger than ", max_bytes, " bytes"));
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace

absl::Status ErrnoStatus(int err, std::string_view what, std::string_view path) {
  char buf[256];
  // GNU strerror_r returns the message (possibly not in buf).
  const char* reason = strerror_r(err, buf, sizeof buf);
  std::string message = absl::StrCat(AV(what), " ", AV(path), ": ", reason);
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return absl::ResourceExhaustedError(message);
    default:
      return absl::UnavailableError(message);
  }
}

absl::StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "opening", path);
  auto out = ReadFd(fd, path, max_bytes);
  close(fd);
  return out;
}

absl::StatusOr<std::string> ReadFileAt(int dir_fd, const std::string& name, const std::string& path_for_errors,
                                       size_t max_bytes) {
  const int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "opening", path_for_errors);
  auto out = ReadFd(fd, path_for_errors, max_bytes);
  close(fd);
  return out;
}

absl::StatusOr<std::vector<DirEntry>> ListDirectory(const std::string& path) {
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return ErrnoStatus(errno, "opening directory", path);
  std::vector<DirEntry> out;
  for (;;) {
    errno = 0;
    const dirent* e = readdir(dir);
    if (e == nullptr) {
      const int err = errno;
      closedir(dir);
      if (err != 0) return ErrnoStatus(err, "reading directory", path);
      break;
    }
    const std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    DirEntry entry;
    entry.name = std::string(name);
    struct stat st;
    if (fstatat(dirfd(dir), e->d_name, &st, 0) == 0) {
      entry.regular = S_ISREG(st.st_mode);
      entry.mode = st.st_mode & 07777;
    }
    out.push_back(std::move(entry));
  }
  std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return out;
}

bool HasSuffix(std::string_view name, std::string_view suffix) {
  return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
}

}  // namespace draforge::cdi::internal
