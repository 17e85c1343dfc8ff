// The live-cluster ABI (kube.h) and the controller's plans (reconcile.h) as a caller sees them,
// without a cluster: options structs, the kubeconfig rules through the ABI, error codes of an
// unreachable server and of a server's error answers (a loopback HTTP server plays the API server),
// deadlines, and the plans. The real control plane's tests are tests/kube/kube_abi_integration.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "draforge/draforge.hpp"
#include "fixtures.h"

namespace {

using ::testing::HasSubstr;

using draforge_test::TempDir;

std::string Kubeconfig(const std::string& server) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: " + server +
         "\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n"
         "    namespace: team-a\n";
}

// A client of the API server at `url` through a kubeconfig written into `dir` (`timeout_ms` 0: the
// client's default).
draforge::Result<draforge::KubeClient> ClientOf(const TempDir& dir, const std::string& url, int64_t timeout_ms = 0) {
  draforge::KubeConfigOptions o;
  o.kubeconfig = dir.Write("kubeconfig", Kubeconfig(url));
  o.timeout_ms = timeout_ms;
  return draforge::KubeClient::Create(o);
}

TEST(KubeOptions, InitMacrosAndInitFunctionsAgree) {
  draforge_kube_config_options c1 = DRAFORGE_KUBE_CONFIG_OPTIONS_INIT, c2;
  std::memset(&c2, 0xff, sizeof(c2));
  ASSERT_EQ(draforge_kube_config_options_init(&c2, DRAFORGE_KUBE_CONFIG_OPTIONS_VERSION), DRAFORGE_OK);
  EXPECT_EQ(std::memcmp(&c1, &c2, sizeof(c1)), 0);
  draforge_kube_request_options r1 = DRAFORGE_KUBE_REQUEST_OPTIONS_INIT, r2;
  ASSERT_EQ(draforge_kube_request_options_init(&r2, DRAFORGE_KUBE_REQUEST_OPTIONS_VERSION), DRAFORGE_OK);
  EXPECT_EQ(r1.deadline_unix_ns, DRAFORGE_KUBE_NO_DEADLINE);
  EXPECT_EQ(r1.deadline_unix_ns, r2.deadline_unix_ns);
  EXPECT_EQ(r1.limit, r2.limit);
  EXPECT_EQ(r1.grace_period_seconds, r2.grace_period_seconds);
  draforge_kube_source_options s1 = DRAFORGE_KUBE_SOURCE_OPTIONS_INIT, s2;
  ASSERT_EQ(draforge_kube_source_options_init(&s2, DRAFORGE_KUBE_SOURCE_OPTIONS_VERSION), DRAFORGE_OK);
  EXPECT_EQ(s1.version, s2.version);
  EXPECT_EQ(s1.page_size, s2.page_size);
  draforge_kube_leader_election_options l1 = DRAFORGE_KUBE_LEADER_ELECTION_OPTIONS_INIT, l2;
  ASSERT_EQ(draforge_kube_leader_election_options_init(&l2, DRAFORGE_KUBE_LEADER_ELECTION_OPTIONS_VERSION),
            DRAFORGE_OK);
  EXPECT_EQ(l1.release_on_stop, 1);
  EXPECT_EQ(l1.release_on_stop, l2.release_on_stop);
  EXPECT_EQ(draforge_kube_config_options_init(&c2, 99), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_kube_request_options_init(nullptr, 1), DRAFORGE_EINVALID);
}

TEST(KubeOptions, UnknownVersionIsRejectedByName) {
  draforge_kube_config_options o = DRAFORGE_KUBE_CONFIG_OPTIONS_INIT;
  o.version = 42;
  draforge_kube_client* client = nullptr;
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_kube_client_create(&client, &o, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("draforge_kube_config_options"));
  draforge_error_destroy(e);
  EXPECT_EQ(client, nullptr);
}

TEST(KubeConfigResolve, ReportsTheSourceThatTheRulesPick) {
  TempDir dir;
  draforge::KubeConfigOptions o;
  o.home = dir.Path("home");
  auto none = draforge::ResolveKubeConfig(o);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_THAT(*none, HasSubstr("\"source\":\"none\""));

  dir.Write("home/.kube/config", Kubeconfig("https://home.example:6443"));
  auto home = draforge::ResolveKubeConfig(o);
  ASSERT_TRUE(home.ok()) << home.error().message;
  EXPECT_THAT(*home, HasSubstr("\"source\":\"home\""));
  EXPECT_THAT(*home, HasSubstr("\"server\":\"https://home.example:6443\""));
  EXPECT_THAT(*home, HasSubstr("\"namespace\":\"team-a\""));

  o.kubeconfig_env = dir.Write("env", Kubeconfig("https://env.example:6443"));
  auto env = draforge::ResolveKubeConfig(o);
  ASSERT_TRUE(env.ok()) << env.error().message;
  EXPECT_THAT(*env, HasSubstr("\"source\":\"KUBECONFIG\""));

  o.kubeconfig = dir.Path("missing");
  auto missing = draforge::ResolveKubeConfig(o);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, DRAFORGE_ENOTFOUND);
  EXPECT_THAT(missing.error().message, HasSubstr(dir.Path("missing")));
}

