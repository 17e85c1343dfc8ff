// Fuzz target for lib/cdi's spec codec and validation: decoding a CDI spec (as JSON and as YAML,
// strict and as released runtimes read it) and validating what decoded must never crash, and a spec
// that decodes without a problem must survive EncodeSpec -> DecodeSpec unchanged (spec_codec.h
// promises it), since the node plugin writes what it decoded or built.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cdi/spec_codec.h"
#include "cdi/spec_validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draforge::cdi;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (Format format : {Format::kJson, Format::kYaml}) {
    for (bool strict : {true, false}) {
      DecodeOptions options;
      options.format = format;
      options.strict = strict;
      options.max_bytes = size_t{1} << 20;
      Spec spec;
      std::vector<Problem> problems = DecodeSpec(text, options, &spec);
      for (const Problem& p : problems) {
        if (p.path.empty() || p.path[0] != '$' || p.message.empty()) __builtin_trap();
      }
      if (!problems.empty()) continue;
      for (Strictness level : {Strictness::kStrict, Strictness::kCompat}) {
        ValidateOptions validate;
        validate.strictness = level;
        (void)Validate(spec, validate);
      }
      const std::string encoded = EncodeSpec(spec);
      Spec again;
      if (!DecodeSpec(encoded, DecodeOptions{}, &again).empty()) __builtin_trap();
      if (!(again == spec)) __builtin_trap();
      if (EncodeSpec(again) != encoded) __builtin_trap();
    }
    (void)ValidateDocument(text, format);
  }
  return 0;
}
