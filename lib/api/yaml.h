// YAML reading and writing, the way Kubernetes does it.
//
// Kubernetes never interprets YAML directly: sigs.k8s.io/yaml converts it to JSON (parsing with a
// fork of go-yaml v2, so YAML 1.1 scalar resolution applies) and the JSON is then decoded. DRAForge
// follows the same path: ParseYamlStream turns YAML into RapidJSON documents that hold exactly the
// values sigs.k8s.io/yaml.YAMLToJSON would produce, and the typed JSON decoder takes it from there.
// WriteYaml is the reverse, byte for byte what `kubectl get -o yaml` (sigs.k8s.io/yaml.JSONToYAML,
// i.e. go-yaml v2's emitter) prints.
//
// What the conversion does, in short (details in yaml.cc):
//   * Plain scalars resolve with go-yaml v2's table: null/Null/NULL/~/empty -> null;
//     y/Y/yes/Yes/YES/true/True/TRUE/on/On/ON -> true, n/N/no/No/NO/false/False/FALSE/off/Off/OFF
//     -> false; Go integer syntax (0x, 0o, 0b, leading-0 octal, underscores ignored) -> int64, or
//     uint64 above INT64_MAX; decimal floats, .inf and .nan -> double; timestamps stay strings.
//     Quoted scalars, block scalars and `!!str` are strings; `!!binary` is base64-decoded.
//   * Numbers are what a JSON reader sees in sigs.k8s.io/yaml's output: a float with an integral
//     value below 1e21 is written as a JSON integer (`1.0` and `1e3` become int64 1 and 1000), so
//     it is stored as int64/uint64 too. Infinity and NaN cannot be JSON and are an error.
//   * Mapping keys become strings as sigs.k8s.io/yaml converts them (`1: x` -> "1", `yes: x` ->
//     "true", `1.5: x` -> "1.5" printed as a float32); null, uint64 and collection keys are errors.
//   * Object members keep the order of the YAML input (Go sorts them; JSON readers do not care).
//   * Strings that are not valid UTF-8 (from `!!binary` or escapes) get U+FFFD for each bad byte,
//     as Go's encoding/json does.
//   * Duplicate keys in one mapping are an error (Kubernetes' strict decoding rejects them). Merge
//     keys `<<` behave as in go-yaml v2: the merged entries overwrite what is already set, later
//     entries overwrite merged ones, and in `<<: [*a, *b]` the first mapping wins. (go-yaml's
//     strict mode would also reject every merged key that overlaps another; that is not copied.)
//   * Empty documents, documents that are only comments and documents whose value is null are
//     skipped.
#ifndef DRAFORGE_API_YAML_H_
#define DRAFORGE_API_YAML_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "rapidjson/document.h"

namespace draforge::api {

// Bounds on the work ParseYamlStream may do for one call; exceeding one is kResourceExhausted.
struct YamlLimits {
  // Input size in bytes. Kubernetes caps a request body at 3 MiB; files and `kubectl get -o yaml`
  // dumps of a big cluster can be much larger.
  size_t max_input_bytes = size_t{64} << 20;
  // Nesting of sequences and mappings, counted after alias expansion. yaml-cpp 0.7 itself refuses
  // to nest deeper than about 500 levels, so larger values do not help.
  int max_depth = 256;
  // JSON values (scalars, arrays, objects) produced for the whole stream after alias and merge
  // expansion: a "billion laughs" alias bomb fails fast here instead of exhausting memory.
  size_t max_nodes = size_t{10} << 20;
  // Bytes of strings and keys produced for the whole stream after alias expansion (one short
  // alias of a long string can otherwise be repeated many times).
  size_t max_string_bytes = size_t{128} << 20;
};

struct YamlDocument {
  rapidjson::Document json;
  int line = 0;  // 1-based line where the document starts (its `---`, else its first token)
};

// Parses a multi-document YAML stream. Errors are kInvalidArgument with a message of the form
// `yaml: line 7, column 3: <problem> (document 2)`: lines and columns are 1-based and absolute in
// the stream, the document number counts every document, empty ones included. Duplicate keys read
// `yaml: duplicate key "spec" at line 12, column 3 (first at line 4, column 3) (document 1)`, and
// problems found before parsing (invalid UTF-8, control characters) have no document number.
// Exceeding a limit is kResourceExhausted. As in go-yaml, a syntax error anywhere in a document
// is reported rather than a problem of meaning (a bad key or value) earlier in it.
absl::StatusOr<std::vector<YamlDocument>> ParseYamlStream(std::string_view text,
                                                          const YamlLimits& limits = {});

// Writes one JSON value as `kubectl get -o yaml` does: block style, 2-space indentation, keys
// sorted with go-yaml's natural order, sequences in mappings not indented, strings quoted only when
// they would otherwise read back as something else, long plain and quoted strings folded at column
// 80. The result ends in a newline. ParseYamlStream(WriteYaml(v)) gives back v (with RapidJSON's
// numeric equality: the double 2.0 is written as `2` and read back as an integer) for every value
// whose strings are valid UTF-8, except that a null value reads back as no document at all.
// Strings that are not valid UTF-8 get U+FFFD for each bad byte (what kubectl's json.Marshal
// does); for duplicate object keys the last one wins; NaN and infinities (which JSON cannot hold)
// are written as .nan, .inf and -.inf. Two deliberate differences from go-yaml, so that the output
// reads back: the key "<<" is quoted (plain, it would be a merge key), and strings holding U+2028
// or U+2029 are double-quoted with escapes. It recurses once per level of nesting of `value`.
std::string WriteYaml(const rapidjson::Value& value);

// Writes several objects as one stream, separated by "---\n" lines (what kubectl prints for
// several objects without a List). Null pointers are skipped.
std::string WriteYamlStream(const std::vector<const rapidjson::Value*>& values);

}  // namespace draforge::api

#endif  // DRAFORGE_API_YAML_H_
