// The live-cluster ABI (draforge/kube.h through draforge/draforge.hpp) against a real control plane:
// REST with JSON and its error codes, the live source into a Cluster with its change callback, and
// Lease leader election. Linked into kube_integration_test (tests/kube/run starts the cluster); only
// the public headers are used here, as a front end would.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "draforge/draforge.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

using ::testing::HasSubstr;

draforge::KubeClient AdminClient() {
  // The front-end convenience: $KUBECONFIG (set by tests/kube/run) and the process environment.
  auto client = draforge::KubeClient::Create(draforge::KubeConfigOptionsFromEnvironment());
  if (!client.ok()) throw std::runtime_error(client.error().message);
  return std::move(*client);
}

// Polls `done` every 50 ms for up to `seconds`; whether it became true. A wait, not a timing claim.
template <typename Fn>
bool WaitFor(Fn done, int seconds = 60) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

std::string Slice(const std::string& name, const std::string& resource_version = "") {
  return R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":")" + name + "\"" +
         (resource_version.empty() ? "" : ",\"resourceVersion\":\"" + resource_version + "\"") +
         R"(},"spec":{"driver":"abi.example.com","nodeName":"abi-node","pool":{"name":"p","generation":1,"resourceSliceCount":1},"devices":[{"name":"d0"}]}})";
}

// "metadata.resourceVersion" of an object's JSON (enough parsing for the tests).
std::string ResourceVersion(const std::string& json) {
  const std::string key = "\"resourceVersion\":\"";
  const size_t at = json.find(key);
  if (at == std::string::npos) return "";
  const size_t start = at + key.size();
  return json.substr(start, json.find('"', start) - start);
}

TEST(KubeAbi, WritesKeepOptimisticConcurrencyAndErrorsKeepTheirReason) {
  draforge::KubeClient client = AdminClient();
  auto version = client.ServerVersionJson();
  ASSERT_TRUE(version.ok()) << version.error().message;
  EXPECT_THAT(*version, HasSubstr("gitVersion"));

  const std::string av = "resource.k8s.io/v1";
  (void)client.Delete(av, "resourceslices", "", "abi-slice");
  auto created = client.Create(av, "resourceslices", "", Slice("abi-slice"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  const std::string rv = ResourceVersion(*created);
  ASSERT_FALSE(rv.empty());

  auto again = client.Create(av, "resourceslices", "", Slice("abi-slice"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, DRAFORGE_EAPI);
  EXPECT_TRUE(draforge::IsKubeAlreadyExists(again.error())) << again.error().reason;

  auto updated = client.Update(av, "resourceslices", "", Slice("abi-slice", rv));
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  // The same resourceVersion again is stale now.
  auto stale = client.Update(av, "resourceslices", "", Slice("abi-slice", rv));
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().http_status, 409);
  EXPECT_TRUE(draforge::IsKubeConflict(stale.error()));

  draforge::KubeRequestOptions selector;
  selector.field_selector = "spec.driver=abi.example.com";
  auto list = client.List(av, "resourceslices", "", selector);
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_THAT(*list, HasSubstr("\"name\":\"abi-slice\""));
  EXPECT_THAT(*list, HasSubstr("\"kind\":\"ResourceSlice\""));  // items carry their kind

  draforge::KubeRequestOptions precondition;
  precondition.precondition_resource_version = rv;  // stale
  auto refused = client.Delete(av, "resourceslices", "", "abi-slice", precondition);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(draforge::IsKubeConflict(refused.error())) << refused.error().message;

  ASSERT_TRUE(client.Delete(av, "resourceslices", "", "abi-slice").ok());
  auto gone = client.Get(av, "resourceslices", "", "abi-slice");
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(draforge::IsKubeNotFound(gone.error()));
  EXPECT_EQ(gone.error().reason, "NotFound");
}

TEST(KubeAbi, TheLiveSourceFillsAClusterAndSaysWhatChanged) {
  draforge::KubeClient client = AdminClient();
  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  std::mutex mu;
  std::set<std::string> changed;
  draforge::KubeSourceOptions options;
  options.kinds = "DeviceClass";
  options.custom_resources = "coordination.k8s.io/v1/leases";
  options.on_change = [&](std::string_view kind) {
    std::lock_guard<std::mutex> lock(mu);
    changed.insert(std::string(kind));
  };
  const std::string av = "resource.k8s.io/v1";
  (void)client.Delete(av, "deviceclasses", "", "abi-class");
  (void)client.Delete("coordination.k8s.io/v1", "leases", "default", "abi-lease");
  auto source = draforge::KubeSource::Start(client, *cluster, options);
  ASSERT_TRUE(source.ok()) << source.error().message;
  ASSERT_TRUE(source->WaitSynced(60000));
  EXPECT_FALSE(source->dra_version().empty());

  ASSERT_TRUE(client.Create(av, "deviceclasses", "", R"({"metadata":{"name":"abi-class"}})").ok());
  ASSERT_TRUE(client.Create("coordination.k8s.io/v1", "leases", "default",
                            R"({"metadata":{"name":"abi-lease"},"spec":{"holderIdentity":"x"}})")
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return cluster->snapshot()->GetJson("DeviceClass", "", "abi-class").ok(); }));
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard<std::mutex> lock(mu);
    return changed.count("DeviceClass") == 1 && changed.count("Lease") == 1;
  }));
  EXPECT_TRUE(source->LastError().ok());
  auto stats = source->StatsJson();
  ASSERT_TRUE(stats.ok());
  EXPECT_THAT(*stats, HasSubstr("\"lists\":"));

  // After Stop no callback runs, and the cluster keeps what it holds.
  source->Stop();
  {
    std::lock_guard<std::mutex> lock(mu);
    changed.clear();
  }
  ASSERT_TRUE(client.Delete(av, "deviceclasses", "", "abi-class").ok());
  (void)client.Delete("coordination.k8s.io/v1", "leases", "default", "abi-lease");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_TRUE(changed.empty());
  EXPECT_TRUE(cluster->snapshot()->GetJson("DeviceClass", "", "abi-class").ok());
}