TEST(KubeClient, NothingConfiguredIsNotFoundSayingWhatWasTried) {
  TempDir dir;
  draforge::KubeConfigOptions o;
  o.home = dir.Path("nohome");
  auto client = draforge::KubeClient::Create(o);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().code, DRAFORGE_ENOTFOUND);
  EXPECT_THAT(client.error().message, HasSubstr("no cluster configured"));
  EXPECT_EQ(client.error().http_status, 0);
}

TEST(KubeClient, EnvironmentOptionsComeFromTheCallersProcess) {
  ::setenv("KUBECONFIG", "/a:/b", 1);
  ::setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  ::setenv("DRAFORGE_KUBE_CAPI_TEST", "seen", 1);
  const draforge::KubeConfigOptions o = draforge::KubeConfigOptionsFromEnvironment("/explicit", "ctx");
  ::unsetenv("KUBECONFIG");
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("DRAFORGE_KUBE_CAPI_TEST");
  EXPECT_EQ(o.kubeconfig, "/explicit");
  EXPECT_EQ(o.context, "ctx");
  EXPECT_EQ(o.kubeconfig_env, "/a:/b");
  EXPECT_EQ(o.service_host, "10.0.0.1");
  EXPECT_THAT(o.environment, ::testing::Contains("DRAFORGE_KUBE_CAPI_TEST=seen"));
}

// A loopback HTTP server that answers like an API server: a Status 409 Conflict for PUTs, a 404
// for a missing object, and counts what reaches it.
class FakeApiServer {
 public:
  FakeApiServer() {
    server_.Get("/version", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"major":"1","minor":"37","gitVersion":"v1.37.0"})", "application/json");
    });
    server_.Get(R"(/apis/resource.k8s.io/v1/resourceslices/(.*))", [this](const httplib::Request&,
                                                                           httplib::Response& res) {
      ++requests_;
      res.status = 404;
      res.set_content(R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"resourceslices \"x\" not found","reason":"NotFound","details":{"name":"x","group":"resource.k8s.io","kind":"resourceslices"},"code":404})",
                      "application/json");
    });
    // The resource.k8s.io group is forbidden to this user (RBAC), and every ResourceSlice exists.
    server_.Get("/apis/resource.k8s.io", [](const httplib::Request&, httplib::Response& res) {
      res.status = 403;
      res.set_content(R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden: User \"u\" cannot get path \"/apis/resource.k8s.io\"","reason":"Forbidden","code":403})",
                      "application/json");
    });
    server_.Post("/apis/resource.k8s.io/v1/resourceslices", [this](const httplib::Request&, httplib::Response& res) {
      ++requests_;
      res.status = 409;
      res.set_content(R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"resourceslices.resource.k8s.io \"x\" already exists","reason":"AlreadyExists","details":{"name":"x","group":"resource.k8s.io","kind":"resourceslices"},"code":409})",
                      "application/json");
    });
    server_.Get("/api/v1/nodes", [this](const httplib::Request&, httplib::Response& res) {
      ++requests_;
      res.set_content(R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]})",
                      "application/json");
    });
    server_.Put(R"(/apis/resource.k8s.io/v1/resourceslices/(.*))", [this](const httplib::Request&,
                                                                           httplib::Response& res) {
      ++requests_;
      res.status = 409;
      res.set_content(R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"the object has been modified","reason":"Conflict","code":409})",
                      "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // Until it listens, stop() is a no-op and the destructor's join would wait forever (a test
    // that sends nothing ends before the thread gets there).
    while (port_ > 0 && !server_.is_running()) std::this_thread::yield();
  }
  ~FakeApiServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_.load(); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> requests_{0};
};

