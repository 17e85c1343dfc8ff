// The node plugin's preparer (examples/node-plugin/node_preparer.h) without a cluster: claims and
// slices come from a scenario file, as in demo mode. What kubelet sees (devices, CDI IDs, per-claim
// errors) and what the node keeps (spec files, checkpoint) across repeats, restarts, a wiped or
// read-only CDI directory, unknown, recreated and foreign claims.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "node_preparer.h"


namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using draforge::node_plugin::ClaimRef;
using draforge::node_plugin::NodePreparer;
using draforge::node_plugin::NodePreparerOptions;
using draforge::node_plugin::PluginStatus;
namespace fs = std::filesystem;

constexpr char kTrainUid[] = "7d3c1f1e-0000-4000-8000-000000000001";
constexpr char kOtherUid[] = "7d3c1f1e-0000-4000-8000-000000000002";
constexpr char kTrainFile[] = "k8s.gpu.example.com-draforge_7d3c1f1e-0000-4000-8000-000000000001.json";

constexpr char kSlices[] = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-2-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-2
  pool: {name: node-2, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
)";

// team-a/train on node-1 (gpu-0, gpu-1), team-a/other on node-2.
constexpr char kClaims[] = R"(
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: train, namespace: team-a, uid: 7d3c1f1e-0000-4000-8000-000000000001}
spec: {devices: {requests: [{name: gpus, exactly: {deviceClassName: gpu, count: 2}}]}}
status:
  allocation:
    devices:
      results:
      - {request: gpus, driver: gpu.example.com, pool: node-1, device: gpu-0}
      - {request: gpus, driver: gpu.example.com, pool: node-1, device: gpu-1}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [node-1]}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: other, namespace: team-a, uid: 7d3c1f1e-0000-4000-8000-000000000002}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-2, device: gpu-0}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [node-2]}]
)";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ino_t InodeOf(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class NodePreparerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "draforge-node-preparer-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    cdi_dir_ = root_ + "/cdi";
    state_dir_ = root_ + "/state";
    WriteScenario(std::string(kSlices) + kClaims);
  }
  void TearDown() override { fs::remove_all(root_); }

  void WriteScenario(const std::string& text) { std::ofstream(root_ + "/scenario.yaml") << text; }

  // A started preparer for node-1 over this test's directories.
  std::unique_ptr<NodePreparer> Started() {
    auto p = Create();
    if (!p) return nullptr;
    auto started = p->Start();
    EXPECT_TRUE(started.ok()) << started.error().message;
    return started.ok() ? std::move(p) : nullptr;
  }
  std::unique_ptr<NodePreparer> Create() {
    NodePreparerOptions o;
    o.driver = "gpu.example.com";
    o.node = "node-1";
    o.cdi_dir = cdi_dir_;
    o.state_dir = state_dir_;
    o.scenario_file = root_ + "/scenario.yaml";
    o.status = &status_;
    auto p = NodePreparer::Create(o);
    EXPECT_TRUE(p.ok()) << p.error().message;
    return p.ok() ? std::move(*p) : nullptr;
  }

  static ClaimRef Train() { return {"team-a", kTrainUid, "train"}; }

  std::string root_, cdi_dir_, state_dir_;
  PluginStatus status_;
};

TEST_F(NodePreparerTest, PrepareWritesTheSpecAndReturnsEachDeviceWithItsCdiId) {
  auto p = Started();
  ASSERT_TRUE(p);
  auto r = p->Prepare({Train()});
  ASSERT_EQ(r.size(), 1u);
  const auto& result = r[kTrainUid];
  ASSERT_EQ(result.error, "");
  ASSERT_EQ(result.devices.size(), 2u);
  EXPECT_THAT(result.devices[0].request_names, ElementsAre("gpus"));
  EXPECT_EQ(result.devices[0].pool_name, "node-1");
  EXPECT_EQ(result.devices[0].device_name, "gpu-0");
  EXPECT_THAT(result.devices[0].cdi_device_ids,
              ElementsAre("k8s.gpu.example.com/draforge=7d3c1f1e-0000-4000-8000-000000000001-gpu-0"));
  EXPECT_EQ(result.devices[1].device_name, "gpu-1");
  // The claim's file beside demo mode's static document, both valid for a runtime.
  EXPECT_THAT(ListDir(cdi_dir_), ElementsAre("k8s.gpu.example.com-draforge.json", kTrainFile));
  auto report = draforge::CdiValidateDirectory(cdi_dir_);
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(*report, ::testing::Not(HasSubstr("\"message\""))) << *report;
  EXPECT_THAT(ReadFile(state_dir_ + "/checkpoint.json"), HasSubstr(kTrainFile));
  EXPECT_TRUE(status_.Readiness().first) << status_.Readiness().second;
}

