#include "controller.h"

#include <chrono>
#include <ctime>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "daemon_log.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::controller {

using daemon::Log;
using daemon::Now;

namespace {

constexpr char kDraApiVersion[] = "resource.k8s.io/v1";
constexpr char kPoolStatusApiVersion[] = "resource.k8s.io/v1alpha3";
constexpr char kPoolStatusResource[] = "resourcepoolstatusrequests";

Error Failure(std::string message) {
  Error e;
  e.code = DRAFORGE_EINTERNAL;
  e.message = std::move(message);
  return e;
}

std::string Json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

Result<rapidjson::Document> Parse(const std::string& text, const std::string& what) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError() || !doc.IsObject()) return Failure(what + ": the library returned malformed JSON");
  return doc;
}

// A string member of an object; "" when absent.
std::string Str(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return "";
  auto m = v.FindMember(key);
  return m != v.MemberEnd() && m->value.IsString() ? m->value.GetString() : "";
}

const rapidjson::Value& Metadata(const rapidjson::Value& v) {
  static const rapidjson::Value empty(rapidjson::kObjectType);
  if (!v.IsObject()) return empty;
  auto m = v.FindMember("metadata");
  return m != v.MemberEnd() && m->value.IsObject() ? m->value : empty;
}

// Adds a list (as draforge_kube_list returns it) to `cluster`; when one item does not decode, the
// others still go in (the list as a whole is all or nothing).
void ApplyList(Cluster& cluster, const std::string& list_json, const rapidjson::Document& list) {
  if (cluster.Apply(list_json).ok()) return;
  for (const auto& item : list["items"].GetArray()) (void)cluster.Apply(Json(item));
}

// Whether claim `key` ("namespace/name") is in the store: one that did not decode is not, and is
// left alone.
bool Stored(const Snapshot& snapshot, const std::string& key) {
  const size_t slash = key.find('/');
  return snapshot.GetJson("resourceclaims", key.substr(0, slash), key.substr(slash + 1)).ok();
}

KubeRequestOptions ManagedSlices() {
  KubeRequestOptions o;
  o.label_selector = DRAFORGE_RECONCILE_MANAGED_SELECTOR;
  return o;
}

}  // namespace

Controller::Controller(const KubeClient& client, const LeaderElector& elector, Metrics& metrics,
                       const std::atomic<bool>& stop, int64_t tick_seconds, bool allocate, int64_t test_pause_ms,
                       bool serve_pool_status_requests)
    : client_(client),
      elector_(elector),
      metrics_(metrics),
      stop_(stop),
      tick_seconds_(tick_seconds),
      allocate_(allocate),
      test_pause_ms_(test_pause_ms),
      serve_pool_status_requests_(serve_pool_status_requests) {}

Result<void> Controller::Round() {
  ++round_;
  writes_in_round_ = 0;
  Result<void> s = ReconcilePools();
  if (s.ok() && allocate_) s = AllocateClaims();
  if (s.ok()) s = BindingConditions();
  if (s.ok() && serve_pool_status_requests_) s = ServePoolStatusRequests();
  return s;
}

