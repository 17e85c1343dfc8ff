#include "analysis/package_catalog.h"

#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/codec.h"
#include "api/qualified_name.h"
#include "api/yaml.h"
#include "common/status.h"

namespace draforge::analysis {
namespace {

using Problems = std::vector<std::string>;

std::string Quoted(std::string_view s) { return absl::StrCat("\"", AV(s), "\""); }

// The JSON value as a user wrote it, for "Invalid value: ..." messages.
std::string Shown(const rapidjson::Value& v) {
  if (v.IsString()) return Quoted(std::string_view(v.GetString(), v.GetStringLength()));
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsUint64()) return std::to_string(v.GetUint64());
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsNull()) return "null";
  if (v.IsDouble()) return absl::StrCat(v.GetDouble());
  return v.IsObject() ? "{...}" : "[...]";
}

void CheckFields(const rapidjson::Value& obj, const std::set<std::string_view>& known, const std::string& path,
                 Problems& problems) {
  for (const auto& m : obj.GetObject()) {
    const std::string_view name(m.name.GetString(), m.name.GetStringLength());
    if (!known.contains(name)) problems.push_back(absl::StrCat(path, AV(name), ": Unsupported field"));
  }
}

const rapidjson::Value* Member(const rapidjson::Value& obj, const char* name) {
  auto it = obj.FindMember(name);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

std::optional<std::string> String(const rapidjson::Value& obj, const char* name, const std::string& path,
                                  bool required, Problems& problems) {
  const rapidjson::Value* v = Member(obj, name);
  if (v == nullptr || v->IsNull()) {
    if (required) problems.push_back(absl::StrCat(path, name, ": Required value"));
    return std::nullopt;
  }
  if (!v->IsString()) {
    problems.push_back(absl::StrCat(path, name, ": Invalid value: ", Shown(*v), ": must be a string"));
    return std::nullopt;
  }
  std::string s(v->GetString(), v->GetStringLength());
  if (s.empty() && required) {
    problems.push_back(absl::StrCat(path, name, ": Required value"));
    return std::nullopt;
  }
  return s;
}

std::optional<int64_t> Integer(const rapidjson::Value& obj, const char* name, const std::string& path,
                               int64_t min, Problems& problems) {
  const rapidjson::Value* v = Member(obj, name);
  if (v == nullptr || v->IsNull()) {
    problems.push_back(absl::StrCat(path, name, ": Required value"));
    return std::nullopt;
  }
  if (!v->IsInt64()) {
    problems.push_back(absl::StrCat(path, name, ": Invalid value: ", Shown(*v), ": must be an integer"));
    return std::nullopt;
  }
  if (v->GetInt64() < min) {
    problems.push_back(
        absl::StrCat(path, name, ": Invalid value: ", v->GetInt64(), ": must be greater than or equal to ", min));
    return std::nullopt;
  }
  return v->GetInt64();
}

// A positive quantity, written as a string or a number (as Quantity's JSON form allows).
std::optional<api::Quantity> PositiveQuantity(const rapidjson::Value& obj, const char* name, const std::string& path,
                                              Problems& problems) {
  const rapidjson::Value* v = Member(obj, name);
  if (v == nullptr || v->IsNull()) {
    problems.push_back(absl::StrCat(path, name, ": Required value"));
    return std::nullopt;
  }
  std::string text;
  if (v->IsString()) {
    text.assign(v->GetString(), v->GetStringLength());
  } else if (v->IsInt64()) {
    text = std::to_string(v->GetInt64());
  } else {
    problems.push_back(absl::StrCat(path, name, ": Invalid value: ", Shown(*v), ": must be a quantity"));
    return std::nullopt;
  }
  auto q = api::Quantity::Parse(text);
  if (!q.ok()) {
    problems.push_back(absl::StrCat(path, name, ": Invalid value: ", Shown(*v), ": ", q.status().message()));
    return std::nullopt;
  }
  if (q->Sign() <= 0) {
    problems.push_back(absl::StrCat(path, name, ": Invalid value: ", Shown(*v), ": must be greater than zero"));
    return std::nullopt;
  }
  return *std::move(q);
}

void NameProblems(const std::vector<std::string>& errors, const std::string& field, std::string_view value,
                  Problems& problems) {
  for (const std::string& e : errors) problems.push_back(absl::StrCat(field, ": Invalid value: ", Quoted(value), ": ", e));
}

std::optional<Package> ReadPackage(const rapidjson::Value& v, const std::string& path, Problems& problems) {
  if (!v.IsObject()) {
    problems.push_back(absl::StrCat(path, ": Invalid value: ", Shown(v), ": must be an object"));
    return std::nullopt;
  }
  const size_t before = problems.size();
  const std::string p = path + ".";
  CheckFields(v, {"id", "specName", "cpu", "memory", "gpu", "allocation"}, p, problems);
  Package pkg;
  if (auto id = String(v, "id", p, true, problems)) {
    pkg.id = *id;
    NameProblems(api::IsValidLabelValue(pkg.id), p + "id", pkg.id, problems);
  }
  if (auto s = String(v, "specName", p, false, problems)) pkg.spec_name = *s;
  if (auto q = PositiveQuantity(v, "cpu", p, problems)) pkg.cpu = *q;
  if (auto q = PositiveQuantity(v, "memory", p, problems)) pkg.memory = *q;
  const std::optional<int64_t> gpu = Integer(v, "gpu", p, 0, problems);
  if (gpu) pkg.gpu = *gpu;
  const rapidjson::Value* a = Member(v, "allocation");
  if (a != nullptr && !a->IsNull()) {
    const std::string ap = p + "allocation.";
    if (!a->IsObject()) {
      problems.push_back(absl::StrCat(p, "allocation: Invalid value: ", Shown(*a), ": must be an object"));
    } else {
      CheckFields(*a, {"deviceClassName", "claimRequestName", "count"}, ap, problems);
      PackageAllocation alloc;
      if (auto s = String(*a, "deviceClassName", ap, true, problems)) {
        alloc.device_class_name = *s;
        NameProblems(api::IsDeviceClassName(*s), ap + "deviceClassName", *s, problems);
      }
      if (auto s = String(*a, "claimRequestName", ap, true, problems)) {
        alloc.claim_request_name = *s;
        NameProblems(api::IsRequestName(*s), ap + "claimRequestName", *s, problems);
      }
      if (auto n = Integer(*a, "count", ap, 1, problems)) {
        alloc.count = *n;
        if (gpu && *n != *gpu) {
          problems.push_back(absl::StrCat(ap, "count: Invalid value: ", *n, ": must equal gpu (", *gpu, ")"));
        }
      }
      pkg.allocation = std::move(alloc);
    }
  } else if (gpu && *gpu > 0) {
    problems.push_back(absl::StrCat(p, "allocation: Required value: gpu is ", *gpu,
                                    ", so the devices need a deviceClassName, claimRequestName and count"));
  }
  if (problems.size() != before) return std::nullopt;
  return pkg;
}

}  // namespace

