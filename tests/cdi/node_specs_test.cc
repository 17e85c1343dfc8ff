// From allocations to CDI specs (BuildSpecsForNode) and on to a directory (SyncDirectory), on the
// cluster in tests/cdi/fixtures/node/input.yaml. The expected specs are in fixtures/node/expected;
// set DRAFORGE_UPDATE_GOLDEN=1 to rewrite them after a deliberate change (then review the diff).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "api/codec.h"
#include "cdi/directory.h"
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
using testing::ListDir;
using testing::ReadFile;
using testing::TempDir;

constexpr char kTrainUid[] = "3f2a9c1e-0d4b-4b7e-9a51-2c8d7e6f5a10";
constexpr char kInferUid[] = "b7d0c6a2-5f1e-4c3b-8a9d-0e1f2a3b4c5d";
constexpr char kNicUid[] = "c0ffee00-1111-4222-8333-444455556666";
constexpr char kGpu[] = "k8s.gpu.sim.draforge.io-draforge_";
constexpr char kNic[] = "k8s.nic.sim.draforge.io-draforge_";

class NodeSpecsTest : public ::testing::Test {
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

  NodeSpecs Build(const BuildOptions& options = {}, const std::string& node = "node-1") {
    absl::StatusOr<NodeSpecs> out = BuildSpecsForNode(*cluster_.snapshot(), node, options);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? *std::move(out) : NodeSpecs{};
  }

  store::Cluster cluster_;
};

std::vector<std::string> FileNames(const NodeSpecs& specs) {
  std::vector<std::string> out;
  for (const ClaimSpec& c : specs.specs) out.push_back(c.file.file_name);
  return out;
}

TEST_F(NodeSpecsTest, OneSpecPerClaimAndDriverOnTheNode) {
  NodeSpecs specs = Build();
  EXPECT_THAT(FileNames(specs),
              ElementsAre(std::string(kNic) + kNicUid + ".json", std::string(kGpu) + kInferUid + ".json",
                          std::string(kNic) + kInferUid + ".json", std::string(kGpu) + kTrainUid + ".json"));
  ASSERT_EQ(specs.failed.size(), 1u);
  EXPECT_EQ(specs.failed[0].claim_name, "no-uid");
  EXPECT_THAT(specs.failed[0].message, HasSubstr("ResourceClaim ml/no-uid: metadata.uid is empty"));
  EXPECT_THAT(specs.owned_prefixes, ElementsAre(kGpu, kNic));
}

TEST_F(NodeSpecsTest, DeviceIdsPerRequestAsNodePrepareReturnsThem) {
  NodeSpecs specs = Build();
  ASSERT_EQ(specs.specs.size(), 4u);
  const ClaimSpec& train = specs.specs[3];
  EXPECT_EQ(train.claim_name, "train");
  ASSERT_EQ(train.requests.size(), 1u);
  EXPECT_EQ(train.requests[0].request, "gpus");
  EXPECT_THAT(train.requests[0].cdi_device_ids,
              ElementsAre(std::string("k8s.gpu.sim.draforge.io/draforge=") + kTrainUid + "-gpu-0",
                          std::string("k8s.gpu.sim.draforge.io/draforge=") + kTrainUid + "-gpu-1"));
  const ClaimSpec& infer_gpu = specs.specs[1];
  ASSERT_EQ(infer_gpu.requests.size(), 2u);
  EXPECT_EQ(infer_gpu.requests[0].request, "accel/small");
  EXPECT_EQ(infer_gpu.requests[1].request, "monitor");
  const ClaimSpec& infer_nic = specs.specs[2];
  ASSERT_EQ(infer_nic.requests.size(), 1u);
  EXPECT_THAT(infer_nic.requests[0].cdi_device_ids,
              ElementsAre(std::string("k8s.nic.sim.draforge.io/draforge=") + kInferUid +
                          "-nic-0-9d1c2b3a-0000-4000-8000-000000000001"));
  // Every ID names a device of the spec it belongs to.
  for (const ClaimSpec& c : specs.specs) {
    for (const RequestDevices& r : c.requests) {
      for (const std::string& id : r.cdi_device_ids) {
        bool found = false;
        for (const Device& d : c.file.spec.devices) found = found || QualifiedDeviceName(c.file.spec.kind, d.name) == id;
        EXPECT_TRUE(found) << id;
      }
    }
  }
}