Result<int64_t> Controller::PrepareWrite() {
  const int64_t deadline = elector_.deadline();
  if (stop_.load() || KubeNow() >= deadline) return Failure("lost the Lease");
  if (test_pause_ms_ > 0 && writes_in_round_ > 0) {
    // The marker tells a test that this replica is inside a round, a write done and the next one
    // prepared under its lease: a kill or SIGSTOP now lands exactly there.
    Log("test-pause: after write " + std::to_string(writes_in_round_) + " of round " + std::to_string(round_));
    for (int64_t waited = 0; waited < test_pause_ms_ && !stop_.load(); waited += 50) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  return deadline;
}

Result<KubeRequestOptions> Controller::PrepareUpdate(const rapidjson::Value& body, const std::string& what,
                                                     const std::string& subresource) {
  // Without the read resourceVersion a PUT overwrites whatever is there, so it is not sent.
  if (Str(Metadata(body), "resourceVersion").empty()) {
    return Failure(what + ": metadata.resourceVersion is missing; an unconditional update could overwrite another "
                          "replica's write, so it is not sent");
  }
  KubeRequestOptions options;
  options.subresource = subresource;
  auto deadline = PrepareWrite();
  if (!deadline.ok()) return std::move(deadline).error();
  options.deadline_unix_ns = *deadline;
  return options;
}

void Controller::CountConflict(const Error& e, const std::string& what) {
  if (IsKubeConflict(e)) {
    ++metrics_.write_conflicts;
    Log(what + ": changed since read; retrying next round");
  }
}

Result<void> Controller::ReconcilePools() {
  auto pools = client_.List(DRAFORGE_RECONCILE_POOL_API_VERSION, DRAFORGE_RECONCILE_POOL_RESOURCE);
  if (!pools.ok()) return std::move(pools).error();
  auto slices = client_.List(kDraApiVersion, "resourceslices", "", ManagedSlices());
  if (!slices.ok()) return std::move(slices).error();
  metrics_.synced.store(true);
  const int64_t tick = tick_seconds_ > 0 ? static_cast<int64_t>(std::time(nullptr)) / tick_seconds_ : 0;
  auto plan_json = draforge::ReconcilePools(*pools, *slices, tick, Now());
  if (!plan_json.ok()) return std::move(plan_json).error();
  auto plan = Parse(*plan_json, "pools plan");
  if (!plan.ok()) return std::move(plan).error();
  // Per pool: its slice writes, then its status, against the listed object.
  for (const auto& pool : (*plan)["pools"].GetArray()) {
    for (const auto& action : pool["actions"].GetArray()) {
      if (auto s = Apply(action); !s.ok()) return s;
    }
    if (!pool["valid"].GetBool()) Log("SimulatedDevicePool " + Str(pool, "name") + ": " + Str(pool, "error"));
    if (pool["status"].IsObject()) {
      if (auto s = WriteStatus(pool["status"], Str(pool, "name")); !s.ok()) return s;
    }
  }
  // Slices whose pool is gone (garbage collection does this too; not waiting for it keeps the
  // simulation prompt).
  for (const auto& orphan : (*plan)["orphans"].GetArray()) {
    if (auto s = Apply(orphan); !s.ok()) return s;
  }
  metrics_.pools.store(static_cast<int64_t>((*plan)["pools"].Size()));
  metrics_.invalid_pools.store((*plan)["invalid"].GetInt64());
  return {};
}

Result<void> Controller::Apply(const rapidjson::Value& action) {
  const std::string type = Str(action, "type");
  const std::string name = Str(action, "name");
  const rapidjson::Value& slice = action["slice"];
  if (type == "delete") {
    KubeRequestOptions options;
    options.precondition_uid = Str(Metadata(slice), "uid");
    options.precondition_resource_version = Str(Metadata(slice), "resourceVersion");
    if (options.precondition_resource_version.empty()) {
      return Failure("delete resourceslice " + name + ": no resourceVersion read; not sent");
    }
    auto deadline = PrepareWrite();
    if (!deadline.ok()) return std::move(deadline).error();
    options.deadline_unix_ns = *deadline;
    auto d = client_.Delete(kDraApiVersion, "resourceslices", "", name, options);
    if (!d.ok() && !IsKubeNotFound(d.error())) {
      CountConflict(d.error(), "delete resourceslice " + name);
      if (IsKubeConflict(d.error())) return {};
      return std::move(d).error();
    }
    ++metrics_.slices_deleted;
    Log("resourceslice " + name + " deleted");
    Wrote();
    return {};
  }
  if (type == "create") {
    auto deadline = PrepareWrite();
    if (!deadline.ok()) return std::move(deadline).error();
    KubeRequestOptions options;
    options.deadline_unix_ns = *deadline;
    auto c = client_.Create(kDraApiVersion, "resourceslices", "", Json(slice), options);
    if (!c.ok() && !IsKubeAlreadyExists(c.error())) return std::move(c).error();
    if (c.ok()) {
      ++metrics_.slices_created;
      Log("resourceslice " + name + " created");
      Wrote();
    }
    return {};
  }
  auto options = PrepareUpdate(slice, "update resourceslice " + name);
  if (!options.ok()) return std::move(options).error();
  auto u = client_.Update(kDraApiVersion, "resourceslices", "", Json(slice), *options);
  if (!u.ok()) {
    CountConflict(u.error(), "update resourceslice " + name);
    if (IsKubeConflict(u.error()) || IsKubeNotFound(u.error())) return {};
    return std::move(u).error();
  }
  ++metrics_.slices_updated;
  Log("resourceslice " + name + " updated");
  Wrote();
  return {};
}

Result<void> Controller::WriteStatus(const rapidjson::Value& status, const std::string& pool) {
  const std::string what = "status of SimulatedDevicePool " + pool;
  auto options = PrepareUpdate(status, what, "status");
  if (!options.ok()) return std::move(options).error();
  auto u = client_.Update(DRAFORGE_RECONCILE_POOL_API_VERSION, DRAFORGE_RECONCILE_POOL_RESOURCE, "", Json(status),
                          *options);
  if (!u.ok()) {
    CountConflict(u.error(), what);
    if (IsKubeConflict(u.error()) || IsKubeNotFound(u.error())) return {};
    return std::move(u).error();
  }
  Wrote();
  return {};
}

Result<void> Controller::Load(World& w) {
  auto slices = client_.List(kDraApiVersion, "resourceslices", "", ManagedSlices());
  if (!slices.ok()) return std::move(slices).error();
  auto slice_list = Parse(*slices, "list resourceslices");
  if (!slice_list.ok()) return std::move(slice_list).error();
  ApplyList(w.cluster, *slices, *slice_list);
  for (const char* resource : {"deviceclasses", "resourceclaims"}) {
    auto list = client_.List(kDraApiVersion, resource);
    if (!list.ok()) return std::move(list).error();
    auto doc = Parse(*list, std::string("list ") + resource);
    if (!doc.ok()) return std::move(doc).error();
    ApplyList(w.cluster, *list, *doc);
    if (std::string(resource) == "resourceclaims") {
      // Kept whole (with apiVersion and kind) as the body of later status writes.
      for (const auto& item : (*doc)["items"].GetArray()) {
        std::string ns = Str(Metadata(item), "namespace");
        w.claims[(ns.empty() ? "default" : ns) + "/" + Str(Metadata(item), "name")] = Json(item);
      }
    }
  }
  for (const char* resource : {"pods", "nodes"}) {
    auto list = client_.List("v1", resource);
    if (!list.ok()) return std::move(list).error();
    auto doc = Parse(*list, std::string("list ") + resource);
    if (!doc.ok()) return std::move(doc).error();
    ApplyList(w.cluster, *list, *doc);
  }
  return {};
}

Result<void> Controller::AllocateClaims() {
  // Bounded: a claim whose write conflicts is retried next round, not spun on here.
  for (int i = 0; i < 1000; ++i) {
    auto progress = AllocateOne();
    if (!progress.ok()) return std::move(progress).error();
    if (!*progress) break;
  }
  return {};
}

// Allocates the first claim (in namespace/name order) that fits, each round from a fresh read (so
// each sees the ones before it without guessing the server's state); returns whether one was written.
Result<bool> Controller::AllocateOne() {
  auto world = Cluster::Create();
  if (!world.ok()) return std::move(world).error();
  World w{std::move(*world), {}};
  if (auto s = Load(w); !s.ok()) return std::move(s).error();
  auto snapshot = w.cluster.snapshot();
  if (!snapshot.ok()) return std::move(snapshot).error();
  for (const auto& [key, json] : w.claims) {
    if (!Stored(*snapshot, key)) continue;
    auto plan_json = ReconcileClaimAllocation(*snapshot, json);
    if (!plan_json.ok()) return std::move(plan_json).error();
    auto plan = Parse(*plan_json, "allocation plan of resourceclaim " + key);
    if (!plan.ok()) return std::move(plan).error();
    auto written = WriteClaimStatus(*plan, "allocate", key, "allocate resourceclaim " + key);
    if (!written.ok()) return std::move(written).error();
    if (!*written) continue;
    ++metrics_.claims_allocated;
    Log("resourceclaim " + key + " allocated on " + Str(*plan, "node"));
    Wrote();
    return true;
  }
  return false;
}

Result<void> Controller::BindingConditions() {
  auto world = Cluster::Create();
  if (!world.ok()) return std::move(world).error();
  World w{std::move(*world), {}};
  if (auto s = Load(w); !s.ok()) return s;
  auto snapshot = w.cluster.snapshot();
  if (!snapshot.ok()) return std::move(snapshot).error();
  for (const auto& [key, json] : w.claims) {
    if (!Stored(*snapshot, key)) continue;
    auto plan_json = ReconcileBindingConditions(*snapshot, json, Now());
    if (!plan_json.ok()) {
      Log(plan_json.error().message);
      continue;
    }
    auto plan = Parse(*plan_json, "binding conditions of resourceclaim " + key);
    if (!plan.ok()) return std::move(plan).error();
    auto written = WriteClaimStatus(*plan, "write", key, "binding conditions of resourceclaim " + key);
    if (!written.ok()) return std::move(written).error();
    if (!*written) continue;
    ++metrics_.binding_updates;
    Log("resourceclaim " + key + ": binding conditions written");
    Wrote();
  }
  return {};
}

Result<bool> Controller::WriteClaimStatus(const rapidjson::Value& plan, const char* flag, const std::string& key,
                                          const std::string& what) {
  if (!plan[flag].GetBool()) return false;
  const rapidjson::Value& body = plan["body"];
  auto options = PrepareUpdate(body, what, "status");
  if (!options.ok()) return std::move(options).error();
  auto u = client_.Update(kDraApiVersion, "resourceclaims", key.substr(0, key.find('/')), Json(body), *options);
  if (u.ok()) return true;
  CountConflict(u.error(), what);
  if (!IsKubeConflict(u.error()) && !IsKubeNotFound(u.error())) return std::move(u).error();
  return false;
}

Result<void> Controller::ServePoolStatusRequests() {
  auto requests_json = client_.List(kPoolStatusApiVersion, kPoolStatusResource);
  if (!requests_json.ok()) return std::move(requests_json).error();
  auto requests = Parse(*requests_json, "list resourcepoolstatusrequests");
  if (!requests.ok()) return std::move(requests).error();
  std::vector<rapidjson::Value*> open;
  auto items = requests->FindMember("items");
  if (items == requests->MemberEnd() || !items->value.IsArray()) return {};
  for (auto& item : items->value.GetArray()) {
    auto status = item.FindMember("status");
    if (status == item.MemberEnd() || status->value.IsNull()) open.push_back(&item);
  }
  if (open.empty()) return {};
  // Upstream counts every slice (not only the simulated ones), every claim and DeviceTaintRule.
  auto world = Cluster::Create();
  if (!world.ok()) return std::move(world).error();
  for (const char* resource : {"resourceslices", "resourceclaims", "devicetaintrules"}) {
    auto list = client_.List(kDraApiVersion, resource);
    if (!list.ok()) return std::move(list).error();
    auto doc = Parse(*list, std::string("list ") + resource);
    if (!doc.ok()) return std::move(doc).error();
    ApplyList(*world, *list, *doc);
  }
  auto snapshot = world->snapshot();
  if (!snapshot.ok()) return std::move(snapshot).error();
  for (rapidjson::Value* request : open) {
    const std::string name = Str(Metadata(*request), "name");
    static const rapidjson::Value kNoSpec(rapidjson::kObjectType);
    auto spec_member = request->FindMember("spec");
    const rapidjson::Value& spec = spec_member != request->MemberEnd() ? spec_member->value : kNoSpec;
    inventory::PoolStatusQuery q;
    q.driver = Str(spec, "driver");
    q.pool_name = Str(spec, "poolName");
    q.default_partition_type_attribute = Str(spec, "defaultPartitionTypeAttribute");
    if (auto limit = spec.FindMember("limit"); limit != spec.MemberEnd() && limit->value.IsInt64()) {
      q.limit = limit->value.GetInt64();
    }
    q.now = Now();
    auto status_json = inventory::PoolStatusJson(*snapshot, q);
    if (!status_json.ok()) {
      Log("resourcepoolstatusrequest " + name + ": " + status_json.error().message);
      continue;
    }
    auto status = Parse(*status_json, "status of resourcepoolstatusrequest " + name);
    if (!status.ok()) return std::move(status).error();
    bool incomplete = false;
    if (auto pools = status->FindMember("pools"); pools != status->MemberEnd() && pools->value.IsArray()) {
      for (const auto& pool : pools->value.GetArray()) {
        incomplete = incomplete || Str(pool, "validationError").starts_with("PoolIncomplete:");
      }
    }
    if (incomplete) {
      Log("resourcepoolstatusrequest " + name + ": a pool is incomplete; waiting for its slices");
      continue;
    }
    rapidjson::Document body;
    body.CopyFrom(*request, body.GetAllocator());
    body.AddMember("status", rapidjson::Value(*status, body.GetAllocator()), body.GetAllocator());
    if (!body.HasMember("apiVersion")) {
      body.AddMember("apiVersion", rapidjson::Value(kPoolStatusApiVersion, body.GetAllocator()), body.GetAllocator());
    }
    if (!body.HasMember("kind")) body.AddMember("kind", "ResourcePoolStatusRequest", body.GetAllocator());
    const std::string what = "status of resourcepoolstatusrequest " + name;
    auto options = PrepareUpdate(body, what, "status");
    if (!options.ok()) return std::move(options).error();
    auto u = client_.Update(kPoolStatusApiVersion, kPoolStatusResource, "", Json(body), *options);
    if (!u.ok()) {
      CountConflict(u.error(), what);
      if (IsKubeConflict(u.error()) || IsKubeNotFound(u.error())) continue;
      return std::move(u).error();
    }
    Log("resourcepoolstatusrequest " + name + " answered");
    Wrote();
  }
  return {};
}

}  // namespace draforge::controller
