// Decoding and encoding of Kubernetes objects (JSON and YAML), with version conversion.
//
// Decoding is type-directed from the field tables in internal/schema.h: every field is checked for
// its JSON type, duplicate keys are rejected, unknown fields are warnings (or errors when strict),
// and errors name the object and the field path as the API server does ("spec.devices[3].name").
// Objects in resource.k8s.io/v1beta1 and v1beta2 are converted to the v1 shape the way the API
// server converts them; encoding can convert back.
#ifndef DRAFORGE_API_CODEC_H_
#define DRAFORGE_API_CODEC_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/object.h"
#include "rapidjson/document.h"

namespace draforge::api {

struct DecodeOptions {
  // Unknown fields are errors (kubectl's --validate=strict) instead of warnings. Either way they are
  // dropped, as the API server drops them.
  bool strict = false;
  // Largest input accepted by DecodeStream; larger input is an error, not a slow death.
  size_t max_bytes = size_t{32} << 20;
  // JSON text is decoded without building a DOM where it can be (the result is the same; anything
  // unusual is decoded through the DOM). False forces the DOM decoder: tests compare the two.
  bool allow_fast_path = true;
};

// One object of an input stream, or the reason it could not be decoded. `index` counts objects in
// the stream from 0 after expanding List items; `line` is where its document starts (YAML), 1-based.
struct DecodedObject {
  int index = 0;
  int line = 1;
  // apiVersion and kind as written in the document (also when it could not be decoded; may be empty).
  std::string api_version;
  std::string kind;
  absl::StatusOr<Object> object;
  std::vector<std::string> warnings;  // e.g. `unknown field "spec.foo"`
};

// Decodes one object from a JSON value (not a List). `warnings` may be null.
absl::StatusOr<Object> DecodeObject(const rapidjson::Value& value, const DecodeOptions& options,
                                    std::vector<std::string>* warnings);

// Decodes a stream of JSON or YAML text (detected from the first non-blank character: `{` or `[`
// is JSON): one object, a multi-document YAML stream, or `List` kinds (expanded). The outer status
// fails only when the text as a whole cannot be read (syntax error, size limit); objects that fail
// to decode are reported one by one.
absl::StatusOr<std::vector<DecodedObject>> DecodeStream(std::string_view text, const DecodeOptions& options);

// Encodes `object` as a JSON value in `api_version` (empty: the version it was read in; a version
// the kind does not have is an error). The fields written are exactly those set.
absl::StatusOr<rapidjson::Document> EncodeObject(const Object& object, std::string_view api_version = {});

// Serializes a JSON value: compact, or indented by two spaces like the API server's fixtures.
std::string WriteJson(const rapidjson::Value& value, bool pretty);

// Parses JSON text; errors carry line:column. With check_duplicate_keys, duplicate object keys
// anywhere are errors too (DecodeStream finds them while decoding instead).
absl::StatusOr<rapidjson::Document> ParseJson(std::string_view text, bool check_duplicate_keys = true);

// The resource.k8s.io versions DRAForge reads for `kind`, newest first (empty for core kinds).
std::vector<std::string_view> SupportedVersions(Kind kind);

}  // namespace draforge::api

#endif  // DRAFORGE_API_CODEC_H_
