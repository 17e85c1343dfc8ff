#include "api/object.h"

#include <array>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "api/kind_resource.h"
#include "common/status.h"

namespace draforge::api {
namespace {

struct KindInfo {
  Kind kind;
  std::string_view name;
  std::string_view plural;
  std::string_view short_name;
  bool namespaced;
};

constexpr std::array<KindInfo, 8> kKinds = {{
    {Kind::kDeviceClass, "DeviceClass", "deviceclasses", "", false},
    {Kind::kResourceClaim, "ResourceClaim", "resourceclaims", "", true},
    {Kind::kResourceClaimTemplate, "ResourceClaimTemplate", "resourceclaimtemplates", "", true},
    {Kind::kResourceSlice, "ResourceSlice", "resourceslices", "", false},
    {Kind::kDeviceTaintRule, "DeviceTaintRule", "devicetaintrules", "", false},
    {Kind::kResourcePoolStatusRequest, "ResourcePoolStatusRequest", "resourcepoolstatusrequests", "", false},
    {Kind::kPod, "Pod", "pods", "po", true},
    {Kind::kNode, "Node", "nodes", "no", false},
}};

}  // namespace

std::string_view KindName(Kind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "";
}

std::optional<Kind> ParseKindName(std::string_view name) {
  const std::string lower = absl::AsciiStrToLower(AV(name));
  for (const auto& k : kKinds) {
    if (lower == absl::AsciiStrToLower(AV(k.name)) || lower == k.plural ||
        (!k.short_name.empty() && lower == k.short_name)) {
      return k.kind;
    }
  }
  return std::nullopt;
}

bool IsNamespaced(Kind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k.namespaced;
  }
  return false;
}

std::string_view KindResource(Kind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k.plural;
  }
  return "";
}

std::string_view Object::kind_name() const {
  if (const auto* other = std::get_if<OtherObject>(&value)) return other->kind;
  return KindName(kind());
}

const ObjectMeta& Object::metadata() const {
  return std::visit([](const auto& v) -> const ObjectMeta& { return v.metadata; }, value);
}

ObjectMeta& Object::metadata() {
  return std::visit([](auto& v) -> ObjectMeta& { return v.metadata; }, value);
}

std::string Object::Key() const {
  const ObjectMeta& m = metadata();
  const std::string name = m.name.value_or("");
  if (m.namespace_.has_value() && !m.namespace_->empty()) return absl::StrCat(*m.namespace_, "/", name);
  return name;
}

}  // namespace draforge::api
