#include "analysis/package_capacity.h"

#include <cctype>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "alloc/placement_json.h"
#include "api/codec.h"
#include "common/json_string.h"
#include "common/status.h"

namespace draforge::analysis {
namespace {

absl::StatusOr<PackageCapacity> Capacity(const store::Snapshot& snapshot, const Package& package,
                                         const PackageCapacityOptions& options) {
  ExpandOptions expand;
  expand.name = package.id;  // a label value: a valid pod name once lower-case; copies are renamed anyway
  for (char& c : expand.name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : expand.name) {
    if (c == '_') c = '-';
  }
  expand.ns = options.ns.empty() ? "default" : options.ns;
  expand.image = "capacity";
  ASSIGN_OR_RETURN(PackageObjects objects, ExpandPackage(package, expand));
  std::vector<api::ResourceClaim> claims;
  if (objects.claim) claims.push_back(*objects.claim);
  ASSIGN_OR_RETURN(alloc::UnitPrototype unit, alloc::PodUnit(snapshot, objects.pod, claims));
  unit.description = absl::StrCat("package ", package.id);
  ASSIGN_OR_RETURN(alloc::HowManyMoreResult result, alloc::HowManyMore(snapshot, unit, options.more));
  return PackageCapacity{&package, std::move(result)};
}

}  // namespace

absl::StatusOr<std::vector<PackageCapacity>> PackageCapacities(const store::Snapshot& snapshot,
                                                               const PackageCatalog& catalog,
                                                               const PackageCapacityOptions& options) {
  std::vector<PackageCapacity> out;
  if (!options.id.empty()) {
    const Package* p = catalog.Find(options.id);
    if (p == nullptr) return absl::NotFoundError(absl::StrCat("package ", options.id, " not found in the catalog"));
    ASSIGN_OR_RETURN(PackageCapacity c, Capacity(snapshot, *p, options));
    out.push_back(std::move(c));
    return out;
  }
  for (const Package& p : catalog.packages) {
    ASSIGN_OR_RETURN(PackageCapacity c, Capacity(snapshot, p, options));
    out.push_back(std::move(c));
  }
  return out;
}

absl::StatusOr<std::string> PackageCapacitiesJson(const std::vector<PackageCapacity>& capacities,
                                                  const PackageCapacityOptions& options) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("namespace", JsonString(options.ns.empty() ? "default" : options.ns, a), a);
  d.AddMember("quota", rapidjson::Value(options.more.quota), a);
  rapidjson::Value list(rapidjson::kArrayType);
  for (const PackageCapacity& c : capacities) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("id", JsonString(c.package->id, a), a);
    o.AddMember("specName", JsonString(c.package->spec_name, a), a);
    o.AddMember("cpu", JsonString(c.package->cpu.String(), a), a);
    o.AddMember("memory", JsonString(c.package->memory.String(), a), a);
    o.AddMember("gpu", rapidjson::Value(static_cast<int64_t>(c.package->gpu)), a);
    o.AddMember("deviceClassName",
                JsonString(c.package->allocation ? c.package->allocation->device_class_name : std::string(), a), a);
    ASSIGN_OR_RETURN(std::string more, alloc::HowManyMoreJson(c.result));
    rapidjson::Document parsed(&a);
    parsed.Parse(more.data(), more.size());
    if (parsed.HasParseError()) return absl::InternalError("package capacity: bad HowManyMore JSON");
    o.AddMember("capacity", rapidjson::Value(parsed, a), a);
    list.PushBack(o, a);
  }
  d.AddMember("packages", list, a);
  return api::WriteJson(d, false);
}

}  // namespace draforge::analysis
