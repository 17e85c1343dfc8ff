// Package catalogs: parsing with field paths, checks against a cluster, expansion, and capacity on
// the demo scenario with examples/packages/catalog.yaml.
#include "analysis/package_catalog.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "analysis/package_capacity.h"
#include "analysis/platform_inventory.h"
#include "api/codec.h"
#include "store/cluster.h"
#include "../common/test_util.h"

namespace draforge::analysis {
namespace {

std::string Problems(std::string_view text) {
  auto c = ParsePackageCatalog(text);
  return c.ok() ? "ok" : std::string(c.status().message());
}

std::shared_ptr<const store::Snapshot> Demo() {
  store::Cluster cluster;
  auto decoded = api::DecodeStream(
      draforge::testing::ReadFile(draforge::testing::SourceRoot() / "examples" / "scenarios" / "demo.yaml"),
      api::DecodeOptions{});
  EXPECT_TRUE(decoded.ok());
  for (auto& d : *decoded) EXPECT_TRUE(cluster.Apply(*std::move(d.object)).ok());
  return cluster.snapshot();
}

PackageCatalog ExampleCatalog() {
  auto c = ParsePackageCatalog(
      draforge::testing::ReadFile(draforge::testing::SourceRoot() / "examples" / "packages" / "catalog.yaml"));
  EXPECT_TRUE(c.ok()) << c.status();
  return *c;
}

TEST(PackageCatalog, ParsesTheIssueExample) {
  auto c = ParsePackageCatalog(R"(
packages:
  - id: gpu-rtx3080-2x-cpu10-mem40g
    specName: gpu.rtx3080.2x.10c.40g
    cpu: "10"
    memory: 40Gi
    gpu: 2
    allocation: {deviceClassName: nvidia-rtx-3080, claimRequestName: gpu, count: 2}
)");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->packages.size(), 1u);
  const Package& p = c->packages[0];
  EXPECT_EQ(p.id, "gpu-rtx3080-2x-cpu10-mem40g");
  EXPECT_EQ(p.cpu.String(), "10");
  EXPECT_EQ(p.memory.String(), "40Gi");
  EXPECT_EQ(p.allocation->count, 2);
  EXPECT_EQ(c->Find("gpu-rtx3080-2x-cpu10-mem40g"), &p);
}

TEST(PackageCatalog, EveryProblemWithItsFieldPath) {
  EXPECT_EQ(Problems(R"(
packages:
  - id: a
    cpu: "1"
    memory: 1Gi
    gpu: 2
    allocation: {deviceClassName: gpu, claimRequestName: gpu, count: 3}
  - id: a
    cpu: "1"
    memory: 1Gi
    gpu: 0
  - id: b
    cpu: "-1"
    memory: 40GB
    gpu: 1
    colour: red
    allocation: {deviceClassName: Not_A_Class, claimRequestName: gpu, count: 1}
  - id: c
    cpu: 1
    memory: 1Gi
    gpu: 1
)"),
            "package catalog: 7 problems:\n"
            "  packages[0].allocation.count: Invalid value: 3: must equal gpu (2)\n"
            "  packages[1].id: Duplicate value: \"a\"\n"
            "  packages[2].colour: Unsupported field\n"
            "  packages[2].cpu: Invalid value: \"-1\": must be greater than zero\n"
            "  packages[2].memory: Invalid value: \"40GB\": quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n"
            "  packages[2].allocation.deviceClassName: Invalid value: \"Not_A_Class\": a lowercase RFC 1123 "
            "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
            "an alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
            "  packages[3].allocation: Required value: gpu is 1, so the devices need a deviceClassName, "
            "claimRequestName and count");
}

TEST(PackageCatalog, ShapeErrors) {
  EXPECT_EQ(Problems("{}"), "package catalog: 1 problem:\n  packages: Required value");
  EXPECT_EQ(Problems("packages: 3"), "package catalog: 1 problem:\n  packages: Invalid value: 3: must be a list");
  EXPECT_EQ(Problems("packages: [{id: x, cpu: '1', memory: 1Gi, gpu: -1}]"),
            "package catalog: 1 problem:\n  packages[0].gpu: Invalid value: -1: must be greater than or equal to 0");
  EXPECT_NE(Problems("packages: [").find("package catalog: yaml:"), std::string::npos);
}

TEST(PackageCatalog, UnknownDeviceClassAgainstTheCluster) {
  auto c = ParsePackageCatalog(R"(
packages:
  - {id: a, cpu: "1", memory: 1Gi, gpu: 1, allocation: {deviceClassName: a100.gpu.example.com, claimRequestName: gpu, count: 1}}
  - {id: b, cpu: "1", memory: 1Gi, gpu: 1, allocation: {deviceClassName: nvidia-rtx-3080, claimRequestName: gpu, count: 1}}
)");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(ValidatePackagesAgainstCluster(*c, *Demo()),
            std::vector<std::string>{"packages[1].allocation.deviceClassName: Not found: \"nvidia-rtx-3080\" (no "
                                     "DeviceClass of that name in the cluster)"});
  EXPECT_TRUE(ValidatePackagesAgainstCluster(ExampleCatalog(), *Demo()).empty());
}

TEST(PackageCatalog, ExpandsToAClaimAndAPodThatUsesIt) {
  const PackageCatalog c = ExampleCatalog();
  ExpandOptions o;
  o.name = "trainer-1";
  o.ns = "team-a";
  o.image = "registry.example/trainer:1.0";
  auto objects = ExpandPackage(*c.Find("gpu-a100-2x-cpu16-mem128g"), o);
  ASSERT_TRUE(objects.ok()) << objects.status();
  ASSERT_TRUE(objects->claim.has_value());
  EXPECT_EQ(objects->claim->metadata.name, "trainer-1-gpu");
  const auto& req = objects->claim->spec->devices->requests.at(0);
  EXPECT_EQ(req.exactly->device_class_name, "a100.gpu.example.com");
  EXPECT_EQ(req.exactly->count, 2);
  const api::PodSpec& spec = *objects->pod.spec;
  EXPECT_EQ(spec.resource_claims.at(0).resource_claim_name, "trainer-1-gpu");
  EXPECT_EQ(spec.containers.at(0).resources->claims.at(0).name, "gpu");
  auto encoded = api::EncodeObject(api::Object{"v1", objects->pod});
  ASSERT_TRUE(encoded.ok());
  const std::string json = api::WriteJson(*encoded, false);
  EXPECT_NE(json.find(R"("requests":{"cpu":"16","memory":"128Gi"})"), std::string::npos) << json;
  EXPECT_EQ(json.find("nvidia.com"), std::string::npos) << json;

  o.name = "Bad_Name";
  auto bad = ExpandPackage(*c.Find("gpu-a100-2x-cpu16-mem128g"), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().message()).rfind("package gpu-a100-2x-cpu16-mem128g: metadata.name: Invalid value: \"Bad_Name\"", 0), 0u)
      << bad.status();
  o.name = "ok";
  auto cpu_only = ExpandPackage(*c.Find("cpu-only-cpu4-mem16g"), o);
  ASSERT_TRUE(cpu_only.ok());
  EXPECT_FALSE(cpu_only->claim.has_value());
  EXPECT_TRUE(cpu_only->pod.spec->resource_claims.empty());
}

