// Node mode of the node plugin's preparer against a real control plane (tests/node-plugin/
// preparer_cluster_run starts one): the CDI directory follows the claims allocated on the node for
// the driver, prepares agree with the sync, an API server stop turns "api" not ready within 10 s
// while every file stays, and its return makes the plugin ready again. Skipped without
// $KUBECONFIG and $DRAFORGE_CLUSTER_DIR (the control plane's scratch directory).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "node_preparer.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace {

using ::testing::HasSubstr;
using draforge::node_plugin::ClaimRef;
using draforge::node_plugin::NodePreparer;
using draforge::node_plugin::NodePreparerOptions;
using draforge::node_plugin::PluginStatus;
namespace fs = std::filesystem;

constexpr char kNamespace[] = "node-plugin-test";
constexpr char kDriver[] = "gpu.example.com";

// Polls `done` every 100 ms until it holds or `limit` passed; whether it held.
bool WaitFor(std::chrono::milliseconds limit, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

class NodeSyncClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_dir_ = Env("DRAFORGE_CLUSTER_DIR");
    if (Env("KUBECONFIG").empty() || cluster_dir_.empty()) {
      GTEST_SKIP() << "needs a control plane: run tests/node-plugin/preparer_cluster_run";
    }
    // The client's default timeout (30 s), as the daemon has it: the probe bounds itself.
    auto client = draforge::KubeClient::Create(draforge::KubeConfigOptionsFromEnvironment());
    ASSERT_TRUE(client.ok()) << client.error().message;
    client_.emplace(std::move(*client));
    auto ns = client_->Create("v1", "namespaces", "",
                              std::string(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")") +
                                  kNamespace + "\"}}");
    ASSERT_TRUE(ns.ok() || draforge::IsKubeAlreadyExists(ns.error())) << ns.error().message;
    std::string tmpl = (fs::temp_directory_path() / "draforge-node-sync-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    if (!root_.empty()) fs::remove_all(root_);
  }

  // Creates claim `name` allocated (status) with device `device` of pool `node` for `node`; its UID.
  std::string CreateAllocatedClaim(const std::string& name, const std::string& node, const std::string& device) {
    const std::string body = std::string(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",)") +
                             R"("metadata":{"name":")" + name + R"("},"spec":{"devices":{"requests":[{"name":"gpu",)" +
                             R"("exactly":{"deviceClassName":"gpu.example.com"}}]}}})";
    auto created = client_->Create("resource.k8s.io/v1", "resourceclaims", kNamespace, body);
    EXPECT_TRUE(created.ok()) << created.error().message;
    if (!created.ok()) return "";
    rapidjson::Document d;
    d.Parse(created->c_str());
    const std::string status = R"({"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com",)"
                               R"("pool":")" + node + R"(","device":")" + device +
                               R"("}]},"nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name",)"
                               R"("operator":"In","values":[")" + node + R"("]}]}]}}})";
    rapidjson::Document s(&d.GetAllocator());
    s.Parse(status.c_str());
    d.RemoveMember("status");
    d.AddMember("status", rapidjson::Value(s, d.GetAllocator()), d.GetAllocator());
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    d.Accept(w);
    draforge::KubeRequestOptions ro;
    ro.subresource = "status";
    auto updated = client_->Update("resource.k8s.io/v1", "resourceclaims", kNamespace, buf.GetString(), ro);
    EXPECT_TRUE(updated.ok()) << updated.error().message;
    return d["metadata"]["uid"].GetString();
  }

  std::string FileOf(const std::string& uid) const {
    return root_ + "/cdi/k8s.gpu.example.com-draforge_" + uid + ".json";
  }

  // Runs tests/cluster/<script> --dir <cluster dir> <args>; its exit status.
  int Cluster(const std::string& args) {
    const std::string cmd = Env("DRAFORGE_SOURCE_ROOT") + "/tests/cluster/" + args + " >&2";
    return std::system(cmd.c_str());
  }

  std::string cluster_dir_, root_;
  std::optional<draforge::KubeClient> client_;
  PluginStatus status_;
};

