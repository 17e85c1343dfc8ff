// resource.k8s.io/v1 DeviceTaintRule (cluster-scoped): taints devices without editing their slices.
#ifndef DRAFORGE_API_DEVICE_TAINT_RULE_H_
#define DRAFORGE_API_DEVICE_TAINT_RULE_H_

#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/resource_common.h"

namespace draforge::api {

struct DeviceTaintSelector {
  std::optional<std::string> driver;
  std::optional<std::string> pool;
  std::optional<std::string> device;
  friend bool operator==(const DeviceTaintSelector&, const DeviceTaintSelector&) = default;
};

struct DeviceTaintRuleSpec {
  std::optional<DeviceTaintSelector> device_selector;
  std::optional<DeviceTaint> taint;
  friend bool operator==(const DeviceTaintRuleSpec&, const DeviceTaintRuleSpec&) = default;
};

struct DeviceTaintRuleStatus {
  std::vector<Condition> conditions;
  friend bool operator==(const DeviceTaintRuleStatus&, const DeviceTaintRuleStatus&) = default;
};

struct DeviceTaintRule {
  ObjectMeta metadata;
  std::optional<DeviceTaintRuleSpec> spec;
  std::optional<DeviceTaintRuleStatus> status;
  friend bool operator==(const DeviceTaintRule&, const DeviceTaintRule&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_DEVICE_TAINT_RULE_H_
