// Reading Kubernetes manifests from files, directories and standard input, as `kubectl apply -f`
// does without -R: the one loader behind the CLI's -f, the C ABI's draforge_objects_load and
// draforge_cluster_apply_file, and the server's scenario directory.
//
// lib/ never reads standard input itself: the caller passes its text for the path "-".
#ifndef DRAFORGE_API_MANIFESTS_H_
#define DRAFORGE_API_MANIFESTS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/codec.h"
#include "api/object.h"

namespace draforge::api {

// The name standard input goes by in messages.
inline constexpr std::string_view kStdinName = "<stdin>";

struct ManifestOptions {
  // How each source is decoded; `decode.max_bytes` also bounds each file's size.
  DecodeOptions decode;
  // The text of standard input, for the path "-" (read by the caller); nullopt: "-" is an error.
  std::optional<std::string_view> stdin_text;
};

// One object read from a source, or the reason it could not be decoded.
struct ManifestObject {
  std::string source;  // the file's path, or "<stdin>"
  int index = 0;       // position in the source, from 0, after expanding Lists
  int line = 1;        // where its document starts (YAML), 1-based
  std::string api_version;  // as written (also when it could not be decoded; may be empty)
  std::string kind;
  absl::StatusOr<Object> object;
  std::vector<std::string> warnings;  // e.g. `unknown field "spec.foo"`

  // "file.yaml: " for the first object of a source, else "file.yaml (object 3, line 40): ".
  std::string Where() const;
};

// The files `paths` stand for, in order: "-" stays "-"; a directory contributes its regular .yaml,
// .yml and .json files, sorted (not recursive); anything else is taken as a file (read later).
// Errors: kNotFound naming a directory that cannot be listed.
absl::StatusOr<std::vector<std::string>> ExpandManifestPaths(const std::vector<std::string>& paths);

// Reads one file, at most `max_bytes` of it. Errors: kNotFound (missing or unreadable file, with
// the system's reason), kResourceExhausted ("<path>: file is N bytes, more than the limit of M
// bytes"); each names the path.
absl::StatusOr<std::string> ReadManifestFile(const std::string& path, size_t max_bytes);

// Decodes the text of one source named `source` (a path, "<stdin>", or "" for nameless text). The
// call fails when the text is not JSON/YAML (the message starts with "<source>: " when named).
absl::StatusOr<std::vector<ManifestObject>> DecodeManifest(std::string_view text, std::string_view source,
                                                           const DecodeOptions& options);

// Reads and decodes every source of ExpandManifestPaths(paths) in order. The call fails when a
// source cannot be read or is not JSON/YAML (the message starts with the source's name); an object
// that does not decode is returned with its error, so that callers can report every one.
absl::StatusOr<std::vector<ManifestObject>> LoadManifests(const std::vector<std::string>& paths,
                                                          const ManifestOptions& options);

// The decoded objects of `loaded`, all or nothing: the first object that did not decode, or that
// has no metadata.name, fails the call ("<where>object N (line L): <reason>"), so that a caller
// never applies half of its input.
absl::StatusOr<std::vector<Object>> RequireDecoded(std::vector<ManifestObject> loaded);

}  // namespace draforge::api

#endif  // DRAFORGE_API_MANIFESTS_H_
