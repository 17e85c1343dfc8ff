// AuditDirectory: a node's CDI directory against the claims allocated on the node, on the cluster in
// tests/cdi/fixtures/node/input.yaml (train, infer and shared-nic on node-1; elsewhere on node-2;
// pending unallocated; no-uid on node-1 without a UID).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "api/codec.h"
#include "cdi/audit.h"
#include "cdi/node_specs.h"
#include "cdi/spec_codec.h"
#include "cdi/writer.h"
#include "store/cluster.h"
#include "cdi_test_util.h"

namespace draforge::cdi {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::FixturesDir;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

constexpr char kTrain[] = "k8s.gpu.sim.draforge.io-draforge_3f2a9c1e-0d4b-4b7e-9a51-2c8d7e6f5a10.json";
constexpr char kInferGpu[] = "k8s.gpu.sim.draforge.io-draforge_b7d0c6a2-5f1e-4c3b-8a9d-0e1f2a3b4c5d.json";
constexpr char kInferNic[] = "k8s.nic.sim.draforge.io-draforge_b7d0c6a2-5f1e-4c3b-8a9d-0e1f2a3b4c5d.json";
constexpr char kSharedNic[] = "k8s.nic.sim.draforge.io-draforge_c0ffee00-1111-4222-8333-444455556666.json";
constexpr char kElsewhere[] = "k8s.gpu.sim.draforge.io-draforge_d1d2d3d4-0000-4000-8000-000000000002.json";
constexpr char kPending[] = "k8s.gpu.sim.draforge.io-draforge_e1e2e3e4-0000-4000-8000-000000000003.json";

class AuditTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string text;
    ASSERT_TRUE(ReadFile(FixturesDir() + "/node/input.yaml", &text));
    auto objects = api::DecodeStream(text, api::DecodeOptions{});
    ASSERT_TRUE(objects.ok()) << objects.status();
    for (auto& o : *objects) {
      ASSERT_TRUE(o.object.ok()) << o.object.status();
      ASSERT_TRUE(cluster_.Apply(*std::move(o.object)).ok());
    }
  }

  // Writes what the node plugin for `node` would write.
  void Sync(const std::string& node) {
    auto built = BuildSpecsForNode(*cluster_.snapshot(), node);
    ASSERT_TRUE(built.ok()) << built.status();
    auto synced = SyncDirectory(dir_.path(), built->Files(), built->MakeSyncOptions());
    ASSERT_TRUE(synced.ok()) << synced.status();
    ASSERT_TRUE(synced->ok());
  }

  AuditReport Audit(const BuildOptions& options = {}) {
    auto report = AuditDirectory(dir_.path(), *cluster_.snapshot(), "node-1", options);
    EXPECT_TRUE(report.ok()) << report.status();
    return report.ok() ? *std::move(report) : AuditReport{};
  }

  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  store::Cluster cluster_;
  TempDir dir_;
};

std::vector<std::string> Files(const AuditReport& r, AuditStatus status) {
  std::vector<std::string> out;
  for (const AuditFinding& f : r.findings) {
    if (f.status == status) out.push_back(f.file);
  }
  return out;
}

const AuditFinding* Find(const AuditReport& r, const std::string& file) {
  for (const AuditFinding& f : r.findings) {
    if (f.file == file) return &f;
  }
  return nullptr;
}

TEST_F(AuditTest, WhatTheWriterWroteIsInSync) {
  Sync("node-1");
  AuditReport r = Audit();
  EXPECT_THAT(r.in_sync, ElementsAre(kTrain, kInferGpu, kInferNic, kSharedNic));
  // Only the claim without a UID is a finding: its spec cannot be built at all.
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].status, AuditStatus::kFailed);
  EXPECT_EQ(r.findings[0].claim_name, "no-uid");
  EXPECT_THAT(r.findings[0].message, HasSubstr("metadata.uid is empty"));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.Count(AuditStatus::kFailed), 1u);
  EXPECT_EQ(r.Count(AuditStatus::kStale), 0u);
}