TEST(KubeClient, ApiErrorsKeepTheirStatusCodeAndReason) {
  FakeApiServer api;
  TempDir dir;
  auto client = ClientOf(dir, api.url());
  ASSERT_TRUE(client.ok()) << client.error().message;
  EXPECT_EQ(client->server(), api.url());
  EXPECT_EQ(client->default_namespace(), "team-a");
  EXPECT_EQ(client->context(), "c");
  auto version = client->ServerVersionJson();
  ASSERT_TRUE(version.ok()) << version.error().message;
  EXPECT_THAT(*version, HasSubstr("v1.37.0"));

  auto get = client->Get("resource.k8s.io/v1", "resourceslices", "", "x");
  ASSERT_FALSE(get.ok());
  EXPECT_EQ(get.error().code, DRAFORGE_EAPI);
  EXPECT_EQ(get.error().http_status, 404);
  EXPECT_EQ(get.error().reason, "NotFound");
  EXPECT_TRUE(draforge::IsKubeNotFound(get.error()));

  auto put = client->Update("resource.k8s.io/v1", "resourceslices", "",
                            R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"x","resourceVersion":"1"}})");
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.error().http_status, 409);
  EXPECT_TRUE(draforge::IsKubeConflict(put.error()));
  EXPECT_FALSE(draforge::IsKubeAlreadyExists(put.error()));
}

// Every call that reaches the API server reports its answers the same way: DRAFORGE_EAPI with the
// HTTP status and reason (409 AlreadyExists from a create, a 403 Forbidden while the live source
// discovers the API group), never DRAFORGE_EINTERNAL.
TEST(KubeClient, ServerAnswersAreApiErrorsInEveryCall) {
  FakeApiServer api;
  TempDir dir;
  auto client = ClientOf(dir, api.url());
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto created = client->Create("resource.k8s.io/v1", "resourceslices", "",
                                R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"x"}})");
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().code, DRAFORGE_EAPI);
  EXPECT_EQ(created.error().http_status, 409);
  EXPECT_TRUE(draforge::IsKubeAlreadyExists(created.error()));
  EXPECT_FALSE(draforge::IsKubeConflict(created.error()));

  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  auto source = draforge::KubeSource::Start(*client, *cluster);
  ASSERT_FALSE(source.ok());
  EXPECT_EQ(source.error().code, DRAFORGE_EAPI) << source.error().message;
  EXPECT_EQ(source.error().http_status, 403);
  EXPECT_EQ(source.error().reason, "Forbidden");
  EXPECT_THAT(source.error().message, HasSubstr(api.url()));  // which server refused
}

TEST(KubeClient, CErrorAccessorsAreZeroForOtherErrors) {
  draforge_error* e = nullptr;
  draforge_kube_client* client = nullptr;
  EXPECT_EQ(draforge_kube_client_create(&client, nullptr, &e), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_kube_error_status_code(e), 0);
  EXPECT_STREQ(draforge_kube_error_reason(e), "");
  draforge_error_destroy(e);
  EXPECT_EQ(draforge_kube_error_status_code(nullptr), 0);
  EXPECT_STREQ(draforge_kube_error_reason(nullptr), "");
}

// A write whose deadline (a leader's lease) has passed is never sent; nor is a list (the deadline
// covers every REST call).
TEST(KubeClient, APassedDeadlineSendsNothing) {
  FakeApiServer api;
  TempDir dir;
  auto client = ClientOf(dir, api.url());
  ASSERT_TRUE(client.ok()) << client.error().message;
  draforge::KubeRequestOptions late;
  late.deadline_unix_ns = draforge::KubeNow() - 1;
  auto put = client->Update("resource.k8s.io/v1", "resourceslices", "",
                            R"({"metadata":{"name":"x","resourceVersion":"1"}})", late);
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.error().code, DRAFORGE_EUNAVAILABLE);
  EXPECT_EQ(api.requests(), 0);
  late.deadline_unix_ns = INT64_MIN;  // what a replica that does not lead passes
  EXPECT_EQ(client->Delete("resource.k8s.io/v1", "resourceslices", "", "x", late).error().code,
            DRAFORGE_EUNAVAILABLE);
  EXPECT_EQ(api.requests(), 0);
  auto list = client->List("v1", "nodes", "", late);
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().code, DRAFORGE_EUNAVAILABLE);
  EXPECT_THAT(list.error().message, HasSubstr("deadline has passed"));
  EXPECT_EQ(api.requests(), 0);
  auto listed = client->List("v1", "nodes");  // no deadline: sent
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  EXPECT_THAT(*listed, HasSubstr(R"("kind":"NodeList")"));
  EXPECT_EQ(api.requests(), 1);
}

