// draforge-controller: publishes SimulatedDevicePools as ResourceSlices and allocates pending claims
// on simulated devices, under Lease leader election. Only composition of library calls lives here:
// expansion and reconcile plans are lib/sim's, allocation lib/alloc's, the API client lib/kube's.
//
// Loop (leader only): a round runs when a watch (SimulatedDevicePools, managed ResourceSlices,
// ResourceClaims, DeviceClasses) reports a change, when this replica starts leading, at every simulation tick (the
// clock of flap faults) and, as a safety net against a missed event, every --resync seconds. Rounds
// read fresh lists (consistent reads), so a watch event only says "look again", never what to write.
//   1. pools: list SimulatedDevicePools and the slices they own (owner reference); lib/sim PlanPools
//      expands each pool and plans the slice writes that make them match; write the pool's status.
//      A pool that does not expand keeps its last good slices and gets Ready=False.
//   2. claims: allocate pending ResourceClaims that no pod references (pods are kube-scheduler's)
//      against the simulated slices only, node by node, writing status.allocation with the read
//      resourceVersion (a conflict skips the claim until the next round).
//   3. binding conditions: for allocated devices with binding conditions, set them True in
//      status.devices -- or, for devices of a binding-failure fault, the failure condition (lib/sim
//      PlanBindingConditions).
// Every write is leader-gated twice over, so that a replica that lost the Lease -- paused, partitioned,
// or stuck in retries -- cannot land a write after its successor started:
//   - it carries the deadline of the lease it was prepared under (LeaderElector::LeadershipDeadline:
//     last renewal + renew deadline, before any other replica may take the Lease); kube::Client
//     sends no attempt and no retry past it, and clips the running attempt's timeout to it;
//   - it is conditional on what was read: updates carry the read metadata.resourceVersion, deletes
//     preconditions.resourceVersion (a 409 Conflict when the object changed since), creates fail with
//     AlreadyExists when the object exists.
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "alloc/allocator.h"
#include "api/codec.h"
#include "common/status.h"
#include "kube/api_status.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/leader_election.h"
#include "kube/resource.h"
#include "sim/claim_allocation.h"
#include "sim/expand.h"
#include "sim/reconcile.h"
#include "sim/simulated_device_pool.h"
#include "store/cluster.h"

extern char** environ;  // NOLINT: POSIX

namespace draforge::controller {
namespace {

constexpr char kUsage[] = R"(draforge-controller: publishes SimulatedDevicePools (sim.draforge.io/v1alpha1) as
ResourceSlices and allocates pending ResourceClaims on simulated devices, under Lease leader election.

Usage: draforge-controller [flags]     (each flag as --flag VALUE or --flag=VALUE)
  --kubeconfig PATH      kubeconfig (default: $KUBECONFIG, then in-cluster)
  --context NAME         kubeconfig context
  --id NAME              this replica's identity (default: hostname-pid)
  --lease-namespace NS   namespace of the Lease (default: default)
  --lease-name NAME      Lease name (default: draforge-sim-controller)
  --address ADDR         health/metrics address (default 127.0.0.1)
  --port N               health/metrics port (default 8081; 0: none)
  --resync SECONDS       safety-net period: a round at least this often (default 30); changes seen by
                         the watches are reconciled at once
  --tick SECONDS         seconds per simulation tick, the clock of flap faults (default 10)
  --no-allocate          publish slices only; leave claims alone
  --test-pause-between-writes MS
                         test only: between two writes of a round -- the next one prepared and its
                         leadership checked, not sent -- log "test-pause: after write N of round R"
                         and sleep MS milliseconds (lets a test kill or stop the leader mid-round)
Endpoints: /healthz (process up), /readyz (200 once the API answered a list), /metrics (Prometheus).)";

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

struct Metrics {
  std::atomic<int64_t> leader{0};
  std::atomic<int64_t> rounds{0};
  std::atomic<int64_t> round_errors{0};
  std::atomic<int64_t> slices_created{0};
  std::atomic<int64_t> slices_updated{0};
  std::atomic<int64_t> slices_deleted{0};
  std::atomic<int64_t> write_conflicts{0};
  std::atomic<int64_t> claims_allocated{0};
  std::atomic<int64_t> binding_updates{0};
  std::atomic<int64_t> pools{0};
  std::atomic<int64_t> invalid_pools{0};
  std::atomic<bool> synced{false};

