// Fuzz target for the object decoder (JSON and YAML input): never crash, and every object that
// decodes must survive encode -> decode unchanged.
#include <cstdint>
#include <string_view>

#include "api/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draforge::api;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  DecodeOptions options;
  options.max_bytes = 1 << 20;
  auto stream = DecodeStream(text, options);
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
