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

}  // namespace
}  // namespace draforge::alloc