TEST_F(AuditTest, EmptyDirectoryMissesEverySpec) {
  AuditReport r = Audit();
  EXPECT_THAT(r.in_sync, IsEmpty());
  EXPECT_THAT(Files(r, AuditStatus::kMissing), ElementsAre(kTrain, kInferGpu, kInferNic, kSharedNic));
  const AuditFinding* train = Find(r, kTrain);
  ASSERT_NE(train, nullptr);
  EXPECT_EQ(train->claim_namespace, "ml");
  EXPECT_EQ(train->claim_name, "train");
  EXPECT_EQ(train->driver, "gpu.sim.draforge.io");
  EXPECT_THAT(train->message, HasSubstr("ResourceClaim ml/train is allocated on node \"node-1\" but its spec file"));
}

TEST_F(AuditTest, FilesOfClaimsNotOnTheNodeAreStaleWithTheirClaim) {
  Sync("node-1");
  std::string text;
  ASSERT_TRUE(ReadFile(Path(kTrain), &text));
  WriteFile(Path(kElsewhere), text);  // a claim now allocated on node-2
  WriteFile(Path(kPending), text);  // a claim that was deallocated
  const std::string gone = "k8s.gpu.sim.draforge.io-draforge_99999999-0000-4000-8000-000000000009.json";
  WriteFile(Path(gone), text);  // a claim that was deleted
  AuditReport r = Audit();
  EXPECT_THAT(Files(r, AuditStatus::kStale), ElementsAre(gone, kElsewhere, kPending));
  const AuditFinding* elsewhere = Find(r, kElsewhere);
  ASSERT_NE(elsewhere, nullptr);
  EXPECT_EQ(elsewhere->claim_name, "elsewhere");
  EXPECT_EQ(elsewhere->claim_uid, "d1d2d3d4-0000-4000-8000-000000000002");
  EXPECT_THAT(elsewhere->message, HasSubstr("ResourceClaim ml/elsewhere (UID d1d2d3d4-0000-4000-8000-000000000002), "
                                            "which is no longer allocated on node \"node-1\""));
  EXPECT_THAT(Find(r, kPending)->message, HasSubstr("ml/pending"));
  EXPECT_THAT(Find(r, kPending)->message, HasSubstr("is not allocated"));
  EXPECT_THAT(Find(r, gone)->message, HasSubstr("which no ResourceClaim has any more"));
  EXPECT_EQ(Find(r, gone)->claim_name, "");
  EXPECT_THAT(r.in_sync, ElementsAre(kTrain, kInferGpu, kInferNic, kSharedNic));
}

TEST_F(AuditTest, OtherFilesAreNotOurs) {
  Sync("node-1");
  std::string text;
  ASSERT_TRUE(ReadFile(Path(kTrain), &text));
  // Another vendor's spec, a node-level spec, a .yaml file, a temporary file, and one of our
  // prefixes under another class: none belongs to this writer.
  WriteFile(Path("k8s.gpu.nvidia.com-claim_3f2a9c1e-0d4b-4b7e-9a51-2c8d7e6f5a10.json"), text);
  WriteFile(Path("nvidia.yaml"), "cdiVersion: 0.5.0\n");
  WriteFile(Path("k8s.gpu.sim.draforge.io-draforge_e1e2e3e4-0000-4000-8000-000000000003.yaml"), text);
  WriteFile(Path(".k8s.gpu.sim.draforge.io-draforge_x.json.1.abc.tmp"), "{");
  AuditReport r = Audit();
  EXPECT_EQ(r.Count(AuditStatus::kStale), 0u);
  EXPECT_EQ(r.Count(AuditStatus::kOutOfDate), 0u);
  EXPECT_EQ(r.in_sync.size(), 4u);
}

