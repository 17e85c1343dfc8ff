// api::KubernetesVersion: the Kubernetes minor releases DRAForge reproduces (1.34 to 1.37), and what
// each one's API server serves of resource.k8s.io (pkg/registry/resource/rest/storage_resource.go of
// that release: the versions with storage for a resource).
#ifndef DRAFORGE_API_KUBERNETES_VERSION_H_
#define DRAFORGE_API_KUBERNETES_VERSION_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/status/status.h"
#include "api/object.h"

namespace draforge::api {

// A Kubernetes minor release. The enumerators are in release order (comparisons mean "older").
enum class KubernetesVersion { k1_34, k1_35, k1_36, k1_37 };

inline constexpr KubernetesVersion kLatestKubernetesVersion = KubernetesVersion::k1_37;

// Every supported version, oldest first.
const std::vector<KubernetesVersion>& SupportedKubernetesVersions();

// "1.34".
std::string_view KubernetesVersionName(KubernetesVersion version);

// Parses "1.34", "v1.34", "1.34.2", "v1.34.2-gke.100" (a server's gitVersion: only the minor counts).
// Errors (InvalidArgument): "unsupported Kubernetes version X (supported: 1.34, 1.35, 1.36, 1.37)",
// or "invalid Kubernetes version X" when it is not MAJOR.MINOR[.PATCH...].
absl::StatusOr<KubernetesVersion> ParseKubernetesVersion(std::string_view text);

// The resource.k8s.io versions the API server of `version` serves `kind` in ({"v1", "v1beta2",
// "v1beta1"} for claims at every supported version; DeviceTaintRule: v1alpha3 until 1.35, also
// v1beta2 from 1.36, also v1 from 1.37; ResourcePoolStatusRequest: v1alpha3 from 1.36). Empty for
// kinds outside resource.k8s.io.
std::vector<std::string_view> ServedVersions(Kind kind, KubernetesVersion version);

// OK if the API server of `version` serves `kind` in `api_version` (the version part, "v1beta2");
// otherwise InvalidArgument "resource.k8s.io/v1 DeviceTaintRule is not served by Kubernetes 1.36
// (served: v1beta2, v1alpha3)" or "... ResourcePoolStatusRequest does not exist in Kubernetes 1.35".
absl::Status CheckServed(Kind kind, std::string_view api_version, KubernetesVersion version);

}  // namespace draforge::api

#endif  // DRAFORGE_API_KUBERNETES_VERSION_H_