const Package* PackageCatalog::Find(std::string_view id) const {
  for (const Package& p : packages) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

absl::StatusOr<PackageCatalog> ParsePackageCatalog(std::string_view text) {
  auto docs = api::ParseYamlStream(text);
  if (!docs.ok()) return absl::InvalidArgumentError(absl::StrCat("package catalog: ", docs.status().message()));
  if (docs->size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("package catalog: expected one document, found ", docs->size()));
  }
  const rapidjson::Value& root = docs->front().json;
  Problems problems;
  PackageCatalog catalog;
  if (!root.IsObject()) {
    problems.push_back("<root>: Invalid value: must be an object with a \"packages\" list");
  } else {
    CheckFields(root, {"packages"}, "", problems);
    const rapidjson::Value* list = Member(root, "packages");
    if (list == nullptr || list->IsNull()) {
      problems.push_back("packages: Required value");
    } else if (!list->IsArray()) {
      problems.push_back(absl::StrCat("packages: Invalid value: ", Shown(*list), ": must be a list"));
    } else {
      std::set<std::string> ids;
      for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
        const std::string path = absl::StrCat("packages[", i, "]");
        // Duplicates are found on the ids as written, also of entries with other problems.
        const rapidjson::Value& entry = (*list)[i];
        if (entry.IsObject()) {
          const rapidjson::Value* id = Member(entry, "id");
          if (id != nullptr && id->IsString() && id->GetStringLength() > 0 &&
              !ids.insert(std::string(id->GetString(), id->GetStringLength())).second) {
            problems.push_back(absl::StrCat(path, ".id: Duplicate value: ", Shown(*id)));
            continue;
          }
        }
        std::optional<Package> pkg = ReadPackage(entry, path, problems);
        if (pkg) catalog.packages.push_back(*std::move(pkg));
      }
    }
  }
  if (!problems.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("package catalog: ", problems.size(),
                                                   problems.size() == 1 ? " problem:\n  " : " problems:\n  ",
                                                   absl::StrJoin(problems, "\n  ")));
  }
  return catalog;
}

