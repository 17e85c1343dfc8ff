// Fuzz target for lib/api/yaml: ParseYamlStream must never crash on any input, and every
// document it returns must survive WriteYaml and a second parse unchanged (the round trip that
// `kubectl get -o yaml` output relies on). A broken round trip traps, so that libFuzzer (or the
// replay main that runs tests/fuzz/corpus/yaml/) reports it as a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/yaml.h"
#include "rapidjson/document.h"

namespace {

// Small limits keep each run fast; the second parse uses the defaults, because the written YAML
// of an aliased document is larger than its input.
draforge::api::YamlLimits FuzzLimits() {
  draforge::api::YamlLimits limits;
  limits.max_input_bytes = size_t{1} << 20;
  limits.max_nodes = size_t{1} << 18;
  limits.max_string_bytes = size_t{8} << 20;
  return limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto docs = draforge::api::ParseYamlStream(text, FuzzLimits());
  if (!docs.ok()) return 0;
  std::vector<const rapidjson::Value*> values;
  for (const draforge::api::YamlDocument& doc : *docs) {
    // A document that was kept is never null.
    if (doc.json.IsNull() || doc.line < 1) __builtin_trap();
    const std::string yaml = draforge::api::WriteYaml(doc.json);
    auto again = draforge::api::ParseYamlStream(yaml);
    if (!again.ok() || again->size() != 1) __builtin_trap();
    // RapidJSON's equality: numbers compare by value, object members in any order.
    if (!(again->front().json == doc.json)) __builtin_trap();
    // Writing is deterministic: the reparsed value prints the same.
    if (draforge::api::WriteYaml(again->front().json) != yaml) __builtin_trap();
    values.push_back(&doc.json);
  }
  // The documents of a stream come back as a stream.
  auto stream = draforge::api::ParseYamlStream(draforge::api::WriteYamlStream(values));
  if (!stream.ok() || stream->size() != values.size()) __builtin_trap();
  return 0;
}
