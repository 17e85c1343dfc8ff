// BuildNodeDeviceSpec: the static spec of a node's devices of one driver (the node plugin's demo
// document): which slices count, the names, and what cannot be described.
#include "cdi/node_device_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/codec.h"
#include "cdi/spec_validation.h"
#include "store/cluster.h"

namespace draforge::cdi {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// node-1: pool a at generation 2 (gpu-1, gpu-0) with a leftover slice of generation 1 (gpu-9),
// pool b (nic-0) of another driver; node-2: pool c (gpu-0).
constexpr char kSlices[] = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: a-new}
spec: {driver: gpu.example.com, nodeName: node-1, pool: {name: a, generation: 2, resourceSliceCount: 1},
       devices: [{name: gpu-1}, {name: gpu-0}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: a-old}
spec: {driver: gpu.example.com, nodeName: node-1, pool: {name: a, generation: 1, resourceSliceCount: 1},
       devices: [{name: gpu-9}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: b}
spec: {driver: nic.example.com, nodeName: node-1, pool: {name: b, generation: 1, resourceSliceCount: 1},
       devices: [{name: nic-0}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: c}
spec: {driver: gpu.example.com, nodeName: node-2, pool: {name: c, generation: 1, resourceSliceCount: 1},
       devices: [{name: gpu-0}]}
)";

class NodeDeviceSpecTest : public ::testing::Test {
 protected:
  void SetUp() override { Apply(kSlices); }
  void Apply(const std::string& text) {
    auto objects = api::DecodeStream(text, api::DecodeOptions{});
    ASSERT_TRUE(objects.ok()) << objects.status();
    for (auto& o : *objects) {
      ASSERT_TRUE(o.object.ok()) << o.object.status();
      ASSERT_TRUE(cluster_.Apply(*std::move(o.object)).ok());
    }
  }
  store::Cluster cluster_;
};

std::vector<std::string> Names(const Spec& spec) {
  std::vector<std::string> out;
  for (const Device& d : spec.devices) out.push_back(d.name);
  return out;
}

TEST_F(NodeDeviceSpecTest, TheNodesNewestDevicesOfTheDriverNamedAsTheDevices) {
  absl::StatusOr<SpecFile> f = BuildNodeDeviceSpec(*cluster_.snapshot(), "node-1", "gpu.example.com");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->file_name, "k8s.gpu.example.com-draforge.json");
  EXPECT_EQ(f->spec.kind, "k8s.gpu.example.com/draforge");
  EXPECT_THAT(Names(f->spec), ElementsAre("gpu-0", "gpu-1")) << "sorted; generation 1's gpu-9 left out";
  EXPECT_THAT(f->spec.devices[0].container_edits.env, ElementsAre("DRAFORGE_DEVICE_GPU_0=gpu.example.com/a/gpu-0"));
  ValidateOptions strict;
  strict.strictness = Strictness::kStrict;
  EXPECT_TRUE(Validate(f->spec, strict).empty());

  BuildOptions custom;
  custom.rules.push_back({.driver = "", .vendor = "example.com", .cdi_class = "gpu"});
  f = BuildNodeDeviceSpec(*cluster_.snapshot(), "node-2", "gpu.example.com", custom);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->file_name, "example.com-gpu.json");
  EXPECT_THAT(Names(f->spec), ElementsAre("gpu-0"));
}

TEST_F(NodeDeviceSpecTest, NoDeviceIsNotFoundAndAmbiguousNamesAreRefused) {
  absl::StatusOr<SpecFile> f = BuildNodeDeviceSpec(*cluster_.snapshot(), "node-3", "gpu.example.com");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(f.status().message(), HasSubstr("node \"node-3\" has no device of driver \"gpu.example.com\""));
  Apply(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: d}
spec: {driver: gpu.example.com, nodeName: node-1, pool: {name: d, generation: 1, resourceSliceCount: 1},
       devices: [{name: gpu-0}]}
)");
  f = BuildNodeDeviceSpec(*cluster_.snapshot(), "node-1", "gpu.example.com");
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(f.status().message(),
              HasSubstr("device \"gpu-0\" of driver \"gpu.example.com\" is in pools \"a\" and \"d\""));
  EXPECT_EQ(BuildNodeDeviceSpec(*cluster_.snapshot(), "", "gpu.example.com").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace draforge::cdi