  std::string Render() const {
    std::string out;
    auto gauge = [&](const char* name, const char* help, int64_t v, const char* type = "gauge") {
      absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n", name, " ", v, "\n");
    };
    gauge("draforge_sim_leader", "1 while this replica holds the Lease", leader.load());
    gauge("draforge_sim_reconcile_rounds_total", "reconcile rounds run as leader", rounds.load(), "counter");
    gauge("draforge_sim_reconcile_errors_total", "rounds that hit an API error", round_errors.load(), "counter");
    gauge("draforge_sim_slices_created_total", "ResourceSlices created", slices_created.load(), "counter");
    gauge("draforge_sim_slices_updated_total", "ResourceSlices updated", slices_updated.load(), "counter");
    gauge("draforge_sim_slices_deleted_total", "ResourceSlices deleted", slices_deleted.load(), "counter");
    gauge("draforge_sim_write_conflicts_total", "writes refused for a stale resourceVersion", write_conflicts.load(),
          "counter");
    gauge("draforge_sim_claims_allocated_total", "ResourceClaims allocated", claims_allocated.load(), "counter");
    gauge("draforge_sim_binding_condition_updates_total", "claim status.devices condition writes",
          binding_updates.load(), "counter");
    gauge("draforge_sim_pools", "SimulatedDevicePools seen in the last round", pools.load());
    gauge("draforge_sim_invalid_pools", "SimulatedDevicePools that do not expand", invalid_pools.load());
    return out;
  }
};

void Log(const std::string& line) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::cerr << absl::FormatTime("%Y-%m-%dT%H:%M:%SZ ", absl::Now(), absl::UTCTimeZone()) << line << std::endl;
}

std::string Now() { return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone()); }

kube::Resource PoolResource() {
  return kube::Resource{sim::kGroup, sim::kVersion, sim::kResource, sim::kKind, false};
}

// List items lack apiVersion/kind for built-in types; decoding needs them.
absl::StatusOr<api::Object> DecodeItem(rapidjson::Value& item, rapidjson::Document::AllocatorType& a,
                                       const kube::Resource& r) {
  if (!item.HasMember("apiVersion")) item.AddMember("apiVersion", rapidjson::Value(r.ApiVersion().c_str(), a), a);
  if (!item.HasMember("kind")) item.AddMember("kind", rapidjson::Value(r.kind.c_str(), a), a);
  return api::DecodeObject(item, api::DecodeOptions{}, nullptr);
}

// "Something may have changed": set by the watches and the elector, consumed by the main loop.
class Trigger {
 public:
  void Notify() {
    std::lock_guard<std::mutex> lock(mu_);
    dirty_ = true;
    cv_.notify_all();
  }
  // Waits until Notify() (since the last Take), `deadline` or `stop`; returns whether notified and
  // clears the flag.
  bool Take(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>& stop) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!dirty_ && !stop.load() && std::chrono::steady_clock::now() < deadline) {
      // Bounded waits: a signal handler cannot notify the condition variable.
      cv_.wait_for(lock, std::chrono::milliseconds(100));
    }
    const bool was = dirty_;
    dirty_ = false;
    return was;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool dirty_ = false;
};

