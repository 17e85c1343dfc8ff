// The node plugin's gRPC front over real unix sockets, with a gRPC client built from our .proto
// files and a fake ClaimPreparer: what kubelet sees (GetInfo, per-claim answers in v1 and v1beta1),
// what operators see (/healthz, /readyz, /metrics through the probes), and the sockets' lifetime.
// kubelet's own client against the real daemon is tests/node-plugin/kubelet (the acceptance test).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "dra_v1.grpc.pb.h"
#include "dra_v1beta1.grpc.pb.h"
#include "flags.h"
#include "node_plugin_test_util.h"
#include "plugin_http.h"
#include "plugin_server.h"
#include "plugin_status.h"
#include "pluginregistration_v1.grpc.pb.h"

namespace draforge::node_plugin {
namespace {

namespace fs = std::filesystem;
namespace v1 = k8s::io::kubelet::pkg::apis::dra::v1;
namespace v1beta1 = k8s::io::kubelet::pkg::apis::dra::v1beta1;
using testing::Metric;
using testing::TempDir;

// Answers by UID: "uid-fail" fails, "uid-throw" makes the whole call throw, any other is prepared
// with one device whose CDI ID names the claim.
class FakePreparer : public ClaimPreparer {
 public:
  std::map<std::string, PrepareResult> Prepare(const std::vector<ClaimRef>& claims) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<std::string, PrepareResult> out;
    for (const auto& c : claims) {
      prepared_.push_back(c.namespace_ + "/" + c.name + "/" + c.uid);
      if (c.uid == "uid-throw") throw std::runtime_error("disk on fire");
      if (c.uid == "uid-fail") {
        out[c.uid].error = "ResourceClaim " + c.namespace_ + "/" + c.name + ": not allocated on this node";
      } else {
        out[c.uid].devices.push_back({{"gpu"}, "pool-a", "dev-0", {"k8s.gpu.example.com/draforge=" + c.uid + "-dev-0"}});
      }
    }
    return out;
  }
  std::map<std::string, std::string> Unprepare(const std::vector<ClaimRef>& claims) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<std::string, std::string> out;
    for (const auto& c : claims) {
      unprepared_.push_back(c.namespace_ + "/" + c.name + "/" + c.uid);
      out[c.uid] = c.uid == "uid-fail" ? "ResourceClaim " + c.name + ": cannot remove its CDI spec" : "";
    }
    return out;
  }
  std::vector<std::string> prepared() {
    std::lock_guard<std::mutex> lock(mu_);
    return prepared_;
  }
  std::vector<std::string> unprepared() {
    std::lock_guard<std::mutex> lock(mu_);
    return unprepared_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> prepared_, unprepared_;
};

http::Response Get(const PluginStatus& status, const std::string& target) {
  http::Request r;
  r.method = "GET";
  r.target = target;
  return http::ServeProbes(r, StatusProbes(status));
}

class GrpcFrontTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = TempDir(); }
  void TearDown() override {
    servers_.clear();
    fs::remove_all(dir_);
  }

  PluginServerOptions Options(const std::string& uid) {
    PluginServerOptions o;
    o.driver = "gpu.example.com";
    o.registration_dir = (dir_ / "registry").string();
    o.plugin_dir = (dir_ / "plugins" / "gpu.example.com").string();
    o.instance_uid = uid;
    o.preparer = &preparer_;
    o.status = &status_;
    return o;
  }
  PluginServer& Start(const std::string& uid = "uid-1") {
    auto started = PluginServer::Start(Options(uid));
    if (!started.ok()) throw std::runtime_error(started.error().message);
    servers_.push_back(*std::move(started));
    return *servers_.back();
  }
  static std::shared_ptr<grpc::Channel> Dial(const std::string& socket) {
    return grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials());
  }
  pluginregistration::PluginInfo GetInfo(const std::string& socket) {
    auto stub = pluginregistration::Registration::NewStub(Dial(socket));
    grpc::ClientContext ctx;
    pluginregistration::InfoRequest req;
    pluginregistration::PluginInfo info;
    const grpc::Status s = stub->GetInfo(&ctx, req, &info);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return info;
  }
  void Notify(const std::string& socket, bool registered, const std::string& error) {
    auto stub = pluginregistration::Registration::NewStub(Dial(socket));
    grpc::ClientContext ctx;
    pluginregistration::RegistrationStatus req;
    req.set_plugin_registered(registered);
    req.set_error(error);
    pluginregistration::RegistrationStatusResponse resp;
    const grpc::Status s = stub->NotifyRegistrationStatus(&ctx, req, &resp);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }

  fs::path dir_;
  FakePreparer preparer_;
  PluginStatus status_;
  std::vector<std::unique_ptr<PluginServer>> servers_;
};