// An API server that accepts a list and does not answer until the test releases it.
class HangingApiServer {
 public:
  HangingApiServer() {
    server_.Get("/api/v1/nodes", [this](const httplib::Request&, httplib::Response& res) {
      std::unique_lock<std::mutex> lock(mu_);
      ++requests_;
      released_cv_.wait(lock, [this] { return released_; });
      res.set_content(R"({"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[]})", "application/json");
    });
    server_.Get("/version", [this](const httplib::Request&, httplib::Response& res) {
      std::unique_lock<std::mutex> lock(mu_);
      ++requests_;
      released_cv_.wait(lock, [this] { return released_; });
      res.set_content(R"({"major":"1","minor":"37"})", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // Until it listens, stop() is a no-op and the destructor's join would wait forever (a test
    // that sends nothing ends before the thread gets there).
    while (port_ > 0 && !server_.is_running()) std::this_thread::yield();
  }
  ~HangingApiServer() {
    Release();
    server_.stop();
    thread_.join();
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    released_cv_.notify_all();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable released_cv_;
  bool released_ = false;
  int requests_ = 0;
};

// draforge_kube_list ends at its deadline when the server hangs. The client's own timeout is an
// hour and the server answers only after the call returned: without the deadline the call would
// not return before the suite's timeout.
TEST(KubeClient, AListEndsAtItsDeadlineWhenTheServerHangs) {
  HangingApiServer api;
  TempDir dir;
  auto client = ClientOf(dir, api.url(), /*timeout_ms=*/3600 * 1000);
  ASSERT_TRUE(client.ok()) << client.error().message;
  draforge::KubeRequestOptions soon;
  soon.deadline_unix_ns = draforge::KubeNow() + 200 * 1000 * 1000;  // 200 ms
  auto list = client->List("v1", "nodes", "", soon);
  api.Release();
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().code, DRAFORGE_EUNAVAILABLE) << list.error().message;
  EXPECT_THAT(list.error().message, HasSubstr("/api/v1/nodes"));
  EXPECT_EQ(api.requests(), 1);  // sent once, not retried past the deadline
}

// The version probe too: bounded by its deadline, not by the client's hour-long timeout; without
// one it waits for the answer.
TEST(KubeClient, AVersionProbeEndsAtItsDeadlineWhenTheServerHangs) {
  HangingApiServer api;
  TempDir dir;
  auto client = ClientOf(dir, api.url(), /*timeout_ms=*/3600 * 1000);
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto probe = client->ServerVersionJson(draforge::KubeNow() + 200 * 1000 * 1000);  // 200 ms
  ASSERT_FALSE(probe.ok());
  EXPECT_EQ(probe.error().code, DRAFORGE_EUNAVAILABLE) << probe.error().message;
  EXPECT_EQ(api.requests(), 1);
  auto late = client->ServerVersionJson(draforge::KubeNow() - 1);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(api.requests(), 1) << "a passed deadline sends nothing";
  api.Release();
  auto answered = client->ServerVersionJson(DRAFORGE_KUBE_NO_DEADLINE);
  ASSERT_TRUE(answered.ok()) << answered.error().message;
  EXPECT_THAT(*answered, HasSubstr(R"("minor":"37")"));
}

TEST(KubeClient, AnUnreachableServerIsUnavailable) {
  TempDir dir;
  // A port nothing listens on: bind one and close it.
  int port = 0;
  {
    httplib::Server s;
    port = s.bind_to_any_port("127.0.0.1");
  }
  auto client = ClientOf(dir, "http://127.0.0.1:" + std::to_string(port), /*timeout_ms=*/2000);
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto get = client->Get("v1", "nodes", "", "n");
  ASSERT_FALSE(get.ok());
  EXPECT_EQ(get.error().code, DRAFORGE_EUNAVAILABLE);
  EXPECT_EQ(get.error().http_status, 0);
}

TEST(KubeClient, BadResourceNamesAreInvalid) {
  FakeApiServer api;
  TempDir dir;
  auto client = ClientOf(dir, api.url());
  ASSERT_TRUE(client.ok());
  EXPECT_EQ(client->Get("a/b/c", "x", "", "n").error().code, DRAFORGE_EINVALID);
  EXPECT_EQ(client->Get("v1", "", "", "n").error().code, DRAFORGE_EINVALID);
  EXPECT_EQ(client->Create("v1", "pods", "ns", "not json").error().code, DRAFORGE_EINVALID);
}

constexpr char kPool[] = R"({"apiVersion":"sim.draforge.io/v1alpha1","kind":"SimulatedDevicePool",
  "metadata":{"name":"cpus","uid":"u-1","resourceVersion":"7","generation":1},
  "spec":{"profile":"cpu-individual","nodes":{"names":["node-1"]},"devicesPerNode":4}})";

