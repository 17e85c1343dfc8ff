#include "api/kubernetes_version.h"

#include <gtest/gtest.h>

namespace draforge::api {
namespace {

TEST(KubernetesVersion, Parse) {
  EXPECT_EQ(*ParseKubernetesVersion("1.34"), KubernetesVersion::k1_34);
  EXPECT_EQ(*ParseKubernetesVersion("v1.35"), KubernetesVersion::k1_35);
  EXPECT_EQ(*ParseKubernetesVersion("1.36.3"), KubernetesVersion::k1_36);
  EXPECT_EQ(*ParseKubernetesVersion("v1.37.2-gke.1200"), KubernetesVersion::k1_37);
  EXPECT_EQ(ParseKubernetesVersion("1.33").status().message(),
            "unsupported Kubernetes version 1.33 (supported: 1.34, 1.35, 1.36, 1.37)");
  EXPECT_EQ(ParseKubernetesVersion("1.340").status().message(),
            "unsupported Kubernetes version 1.340 (supported: 1.34, 1.35, 1.36, 1.37)");
  for (const char* bad : {"", "1", "1.", "x1.34", "1.34x", "1,34"}) {
    EXPECT_EQ(ParseKubernetesVersion(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  for (KubernetesVersion v : SupportedKubernetesVersions()) {
    EXPECT_EQ(*ParseKubernetesVersion(KubernetesVersionName(v)), v);
  }
}

// pkg/registry/resource/rest/storage_resource.go of each release.
TEST(KubernetesVersion, ServedVersions) {
  EXPECT_TRUE(CheckServed(Kind::kResourceSlice, "v1beta1", KubernetesVersion::k1_34).ok());
  EXPECT_TRUE(CheckServed(Kind::kResourceClaim, "v1", KubernetesVersion::k1_34).ok());
  EXPECT_TRUE(CheckServed(Kind::kDeviceTaintRule, "v1alpha3", KubernetesVersion::k1_35).ok());
  EXPECT_EQ(CheckServed(Kind::kDeviceTaintRule, "v1beta2", KubernetesVersion::k1_35).message(),
            "resource.k8s.io/v1beta2 DeviceTaintRule is not served by Kubernetes 1.35 (served: v1alpha3)");
  EXPECT_TRUE(CheckServed(Kind::kDeviceTaintRule, "v1beta2", KubernetesVersion::k1_36).ok());
  EXPECT_EQ(CheckServed(Kind::kDeviceTaintRule, "v1", KubernetesVersion::k1_36).message(),
            "resource.k8s.io/v1 DeviceTaintRule is not served by Kubernetes 1.36 (served: v1beta2, v1alpha3)");
  EXPECT_TRUE(CheckServed(Kind::kDeviceTaintRule, "v1", KubernetesVersion::k1_37).ok());
  EXPECT_EQ(CheckServed(Kind::kResourcePoolStatusRequest, "v1alpha3", KubernetesVersion::k1_35).message(),
            "resource.k8s.io ResourcePoolStatusRequest does not exist in Kubernetes 1.35");
  EXPECT_TRUE(CheckServed(Kind::kResourcePoolStatusRequest, "v1alpha3", KubernetesVersion::k1_36).ok());
  EXPECT_FALSE(CheckServed(Kind::kResourceSlice, "v1alpha3", KubernetesVersion::k1_37).ok());
}

}  // namespace
}  // namespace draforge::api
