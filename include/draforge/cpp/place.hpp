// DRAForge C++ API: cluster-wide placement (draforge/place.h), results as JSON.
#ifndef DRAFORGE_CPP_PLACE_HPP
#define DRAFORGE_CPP_PLACE_HPP

#include <cstdint>
#include <string>
#include <string_view>

#include "draforge/cpp/alloc.hpp"
#include "draforge/cpp/cluster.hpp"
#include "draforge/cpp/result.hpp"
#include "draforge/place.h"

namespace draforge {

// On which nodes pod `pod` ("ns/name" or "name") fits, as draforge_place_pod_json's JSON.
inline Result<std::string> PlacePodJson(const Snapshot& snapshot, std::string_view pod,
                                        const AllocateOptions& options = {}) {
  detail::CString p(pod);
  const draforge_allocate_options o = detail::COptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_place_pod_json(out, snapshot.c_handle(), p.get(), &o, e);
  });
}

enum class PrototypeKind {
  kClaim = DRAFORGE_PROTOTYPE_CLAIM,
  kTemplate = DRAFORGE_PROTOTYPE_TEMPLATE,
  kPod = DRAFORGE_PROTOTYPE_POD,
};

// How many more claims like claim or template `name` fit, and where (cap 0: the default, 1000), as
// draforge_how_many_more_json's JSON.
inline Result<std::string> HowManyMoreJson(const Snapshot& snapshot, PrototypeKind kind, std::string_view name,
                                           int64_t cap = 0, const AllocateOptions& options = {}) {
  detail::CString n(name);
  const draforge_allocate_options o = detail::COptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_how_many_more_json(out, snapshot.c_handle(), static_cast<int>(kind), n.get(), cap, &o, e);
  });
}

// Replays the snapshot's pending pods in queue order with `policy` ("first-fit", "most-allocated",
// "least-allocated"; "" for first-fit), as draforge_replay_json's JSON. `explain` false: a node whose
// devices do not fit gets the allocator's reason, not the explain funnel's sentence (faster).
inline Result<std::string> ReplayJson(const Snapshot& snapshot, std::string_view policy = {},
                                      const AllocateOptions& options = {}, bool explain = true) {
  detail::CString p(policy);
  draforge_replay_options ro = DRAFORGE_REPLAY_OPTIONS_INIT;
  ro.policy = p.get();
  ro.explain = explain ? 1 : 0;
  const draforge_allocate_options o = detail::COptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_replay_json(out, snapshot.c_handle(), &ro, &o, e);
  });
}

// A snapshot after what-if edits (draforge_whatif_edit) and what each edit did (a JSON array of
// sentences).
struct WhatifEdited {
  Snapshot snapshot;
  std::string changes_json;
};

// Applies the edits in `edits_json` (draforge_whatif_edit's JSON array) to a copy of `snapshot`.
inline Result<WhatifEdited> WhatifEdit(const Snapshot& snapshot, std::string_view edits_json) {
  detail::CString edits(edits_json);
  draforge_snapshot* raw = nullptr;
  draforge_buffer changes{nullptr, 0};
  draforge_error* e = nullptr;
  const int rc = draforge_whatif_edit(&raw, &changes, snapshot.c_handle(), edits.get(), &e);
  if (rc != DRAFORGE_OK) {
    draforge_buffer_dispose(&changes);
    return detail::TakeError(rc, e);
  }
  return WhatifEdited{Snapshot::Adopt(raw), detail::TakeBuffer(changes)};
}

// A replay's JSON (draforge_replay_json's) and the cluster after it (draforge_replay_after).
struct Replayed {
  Snapshot after;
  std::string json;
};

// Replays as ReplayJson does and keeps the cluster after the replay.
inline Result<Replayed> ReplayAfter(const Snapshot& snapshot, std::string_view policy = {},
                                    const AllocateOptions& options = {}, bool explain = true) {
  detail::CString p(policy);
  draforge_replay_options ro = DRAFORGE_REPLAY_OPTIONS_INIT;
  ro.policy = p.get();
  ro.explain = explain ? 1 : 0;
  const draforge_allocate_options o = detail::COptions(options);
  draforge_snapshot* raw = nullptr;
  draforge_buffer json{nullptr, 0};
  draforge_error* e = nullptr;
  const int rc = draforge_replay_after(&raw, &json, snapshot.c_handle(), &ro, &o, &e);
  if (rc != DRAFORGE_OK) {
    draforge_buffer_dispose(&json);
    return detail::TakeError(rc, e);
  }
  return Replayed{Snapshot::Adopt(raw), detail::TakeBuffer(json)};
}

// Places the pending members of PodGroup `group` ("ns/name") all or nothing with `policy` ("" for
// first-fit), as draforge_gang_json's JSON. `workload_template` ("WORKLOAD/TEMPLATE", or "") builds
// the PodGroup from a Workload's template when the PodGroup does not exist.
inline Result<std::string> GangJson(const Snapshot& snapshot, std::string_view group, std::string_view policy = {},
                                    std::string_view workload_template = {}, const AllocateOptions& options = {}) {
  detail::CString g(group);
  detail::CString p(policy);
  detail::CString w(workload_template);
  draforge_replay_options ro = DRAFORGE_REPLAY_OPTIONS_INIT;
  ro.policy = p.get();
  const draforge_allocate_options o = detail::COptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_gang_json(out, snapshot.c_handle(), g.get(), w.get(), &ro, &o, e);
  });
}

// What draforge_fragmentation_json is asked: a shape (YAML/JSON objects) or a pod of the snapshot
// ("ns/name") to make room for, and the search bounds. Both shapes empty: fragmentation only.
struct DefragRequest {
  std::string shape;
  std::string shape_pod;
  int max_moves = 3;
  int max_candidates = 16;
  int64_t max_trials = 1000;
};

// The fragmentation of `snapshot` and, with a shape, the defrag advice, as draforge_fragmentation_json's
// JSON.
inline Result<std::string> FragmentationJson(const Snapshot& snapshot, const DefragRequest& request = {},
                                             const AllocateOptions& options = {}) {
  detail::CString shape(request.shape);
  detail::CString shape_pod(request.shape_pod);
  draforge_defrag_options d = DRAFORGE_DEFRAG_OPTIONS_INIT;
  d.shape = request.shape.empty() ? nullptr : shape.get();
  d.shape_pod = request.shape_pod.empty() ? nullptr : shape_pod.get();
  d.max_moves = request.max_moves;
  d.max_candidates = request.max_candidates;
  d.max_trials = request.max_trials;
  const draforge_allocate_options o = detail::COptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_fragmentation_json(out, snapshot.c_handle(), &d, &o, e);
  });
}

// The preemption what-if for pending pod `pod` ("ns/name" or "name"), as
// draforge_whatif_preempt_json's JSON; `dra_aware` false answers for Kubernetes 1.37 as released.
inline Result<std::string> WhatifPreemptJson(const Snapshot& snapshot, std::string_view pod, bool dra_aware = true,
                                             const AllocateOptions& options = {}) {
  detail::CString p(pod);
  draforge_whatif_preempt_options po = DRAFORGE_WHATIF_PREEMPT_OPTIONS_INIT;
  po.dra_aware = dra_aware ? 1 : 0;
  const draforge_allocate_options o = detail::COptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_whatif_preempt_json(out, snapshot.c_handle(), p.get(), &po, &o, e);
  });
}

}  // namespace draforge

#endif  // DRAFORGE_CPP_PLACE_HPP