TEST_F(NodeSyncClusterTest, TheCdiDirectoryFollowsTheNodesClaimsAndKeepsItsFilesWhileTheApiServerIsAway) {
  const std::string mine = CreateAllocatedClaim("mine", "node-1", "gpu-0");
  const std::string theirs = CreateAllocatedClaim("theirs", "node-2", "gpu-0");
  ASSERT_FALSE(mine.empty());
  ASSERT_FALSE(theirs.empty());
  fs::create_directories(root_ + "/cdi");
  std::ofstream(root_ + "/cdi/vendor.com-device.json") << "{}";  // not DRAForge's: never touched

  NodePreparerOptions o;
  o.driver = kDriver;
  o.node = "node-1";
  o.node_mode = true;
  o.cdi_dir = root_ + "/cdi";
  o.state_dir = root_ + "/state";
  o.client = &*client_;
  o.status = &status_;
  o.resync = std::chrono::seconds(5);
  auto p = NodePreparer::Create(o);
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto started = (*p)->Start();
  ASSERT_TRUE(started.ok()) << started.error().message;

  // The sync writes the node's claim before kubelet asks; never the other node's.
  EXPECT_TRUE(WaitFor(std::chrono::seconds(30), [&] { return fs::exists(FileOf(mine)); }));
  EXPECT_FALSE(fs::exists(FileOf(theirs)));
  EXPECT_TRUE(fs::exists(root_ + "/cdi/vendor.com-device.json"));
  auto r = (*p)->Prepare({{kNamespace, mine, "mine"}});
  ASSERT_EQ(r[mine].error, "");
  ASSERT_EQ(r[mine].devices.size(), 1u);
  EXPECT_EQ(r[mine].devices[0].cdi_device_ids[0], "k8s.gpu.example.com/draforge=" + mine + "-gpu-0");
  EXPECT_THAT((*p)->Prepare({{kNamespace, theirs, "theirs"}})[theirs].error,
              HasSubstr("allocated for node \"node-2\""));
  EXPECT_TRUE(WaitFor(std::chrono::seconds(10), [&] { return status_.Readiness().first; }))
      << status_.Readiness().second;

  // The API server stops: not ready within 10 s, with the reason; the files stay.
  std::ifstream pidfile(cluster_dir_ + "/pids/apiserver.pid");
  pid_t pid = 0;
  pidfile >> pid;
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  EXPECT_TRUE(WaitFor(std::chrono::seconds(10), [&] { return !status_.Readiness().first; }));
  EXPECT_THAT(status_.Readiness().second, HasSubstr("api: "));
  std::this_thread::sleep_for(std::chrono::seconds(6));  // a resync period passes without the API server
  EXPECT_TRUE(fs::exists(FileOf(mine)));
  EXPECT_EQ((*p)->Prepare({{kNamespace, mine, "mine"}})[mine].error, "") << "a prepared claim needs no API call";
  EXPECT_THAT((*p)->Prepare({{kNamespace, "1234", "new"}})["1234"].error, HasSubstr("ResourceClaim " +
                                                                                    std::string(kNamespace) +
                                                                                    "/new (uid 1234): reading it"));

  // It returns: ready again once the claim watch is open again. The watch backs off as client-go's
  // reflector does (0.8 s doubling, 100% jitter, 30 s cap), so after this outage its next attempt
  // may be up to about a minute away.
  ASSERT_EQ(Cluster("restart --dir " + cluster_dir_ + " apiserver"), 0);
  EXPECT_TRUE(WaitFor(std::chrono::seconds(90), [&] { return status_.Readiness().first; }))
      << status_.Readiness().second;

  // The claim is deleted: the sync removes its file; kubelet's unprepare afterwards succeeds.
  auto del = client_->Delete("resource.k8s.io/v1", "resourceclaims", kNamespace, "mine");
  ASSERT_TRUE(del.ok()) << del.error().message;
  EXPECT_TRUE(WaitFor(std::chrono::seconds(30), [&] { return !fs::exists(FileOf(mine)); }));
  EXPECT_EQ((*p)->Unprepare({{kNamespace, mine, "mine"}})[mine], "");
  EXPECT_TRUE(fs::exists(root_ + "/cdi/vendor.com-device.json"));
  (*p)->Stop();
}

// Demo mode with a cluster: the static document lists what the API server's slices of the node
// hold, and claims are read from the API server.
TEST_F(NodeSyncClusterTest, DemoModeWithAClusterDescribesTheNodesSlicesAndPreparesItsClaims) {
  NodePreparerOptions o;
  o.driver = kDriver;
  o.node = "node-1";
  o.cdi_dir = root_ + "/cdi";
  o.state_dir = root_ + "/state";
  o.client = &*client_;
  o.status = &status_;
  {
    // No slice of the node yet: nothing to describe, not an error.
    auto p = NodePreparer::Create(o);
    ASSERT_TRUE(p.ok()) << p.error().message;
    auto started = (*p)->Start();
    ASSERT_TRUE(started.ok()) << started.error().message;
    EXPECT_FALSE(fs::exists(root_ + "/cdi/k8s.gpu.example.com-draforge.json"));
  }
  auto slice = client_->Create("resource.k8s.io/v1", "resourceslices", "",
                               R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",)"
                               R"("metadata":{"name":"node-1-gpu-demo"},"spec":{"driver":"gpu.example.com",)"
                               R"("nodeName":"node-1","pool":{"name":"node-1","generation":1,"resourceSliceCount":1},)"
                               R"("devices":[{"name":"gpu-0"},{"name":"gpu-1"}]}})");
  ASSERT_TRUE(slice.ok()) << slice.error().message;
  const std::string uid = CreateAllocatedClaim("demo", "node-1", "gpu-1");
  auto p = NodePreparer::Create(o);
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto started = (*p)->Start();
  ASSERT_TRUE(started.ok()) << started.error().message;
  std::ifstream in(root_ + "/cdi/k8s.gpu.example.com-draforge.json");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(doc, HasSubstr("DRAFORGE_DEVICE_GPU_0=gpu.example.com/node-1/gpu-0"));
  EXPECT_THAT(doc, HasSubstr("DRAFORGE_DEVICE_GPU_1=gpu.example.com/node-1/gpu-1"));
  auto r = (*p)->Prepare({{kNamespace, uid, "demo"}});
  ASSERT_EQ(r[uid].error, "");
  EXPECT_EQ(r[uid].devices[0].cdi_device_ids[0], "k8s.gpu.example.com/draforge=" + uid + "-gpu-1");
  EXPECT_TRUE(status_.Readiness().first) << status_.Readiness().second;
}

}  // namespace
