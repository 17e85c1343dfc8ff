#include "node_sync.h"

#include <utility>

#include "rapidjson/document.h"

namespace draforge::node_plugin {

NodeSync::NodeSync(NodeSyncOptions options, Cluster cluster)
    : options_(std::move(options)), cluster_(std::move(cluster)) {}

NodeSync::~NodeSync() { Stop(); }

Result<std::unique_ptr<NodeSync>> NodeSync::Start(NodeSyncOptions options) {
  if (options.client == nullptr || options.dir_mutex == nullptr) {
    return Error{DRAFORGE_EINVALID, "node sync: a client and the directory's mutex are needed"};
  }
  auto cluster = Cluster::Create();
  if (!cluster.ok()) return cluster.error();
  std::unique_ptr<NodeSync> s(new NodeSync(std::move(options), std::move(*cluster)));
  KubeSourceOptions so;
  // The claims, and the pods that make a claim without a node selector belong to this node.
  so.kinds = "ResourceClaim,Pod";
  NodeSync* self = s.get();
  so.on_change = [self](std::string_view) {
    std::lock_guard<std::mutex> lock(self->mu_);
    self->changed_ = true;
    self->wake_.notify_one();
  };
  auto source = KubeSource::Start(*s->options_.client, s->cluster_, std::move(so));
  if (!source.ok()) {
    Error e = source.error();
    e.message = "node sync: watching ResourceClaims: " + e.message;
    return e;
  }
  s->source_ = std::move(*source);
  s->thread_ = std::thread([self] { self->Run(); });
  return s;
}

void NodeSync::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (source_) source_->Stop();
}

void NodeSync::Run() {
  auto next_resync = std::chrono::steady_clock::now() + options_.resync;
  auto next_probe = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_probe) {
      lock.unlock();
      Probe();
      lock.lock();
      next_probe = std::chrono::steady_clock::now() + options_.probe;
      continue;
    }
    const bool synced = source_->synced();
    if (synced && (changed_ || now >= next_resync)) {
      changed_ = false;
      next_resync = now + options_.resync;
      lock.unlock();
      SyncOnce();
      lock.lock();
      continue;
    }
    // Before the first complete list there is nothing to sync: look again at the probe's tick.
    wake_.wait_until(lock, synced ? std::min(next_probe, next_resync) : next_probe,
                     [&] { return stop_ || (synced && changed_); });
  }
}

void NodeSync::Probe() {
  // Bounded by the probe's period, whatever the client's timeout: a silent API server counts as away.
  auto version = options_.client->ServerVersionJson(KubeNow() + std::chrono::nanoseconds(options_.probe).count());
  if (!version.ok()) {
    SetCondition("api", false, "API server " + std::string(options_.client->server()) + ": " + version.error().message);
    return;
  }
  if (!source_->synced()) {
    SetCondition("api", false, "ResourceClaims and Pods not listed yet");
    return;
  }
  // The server answers, but the watch may still be waiting out its backoff from the outage: the
  // node's claims are not followed until it is open again.
  auto watching = source_->LastError();
  if (!watching.ok()) {
    SetCondition("api", false, "watching ResourceClaims and Pods: " + watching.error().message);
    return;
  }
  SetCondition("api", true);
}

void NodeSync::SyncOnce() {
  auto snapshot = cluster_.snapshot();
  if (!snapshot.ok()) return;
  CdiOptions o;
  o.drivers = options_.driver;
  auto specs = CdiSpecs::Generate(*snapshot, options_.node, o);
  if (!specs.ok()) {
    SetCondition("cdi", false, "CDI specs of node " + options_.node + ": " + specs.error().message);
    return;
  }
  std::lock_guard<std::mutex> lock(*options_.dir_mutex);
  const auto start = std::chrono::steady_clock::now();
  auto report = specs->Sync(options_.cdi_dir);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!report.ok()) {
    if (options_.status != nullptr) options_.status->ObserveWrite(seconds, false);
    SetCondition("cdi", false, "syncing " + options_.cdi_dir + ": " + report.error().message);
    return;
  }
  rapidjson::Document d;
  d.Parse(report->c_str(), report->size());
  std::string failures;
  bool changed = false;
  if (d.IsObject()) {
    for (const char* key : {"written", "removed"}) {
      auto it = d.FindMember(key);
      changed = changed || (it != d.MemberEnd() && it->value.IsArray() && !it->value.Empty());
    }
    auto failed = d.FindMember("failed");
    if (failed != d.MemberEnd() && failed->value.IsArray()) {
      for (const rapidjson::Value& f : failed->value.GetArray()) {
        if (!failures.empty()) failures += "; ";
        failures += std::string(f["fileName"].GetString()) + ": " + f["message"].GetString();
      }
    }
  }
  // One observation per sync that touched the directory (the sync writes files in one pass).
  if ((changed || !failures.empty()) && options_.status != nullptr) {
    options_.status->ObserveWrite(seconds, failures.empty());
  }
  SetCondition("cdi", failures.empty(), failures.empty() ? "" : "syncing " + options_.cdi_dir + ": " + failures);
}

void NodeSync::SetCondition(const char* name, bool ok, const std::string& reason) {
  if (options_.status != nullptr) options_.status->SetCondition(name, ok, reason);
}

}  // namespace draforge::node_plugin
