#include "api/manifests.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace draforge::api {
namespace {

namespace fs = std::filesystem;

bool IsManifestFile(const fs::directory_entry& entry) {
  const std::string ext = entry.path().extension().string();
  return entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json");
}

// "<source>: " for messages, or "" for nameless text.
std::string Prefix(std::string_view source) { return source.empty() ? "" : absl::StrCat(AV(source), ": "); }

}  // namespace

std::string ManifestObject::Where() const {
  if (index == 0 && line <= 1) return absl::StrCat(source, ": ");
  return absl::StrCat(source, " (object ", index + 1, ", line ", line, "): ");
}

absl::StatusOr<std::vector<std::string>> ExpandManifestPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (path == "-" || !fs::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> in_dir;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (IsManifestFile(entry)) in_dir.push_back(entry.path().string());
    }
    if (ec) return absl::NotFoundError(absl::StrCat(path, ": ", ec.message()));
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  return files;
}

absl::StatusOr<std::string> ReadManifestFile(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return absl::NotFoundError(absl::StrCat(path, ": ", ec.message()));
  if (size > max_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat(path, ": file is ", size, " bytes, more than the limit of ", max_bytes, " bytes"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
  std::string data(std::istreambuf_iterator<char>(in), {});
  if (in.bad()) return absl::NotFoundError(absl::StrCat(path, ": read error"));
  return data;
}

absl::StatusOr<std::vector<ManifestObject>> DecodeManifest(std::string_view text, std::string_view source,
                                                           const DecodeOptions& options) {
  auto decoded = DecodeStream(text, options);
  if (!decoded.ok()) {
    return absl::Status(decoded.status().code(), absl::StrCat(Prefix(source), decoded.status().message()));
  }
  std::vector<ManifestObject> out;
  out.reserve(decoded->size());
  for (DecodedObject& d : *decoded) {
    ManifestObject o;
    o.source = std::string(source);
    o.index = d.index;
    o.line = d.line;
    o.api_version = std::move(d.api_version);
    o.kind = std::move(d.kind);
    o.object = std::move(d.object);
    o.warnings = std::move(d.warnings);
    out.push_back(std::move(o));
  }
  return out;
}

absl::StatusOr<std::vector<ManifestObject>> LoadManifests(const std::vector<std::string>& paths,
                                                          const ManifestOptions& options) {
  ASSIGN_OR_RETURN(std::vector<std::string> files, ExpandManifestPaths(paths));
  std::vector<ManifestObject> out;
  for (const std::string& file : files) {
    std::string text;
    std::string_view source = file;
    if (file == "-") {
      if (!options.stdin_text.has_value()) {
        return absl::InvalidArgumentError("-: standard input was not supplied by the caller");
      }
      if (options.stdin_text->size() > options.decode.max_bytes) {
        return absl::ResourceExhaustedError(absl::StrCat(AV(kStdinName), ": input is ", options.stdin_text->size(),
                                                         " bytes, more than the limit of ",
                                                         options.decode.max_bytes, " bytes"));
      }
      text = std::string(*options.stdin_text);
      source = kStdinName;
    } else {
      ASSIGN_OR_RETURN(text, ReadManifestFile(file, options.decode.max_bytes));
    }
    ASSIGN_OR_RETURN(std::vector<ManifestObject> objects, DecodeManifest(text, source, options.decode));
    std::move(objects.begin(), objects.end(), std::back_inserter(out));
  }
  return out;
}

absl::StatusOr<std::vector<Object>> RequireDecoded(std::vector<ManifestObject> loaded) {
  std::vector<Object> out;
  out.reserve(loaded.size());
  for (ManifestObject& m : loaded) {
    const std::string where =
        absl::StrCat(Prefix(m.source), "object ", m.index + 1, " (line ", m.line, "): ");
    if (!m.object.ok()) {
      return absl::Status(m.object.status().code(), absl::StrCat(where, m.object.status().message()));
    }
    if (!m.object->metadata().name.has_value() || m.object->metadata().name->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, m.kind.empty() ? "object" : m.kind, ": metadata.name: Required value"));
    }
    out.push_back(*std::move(m.object));
  }
  return out;
}

}  // namespace draforge::api
