// Validation of a CDI spec directory, as a runtime loads it: every ".json" and ".yaml" file (and
// only those; subdirectories are not entered), each validated on its own, plus the rule that
// crosses files: the same fully qualified device defined in two files of one directory makes a
// runtime drop it from both.
#ifndef DRAFORGE_CDI_DIRECTORY_H_
#define DRAFORGE_CDI_DIRECTORY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cdi/problem.h"
#include "cdi/spec_validation.h"

namespace draforge::cdi {

// The problems of one file. `path` of each problem is a JSON path within the file ("$" for the
// file as a whole).
struct FileReport {
  std::string file;  // the file name within the directory
  std::vector<Problem> problems;
};

struct DirectoryReport {
  // One entry per spec file (and, with kStrict, per leftover temporary file), sorted by name;
  // files without problems are listed too, with none.
  std::vector<FileReport> files;
  // Whether no file has a problem.
  bool ok() const;
};

// Reads and validates the directory `dir`. With kStrict, also reports spec files whose mode is not
// 0644 (non-root readers and rootless runtimes cannot read them) and leftover "*.tmp" files.
// Errors: kNotFound / kPermissionDenied / kUnavailable when the directory cannot be listed. A file
// that cannot be read is a problem of that file, not an error.
absl::StatusOr<DirectoryReport> ValidateDirectory(const std::string& dir, const ValidateOptions& options = {});

}  // namespace draforge::cdi

#endif  // DRAFORGE_CDI_DIRECTORY_H_