TEST_F(NodePreparerTest, ARepeatedPrepareReturnsTheSameIdsWithoutRewriting) {
  auto p = Started();
  ASSERT_TRUE(p);
  auto first = p->Prepare({Train()})[kTrainUid];
  ASSERT_EQ(first.error, "");
  const std::string file = cdi_dir_ + "/" + kTrainFile;
  const ino_t inode = InodeOf(file);  // an atomic rewrite renames a new file: a new inode
  const std::string checkpoint = ReadFile(state_dir_ + "/checkpoint.json");
  auto again = p->Prepare({Train()})[kTrainUid];
  ASSERT_EQ(again.error, "");
  ASSERT_EQ(again.devices.size(), first.devices.size());
  for (size_t i = 0; i < first.devices.size(); ++i) {
    EXPECT_EQ(again.devices[i].cdi_device_ids, first.devices[i].cdi_device_ids);
  }
  EXPECT_EQ(InodeOf(file), inode) << "the spec file was rewritten";
  EXPECT_EQ(ReadFile(state_dir_ + "/checkpoint.json"), checkpoint);
}

TEST_F(NodePreparerTest, ARestartedPluginAnswersFromItsCheckpointAndUnpreparesADeletedClaim) {
  std::vector<std::string> ids;
  {
    auto p = Started();
    ASSERT_TRUE(p);
    auto r = p->Prepare({Train()})[kTrainUid];
    ASSERT_EQ(r.error, "");
    ids = r.devices[0].cdi_device_ids;
  }
  // Meanwhile the claim was deleted: the scenario no longer has it.
  WriteScenario(kSlices);
  auto p = Started();
  ASSERT_TRUE(p);
  auto again = p->Prepare({Train()})[kTrainUid];
  ASSERT_EQ(again.error, "") << "kubelet repeats prepares of claims it counts as prepared";
  EXPECT_EQ(again.devices[0].cdi_device_ids, ids);
  auto un = p->Unprepare({Train()});
  EXPECT_EQ(un[kTrainUid], "");
  EXPECT_FALSE(fs::exists(cdi_dir_ + "/" + kTrainFile));
  EXPECT_THAT(ReadFile(state_dir_ + "/checkpoint.json"), ::testing::Not(HasSubstr(kTrainUid)));
  // Once more, and for a claim never seen: nothing to undo, success.
  EXPECT_EQ(p->Unprepare({Train()})[kTrainUid], "");
  EXPECT_EQ(p->Unprepare({{"team-a", "0000", "never"}})["0000"], "");
  // Now unknown to checkpoint and scenario, a prepare is an error naming the claim.
  EXPECT_THAT(p->Prepare({Train()})[kTrainUid].error,
              HasSubstr("ResourceClaim team-a/train (uid 7d3c1f1e-0000-4000-8000-000000000001): not found"));
}

TEST_F(NodePreparerTest, AWipedCdiDirectoryIsRebuiltAtStartAndOnTheNextPrepare) {
  {
    auto p = Started();
    ASSERT_TRUE(p);
    ASSERT_EQ(p->Prepare({Train()})[kTrainUid].error, "");
    const std::string before = ReadFile(cdi_dir_ + "/" + kTrainFile);
    fs::remove_all(cdi_dir_);  // a reboot: /var/run/cdi is a tmpfs
    // Without a restart: the next prepare writes the file again from the checkpoint.
    ASSERT_EQ(p->Prepare({Train()})[kTrainUid].error, "");
    EXPECT_EQ(ReadFile(cdi_dir_ + "/" + kTrainFile), before);
  }
  const std::string before = ReadFile(cdi_dir_ + "/" + kTrainFile);
  fs::remove_all(cdi_dir_);
  WriteScenario(kSlices);  // also when the claim cannot be read any more
  auto p = Started();
  ASSERT_TRUE(p);
  EXPECT_EQ(ReadFile(cdi_dir_ + "/" + kTrainFile), before) << "rewritten at start";
}

