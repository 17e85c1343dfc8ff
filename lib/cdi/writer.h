// Crash-safe writing of CDI spec files, the only code in DRAForge that writes files.
//
// A spec is validated (kStrict), encoded, decoded again and compared, and only then written: to a
// temporary file in the same directory whose name runtimes ignore (".<file>.<16 hex digits>.tmp":
// not ".json"/".yaml"), locked (flock) by its writer, fully, mode 0644 whatever the umask, fsynced;
// the directory is fsynced (a directory that cannot be synced fails the write before the new
// document is visible), the file renamed over the target, and the directory fsynced again. At
// every moment the target is either the previous complete document or the new one; on any failure
// the temporary file is removed and the previous document stays. Each writer has its own temporary
// file, so concurrent writers in one directory cannot mix their bytes: the last rename wins, whole.
#ifndef DRAFORGE_CDI_WRITER_H_
#define DRAFORGE_CDI_WRITER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cdi/spec.h"
#include "cdi/spec_validation.h"

namespace draforge::cdi {

struct WriteOptions {
  // What the spec must pass before anything is written (kStrict, ceiling 0.5.0 by default).
  ValidateOptions validate;
  // Create the directory (and missing parents) with mode 0755 when it does not exist.
  bool create_directory = true;
};

enum class WriteResult {
  kWritten,    // the file now holds the new document
  kUnchanged,  // the file already held exactly these bytes with mode 0644: nothing was touched
};

// The file name of a spec tied to one object (the reference library's transient spec name):
// "<vendor>-<class>_<id>.json", '/' in `id` replaced by '_'. `kind` is "vendor/class".
std::string TransientSpecFileName(std::string_view kind, std::string_view id);
// The prefix every TransientSpecFileName of `kind` starts with: "<vendor>-<class>_".
std::string SpecFileNamePrefix(std::string_view kind);

// Writes `spec` as `dir`/`file_name` (see the file comment). `file_name` must be a plain name
// ending in ".json" and not starting with '.'.
// Errors: kInvalidArgument for a bad file name or a spec that fails validation (nothing is
// written; the message lists every problem with its JSON path); kResourceExhausted for a full disk
// or quota, kPermissionDenied for a read-only or unwritable directory, kNotFound when the directory
// is missing and not created, kUnavailable for other I/O errors, kInternal if the encoded document
// does not read back as `spec`. Every error names the file; the previous file is left intact.
absl::StatusOr<WriteResult> WriteSpec(const std::string& dir, const std::string& file_name, const Spec& spec,
                                      const WriteOptions& options = {});

// Removes `dir`/`file_name` and fsyncs the directory. `file_name` is a spec name, never a path: a
// plain name ending in ".json" or ".yaml", not starting with '.'. A missing file is success (removal
// is idempotent). Errors: kInvalidArgument for any other name (nothing is removed); WriteSpec's I/O
// errors.
absl::Status RemoveSpec(const std::string& dir, const std::string& file_name);

// One spec file to have in a directory.
struct SpecFile {
  std::string file_name;
  Spec spec;
};

struct SyncOptions {
  WriteOptions write;
  // File-name prefixes ("<vendor>-<class>_") of files this writer owns: a ".json" file with one
  // of them that is not in the wanted set is stale and removed (".yaml" files are never ours). The prefixes of the
  // wanted files' kinds are always owned. Files with other names are never touched.
  std::vector<std::string> owned_prefixes;
  // Owned file names that must not be removed though not wanted (e.g. the claims whose spec
  // could not be built this time: their last good document stays).
  std::vector<std::string> keep;
  // Remove temporary files of owned spec names (".<file>.<16 hex>.tmp", or the older
  // ".<file>.<pid>.<16 hex>.tmp") left by writers that died: recognised by that name, and known to
  // be abandoned when their writer's lock is free. Process ids are not consulted: they repeat
  // across containers. Files of live writers are never touched.
  bool remove_stale_temp_files = true;
};

struct SyncFailure {
  std::string file_name;
  absl::Status status;
};

struct SyncReport {
  std::vector<std::string> written;    // file names, in the order of the wanted list
  std::vector<std::string> unchanged;
  std::vector<std::string> removed;    // stale specs and temporary files, sorted
  std::vector<SyncFailure> failed;     // writes or removals that failed; their old files remain
  bool ok() const { return failed.empty(); }
};

// Makes `dir` hold exactly `files` among the files it owns: writes each (WriteSpec), then removes
// owned files that are no longer wanted. A failure of one file does not stop the others; it is
// listed in the report and that file's previous document stays. Two wanted files with the same
// name are one failure each (neither is written).
// Errors (nothing done): the directory cannot be created, opened or listed.
absl::StatusOr<SyncReport> SyncDirectory(const std::string& dir, const std::vector<SpecFile>& files,
                                         const SyncOptions& options = {});

}  // namespace draforge::cdi

#endif  // DRAFORGE_CDI_WRITER_H_