TEST(KubeAbi, OneCandidateLeadsAndItsDeadlineGatesWrites) {
  draforge::KubeClient client = AdminClient();
  (void)client.Delete("coordination.k8s.io/v1", "leases", "default", "abi-election");
  std::atomic<int> started{0}, stopped{0};
  auto candidate = [&](const std::string& id) {
    draforge::LeaderElectionOptions o;
    o.lease_name = "abi-election";
    o.identity = id;
    o.lease_duration_ms = 4000;
    o.renew_deadline_ms = 3000;
    o.retry_period_ms = 500;
    o.on_started_leading = [&] { ++started; };
    o.on_stopped_leading = [&] { ++stopped; };
    return draforge::LeaderElector::Start(client, o);
  };
  auto a = candidate("abi-a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(WaitFor([&] { return a->is_leader(); }));
  auto b = candidate("abi-b");
  ASSERT_TRUE(b.ok()) << b.error().message;
  ASSERT_TRUE(WaitFor([&] { return b->ObservedLeader().value_or("") == "abi-a"; }));
  EXPECT_FALSE(b->is_leader());
  EXPECT_EQ(b->deadline(), INT64_MIN);
  EXPECT_GT(a->deadline(), draforge::KubeNow());

  // A write under the standby's deadline is never sent.
  draforge::KubeRequestOptions gated;
  gated.deadline_unix_ns = b->deadline();
  auto refused = client.Create("resource.k8s.io/v1", "deviceclasses", "", R"({"metadata":{"name":"abi-gated"}})",
                               gated);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, DRAFORGE_EUNAVAILABLE);
  EXPECT_TRUE(IsKubeNotFound(client.Get("resource.k8s.io/v1", "deviceclasses", "", "abi-gated").error()));

  // The leader stops and hands the Lease back: the standby takes it.
  a->Stop();
  EXPECT_FALSE(a->is_leader());
  ASSERT_TRUE(WaitFor([&] { return b->is_leader(); }));
  EXPECT_EQ(started.load(), 2);
  EXPECT_EQ(stopped.load(), 1);
  b->Stop();
}

TEST(KubeAbi, ListClusterStateReadsEveryKindOnce) {
  draforge::KubeClient client = AdminClient();
  auto state = client.ListClusterState();
  ASSERT_TRUE(state.ok()) << state.error().message;
  EXPECT_THAT(*state, HasSubstr("\"draVersion\":\"v1\""));
  EXPECT_THAT(*state, HasSubstr("\"objects\":["));
  EXPECT_THAT(*state, HasSubstr("\"kind\":\"Node\""));
}

}  // namespace
