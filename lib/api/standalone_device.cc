#include "api/standalone_device.h"

#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "api/codec.h"
#include "common/json_string.h"

namespace draforge::api {

absl::StatusOr<StandaloneDevice> DecodeStandaloneDevice(const rapidjson::Value& value) {
  if (!value.IsObject()) return absl::InvalidArgumentError("must be an object");
  StandaloneDevice out;
  // Wrap the device in a one-device slice and decode that.
  rapidjson::Document slice(rapidjson::kObjectType);
  auto& a = slice.GetAllocator();
  rapidjson::Value device(rapidjson::kObjectType);
  bool has_name = false;
  for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it) {
    const std::string_view key(it->name.GetString(), it->name.GetStringLength());
    if (key == "driver") {
      if (!it->value.IsString()) return absl::InvalidArgumentError("driver: must be a string");
      out.driver.assign(it->value.GetString(), it->value.GetStringLength());
      continue;
    }
    if (key == "name") has_name = true;
    device.AddMember(rapidjson::Value(it->name, a), rapidjson::Value(it->value, a), a);
  }
  if (!has_name) device.AddMember("name", "device", a);
  rapidjson::Value devices(rapidjson::kArrayType);
  devices.PushBack(device, a);
  rapidjson::Value spec(rapidjson::kObjectType);
  spec.AddMember("driver", JsonString(out.driver, a), a);
  spec.AddMember("devices", devices, a);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", "device", a);
  slice.AddMember("apiVersion", "resource.k8s.io/v1", a);
  slice.AddMember("kind", "ResourceSlice", a);
  slice.AddMember("metadata", meta, a);
  slice.AddMember("spec", spec, a);
  DecodeOptions options;
  options.strict = true;
  std::vector<std::string> warnings;
  auto obj = DecodeObject(slice, options, &warnings);
  if (!obj.ok()) {
    // Field paths are relative to the wrapper slice: make them relative to the device.
    std::string msg(obj.status().message());
    for (std::string_view prefix : {"ResourceSlice \"device\": ", "spec.devices[0].", "spec.devices[0]"}) {
      for (size_t pos; (pos = msg.find(prefix)) != std::string::npos;) msg.erase(pos, prefix.size());
    }
    return absl::InvalidArgumentError(msg);
  }
  out.device = std::get<ResourceSlice>(obj->value).spec->devices.front();
  return out;
}

}  // namespace draforge::api
