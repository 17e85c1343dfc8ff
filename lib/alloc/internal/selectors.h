// CEL selector evaluation for the allocator and explain: a compile cache and upstream's error texts.
#ifndef DRAFORGE_ALLOC_INTERNAL_SELECTORS_H_
#define DRAFORGE_ALLOC_INTERNAL_SELECTORS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "alloc/features.h"
#include "api/resource_claim.h"
#include "api/resource_common.h"
#include "api/resource_slice.h"
#include "cel/selector.h"

namespace draforge::alloc::internal {

// Compiled selectors by expression (upstream cel.Cache). Thread-safe.
class SelectorCache {
 public:
  explicit SelectorCache(const Features& features);
  absl::StatusOr<std::shared_ptr<const cel::DeviceSelector>> Get(const std::string& expression);

 private:
  cel::CompileOptions options_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, absl::StatusOr<std::shared_ptr<const cel::DeviceSelector>>> compiled_
      ABSL_GUARDED_BY(mu_);
};

// Who owns the selectors, for error messages: "class X" or "claim ns/name".
struct SelectorOwner {
  std::string_view kind;  // "class" or "claim"
  std::string name;
};

// Evaluates `selectors` in order against `device` (of `driver`; `device_id` "driver/pool/device" for
// messages): true when all match. Errors, worded as upstream:
//   "<owner>: selector #i: CEL expression empty (unsupported selector type?)" is checked earlier;
//   "<owner>: selector #i: CEL compile error: ..."
//   "<owner>: selector #i on device D: CEL runtime error: ..." (+ the optional-chaining hint for
//   "no such key").
absl::StatusOr<bool> SelectorsMatch(SelectorCache& cache, const SelectorOwner& owner,
                                    const std::vector<api::DeviceSelector>& selectors, const api::Device& device,
                                    std::string_view driver, std::string_view device_id, const Features& features);

// resourceclaim.ToleratesTaint.
bool ToleratesTaint(const api::DeviceToleration& toleration, const api::DeviceTaint& taint);
// Whether a NoSchedule/NoExecute taint is not tolerated by any of `tolerations`.
bool TaintPreventsAllocation(const std::vector<api::DeviceTaint>& taints,
                             const std::vector<api::DeviceToleration>& tolerations);

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_SELECTORS_H_