TEST_F(AuditTest, ChangedDevicesAreOutOfDateWithEachDifference) {
  Sync("node-1");
  auto built = BuildSpecsForNode(*cluster_.snapshot(), "node-1");
  ASSERT_TRUE(built.ok());
  Spec train;
  for (const ClaimSpec& c : built->specs) {
    if (c.claim_name == "train") train = c.file.spec;
  }
  ASSERT_GE(train.devices.size(), 2u);
  const std::string first = train.devices[0].name;
  const std::string second = train.devices[1].name;
  // An older allocation: one device missing, another with other env, one that is no longer allocated.
  train.devices.erase(train.devices.begin());
  train.devices[0].container_edits.env.push_back("STALE=1");
  Device old = train.devices[0];
  old.name = "3f2a9c1e-0d4b-4b7e-9a51-2c8d7e6f5a10-gpu-9";
  train.devices.push_back(old);
  WriteFile(Path(kTrain), EncodeSpec(train));
  // A spec that does not decode is out of date too.
  WriteFile(Path(kSharedNic), "{\"cdiVersion\": ");
  AuditReport r = Audit();
  EXPECT_THAT(Files(r, AuditStatus::kOutOfDate), ElementsAre(kTrain, kSharedNic));
  const AuditFinding* f = Find(r, kTrain);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->claim_name, "train");
  EXPECT_THAT(f->message, HasSubstr("spec of ResourceClaim ml/train (driver gpu.sim.draforge.io) on node \"node-1\""));
  EXPECT_THAT(f->message, HasSubstr("device \"" + first + "\" is missing"));
  EXPECT_THAT(f->message, HasSubstr("device \"" + second + "\": containerEdits differ (env)"));
  EXPECT_THAT(f->message, HasSubstr("device \"3f2a9c1e-0d4b-4b7e-9a51-2c8d7e6f5a10-gpu-9\" is not in the allocation"));
  EXPECT_THAT(Find(r, kSharedNic)->message, HasSubstr("does not decode"));
  EXPECT_THAT(r.in_sync, ElementsAre(kInferGpu, kInferNic));
}

TEST_F(AuditTest, ReformattedButEqualIsInSync) {
  Sync("node-1");
  std::string text;
  ASSERT_TRUE(ReadFile(Path(kTrain), &text));
  std::string compact;
  for (char c : text) {
    if (c != '\n' && c != ' ') compact.push_back(c);
  }
  ASSERT_NE(compact, text);
  WriteFile(Path(kTrain), compact);
  EXPECT_THAT(Audit().in_sync, ElementsAre(kTrain, kInferGpu, kInferNic, kSharedNic));
}

TEST_F(AuditTest, TheWritersRulesMatter) {
  Sync("node-1");
  // Audited with another class, our files are someone else's and every spec is missing.
  BuildOptions other;
  DriverRule rule;
  rule.cdi_class = "other";
  other.rules.push_back(rule);
  AuditReport r = Audit(other);
  EXPECT_EQ(r.Count(AuditStatus::kMissing), 4u);
  EXPECT_EQ(r.Count(AuditStatus::kStale), 0u);
  // Audited with a driver filter, the other driver's files are left alone.
  BuildOptions gpu_only;
  gpu_only.drivers = {"gpu.sim.draforge.io"};
  r = Audit(gpu_only);
  EXPECT_THAT(r.in_sync, ElementsAre(kTrain, kInferGpu));
  EXPECT_EQ(r.Count(AuditStatus::kStale), 0u);
}

TEST_F(AuditTest, BadArgumentsAreErrors) {
  auto missing = AuditDirectory(dir_.path() + "/nope", *cluster_.snapshot(), "node-1");
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  auto no_node = AuditDirectory(dir_.path(), *cluster_.snapshot(), "");
  EXPECT_TRUE(absl::IsInvalidArgument(no_node.status())) << no_node.status();
  BuildOptions bad;
  bad.max_version = "9.9.9";
  EXPECT_TRUE(absl::IsInvalidArgument(AuditDirectory(dir_.path(), *cluster_.snapshot(), "node-1", bad).status()));
}

}  // namespace
}  // namespace draforge::cdi
