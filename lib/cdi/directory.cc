#include "cdi/directory.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "cdi/internal/file_io.h"
#include "cdi/spec_codec.h"
#include "common/status.h"

namespace draforge::cdi {
namespace {

constexpr size_t kMaxSpecBytes = size_t{16} << 20;

std::string OctalMode(unsigned mode) {
  std::string out;
  for (int shift = 9; shift >= 0; shift -= 3) out.push_back(static_cast<char>('0' + ((mode >> shift) & 7)));
  return out;
}

}  // namespace

bool DirectoryReport::ok() const {
  for (const FileReport& f : files) {
    if (!f.problems.empty()) return false;
  }
  return true;
}

absl::StatusOr<DirectoryReport> ValidateDirectory(const std::string& dir, const ValidateOptions& options) {
  ASSIGN_OR_RETURN(std::vector<internal::DirEntry> entries, internal::ListDirectory(dir));
  const bool strict = options.strictness == Strictness::kStrict;
  DirectoryReport report;
  struct Definition {
    size_t file;
    size_t device;
  };
  std::map<std::string, std::vector<Definition>> devices;  // qualified name -> definitions
  for (const internal::DirEntry& e : entries) {
    const bool spec_file = internal::HasSuffix(e.name, ".json") || internal::HasSuffix(e.name, ".yaml");
    if (!e.regular) continue;
    if (!spec_file) {
      if (strict && internal::HasSuffix(e.name, ".tmp")) {
        report.files.push_back({e.name, {{"$", "leftover temporary file (an interrupted write)"}}});
      }
      continue;
    }
    FileReport file{e.name, {}};
    const std::string path = dir + "/" + e.name;
    absl::StatusOr<std::string> text = internal::ReadFile(path, kMaxSpecBytes);
    if (!text.ok()) {
      file.problems.push_back({"$", std::string(text.status().message())});
      report.files.push_back(std::move(file));
      continue;
    }
    if (strict && e.mode != 0644) {
      file.problems.push_back({"$", "file mode " + OctalMode(e.mode) + ", want 0644 (readable by non-root runtimes)"});
    }
    DecodeOptions decode;
    decode.format = FormatForFileName(e.name);
    decode.strict = strict;
    Spec spec;
    std::vector<Problem> decode_problems = DecodeSpec(*text, decode, &spec);
    std::vector<Problem> problems = ValidateDocument(*text, decode.format, options);
    file.problems.insert(file.problems.end(), problems.begin(), problems.end());
    if (decode_problems.empty()) {
      for (size_t i = 0; i < spec.devices.size(); ++i) {
        devices[QualifiedDeviceName(spec.kind, spec.devices[i].name)].push_back({report.files.size(), i});
      }
    }
    report.files.push_back(std::move(file));
  }
  for (const auto& [name, defs] : devices) {
    if (defs.size() < 2) continue;
    for (const Definition& d : defs) {
      std::string others;
      for (const Definition& o : defs) {
        if (o.file == d.file) continue;
        if (!others.empty()) others += ", ";
        others += report.files[o.file].file;
      }
      if (others.empty()) continue;  // duplicates within one file are reported by Validate
      report.files[d.file].problems.push_back(
          {absl::StrCat("$.devices[", d.device, "].name"),
           absl::StrCat("device \"", name, "\" is also defined in ", others,
                        " in the same directory (a runtime drops it from both)")});
    }
  }
  return report;
}

}  // namespace draforge::cdi
