// CDI spec documents: JSON encoding, and strict decoding of JSON or YAML with every problem located.
//
// Decoding is as strict as the reference loader (sigs.k8s.io/yaml UnmarshalStrict): exactly one
// object, no unknown field at any level, no duplicate key, every value of its Go type (integers in
// range, strings, string lists). Field names must be spelled exactly (Go's encoding/json would also
// take other letter cases; DRAForge does not).
#ifndef DRAFORGE_CDI_SPEC_CODEC_H_
#define DRAFORGE_CDI_SPEC_CODEC_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cdi/problem.h"
#include "cdi/spec.h"

namespace draforge::cdi {

enum class Format { kJson, kYaml };

// The format a runtime infers from a file name: kYaml for ".yaml", kJson otherwise.
Format FormatForFileName(std::string_view file_name);

struct DecodeOptions {
  Format format = Format::kJson;
  // Also refuse what released readers tolerate but a writer must not produce: `null` for a field
  // (Go reads it as unset), and a 'v' before cdiVersion is left to validation.
  bool strict = true;
  // Documents above this size are refused before parsing.
  size_t max_bytes = size_t{16} << 20;
};

// Decodes `text` into `*spec`, returning every problem found (empty: success). Fields that decode
// are filled in even when others fail, so that validation can report more; a spec with problems
// must not be used. `spec` must not be null.
std::vector<Problem> DecodeSpec(std::string_view text, const DecodeOptions& options, Spec* spec);

// Decodes `text`. Errors: kInvalidArgument listing every problem ("$.devices[0].name: ...").
absl::StatusOr<Spec> DecodeSpec(std::string_view text, const DecodeOptions& options = {});

// The JSON document for `spec`: fields in the reference library's order, empty optional fields
// omitted, two-space indentation, ending in a newline. Never fails; the result is what DecodeSpec
// reads back into an equal Spec.
std::string EncodeSpec(const Spec& spec);

}  // namespace draforge::cdi

#endif  // DRAFORGE_CDI_SPEC_CODEC_H_