TEST_F(GrpcFrontTest, SocketsHaveTheContractsNamesAndGetInfoAdvertisesBothVersions) {
  PluginServer& server = Start("uid-1");
  const fs::path reg = dir_ / "registry" / "gpu.example.com-uid-1-reg.sock";
  const fs::path dra = dir_ / "plugins" / "gpu.example.com" / "dra-uid-1.sock";
  EXPECT_EQ(server.sockets().registration, reg.string());
  EXPECT_EQ(server.sockets().dra, dra.string());
  EXPECT_TRUE(fs::is_socket(reg));
  EXPECT_TRUE(fs::is_socket(dra));

  const auto info = GetInfo(reg.string());
  EXPECT_EQ(info.type(), "DRAPlugin");
  EXPECT_EQ(info.name(), "gpu.example.com");
  EXPECT_EQ(info.endpoint(), dra.string());
  ASSERT_EQ(info.supported_versions_size(), 2);
  EXPECT_EQ(info.supported_versions(0), "v1.DRAPlugin");
  EXPECT_EQ(info.supported_versions(1), "v1beta1.DRAPlugin");
}

// The types of one version, so that one test body serves both.
#define DRAFORGE_API_TYPES(ns)                                                     \
  struct {                                                                         \
    using DRAPlugin = ns::DRAPlugin;                                               \
    using NodePrepareResourcesRequest = ns::NodePrepareResourcesRequest;           \
    using NodePrepareResourcesResponse = ns::NodePrepareResourcesResponse;         \
    using NodeUnprepareResourcesRequest = ns::NodeUnprepareResourcesRequest;       \
    using NodeUnprepareResourcesResponse = ns::NodeUnprepareResourcesResponse;     \
  }
using V1 = DRAFORGE_API_TYPES(v1);
using V1beta1 = DRAFORGE_API_TYPES(v1beta1);
#undef DRAFORGE_API_TYPES

// The same test for both versions: the request and response types are the version's.
template <typename Api>
void PrepareAndUnprepareArePerClaim(const std::string& socket, FakePreparer& preparer, PluginStatus& status) {
  auto stub = Api::DRAPlugin::NewStub(grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials()));
  typename Api::NodePrepareResourcesRequest req;
  for (const char* uid : {"uid-ok", "uid-fail"}) {
    auto* c = req.add_claims();
    c->set_namespace_("team-a");
    c->set_name(std::string("claim-") + uid);
    c->set_uid(uid);
  }
  typename Api::NodePrepareResourcesResponse resp;
  {
    grpc::ClientContext ctx;
    const grpc::Status s = stub->NodePrepareResources(&ctx, req, &resp);
    ASSERT_TRUE(s.ok()) << "one claim's error must not fail the RPC: " << s.error_message();
  }
  EXPECT_EQ(preparer.prepared(), (std::vector<std::string>{"team-a/claim-uid-ok/uid-ok", "team-a/claim-uid-fail/uid-fail"}));
  ASSERT_EQ(resp.claims().size(), 2u);
  const auto& ok = resp.claims().at("uid-ok");
  EXPECT_EQ(ok.error(), "");
  ASSERT_EQ(ok.devices_size(), 1);
  EXPECT_EQ(ok.devices(0).pool_name(), "pool-a");
  EXPECT_EQ(ok.devices(0).device_name(), "dev-0");
  ASSERT_EQ(ok.devices(0).request_names_size(), 1);
  EXPECT_EQ(ok.devices(0).request_names(0), "gpu");
  ASSERT_EQ(ok.devices(0).cdi_device_ids_size(), 1);
  EXPECT_EQ(ok.devices(0).cdi_device_ids(0), "k8s.gpu.example.com/draforge=uid-ok-dev-0");
  const auto& failed = resp.claims().at("uid-fail");
  EXPECT_EQ(failed.devices_size(), 0);
  EXPECT_EQ(failed.error(), "ResourceClaim team-a/claim-uid-fail: not allocated on this node");

  typename Api::NodeUnprepareResourcesRequest ureq;
  *ureq.mutable_claims() = req.claims();
  typename Api::NodeUnprepareResourcesResponse uresp;
  {
    grpc::ClientContext ctx;
    const grpc::Status s = stub->NodeUnprepareResources(&ctx, ureq, &uresp);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  EXPECT_EQ(preparer.unprepared().size(), 2u);
  ASSERT_EQ(uresp.claims().size(), 2u);
  EXPECT_EQ(uresp.claims().at("uid-ok").error(), "");
  EXPECT_EQ(uresp.claims().at("uid-fail").error(), "ResourceClaim claim-uid-fail: cannot remove its CDI spec");

  const std::string metrics = status.Metrics();
  EXPECT_EQ(Metric(metrics, "draforge_node_plugin_prepares_total"), "2");
  EXPECT_EQ(Metric(metrics, "draforge_node_plugin_prepare_failures_total"), "1");
  EXPECT_EQ(Metric(metrics, "draforge_node_plugin_unprepares_total"), "2");
  EXPECT_EQ(Metric(metrics, "draforge_node_plugin_unprepare_failures_total"), "1");
}

