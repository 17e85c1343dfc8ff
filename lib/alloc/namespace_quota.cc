#include "alloc/namespace_quota.h"

#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "api/object.h"
#include "api/resource_quota.h"
#include "common/status.h"

namespace draforge::alloc {

api::ResourceList UnitQuotaUsage(const std::optional<api::ResourceList>& pod_requests,
                                 const std::vector<api::ResourceClaim>& claims) {
  api::ResourceList usage;
  if (pod_requests) {
    const api::Quantity one = api::Quantity::FromInt64(1, api::Quantity::Format::kDecimalSI);
    usage.emplace("pods", one);
    usage.emplace("count/pods", one);
    for (const auto& [name, q] : *pod_requests) {
      if (q.IsZero()) continue;
      usage.emplace(absl::StrCat("requests.", name), q);
      if (name == "cpu" || name == "memory" || name == "ephemeral-storage") usage.emplace(name, q);
    }
  }
  for (const api::ResourceClaim& c : claims) api::AddResources(usage, api::ClaimQuotaUsage(c));
  return usage;
}

absl::StatusOr<QuotaHeadroom> NamespaceQuotaHeadroom(const store::Snapshot& snapshot, std::string_view ns,
                                                     const api::ResourceList& usage) {
  QuotaHeadroom out;
  for (const api::Object* o : snapshot.List(api::Kind::kOther, ns)) {
    const auto& other = std::get<api::OtherObject>(o->value);
    if (!api::IsResourceQuota(other) || other.metadata.namespace_.value_or("default") != ns) continue;
    ASSIGN_OR_RETURN(api::ResourceQuota quota, api::ReadResourceQuota(other));
    out.quotas.push_back(absl::StrCat(quota.ns, "/", quota.name));
    const api::ResourceList& hard = quota.status_hard.empty() ? quota.spec_hard : quota.status_hard;
    const bool observed = !quota.status_hard.empty();
    for (const auto& [resource, limit] : hard) {
      auto per_unit = usage.find(resource);
      if (per_unit == usage.end() || per_unit->second.Sign() <= 0) continue;
      api::Quantity used;
      if (observed) {
        if (auto u = quota.status_used.find(resource); u != quota.status_used.end()) used = u->second;
      }
      const api::Quantity left = limit.Sub(used);
      int64_t units = 0;
      if (left.Sign() > 0) units = left.FloorDiv(per_unit->second).value_or(api::Quantity()).Value();
      if (!out.units || units < *out.units) {
        out.units = units;
        out.why = absl::StrCat("resourcequota ", quota.ns, "/", quota.name, ": ", resource, ": ",
                               per_unit->second.Canonical(), " per unit, ", left.Sign() > 0 ? left.Canonical() : "0",
                               " left (hard ", limit.Canonical(), ", used ", used.Canonical(),
                               observed ? ")" : "; no status yet, spec.hard counted)");
      }
    }
  }
  std::sort(out.quotas.begin(), out.quotas.end());
  return out;
}

}  // namespace draforge::alloc
