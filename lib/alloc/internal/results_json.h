// What the JSON forms of the what-if answers (replay, gang, fragmentation, preemption, placement)
// share: lists of names, and a claim's device results as Kubernetes writes them.
#ifndef DRAFORGE_ALLOC_INTERNAL_RESULTS_JSON_H_
#define DRAFORGE_ALLOC_INTERNAL_RESULTS_JSON_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/resource_claim.h"
#include "common/json_string.h"
#include "rapidjson/document.h"

namespace draforge::alloc::internal {

using JsonAllocator = rapidjson::Document::AllocatorType;

// A JSON array of the strings of `list`.
inline rapidjson::Value JsonStrings(const std::vector<std::string>& list, JsonAllocator& a) {
  rapidjson::Value out(rapidjson::kArrayType);
  for (const auto& s : list) out.PushBack(JsonString(s, a), a);
  return out;
}

// `allocation`'s status.allocation.devices.results as Kubernetes writes them (an empty array when
// there are none). Errors: Internal naming `claim` when the allocation cannot be encoded.
absl::StatusOr<rapidjson::Value> DeviceResultsJson(std::string_view claim, const api::AllocationResult& allocation,
                                                   JsonAllocator& a);

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_RESULTS_JSON_H_
