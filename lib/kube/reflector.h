// kube::Reflector: keeps a store::Cluster equal to the API server's objects of the DRA kinds by
// list+watch, as client-go's reflector does for an informer.
//
// One thread per kind (owned by the Reflector, joined by Stop() and by the destructor): list (paged),
// Replace the kind in the store, then watch from the list's resourceVersion with bookmarks; when a
// watch ends it resumes from the last resourceVersion seen; when the server says that version is
// gone (410 Expired/Gone, e.g. after an etcd compaction or an API server restart) it relists. Failures,
// relists after 410 and watches that end within a second without an event wait first, with
// client-go's jittered exponential backoff (0.8 s doubling to 30 s, plus up to 100% jitter), and
// never stop the reflector. Objects that cannot be
// decoded are skipped, logged and counted (stats().decode_errors): the store never holds half an
// object.
//
// Typical use (a server):
//   ASSIGN_OR_RETURN(auto client, kube::Client::Create(config));
//   store::Cluster cluster;
//   kube::Reflector reflector(*client, cluster, {});
//   RETURN_IF_ERROR(reflector.Start());
//   ... /readyz: reflector.HasSynced(); requests: cluster.snapshot() ...
#ifndef DRAFORGE_KUBE_REFLECTOR_H_
#define DRAFORGE_KUBE_REFLECTOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "api/object.h"
#include "kube/client.h"
#include "kube/log.h"
#include "store/cluster.h"

namespace draforge::kube {

// Every kind a Reflector watches by default: DeviceClasses, ResourceSlices, ResourceClaims,
// ResourceClaimTemplates, DeviceTaintRules, Pods, Nodes.
std::vector<api::Kind> DefaultReflectorKinds();

struct ReflectorOptions {
  std::vector<api::Kind> kinds = DefaultReflectorKinds();
  // Only this namespace's objects of namespaced kinds; empty: all namespaces.
  std::string namespace_;
  // resource.k8s.io version to list and watch; empty: discover (v1, else v1beta2, else v1beta1).
  std::string resource_version_override;
  int64_t page_size = 500;
  // Each watch asks the server to end it after a random time in [watch_timeout, 2*watch_timeout],
  // as client-go does, so connections are renewed and load is spread.
  absl::Duration watch_timeout = absl::Minutes(5);
  // The wait before a list or watch is tried again after a failure, before the relist that a 410
  // Gone asks for, and before a watch that ended too soon is reopened: client-go's reflector
  // backoff. It starts at initial_backoff and doubles up to max_backoff; each wait adds a random
  // part of up to backoff_jitter times itself; after backoff_reset without a backoff it starts
  // over. Without it a server that ends every watch at once, or a compaction that expires every
  // version, would get a request loop from every client at once.
  absl::Duration initial_backoff = absl::Milliseconds(800);
  absl::Duration max_backoff = absl::Seconds(30);
  double backoff_jitter = 1.0;
  absl::Duration backoff_reset = absl::Minutes(2);
  // A watch that ends sooner than this without a single event is suspicious (a proxy that cuts
  // connections, a server that closes them at once); client-go calls it a "very short watch".
  // It is reopened after a backoff, not at once.
  absl::Duration min_watch_duration = absl::Seconds(1);
  // Custom resources (a CRD's group, version and plural; kind may be empty) also listed and watched,
  // stored as opaque objects (api::Kind::kOther), each relist replacing only that resource's objects.
  std::vector<Resource> custom_resources;
  LogFunction log;
  // Called after every change the reflector applied to the store (from a reflector thread; keep it
  // short and thread-safe), e.g. to wake Server-Sent Events writers. May be empty.
  std::function<void(api::Kind kind)> on_change;
  // Like on_change, with the resource that changed (custom resources come as kOther to on_change;
  // here with their kind, learned from the server's answers). May be empty.
  std::function<void(const Resource& resource)> on_resource_change;
  // The clock (watch durations, backoff reset) and the wait between attempts; empty: absl::Now and
  // a wait that Stop() cuts short. Tests inject both to record the waits instead of timing them;
  // an injected sleep is called from the reflector's threads and should return promptly (Stop()
  // takes effect when it returns).
  std::function<absl::Time()> now;
  std::function<void(absl::Duration)> sleep;
};

struct ReflectorStats {
  uint64_t lists = 0;          // completed lists, all kinds (the initial ones included)
  uint64_t relists_gone = 0;   // relists caused by 410
  uint64_t watches = 0;        // watch requests started
  uint64_t short_watches = 0;  // watches that ended before min_watch_duration without an event
  uint64_t events = 0;         // watch events applied (bookmarks included)
  uint64_t decode_errors = 0;  // objects skipped because they did not decode
  uint64_t errors = 0;         // failed list/watch requests
};

class Reflector {
 public:
  // `client` and `cluster` are borrowed and must outlive the Reflector.
  Reflector(Client& client, store::Cluster& cluster, ReflectorOptions options = {});
  // Stops and joins the threads.
  ~Reflector();
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  // Starts the threads (discovering the resource.k8s.io version first). Errors: FailedPrecondition
  // when already started; InvalidArgument for kOther or kResourcePoolStatusRequest in kinds; the
  // discovery error when the server cannot be reached or serves no supported resource.k8s.io version.
  absl::Status Start();
  // Stops the watches and joins the threads. Idempotent; the store keeps what it holds.
  void Stop();

  // Every kind has been listed into the store at least once (informer HasSynced).
  bool HasSynced() const;
  // Waits until HasSynced() or `timeout`; returns HasSynced().
  bool WaitForSync(absl::Duration timeout) const;
  // The last list/watch failure of any kind (OK when the latest attempt of every kind succeeded).
  absl::Status LastError() const;
  ReflectorStats stats() const;
  // The resource.k8s.io version in use ("" before Start).
  std::string resource_version_in_use() const;

 private:
  struct KindState;
  void Run(KindState* state);
  absl::Status ListOnce(KindState* state);
  // `events` counts the events the watch delivered (bookmarks included).
  absl::Status WatchOnce(KindState* state, uint64_t* events);
  void Log(LogLevel level, const std::string& message) const;
  // Calls the change callbacks for `state`'s resource.
  void Changed(const KindState* state) const;
  void Count(uint64_t ReflectorStats::*field, uint64_t n = 1);

  Client& client_;
  store::Cluster& cluster_;
  const ReflectorOptions options_;
  std::atomic<bool> stop_{false};
  std::vector<std::unique_ptr<KindState>> kinds_;
  std::vector<std::thread> threads_;
  mutable absl::Mutex mu_;
  ReflectorStats stats_ ABSL_GUARDED_BY(mu_);
  std::string group_version_ ABSL_GUARDED_BY(mu_);
  bool started_ = false;
  absl::CondVar stop_cv_;  // wakes backoff sleeps on Stop()
};

}  // namespace draforge::kube

#endif  // DRAFORGE_KUBE_REFLECTOR_H_
