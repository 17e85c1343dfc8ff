#include "whatif_view.h"

#include <algorithm>
#include <utility>

#include "draforge/place.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::server {
namespace {

Error WhatifInvalid(std::string message) { return Error{DRAFORGE_EINVALID, std::move(message), "", ""}; }

std::string ToJson(const rapidjson::Value& v) {
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
    return WhatifInvalid("what-if too large: " + std::to_string(pods) + " pods x " + std::to_string(nodes) +
                   " nodes is over the server's limit of " + std::to_string(limits.max_pairs) +
                   " pod-node pairs (draforge-server --whatif-max-pairs; `draforge whatif replay` has no limit)");
  }
  // First without the explain funnel (its sentences cost about a millisecond per pending pod and
  // node, the rest of a replay microseconds): when pods stay pending and the request wants
  // sentences, the replay runs again with them if (pending pods x nodes) is within the budget;
  // otherwise the answer keeps the allocator's reasons and says so in "notes".
  WhatifRequest quick = request;
  quick.explain = false;
  auto replayed = ReplayJson(base, quick, limits);
  if (!replayed.ok()) return replayed;
  rapidjson::Document result;
  result.Parse(replayed->c_str());
  if (result.HasParseError() || !result.IsObject() || !result.HasMember("pending") || !result["pending"].IsArray()) {
    return Error{DRAFORGE_EINTERNAL, "the library's what-if answer is not a replay object", "", ""};
  }
  std::string note;
  const size_t pending = result["pending"].Size();
  if (request.explain && pending > 0) {
    if (pending <= static_cast<size_t>(limits.max_explained) / std::max<size_t>(nodes, 1)) {
      replayed = ReplayJson(base, request, limits);
      if (!replayed.ok()) return replayed;
      result.Parse(replayed->c_str());
      if (result.HasParseError() || !result.IsObject()) {
        return Error{DRAFORGE_EINTERNAL, "the library's what-if answer is not a JSON object", "", ""};
      }
    } else {
      note = "explain off: " + std::to_string(pending) + " pending pods x " + std::to_string(nodes) +
             " nodes is over the server's limit of " + std::to_string(limits.max_explained) +
             " explained pod-node pairs (draforge-server --whatif-max-explained); the reasons are the allocator's";
    }
  }
  if (changes.empty() && note.empty()) return *std::move(replayed);
  // "edits" first, as `draforge whatif replay -o json` prints it; "notes" last.
  rapidjson::Document ordered(rapidjson::kObjectType);
  auto& a = ordered.GetAllocator();
  if (!changes.empty()) {
    rapidjson::Document edits;
    edits.Parse(changes.c_str());
    if (edits.HasParseError()) return Error{DRAFORGE_EINTERNAL, "the library's edit sentences are not JSON", "", ""};
    ordered.AddMember("edits", rapidjson::Value(edits, a), a);
  }
  for (auto& m : result.GetObject()) ordered.AddMember(rapidjson::Value(m.name, a), rapidjson::Value(m.value, a), a);
  if (!note.empty()) {
    rapidjson::Value notes(rapidjson::kArrayType);
    notes.PushBack(rapidjson::Value(note.c_str(), static_cast<rapidjson::SizeType>(note.size()), a), a);
    ordered.AddMember("notes", notes, a);
  }
  return ToJson(ordered);
}

}  // namespace draforge::server
