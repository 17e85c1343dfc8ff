// draforge-node-plugin as a process ($DRAFORGE_NODE_PLUGIN), in demo mode on the demo scenario,
// driven over its real unix sockets with a gRPC client built from our .proto files and over its
// real HTTP port: the flags' errors, the stale socket it replaces, GetInfo, registration and
// /readyz, a prepare and unprepare of a claim of the scenario, /metrics, and the sockets removed at
// SIGTERM. kubelet's own client against it is tests/node-plugin/kubelet (the acceptance test).
#include <arpa/inet.h>
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dra_v1.grpc.pb.h"
#include "draforge/version.h"
#include "dra_v1beta1.grpc.pb.h"
#include "node_plugin_test_util.h"
#include "pluginregistration_v1.grpc.pb.h"
#include "test_util.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
namespace v1 = k8s::io::kubelet::pkg::apis::dra::v1;
namespace v1beta1 = k8s::io::kubelet::pkg::apis::dra::v1beta1;
using draforge::node_plugin::testing::Metric;

constexpr char kDriver[] = "gpu.example.com";
constexpr char kTrainUid[] = "7d3c1f1e-0000-4000-8000-000000000001";  // team-a/train-0, on node-1

std::string Binary() {
  const char* path = std::getenv("DRAFORGE_NODE_PLUGIN");
  if (path == nullptr) throw std::runtime_error("DRAFORGE_NODE_PLUGIN is not set (meson test sets it)");
  return path;
}

// Waits for `done` (checking every 20 ms) for at most a minute: a bound on a hung daemon, not a
// measurement.
bool Eventually(const std::function<bool()>& done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// One run of the daemon with stderr in a file; killed (SIGKILL) if the test did not stop it.
class Daemon {
 public:
  Daemon(const std::vector<std::string>& args, const fs::path& log) : log_(log) {
    std::vector<std::string> argv = {Binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    // No cluster: no kubeconfig anywhere, so the demo reads its scenario.
    std::vector<std::string> env = {"HOME=" + log.parent_path().string(), "PATH=/usr/bin:/bin"};
    std::vector<char*> e;
    for (auto& v : env) e.push_back(v.data());
    e.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_APPEND, 0644);
    if (posix_spawn(&pid_, c[0], &actions, nullptr, c.data(), e.data()) != 0) {
      throw std::runtime_error("cannot start " + argv[0]);
    }
    posix_spawn_file_actions_destroy(&actions);
  }
  ~Daemon() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  std::string Log() const { return draforge::testing::ReadFile(log_); }
  // The exit status after `signal` (0: none, just wait).
  int Stop(int signal) {
    if (signal != 0) kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  // The HTTP port it printed ("listening on http://127.0.0.1:PORT"), or 0 once it exited.
  int Port() const {
    int port = 0;
    Eventually([&] {
      const std::string log = Log();
      const size_t at = log.find("listening on http://127.0.0.1:");
      if (at != std::string::npos) port = std::atoi(log.c_str() + at + 30);
      return port != 0 || waitpid(pid_, nullptr, WNOHANG) != 0;
    });
    return port;
  }

 private:
  fs::path log_;
  pid_t pid_ = -1;
};

struct HttpAnswer {
  int status = 0;
  std::string body;
};

HttpAnswer HttpGet(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  HttpAnswer out;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    const std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      std::string all;
      char buf[4096];
      for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) all.append(buf, static_cast<size_t>(n));
      if (all.rfind("HTTP/1.1 ", 0) == 0) out.status = std::atoi(all.c_str() + 9);
      if (size_t body = all.find("\r\n\r\n"); body != std::string::npos) out.body = all.substr(body + 4);
    }
  }
  close(fd);
  return out;
}

std::shared_ptr<grpc::Channel> Dial(const fs::path& socket) {
  return grpc::CreateChannel("unix:" + socket.string(), grpc::InsecureChannelCredentials());
}

class NodePluginDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = draforge::node_plugin::testing::TempDir();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::vector<std::string> DemoArgs() const {
    return {"--driver", kDriver, "--root", (dir_ / "root").string(), "--instance-uid", "uid-1",
            "--listen", "127.0.0.1:0",
            "--scenario", (draforge::testing::SourceRoot() / "examples" / "scenarios" / "demo.yaml").string()};
  }
  // How many files in <root>/cdi mention `text`.
  int SpecsNaming(const std::string& text) const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_ / "root" / "cdi")) {
      if (draforge::testing::ReadFile(e.path()).find(text) != std::string::npos) ++n;
    }
    return n;
  }
  fs::path RegSocket() const { return dir_ / "root" / "plugins_registry" / "gpu.example.com-uid-1-reg.sock"; }
  fs::path DraSocket() const { return dir_ / "root" / "plugins" / "gpu.example.com" / "dra-uid-1.sock"; }

  fs::path dir_;
};

