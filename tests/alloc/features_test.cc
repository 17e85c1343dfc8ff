#include <gtest/gtest.h>

#include "alloc/features.h"

namespace draforge::alloc {
namespace {

TEST(Features, Defaults137) {
  Features f;
  EXPECT_TRUE(f.prioritized_list);
  EXPECT_TRUE(f.admin_access);
  EXPECT_TRUE(f.partitionable_devices);
  EXPECT_TRUE(f.device_taints);
  EXPECT_TRUE(f.consumable_capacity);
  EXPECT_TRUE(f.device_binding_conditions);
  EXPECT_TRUE(f.resource_claim_device_status);
  EXPECT_TRUE(f.extended_resource);
  EXPECT_FALSE(f.list_type_attributes);
  EXPECT_TRUE(f.DeviceBindingAndStatus());
  for (const auto& g : KnownFeatureGates()) EXPECT_EQ(*f.Get(g.name), g.default_value) << g.name;
}

TEST(Features, Parse) {
  auto f = ParseFeatureGates("DRAListTypeAttributes=true, DRAConsumableCapacity=false");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->list_type_attributes);
  EXPECT_FALSE(f->consumable_capacity);
  EXPECT_TRUE(ParseFeatureGates("").ok());
}

TEST(Features, Errors) {
  EXPECT_EQ(ParseFeatureGates("DRANope=true").status().message(), "unrecognized feature gate: DRANope");
  EXPECT_EQ(ParseFeatureGates("DRAAdminAccess").status().message(), "missing bool value for DRAAdminAccess");
  EXPECT_FALSE(ParseFeatureGates("DRAAdminAccess=maybe").ok());
  EXPECT_EQ(ParseFeatureGates("DRAAdminAccess=false").status().message(),
            "cannot set feature gate DRAAdminAccess to false, feature is locked to true");
  EXPECT_TRUE(ParseFeatureGates("DRAAdminAccess=false", Features{}, /*enforce_locks=*/false).ok());
}

// kube-scheduler 1.37 runs its experimental allocator exactly when one of the gates only it supports
// is on; the three alpha gates of 1.37 are off by default, so the defaults run the incubating one.
TEST(Features, ExperimentalAllocatorVariant) {
  EXPECT_FALSE(Features{}.derived_attributes);
  EXPECT_FALSE(Features{}.device_compatibility_groups);
  EXPECT_FALSE(Features{}.optional_node_operations);
  EXPECT_FALSE(Features{}.ExperimentalAllocator());
  for (const char* gate : {"DRAListTypeAttributes", "DRAOptionalNodeOperations", "DRADerivedAttributes",
                           "DRADeviceCompatibilityGroups"}) {
    auto f = ParseFeatureGates(std::string(gate) + "=true");
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_TRUE(f->ExperimentalAllocator()) << gate;
  }
  // Beta gates do not switch the variant.
  auto beta = ParseFeatureGates("DRAFractionalCapacityRange=true,DRAConsumableCapacity=false");
  ASSERT_TRUE(beta.ok());
  EXPECT_FALSE(beta->ExperimentalAllocator());
}

// The stable variant runs when no feature beyond its four (admin access, prioritized list,
// partitionable devices, taints) is on: turning consumable capacity off alone still leaves binding
// conditions on, i.e. the incubating variant (issue 22 assumed otherwise).
TEST(Features, StableAllocatorVariant) {
  EXPECT_FALSE(Features{}.StableAllocator());
  const auto variant = [](const char* gates) {
    auto f = ParseFeatureGates(gates);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() && f->StableAllocator();
  };
  EXPECT_FALSE(variant("DRAConsumableCapacity=false"));
  EXPECT_FALSE(variant("DRADeviceBindingConditions=false"));
  EXPECT_TRUE(variant("DRAConsumableCapacity=false,DRADeviceBindingConditions=false"));
  EXPECT_TRUE(variant("DRAConsumableCapacity=false,DRADeviceBindingConditions=false,DRAPartitionableDevices=false,"
                      "DRADeviceTaints=false,DRADeviceTaintRules=false"));
  EXPECT_FALSE(variant("DRAConsumableCapacity=false,DRADeviceBindingConditions=false,DRAFractionalCapacityRange=true"));
  for (const char* gate : {"DRAListTypeAttributes", "DRAOptionalNodeOperations", "DRADerivedAttributes",
                           "DRADeviceCompatibilityGroups"}) {
    EXPECT_FALSE(variant((std::string("DRAConsumableCapacity=false,DRADeviceBindingConditions=false,") + gate + "=true")
                             .c_str()))
        << gate;
  }
}


// The gate tables of the older versions (kube_features.go of v1.34.4, v1.35.4, v1.36.3).
TEST(Features, VersionDefaults) {
  using api::KubernetesVersion;
  const Features f34 = Features::Defaults(KubernetesVersion::k1_34);
  EXPECT_EQ(f34.version, KubernetesVersion::k1_34);
  EXPECT_TRUE(f34.admin_access);
  EXPECT_TRUE(f34.prioritized_list);
  EXPECT_FALSE(f34.partitionable_devices);
  EXPECT_FALSE(f34.consumable_capacity);
  EXPECT_FALSE(f34.device_taints);
  EXPECT_FALSE(f34.device_taint_rules);  // follows DRADeviceTaints: 1.34 has no DRADeviceTaintRules
  EXPECT_TRUE(f34.resource_claim_device_status);
  // 1.34 passes DeviceStatus on its own: the defaults run its experimental variant.
  EXPECT_EQ(f34.Variant(), AllocatorVariant::kExperimental);
  EXPECT_FALSE(f34.StableAllocator());
  EXPECT_FALSE(f34.ExperimentalAllocator());  // 1.37's experimental behaviour (skipNodeOperations) only
  EXPECT_EQ(Features::Defaults(KubernetesVersion::k1_35).Variant(), AllocatorVariant::kIncubating);
  EXPECT_TRUE(Features::Defaults(KubernetesVersion::k1_35).StableAllocator());
  const Features f36 = Features::Defaults(KubernetesVersion::k1_36);
  EXPECT_TRUE(f36.consumable_capacity);
  EXPECT_TRUE(f36.device_taints);
  EXPECT_FALSE(f36.device_taint_rules);
  EXPECT_EQ(f36.Variant(), AllocatorVariant::kIncubating);
  EXPECT_EQ(Features::Defaults(KubernetesVersion::k1_37), Features{});
  for (KubernetesVersion v : api::SupportedKubernetesVersions()) {
    const Features d = Features::Defaults(v);
    for (const auto& g : KnownFeatureGates(v)) EXPECT_EQ(*d.Get(g.name), g.default_value) << g.name;
  }
}

TEST(Features, VersionGatesAndLocks) {
  using api::KubernetesVersion;
  const Features f34 = Features::Defaults(KubernetesVersion::k1_34);
  EXPECT_EQ(ParseFeatureGates("DRADeviceTaintRules=true", f34).status().message(),
            "unrecognized feature gate: DRADeviceTaintRules");
  EXPECT_EQ(ParseFeatureGates("DRAListTypeAttributes=true", Features::Defaults(KubernetesVersion::k1_35)).status().message(),
            "unrecognized feature gate: DRAListTypeAttributes");
  EXPECT_TRUE(ParseFeatureGates("DRAListTypeAttributes=true", Features::Defaults(KubernetesVersion::k1_36)).ok());
  // DynamicResourceAllocation is locked from 1.35, DRAAdminAccess from 1.36.
  EXPECT_TRUE(ParseFeatureGates("DynamicResourceAllocation=false", f34).ok());
  EXPECT_FALSE(ParseFeatureGates("DynamicResourceAllocation=false", Features::Defaults(KubernetesVersion::k1_35)).ok());
  EXPECT_TRUE(ParseFeatureGates("DRAAdminAccess=false", Features::Defaults(KubernetesVersion::k1_35)).ok());
  EXPECT_FALSE(ParseFeatureGates("DRAAdminAccess=false", Features::Defaults(KubernetesVersion::k1_36)).ok());
  auto taints = ParseFeatureGates("DRADeviceTaints=true", f34);
  ASSERT_TRUE(taints.ok());
  EXPECT_TRUE(taints->device_taint_rules);
  EXPECT_EQ(f34.ToString().find("DRADeviceTaintRules"), std::string::npos);
  // 1.36: the scheduler never asks for list-type attributes, so they do not pick the experimental variant.
  auto list36 = ParseFeatureGates("DRAListTypeAttributes=true", Features::Defaults(KubernetesVersion::k1_36));
  ASSERT_TRUE(list36.ok());
  EXPECT_EQ(list36->Variant(), AllocatorVariant::kIncubating);
  auto stable36 = ParseFeatureGates("DRAConsumableCapacity=false,DRADeviceBindingConditions=false",
                                    Features::Defaults(KubernetesVersion::k1_36));
  ASSERT_TRUE(stable36.ok());
  EXPECT_TRUE(stable36->StableAllocator());
}

}  // namespace
}  // namespace draforge::alloc
