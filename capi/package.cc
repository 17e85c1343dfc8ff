// The C ABI over lib/analysis/package_catalog, package_capacity and platform_inventory
// (include/draforge/package.h).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/package_capacity.h"
#include "analysis/package_catalog.h"
#include "analysis/platform_inventory.h"
#include "api/codec.h"
#include "capi/internal.h"
#include "common/json_string.h"
#include "draforge/package.h"

namespace {

using namespace draforge;

std::string Or(const char* s, std::string_view fallback = {}) {
  return s == nullptr || *s == '\0' ? std::string(fallback) : std::string(s);
}

absl::StatusOr<analysis::PackageCatalog> Catalog(const char* text, size_t len) {
  return analysis::ParsePackageCatalog(std::string_view(text, len));
}

template <typename Alloc>
rapidjson::Value PackageValue(const analysis::Package& p, Alloc& a) {
  rapidjson::Value o(rapidjson::kObjectType);
  o.AddMember("id", JsonString(p.id, a), a);
  o.AddMember("specName", JsonString(p.spec_name, a), a);
  o.AddMember("cpu", JsonString(p.cpu.String(), a), a);
  o.AddMember("memory", JsonString(p.memory.String(), a), a);
  o.AddMember("gpu", rapidjson::Value(static_cast<int64_t>(p.gpu)), a);
  o.AddMember("deviceClassName", JsonString(p.allocation ? p.allocation->device_class_name : std::string(), a), a);
  o.AddMember("claimRequestName", JsonString(p.allocation ? p.allocation->claim_request_name : std::string(), a), a);
  o.AddMember("count", rapidjson::Value(static_cast<int64_t>(p.allocation ? p.allocation->count : 0)), a);
  return o;
}

}  // namespace

extern "C" {

int draforge_package_validate_json(draforge_buffer* out, const char* catalog, size_t catalog_len,
                                   const draforge_snapshot* snapshot, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || catalog == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_package_validate_json: out and catalog must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto parsed = Catalog(catalog, catalog_len);
    if (!parsed.ok()) return capi::Fail(parsed.status(), error);
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    rapidjson::Value packages(rapidjson::kArrayType);
    for (const auto& p : parsed->packages) packages.PushBack(PackageValue(p, a), a);
    d.AddMember("packages", packages, a);
    rapidjson::Value problems(rapidjson::kArrayType);
    if (snapshot != nullptr) {
      for (const auto& p : analysis::ValidatePackagesAgainstCluster(*parsed, *snapshot->snapshot)) {
        problems.PushBack(JsonString(p, a), a);
      }
    }
    d.AddMember("problems", problems, a);
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_package_expand_json(draforge_buffer* out, const char* catalog, size_t catalog_len, const char* id,
                                 const char* name, const char* namespace_, const char* image, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || catalog == nullptr || id == nullptr || name == nullptr || image == nullptr) {
      return capi::Fail(absl::InvalidArgumentError(
                            "draforge_package_expand_json: out, catalog, id, name and image must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto parsed = Catalog(catalog, catalog_len);
    if (!parsed.ok()) return capi::Fail(parsed.status(), error);
    const analysis::Package* package = parsed->Find(id);
    if (package == nullptr) {
      return capi::Fail(absl::NotFoundError(absl::StrCat("package ", id, " not found in the catalog")), error);
    }
    analysis::ExpandOptions options;
    options.name = name;
    options.ns = Or(namespace_, "default");
    options.image = image;
    auto objects = analysis::ExpandPackage(*package, options);
    if (!objects.ok()) return capi::Fail(objects.status(), error);
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    rapidjson::Value list(rapidjson::kArrayType);
    std::vector<api::Object> encoded;
    if (objects->claim) encoded.push_back(api::Object{"resource.k8s.io/v1", *objects->claim});
    encoded.push_back(api::Object{"v1", objects->pod});
    for (const api::Object& o : encoded) {
      auto doc = api::EncodeObject(o);
      if (!doc.ok()) return capi::Fail(doc.status(), error);
      list.PushBack(rapidjson::Value(*doc, a), a);
    }
    d.AddMember("objects", list, a);
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_package_capacity_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* catalog,
                                   size_t catalog_len, const char* id, const char* namespace_, int quota, int64_t cap,
                                   const draforge_allocate_options* options, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || catalog == nullptr) {
      return capi::Fail(absl::InvalidArgumentError(
                            "draforge_package_capacity_json: out, snapshot and catalog must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    if (cap < 0) {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat(
                            "draforge_package_capacity_json: cap must be 0 (default) or positive, got ", cap)),
                        error);
    }
    auto effective = capi::EffectiveOptions(options);
    if (!effective.ok()) return capi::Fail(effective.status(), error);
    auto features = capi::FeaturesOf(effective->feature_gates, effective->unlock_locked_gates != 0);
    if (!features.ok()) return capi::Fail(features.status(), error);
    auto parsed = Catalog(catalog, catalog_len);
    if (!parsed.ok()) return capi::Fail(parsed.status(), error);
    analysis::PackageCapacityOptions popts;
    popts.more.features = *features;
    popts.more.max_steps = effective->max_steps;
    popts.more.keep_allocations = false;
    popts.more.quota = quota != 0;
    if (cap > 0) popts.more.cap = cap;
    popts.ns = Or(namespace_, "default");
    popts.id = Or(id);
    auto result = analysis::PackageCapacities(*snapshot->snapshot, *parsed, popts);
    if (!result.ok()) return capi::Fail(result.status(), error);
    auto json = analysis::PackageCapacitiesJson(*result, popts);
    if (!json.ok()) return capi::Fail(json.status(), error);
    return capi::ToBuffer(*json, out, error);
  });
}

int draforge_package_inventory_json(draforge_buffer* out, const draforge_snapshot* snapshot, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_package_inventory_json: out and snapshot must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    return capi::ToBuffer(analysis::PlatformInventoryJson(analysis::ReadPlatformInventory(*snapshot->snapshot)), out,
                          error);
  });
}

}  // extern "C"