// Watches one resource from a fresh list's resourceVersion and notifies `trigger` on every event
// (bookmarks aside). A watch the server ends is resumed from the last version seen; an expired
// version (410) or a failure relists (after a backoff) and notifies, since events may have been
// missed. Returns when `stop` is set.
void WatchLoop(kube::Client& client, const kube::Resource& resource, const std::string& label_selector,
               Trigger& trigger, const std::atomic<bool>& stop) {
  std::string rv;
  int64_t backoff_ms = 500;
  auto sleep = [&] {
    for (int64_t waited = 0; waited < backoff_ms && !stop.load(); waited += 100) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    backoff_ms = std::min<int64_t>(backoff_ms * 2, 30000);
  };
  while (!stop.load()) {
    if (rv.empty()) {
      kube::ListOptions lo;
      lo.label_selector = label_selector;
      auto list = client.List(resource, "", lo);
      if (!list.ok()) {
        Log(absl::StrCat("list ", resource.resource, ": ", list.status().message()));
        sleep();
        continue;
      }
      rv = list->resource_version;
      trigger.Notify();
    }
    kube::WatchOptions wo;
    wo.resource_version = rv;
    wo.label_selector = label_selector;
    wo.timeout_seconds = 240;
    absl::Status s = client.Watch(
        resource, "", wo,
        [&](kube::WatchEvent& e) {
          if (e.object.IsObject() && e.object.HasMember("metadata") && e.object["metadata"].IsObject() &&
              e.object["metadata"].HasMember("resourceVersion") && e.object["metadata"]["resourceVersion"].IsString()) {
            rv = e.object["metadata"]["resourceVersion"].GetString();
          }
          if (e.type != "BOOKMARK") trigger.Notify();
          backoff_ms = 500;
          return !stop.load();
        },
        &stop);
    if (stop.load()) break;
    if (!s.ok()) {
      if (!kube::IsApiGone(s)) Log(absl::StrCat("watch ", resource.resource, ": ", s.message()));
      rv.clear();
      sleep();
    }
  }
}

class Controller {
 public:
  Controller(kube::Client& client, kube::LeaderElector& elector, Metrics& metrics, int64_t tick_seconds,
             bool allocate, int64_t test_pause_ms)
      : client_(client),
        elector_(elector),
        metrics_(metrics),
        tick_seconds_(tick_seconds),
        allocate_(allocate),
        test_pause_ms_(test_pause_ms) {}

  // One round; returns the first API error (the next round retries).
  absl::Status Round() {
    ++round_;
    writes_in_round_ = 0;
    absl::Status s = ReconcilePools();
    if (s.ok() && allocate_) s = AllocateClaims();
    if (s.ok()) s = BindingConditions();
    return s;
  }

