#include "whatif_request.h"

#include <set>
#include <utility>

#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::server {
namespace {

Error Invalid(std::string message) { return Error{DRAFORGE_EINVALID, std::move(message), "", ""}; }

bool KnownPolicy(std::string_view p) { return p == "first-fit" || p == "most-allocated" || p == "least-allocated"; }

std::string UnknownPolicy(std::string_view field, std::string_view p) {
  return std::string(field) + ": unknown policy \"" + std::string(p) +
         "\" (first-fit, most-allocated, least-allocated)";
}

// The deepest nesting of arrays and objects in `text`, counted outside strings; stops counting
// past `limit` (the caller refuses the body then). Run before the parser so that no parser ever
// sees a body nested without bound.
int Depth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

std::string Serialize(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

Result<WhatifRequest> ParseWhatifQuery(const std::multimap<std::string, std::string>& query) {
  WhatifRequest r;
  std::set<std::string> seen;
  for (const auto& [name, value] : query) {
    if (!seen.insert(name).second) return Invalid("query parameter \"" + name + "\" is given more than once");
    if (name == "policy") {
      if (!KnownPolicy(value)) return Invalid(UnknownPolicy("query parameter \"policy\"", value));
      r.policy = value;
    } else if (name == "explain") {
      if (value != "true" && value != "false") {
        return Invalid("query parameter \"explain\" must be true or false, not \"" + value + "\"");
      }
      r.explain = value == "true";
    } else {
      return Invalid("unknown query parameter \"" + name +
                     "\" (allowed: policy, explain; edits need POST with a JSON body)");
    }
  }
  return r;
}

Result<WhatifRequest> ParseWhatifBody(std::string_view body, const WhatifLimits& limits) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Invalid("body: empty; want a JSON object such as {\"policy\":\"first-fit\",\"edits\":[]}");
  }
  if (Depth(body, limits.max_depth) > limits.max_depth) {
    return Invalid("body: nested deeper than " + std::to_string(limits.max_depth) + " levels");
  }
  rapidjson::Document d;
  // Iterative: no recursion whatever the input; encoding checked: the edits go on to the library.
  d.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(body.data(), body.size());
  if (d.HasParseError()) {
    return Invalid("body: not valid JSON at offset " + std::to_string(d.GetErrorOffset()) + ": " +
                   rapidjson::GetParseError_En(d.GetParseError()));
  }
  if (!d.IsObject()) return Invalid("body: want a JSON object {\"policy\":..., \"explain\":..., \"edits\":[...]}");
  WhatifRequest r;
  std::set<std::string> seen;
  for (const auto& m : d.GetObject()) {
    const std::string name(m.name.GetString(), m.name.GetStringLength());
    if (!seen.insert(name).second) return Invalid(name + ": given more than once");
    if (name == "policy") {
      if (!m.value.IsString()) return Invalid("policy: want a string");
      const std::string p(m.value.GetString(), m.value.GetStringLength());
      if (!KnownPolicy(p)) return Invalid(UnknownPolicy("policy", p));
      r.policy = p;
    } else if (name == "explain") {
      if (!m.value.IsBool()) return Invalid("explain: want true or false");
      r.explain = m.value.GetBool();
    } else if (name == "edits") {
      if (!m.value.IsArray()) return Invalid("edits: want an array of edits");
      const auto& edits = m.value.GetArray();
      if (edits.Size() > limits.max_edits) {
        return Invalid("edits: " + std::to_string(edits.Size()) + " edits, at most " +
                       std::to_string(limits.max_edits) + " in one request");
      }
      int64_t added = 0;
      for (rapidjson::SizeType i = 0; i < edits.Size(); ++i) {
        const auto& e = edits[i];
        const std::string at = "edits[" + std::to_string(i) + "]";
        if (!e.IsObject()) return Invalid(at + ": want an object {\"op\":..., ...}");
        // The library checks every edit (and names the entry); the server bounds what they cost.
        auto op = e.FindMember("op");
        auto count = e.FindMember("count");
        if (op != e.MemberEnd() && op->value.IsString() && std::string_view(op->value.GetString()) == "add-nodes" &&
            count != e.MemberEnd() && count->value.IsInt64() && count->value.GetInt64() > 0) {
          added += count->value.GetInt64();
          if (added > limits.max_added_nodes) {
            return Invalid(at + ".count: the edits add more than " + std::to_string(limits.max_added_nodes) +
                           " nodes in all (the server's limit)");
          }
        }
      }
      if (!edits.Empty()) r.edits_json = Serialize(m.value);
    } else {
      return Invalid(name + ": unknown field (allowed: policy, explain, edits)");
    }
  }
  return r;
}


}  // namespace draforge::server
