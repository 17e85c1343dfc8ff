#include "api/resource_quota.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "common/status.h"
#include "rapidjson/document.h"

namespace draforge::api {
namespace {

// Reads `obj[field][member]` as a resource list into `out`; absent is empty.
absl::Status ReadList(const rapidjson::Value& obj, const char* field, const char* member, const std::string& who,
                      ResourceList& out) {
  if (!obj.IsObject() || !obj.HasMember(field) || !obj[field].IsObject() || !obj[field].HasMember(member)) {
    return absl::OkStatus();
  }
  auto list = ParseResourceList(RawJson(WriteJson(obj[field][member], false)), absl::StrCat(field, ".", member));
  if (!list.ok()) return absl::InvalidArgumentError(absl::StrCat(who, ": ", list.status().message()));
  out = *std::move(list);
  return absl::OkStatus();
}

int64_t Devices(const std::optional<std::string>& mode, const std::optional<int64_t>& count) {
  const std::string m = mode.value_or("ExactCount");
  if (m == "ExactCount") return count.value_or(1);
  if (m == "All") return 32;  // resource.k8s.io AllocationResultsMaxSize
  return 0;                   // unknown modes do not count (as upstream)
}

}  // namespace

bool IsResourceQuota(const OtherObject& object) { return object.kind == "ResourceQuota" && object.api_version == "v1"; }

absl::StatusOr<ResourceQuota> ReadResourceQuota(const OtherObject& object) {
  ResourceQuota q;
  q.ns = object.metadata.namespace_.value_or("default");
  q.name = object.metadata.name.value_or("");
  const std::string who = absl::StrCat("resourcequota ", q.ns, "/", q.name);
  auto doc = ParseJson(object.raw.json, false);
  if (!doc.ok()) return absl::InvalidArgumentError(absl::StrCat(who, ": ", doc.status().message()));
  RETURN_IF_ERROR(ReadList(*doc, "spec", "hard", who, q.spec_hard));
  RETURN_IF_ERROR(ReadList(*doc, "status", "hard", who, q.status_hard));
  RETURN_IF_ERROR(ReadList(*doc, "status", "used", who, q.status_used));
  q.has_status = doc->IsObject() && doc->HasMember("status") && (*doc)["status"].IsObject();
  return q;
}

std::string DeviceClassQuotaResource(std::string_view device_class) {
  return absl::StrCat(AV(device_class), ".deviceclass.resource.k8s.io/devices");
}

ResourceList ClaimQuotaUsage(const ResourceClaim& claim) {
  std::map<std::string, int64_t> devices;
  if (claim.spec && claim.spec->devices) {
    for (const DeviceRequest& r : claim.spec->devices->requests) {
      if (!r.first_available.empty()) {
        std::map<std::string, int64_t> largest;
        for (const DeviceSubRequest& s : r.first_available) {
          int64_t& n = largest[DeviceClassQuotaResource(s.device_class_name.value_or(""))];
          n = std::max(n, Devices(s.allocation_mode, s.count));
        }
        for (const auto& [name, n] : largest) devices[name] += n;
      } else if (r.exactly) {
        devices[DeviceClassQuotaResource(r.exactly->device_class_name.value_or(""))] +=
            Devices(r.exactly->allocation_mode, r.exactly->count);
      }
    }
  }
  ResourceList out;
  out.emplace(std::string(kClaimCountResource), Quantity::FromInt64(1, Quantity::Format::kDecimalSI));
  for (const auto& [name, n] : devices) out.emplace(name, Quantity::FromInt64(n, Quantity::Format::kDecimalSI));
  return out;
}

}  // namespace draforge::api
