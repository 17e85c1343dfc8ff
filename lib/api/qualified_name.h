// Names in DRA objects: DRA qualified names (attribute and capacity keys), DRA's own name rules
// (driver, pool, device, request, counter names) and the generic Kubernetes name checks they are
// built from (k8s.io/apimachinery/pkg/util/validation and pkg/api/validate/content).
//
// The generic checks return the list of problems with a value, worded exactly as Kubernetes words
// them (the `msg` of `field.Invalid(path, value, msg)`); an empty list means the value is valid. They
// never return typed errors: lib/api/validation.h turns them into field errors with paths and the
// Required / TooLong / Invalid distinctions the API server makes.
//
// Kubernetes has two copies of several checks that differ only in how a length limit is worded:
// k8s.io/apimachinery/pkg/util/validation says "must be no more than 63 characters", the newer
// pkg/api/validate/content (used by label keys and values and by declarative validation) says
// "must be no more than 63 bytes". The LengthUnit argument picks the wording; the rule is the same.
#ifndef DRAFORGE_API_QUALIFIED_NAME_H_
#define DRAFORGE_API_QUALIFIED_NAME_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/map.h"

namespace draforge::api {

inline constexpr size_t kDNS1123LabelMaxLength = 63;
inline constexpr size_t kDNS1123SubdomainMaxLength = 253;
inline constexpr size_t kLabelKeyNameMaxLength = 63;
inline constexpr size_t kLabelValueMaxLength = 63;
// resource.DeviceMaxIDLength / DeviceMaxDomainLength: the two halves of a DRA qualified name.
inline constexpr size_t kDeviceMaxIDLength = 32;
inline constexpr size_t kDeviceMaxDomainLength = 63;
// resource.DriverNameMaxLength (the CSI driver name rule).
inline constexpr size_t kDriverNameMaxLength = 63;
// resource.PoolNameMaxLength.
inline constexpr size_t kPoolNameMaxLength = 253;

// How a length limit is worded: "characters" (util/validation) or "bytes" (validate/content). The
// limit is in bytes either way.
enum class LengthUnit { kCharacters, kBytes };

// ---- Generic Kubernetes checks -------------------------------------------------------------------

// A lowercase RFC 1123 label ("DNS label", "short name"): [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63.
// A valid subdomain that is not a label gets "must not contain dots".
std::vector<std::string> IsDNS1123Label(std::string_view value, LengthUnit unit = LengthUnit::kCharacters);
// A lowercase RFC 1123 subdomain ("DNS subdomain", "long name"): dot-separated labels, at most 253.
std::vector<std::string> IsDNS1123Subdomain(std::string_view value, LengthUnit unit = LengthUnit::kCharacters);
// An RFC 1123 subdomain in any case (validate/content's caseless variant; bytes wording).
std::vector<std::string> IsDNS1123SubdomainCaseless(std::string_view value);
// A label key, which Kubernetes also calls a "qualified name": an optional DNS subdomain prefix and
// '/', then a name of at most 63 bytes of [-A-Za-z0-9_.] that starts and ends alphanumerically.
// Also the rule for annotation keys (checked lower-cased), finalizers, taint and toleration keys and
// condition types.
std::vector<std::string> IsQualifiedName(std::string_view value);
// A label value: empty, or at most 63 bytes of [-A-Za-z0-9_.] starting and ending alphanumerically.
std::vector<std::string> IsValidLabelValue(std::string_view value);
// A C identifier: [A-Za-z_][A-Za-z0-9_]*. No length limit (DRA adds one).
std::vector<std::string> IsCIdentifier(std::string_view value);

// The Kubernetes formatting helpers, exposed for callers that build their own messages.
// "must be no more than N characters" / "... N bytes".
std::string MaxLenError(size_t length, LengthUnit unit);
// `msg` plus " (e.g. 'a' or 'b', regex used for validation is 're')", with Kubernetes' punctuation.
std::string RegexError(std::string_view msg, std::string_view regex, const std::vector<std::string_view>& examples);

// ---- Extended resource names ---------------------------------------------------------------------

// True when `name` is an extended resource name (core/v1/helper.IsExtendedResourceName): it has a
// domain that is not *kubernetes.io, does not start with "requests.", and "requests." + name is a
// valid label key. This is the check behind DeviceClass spec.extendedResourceName.
bool IsExtendedResourceName(std::string_view name);
// The problems declarative validation reports for a bad extended resource name
// (validate.ExtendedResourceName), in its order; empty when valid.
std::vector<std::string> ExtendedResourceNameErrors(std::string_view name);

// ---- DRA names -------------------------------------------------------------------------------------

// Problems with a driver name (the CSI driver name rule the API server reuses): "must be non-empty",
// "must be no more than 63 bytes", then the DNS subdomain problems of the lower-cased name (so
// "Example.COM" is a valid driver name for the API server, as it is for CSI).
std::vector<std::string> IsDriverName(std::string_view name);
// Problems with a pool name: non-empty, at most 253 bytes, one or more DNS subdomains joined by '/'.
// Each bad segment contributes its subdomain problems (an empty segment "a//b" is a bad subdomain).
std::vector<std::string> IsPoolName(std::string_view name);
// Device, request, subrequest, counter and counter-set names are DNS labels.
inline std::vector<std::string> IsDeviceName(std::string_view name) { return IsDNS1123Label(name); }
inline std::vector<std::string> IsRequestName(std::string_view name) { return IsDNS1123Label(name); }
inline std::vector<std::string> IsCounterName(std::string_view name) { return IsDNS1123Label(name); }
// Device class, claim, template, slice and taint-rule names are DNS subdomains.
inline std::vector<std::string> IsDeviceClassName(std::string_view name) { return IsDNS1123Subdomain(name); }

// ---- DRA qualified names ---------------------------------------------------------------------------

// A DRA qualified name (resource.k8s.io QualifiedName): `id` or `domain/id`, where `id` is a C
// identifier of at most 32 bytes and `domain` follows the driver name rule (at most 63 bytes).
// A name without a domain belongs to the domain of the driver that publishes the device.
// The views point into the string that was split or parsed.
struct QualifiedName {
  std::string_view domain;  // empty when the name has no domain
  std::string_view id;
  friend bool operator==(const QualifiedName&, const QualifiedName&) = default;
};

// Splits `name` at its first '/' without validating anything ("a/b/c" -> {"a", "b/c"}).
QualifiedName SplitQualifiedName(std::string_view name);

// The problems the API server reports for `name` as an attribute or capacity key, as plain messages
// ("the domain must not be empty", "must be no more than 32 bytes", C identifier and subdomain
// problems). Kubernetes 1.37 splits on every '/' and only checks names with one or two parts, so
// "a/b/c" has no problems (a known upstream gap; see validation.go's TODO).
std::vector<std::string> QualifiedNameErrors(std::string_view name);
// As QualifiedNameErrors, plus "a fully qualified name must be a domain and a name separated by a
// slash" when there is no domain (constraints' matchAttribute / distinctAttribute).
std::vector<std::string> FullyQualifiedNameErrors(std::string_view name);

// Parses and validates a DRA qualified name. Errors are kInvalidArgument naming the name and its
// problems. Unlike the API server, a name with more than one '/' is rejected here.
absl::StatusOr<QualifiedName> ParseQualifiedName(std::string_view name);
// As ParseQualifiedName, but the domain is mandatory.
absl::StatusOr<QualifiedName> ParseFullyQualifiedName(std::string_view name);

// The fully qualified form of an attribute or capacity name published by `driver`: names with a
// domain are returned unchanged, a bare `id` becomes `driver/id` (how the allocator and the CEL
// environment see it).
std::string FullyQualified(std::string_view name, std::string_view driver);

// Looks up the entry of a device's attribute or capacity map for the fully qualified name `fqn` the
// way the allocator does (structured allocator lookupAttribute): the exact key first; then, when the
// domain of `fqn` is `driver`, the bare id. Returns nullptr when there is no such entry.
template <typename V>
const V* FindQualified(const Map<V>& map, std::string_view fqn, std::string_view driver) {
  if (const V* v = map.Find(fqn)) return v;
  const size_t slash = fqn.find('/');
  if (slash == std::string_view::npos || fqn.substr(0, slash) != driver) return nullptr;
  return map.Find(fqn.substr(slash + 1));
}

}  // namespace draforge::api

#endif  // DRAFORGE_API_QUALIFIED_NAME_H_