TEST(ReconcilePools, PlansCreatesAndAStatusForANewPool) {
  auto plan = draforge::ReconcilePools(std::string("{\"items\":[") + kPool + "]}", "{\"items\":[]}", 0,
                                       "2026-01-01T00:00:00Z");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_THAT(*plan, HasSubstr("\"name\":\"cpus\""));
  EXPECT_THAT(*plan, HasSubstr("\"valid\":true"));
  EXPECT_THAT(*plan, HasSubstr("\"type\":\"create\""));
  EXPECT_THAT(*plan, HasSubstr("\"kind\":\"ResourceSlice\""));
  // The status body is the pool as read (its resourceVersion: a conditional write) with Ready.
  EXPECT_THAT(*plan, HasSubstr("\"resourceVersion\":\"7\""));
  EXPECT_THAT(*plan, HasSubstr("\"lastTransitionTime\":\"2026-01-01T00:00:00Z\""));
  EXPECT_THAT(*plan, HasSubstr("\"orphans\":[]"));
  EXPECT_THAT(*plan, HasSubstr("\"invalid\":0"));
}

TEST(ReconcilePools, APoolThatDoesNotExpandHasNoActionsAndSaysWhy) {
  const std::string bad = R"({"items":[{"apiVersion":"sim.draforge.io/v1alpha1","kind":"SimulatedDevicePool",
    "metadata":{"name":"bad","resourceVersion":"3"},"spec":{"profile":"no-such-profile","nodes":{"names":["n"]}}}]})";
  auto plan = draforge::ReconcilePools(bad, "[]", 0, "2026-01-01T00:00:00Z");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_THAT(*plan, HasSubstr("\"valid\":false"));
  EXPECT_THAT(*plan, HasSubstr("\"error\":"));
  EXPECT_THAT(*plan, HasSubstr("\"actions\":[]"));
  EXPECT_THAT(*plan, HasSubstr("\"invalid\":1"));
}

TEST(ReconcilePools, MalformedListsAreInvalid) {
  EXPECT_EQ(draforge::ReconcilePools("{", "[]", 0, "").error().code, DRAFORGE_EINVALID);
  EXPECT_EQ(draforge::ReconcilePools("[]", "{\"kind\":\"x\"}", 0, "").error().code, DRAFORGE_EINVALID);
}

constexpr char kWorld[] = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "cpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: cpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: cpu-0
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
)";

constexpr char kClaim[] = R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
  "metadata":{"name":"c","namespace":"default","resourceVersion":"11","uid":"c-1"},
  "spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"cpu"}}]}}})";

TEST(ReconcileClaimAllocation, AllocatesAPendingClaimOnTheFirstNodeWhereItFits) {
  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  ASSERT_TRUE(cluster->Apply(kWorld).ok());
  ASSERT_TRUE(cluster->Apply(kClaim).ok());
  auto snapshot = cluster->snapshot();
  ASSERT_TRUE(snapshot.ok());
  auto plan = draforge::ReconcileClaimAllocation(*snapshot, kClaim);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_THAT(*plan, HasSubstr("\"allocate\":true"));
  EXPECT_THAT(*plan, HasSubstr("\"node\":\"node-1\""));
  EXPECT_THAT(*plan, HasSubstr("\"device\":\"cpu-0\""));
  EXPECT_THAT(*plan, HasSubstr("\"resourceVersion\":\"11\""));
  // No binding conditions on these devices: nothing to write.
  auto binding = draforge::ReconcileBindingConditions(*snapshot, kClaim, "2026-01-01T00:00:00Z");
  ASSERT_TRUE(binding.ok()) << binding.error().message;
  EXPECT_EQ(*binding, "{\"write\":false}");
}

TEST(ReconcileClaimAllocation, AClaimAPodUsesIsTheSchedulers) {
  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  ASSERT_TRUE(cluster->Apply(kWorld).ok());
  ASSERT_TRUE(cluster->Apply(kClaim).ok());
  ASSERT_TRUE(cluster->Apply(R"(
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: i}]
  resourceClaims: [{name: r, resourceClaimName: c}]
)").ok());
  auto plan = draforge::ReconcileClaimAllocation(cluster->snapshot().value(), kClaim);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(*plan, "{\"allocate\":false}");
}

TEST(ReconcileClaimAllocation, AClaimTheSnapshotDoesNotHoldIsNotFound) {
  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  auto plan = draforge::ReconcileClaimAllocation(cluster->snapshot().value(), kClaim);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, DRAFORGE_ENOTFOUND);
  EXPECT_EQ(draforge::ReconcileClaimAllocation(cluster->snapshot().value(), "[]").error().code, DRAFORGE_EINVALID);
}

}  // namespace
