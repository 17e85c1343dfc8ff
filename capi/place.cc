// The C ABI over lib/alloc/placement: pod placement and "how many more" (include/draforge/place.h),
// the replay of pending pods (lib/alloc/replay), each result as one JSON object, and what-if edits
// of a snapshot (lib/alloc/whatif_edits).
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "alloc/placement.h"
#include "alloc/placement_json.h"
#include "alloc/replay.h"
#include "alloc/replay_json.h"
#include "alloc/whatif_edits.h"
#include "api/codec.h"
#include "common/json_string.h"
#include "rapidjson/document.h"
#include "sim/whatif_nodes.h"
#include "capi/internal.h"
#include "draforge/place.h"

namespace draforge::capi {
namespace {
const draforge_replay_options kDefaultReplayOptions = DRAFORGE_REPLAY_OPTIONS_INIT;
}  // namespace
}  // namespace draforge::capi

extern "C" {

int draforge_replay_options_init(draforge_replay_options* options, unsigned int version) {
  return draforge::capi::InitOptions(options, version, DRAFORGE_REPLAY_OPTIONS_VERSION,
                                     draforge::capi::kDefaultReplayOptions);
}

int draforge_replay_json(draforge_buffer* out, const draforge_snapshot* snapshot,
                         const draforge_replay_options* options, const draforge_allocate_options* alloc_options,
                         draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_replay_json: out and snapshot must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    const draforge_replay_options& ro = options != nullptr ? *options : capi::kDefaultReplayOptions;
    if (absl::Status st = capi::CheckVersion("draforge_replay_options", ro.version, DRAFORGE_REPLAY_OPTIONS_VERSION);
        !st.ok()) {
      return capi::Fail(st, error);
    }
    alloc::ReplayOptions replay;
    if (ro.policy != nullptr && *ro.policy != '\0') {
      auto policy = alloc::ParseReplayPolicy(ro.policy);
      if (!policy) {
        return capi::Fail(absl::InvalidArgumentError(absl::StrCat(
                              "draforge_replay_options.policy: unknown policy \"", ro.policy,
                              "\" (want first-fit, most-allocated or least-allocated)")),
                          error);
      }
      replay.policy = *policy;
    }
    replay.explain = ro.explain != 0;
    auto effective = capi::EffectiveOptions(alloc_options);
    if (!effective.ok()) return capi::Fail(effective.status(), error);
    auto features = capi::FeaturesOf(effective->feature_gates, effective->unlock_locked_gates != 0, effective->kubernetes_version);
    if (!features.ok()) return capi::Fail(features.status(), error);
    replay.features = *features;
    replay.max_steps = effective->max_steps;
    auto result = alloc::Replay(*snapshot->snapshot, replay);
    if (!result.ok()) return capi::Fail(result.status(), error);
    auto json = alloc::ReplayJson(*result);
    if (!json.ok()) return capi::Fail(json.status(), error);
    return capi::ToBuffer(*json, out, error);
  });
}

int draforge_whatif_edit(draforge_snapshot** out, draforge_buffer* changes, const draforge_snapshot* snapshot,
                         const char* edits_json, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || edits_json == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_whatif_edit: out, snapshot and edits_json must not be NULL"), error);
    }
    *out = nullptr;
    if (changes != nullptr) *changes = draforge_buffer{nullptr, 0};
    auto expanded = sim::ExpandWhatifNodePools(edits_json);
    if (!expanded.ok()) return capi::Fail(expanded.status(), error);
    auto edits = alloc::ParseWhatifEdits(*expanded);
    if (!edits.ok()) return capi::Fail(edits.status(), error);
    auto result = alloc::ApplyWhatifEdits(*snapshot->snapshot, *edits);
    if (!result.ok()) return capi::Fail(result.status(), error);
    if (changes != nullptr) {
      rapidjson::Document d(rapidjson::kArrayType);
      for (const std::string& c : result->changes) d.PushBack(JsonString(c, d.GetAllocator()), d.GetAllocator());
      if (int rc = capi::ToBuffer(api::WriteJson(d, false), changes, error); rc != DRAFORGE_OK) return rc;
    }
    *out = new draforge_snapshot{std::move(result->snapshot)};
    return DRAFORGE_OK;
  });
}

