#include <array>
#include <string_view>

#include "api/internal/conversion.h"

namespace draforge::api::internal {
namespace {

using rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

// The members of v1beta1 DeviceRequest that v1 moved into ExactDeviceRequest, in Go field order.
constexpr std::array<std::string_view, 8> kExactFields = {"deviceClassName", "selectors",   "allocationMode",
                                                          "count",           "adminAccess", "tolerations",
                                                          "capacity",        "derivedAttributes"};

Value* Member(Value& v, const char* name) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(name);
  return it == v.MemberEnd() ? nullptr : &it->value;
}

template <typename Fn>
void ForEachRequest(Value& claim_spec, Fn fn) {
  Value* devices = Member(claim_spec, "devices");
  Value* requests = devices ? Member(*devices, "requests") : nullptr;
  if (requests == nullptr || !requests->IsArray()) return;
  for (auto& request : requests->GetArray()) {
    if (request.IsObject()) fn(request);
  }
}

template <typename Fn>
void ForEachClaimSpec(Kind kind, Value& object, Fn fn) {
  Value* spec = Member(object, "spec");
  if (spec == nullptr) return;
  if (kind == Kind::kResourceClaim) {
    fn(*spec);
  } else if (kind == Kind::kResourceClaimTemplate) {
    if (Value* inner = Member(*spec, "spec")) fn(*inner);
  }
}

template <typename Fn>
void ForEachDevice(Value& object, Fn fn) {
  Value* spec = Member(object, "spec");
  Value* devices = spec ? Member(*spec, "devices") : nullptr;
  if (devices == nullptr || !devices->IsArray()) return;
  for (auto& device : devices->GetArray()) {
    if (device.IsObject()) fn(device);
  }
}

// Moves the members named in `names` from `from` to a new object stored as `to_name` in `from`.
void NestMembers(Value& from, const char* to_name, Alloc& alloc) {
  Value nested(rapidjson::kObjectType);
  for (std::string_view name : kExactFields) {
    auto it = from.FindMember(Value(rapidjson::StringRef(name.data(), name.size())));
    if (it == from.MemberEnd()) continue;
    nested.AddMember(Value(it->name, alloc), Value(it->value, alloc), alloc);
    from.RemoveMember(it);
  }
  if (nested.MemberCount() > 0) from.AddMember(Value(to_name, alloc), nested, alloc);
}

}  // namespace

void ConvertV1beta1ToV1(Kind kind, Value& object, Alloc& alloc) {
  if (kind == Kind::kResourceSlice) {
    ForEachDevice(object, [&](Value& device) {
      auto basic = device.FindMember("basic");
      if (basic == device.MemberEnd()) return;
      Value fields(basic->value, alloc);
      device.RemoveMember(basic);
      if (!fields.IsObject()) return;
      for (auto& m : fields.GetObject()) {
        // A member the v1beta1 device already has outside `basic` is an unknown field there; keep the
        // first so the decoder reports nothing twice.
        if (device.HasMember(m.name)) continue;
        device.AddMember(Value(m.name, alloc), Value(m.value, alloc), alloc);
      }
    });
    return;
  }
  ForEachClaimSpec(kind, object, [&](Value& claim_spec) {
    ForEachRequest(claim_spec, [&](Value& request) { NestMembers(request, "exactly", alloc); });
  });
}

void ConvertV1ToV1beta1(Kind kind, Value& object, Alloc& alloc) {
  if (kind == Kind::kResourceSlice) {
    ForEachDevice(object, [&](Value& device) {
      // v1beta1 devices always carry `basic`, as the API server writes them.
      Value basic(rapidjson::kObjectType);
      Value rest(rapidjson::kObjectType);
      for (auto& m : device.GetObject()) {
        if (std::string_view(m.name.GetString(), m.name.GetStringLength()) == "name") {
          rest.AddMember(Value(m.name, alloc), Value(m.value, alloc), alloc);
        } else {
          basic.AddMember(Value(m.name, alloc), Value(m.value, alloc), alloc);
        }
      }
      rest.AddMember("basic", basic, alloc);
      device = rest;
    });
    return;
  }
  ForEachClaimSpec(kind, object, [&](Value& claim_spec) {
    ForEachRequest(claim_spec, [&](Value& request) {
      auto exactly = request.FindMember("exactly");
      if (exactly == request.MemberEnd()) return;
      Value fields(exactly->value, alloc);
      request.RemoveMember(exactly);
      if (!fields.IsObject()) return;
      // v1beta1 field order: name, the exact fields, firstAvailable, tolerations, capacity,
      // derivedAttributes.
      Value out(rapidjson::kObjectType);
      for (auto& m : request.GetObject()) {
        std::string_view n(m.name.GetString(), m.name.GetStringLength());
        if (n == "name") out.AddMember(Value(m.name, alloc), Value(m.value, alloc), alloc);
      }
      for (const char* n : {"deviceClassName", "selectors", "allocationMode", "count", "adminAccess"}) {
        if (auto it = fields.FindMember(n); it != fields.MemberEnd()) {
          out.AddMember(Value(it->name, alloc), Value(it->value, alloc), alloc);
        }
      }
      for (auto& m : request.GetObject()) {
        std::string_view n(m.name.GetString(), m.name.GetStringLength());
        if (n != "name") out.AddMember(Value(m.name, alloc), Value(m.value, alloc), alloc);
      }
      for (const char* n : {"tolerations", "capacity", "derivedAttributes"}) {
        if (auto it = fields.FindMember(n); it != fields.MemberEnd()) {
          out.AddMember(Value(it->name, alloc), Value(it->value, alloc), alloc);
        }
      }
      request = out;
    });
  });
}

}  // namespace draforge::api::internal