std::vector<std::string> ValidatePackagesAgainstCluster(const PackageCatalog& catalog, const store::Snapshot& snapshot) {
  std::vector<std::string> problems;
  for (size_t i = 0; i < catalog.packages.size(); ++i) {
    const Package& p = catalog.packages[i];
    if (!p.allocation) continue;
    if (snapshot.Get(api::Kind::kDeviceClass, "", p.allocation->device_class_name) == nullptr) {
      problems.push_back(absl::StrCat("packages[", i, "].allocation.deviceClassName: Not found: ",
                                      Quoted(p.allocation->device_class_name),
                                      " (no DeviceClass of that name in the cluster)"));
    }
  }
  return problems;
}

absl::StatusOr<PackageObjects> ExpandPackage(const Package& package, const ExpandOptions& options) {
  Problems problems;
  NameProblems(api::IsDNS1123Subdomain(options.name), "metadata.name", options.name, problems);
  NameProblems(api::IsDNS1123Label(options.ns), "metadata.namespace", options.ns, problems);
  NameProblems(api::IsDNS1123Label(options.container_name), "spec.containers[0].name", options.container_name,
               problems);
  if (options.name.empty()) problems.push_back("metadata.name: Required value");
  if (options.image.empty()) problems.push_back("spec.containers[0].image: Required value");
  std::string claim_name;
  if (package.allocation) {
    claim_name = absl::StrCat(options.name, "-", package.allocation->claim_request_name);
    if (!options.name.empty()) {
      NameProblems(api::IsDNS1123Subdomain(claim_name), "resourceclaim metadata.name", claim_name, problems);
    }
  }
  if (!problems.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("package ", package.id, ": ", absl::StrJoin(problems, "; ")));
  }

  PackageObjects out;
  if (package.allocation) {
    api::ResourceClaim claim;
    claim.metadata.name = claim_name;
    claim.metadata.namespace_ = options.ns;
    claim.metadata.labels.Set("draforge.io/package", package.id);
    api::DeviceRequest request;
    request.name = package.allocation->claim_request_name;
    request.exactly.emplace();
    request.exactly->device_class_name = package.allocation->device_class_name;
    request.exactly->allocation_mode = "ExactCount";
    request.exactly->count = package.allocation->count;
    claim.spec.emplace().devices.emplace().requests.push_back(std::move(request));
    out.claim = std::move(claim);
  }

  api::Pod& pod = out.pod;
  pod.metadata.name = options.name;
  pod.metadata.namespace_ = options.ns;
  pod.metadata.labels.Set("draforge.io/package", package.id);
  if (!package.spec_name.empty()) pod.metadata.annotations.Set("draforge.io/spec-name", package.spec_name);
  api::PodSpec& spec = pod.spec.emplace();
  api::Container c;
  c.name = options.container_name;
  rapidjson::Document image;
  image.SetString(options.image.data(), static_cast<rapidjson::SizeType>(options.image.size()), image.GetAllocator());
  c.other.emplace_back("image", api::RawJson(api::WriteJson(image, false)));
  api::ResourceRequirements& res = c.resources.emplace();
  const std::string list = absl::StrCat("{\"cpu\":\"", package.cpu.String(), "\",\"memory\":\"",
                                        package.memory.String(), "\"}");
  res.other.emplace_back("limits", api::RawJson(list));
  res.other.emplace_back("requests", api::RawJson(list));
  if (package.allocation) {
    api::ContainerResourceClaim cc;
    cc.name = package.allocation->claim_request_name;
    res.claims.push_back(std::move(cc));
    api::PodResourceClaim pc;
    pc.name = package.allocation->claim_request_name;
    pc.resource_claim_name = claim_name;
    spec.resource_claims.push_back(std::move(pc));
  }
  spec.containers.push_back(std::move(c));
  return out;
}

}  // namespace draforge::analysis
