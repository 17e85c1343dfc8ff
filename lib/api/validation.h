// The API server's validation of DRA objects (resource.k8s.io/v1, Kubernetes 1.37 with every DRA
// feature gate on), with Kubernetes' field paths, error types and messages.
//
// What the API server returns for an invalid object is the combination of two validators:
//   * hand-written validation (pkg/apis/resource/validation/validation.go), and
//   * declarative validation generated from the API types' tags (pkg/apis/resource/v1/
//     zz_generated.validations.go; GA since 1.36, its beta rules enforced by default).
// A hand-written error that declarative validation "covers" is dropped when an enforced declarative
// error of the same type, origin and field replaces it, and the declarative errors are appended after
// the hand-written ones. DRAForge reproduces both and the merge, so Validate returns the errors in the
// order and with the wording the API server uses (the wording sometimes differs between the two, e.g.
// `Duplicate value: "req"` vs `Duplicate value: {"name":"req",...}`).
//
// The object is validated as the API server validates a create request, after defaulting: an
// ExactCount request without a count counts as count 1, a missing allocationMode as ExactCount, a
// toleration without an operator as Equal. The object itself is not modified.
//
// Cluster-scoped kinds may carry metadata.namespace (the API server clears it before validating);
// namespaced kinds may omit it (it comes from the request). metadata.generation is checked only for
// ResourceClaims and templates: the other kinds' strategies reset it to 1.
//
// Not checked here (see also the list at the top of validation.cc):
//   * CEL: selectors are checked for presence and the 10 KiB length limit, not compiled or costed
//     (lib/cel does that). A blank expression gets the CEL compiler's exact syntax error; other
//     syntax and type errors, and the cost limit, are lib/cel's.
//   * Update rules (immutability, ratcheting of stored expressions, "no new reservedFor entries
//     after deletion") need the old object; they are not modelled.
//   * Rules that need other objects (class existence; the admin-access namespace label unless
//     ValidationOptions::namespace_labels provides it).
#ifndef DRAFORGE_API_VALIDATION_H_
#define DRAFORGE_API_VALIDATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/device_class.h"
#include "api/device_taint_rule.h"
#include "api/map.h"
#include "api/meta.h"
#include "api/node_selector.h"
#include "api/object.h"
#include "api/resource_claim.h"
#include "api/resource_claim_template.h"
#include "api/resource_slice.h"

namespace draforge::api {

// Limits the API server enforces (pkg/apis/resource/types.go, 1.37).
inline constexpr int kDeviceRequestsMaxSize = 32;
inline constexpr int kDeviceConstraintsMaxSize = 32;
inline constexpr int kDeviceConfigMaxSize = 32;
inline constexpr int kDeviceSelectorsMaxSize = 32;
inline constexpr int kFirstAvailableDeviceRequestMaxSize = 8;
inline constexpr int kResourceClaimReservedForMaxSize = 256;
inline constexpr int kCELSelectorExpressionMaxLength = 10 * 1024;
inline constexpr int kOpaqueParametersMaxLength = 10 * 1024;
inline constexpr int kResourceSliceMaxAttributesAndCapacitiesPerDevice = 32;
inline constexpr int kResourceSliceMaxAttributeValuesPerDevice = 48;
inline constexpr int kResourceSliceMaxCountersPerCounterSet = 32;
inline constexpr int kResourceSliceMaxDeviceCounterConsumptionsPerDevice = 2;
inline constexpr int kResourceSliceMaxCountersPerDeviceCounterConsumption = 32;
inline constexpr int kDeviceAttributeMaxValueLength = 64;
inline constexpr int kDeviceTaintsMaxLength = 16;
inline constexpr int kBindingConditionsMaxSize = 4;
inline constexpr int kBindingFailureConditionsMaxSize = 4;
inline constexpr int kCapacityRequestPolicyDiscreteMaxOptions = 10;
inline constexpr int kAllocatedDeviceStatusMaxConditions = 8;
inline constexpr int kAllocatedDeviceStatusDataMaxLength = 10 * 1024;
inline constexpr int kNetworkDeviceDataMaxIPs = 16;
inline constexpr int kNetworkDeviceDataInterfaceNameMaxLength = 256;
inline constexpr int kNetworkDeviceDataHardwareAddressMaxLength = 128;
inline constexpr int kDeviceTaintRuleStatusMaxConditions = 8;
inline constexpr int kDeviceDerivedAttributesMaxSize = 32;
inline constexpr int kDeviceCompatibilityGroupsMaxSize = 2;

// One validation error, as k8s.io/apimachinery/pkg/util/validation/field.Error.
struct FieldError {
  enum class Type {
    kRequired,      // "Required value"
    kInvalid,       // "Invalid value"
    kDuplicate,     // "Duplicate value"
    kTooMany,       // "Too many"
    kTooLong,       // "Too long"
    kNotSupported,  // "Unsupported value"
    kForbidden,     // "Forbidden"
    kNotFound,      // "Not found"
  };

