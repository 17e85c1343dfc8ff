// cdiVersion: the known versions, comparison, and the minimum version a spec requires.
//
// The minimum-version rule is the reference library's (specs-go/version.go, MinimumRequiredVersion
// at v1.1.0): 0.3.0 unless the spec uses a field introduced later, namely
//   0.4.0  a mount with a `type`;
//   0.5.0  a device node with a `hostPath`, or a device name whose first byte is not a letter;
//   0.6.0  a non-empty annotations map (spec or device), or a '.' in the class of the kind;
//   0.7.0  an `intelRdt` object (even empty), or a non-empty `additionalGids` (spec or device);
//   1.1.0  `netDevices`, or `intelRdt` with `schemata` present (even empty) or `enableMonitoring`.
// 0.8.0 and 1.0.0 changed only the Go API and are never required; 0.1.0 and 0.2.0 are known but lie
// below the earliest version a spec may declare (0.3.0).
#ifndef DRAFORGE_CDI_VERSION_H_
#define DRAFORGE_CDI_VERSION_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cdi/spec.h"

namespace draforge::cdi {

// The default ceiling for what DRAForge writes: what containerd 1.7 and CRI-O releases of 2023
// vendor (CDI Go v0.5.x), which reject any later cdiVersion as unknown.
inline constexpr char kDefaultMaxVersion[] = "0.5.0";
// The newest version DRAForge models.
inline constexpr char kLatestVersion[] = "1.1.0";
// The earliest version a spec may declare.
inline constexpr char kEarliestVersion[] = "0.3.0";

// Every released spec version, oldest first, without a leading 'v'.
const std::vector<std::string>& KnownVersions();

// Whether `version` is one of KnownVersions(). With `allow_v_prefix` a leading 'v' is tolerated, as
// the reference loader tolerates it.
bool IsKnownVersion(std::string_view version, bool allow_v_prefix = false);

// Compares two versions of the form [v]MAJOR.MINOR.PATCH: <0, 0, >0. Returns nullopt when either
// does not have that form.
std::optional<int> CompareVersions(std::string_view a, std::string_view b);

// The lowest cdiVersion whose fields cover everything `spec` uses (rules above). Never fails.
std::string MinimumVersion(const Spec& spec);

struct MinimumVersionResult {
  std::string version;
  // The first field (a path below "$.") that requires `version`, e.g. "devices[0].name (starts with
  // a non-letter)"; empty for kEarliestVersion.
  std::string reason;
};
// MinimumVersion and the field that decided it.
MinimumVersionResult MinimumVersionWithReason(const Spec& spec);

}  // namespace draforge::cdi

#endif  // DRAFORGE_CDI_VERSION_H_