int draforge_place_pod_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* pod,
                            const draforge_allocate_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || pod == nullptr || *pod == '\0') {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_place_pod_json: out, snapshot and pod must not be NULL or empty"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto effective = capi::EffectiveOptions(options);
    if (!effective.ok()) return capi::Fail(effective.status(), error);
    auto features = capi::FeaturesOf(effective->feature_gates, effective->unlock_locked_gates != 0, effective->kubernetes_version);
    if (!features.ok()) return capi::Fail(features.status(), error);
    alloc::PlaceOptions place;
    place.features = *features;
    place.max_steps = effective->max_steps;
    std::string ns, name;
    capi::SplitRef(pod, "default", ns, name);
    auto placement = alloc::Place(*snapshot->snapshot, ns, name, place);
    if (!placement.ok()) return capi::Fail(placement.status(), error);
    auto json = alloc::PodPlacementJson(*placement);
    if (!json.ok()) return capi::Fail(json.status(), error);
    return capi::ToBuffer(*json, out, error);
  });
}

int draforge_how_many_more_json(draforge_buffer* out, const draforge_snapshot* snapshot, int kind, const char* name,
                                int64_t cap, const draforge_allocate_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || name == nullptr || *name == '\0') {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_how_many_more_json: out, snapshot and name must not be NULL or empty"),
          error);
    }
    *out = draforge_buffer{nullptr, 0};
    if (kind != DRAFORGE_PROTOTYPE_CLAIM && kind != DRAFORGE_PROTOTYPE_TEMPLATE && kind != DRAFORGE_PROTOTYPE_POD) {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat("draforge_how_many_more_json: unknown kind ", kind)),
                        error);
    }
    if (cap < 0) {
      return capi::Fail(absl::InvalidArgumentError(
                            absl::StrCat("draforge_how_many_more_json: cap must be 0 (default) or positive, got ", cap)),
                        error);
    }
    auto effective = capi::EffectiveOptions(options);
    if (!effective.ok()) return capi::Fail(effective.status(), error);
    auto features = capi::FeaturesOf(effective->feature_gates, effective->unlock_locked_gates != 0, effective->kubernetes_version);
    if (!features.ok()) return capi::Fail(features.status(), error);
    alloc::HowManyMoreOptions more;
    more.features = *features;
    more.max_steps = effective->max_steps;
    if (cap > 0) more.cap = cap;
    std::string ns, object;
    capi::SplitRef(name, "default", ns, object);
    absl::StatusOr<alloc::HowManyMoreResult> result;
    if (kind == DRAFORGE_PROTOTYPE_POD) {
      const api::Pod* pod = snapshot->snapshot->GetPod(ns, object);
      if (pod == nullptr) return capi::Fail(absl::NotFoundError(absl::StrCat("pod ", ns, "/", object, " not found")), error);
      auto unit = alloc::PodUnit(*snapshot->snapshot, *pod);
      if (!unit.ok()) return capi::Fail(unit.status(), error);
      result = alloc::HowManyMore(*snapshot->snapshot, *unit, more);
    } else {
      result = alloc::HowManyMore(
          *snapshot->snapshot,
          kind == DRAFORGE_PROTOTYPE_CLAIM ? alloc::PrototypeKind::kClaim : alloc::PrototypeKind::kTemplate, ns, object,
          more);
    }
    if (!result.ok()) return capi::Fail(result.status(), error);
    auto json = alloc::HowManyMoreJson(*result);
    if (!json.ok()) return capi::Fail(json.status(), error);
    return capi::ToBuffer(*json, out, error);
  });
}

}  // extern "C"