 private:
  // Called when a write is prepared, right before it is sent: the deadline it must carry, that of
  // the lease it was prepared under. Aborted when this replica does not lead (or is stopping).
  absl::StatusOr<absl::Time> PrepareWrite() {
    const absl::Time deadline = elector_.LeadershipDeadline();
    if (g_stop.load() || absl::Now() >= deadline) return absl::AbortedError("lost the Lease");
    if (test_pause_ms_ > 0 && writes_in_round_ > 0) {
      // The marker tells a test that this replica is inside a round, a write done and the next one
      // prepared under its lease: a kill or SIGSTOP now lands exactly there.
      Log(absl::StrCat("test-pause: after write ", writes_in_round_, " of round ", round_));
      for (int64_t waited = 0; waited < test_pause_ms_ && !g_stop.load(); waited += 50) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    return deadline;
  }

  // Called after every successful write.
  void Wrote() { ++writes_in_round_; }

  // Whether an update body is conditional (carries the read metadata.resourceVersion): without it a
  // PUT overwrites whatever is there, so the controller refuses to send it.
  static absl::Status Conditional(const rapidjson::Value& body, const std::string& what) {
    if (body.IsObject() && body.HasMember("metadata") && body["metadata"].IsObject() &&
        body["metadata"].HasMember("resourceVersion") && body["metadata"]["resourceVersion"].IsString() &&
        body["metadata"]["resourceVersion"].GetStringLength() > 0) {
      return absl::OkStatus();
    }
    return absl::InternalError(absl::StrCat(what, ": metadata.resourceVersion is missing; an unconditional update "
                                            "could overwrite another replica's write, so it is not sent"));
  }
  // The options of an update: conditional (Conditional), under the current lease (PrepareWrite).
  absl::StatusOr<kube::WriteOptions> PrepareUpdate(const rapidjson::Value& body, const std::string& what,
                                                   std::string subresource = "") {
    RETURN_IF_ERROR(Conditional(body, what));
    kube::WriteOptions options;
    options.subresource = std::move(subresource);
    ASSIGN_OR_RETURN(options.deadline, PrepareWrite());
    return options;
  }


  void CountConflict(const absl::Status& s, const std::string& what) {
    if (kube::IsApiConflict(s)) {
      ++metrics_.write_conflicts;
      Log(absl::StrCat(what, ": changed since read; retrying next round"));
    }
  }

  absl::Status ReconcilePools() {
    ASSIGN_OR_RETURN(kube::ListResult pools, client_.List(PoolResource(), ""));
    kube::ListOptions managed;
    managed.label_selector = absl::StrCat(sim::kManagedByLabel, "=", sim::kManagedByValue);
    ASSIGN_OR_RETURN(kube::ListResult slices, client_.List(*kube::ResourceFor(api::Kind::kResourceSlice), "", managed));
    metrics_.synced.store(true);
    std::vector<api::ResourceSlice> managed_slices;
    for (auto& item : slices.list["items"].GetArray()) {
      auto o = DecodeItem(item, slices.list.GetAllocator(), *kube::ResourceFor(api::Kind::kResourceSlice));
      if (o.ok()) managed_slices.push_back(std::get<api::ResourceSlice>(o->value));
    }
    sim::ExpandOptions options;
    options.tick = tick_seconds_ > 0 ? absl::ToUnixSeconds(absl::Now()) / tick_seconds_ : 0;
    rapidjson::Value& items = pools.list["items"];
    const sim::PoolsPlan plan = sim::PlanPools(items, managed_slices, options);
    // Per pool: its slice writes, then its status, against the listed object.
    for (const sim::PoolPlan& p : plan.pools) {
      for (const sim::SliceAction& action : p.actions) RETURN_IF_ERROR(Apply(action));
      if (!p.expansion.ok()) Log(absl::StrCat("SimulatedDevicePool ", p.name, ": ", p.expansion.status().message()));
      RETURN_IF_ERROR(WriteStatus(items[static_cast<rapidjson::SizeType>(p.index)], p.pool, p.expansion));
    }
    // Slices whose pool is gone (garbage collection does this too; not waiting for it keeps the
    // simulation prompt).
    for (const api::ResourceSlice& s : plan.orphans) RETURN_IF_ERROR(Apply({sim::SliceAction::Type::kDelete, s}));
    metrics_.pools.store(static_cast<int64_t>(plan.pools.size()));
    metrics_.invalid_pools.store(plan.invalid);
    return absl::OkStatus();
  }
  absl::Status Apply(const sim::SliceAction& action) {
    const kube::Resource r = *kube::ResourceFor(api::Kind::kResourceSlice);
    const std::string name = action.slice.metadata.name.value_or("");
    if (action.type == sim::SliceAction::Type::kDelete) {
      kube::DeleteOptions options;
      options.precondition_uid = action.slice.metadata.uid.value_or("");
      options.precondition_resource_version = action.slice.metadata.resource_version.value_or("");
      if (options.precondition_resource_version.empty()) {
        return absl::InternalError("delete resourceslice " + name + ": no resourceVersion read; not sent");
      }
      ASSIGN_OR_RETURN(options.deadline, PrepareWrite());
      auto d = client_.Delete(r, "", name, options);
      if (!d.ok() && !kube::IsApiNotFound(d.status())) {
        CountConflict(d.status(), "delete resourceslice " + name);
        return kube::IsApiConflict(d.status()) ? absl::OkStatus() : d.status();
      }
      ++metrics_.slices_deleted;
      Log("resourceslice " + name + " deleted");
      Wrote();
      return absl::OkStatus();
    }
    api::Object o;
    o.api_version = "resource.k8s.io/v1";
    o.value = action.slice;
    ASSIGN_OR_RETURN(rapidjson::Document body, api::EncodeObject(o));
    kube::WriteOptions options;
    if (action.type == sim::SliceAction::Type::kCreate) {
      ASSIGN_OR_RETURN(options.deadline, PrepareWrite());
      auto c = client_.Create(r, "", body, options);
      if (!c.ok() && !kube::IsApiAlreadyExists(c.status())) return c.status();
      if (c.ok()) {
        ++metrics_.slices_created;
        Log("resourceslice " + name + " created");
        Wrote();
      }
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(Conditional(body, "update resourceslice " + name));
    ASSIGN_OR_RETURN(options.deadline, PrepareWrite());
    auto u = client_.Update(r, "", body, options);
    if (!u.ok()) {
      CountConflict(u.status(), "update resourceslice " + name);
      return kube::IsApiConflict(u.status()) || kube::IsApiNotFound(u.status()) ? absl::OkStatus() : u.status();
    }
    ++metrics_.slices_updated;
    Log("resourceslice " + name + " updated");
    Wrote();
    return absl::OkStatus();
  }

  absl::Status WriteStatus(const rapidjson::Value& item, const sim::SimulatedDevicePool& pool,
                           const absl::StatusOr<sim::Expansion>& expansion) {
    std::optional<rapidjson::Document> body = sim::PoolStatusUpdate(item, pool, expansion, Now());
    if (!body) return absl::OkStatus();  // unchanged: no write
    const std::string what = "status of SimulatedDevicePool " + pool.metadata.name.value_or("");
    ASSIGN_OR_RETURN(kube::WriteOptions options, PrepareUpdate(*body, what, "status"));
    auto u = client_.Update(PoolResource(), "", *body, options);
    if (!u.ok()) {
      CountConflict(u.status(), what);
      return kube::IsApiConflict(u.status()) || kube::IsApiNotFound(u.status()) ? absl::OkStatus() : u.status();
    }
    Wrote();
    return absl::OkStatus();
  }

  // Simulated slices, classes, claims and nodes as one store; `claims_json` keeps the raw claims.
  struct World {
    store::Cluster cluster;
    std::map<std::string, rapidjson::Document> claims_json;  // "ns/name" -> object
    std::set<std::string> pod_claims;                        // "ns/name" of claims pods use
    std::vector<alloc::NodeInfo> nodes;
  };

  absl::Status Load(World& w) {
    kube::ListOptions managed;
    managed.label_selector = absl::StrCat(sim::kManagedByLabel, "=", sim::kManagedByValue);
    ASSIGN_OR_RETURN(kube::ListResult slices, client_.List(*kube::ResourceFor(api::Kind::kResourceSlice), "", managed));
    for (auto& item : slices.list["items"].GetArray()) {
      auto o = DecodeItem(item, slices.list.GetAllocator(), *kube::ResourceFor(api::Kind::kResourceSlice));
      if (!o.ok()) continue;
      RETURN_IF_ERROR(w.cluster.Apply(*std::move(o)));
    }
    std::vector<api::Pod> pods;
    std::vector<api::Node> nodes;
    for (api::Kind k : {api::Kind::kDeviceClass, api::Kind::kResourceClaim, api::Kind::kPod, api::Kind::kNode}) {
      const kube::Resource r = *kube::ResourceFor(k);
      ASSIGN_OR_RETURN(kube::ListResult list, client_.List(r, ""));
      for (auto& item : list.list["items"].GetArray()) {
        rapidjson::Document copy;
        copy.CopyFrom(item, copy.GetAllocator());
        auto o = DecodeItem(item, list.list.GetAllocator(), r);
        if (!o.ok()) continue;
        if (k == api::Kind::kResourceClaim) {
          // Kept whole (with apiVersion and kind) as the body of later status writes.
          RETURN_IF_ERROR(DecodeItem(copy, copy.GetAllocator(), r).status());
          w.claims_json[o->Key()] = std::move(copy);
        }
        if (k == api::Kind::kPod) pods.push_back(std::get<api::Pod>(o->value));
        if (k == api::Kind::kNode) nodes.push_back(std::get<api::Node>(o->value));
        RETURN_IF_ERROR(w.cluster.Apply(*std::move(o)));
      }
    }
    std::vector<const api::Pod*> pod_ptrs;
    for (const api::Pod& p : pods) pod_ptrs.push_back(&p);
    w.pod_claims = sim::ClaimsReferencedByPods(pod_ptrs);
    // The Node objects in list order, then nodes named only by the managed slices.
    std::vector<const api::Node*> node_ptrs;
    for (const api::Node& n : nodes) node_ptrs.push_back(&n);
    w.nodes = sim::AllocationNodes(node_ptrs, w.cluster.snapshot()->ResourceSlices());
    return absl::OkStatus();
  }

  // Allocates pending claims one at a time, each from a fresh read (so each sees the ones before it
  // without guessing the server's state), until none can be allocated.
  absl::Status AllocateClaims() {
    // Bounded: a claim whose write conflicts is retried next round, not spun on here.
    for (int i = 0; i < 1000; ++i) {
      ASSIGN_OR_RETURN(bool progress, AllocateOne());
      if (!progress) break;
    }
    return absl::OkStatus();
  }

  // Allocates the first claim (in namespace/name order) that fits; returns whether one was written.
  absl::StatusOr<bool> AllocateOne() {
    World w;
    RETURN_IF_ERROR(Load(w));
    auto snapshot = w.cluster.snapshot();
    for (auto& [key, json] : w.claims_json) {
      auto plan = sim::PlanClaimAllocation(*snapshot, key, json, w.pod_claims, w.nodes);
      if (!plan.ok() && absl::IsNotFound(plan.status())) continue;
      RETURN_IF_ERROR(plan.status());
      if (!plan->has_value()) continue;
      ASSIGN_OR_RETURN(kube::WriteOptions options,
                       PrepareUpdate((*plan)->body, "allocate resourceclaim " + key, "status"));
      auto u = client_.Update(*kube::ResourceFor(api::Kind::kResourceClaim), key.substr(0, key.find('/')),
                              (*plan)->body, options);
      if (!u.ok()) {
        CountConflict(u.status(), "allocate resourceclaim " + key);
        if (!kube::IsApiConflict(u.status()) && !kube::IsApiNotFound(u.status())) return u.status();
        continue;
      }
      ++metrics_.claims_allocated;
      Log("resourceclaim " + key + " allocated on " + (*plan)->node);
      Wrote();
      return true;
    }
    return false;
  }

  absl::Status BindingConditions() {
    World w;
    RETURN_IF_ERROR(Load(w));
    auto snapshot = w.cluster.snapshot();
    const std::map<std::string, const api::Device*> devices =
        sim::DevicesWithBindingConditions(snapshot->ResourceSlices());
    if (devices.empty()) return absl::OkStatus();
    for (auto& [key, json] : w.claims_json) {
      auto plan = sim::PlanBindingConditions(json, devices, Now());
      if (!plan.ok()) {
        Log(std::string(plan.status().message()));
        continue;
      }
      if (!plan->has_value()) continue;
      rapidjson::Document& body = **plan;
      ASSIGN_OR_RETURN(kube::WriteOptions options,
                       PrepareUpdate(body, "binding conditions of resourceclaim " + key, "status"));
      auto u = client_.Update(*kube::ResourceFor(api::Kind::kResourceClaim), key.substr(0, key.find('/')), body, options);
      if (!u.ok()) {
        CountConflict(u.status(), "binding conditions of resourceclaim " + key);
        if (!kube::IsApiConflict(u.status()) && !kube::IsApiNotFound(u.status())) return u.status();
        continue;
      }
      ++metrics_.binding_updates;
      Log("resourceclaim " + key + ": binding conditions written");
      Wrote();
    }
    return absl::OkStatus();
  }

  kube::Client& client_;
  kube::LeaderElector& elector_;
  Metrics& metrics_;
  const int64_t tick_seconds_;
  const bool allocate_;
  const int64_t test_pause_ms_;
  int64_t round_ = 0;
  int64_t writes_in_round_ = 0;
};

struct Flags {
  std::string kubeconfig, context, id, lease_namespace = "default", lease_name = "draforge-sim-controller";
  std::string address = "127.0.0.1";
  int port = 8081;
  int64_t resync = 30, tick = 10, test_pause_ms = 0;
  bool allocate = true;
};

// Flags as --flag VALUE or --flag=VALUE (what Kubernetes manifests usually write). Returns false,
// having said why on stderr, on an unknown flag, a missing or bad value, or a value given to a switch.
bool ParseFlags(int argc, char** argv, Flags& f) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::optional<std::string> inline_value;
    if (size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = a.substr(eq + 1);
      a.resize(eq);
    }
    auto value = [&](std::string& out) {
      if (inline_value) {
        out = *inline_value;
        return true;
      }
      if (i + 1 >= argc) {
        std::cerr << "error: flag " << a << " needs a value\n";
        return false;
      }
      out = argv[++i];
      return true;
    };
    auto number = [&](int64_t& out) {
      std::string v;
      if (!value(v)) return false;
      if (!absl::SimpleAtoi(v, &out) || out < 0) {
        std::cerr << "error: flag " << a << ": \"" << v << "\" is not a non-negative integer\n";
        return false;
      }
      return true;
    };
    auto no_value = [&] {
      if (!inline_value) return true;
      std::cerr << "error: flag " << a << " takes no value\n";
      return false;
    };
    int64_t port = 0;
    if (a == "--help" || a == "-h") {
      if (!no_value()) return false;
      std::cout << kUsage << "\n";
      std::exit(0);
    } else if (a == "--kubeconfig") {
      if (!value(f.kubeconfig)) return false;
    } else if (a == "--context") {
      if (!value(f.context)) return false;
    } else if (a == "--id") {
      if (!value(f.id)) return false;
    } else if (a == "--lease-namespace") {
      if (!value(f.lease_namespace)) return false;
    } else if (a == "--lease-name") {
      if (!value(f.lease_name)) return false;
    } else if (a == "--address") {
      if (!value(f.address)) return false;
    } else if (a == "--port") {
      if (!number(port)) return false;
      if (port > 65535) {
        std::cerr << "error: flag --port: " << port << " is not a port (0-65535)\n";
        return false;
      }
      f.port = static_cast<int>(port);
    } else if (a == "--resync") {
      if (!number(f.resync)) return false;
      if (f.resync == 0) {
        std::cerr << "error: flag --resync must be at least 1\n";
        return false;
      }
    } else if (a == "--tick") {
      if (!number(f.tick)) return false;
    } else if (a == "--test-pause-between-writes") {
      if (!number(f.test_pause_ms)) return false;
    } else if (a == "--no-allocate") {
      if (!no_value()) return false;
      f.allocate = false;
    } else {
      std::cerr << "error: unknown flag \"" << a << "\"\n";
      return false;
    }
  }
  return true;
}