// A node plugin asks for one claim at a time: BuildClaimSpec must give each claim exactly what
// BuildSpecsForNode gives it (one code path), plus one device per allocation result of the driver.
TEST_F(NodeSpecsTest, OneClaimsSpecIsWhatTheNodesSpecsHoldForIt) {
  NodeSpecs specs = Build();
  ASSERT_EQ(specs.specs.size(), 4u);
  auto snapshot = cluster_.snapshot();
  for (const ClaimSpec& want : specs.specs) {
    SCOPED_TRACE(want.claim_name + " " + want.driver);
    const api::ResourceClaim* claim = snapshot->GetResourceClaim(want.claim_namespace, want.claim_name);
    ASSERT_NE(claim, nullptr);
    absl::StatusOr<ClaimSpec> got = BuildClaimSpec(*claim, "node-1", want.driver);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->file.file_name, want.file.file_name);
    EXPECT_TRUE(got->file.spec == want.file.spec);
    ASSERT_EQ(got->requests.size(), want.requests.size());
    for (size_t i = 0; i < want.requests.size(); ++i) {
      EXPECT_EQ(got->requests[i].request, want.requests[i].request);
      EXPECT_EQ(got->requests[i].cdi_device_ids, want.requests[i].cdi_device_ids);
    }
    size_t results = 0;
    for (const auto& r : claim->status->allocation->devices->results) results += r.driver == want.driver ? 1 : 0;
    EXPECT_EQ(got->devices.size(), results);
    EXPECT_EQ(got->devices, want.devices);
  }
  // The claim without a UID fails with the claim named, its (empty) UID included.
  const api::ResourceClaim* no_uid = snapshot->GetResourceClaim("ml", "no-uid");
  ASSERT_NE(no_uid, nullptr);
  absl::StatusOr<ClaimSpec> failed = BuildClaimSpec(*no_uid, "node-1", "gpu.sim.draforge.io");
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(failed.status().message(), HasSubstr("ResourceClaim ml/no-uid (uid ): metadata.uid is empty"));
}

TEST_F(NodeSpecsTest, VersionIsTheMinimumForTheNames) {
  NodeSpecs specs = Build();
  ASSERT_EQ(specs.specs.size(), 4u);
  EXPECT_EQ(specs.specs[3].file.spec.version, "0.5.0") << "the UID starts with a digit";
  EXPECT_EQ(specs.specs[1].file.spec.version, "0.3.0") << "the UID starts with a letter";
}

// A container that gets the devices of every claim on the node keeps every variable: a runtime
// applies one device's edits after another, and a name used twice keeps only the last value.
TEST_F(NodeSpecsTest, EnvNamesAreUniqueAcrossClaimsAndDevices) {
  NodeSpecs specs = Build();
  ASSERT_GE(specs.specs.size(), 2u);
  std::map<std::string, std::string> owner;  // variable name -> "<claim UID>/<CDI device>"
  size_t devices = 0;
  for (const ClaimSpec& c : specs.specs) {
    for (const Device& d : c.file.spec.devices) {
      ++devices;
      ASSERT_FALSE(d.container_edits.env.empty()) << d.name;
      for (const std::string& e : d.container_edits.env) {
        const std::string name = e.substr(0, e.find('='));
        const std::string who = c.claim_uid + "/" + d.name;
        auto [it, inserted] = owner.emplace(name, who);
        EXPECT_TRUE(inserted) << name << " is set by " << it->second << " and " << who;
      }
    }
  }
  EXPECT_GE(devices, 3u);
  // Readable: the claim UID and the device name in upper case, '-' as '_'.
  const ClaimSpec& first = specs.specs.front();
  std::string uid = first.claim_uid;
  for (char& ch : uid) ch = ch == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  EXPECT_EQ(first.file.spec.devices.front().container_edits.env.front().rfind("DRA_" + uid + "_", 0), 0u)
      << first.file.spec.devices.front().container_edits.env.front();
}

TEST_F(NodeSpecsTest, MatchesGoldenSpecs) {
  const bool update = testing::EnvOr("DRAFORGE_UPDATE_GOLDEN", "") == "1";
  BuildOptions options;
  DriverRule gpu;
  gpu.driver = "gpu.sim.draforge.io";
  gpu.metadata_host_dir = "/var/lib/draforge/metadata";
  options.rules.push_back(gpu);
  NodeSpecs specs = Build(options);
  const std::string dir = FixturesDir() + "/node/expected";
  std::vector<std::string> want;
  for (const std::string& n : ListDir(dir)) {
    if (n.ends_with(".json")) want.push_back(n);
  }
  if (update) {
    for (const std::string& n : want) unlink((dir + "/" + n).c_str());
    mkdir(dir.c_str(), 0755);
    for (const ClaimSpec& c : specs.specs) testing::WriteFile(dir + "/" + c.file.file_name, EncodeSpec(c.file.spec));
    want = FileNames(specs);
    std::sort(want.begin(), want.end());
  }
  std::vector<std::string> got = FileNames(specs);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  for (const ClaimSpec& c : specs.specs) {
    std::string golden;
    ASSERT_TRUE(ReadFile(dir + "/" + c.file.file_name, &golden)) << c.file.file_name;
    EXPECT_EQ(EncodeSpec(c.file.spec), golden) << c.file.file_name;
  }
}