TEST_F(NodePreparerTest, UnknownRecreatedAndForeignClaimsAreErrorsNamingTheClaim) {
  auto p = Started();
  ASSERT_TRUE(p);
  auto r = p->Prepare({{"team-a", "1234", "nope"},
                       {"team-a", "5678", "train"},
                       {"team-a", kOtherUid, "other"},
                       Train()});
  EXPECT_THAT(r["1234"].error, HasSubstr("ResourceClaim team-a/nope (uid 1234): not found in scenario"));
  EXPECT_THAT(r["5678"].error, HasSubstr("ResourceClaim team-a/train (uid 5678): the claim of that name has UID "
                                         "7d3c1f1e-0000-4000-8000-000000000001"));
  EXPECT_THAT(r[kOtherUid].error, HasSubstr("ResourceClaim team-a/other (uid 7d3c1f1e-0000-4000-8000-000000000002): "
                                            "allocated for node \"node-2\""));
  EXPECT_THAT(r[kOtherUid].error, HasSubstr("not for node \"node-1\""));
  for (const char* uid : {"1234", "5678", kOtherUid}) EXPECT_THAT(r[uid].devices, IsEmpty()) << uid;
  EXPECT_EQ(r[kTrainUid].error, "") << "one claim's error never fails the others";
  EXPECT_THAT(ListDir(cdi_dir_), ElementsAre("k8s.gpu.example.com-draforge.json", kTrainFile));
}

TEST_F(NodePreparerTest, ADamagedCheckpointIsAnErrorAtStartNamingTheFile) {
  fs::create_directories(state_dir_);
  std::ofstream(state_dir_ + "/checkpoint.json") << R"({"version":1,"entries":[{"namespace":"team-a"}]})";
  auto p = Create();
  ASSERT_TRUE(p);
  auto started = p->Start();
  ASSERT_FALSE(started.ok());
  EXPECT_THAT(started.error().message, HasSubstr("checkpoint " + state_dir_ + "/checkpoint.json: entries[0] name"));
  std::ofstream(state_dir_ + "/checkpoint.json") << "{not json";
  started = Create()->Start();
  ASSERT_FALSE(started.ok());
  EXPECT_THAT(started.error().message, HasSubstr("is not JSON"));
}

