#include "whatif_view.h"

#include <algorithm>
#include <utility>

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

// The allocator's options every what-if runs with: the server's step budget.
AllocateOptions Budgeted(const WhatifLimits& limits) {
  AllocateOptions o;
  o.max_steps = limits.max_steps;
  return o;
}

// Nodes named only by ResourceSlices (no Node objects): at most one per slice.
size_t Nodes(const Snapshot& snapshot) {
  return snapshot.count("nodes") > 0 ? snapshot.count("nodes") : snapshot.count("resourceslices");
}

// DRAFORGE_EINVALID when the snapshot's pods x nodes is over limits.max_pairs: every what-if judges
// pods on every node.
Result<size_t> WithinPairs(const Snapshot& snapshot, const WhatifLimits& limits) {
  const size_t nodes = Nodes(snapshot);
  const size_t pods = snapshot.count("pods");
  if (nodes > 0 && pods > static_cast<size_t>(limits.max_pairs) / nodes) {
    return WhatifInvalid("what-if too large: " + std::to_string(pods) + " pods x " + std::to_string(nodes) +
                         " nodes is over the server's limit of " + std::to_string(limits.max_pairs) +
                         " pod-node pairs (draforge-server --whatif-max-pairs; `draforge whatif` has no limit)");
  }
  return nodes;
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
  auto within = WithinPairs(base, limits);
  if (!within.ok()) return std::move(within).error();
  const size_t nodes = *within;
  // First without the explain funnel (its sentences cost about a millisecond per pending pod and
  // node, the rest of a replay microseconds): when pods stay pending and the request wants
  // sentences, the replay runs again with them if (pending pods x nodes) is within the budget;
  // otherwise the answer keeps the allocator's reasons and says so in "notes".
  auto replayed = ReplayJson(base, request.policy, Budgeted(limits), false);
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
      replayed = ReplayJson(base, request.policy, Budgeted(limits), true);
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

Result<std::string> RenderWhatifPreempt(const Snapshot& snapshot, const PreemptRequest& request,
                                        const WhatifLimits& limits) {
  auto within = WithinPairs(snapshot, limits);
  if (!within.ok()) return std::move(within).error();
  return WhatifPreemptJson(snapshot, request.pod, request.dra_aware, Budgeted(limits));
}

Result<std::string> RenderWhatifGang(const Snapshot& snapshot, const GangRequest& request, const WhatifLimits& limits) {
  auto within = WithinPairs(snapshot, limits);
  if (!within.ok()) return std::move(within).error();
  return GangJson(snapshot, request.group, request.policy, request.workload_template, Budgeted(limits));
}

Result<std::string> RenderWhatifFragmentation(const Snapshot& snapshot, const FragmentationRequest& request,
                                              const WhatifLimits& limits) {
  auto within = WithinPairs(snapshot, limits);
  if (!within.ok()) return std::move(within).error();
  DefragRequest defrag;
  defrag.shape_pod = request.shape_pod;
  defrag.max_moves = request.max_moves;
  defrag.max_candidates = request.max_candidates;
  defrag.max_trials = request.max_trials;
  return FragmentationJson(snapshot, defrag, Budgeted(limits));
}

}  // namespace draforge::server