TEST_F(NodePluginDaemonTest, BadFlagsExit2NamingTheFlag) {
  Daemon d({"--driver", kDriver, "--mode", "cluster"}, dir_ / "log");
  EXPECT_EQ(d.Stop(0), 2);
  EXPECT_NE(d.Log().find("error: flag --mode: \"cluster\" is neither demo nor node"), std::string::npos) << d.Log();
  Daemon help({"--help"}, dir_ / "help");
  EXPECT_EQ(help.Stop(0), 0);
  EXPECT_NE(help.Log().find("--instance-uid UID"), std::string::npos);
  // What an image test and an operator run first: no --driver needed, the library's version.
  Daemon version({"--version"}, dir_ / "version");
  EXPECT_EQ(version.Stop(0), 0);
  EXPECT_EQ(version.Log(), std::string("draforge-node-plugin ") + DRAFORGE_VERSION_STRING + "\n");
}

TEST_F(NodePluginDaemonTest, ServesKubeletOverItsSocketsAndRemovesThemAtSigterm) {
  // A crashed instance with the same UID left files where the sockets go.
  fs::create_directories(RegSocket().parent_path());
  fs::create_directories(DraSocket().parent_path());
  std::ofstream(RegSocket()) << "stale";
  std::ofstream(DraSocket()) << "stale";

  Daemon d(DemoArgs(), dir_ / "log");
  const int port = d.Port();
  ASSERT_NE(port, 0) << d.Log();
  ASSERT_TRUE(Eventually([&] { return fs::is_socket(RegSocket()) && fs::is_socket(DraSocket()); })) << d.Log();
  EXPECT_EQ(HttpGet(port, "/healthz").status, 200);
  HttpAnswer ready = HttpGet(port, "/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_NE(ready.body.find("registration: waiting for kubelet to register the plugin"), std::string::npos)
      << ready.body;

  // The clients live in this block: a C++ channel that nobody polls does not see the server's
  // GOAWAY, and would hold the daemon's graceful stop until its deadline.
  {
    // What kubelet's plugin watcher does: GetInfo, then NotifyRegistrationStatus.
    auto reg = pluginregistration::Registration::NewStub(Dial(RegSocket()));
    {
      grpc::ClientContext ctx;
      pluginregistration::PluginInfo info;
      ASSERT_TRUE(reg->GetInfo(&ctx, pluginregistration::InfoRequest(), &info).ok());
      EXPECT_EQ(info.type(), "DRAPlugin");
      EXPECT_EQ(info.name(), kDriver);
      EXPECT_EQ(info.endpoint(), DraSocket().string());
      ASSERT_EQ(info.supported_versions_size(), 2);
      EXPECT_EQ(info.supported_versions(0), "v1.DRAPlugin");
      EXPECT_EQ(info.supported_versions(1), "v1beta1.DRAPlugin");
    }
    {
      grpc::ClientContext ctx;
      pluginregistration::RegistrationStatus registered;
      registered.set_plugin_registered(true);
      pluginregistration::RegistrationStatusResponse resp;
      ASSERT_TRUE(reg->NotifyRegistrationStatus(&ctx, registered, &resp).ok());
    }
    ready = HttpGet(port, "/readyz");
    EXPECT_EQ(ready.status, 200) << ready.body;

    // A claim of the scenario allocated on node-1, and one that does not exist, in one v1 call.
    auto dra = v1::DRAPlugin::NewStub(Dial(DraSocket()));
    v1::NodePrepareResourcesRequest req;
    auto* train = req.add_claims();
    train->set_namespace_("team-a");
    train->set_name("train-0");
    train->set_uid(kTrainUid);
    auto* ghost = req.add_claims();
    ghost->set_namespace_("team-a");
    ghost->set_name("ghost");
    ghost->set_uid("00000000-0000-4000-8000-00000000dead");
    v1::NodePrepareResourcesResponse resp;
    {
      grpc::ClientContext ctx;
      const grpc::Status s = dra->NodePrepareResources(&ctx, req, &resp);
      ASSERT_TRUE(s.ok()) << s.error_message();
    }
    ASSERT_EQ(resp.claims().count(kTrainUid), 1u);
    const auto& prepared = resp.claims().at(kTrainUid);
    EXPECT_EQ(prepared.error(), "");
    ASSERT_EQ(prepared.devices_size(), 2);
    for (const auto& device : prepared.devices()) {
      EXPECT_EQ(device.pool_name(), "node-1");
      ASSERT_EQ(device.request_names_size(), 1);
      EXPECT_EQ(device.request_names(0), "gpus");
      ASSERT_EQ(device.cdi_device_ids_size(), 1);
      EXPECT_EQ(device.cdi_device_ids(0).rfind("k8s.gpu.example.com/draforge=", 0), 0u) << device.cdi_device_ids(0);
    }
    EXPECT_EQ(SpecsNaming(kTrainUid), 1) << "the claim's CDI spec is in <root>/cdi";
    ASSERT_EQ(resp.claims().count("00000000-0000-4000-8000-00000000dead"), 1u);
    EXPECT_NE(resp.claims().at("00000000-0000-4000-8000-00000000dead").error().find("ghost"), std::string::npos);

    // The same claim through v1beta1: the same IDs (prepare is idempotent across versions).
    auto dra_beta = v1beta1::DRAPlugin::NewStub(Dial(DraSocket()));
    v1beta1::NodePrepareResourcesRequest beta_req;
    *beta_req.add_claims() = v1beta1::Claim();
    beta_req.mutable_claims(0)->set_namespace_("team-a");
    beta_req.mutable_claims(0)->set_name("train-0");
    beta_req.mutable_claims(0)->set_uid(kTrainUid);
    v1beta1::NodePrepareResourcesResponse beta_resp;
    {
      grpc::ClientContext ctx;
      ASSERT_TRUE(dra_beta->NodePrepareResources(&ctx, beta_req, &beta_resp).ok());
    }
    ASSERT_EQ(beta_resp.claims().count(kTrainUid), 1u);
    ASSERT_EQ(beta_resp.claims().at(kTrainUid).devices_size(), 2);
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(beta_resp.claims().at(kTrainUid).devices(i).cdi_device_ids(0), prepared.devices(i).cdi_device_ids(0));
    }

    v1::NodeUnprepareResourcesRequest unreq;
    *unreq.add_claims() = *train;
    v1::NodeUnprepareResourcesResponse unresp;
    {
      grpc::ClientContext ctx;
      ASSERT_TRUE(dra->NodeUnprepareResources(&ctx, unreq, &unresp).ok());
    }
    ASSERT_EQ(unresp.claims().count(kTrainUid), 1u);
    EXPECT_EQ(unresp.claims().at(kTrainUid).error(), "");
    EXPECT_EQ(SpecsNaming(kTrainUid), 0) << "unprepare removed the claim's CDI spec";
  }

  const HttpAnswer metrics = HttpGet(port, "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(Metric(metrics.body, "draforge_node_plugin_prepares_total"), "3");
  EXPECT_EQ(Metric(metrics.body, "draforge_node_plugin_prepare_failures_total"), "1");
  EXPECT_EQ(Metric(metrics.body, "draforge_node_plugin_unprepares_total"), "1");
  EXPECT_EQ(Metric(metrics.body, "draforge_node_plugin_unprepare_failures_total"), "0");

  EXPECT_EQ(d.Stop(SIGTERM), 0) << d.Log();
  EXPECT_FALSE(fs::exists(RegSocket()));
  EXPECT_FALSE(fs::exists(DraSocket()));
  EXPECT_NE(d.Log().find("replaced a stale socket file " + DraSocket().string()), std::string::npos) << d.Log();
}

TEST_F(NodePluginDaemonTest, SigintRemovesTheSocketsToo) {
  Daemon d(DemoArgs(), dir_ / "log");
  ASSERT_TRUE(Eventually([&] { return fs::is_socket(RegSocket()) && fs::is_socket(DraSocket()); })) << d.Log();
  EXPECT_EQ(d.Stop(SIGINT), 0) << d.Log();
  EXPECT_FALSE(fs::exists(RegSocket()));
  EXPECT_FALSE(fs::exists(DraSocket()));
}

}  // namespace