TEST(PackageCapacity, DemoScenario) {
  auto s = Demo();
  PackageCapacityOptions o;
  o.ns = "team-a";
  const PackageCatalog catalog = ExampleCatalog();  // the results point into it
  auto caps = PackageCapacities(*s, catalog, o);
  ASSERT_TRUE(caps.ok()) << caps.status();
  std::map<std::string, std::vector<int64_t>> per_node;
  std::map<std::string, int64_t> total;
  for (const auto& c : *caps) {
    for (const auto& n : c.result.nodes) per_node[c.package->id].push_back(n.count);
    total[c.package->id] = c.result.total;
    EXPECT_TRUE(c.result.resources_checked);
  }
  // node-1: 2 of 4 A100 taken (train-0), node-2: 1 (notebook-0); node-3: 4 H100 and a MIG GPU.
  EXPECT_EQ(per_node["gpu-a100-1x-cpu8-mem64g"], (std::vector<int64_t>{2, 3, 0}));
  EXPECT_EQ(per_node["gpu-a100-2x-cpu16-mem128g"], (std::vector<int64_t>{1, 1, 0}));
  EXPECT_EQ(per_node["gpu-h100-4x-cpu32-mem256g"], (std::vector<int64_t>{0, 0, 1}));
  // 62 cpu allocatable: two units of 24 cpu, the third stops on cpu although 2 H100 are left.
  EXPECT_EQ(per_node["gpu-h100-1x-cpu24-mem96g"], (std::vector<int64_t>{0, 0, 2}));
  EXPECT_EQ(per_node["cpu-only-cpu4-mem16g"], (std::vector<int64_t>{15, 15, 15}));
  EXPECT_EQ(total["cpu-only-cpu4-mem16g"], 45);
  const auto& h100 = (*caps)[3].result.nodes[2];
  EXPECT_EQ(h100.limited_by, "cpu");
  EXPECT_EQ(h100.why, "cpu: 24 requested, 14 free (allocatable 62)");
}

TEST(PlatformInventory, DemoScenario) {
  const PlatformInventory inv = ReadPlatformInventory(*Demo());
  EXPECT_EQ(inv.cluster.dra_claim_count, 5);
  EXPECT_EQ(inv.cluster.dra_allocated_claims, 4);
  EXPECT_EQ(inv.cluster.dra_allocated_devices, 5);
  EXPECT_EQ(inv.cluster.dra_resource_slices, 6);
  ASSERT_EQ(inv.namespaces.size(), 1u);
  EXPECT_EQ(inv.namespaces.at("team-a").dra_allocated_claims, 4);
  // The NIC pool's nic-1 is tainted NoSchedule.
  EXPECT_EQ(inv.cluster.total_gpu_allocatable, inv.cluster.dra_devices - 1);
}

}  // namespace
}  // namespace draforge::analysis
