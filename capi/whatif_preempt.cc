// The C ABI over lib/alloc/preemption: the preemption what-if (include/draforge/place.h), its result
// as one JSON object.
#include <string>

#include "absl/strings/str_cat.h"
#include "alloc/preemption.h"
#include "alloc/preemption_json.h"
#include "capi/internal.h"
#include "draforge/place.h"

namespace draforge::capi {
namespace {
const draforge_whatif_preempt_options kDefaultPreemptOptions = DRAFORGE_WHATIF_PREEMPT_OPTIONS_INIT;
}  // namespace
}  // namespace draforge::capi

extern "C" {

int draforge_whatif_preempt_options_init(draforge_whatif_preempt_options* options, unsigned int version) {
  return draforge::capi::InitOptions(options, version, DRAFORGE_WHATIF_PREEMPT_OPTIONS_VERSION,
                                     draforge::capi::kDefaultPreemptOptions);
}

int draforge_whatif_preempt_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* pod,
                                 const draforge_whatif_preempt_options* options,
                                 const draforge_allocate_options* alloc_options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || pod == nullptr || *pod == '\0') {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_whatif_preempt_json: out, snapshot and pod must not be NULL or empty"),
          error);
    }
    *out = draforge_buffer{nullptr, 0};
    const draforge_whatif_preempt_options& po = options != nullptr ? *options : capi::kDefaultPreemptOptions;
    if (absl::Status st =
            capi::CheckVersion("draforge_whatif_preempt_options", po.version, DRAFORGE_WHATIF_PREEMPT_OPTIONS_VERSION);
        !st.ok()) {
      return capi::Fail(st, error);
    }
    auto effective = capi::EffectiveOptions(alloc_options);
    if (!effective.ok()) return capi::Fail(effective.status(), error);
    auto features = capi::FeaturesOf(effective->feature_gates, effective->unlock_locked_gates != 0,
                                     effective->kubernetes_version);
    if (!features.ok()) return capi::Fail(features.status(), error);
    alloc::PreemptionOptions preempt;
    preempt.features = *features;
    preempt.max_steps = effective->max_steps;
    preempt.dra_aware = po.dra_aware != 0;
    preempt.explain = po.explain != 0;
    std::string ns, name;
    capi::SplitRef(pod, "default", ns, name);
    auto result = alloc::Preempt(*snapshot->snapshot, ns, name, preempt);
    if (!result.ok()) return capi::Fail(result.status(), error);
    return capi::ToBuffer(alloc::PreemptionJson(*result), out, error);
  });
}

}  // extern "C"
