// The C ABI over lib/alloc/gang: gang placement of a PodGroup as one JSON object
// (include/draforge/place.h, draforge_gang_json).
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "alloc/gang.h"
#include "alloc/gang_json.h"
#include "alloc/replay.h"
#include "capi/internal.h"
#include "draforge/place.h"

extern "C" {

int draforge_gang_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* group,
                       const char* workload_template, const draforge_replay_options* options,
                       const draforge_allocate_options* alloc_options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || group == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_gang_json: out, snapshot and group must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    const draforge_replay_options defaults = DRAFORGE_REPLAY_OPTIONS_INIT;
    const draforge_replay_options& ro = options != nullptr ? *options : defaults;
    if (absl::Status st = capi::CheckVersion("draforge_replay_options", ro.version, DRAFORGE_REPLAY_OPTIONS_VERSION);
        !st.ok()) {
      return capi::Fail(st, error);
    }
    alloc::GangOptions gang;
    if (ro.policy != nullptr && *ro.policy != '\0') {
      auto policy = alloc::ParseReplayPolicy(ro.policy);
      if (!policy) {
        return capi::Fail(absl::InvalidArgumentError(absl::StrCat(
                              "draforge_replay_options.policy: unknown policy \"", ro.policy,
                              "\" (want first-fit, most-allocated or least-allocated)")),
                          error);
      }
      gang.replay.policy = *policy;
    }
    gang.replay.explain = ro.explain != 0;
    auto effective = capi::EffectiveOptions(alloc_options);
    if (!effective.ok()) return capi::Fail(effective.status(), error);
    auto features =
        capi::FeaturesOf(effective->feature_gates, effective->unlock_locked_gates != 0, effective->kubernetes_version);
    if (!features.ok()) return capi::Fail(features.status(), error);
    gang.replay.features = *features;
    gang.replay.max_steps = effective->max_steps;

    std::string_view key(group);
    std::string ns = "default";
    std::string name(key);
    if (size_t slash = key.find('/'); slash != std::string_view::npos) {
      ns = std::string(key.substr(0, slash));
      name = std::string(key.substr(slash + 1));
    }
    if (ns.empty() || name.empty() || name.find('/') != std::string::npos) {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat("draforge_gang_json: group: want NS/NAME, got \"",
                                                                std::string(key), "\"")),
                        error);
    }
    if (workload_template != nullptr && *workload_template != '\0') {
      std::string_view wt(workload_template);
      const size_t slash = wt.find('/');
      if (slash == std::string_view::npos || slash == 0 || slash + 1 == wt.size()) {
        return capi::Fail(absl::InvalidArgumentError(absl::StrCat(
                              "draforge_gang_json: workload_template: want WORKLOAD/TEMPLATE, got \"",
                              std::string(wt), "\"")),
                          error);
      }
      gang.workload = std::string(wt.substr(0, slash));
      gang.template_name = std::string(wt.substr(slash + 1));
    }
    auto result = alloc::PlaceGang(*snapshot->snapshot, ns, name, gang);
    if (!result.ok()) return capi::Fail(result.status(), error);
    auto json = alloc::GangJson(*result);
    if (!json.ok()) return capi::Fail(json.status(), error);
    return capi::ToBuffer(*json, out, error);
  });
}

}  // extern "C"
