#include "cdi/writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "cdi/atomic_file.h"
#include "cdi/internal/fd.h"
#include "cdi/internal/file_io.h"
#include "cdi/spec_codec.h"
#include "common/status.h"

namespace draforge::cdi {
namespace {

constexpr mode_t kFileMode = 0644;
constexpr mode_t kDirMode = 0755;
constexpr size_t kMaxSpecBytes = size_t{16} << 20;

// Why `name` is not a spec file name DRAForge writes (a plain name ending in ".json", not hidden),
// or "" when it is one. `allow_yaml`: ".yaml" too (RemoveSpec also removes YAML specs by name). Never
// a path: "../x.yaml" is refused, not resolved.
std::string FileNameError(std::string_view name, bool allow_yaml = false) {
  if (name.empty()) return "file name must not be empty";
  if (name.size() > 200) return "file name is longer than 200 bytes";
  if (name.find('/') != std::string_view::npos || name.find('\0') != std::string_view::npos) {
    return absl::StrCat("file name \"", AV(name), "\" must not contain '/'");
  }
  if (name.front() == '.') return absl::StrCat("file name \"", AV(name), "\" must not start with '.'");
  if (allow_yaml && internal::HasSuffix(name, ".yaml")) return {};
  if (!internal::HasSuffix(name, ".json")) return absl::StrCat("file name \"", AV(name), "\" must end in \".json\"");
  return {};
}

bool IsHex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return !s.empty();
}

// The spec file a temporary file of ours stands for, or "" when `name` is not one: ours are
// ".<file>.<16 hex digits>.tmp" (and, from DRAForge before 0.x, ".<file>.<pid>.<16 hex>.tmp").
std::string_view TempFileTarget(std::string_view name) {
  if (name.size() < 2 || name.front() != '.' || !internal::HasSuffix(name, ".tmp")) return {};
  name.remove_prefix(1);
  name.remove_suffix(4);
  const size_t random_dot = name.find_last_of('.');
  if (random_dot == std::string_view::npos || name.size() - random_dot - 1 != 16 ||
      !IsHex(name.substr(random_dot + 1))) {
    return {};
  }
  name = name.substr(0, random_dot);
  if (const size_t pid_dot = name.find_last_of('.'); pid_dot != std::string_view::npos) {
    const std::string_view pid = name.substr(pid_dot + 1);
    if (!pid.empty() && pid.find_first_not_of("0123456789") == std::string_view::npos) name = name.substr(0, pid_dot);
  }
  if (!FileNameError(name).empty()) return {};
  return name;
}

// mkdir -p with mode 0755 for what is created.
absl::Status MakeDirectories(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      return absl::FailedPreconditionError(absl::StrCat("CDI directory ", dir, " is not a directory"));
    }
    return absl::OkStatus();
  }
  if (errno != ENOENT) return internal::ErrnoStatus(errno, "checking CDI directory", dir);
  const size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) RETURN_IF_ERROR(MakeDirectories(dir.substr(0, slash)));
  if (mkdir(dir.c_str(), kDirMode) != 0) {
    if (errno == EEXIST) return absl::OkStatus();  // created meanwhile by another writer
    return internal::ErrnoStatus(errno, "creating CDI directory", dir);
  }
  // The umask may have narrowed the mode; runtimes not running as root must be able to list it.
  if (chmod(dir.c_str(), kDirMode) != 0) return internal::ErrnoStatus(errno, "setting the mode of", dir);
  return absl::OkStatus();
}

absl::StatusOr<int> OpenDirectory(const std::string& dir, bool create) {
  if (dir.empty()) return absl::InvalidArgumentError("CDI directory: the path must not be empty");
  if (create) RETURN_IF_ERROR(MakeDirectories(dir));
  const int fd = open(dir.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (fd < 0) return internal::ErrnoStatus(errno, "opening CDI directory", dir);
  return fd;
}

// The atomic replace of `file_name` in the open directory `dir_fd` by `bytes`, unless it already
// holds them.
absl::StatusOr<WriteResult> Replace(int dir_fd, const std::string& dir, const std::string& file_name,
                                    std::string_view bytes) {
  const std::string target = dir + "/" + file_name;
  // Identical bytes with the right mode: leave the file alone, so runtimes' watchers see no churn.
  struct stat st;
  if (fstatat(dir_fd, file_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
      (st.st_mode & 07777) == kFileMode && static_cast<size_t>(st.st_size) == bytes.size()) {
    absl::StatusOr<std::string> old = internal::ReadFileAt(dir_fd, file_name, target, kMaxSpecBytes);
    if (old.ok() && *old == bytes) return WriteResult::kUnchanged;
  }
  RETURN_IF_ERROR(ReplaceFileAt(dir_fd, file_name, target, bytes, kFileMode));
  return WriteResult::kWritten;
}

// Whether temporary file `name` in `dir_fd` was left by a writer that is gone: its lock is free.
bool WriterIsGone(int dir_fd, const std::string& name) {
  const int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  internal::Fd file(fd);
  return flock(file.get(), LOCK_EX | LOCK_NB) == 0;
}

}  // namespace

std::string SpecFileNamePrefix(std::string_view kind) {
  const Kind k = SplitKind(kind);
  return absl::StrCat(AV(k.vendor), "-", AV(k.cdi_class), "_");
}

std::string TransientSpecFileName(std::string_view kind, std::string_view id) {
  std::string safe_id(id);
  for (char& c : safe_id) {
    if (c == '/') c = '_';
  }
  return absl::StrCat(SpecFileNamePrefix(kind), safe_id, ".json");
}

absl::StatusOr<WriteResult> WriteSpec(const std::string& dir, const std::string& file_name, const Spec& spec,
                                      const WriteOptions& options) {
  if (std::string e = FileNameError(file_name); !e.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("CDI spec in ", dir, ": ", e));
  }
  const std::string target = dir + "/" + file_name;
  RETURN_IF_ERROR(ValidationStatus(spec, target, options.validate));
  const std::string bytes = EncodeSpec(spec);
  // What a reader will see must be what was validated: read the bytes back the way a runtime does.
  absl::StatusOr<Spec> again = DecodeSpec(bytes);
  if (!again.ok() || !(*again == spec)) {
    return absl::InternalError(absl::StrCat("CDI spec ", target, ": the encoded document does not read back",
                                            again.ok() ? std::string() : ": " + std::string(again.status().message())));
  }
  ASSIGN_OR_RETURN(int dir_fd, OpenDirectory(dir, options.create_directory));
  internal::Fd dir_file(dir_fd);
  return Replace(dir_fd, dir, file_name, bytes);
}

