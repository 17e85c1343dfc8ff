// Semver: semantic versions (semver.org 2.0.0) exactly as Kubernetes reads them, that is as
// github.com/blang/semver/v4 Parse does. DRA `version` device attributes and the Kubernetes CEL
// semver library (semver(s), semver(s, true), compareTo, isLessThan, major, ...) both use it.
#ifndef DRAFORGE_API_SEMVER_H_
#define DRAFORGE_API_SEMVER_H_

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace draforge::api {

class Semver {
 public:
  // One dot-separated prerelease identifier. A numeric one (digits only) is compared as a number
  // and sorts before every alphanumeric one; alphanumeric ones compare bytewise.
  struct PrereleaseIdentifier {
    std::string text;     // as written
    uint64_t number = 0;  // the value, when numeric
    bool numeric = false;
    friend bool operator==(const PrereleaseIdentifier&, const PrereleaseIdentifier&) = default;
  };

  // 0.0.0.
  Semver() = default;

  // Strict semver 2.0.0, as blang/semver v4 Parse: MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD] with
  // decimal numbers that fit a uint64 and have no leading zero, prerelease and build identifiers of
  // [0-9A-Za-z-] separated by dots, none empty, numeric prerelease identifiers without leading zero
  // (build identifiers may have them). No "v" prefix, no whitespace.
  // Errors (kInvalidArgument) carry blang's messages, e.g. "Version string empty",
  // "No Major.Minor.Patch elements found", `Invalid character(s) found in major number "v1"`,
  // `Major number must not contain leading zeroes "01"`, "Prerelease is empty",
  // `Numeric PreRelease version must not contain leading zeroes "01"`,
  // `Invalid character(s) found in prerelease "a_b"`, "Build meta data is empty",
  // `Invalid character(s) found in build meta data "a_b"`, and Go's strconv messages for an empty
  // or too large number (`strconv.ParseUint: parsing "": invalid syntax`,
  // `strconv.ParseUint: parsing "18446744073709551616": value out of range`).
  static absl::StatusOr<Semver> Parse(std::string_view text);

  // Kubernetes CEL semver(s, true) (k8s.io/apiserver/pkg/cel/library normalizeAndParse): drops one
  // leading "v"; strips the leading zeros of each of the (at most three) dot-separated parts, keeping
  // one "0" when nothing or a non-digit would follow ("01.02.03" -> "1.2.3", "1.0.00-rc" ->
  // "1.0.0-rc"; zeros inside a prerelease stay, so "1.2.3-01" still fails); fills a missing minor
  // and patch with 0 ("1" -> "1.0.0", "1.2" -> "1.2.0"); then parses strictly. A short version with
  // "+" or "-" in its last part fails with "short version cannot contain PreRelease/Build meta
  // data". Whitespace is not trimmed.
  static absl::StatusOr<Semver> ParseNormalized(std::string_view text);

  uint64_t major() const { return major_; }
  uint64_t minor() const { return minor_; }
  uint64_t patch() const { return patch_; }
  const std::vector<PrereleaseIdentifier>& prerelease() const { return prerelease_; }
  const std::vector<std::string>& build() const { return build_; }

  // MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]; for a strictly parsed version, the text it came from.
  std::string String() const;

  // Semver 2.0.0 precedence: -1, 0 or 1. MAJOR, MINOR and PATCH numerically; a version with a
  // prerelease sorts before the same version without one; prerelease identifiers pairwise, a longer
  // list winning when one is a prefix of the other. Build metadata is ignored (so "1.0.0+a" and
  // "1.0.0+b" compare equal, as in blang and CEL's compareTo).
  int Compare(const Semver& other) const;
  // Equality of precedence, consistent with Compare (build metadata is ignored).
  friend bool operator==(const Semver& a, const Semver& b) { return a.Compare(b) == 0; }
  friend std::weak_ordering operator<=>(const Semver& a, const Semver& b) {
    const int c = a.Compare(b);
    return c < 0 ? std::weak_ordering::less
                 : (c > 0 ? std::weak_ordering::greater : std::weak_ordering::equivalent);
  }

 private:
  uint64_t major_ = 0;
  uint64_t minor_ = 0;
  uint64_t patch_ = 0;
  std::vector<PrereleaseIdentifier> prerelease_;
  std::vector<std::string> build_;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_SEMVER_H_
