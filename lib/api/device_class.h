// resource.k8s.io/v1 DeviceClass (cluster-scoped).
#ifndef DRAFORGE_API_DEVICE_CLASS_H_
#define DRAFORGE_API_DEVICE_CLASS_H_

#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/resource_common.h"

namespace draforge::api {

struct DeviceClassConfiguration {
  std::optional<OpaqueDeviceConfiguration> opaque;
  friend bool operator==(const DeviceClassConfiguration&, const DeviceClassConfiguration&) = default;
};

struct DeviceClassSpec {
  std::vector<DeviceSelector> selectors;
  std::vector<DeviceClassConfiguration> config;
  std::optional<std::string> extended_resource_name;
  friend bool operator==(const DeviceClassSpec&, const DeviceClassSpec&) = default;
};

struct DeviceClass {
  ObjectMeta metadata;
  std::optional<DeviceClassSpec> spec;
  friend bool operator==(const DeviceClass&, const DeviceClass&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_DEVICE_CLASS_H_