TEST_F(GrpcFrontTest, V1PrepareAndUnprepareReachThePreparerAndAnswerPerClaim) {
  PrepareAndUnprepareArePerClaim<V1>(Start().sockets().dra, preparer_, status_);
}

TEST_F(GrpcFrontTest, V1beta1PrepareAndUnprepareReachThePreparerAndAnswerPerClaim) {
  PrepareAndUnprepareArePerClaim<V1beta1>(Start().sockets().dra, preparer_, status_);
}

TEST_F(GrpcFrontTest, APreparerThatThrowsGivesEveryClaimAnErrorNotAFailedCall) {
  auto stub = v1::DRAPlugin::NewStub(Dial(Start().sockets().dra));
  v1::NodePrepareResourcesRequest req;
  auto* c = req.add_claims();
  c->set_namespace_("team-a");
  c->set_name("boom");
  c->set_uid("uid-throw");
  v1::NodePrepareResourcesResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub->NodePrepareResources(&ctx, req, &resp).ok());
  ASSERT_EQ(resp.claims().count("uid-throw"), 1u);
  EXPECT_EQ(resp.claims().at("uid-throw").error(),
            "ResourceClaim team-a/boom (uid uid-throw): prepare failed: disk on fire");
  EXPECT_EQ(Metric(status_.Metrics(), "draforge_node_plugin_prepare_failures_total"), "1");
}

