#include "whatif_view.h"

#include <set>
#include <utility>

#include "draforge/place.h"
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

// draforge_replay_json with the request's policy and explain and the server's step budget.
Result<std::string> ReplayJson(const Snapshot& snapshot, const WhatifRequest& request, const WhatifLimits& limits) {
  draforge_replay_options ro = DRAFORGE_REPLAY_OPTIONS_INIT;
  ro.policy = request.policy.c_str();
  ro.explain = request.explain ? 1 : 0;
  draforge_allocate_options ao = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  ao.max_steps = limits.max_steps;
  draforge_buffer out{nullptr, 0};
  draforge_error* e = nullptr;
  const int rc = draforge_replay_json(&out, snapshot.c_handle(), &ro, &ao, &e);
  if (rc != DRAFORGE_OK) {
    draforge_buffer_dispose(&out);
    Error err{rc, e != nullptr ? draforge_error_message(e) : "draforge error " + std::to_string(rc), "", ""};
    draforge_error_destroy(e);
    return err;
  }
  std::string text(out.ptr, out.size);
  draforge_buffer_dispose(&out);
  return text;
}

}  // namespace

Result<WhatifRequest> ParseWhatifQuery(const Query& query) {
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

Result<std::string> RenderWhatifReplay(const Snapshot& snapshot, const WhatifRequest& request,
                                       const WhatifLimits& limits) {
  Snapshot base = snapshot;
  std::string changes;
  if (!request.edits_json.empty()) {
    auto edited = WhatifEdit(snapshot, request.edits_json);
    if (!edited.ok()) {
      // A node, pod or claim the snapshot does not have is a bad request like a malformed edit.
      Error err = std::move(edited).error();
      if (err.code == DRAFORGE_ENOTFOUND) err.code = DRAFORGE_EINVALID;
      return err;
    }
    base = edited->snapshot;
    changes = std::move(edited->changes_json);
  }
  // Nodes named only by ResourceSlices (no Node objects): at most one per slice.
  const size_t nodes = base.count("nodes") > 0 ? base.count("nodes") : base.count("resourceslices");
  const size_t pods = base.count("pods");
  if (nodes > 0 && pods > static_cast<size_t>(limits.max_pairs) / nodes) {
    return Invalid("what-if too large: " + std::to_string(pods) + " pods x " + std::to_string(nodes) +
                   " nodes is over the server's limit of " + std::to_string(limits.max_pairs) +
                   " pod-node pairs (draforge-server --whatif-max-pairs; `draforge whatif replay` has no limit)");
  }
  auto replayed = ReplayJson(base, request, limits);
  if (!replayed.ok() || changes.empty()) return replayed;
  // "edits" first, as `draforge whatif replay -o json` prints it.
  rapidjson::Document result, edits, ordered(rapidjson::kObjectType);
  result.Parse(replayed->c_str());
  edits.Parse(changes.c_str());
  if (result.HasParseError() || !result.IsObject() || edits.HasParseError()) {
    return Error{DRAFORGE_EINTERNAL, "the library's what-if answer is not a JSON object", "", ""};
  }
  auto& a = ordered.GetAllocator();
  ordered.AddMember("edits", rapidjson::Value(edits, a), a);
  for (auto& m : result.GetObject()) ordered.AddMember(rapidjson::Value(m.name, a), rapidjson::Value(m.value, a), a);
  return Serialize(ordered);
}

}  // namespace draforge::server
