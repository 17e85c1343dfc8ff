// resource.k8s.io/v1 types shared by several DRA kinds.
#ifndef DRAFORGE_API_RESOURCE_COMMON_H_
#define DRAFORGE_API_RESOURCE_COMMON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/raw_json.h"

namespace draforge::api {

inline constexpr char kGroup[] = "resource.k8s.io";

struct CELDeviceSelector {
  std::optional<std::string> expression;
  friend bool operator==(const CELDeviceSelector&, const CELDeviceSelector&) = default;
};

struct DeviceSelector {
  std::optional<CELDeviceSelector> cel;
  friend bool operator==(const DeviceSelector&, const DeviceSelector&) = default;
};

struct OpaqueDeviceConfiguration {
  std::optional<std::string> driver;
  std::optional<RawJson> parameters;
  friend bool operator==(const OpaqueDeviceConfiguration&, const OpaqueDeviceConfiguration&) = default;
};

// A taint on a device (ResourceSlice) or from a DeviceTaintRule.
struct DeviceTaint {
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::optional<std::string> effect;  // NoSchedule, NoExecute, None
  std::optional<Time> time_added;
  friend bool operator==(const DeviceTaint&, const DeviceTaint&) = default;
};

struct DeviceToleration {
  std::optional<std::string> key;
  std::optional<std::string> operator_;  // Exists, Equal (default Equal)
  std::optional<std::string> value;
  std::optional<std::string> effect;
  std::optional<int64_t> toleration_seconds;
  friend bool operator==(const DeviceToleration&, const DeviceToleration&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_RESOURCE_COMMON_H_
