// The views explain works on: a pool's slices, a candidate device, a request (or subrequest) of
// the claim. Shared by the funnel (internal/funnel.h) and the claim-level conflict checks
// (internal/claim_conflicts.h, choice_conflicts.h), which look at the same candidates.
#ifndef DRAFORGE_ALLOC_INTERNAL_EXPLAIN_VIEWS_H_
#define DRAFORGE_ALLOC_INTERNAL_EXPLAIN_VIEWS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/allocator.h"
#include "alloc/features.h"
#include "api/resource_claim.h"
#include "api/resource_slice.h"

namespace draforge::alloc::internal {

// A pool's slices of the generation explain looks at.
struct PoolView {
  std::string_view driver;
  std::string_view pool;
  std::vector<const api::ResourceSlice*> slices;  // by name
};

struct Candidate {
  const PoolView* pool;
  const api::ResourceSlice* slice;
  const api::Device* device;
  DeviceID id;
};

inline std::string Devices(int64_t n) { return absl::StrCat(n, n == 1 ? " device" : " devices"); }

inline std::string JoinNames(const std::vector<std::string>& names) {
  if (names.size() <= 1) return absl::StrJoin(names, "");
  if (names.size() <= 4) {
    return absl::StrCat(absl::StrJoin(names.begin(), names.end() - 1, ", "), " and ", names.back());
  }
  return absl::StrCat(absl::StrJoin(names.begin(), names.begin() + 3, ", "), " and ", names.size() - 3, " more");
}

struct ReqView {
  std::string name, base, sub, class_name;
  const std::vector<api::DeviceSelector>* selectors;
  const std::vector<api::DeviceToleration>* tolerations;
  const api::CapacityRequirements* capacity;
  bool admin = false, all = false;
  int64_t count = 1;
  const std::vector<api::DeviceDerivedAttribute>* derived = nullptr;  // DRADerivedAttributes

  // Whether a constraint over `requests` (empty: every request) covers this view: its request or
  // the subrequest itself is named.
  bool InScope(const std::vector<std::string>& requests) const {
    if (requests.empty()) return true;
    for (const auto& r : requests) {
      if (r == base || r == name) return true;
    }
    return false;
  }
  // Whether its constraints compare derived attributes (DRADerivedAttributes), which the claim-level
  // checks do not evaluate.
  bool Derives(const Features& features) const {
    return features.derived_attributes && derived != nullptr && !derived->empty();
  }
};

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_EXPLAIN_VIEWS_H_
