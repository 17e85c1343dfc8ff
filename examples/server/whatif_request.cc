#include "whatif_request.h"

#include <charconv>
#include <set>
#include <tuple>
#include <utility>

#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::server {
namespace {

Error Invalid(std::string message) { return BadQuery(std::move(message)); }

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

// A parameter that must be given and not be empty; `what` says what it names.
Result<std::string> Required(const QueryParams& params, const std::string& name, std::string_view what) {
  if (params.Get(name).empty()) {
    return Invalid("query parameter \"" + name + "\" is required (" + std::string(what) + ")");
  }
  return params.Get(name);
}

// The policy parameter, when given, into `policy`.
Result<bool> QueryPolicy(const QueryParams& params, std::string& policy) {
  if (!params.Has("policy")) return false;
  const std::string value = params.Get("policy");
  if (!KnownPolicy(value)) return Invalid(UnknownPolicy("query parameter \"policy\"", value));
  policy = value;
  return true;
}

// A positive integer no larger than `limit` (the server's).
Result<int64_t> BoundedInt(std::string_view name, const std::string& text, int64_t limit) {
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1) {
    return Invalid("query parameter \"" + std::string(name) + "\": want a positive integer, not \"" + text + "\"");
  }
  if (n > limit) {
    return Invalid("query parameter \"" + std::string(name) + "\": " + text + " is over the server's limit of " +
                   std::to_string(limit));
  }
  return n;
}

}  // namespace

Result<WhatifRequest> ParseWhatifQuery(const Query& query) {
  auto params = QueryParams::Parse(query, {"policy", "explain"}, "; edits need POST with a JSON body");
  if (!params.ok()) return std::move(params).error();
  WhatifRequest r;
  if (auto policy = QueryPolicy(*params, r.policy); !policy.ok()) return std::move(policy).error();
  auto explain = params->Bool("explain");
  if (!explain.ok()) return std::move(explain).error();
  r.explain = explain->value_or(true);
  return r;
}

Result<PreemptRequest> ParsePreemptQuery(const Query& query) {
  auto params = QueryParams::Parse(query, {"pod", "mode"});
  if (!params.ok()) return std::move(params).error();
  PreemptRequest r;
  auto pod = Required(*params, "pod", "the pending pod, NS/NAME");
  if (!pod.ok()) return std::move(pod).error();
  r.pod = *std::move(pod);
  if (params->Has("mode")) {
    const std::string mode = params->Get("mode");
    if (mode != "kep-5690" && mode != "released") {
      return Invalid("query parameter \"mode\": unknown mode \"" + mode + "\" (kep-5690, released)");
    }
    r.dra_aware = mode == "kep-5690";
  }
  return r;
}

Result<GangRequest> ParseGangQuery(const Query& query) {
  auto params = QueryParams::Parse(query, {"group", "policy", "workload", "template"});
  if (!params.ok()) return std::move(params).error();
  GangRequest r;
  auto group = Required(*params, "group", "the PodGroup, NS/NAME");
  if (!group.ok()) return std::move(group).error();
  r.group = *std::move(group);
  if (auto policy = QueryPolicy(*params, r.policy); !policy.ok()) return std::move(policy).error();
  if (params->Has("workload") != params->Has("template")) {
    return Invalid("query parameters \"workload\" and \"template\" come together");
  }
  if (params->Has("workload")) {
    const std::string workload = params->Get("workload"), tmpl = params->Get("template");
    if (workload.empty() || tmpl.empty() || workload.find('/') != std::string::npos) {
      return Invalid("query parameters \"workload\" and \"template\": want a Workload name (in the group's "
                     "namespace) and one of its podGroupTemplates");
    }
    r.workload_template = workload + "/" + tmpl;
  }
  return r;
}

Result<FragmentationRequest> ParseFragmentationQuery(const Query& query, const WhatifLimits& limits) {
  auto params = QueryParams::Parse(query, {"shapePod", "maxMoves", "maxCandidates", "maxTrials"});
  if (!params.ok()) return std::move(params).error();
  FragmentationRequest r;
  if (params->Has("shapePod")) {
    r.shape_pod = params->Get("shapePod");
    if (r.shape_pod.empty()) return Invalid("query parameter \"shapePod\" must not be empty");
  }
  const bool advice = !r.shape_pod.empty();
  int64_t moves = r.max_moves, candidates = r.max_candidates, trials = r.max_trials;
  for (auto [name, value, limit] : {std::tuple{"maxMoves", &moves, int64_t{limits.max_defrag_moves}},
                                    std::tuple{"maxCandidates", &candidates, int64_t{limits.max_defrag_candidates}},
                                    std::tuple{"maxTrials", &trials, limits.max_defrag_trials}}) {
    if (!params->Has(name)) continue;
    if (!advice) return Invalid(std::string("query parameter \"") + name + "\" bounds the defrag advice: give shapePod too");
    auto n = BoundedInt(name, params->Get(name), limit);
    if (!n.ok()) return std::move(n).error();
    *value = *n;
  }
  r.max_moves = static_cast<int>(moves);
  r.max_candidates = static_cast<int>(candidates);
  r.max_trials = trials;
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
