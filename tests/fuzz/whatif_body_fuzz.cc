// Fuzz target for draforge-server's what-if body parser (examples/server/whatif_request.cc): on any
// bytes ParseWhatifBody must not crash, recurse without bound or accept more than its limits; an
// error names its field ("body: ", "policy: ", "explain: ", "edits...", or "NAME: unknown field");
// an accepted body has a known policy and edits that are a JSON array of at most max_edits objects.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rapidjson/document.h"
#include "whatif_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;  // the server's default --max-body-bytes
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const draforge::server::WhatifLimits limits;
  auto r = draforge::server::ParseWhatifBody(body, limits);
  if (!r.ok()) {
    const std::string& m = r.error().message;
    if (r.error().code != DRAFORGE_EINVALID || m.empty()) __builtin_trap();
    const bool named = m.rfind("body: ", 0) == 0 || m.rfind("policy: ", 0) == 0 || m.rfind("explain: ", 0) == 0 ||
                       m.rfind("edits", 0) == 0 || m.find(": unknown field") != std::string::npos ||
                       m.find(": given more than once") != std::string::npos;
    if (!named) __builtin_trap();
    return 0;
  }
  if (r->policy != "first-fit" && r->policy != "most-allocated" && r->policy != "least-allocated") __builtin_trap();
  if (!r->edits_json.empty()) {
    rapidjson::Document edits;
    edits.Parse(r->edits_json.c_str(), r->edits_json.size());
    if (edits.HasParseError() || !edits.IsArray() || edits.Empty() || edits.Size() > limits.max_edits) __builtin_trap();
    for (const auto& e : edits.GetArray()) {
      if (!e.IsObject()) __builtin_trap();
    }
  }
  return 0;
}