  // The field path as Kubernetes prints it: "spec.devices[0].attributes[model]".
  std::string field;
  Type type = Type::kInvalid;
  // The bad value exactly as Kubernetes prints it after the type: a Go-quoted string ("\"Foo\""),
  // a number ("-1"), "true", "null", or JSON for lists and objects ("[\"a\"]", "{...}"). Types that
  // print no value (Required, Forbidden, TooLong) leave it empty.
  std::string value;
  std::string detail;

  // "<field>: <Type>[: <value>][: <detail>]", e.g.
  // `spec.driver: Invalid value: "Foo": a lowercase RFC 1123 subdomain must consist of ...`.
  std::string ToString() const;
  // The message without the field (field.Error.ErrorBody).
  std::string Body() const;

  friend bool operator==(const FieldError&, const FieldError&) = default;
};

// Kubernetes' name of an error type ("Required value", "Invalid value", ...).
std::string_view FieldErrorTypeName(FieldError::Type type);

// Go's %q of a string (how Kubernetes prints a string bad value): "\"a\\nb\"".
std::string GoQuote(std::string_view s);
// Go's encoding/json spelling of a string, quotes included (escapes <, > and & as \u003c etc.).
std::string GoJsonQuote(std::string_view s);

// What the API server knows beyond the object itself.
struct ValidationOptions {
  // Labels of the namespace of a ResourceClaim or ResourceClaimTemplate. When set, requests (and
  // allocation results) with adminAccess: true are checked against the
  // `resource.kubernetes.io/admin-access: "true"` label as the API server's strategy does; when
  // unset the check is skipped (DRAForge cannot know the namespace).
  std::optional<Map<std::string>> namespace_labels;
};

// Validates any object of a DRA kind (DeviceClass, ResourceClaim, ResourceClaimTemplate,
// ResourceSlice, DeviceTaintRule); other kinds return no errors (DRAForge does not validate Pods,
// Nodes or ResourcePoolStatusRequests). An empty result means the API server would accept it.
std::vector<FieldError> Validate(const Object& object, const ValidationOptions& options = {});

std::vector<FieldError> ValidateDeviceClass(const DeviceClass& device_class);
// Metadata and spec, plus the status validated as the API server validates a status update that
// sets it on a claim that had none (reservedFor, allocation, devices).
std::vector<FieldError> ValidateResourceClaim(const ResourceClaim& claim, const ValidationOptions& options = {});
std::vector<FieldError> ValidateResourceClaimTemplate(const ResourceClaimTemplate& claim_template,
                                                      const ValidationOptions& options = {});
std::vector<FieldError> ValidateResourceSlice(const ResourceSlice& slice);
std::vector<FieldError> ValidateDeviceTaintRule(const DeviceTaintRule& rule);

// Validates a core/v1 NodeSelector the way DRA objects' node selectors are validated
// (corevalidation.ValidateNodeSelector), with paths under `path` ("spec.nodeSelector").
std::vector<FieldError> ValidateNodeSelector(const NodeSelector& selector, std::string_view path);

// The API server's message for an object it rejects (apierrors.NewInvalid):
//   `ResourceSlice.resource.k8s.io "name" is invalid: [err1, err2]`
// with a single error printed without brackets, and repeated messages printed once. Returns "" when
// `errors` is empty.
std::string FormatInvalid(const Object& object, const std::vector<FieldError>& errors);
// The same for a kind and name given directly (kind as "ResourceSlice", group "resource.k8s.io").
std::string FormatInvalid(std::string_view kind, std::string_view group, std::string_view name,
                          const std::vector<FieldError>& errors);

}  // namespace draforge::api

#endif  // DRAFORGE_API_VALIDATION_H_
