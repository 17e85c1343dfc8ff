#include "alloc/internal/results_json.h"

#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "common/status.h"

namespace draforge::alloc::internal {

absl::StatusOr<rapidjson::Value> DeviceResultsJson(std::string_view claim, const api::AllocationResult& allocation,
                                                   JsonAllocator& a) {
  auto encoded = EncodeAllocationResult(allocation);
  if (!encoded.ok()) {
    return absl::InternalError(absl::StrCat("allocation of claim ", AV(claim), ": ", encoded.status().message()));
  }
  rapidjson::Value results(rapidjson::kArrayType);
  if (encoded->IsObject() && encoded->HasMember("devices") && (*encoded)["devices"].IsObject() &&
      (*encoded)["devices"].HasMember("results")) {
    results.CopyFrom((*encoded)["devices"]["results"], a);
  }
  return results;
}

}  // namespace draforge::alloc::internal