// A read-only CDI directory (a tmpfs remounted read-only: root writes through file modes). Needs
// CAP_SYS_ADMIN; skipped without it.
TEST_F(NodePreparerTest, AReadOnlyCdiDirectoryFailsEachClaimAndLeavesNothingHalfWritten) {
  fs::create_directories(cdi_dir_);
  if (mount("tmpfs", cdi_dir_.c_str(), "tmpfs", 0, "size=1m,mode=0755") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << "): needs CAP_SYS_ADMIN";
  }
  struct Unmount {
    std::string dir;
    ~Unmount() { umount2(dir.c_str(), MNT_DETACH); }
  } unmount{cdi_dir_};
  auto p = Started();  // writes the static document while writable
  ASSERT_TRUE(p);
  ASSERT_EQ(mount(nullptr, cdi_dir_.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0) << std::strerror(errno);
  auto r = p->Prepare({Train()})[kTrainUid];
  EXPECT_THAT(r.error, HasSubstr("ResourceClaim team-a/train (uid 7d3c1f1e-0000-4000-8000-000000000001): "
                                 "writing its CDI spec"));
  EXPECT_THAT(r.error, HasSubstr("Read-only file system"));
  EXPECT_THAT(r.devices, IsEmpty());
  EXPECT_THAT(ListDir(cdi_dir_), ElementsAre("k8s.gpu.example.com-draforge.json"));
  EXPECT_THAT(ReadFile(state_dir_ + "/checkpoint.json"), ::testing::Not(HasSubstr(kTrainUid)));
  auto [ready, reasons] = status_.Readiness();
  EXPECT_FALSE(ready);
  EXPECT_THAT(reasons, HasSubstr("cdi: "));
  // Writable again: the next prepare succeeds and readiness returns.
  ASSERT_EQ(mount(nullptr, cdi_dir_.c_str(), nullptr, MS_REMOUNT, nullptr), 0) << std::strerror(errno);
  EXPECT_EQ(p->Prepare({Train()})[kTrainUid].error, "");
  EXPECT_TRUE(status_.Readiness().first) << status_.Readiness().second;
}

// A checkpoint that cannot be written (its directory read-only) fails the claim, and the spec file
// written just before is taken back: nothing prepared stays unrecorded. Needs CAP_SYS_ADMIN.
TEST_F(NodePreparerTest, AnUnwritableCheckpointFailsTheClaimAndTakesItsFileBack) {
  fs::create_directories(state_dir_);
  if (mount("tmpfs", state_dir_.c_str(), "tmpfs", 0, "size=1m,mode=0755") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << "): needs CAP_SYS_ADMIN";
  }
  struct Unmount {
    std::string dir;
    ~Unmount() { umount2(dir.c_str(), MNT_DETACH); }
  } unmount{state_dir_};
  auto p = Started();
  ASSERT_TRUE(p);
  ASSERT_EQ(mount(nullptr, state_dir_.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0) << std::strerror(errno);
  auto r = p->Prepare({Train()})[kTrainUid];
  EXPECT_THAT(r.error, HasSubstr("ResourceClaim team-a/train (uid 7d3c1f1e-0000-4000-8000-000000000001): "
                                 "writing checkpoint " + state_dir_ + "/checkpoint.json"));
  EXPECT_THAT(r.devices, IsEmpty());
  EXPECT_FALSE(fs::exists(cdi_dir_ + "/" + kTrainFile));
  ASSERT_EQ(mount(nullptr, state_dir_.c_str(), nullptr, MS_REMOUNT, nullptr), 0) << std::strerror(errno);
  EXPECT_EQ(p->Prepare({Train()})[kTrainUid].error, "") << "kubelet's retry succeeds";
  EXPECT_TRUE(fs::exists(cdi_dir_ + "/" + kTrainFile));
}

// kubelet may prepare from several gRPC threads at once, also the same claim: every answer is the
// same, one file, one checkpoint entry.
TEST_F(NodePreparerTest, ConcurrentPreparesOfOneClaimAgree) {
  auto p = Started();
  ASSERT_TRUE(p);
  std::vector<std::thread> threads;
  std::vector<draforge::node_plugin::PrepareResult> results(8);
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = p->Prepare({Train()})[kTrainUid]; });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& r : results) {
    ASSERT_EQ(r.error, "");
    ASSERT_EQ(r.devices.size(), 2u);
    EXPECT_EQ(r.devices[1].cdi_device_ids, results[0].devices[1].cdi_device_ids);
  }
  EXPECT_THAT(ListDir(cdi_dir_), ElementsAre("k8s.gpu.example.com-draforge.json", kTrainFile));
  const std::string checkpoint = ReadFile(state_dir_ + "/checkpoint.json");
  EXPECT_EQ(checkpoint.find(kTrainFile), checkpoint.rfind(kTrainFile)) << checkpoint;
}

TEST_F(NodePreparerTest, DemoModeWritesTheNodesStaticDocumentFromTheEmbeddedScenario) {
  NodePreparerOptions o;
  o.driver = "gpu.example.com";
  o.node = "node-2";
  o.cdi_dir = cdi_dir_;
  o.state_dir = state_dir_;
  auto p = NodePreparer::Create(o);
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto started = (*p)->Start();
  ASSERT_TRUE(started.ok()) << started.error().message;
  const std::string doc = ReadFile(cdi_dir_ + "/k8s.gpu.example.com-draforge.json");
  for (const char* d : {"gpu-0", "gpu-1", "gpu-2", "gpu-3"}) EXPECT_THAT(doc, HasSubstr(d));
  // The embedded demo's notebook claim is allocated on node-2.
  auto r = (*p)->Prepare({{"team-a", "7d3c1f1e-0000-4000-8000-000000000002", "notebook-0-gpu-x7k2p"}});
  EXPECT_EQ(r["7d3c1f1e-0000-4000-8000-000000000002"].error, "");
}

TEST_F(NodePreparerTest, OptionsThatCannotWorkAreRefused) {
  NodePreparerOptions o;
  o.driver = "gpu.example.com";
  o.node = "node-1";
  o.cdi_dir = cdi_dir_;
  o.state_dir = state_dir_;
  o.node_mode = true;
  auto p = NodePreparer::Create(o);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.error().message, HasSubstr("node mode needs a cluster"));
  o.node_mode = false;
  o.scenario_file = root_ + "/missing.yaml";
  p = NodePreparer::Create(o);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.error().message, HasSubstr("missing.yaml"));
}

}  // namespace