TEST_F(GrpcFrontTest, ReadyzIs503WithTheReasonUntilKubeletRegistersThePlugin) {
  const std::string reg = Start().sockets().registration;
  EXPECT_EQ(Get(status_, "/healthz").status, 200);
  auto r = Get(status_, "/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "registration: waiting for kubelet to register the plugin\n");

  Notify(reg, false, "driver name conflicts with another plugin");
  r = Get(status_, "/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "registration: kubelet refused the plugin: driver name conflicts with another plugin\n");

  Notify(reg, true, "");
  r = Get(status_, "/readyz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");
  // Another writer's condition (the preparer's "cdi") turns it 503 again, with its own reason.
  status_.SetCondition("cdi", false, "cannot write /var/run/cdi/x.json: read-only file system");
  r = Get(status_, "/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "cdi: cannot write /var/run/cdi/x.json: read-only file system\n");
  EXPECT_EQ(Get(status_, "/healthz").status, 200);
  EXPECT_EQ(Get(status_, "/nope").status, 404);
}

TEST_F(GrpcFrontTest, MetricsCountWritesInAHistogram) {
  status_.ObserveWrite(0.002, true);
  status_.ObserveWrite(3, false);
  const auto r = Get(status_, "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(Metric(r.body, "draforge_node_plugin_cdi_write_seconds_bucket{le=\"0.001\"}"), "0");
  EXPECT_EQ(Metric(r.body, "draforge_node_plugin_cdi_write_seconds_bucket{le=\"0.0025\"}"), "1");
  EXPECT_EQ(Metric(r.body, "draforge_node_plugin_cdi_write_seconds_bucket{le=\"1\"}"), "1");
  EXPECT_EQ(Metric(r.body, "draforge_node_plugin_cdi_write_seconds_bucket{le=\"10\"}"), "2");
  EXPECT_EQ(Metric(r.body, "draforge_node_plugin_cdi_write_seconds_bucket{le=\"+Inf\"}"), "2");
  EXPECT_EQ(Metric(r.body, "draforge_node_plugin_cdi_write_seconds_count"), "2");
  EXPECT_EQ(Metric(r.body, "draforge_node_plugin_cdi_write_seconds_sum"), "3.002");
  EXPECT_EQ(Metric(r.body, "draforge_node_plugin_cdi_write_failures_total"), "1");
}

TEST_F(GrpcFrontTest, AStaleFileAtASocketPathIsReplaced) {
  const fs::path reg = dir_ / "registry" / "gpu.example.com-uid-1-reg.sock";
  const fs::path dra = dir_ / "plugins" / "gpu.example.com" / "dra-uid-1.sock";
  fs::create_directories(reg.parent_path());
  fs::create_directories(dra.parent_path());
  std::ofstream(reg) << "left by a crashed instance";
  std::ofstream(dra) << "left by a crashed instance";
  Start("uid-1");
  EXPECT_TRUE(fs::is_socket(reg));
  EXPECT_TRUE(fs::is_socket(dra));
  EXPECT_EQ(GetInfo(reg.string()).name(), "gpu.example.com");
}

TEST_F(GrpcFrontTest, StopRemovesBothSocketsAndANewInstanceServesBesideTheOld) {
  PluginServer& old_instance = Start("old");
  PluginServer& new_instance = Start("new");
  EXPECT_EQ(GetInfo(new_instance.sockets().registration).endpoint(), new_instance.sockets().dra);
  const PluginSockets old_sockets = old_instance.sockets();
  old_instance.Stop();
  EXPECT_FALSE(fs::exists(old_sockets.registration));
  EXPECT_FALSE(fs::exists(old_sockets.dra));
  EXPECT_TRUE(fs::is_socket(new_instance.sockets().registration));
  EXPECT_EQ(GetInfo(new_instance.sockets().registration).name(), "gpu.example.com");
  old_instance.Stop();  // idempotent
}

TEST_F(GrpcFrontTest, ASocketPathTooLongIsAnErrorNamingIt) {
  PluginServerOptions o = Options("uid-1");
  o.plugin_dir = (dir_ / std::string(120, 'p')).string();
  auto started = PluginServer::Start(o);
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error().code, DRAFORGE_EINVALID);
  EXPECT_NE(started.error().message.find(o.plugin_dir + "/dra-uid-1.sock is "), std::string::npos)
      << started.error().message;
}

// --- the command line ---

std::string Parse(std::vector<const char*> args, Flags& f) {
  args.insert(args.begin(), "draforge-node-plugin");
  return ParseFlags(static_cast<int>(args.size()), args.data(), f);
}

TEST(NodePluginFlagsTest, DemoModeDefaultsEverythingUnderTheRoot) {
  Flags f;
  ASSERT_EQ(Parse({"--driver", "gpu.example.com"}, f), "");
  ApplyDefaults(f, "/scratch");
  EXPECT_FALSE(f.node_mode);
  EXPECT_EQ(f.node, "node-1");
  EXPECT_EQ(f.root, "/scratch/draforge-node-plugin");
  EXPECT_EQ(f.cdi_dir, "/scratch/draforge-node-plugin/cdi");
  EXPECT_EQ(f.registration_dir, "/scratch/draforge-node-plugin/plugins_registry");
  EXPECT_EQ(f.plugin_dir, "/scratch/draforge-node-plugin/plugins/gpu.example.com");
  EXPECT_EQ(f.state_dir, f.plugin_dir);
  EXPECT_EQ(f.listen_host, "127.0.0.1");
  EXPECT_EQ(f.listen_port, 9092);
  Flags g;
  ASSERT_EQ(Parse({"--driver=gpu.example.com"}, g), "");
  ApplyDefaults(g, "");
  EXPECT_EQ(g.root, "/tmp/draforge-node-plugin");
}

TEST(NodePluginFlagsTest, NodeModeUsesKubeletsDirectories) {
  Flags f;
  ASSERT_EQ(Parse({"--driver", "gpu.example.com", "--mode=node", "--node", "worker-3", "--state-dir", "/var/lib/x",
                   "--listen", "[::1]:0", "--resync", "1m30s", "--instance-uid", "pod-uid-1"},
                  f),
            "");
  ApplyDefaults(f, "/scratch");
  EXPECT_TRUE(f.node_mode);
  EXPECT_EQ(f.node, "worker-3");
  EXPECT_EQ(f.cdi_dir, "/var/run/cdi");
  EXPECT_EQ(f.registration_dir, "/var/lib/kubelet/plugins_registry");
  EXPECT_EQ(f.plugin_dir, "/var/lib/kubelet/plugins/gpu.example.com");
  EXPECT_EQ(f.state_dir, "/var/lib/x");
  EXPECT_EQ(f.listen_host, "::1");
  EXPECT_EQ(f.listen_port, 0);
  EXPECT_EQ(f.resync.count(), 90);
  EXPECT_EQ(f.instance_uid, "pod-uid-1");
}

TEST(NodePluginFlagsTest, ErrorsNameTheFlag) {
  const std::vector<std::pair<std::vector<const char*>, std::string>> cases = {
      {{}, "flag --driver is required (the DRA driver name, e.g. gpu.example.com)"},
      {{"--driver", "GPU/x"}, "flag --driver: \"GPU/x\" is not a DNS subdomain (lowercase letters, digits, '-' and '.')"},
      {{"--driver", "d.io", "--mode", "cluster"}, "flag --mode: \"cluster\" is neither demo nor node"},
      {{"--driver", "d.io", "--mode", "node"}, "flag --node is required in node mode"},
      {{"--driver", "d.io", "--mode", "node", "--node", "n", "--scenario", "s.yaml"},
       "flag --scenario is for demo mode only; node mode reads the API server"},
      {{"--driver", "d.io", "--scenario", "s.yaml", "--kubeconfig", "kc"},
       "flags --scenario and --kubeconfig exclude each other: claims come from a file or from an API server"},
      {{"--driver", "d.io", "--listen", "localhost"},
       "flag --listen: \"localhost\" is not HOST:PORT (an IP address, [v6] in brackets, port 0-65535)"},
      {{"--driver", "d.io", "--listen", "127.0.0.1:70000"},
       "flag --listen: \"127.0.0.1:70000\" is not HOST:PORT (an IP address, [v6] in brackets, port 0-65535)"},
      {{"--driver", "d.io", "--resync", "0s"}, "flag --resync: \"0s\" is not a positive duration (e.g. 30s, 2m, 1h)"},
      {{"--driver", "d.io", "--resync", "5d"}, "flag --resync: \"5d\" is not a positive duration (e.g. 30s, 2m, 1h)"},
      {{"--driver", "d.io", "--instance-uid", "../x"},
       "flag --instance-uid: \"../x\" must be 1-64 letters, digits, '-', '_' or '.' (it names sockets)"},
      {{"--driver", "d.io", "--cdi-dir"}, "flag --cdi-dir needs a value"},
      {{"--driver", "d.io", "--cdi-dir="}, "flag --cdi-dir needs a directory, not \"\""},
      {{"--driver", "d.io", "--help=yes"}, "flag --help takes no value"},
      {{"--driver", "d.io", "--port", "1"}, "unknown flag \"--port\""},
  };
  for (const auto& [args, want] : cases) {
    Flags f;
    EXPECT_EQ(Parse(args, f), want);
  }
}

TEST(NodePluginFlagsTest, HelpNeedsNothingElse) {
  Flags f;
  EXPECT_EQ(Parse({"--help"}, f), "");
  EXPECT_TRUE(f.help);
  EXPECT_NE(std::string(kUsage).find("--registration-dir DIR"), std::string::npos);
}

TEST(NodePluginFlagsTest, VersionNeedsNothingElseAndTakesNoValue) {
  Flags f;
  EXPECT_EQ(Parse({"--version"}, f), "");
  EXPECT_TRUE(f.version);
  EXPECT_FALSE(f.help);
  Flags g;
  EXPECT_EQ(Parse({"--version=1"}, g), "flag --version takes no value");
}

}  // namespace
}  // namespace draforge::node_plugin
