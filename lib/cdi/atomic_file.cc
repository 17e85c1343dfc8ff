#include "cdi/atomic_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "cdi/internal/fd.h"
#include "cdi/internal/file_io.h"
#include "common/status.h"

namespace draforge::cdi {
namespace {

std::string RandomHex() {
  uint64_t r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof r)) {
    // No entropy yet (early boot): O_EXCL still guarantees a private file; vary by address and pid.
    r = reinterpret_cast<uintptr_t>(&r) ^ (static_cast<uint64_t>(getpid()) << 32);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (size_t i = 0; i < out.size(); ++i) out[i] = kHex[(r >> (4 * i)) & 15];
  return out;
}

absl::Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return internal::ErrnoStatus(errno, "writing", path);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReplaceFileAt(int dir_fd, const std::string& file_name, const std::string& target, std::string_view bytes,
                           mode_t mode) {
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    temp = absl::StrCat(".", file_name, ".", RandomHex(), ".tmp");
    fd = openat(dir_fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0 && errno != EEXIST) return internal::ErrnoStatus(errno, "creating a temporary file for", target);
  }
  if (fd < 0) return internal::ErrnoStatus(EEXIST, "creating a temporary file for", target);
  internal::Fd file(fd);
  // Held until the file is renamed or removed: a sweeper that can take the lock knows the writer is
  // gone (the kernel drops it with the process), whatever pid namespace either runs in.
  flock(file.get(), LOCK_EX | LOCK_NB);
  auto fail = [&](absl::Status s) {
    unlinkat(dir_fd, temp.c_str(), 0);
    return s;
  };
  // The creation mode was narrowed by the umask; readers expect the mode asked for.
  if (fchmod(file.get(), mode) != 0) return fail(internal::ErrnoStatus(errno, "setting the mode of", target));
  if (absl::Status s = WriteAll(file.get(), bytes, target); !s.ok()) return fail(s);
  if (fsync(file.get()) != 0) return fail(internal::ErrnoStatus(errno, "syncing", target));
  // A directory that cannot be synced is found out now, while the new document is still invisible
  // and the previous one stands, rather than after the rename when the caller could only be told
  // that the visible file may not survive a power loss.
  if (fsync(dir_fd) != 0) return fail(internal::ErrnoStatus(errno, "syncing the directory of", target));
  if (renameat(dir_fd, temp.c_str(), dir_fd, file_name.c_str()) != 0) {
    return fail(internal::ErrnoStatus(errno, "renaming the temporary file onto", target));
  }
  // Closed after the rename, so the lock covers the whole life of the temporary name.
  if (file.Close() != 0) return internal::ErrnoStatus(errno, "closing", target);
  // The rename is durable only once the directory is.
  if (fsync(dir_fd) != 0) return internal::ErrnoStatus(errno, "syncing the directory of", target);
  return absl::OkStatus();
}

absl::Status WriteFileAtomic(const std::string& path, std::string_view bytes, mode_t mode) {
  if (path.empty()) return absl::InvalidArgumentError("writing a file: the path must not be empty");
  if (path.back() == '/') return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory path, not a file"));
  if ((mode & ~mode_t{07777}) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": mode 0", absl::Hex(mode), " is not a permission mode"));
  }
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string file_name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (file_name == "." || file_name == "..") {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory path, not a file"));
  }
  const int dir_fd = open(dir.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (dir_fd < 0) return internal::ErrnoStatus(errno, "opening the directory of", path);
  internal::Fd dir_file(dir_fd);
  return ReplaceFileAt(dir_fd, file_name, path, bytes, mode);
}

}  // namespace draforge::cdi