TEST_F(NodeSpecsTest, CeilingBelowWhatAClaimNeedsFailsThatClaimOnly) {
  BuildOptions options;
  options.max_version = "0.3.0";
  NodeSpecs specs = Build(options);
  EXPECT_EQ(specs.specs.size(), 3u);
  bool train_failed = false;
  for (const ClaimFailure& f : specs.failed) {
    if (f.claim_name != "train") continue;
    train_failed = true;
    EXPECT_EQ(f.file_name, std::string(kGpu) + kTrainUid + ".json");
    EXPECT_THAT(f.message, HasSubstr("requires cdiVersion 0.5.0, above the maximum 0.3.0"));
  }
  EXPECT_TRUE(train_failed);
}

TEST_F(NodeSpecsTest, DriverFilterKeepsOneDriver) {
  BuildOptions options;
  options.drivers = {"nic.sim.draforge.io"};
  NodeSpecs specs = Build(options);
  EXPECT_THAT(FileNames(specs),
              ElementsAre(std::string(kNic) + kNicUid + ".json", std::string(kNic) + kInferUid + ".json"));
  EXPECT_THAT(specs.owned_prefixes, ElementsAre(kNic));
  EXPECT_THAT(specs.failed, IsEmpty()) << "the claim without UID has only GPU devices";
}

TEST_F(NodeSpecsTest, OtherNodeGetsItsOwnClaims) {
  NodeSpecs specs = Build({}, "node-2");
  EXPECT_THAT(FileNames(specs), ElementsAre(std::string(kGpu) + "d1d2d3d4-0000-4000-8000-000000000002.json"));
  EXPECT_THAT(Build({}, "node-3").specs, IsEmpty());
}

TEST_F(NodeSpecsTest, ADriverNameThatMakesNoVendorFailsItsClaimsOnly) {
  api::ResourceClaim claim;
  claim.metadata.name = "odd";
  claim.metadata.namespace_ = "ml";
  claim.metadata.uid = "0b0b0b0b-0000-4000-8000-000000000009";
  api::DeviceRequestAllocationResult r;
  r.request = "x";
  r.driver = "Not_A_DNS_Name";
  r.pool = "node-1";
  r.device = "dev-0";
  claim.status.emplace().allocation.emplace().devices.emplace().results.push_back(r);
  api::NodeSelectorTerm term;
  term.match_fields.push_back({"metadata.name", "In", {"node-1"}});
  claim.status->allocation->node_selector.emplace().node_selector_terms.push_back(term);
  ASSERT_TRUE(cluster_.Apply(api::Object{"resource.k8s.io/v1", claim}).ok());
  NodeSpecs specs = Build();
  EXPECT_EQ(specs.specs.size(), 4u);
  ASSERT_EQ(specs.failed.size(), 2u);
  EXPECT_EQ(specs.failed[1].claim_name, "odd");
  EXPECT_THAT(specs.failed[1].message,
              HasSubstr("ResourceClaim ml/odd: driver name \"Not_A_DNS_Name\" does not make a valid CDI vendor"));
  EXPECT_THAT(specs.owned_prefixes, ElementsAre(kGpu, kNic));
}

TEST_F(NodeSpecsTest, AnIncompleteResultFailsTheClaimAndKeepsItsFiles) {
  auto train = cluster_.snapshot()->GetShared(api::Kind::kResourceClaim, "ml", "train");
  ASSERT_NE(train, nullptr);
  api::Object changed = *train;
  std::get<api::ResourceClaim>(changed.value).status->allocation->devices->results[1].device.reset();
  ASSERT_TRUE(cluster_.Apply(changed).ok());
  NodeSpecs specs = Build();
  EXPECT_EQ(specs.specs.size(), 3u);
  bool found = false;
  for (const ClaimFailure& f : specs.failed) {
    if (f.claim_name != "train") continue;
    found = true;
    EXPECT_EQ(f.message, "ResourceClaim ml/train: status.allocation.devices.results[1].device is empty");
    EXPECT_EQ(f.file_name, std::string(kGpu) + kTrainUid + ".json");
  }
  EXPECT_TRUE(found);
  EXPECT_THAT(specs.MakeSyncOptions().keep, ::testing::Contains(std::string(kGpu) + kTrainUid + ".json"));
}