absl::Status RemoveSpec(const std::string& dir, const std::string& file_name) {
  if (std::string e = FileNameError(file_name, /*allow_yaml=*/true); !e.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("CDI spec in ", dir, ": ", e));
  }
  const int dir_fd = open(dir.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (dir_fd < 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return internal::ErrnoStatus(errno, "opening CDI directory", dir);
  }
  internal::Fd dir_file(dir_fd);
  const std::string target = dir + "/" + file_name;
  if (unlinkat(dir_fd, file_name.c_str(), 0) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return internal::ErrnoStatus(errno, "removing", target);
  }
  if (fsync(dir_fd) != 0) return internal::ErrnoStatus(errno, "syncing the directory of", target);
  return absl::OkStatus();
}

absl::StatusOr<SyncReport> SyncDirectory(const std::string& dir, const std::vector<SpecFile>& files,
                                         const SyncOptions& options) {
  ASSIGN_OR_RETURN(int dir_fd, OpenDirectory(dir, options.write.create_directory));
  internal::Fd dir_file(dir_fd);
  ASSIGN_OR_RETURN(std::vector<internal::DirEntry> entries, internal::ListDirectory(dir));

  SyncReport report;
  std::map<std::string, int> wanted;  // file name -> how many times it is wanted
  for (const SpecFile& f : files) ++wanted[f.file_name];
  std::set<std::string> prefixes(options.owned_prefixes.begin(), options.owned_prefixes.end());
  for (const SpecFile& f : files) prefixes.insert(SpecFileNamePrefix(f.spec.kind));
  const std::set<std::string> keep(options.keep.begin(), options.keep.end());

  for (const SpecFile& f : files) {
    if (wanted[f.file_name] > 1) {
      report.failed.push_back({f.file_name, absl::InvalidArgumentError(absl::StrCat(
                                                "CDI spec ", dir, "/", f.file_name,
                                                ": the same file name is wanted for two specs"))});
      continue;
    }
    absl::StatusOr<WriteResult> r = WriteSpec(dir, f.file_name, f.spec, options.write);
    if (!r.ok()) {
      report.failed.push_back({f.file_name, r.status()});
    } else if (*r == WriteResult::kWritten) {
      report.written.push_back(f.file_name);
    } else {
      report.unchanged.push_back(f.file_name);
    }
  }

  auto owned = [&](std::string_view name) {
    for (const std::string& p : prefixes) {
      if (!p.empty() && name.substr(0, p.size()) == p) return true;
    }
    return false;
  };
  bool removed_any = false;
  for (const internal::DirEntry& e : entries) {
    const std::string_view name = e.name;
    // DRAForge writes only ".json": a ".yaml" file, even with an owned prefix, is someone else's.
    const bool spec_file = internal::HasSuffix(name, ".json");
    bool stale = false;
    if (spec_file && owned(name) && wanted.count(e.name) == 0 && keep.count(e.name) == 0) {
      stale = true;
    } else if (const std::string_view target = TempFileTarget(name);
               options.remove_stale_temp_files && !target.empty() && owned(target) && WriterIsGone(dir_fd, e.name)) {
      stale = true;
    }
    if (!stale) continue;
    if (unlinkat(dir_fd, e.name.c_str(), 0) != 0 && errno != ENOENT) {
      report.failed.push_back({e.name, internal::ErrnoStatus(errno, "removing", dir + "/" + e.name)});
      continue;
    }
    removed_any = true;
    report.removed.push_back(e.name);
  }
  if (removed_any && fsync(dir_fd) != 0) {
    report.failed.push_back({"", internal::ErrnoStatus(errno, "syncing the directory", dir)});
  }
  return report;
}

}  // namespace draforge::cdi
