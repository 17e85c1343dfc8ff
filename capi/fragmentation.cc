// The C ABI over lib/alloc/fragmentation and lib/alloc/defrag (include/draforge/place.h): the
// fragmentation of a snapshot and the defrag advice for a shape, as one JSON object.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "alloc/defrag.h"
#include "alloc/fragmentation.h"
#include "alloc/fragmentation_json.h"
#include "api/codec.h"
#include "capi/internal.h"
#include "draforge/place.h"

namespace draforge::capi {
namespace {
const draforge_defrag_options kDefaultDefragOptions = DRAFORGE_DEFRAG_OPTIONS_INIT;

// The shape of `options`, or nullopt when there is none.
absl::StatusOr<std::optional<alloc::DefragShape>> ShapeOf(const store::Snapshot& snapshot,
                                                          const draforge_defrag_options& o) {
  if (o.shape != nullptr && *o.shape != '\0') {
    auto decoded = api::DecodeStream(o.shape, api::DecodeOptions{});
    if (!decoded.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("draforge_defrag_options.shape: ", decoded.status().message()));
    }
    std::vector<api::Object> objects;
    for (auto& d : *decoded) {
      if (!d.object.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("draforge_defrag_options.shape: object ", d.index, ": ",
                                                        d.object.status().message()));
      }
      objects.push_back(*std::move(d.object));
    }
    auto shape = alloc::ShapeFromObjects(objects);
    if (!shape.ok()) return shape.status();
    return std::optional<alloc::DefragShape>(*std::move(shape));
  }
  if (o.shape_pod != nullptr && *o.shape_pod != '\0') {
    std::string ns, name;
    SplitRef(o.shape_pod, "default", ns, name);
    auto shape = alloc::ShapeFromPod(snapshot, ns, name);
    if (!shape.ok()) return shape.status();
    return std::optional<alloc::DefragShape>(*std::move(shape));
  }
  return std::optional<alloc::DefragShape>();
}

}  // namespace
}  // namespace draforge::capi

extern "C" {

int draforge_defrag_options_init(draforge_defrag_options* options, unsigned int version) {
  return draforge::capi::InitOptions(options, version, DRAFORGE_DEFRAG_OPTIONS_VERSION,
                                     draforge::capi::kDefaultDefragOptions);
}

int draforge_fragmentation_json(draforge_buffer* out, const draforge_snapshot* snapshot,
                                const draforge_defrag_options* options, const draforge_allocate_options* alloc_options,
                                draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_fragmentation_json: out and snapshot must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    const draforge_defrag_options& o = options != nullptr ? *options : capi::kDefaultDefragOptions;
    if (absl::Status st = capi::CheckVersion("draforge_defrag_options", o.version, DRAFORGE_DEFRAG_OPTIONS_VERSION);
        !st.ok()) {
      return capi::Fail(st, error);
    }
    auto effective = capi::EffectiveOptions(alloc_options);
    if (!effective.ok()) return capi::Fail(effective.status(), error);
    auto features =
        capi::FeaturesOf(effective->feature_gates, effective->unlock_locked_gates != 0, effective->kubernetes_version);
    if (!features.ok()) return capi::Fail(features.status(), error);
    const store::Snapshot& s = *snapshot->snapshot;
    auto shape = capi::ShapeOf(s, o);
    if (!shape.ok()) return capi::Fail(shape.status(), error);
    const alloc::FragmentationReport report = alloc::Fragmentation(s, *features);
    std::optional<alloc::DefragAdvice> advice;
    if (*shape) {
      alloc::DefragOptions d;
      d.features = *features;
      d.max_steps = effective->max_steps;
      d.max_moves = o.max_moves;
      d.max_candidates = o.max_candidates;
      d.max_trials = o.max_trials;
      auto a = alloc::Defrag(s, **shape, d);
      if (!a.ok()) return capi::Fail(a.status(), error);
      advice = *std::move(a);
    }
    auto json = alloc::FragmentationJson(report, advice ? &*advice : nullptr);
    if (!json.ok()) return capi::Fail(json.status(), error);
    return capi::ToBuffer(*json, out, error);
  });
}

}  // extern "C"