absl::StatusOr<kube::RestConfig> LoadConfig(const Flags& f) {
  const std::string& path = f.kubeconfig;
  // $KUBECONFIG is a list of files, merged as kubectl merges them.
  std::vector<std::string> env_paths;
  if (path.empty()) {
    if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
      env_paths = absl::StrSplit(env, ':', absl::SkipEmpty());
    }
  }
  if (!path.empty() || !env_paths.empty()) {
    kube::KubeconfigOptions options;
    options.context = f.context;
    auto config = path.empty() ? kube::LoadKubeconfigFiles(env_paths, options) : kube::LoadKubeconfigFile(path, options);
    // Exec credential plugins run with our environment (lib/kube never reads it).
    if (config.ok()) {
      for (char** e = environ; e != nullptr && *e != nullptr; ++e) config->exec_environment.emplace_back(*e);
    }
    return config;
  }
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr) {
    return absl::InvalidArgumentError("no kubeconfig (--kubeconfig, $KUBECONFIG) and not running in a cluster");
  }
  kube::InClusterOptions options;
  options.host = host;
  options.port = port;
  return kube::InClusterConfig(options);
}

int Main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) {
    std::cerr << "\n" << kUsage << "\n";
    return 2;
  }
  if (flags.id.empty()) {
    char host[256] = {0};
    gethostname(host, sizeof(host) - 1);
    flags.id = absl::StrCat(host, "-", getpid());
  }
  auto config = LoadConfig(flags);
  if (!config.ok()) {
    std::cerr << "error: " << config.status().message() << "\n";
    return 2;
  }
  auto client = kube::Client::Create(*config);
  if (!client.ok()) {
    std::cerr << "error: " << client.status().message() << "\n";
    return 2;
  }
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  Metrics metrics;

  httplib::Server http;
  std::thread http_thread;
  if (flags.port > 0) {
    http.Get("/healthz", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok\n", "text/plain"); });
    http.Get("/readyz", [&metrics](const httplib::Request&, httplib::Response& res) {
      if (metrics.synced.load()) {
        res.set_content("ok\n", "text/plain");
      } else {
        res.status = 503;
        res.set_content("not synced with the API server yet\n", "text/plain");
      }
    });
    http.Get("/metrics", [&metrics](const httplib::Request&, httplib::Response& res) {
      res.set_content(metrics.Render(), "text/plain; version=0.0.4");
    });
    if (!http.bind_to_port(flags.address, flags.port)) {
      std::cerr << "error: cannot listen on " << flags.address << ":" << flags.port << "\n";
      return 3;
    }
    http_thread = std::thread([&http] { http.listen_after_bind(); });
    // Said once the port is ours, so that a supervisor (or a test that picked the port) knows the
    // endpoints it reaches are this process's and not whatever else held the port.
    Log(absl::StrCat(flags.id, ": serving /healthz, /readyz and /metrics on http://", flags.address, ":", flags.port));
  }

  kube::LeaderElectionOptions le;
  le.lease_namespace = flags.lease_namespace;
  le.lease_name = flags.lease_name;
  le.identity = flags.id;
  Trigger trigger;
  le.on_started_leading = [&] {
    metrics.leader.store(1);
    trigger.Notify();  // a new leader reconciles at once
    Log(flags.id + ": started leading");
  };
  le.on_stopped_leading = [&] {
    metrics.leader.store(0);
    Log(flags.id + ": stopped leading");
  };
  le.on_new_leader = [](const std::string& id) { Log("leader is " + id); };
  kube::LeaderElector elector(**client, le);
  if (absl::Status s = elector.Start(); !s.ok()) {
    std::cerr << "error: " << s.message() << "\n";
    return 2;
  }
  Log(absl::StrCat(flags.id, ": campaigning for Lease ", flags.lease_namespace, "/", flags.lease_name));
  Controller controller(**client, elector, metrics, flags.tick, flags.allocate, flags.test_pause_ms);
  // Standbys watch too, so that a new leader's first round is not the only one it can rely on.
  kube::ListOptions managed;
  managed.label_selector = absl::StrCat(sim::kManagedByLabel, "=", sim::kManagedByValue);
  std::vector<std::thread> watches;
  watches.emplace_back(WatchLoop, std::ref(**client), PoolResource(), std::string(), std::ref(trigger),
                       std::cref(g_stop));
  watches.emplace_back(WatchLoop, std::ref(**client), *kube::ResourceFor(api::Kind::kResourceSlice),
                       managed.label_selector, std::ref(trigger), std::cref(g_stop));
  if (flags.allocate) {
    // Claims (new, changed) and the objects that decide where they fit.
    for (api::Kind k : {api::Kind::kResourceClaim, api::Kind::kDeviceClass}) {
      watches.emplace_back(WatchLoop, std::ref(**client), *kube::ResourceFor(k), std::string(), std::ref(trigger),
                           std::cref(g_stop));
    }
  }
  auto next_round = std::chrono::steady_clock::time_point::max();
  while (!g_stop.load()) {
    if (elector.IsLeader()) {
      ++metrics.rounds;
      if (absl::Status s = controller.Round(); !s.ok()) {
        ++metrics.round_errors;
        Log(absl::StrCat("round: ", s.message()));
        // An API error: retry soon even if nothing changes.
        next_round = std::min(next_round, std::chrono::steady_clock::now() + std::chrono::seconds(1));
      }
    } else if (!metrics.synced.load()) {
      // A standby is ready once it can reach the API server.
      if ((*client)->List(PoolResource(), "", kube::ListOptions{"", "", 1, "", ""}).ok()) metrics.synced.store(true);
    }
    // Next: a change, the resync period, or the next simulation tick (flap faults move with it).
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(flags.resync);
    if (flags.tick > 0) {
      const int64_t now_ms = absl::ToUnixMillis(absl::Now());
      const int64_t tick_ms = flags.tick * 1000;
      deadline = std::min(deadline, std::chrono::steady_clock::now() +
                                        std::chrono::milliseconds(tick_ms - now_ms % tick_ms + 10));
    }
    deadline = std::min(deadline, next_round);
    trigger.Take(deadline, g_stop);
    next_round = std::chrono::steady_clock::time_point::max();
  }
  Log(flags.id + ": stopping");
  // The round is over: hand the Lease back first (while the client still sends), so a standby takes
  // over at once instead of after lease_duration; then end the watches.
  elector.Stop();
  (*client)->Cancel();
  for (std::thread& t : watches) t.join();
  if (http_thread.joinable()) {
    http.stop();
    http_thread.join();
  }
  return 0;
}

}  // namespace
}  // namespace draforge::controller

int main(int argc, char** argv) { return draforge::controller::Main(argc, argv); }
