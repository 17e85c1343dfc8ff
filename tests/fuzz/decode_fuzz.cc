// Fuzz target for the object decoder (JSON and YAML input): never crash, and every object that
// decodes must survive encode -> decode unchanged; the fast JSON path and the DOM decoder agree.
#include <cstdint>
#include <string_view>

#include "api/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draforge::api;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  DecodeOptions options;
  options.max_bytes = 1 << 20;
  auto stream = DecodeStream(text, options);
  // The DOM decoder must agree with the fast path on everything: objects, errors and warnings.
  DecodeOptions dom_options = options;
  dom_options.allow_fast_path = false;
  auto dom = DecodeStream(text, dom_options);
  if (stream.ok() != dom.ok()) __builtin_trap();
  if (!stream.ok() && stream.status() != dom.status()) __builtin_trap();
  if (stream.ok()) {
    if (stream->size() != dom->size()) __builtin_trap();
    for (size_t i = 0; i < stream->size(); ++i) {
      const DecodedObject& a = (*stream)[i];
      const DecodedObject& b = (*dom)[i];
      if (a.index != b.index || a.line != b.line || a.api_version != b.api_version || a.kind != b.kind ||
          a.warnings != b.warnings || a.object.status() != b.object.status()) {
        __builtin_trap();
      }
      if (a.object.ok() && !(*a.object == *b.object)) __builtin_trap();
    }
  }
  if (!stream.ok()) return 0;
  for (const DecodedObject& d : *stream) {
    if (!d.object.ok()) continue;
    auto doc = EncodeObject(*d.object);
    if (!doc.ok()) __builtin_trap();
    const std::string json = WriteJson(*doc, false);
    auto again = DecodeStream(json, {});
    if (!again.ok() || again->size() != 1 || !again->front().object.ok()) __builtin_trap();
    if (!(*again->front().object == *d.object)) __builtin_trap();
  }
  return 0;
}