TEST_F(NodeSpecsTest, BadOptionsAreErrors) {
  EXPECT_EQ(BuildSpecsForNode(*cluster_.snapshot(), "", {}).status().code(), absl::StatusCode::kInvalidArgument);
  BuildOptions options;
  DriverRule r;
  r.vendor = "Bad_Vendor";
  options.rules.push_back(r);
  absl::StatusOr<NodeSpecs> out = BuildSpecsForNode(*cluster_.snapshot(), "node-1", options);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("Bad_Vendor"));
  options.rules = {DriverRule{}, DriverRule{}};
  EXPECT_THAT(BuildSpecsForNode(*cluster_.snapshot(), "node-1", options).status().message(),
              HasSubstr("two default rules"));
  options = {};
  options.max_version = "0.9.0";
  EXPECT_EQ(BuildSpecsForNode(*cluster_.snapshot(), "node-1", options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(NodeSpecsTest, SyncWritesValidFilesAndRemovesOnlyOurStaleOnes) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/cdi";
  NodeSpecs specs = Build();
  absl::StatusOr<SyncReport> report = SyncDirectory(dir, specs.Files(), specs.MakeSyncOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->ok());
  EXPECT_EQ(report->written.size(), 4u);
  struct stat st;
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);

  absl::StatusOr<DirectoryReport> audit = ValidateDirectory(dir);  // kStrict, ceiling 0.5.0
  ASSERT_TRUE(audit.ok()) << audit.status();
  EXPECT_TRUE(audit->ok());
  EXPECT_EQ(audit->files.size(), 4u);

  // Someone else's specs, and a stale one of ours.
  testing::WriteFile(dir + "/nvidia.com-gpu.json", "not ours");
  testing::WriteFile(dir + "/k8s.gpu.sim.draforge.io-common.json", "no underscore: not a claim spec");
  testing::WriteFile(dir + std::string("/") + kGpu + "0dead000-0000-4000-8000-000000000000.json", "stale");
  // DRAForge writes only .json: a .yaml with our prefix is someone else's and stays.
  testing::WriteFile(dir + std::string("/") + kGpu + "0dead000-0000-4000-8000-000000000000.yaml", "not ours");

  // The training claim goes away.
  ASSERT_TRUE(cluster_.Delete(api::Kind::kResourceClaim, "ml", "train").ok());
  NodeSpecs after = Build();
  report = SyncDirectory(dir, after.Files(), after.MakeSyncOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->written, IsEmpty());
  EXPECT_EQ(report->unchanged.size(), 3u);
  EXPECT_THAT(report->removed, ElementsAre(std::string(kGpu) + "0dead000-0000-4000-8000-000000000000.json",
                                           std::string(kGpu) + kTrainUid + ".json"));
  EXPECT_THAT(ListDir(dir), ::testing::UnorderedElementsAre(std::string(kGpu) + "0dead000-0000-4000-8000-000000000000.yaml",
                                        std::string(kGpu) + kInferUid + ".json", "k8s.gpu.sim.draforge.io-common.json",
                                        std::string(kNic) + kInferUid + ".json", std::string(kNic) + kNicUid + ".json",
                                        "nvidia.com-gpu.json"));
}

TEST_F(NodeSpecsTest, AClaimThatCannotBeBuiltKeepsItsLastGoodFile) {
  TempDir tmp;
  NodeSpecs specs = Build();
  ASSERT_TRUE(SyncDirectory(tmp.path(), specs.Files(), specs.MakeSyncOptions()).ok());
  const std::string train = tmp.path() + "/" + kGpu + kTrainUid + ".json";
  std::string before;
  ASSERT_TRUE(ReadFile(train, &before));

  BuildOptions options;
  options.max_version = "0.3.0";  // the training claim's spec no longer fits
  NodeSpecs later = Build(options);
  absl::StatusOr<SyncReport> report = SyncDirectory(tmp.path(), later.Files(), later.MakeSyncOptions());
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(report->removed, IsEmpty());
  std::string after;
  ASSERT_TRUE(ReadFile(train, &after));
  EXPECT_EQ(after, before);
}

}  // namespace
}  // namespace draforge::cdi
