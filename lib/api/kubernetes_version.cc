#include "api/kubernetes_version.h"

#include <charconv>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status.h"

namespace draforge::api {

const std::vector<KubernetesVersion>& SupportedKubernetesVersions() {
  static const auto* versions = new std::vector<KubernetesVersion>{
      KubernetesVersion::k1_34, KubernetesVersion::k1_35, KubernetesVersion::k1_36, KubernetesVersion::k1_37};
  return *versions;
}

std::string_view KubernetesVersionName(KubernetesVersion version) {
  switch (version) {
    case KubernetesVersion::k1_34: return "1.34";
    case KubernetesVersion::k1_35: return "1.35";
    case KubernetesVersion::k1_36: return "1.36";
    case KubernetesVersion::k1_37: return "1.37";
  }
  return "";
}

namespace {

// "a, b, c" (absl's string_view is not std's in every build: join std::strings).
std::string JoinNames(const std::vector<std::string_view>& names) {
  std::vector<std::string> strings(names.begin(), names.end());
  return absl::StrJoin(strings, ", ");
}

std::string SupportedList() {
  std::vector<std::string_view> names;
  for (KubernetesVersion v : SupportedKubernetesVersions()) names.push_back(KubernetesVersionName(v));
  return JoinNames(names);
}

// The leading decimal number of `s` (advancing it), or -1.
int TakeNumber(std::string_view& s) {
  int n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end == s.data()) return -1;
  s.remove_prefix(end - s.data());
  return n;
}

}  // namespace

absl::StatusOr<KubernetesVersion> ParseKubernetesVersion(std::string_view text) {
  std::string_view s = text;
  if (!s.empty() && s.front() == 'v') s.remove_prefix(1);
  const int major = TakeNumber(s);
  int minor = -1;
  if (major >= 0 && !s.empty() && s.front() == '.') {
    s.remove_prefix(1);
    minor = TakeNumber(s);
  }
  // After MAJOR.MINOR only ".PATCH..." (with any suffix) or nothing may follow.
  if (minor < 0 || (!s.empty() && s.front() != '.')) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid Kubernetes version \"", AV(text), "\" (want MAJOR.MINOR, e.g. 1.36)"));
  }
  for (KubernetesVersion v : SupportedKubernetesVersions()) {
    if (KubernetesVersionName(v) == absl::StrCat(major, ".", minor)) return v;
  }
  return absl::InvalidArgumentError(absl::StrCat("unsupported Kubernetes version ", AV(text),
                                                 " (supported: ", SupportedList(), ")"));
}

std::vector<std::string_view> ServedVersions(Kind kind, KubernetesVersion version) {
  switch (kind) {
    case Kind::kDeviceClass:
    case Kind::kResourceClaim:
    case Kind::kResourceClaimTemplate:
    case Kind::kResourceSlice: return {"v1", "v1beta2", "v1beta1"};
    case Kind::kDeviceTaintRule:
      if (version >= KubernetesVersion::k1_37) return {"v1", "v1beta2", "v1alpha3"};
      if (version >= KubernetesVersion::k1_36) return {"v1beta2", "v1alpha3"};
      return {"v1alpha3"};
    case Kind::kResourcePoolStatusRequest:
      if (version >= KubernetesVersion::k1_36) return {"v1alpha3"};
      return {};
    default: return {};
  }
}

absl::Status CheckServed(Kind kind, std::string_view api_version, KubernetesVersion version) {
  const std::vector<std::string_view> served = ServedVersions(kind, version);
  for (std::string_view v : served) {
    if (v == api_version) return absl::OkStatus();
  }
  if (served.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("resource.k8s.io ", AV(KindName(kind)),
                                                   " does not exist in Kubernetes ",
                                                   AV(KubernetesVersionName(version))));
  }
  return absl::InvalidArgumentError(absl::StrCat("resource.k8s.io/", AV(api_version), " ", AV(KindName(kind)),
                                                 " is not served by Kubernetes ", AV(KubernetesVersionName(version)),
                                                 " (served: ", JoinNames(served), ")"));
}

}  // namespace draforge::api
