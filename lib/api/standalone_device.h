// One device outside a ResourceSlice, as CEL tools take it: the v1 Device fields plus "driver"
// ({"driver": "gpu.example.com", "name": "gpu-0", "attributes": {...}, "capacity": {...}}).
#ifndef DRAFORGE_LIB_API_STANDALONE_DEVICE_H_
#define DRAFORGE_LIB_API_STANDALONE_DEVICE_H_

#include <string>

#include <rapidjson/document.h>

#include "absl/status/statusor.h"
#include "api/resource_slice.h"

namespace draforge::api {

struct StandaloneDevice {
  std::string driver;  // empty when the input has none
  Device device;       // "name" defaults to "device"
};

// Decodes `value` (a JSON object) with the ResourceSlice decoder in strict mode, so the device is
// checked exactly as one in a slice. Errors are InvalidArgument with field paths relative to the
// device ("attributes[model].string: expected string, got number", "driver: must be a string").
absl::StatusOr<StandaloneDevice> DecodeStandaloneDevice(const rapidjson::Value& value);

}  // namespace draforge::api

#endif  // DRAFORGE_LIB_API_STANDALONE_DEVICE_H_
