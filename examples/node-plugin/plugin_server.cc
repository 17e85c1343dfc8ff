#include "plugin_server.h"

#include <grpcpp/grpcpp.h>
#include <sys/un.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <utility>
#include <vector>

#include "daemon_log.h"
#include "grpc_dra_service.h"
#include "registration_service.h"

namespace draforge::node_plugin {

struct PluginServer::Impl {
  PluginSockets sockets;
  std::vector<std::unique_ptr<grpc::Service>> services;  // outlive the servers that call them
  std::unique_ptr<grpc::Server> dra, registration;
  std::mutex mu;
  bool stopped = false;
};

namespace {

Error Fail(int code, std::string message) {
  Error e;
  e.code = code;
  e.message = std::move(message);
  return e;
}

// A socket path must fit sockaddr_un.sun_path with its terminating NUL.
constexpr size_t kMaxSocketPath = sizeof(sockaddr_un{}.sun_path) - 1;

// Makes `path` free for a new socket. Whatever is there is a leftover: the name carries this
// instance's UID, so no other live instance listens on it.
std::string ReplaceStale(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(path, ec);
  if (ec || !std::filesystem::exists(st)) return "";
  if (std::filesystem::is_directory(st)) return path + " is a directory, not a socket";
  if (!std::filesystem::remove(path, ec) || ec) {
    return "cannot remove the stale file " + path + ": " + (ec ? ec.message() : "not removed");
  }
  daemon::Log("replaced a stale socket file " + path);
  return "";
}

std::string Absolute(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

// One gRPC server on the unix socket `path` serving `services`.
Result<std::unique_ptr<grpc::Server>> Serve(const std::string& path, const std::vector<grpc::Service*>& services) {
  if (auto e = ReplaceStale(path); !e.empty()) return Fail(DRAFORGE_EIO, e);
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort("unix:" + path, grpc::InsecureServerCredentials(), &bound);
  for (grpc::Service* s : services) builder.RegisterService(s);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || bound == 0) {
    return Fail(DRAFORGE_EIO, "cannot serve gRPC on the unix socket " + path +
                                  " (is the directory writable? gRPC's log above says why)");
  }
  return server;
}

}  // namespace

PluginSockets SocketPaths(const std::string& registration_dir, const std::string& plugin_dir,
                          const std::string& driver, const std::string& instance_uid) {
  return PluginSockets{Absolute(registration_dir + "/" + driver + "-" + instance_uid + "-reg.sock"),
                       Absolute(plugin_dir + "/dra-" + instance_uid + ".sock")};
}

Result<std::unique_ptr<PluginServer>> PluginServer::Start(const PluginServerOptions& o) {
  auto impl = std::make_unique<Impl>();
  impl->sockets = SocketPaths(o.registration_dir, o.plugin_dir, o.driver, o.instance_uid);
  for (const std::string* path : {&impl->sockets.dra, &impl->sockets.registration}) {
    if (path->size() > kMaxSocketPath) {
      return Fail(DRAFORGE_EINVALID, "socket path " + *path + " is " + std::to_string(path->size()) +
                                         " bytes; a unix socket path has at most " +
                                         std::to_string(kMaxSocketPath));
    }
    const auto dir = std::filesystem::path(*path).parent_path();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Fail(DRAFORGE_EIO, "cannot create the directory " + dir.string() + ": " + ec.message());
  }

  impl->services.push_back(NewDraPluginServiceV1(*o.preparer, *o.status));
  impl->services.push_back(NewDraPluginServiceV1beta1(*o.preparer, *o.status));
  auto dra = Serve(impl->sockets.dra, {impl->services[0].get(), impl->services[1].get()});
  if (!dra.ok()) return dra.error();
  impl->dra = *std::move(dra);

  RegistrationInfo info{o.driver, impl->sockets.dra, {kDraPluginServiceV1, kDraPluginServiceV1beta1}};
  impl->services.push_back(NewRegistrationService(std::move(info), *o.status));
  auto registration = Serve(impl->sockets.registration, {impl->services[2].get()});
  if (!registration.ok()) {
    impl->dra->Shutdown();
    std::filesystem::remove(impl->sockets.dra);
    return registration.error();
  }
  impl->registration = *std::move(registration);
  daemon::Log("serving DRAPlugin v1, v1beta1 on " + impl->sockets.dra + "; registration on " +
              impl->sockets.registration);
  return std::unique_ptr<PluginServer>(new PluginServer(std::move(impl)));
}

PluginServer::PluginServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PluginServer::~PluginServer() { Stop(); }

const PluginSockets& PluginServer::sockets() const { return impl_->sockets; }

void PluginServer::Stop() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->stopped) return;
  impl_->stopped = true;
  std::error_code ec;
  // The registration socket goes first: kubelet's watcher sees it vanish and deregisters the
  // driver, so no new call is started against a plugin that is leaving.
  std::filesystem::remove(impl_->sockets.registration, ec);
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(5);
  impl_->registration->Shutdown(deadline);
  impl_->dra->Shutdown(deadline);
  std::filesystem::remove(impl_->sockets.dra, ec);
  daemon::Log("removed " + impl_->sockets.registration + " and " + impl_->sockets.dra);
}

}  // namespace draforge::node_plugin
