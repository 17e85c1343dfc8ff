// lib/kube against a real kube-apiserver (tests/cluster/up), run by tests/kube/run.
//
// Environment (from tests/cluster/up's env file): KUBECONFIG, DRAFORGE_CLUSTER_DIR,
// KUBE_RESTRICTED_KUBECONFIG, KUBE_ADMIN_TOKEN_FILE, KUBE_SCHEDULER, KUBE_CONTROLLER_MANAGER; and
// DRAFORGE_CORPUS, DRAFORGE_SOURCE_ROOT. Optional DRAFORGE_KUBE_RECORD_DIR: where the scheduler
// parity test writes what kube-scheduler allocated.
#include <curl/curl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "alloc/allocator.h"
#include "api/codec.h"
#include "api/resource_quota.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api_status.h"
#include "kube/client.h"
#include "kube/cluster_state.h"
#include "kube/config.h"
#include "kube/leader_election.h"
#include "kube/reflector.h"
#include "kube/resource.h"
#include "store/cluster.h"

namespace draforge::kube {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::unique_ptr<Client> MakeClient(const std::string& kubeconfig) {
  auto config = LoadKubeconfigFile(kubeconfig);
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return nullptr;
  auto client = Client::Create(*config);
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? std::move(client).value() : nullptr;
}

std::unique_ptr<Client> Admin() { return MakeClient(Env("KUBECONFIG")); }

rapidjson::Document Json(std::string_view text) {
  auto doc = api::ParseJson(text);
  EXPECT_TRUE(doc.ok()) << doc.status() << "\n" << text;
  return doc.ok() ? std::move(doc).value() : rapidjson::Document();
}

std::string Str(const rapidjson::Value& v, std::initializer_list<const char*> path) {
  const rapidjson::Value* cur = &v;
  for (const char* p : path) {
    if (!cur->IsObject()) return "";
    auto it = cur->FindMember(p);
    if (it == cur->MemberEnd()) return "";
    cur = &it->value;
  }
  return cur->IsString() ? cur->GetString() : "";
}

std::string Rv(const rapidjson::Value& v) { return Str(v, {"metadata", "resourceVersion"}); }

template <typename Pred>
bool WaitUntil(Pred pred, absl::Duration timeout = absl::Seconds(30)) {
  absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (pred()) return true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return pred();
}

void EnsureNamespace(Client& c, const std::string& name) {
  auto created = c.Create(NamespaceResource(), "",
                          Json(absl::StrCat(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")", name,
                                            R"("}})")));
  ASSERT_TRUE(created.ok() || IsApiAlreadyExists(created.status())) << created.status();
}

int Script(const std::string& args) {
  std::string cmd = absl::StrCat(Env("DRAFORGE_SOURCE_ROOT"), "/tests/cluster/", args, " --dir ",
                                 Env("DRAFORGE_CLUSTER_DIR"), " >/dev/null");
  return std::system(cmd.c_str());
}

const Resource kClaims = *ResourceFor(api::Kind::kResourceClaim);
const Resource kClasses = *ResourceFor(api::Kind::kDeviceClass);
const Resource kSlices = *ResourceFor(api::Kind::kResourceSlice);
const Resource kTemplates = *ResourceFor(api::Kind::kResourceClaimTemplate);
const Resource kPods = *ResourceFor(api::Kind::kPod);

std::string ClaimJson(const std::string& ns, const std::string& name, const std::string& cls = "gpu.example.com") {
  return absl::StrCat(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":")", name,
                      R"(","namespace":")", ns,
                      R"("},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":")", cls,
                      R"("}}]}}})");
}

// ---------------------------------------------------------------------------------------------
// Discovery and configuration.

TEST(Discovery, ServesResourceV1AndTheOlderVersions) {
  auto c = Admin();
  ASSERT_TRUE(c);
  auto version = c->ServerVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, "v1.37.2");
  auto group = c->DiscoverGroup("resource.k8s.io");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->preferred, "v1");
  EXPECT_THAT(group->versions, ::testing::IsSupersetOf({"v1", "v1beta2", "v1beta1", "v1alpha3"}));
  EXPECT_EQ(*c->PreferredVersion("resource.k8s.io", {"v2", "v1", "v1beta2"}), "v1");
  auto none = c->PreferredVersion("resource.k8s.io", {"v9"});
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(none.status().message(), HasSubstr("it serves: v1"));
  EXPECT_EQ(c->DiscoverGroup("nothing.example.com").status().code(), absl::StatusCode::kNotFound);
}

TEST(Config, BearerTokenFileAndExecPluginAuthenticate) {
  auto base = LoadKubeconfigFile(Env("KUBECONFIG"));
  ASSERT_TRUE(base.ok());
  // Token file: no client certificate.
  RestConfig token = *base;
  token.client_certificate_pem.clear();
  token.client_key_pem.clear();
  token.bearer_token_file = Env("KUBE_ADMIN_TOKEN_FILE");
  auto tc = Client::Create(token);
  ASSERT_TRUE(tc.ok());
  auto ns = (*tc)->Get(NamespaceResource(), "", "default");
  EXPECT_TRUE(ns.ok()) << ns.status();

  // Exec plugin handing out the same token.
  fs::path dir = fs::temp_directory_path() / absl::StrCat("kube-exec-", getpid());
  fs::create_directories(dir);
  fs::path plugin = dir / "cred.sh";
  std::ofstream(plugin) << "#!/bin/sh\nprintf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                           "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"%s\"}}' \"$(cat \"$TOKEN_FILE\")\"\n";
  fs::permissions(plugin, fs::perms::owner_all);
  RestConfig exec = token;
  exec.bearer_token_file.clear();
  exec.exec = ExecConfig{.api_version = "client.authentication.k8s.io/v1", .command = plugin.string()};
  exec.exec->env = {{"TOKEN_FILE", Env("KUBE_ADMIN_TOKEN_FILE")}};
  exec.exec_environment = {"PATH=/usr/bin:/bin"};
  auto ec = Client::Create(exec);
  ASSERT_TRUE(ec.ok());
  EXPECT_TRUE((*ec)->Get(NamespaceResource(), "", "default").ok());

  // A wrong token is 401 with the server's Status.
  RestConfig bad = token;
  bad.bearer_token_file.clear();
  bad.bearer_token = "not-a-token";
  auto bc = Client::Create(bad);
  auto denied = (*bc)->Get(NamespaceResource(), "", "default");
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kUnauthenticated);
  fs::remove_all(dir);
}

TEST(Config, InlineDataAndTlsServerName) {
  auto base = LoadKubeconfigFile(Env("KUBECONFIG"));
  ASSERT_TRUE(base.ok());
  // The same identity with every credential inline (*-data), as cloud kubeconfigs carry them.
  std::string yaml = absl::StrCat(
      "apiVersion: v1\nkind: Config\ncurrent-context: inline\nclusters:\n- name: c\n  cluster:\n    server: ",
      base->server, "\n    certificate-authority-data: ", absl::Base64Escape(base->ca_pem),
      "\nusers:\n- name: u\n  user:\n    client-certificate-data: ", absl::Base64Escape(base->client_certificate_pem),
      "\n    client-key-data: ", absl::Base64Escape(base->client_key_pem),
      "\ncontexts:\n- name: inline\n  context: {cluster: c, user: u, namespace: kube-system}\n");
  auto inline_config = ParseKubeconfig(yaml, "/nonexistent");
  ASSERT_TRUE(inline_config.ok()) << inline_config.status();
  EXPECT_EQ(inline_config->default_namespace, "kube-system");
  auto ic = Client::Create(*inline_config);
  EXPECT_TRUE((*ic)->Get(NamespaceResource(), "", "default").ok());

  // tls-server-name: the serving certificate is for 127.0.0.1 and localhost only.
  RestConfig named = *base;
  named.tls_server_name = "localhost";
  auto nc = Client::Create(named);
  auto ok = (*nc)->Get(NamespaceResource(), "", "default");
  EXPECT_TRUE(ok.ok()) << ok.status();
  named.tls_server_name = "kubernetes.example.com";
  auto wc = Client::Create(named);
  auto wrong = (*wc)->Get(NamespaceResource(), "", "default");
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kUnauthenticated) << wrong.status();
}

TEST(Config, WrongCaIsATlsError) {
  auto base = LoadKubeconfigFile(Env("KUBECONFIG"));
  ASSERT_TRUE(base.ok());
  RestConfig wrong = *base;
  wrong.ca_pem = wrong.client_certificate_pem;  // a certificate that did not sign the server's
  auto c = Client::Create(wrong);
  auto r = (*c)->Get(NamespaceResource(), "", "default");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnauthenticated) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("TLS"));
}

// ---------------------------------------------------------------------------------------------
// REST verbs.

class Rest : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = Admin();
    ASSERT_TRUE(c_);
    EnsureNamespace(*c_, ns_);
  }
  std::unique_ptr<Client> c_;
  std::string ns_ = "kube-rest";
};

TEST_F(Rest, CreateGetUpdatePatchApplyStatusDelete) {
  auto created = c_->Create(kClaims, ns_, Json(ClaimJson(ns_, "crud")));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_FALSE(Rv(*created).empty());
  auto got = c_->Get(kClaims, ns_, "crud");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(Rv(*got), Rv(*created));

  // Update (PUT) adds a label.
  rapidjson::Document obj;
  obj.CopyFrom(*got, obj.GetAllocator());
  rapidjson::Value labels(rapidjson::kObjectType);
  labels.AddMember("step", "update", obj.GetAllocator());
  obj["metadata"].AddMember("labels", labels, obj.GetAllocator());
  auto updated = c_->Update(kClaims, ns_, obj);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(Str(*updated, {"metadata", "labels", "step"}), "update");

  auto merged = c_->Patch(kClaims, ns_, "crud", PatchType::kJsonMerge, R"({"metadata":{"labels":{"merge":"yes"}}})");
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(Str(*merged, {"metadata", "labels", "merge"}), "yes");
  EXPECT_EQ(Str(*merged, {"metadata", "labels", "step"}), "update");

  auto strategic = c_->Patch(kClaims, ns_, "crud", PatchType::kStrategicMerge,
                             R"({"metadata":{"annotations":{"s":"1"}}})");
  ASSERT_TRUE(strategic.ok()) << strategic.status();
  EXPECT_EQ(Str(*strategic, {"metadata", "annotations", "s"}), "1");

  auto json_patch = c_->Patch(kClaims, ns_, "crud", PatchType::kJson,
                              R"([{"op":"replace","path":"/metadata/labels/merge","value":"json"}])");
  ASSERT_TRUE(json_patch.ok()) << json_patch.status();
  EXPECT_EQ(Str(*json_patch, {"metadata", "labels", "merge"}), "json");

  auto no_manager = c_->Patch(kClaims, ns_, "crud", PatchType::kApply, "{}");
  EXPECT_EQ(no_manager.status().code(), absl::StatusCode::kInvalidArgument);
  auto applied = c_->Patch(kClaims, ns_, "crud", PatchType::kApply,
                           R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
                               "metadata":{"name":"crud","labels":{"applied":"by-draforge"}}})",
                           {.field_manager = "draforge-test"});
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(Str(*applied, {"metadata", "labels", "applied"}), "by-draforge");
  bool has_manager = false;
  for (const auto& mf : (*applied)["metadata"]["managedFields"].GetArray()) {
    has_manager |= Str(mf, {"manager"}) == "draforge-test" && Str(mf, {"operation"}) == "Apply";
  }
  EXPECT_TRUE(has_manager);

  // The status subresource: an allocation written by a "scheduler".
  rapidjson::Document with_status;
  with_status.CopyFrom(*applied, with_status.GetAllocator());
  with_status.AddMember("status", Json(R"({"allocation":{"devices":{"results":[{"request":"gpu",
      "driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}}})").Move(), with_status.GetAllocator());
  auto status = c_->Update(kClaims, ns_, with_status, {.subresource = "status"});
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(Str((*status)["status"]["allocation"]["devices"]["results"][0], {"device"}), "gpu-0");
  // A PUT of the main resource cannot change the status (the API server resets it).
  rapidjson::Document main;
  main.CopyFrom(*status, main.GetAllocator());
  main["status"]["allocation"]["devices"]["results"][0]["device"] = "gpu-9";
  auto main_put = c_->Update(kClaims, ns_, main);
  ASSERT_TRUE(main_put.ok()) << main_put.status();
  EXPECT_EQ(Str((*main_put)["status"]["allocation"]["devices"]["results"][0], {"device"}), "gpu-0");

  auto dry = c_->Delete(kClaims, ns_, "crud", {.precondition_resource_version = "1"});
  EXPECT_TRUE(IsApiConflict(dry.status())) << dry.status();
  auto deleted = c_->Delete(kClaims, ns_, "crud");
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  auto gone = c_->Get(kClaims, ns_, "crud");
  EXPECT_TRUE(IsApiNotFound(gone.status())) << gone.status();
  EXPECT_THAT(gone.status().message(), HasSubstr("get resourceclaims.resource.k8s.io kube-rest/crud: 404 NotFound"));
}

TEST_F(Rest, ListFollowsContinueTokens) {
  for (int i = 0; i < 7; ++i) {
    auto r = c_->Create(kClaims, ns_, Json(ClaimJson(ns_, absl::StrCat("page-", i))));
    ASSERT_TRUE(r.ok() || IsApiAlreadyExists(r.status())) << r.status();
  }
  auto list = c_->List(kClaims, ns_, {.label_selector = "", .limit = 2});
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_GE(list->pages, 4);
  std::set<std::string> names;
  for (const auto& item : list->list["items"].GetArray()) {
    names.insert(Str(item, {"metadata", "name"}));
    EXPECT_EQ(Str(item, {"kind"}), "ResourceClaim");
    EXPECT_EQ(Str(item, {"apiVersion"}), "resource.k8s.io/v1");
  }
  for (int i = 0; i < 7; ++i) EXPECT_TRUE(names.count(absl::StrCat("page-", i))) << i;
  auto unpaged = c_->List(kClaims, ns_, {.limit = 0});
  ASSERT_TRUE(unpaged.ok());
  EXPECT_EQ(unpaged->pages, 1);
  EXPECT_EQ(unpaged->list["items"].Size(), list->list["items"].Size());
  for (int i = 0; i < 7; ++i) (void)c_->Delete(kClaims, ns_, absl::StrCat("page-", i));
}

TEST_F(Rest, ErrorsCarryTheApiStatusWithFieldCauses) {
  auto invalid = c_->Create(kClaims, ns_, Json(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":"Bad_Name"},"spec":{"devices":{"requests":[{"name":"","exactly":{"deviceClassName":"x"}}]}}})"));
  ASSERT_FALSE(invalid.ok());
  EXPECT_TRUE(IsApiInvalid(invalid.status()));
  auto status = GetApiStatus(invalid.status());
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 422);
  EXPECT_EQ(status->reason, "Invalid");
  std::set<std::string> fields;
  for (const auto& cause : status->causes) fields.insert(cause.field);
  EXPECT_TRUE(fields.count("metadata.name")) << invalid.status();
  EXPECT_TRUE(fields.count("spec.devices.requests[0].name")) << invalid.status();
  EXPECT_THAT(invalid.status().message(), HasSubstr("create resourceclaims.resource.k8s.io kube-rest/Bad_Name"));

  ASSERT_TRUE(c_->Create(kClaims, ns_, Json(ClaimJson(ns_, "twice"))).ok());
  auto again = c_->Create(kClaims, ns_, Json(ClaimJson(ns_, "twice")));
  EXPECT_TRUE(IsApiAlreadyExists(again.status())) << again.status();
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  (void)c_->Delete(kClaims, ns_, "twice");
}

TEST_F(Rest, ConflictingUpdateGets409AndTheRetryPathWins) {
  ASSERT_TRUE(c_->Create(kClaims, ns_, Json(ClaimJson(ns_, "conflict"))).ok());
  auto a = c_->Get(kClaims, ns_, "conflict");
  auto b = c_->Get(kClaims, ns_, "conflict");
  ASSERT_TRUE(a.ok() && b.ok());
  auto label = [](rapidjson::Document& d, const char* value) {
    rapidjson::Value labels(rapidjson::kObjectType);
    labels.AddMember("writer", rapidjson::StringRef(value), d.GetAllocator());
    d["metadata"].RemoveMember("labels");
    d["metadata"].AddMember("labels", labels, d.GetAllocator());
  };
  label(*a, "a");
  ASSERT_TRUE(c_->Update(kClaims, ns_, *a).ok());
  label(*b, "b");
  auto stale = c_->Update(kClaims, ns_, *b);
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(IsApiConflict(stale.status())) << stale.status();
  EXPECT_EQ(GetApiStatus(stale.status())->code, 409);
  EXPECT_THAT(stale.status().message(), HasSubstr("the object has been modified"));

  // The caller's retry path: re-read, re-apply the change, write again.
  int attempts = 0;
  absl::Status result;
  do {
    ++attempts;
    auto fresh = c_->Get(kClaims, ns_, "conflict");
    ASSERT_TRUE(fresh.ok());
    label(*fresh, "b");
    result = c_->Update(kClaims, ns_, *fresh).status();
  } while (IsApiConflict(result) && attempts < 5);
  EXPECT_TRUE(result.ok()) << result;
  EXPECT_EQ(Str(*c_->Get(kClaims, ns_, "conflict"), {"metadata", "labels", "writer"}), "b");
  (void)c_->Delete(kClaims, ns_, "conflict");
}

TEST_F(Rest, RbacDenialNamesVerbAndResource) {
  auto restricted = MakeClient(Env("KUBE_RESTRICTED_KUBECONFIG"));
  ASSERT_TRUE(restricted);
  const std::string ns = "kube-rbac";
  EnsureNamespace(*c_, ns);
  auto list = restricted->List(kClaims, ns);
  ASSERT_FALSE(list.ok());
  EXPECT_TRUE(IsApiForbidden(list.status()));
  EXPECT_EQ(list.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(list.status().message(), HasSubstr("cannot list resource \"resourceclaims\" in API group \"resource.k8s.io\""));
  EXPECT_THAT(list.status().message(), HasSubstr("User \"draforge-restricted\""));

  // Grant read access in the namespace only.
  (void)c_->Delete(Resource{"rbac.authorization.k8s.io", "v1", "roles", "Role", true}, ns, "claim-reader");
  (void)c_->Delete(Resource{"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true}, ns, "claim-reader");
  ASSERT_TRUE(c_->Create(Resource{"rbac.authorization.k8s.io", "v1", "roles", "Role", true}, ns,
                         Json(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"claim-reader"},
                       "rules":[{"apiGroups":["resource.k8s.io"],"resources":["resourceclaims"],"verbs":["get","list","watch"]}]})"))
                  .ok());
  ASSERT_TRUE(c_->Create(Resource{"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true}, ns,
                         Json(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"claim-reader"},
                       "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"claim-reader"},
                       "subjects":[{"kind":"User","name":"draforge-restricted","apiGroup":"rbac.authorization.k8s.io"}]})"))
                  .ok());
  // The authorizer sees the new binding through its informer: a wait bounded for a loaded machine.
  EXPECT_TRUE(WaitUntil([&] { return restricted->List(kClaims, ns).ok(); }, absl::Seconds(60)));
  auto create = restricted->Create(kClaims, ns, Json(ClaimJson(ns, "not-allowed")));
  EXPECT_TRUE(IsApiForbidden(create.status()));
  EXPECT_THAT(create.status().message(), HasSubstr("cannot create resource \"resourceclaims\""));
  auto other_ns = restricted->List(kClaims, "default");
  EXPECT_TRUE(IsApiForbidden(other_ns.status()));
  EXPECT_THAT(other_ns.status().message(), HasSubstr("in the namespace \"default\""));
}

TEST_F(Rest, WatchStreamsEventsWithBookmarksAndReportsGoneAfterCompaction) {
  auto start = c_->List(kClaims, ns_);
  ASSERT_TRUE(start.ok());
  std::thread writer([&] {
    absl::SleepFor(absl::Milliseconds(300));
    (void)c_->Create(kClaims, ns_, Json(ClaimJson(ns_, "watched")));
    (void)c_->Patch(kClaims, ns_, "watched", PatchType::kJsonMerge, R"({"metadata":{"labels":{"x":"1"}}})");
    (void)c_->Delete(kClaims, ns_, "watched");
  });
  std::vector<std::string> seen;
  std::string last_rv;
  absl::Status s = c_->Watch(kClaims, ns_, {.resource_version = start->resource_version, .timeout_seconds = 20},
                             [&](WatchEvent& e) {
                               if (Str(e.object, {"metadata", "name"}) == "watched") seen.push_back(e.type);
                               last_rv = Rv(e.object);
                               return seen.size() < 3;
                             });
  writer.join();
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_THAT(seen, ::testing::ElementsAre("ADDED", "MODIFIED", "DELETED"));

  // After an etcd compaction past it, an old resourceVersion is gone.
  ASSERT_EQ(Script("compact"), 0);
  absl::Status old = c_->Watch(kClaims, ns_, {.resource_version = start->resource_version, .timeout_seconds = 5},
                               [](WatchEvent&) { return true; });
  // The watch cache may still serve it; in that case restart the API server to drop the cache.
  if (old.ok()) {
    ASSERT_EQ(Script("restart apiserver"), 0);
    old = c_->Watch(kClaims, ns_, {.resource_version = start->resource_version, .timeout_seconds = 5},
                    [](WatchEvent&) { return true; });
  }
  EXPECT_TRUE(IsApiGone(old)) << old;
  EXPECT_EQ(old.code(), absl::StatusCode::kOutOfRange);

  // A stop flag ends a quiet watch promptly.
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    absl::SleepFor(absl::Milliseconds(300));
    stop = true;
  });
  absl::Status stopped = c_->Watch(kClaims, ns_, {.timeout_seconds = 60}, [](WatchEvent&) { return true; }, &stop);
  stopper.join();
  EXPECT_TRUE(absl::IsCancelled(stopped)) << stopped;
}

// ---------------------------------------------------------------------------------------------
// The reflector.

// The store's objects of `kind` against a fresh list: same names and resourceVersions, nothing
// more. Returns "" when equal, else what differs.
std::string Diff(Client& c, const store::Cluster& cluster, api::Kind kind, const std::string& ns) {
  auto list = c.List(*ResourceFor(kind), ns);
  if (!list.ok()) return std::string(list.status().message());
  std::map<std::string, std::string> want, have;
  for (const auto& item : list->list["items"].GetArray()) want[Str(item, {"metadata", "name"})] = Rv(item);
  auto snap = cluster.snapshot();
  for (const api::Object* o : snap->List(kind, ns)) have[o->metadata().name.value_or("")] = o->metadata().resource_version.value_or("");
  if (want == have) return "";
  std::string out = "server:";
  for (const auto& [k, v] : want) absl::StrAppend(&out, " ", k, "@", v);
  absl::StrAppend(&out, "; store:");
  for (const auto& [k, v] : have) absl::StrAppend(&out, " ", k, "@", v);
  return out;
}

TEST(Reflector, SyncsEveryKindAndFollowsChanges) {
  auto c = Admin();
  ASSERT_TRUE(c);
  const std::string ns = "kube-reflector";
  EnsureNamespace(*c, ns);
  auto before = c->Create(kClaims, ns, Json(ClaimJson(ns, "before")));
  ASSERT_TRUE(before.ok() || IsApiAlreadyExists(before.status())) << before.status();
  store::Cluster cluster;
  std::atomic<int> changes{0};
  Reflector reflector(*c, cluster, {.on_change = [&](api::Kind) { ++changes; }});
  EXPECT_FALSE(reflector.HasSynced());
  ASSERT_TRUE(reflector.Start().ok());
  EXPECT_EQ(reflector.Start().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(reflector.WaitForSync(absl::Seconds(30))) << reflector.LastError();
  EXPECT_EQ(reflector.resource_version_in_use(), "v1");
  auto snap = cluster.snapshot();
  EXPECT_EQ(snap->Nodes().size(), 3u);  // the fake nodes of tests/cluster/up
  EXPECT_NE(snap->GetResourceClaim(ns, "before"), nullptr);
  // Nodes (core/v1, mostly unmodelled fields) come back exactly as the server serves them too.
  for (const api::Node* node : snap->Nodes()) {
    const std::string name = node->metadata.name.value_or("");
    auto got = c->Get(*ResourceFor(api::Kind::kNode), "", name);
    ASSERT_TRUE(got.ok());
    const api::Object* stored = snap->Get(api::Kind::kNode, "", name);
    if (stored->metadata().resource_version != Rv(*got)) continue;  // changed meanwhile
    auto have = api::EncodeObject(*stored);
    ASSERT_TRUE(have.ok()) << have.status();
    EXPECT_TRUE(*have == *got) << name << "\nstore:  " << api::WriteJson(*have, false)
                               << "\nserver: " << api::WriteJson(*got, false);
  }

  ASSERT_TRUE(c->Create(kClaims, ns, Json(ClaimJson(ns, "after"))).ok());
  ASSERT_TRUE(c->Delete(kClaims, ns, "before").ok());
  EXPECT_TRUE(WaitUntil([&] { return Diff(*c, cluster, api::Kind::kResourceClaim, ns).empty(); }))
      << Diff(*c, cluster, api::Kind::kResourceClaim, ns);
  EXPECT_GT(changes.load(), 0);
  EXPECT_EQ(reflector.stats().decode_errors, 0u);
  reflector.Stop();
  (void)c->Delete(kClaims, ns, "after");
}

TEST(Reflector, SurvivesApiServerRestartAndCompactionWithoutLosingOrDuplicating) {
  auto c = Admin();
  ASSERT_TRUE(c);
  const std::string ns = "kube-restart";
  EnsureNamespace(*c, ns);
  for (int i = 0; i < 5; ++i) (void)c->Create(kClaims, ns, Json(ClaimJson(ns, absl::StrCat("r-", i))));
  store::Cluster cluster;
  Reflector reflector(*c, cluster,
                      {.kinds = {api::Kind::kResourceClaim, api::Kind::kDeviceClass},
                       .initial_backoff = absl::Milliseconds(200),
                       .max_backoff = absl::Seconds(2)});
  ASSERT_TRUE(reflector.Start().ok());
  ASSERT_TRUE(reflector.WaitForSync(absl::Seconds(30)));
  ASSERT_TRUE(WaitUntil([&] { return Diff(*c, cluster, api::Kind::kResourceClaim, ns).empty(); }));
  uint64_t gone_before = reflector.stats().relists_gone;

  // Restart kube-apiserver with the etcd revision moved and compacted while it was down: the
  // reflector's resourceVersion no longer exists anywhere.
  ASSERT_EQ(Script("restart --compact apiserver"), 0);
  // Changes after the restart, some of them right away.
  ASSERT_TRUE(c->Delete(kClaims, ns, "r-0").ok());
  ASSERT_TRUE(c->Patch(kClaims, ns, "r-1", PatchType::kJsonMerge, R"({"metadata":{"labels":{"after":"restart"}}})").ok());
  ASSERT_TRUE(c->Create(kClaims, ns, Json(ClaimJson(ns, "r-new"))).ok());
  EXPECT_TRUE(WaitUntil([&] { return Diff(*c, cluster, api::Kind::kResourceClaim, ns).empty(); }, absl::Seconds(60)))
      << Diff(*c, cluster, api::Kind::kResourceClaim, ns);
  auto snap = cluster.snapshot();
  ASSERT_NE(snap->GetResourceClaim(ns, "r-1"), nullptr);
  EXPECT_EQ(snap->GetResourceClaim(ns, "r-1")->metadata.labels.size(), 1u);
  EXPECT_EQ(snap->GetResourceClaim(ns, "r-0"), nullptr);
  EXPECT_GT(reflector.stats().relists_gone, gone_before) << "the restart did not make the watch's version expire";
  // Still watching: a later change arrives too.
  ASSERT_TRUE(c->Create(kClaims, ns, Json(ClaimJson(ns, "r-later"))).ok());
  EXPECT_TRUE(WaitUntil([&] { return cluster.snapshot()->GetResourceClaim(ns, "r-later") != nullptr; }));
  reflector.Stop();
  for (const char* n : {"r-1", "r-2", "r-3", "r-4", "r-new", "r-later"}) (void)c->Delete(kClaims, ns, n);
}

TEST(Reflector, ResumesEndedWatchesWithoutRelisting) {
  auto c = Admin();
  ASSERT_TRUE(c);
  const std::string ns = "kube-resume";
  EnsureNamespace(*c, ns);
  store::Cluster cluster;
  // The server ends each watch after 1-2 s; the reflector must pick up from its resourceVersion.
  Reflector reflector(*c, cluster, {.kinds = {api::Kind::kResourceClaim}, .watch_timeout = absl::Seconds(1)});
  ASSERT_TRUE(reflector.Start().ok());
  ASSERT_TRUE(reflector.WaitForSync(absl::Seconds(30)));
  ASSERT_TRUE(WaitUntil([&] { return reflector.stats().watches >= 3; }, absl::Seconds(60)));
  ASSERT_TRUE(c->Create(kClaims, ns, Json(ClaimJson(ns, "resumed"))).ok());
  EXPECT_TRUE(WaitUntil([&] { return cluster.snapshot()->GetResourceClaim(ns, "resumed") != nullptr; }));
  EXPECT_EQ(reflector.stats().lists, 1u);  // only the initial list
  EXPECT_EQ(reflector.stats().relists_gone, 0u);
  EXPECT_TRUE(reflector.LastError().ok()) << reflector.LastError();
  reflector.Stop();
  (void)c->Delete(kClaims, ns, "resumed");
}

TEST(Reflector, ForbiddenIdentityNeverSyncsAndSaysWhy) {
  auto restricted = MakeClient(Env("KUBE_RESTRICTED_KUBECONFIG"));
  ASSERT_TRUE(restricted);
  store::Cluster cluster;
  Reflector reflector(*restricted, cluster,
                      {.kinds = {api::Kind::kResourceSlice}, .initial_backoff = absl::Milliseconds(100)});
  // Discovery is allowed to every authenticated user; listing slices is not.
  ASSERT_TRUE(reflector.Start().ok());
  EXPECT_FALSE(reflector.WaitForSync(absl::Seconds(2)));
  // The error is there once the API server has answered the first list; after only the fixed
  // 2 s above a loaded machine may not have got that far.
  ASSERT_TRUE(WaitUntil([&] { return reflector.stats().errors > 0; }, absl::Seconds(60)));
  EXPECT_FALSE(reflector.HasSynced());
  absl::Status why = reflector.LastError();
  EXPECT_TRUE(IsApiForbidden(why)) << why;
  EXPECT_THAT(why.message(), HasSubstr("cannot list resource \"resourceslices\""));
  EXPECT_GT(reflector.stats().errors, 0u);
  reflector.Stop();  // prompt even while backing off
  EXPECT_EQ(Reflector(*restricted, cluster, {.kinds = {api::Kind::kOther}}).Start().code(),
            absl::StatusCode::kInvalidArgument);
}

// Every DRA object of the corpus that the API server accepts, created through lib/kube, comes back
// through the reflector exactly as a GET returns it.
TEST(Reflector, CorpusObjectsReadBackIdenticalToTheApiServer) {
  auto c = Admin();
  ASSERT_TRUE(c);
  const std::string ns = "kube-corpus";
  EnsureNamespace(*c, ns);
  store::Cluster cluster;
  Reflector reflector(*c, cluster,
                      {.kinds = {api::Kind::kDeviceClass, api::Kind::kResourceSlice, api::Kind::kResourceClaim,
                                 api::Kind::kResourceClaimTemplate, api::Kind::kDeviceTaintRule}});
  ASSERT_TRUE(reflector.Start().ok());
  ASSERT_TRUE(reflector.WaitForSync(absl::Seconds(30)));
  std::vector<fs::path> files;
  for (const char* sub : {"manifests", "slices"}) {
    for (const auto& e : fs::recursive_directory_iterator(fs::path(Env("DRAFORGE_CORPUS")) / sub)) {
      std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 100u);
  int accepted = 0, rejected = 0, compared = 0;
  std::vector<std::string> differing;
  std::map<std::string, int> rejected_reasons;
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    auto decoded = api::DecodeStream(text.str(), {});
    if (!decoded.ok()) continue;
    struct Made {
      api::Kind kind;
      std::string name;
    };
    std::vector<Made> made;
    for (auto& d : *decoded) {
      if (!d.object.ok()) continue;
      api::Kind kind = d.object->kind();
      if (kind != api::Kind::kDeviceClass && kind != api::Kind::kResourceSlice && kind != api::Kind::kResourceClaim &&
          kind != api::Kind::kResourceClaimTemplate && kind != api::Kind::kDeviceTaintRule) {
        continue;
      }
      auto json = api::EncodeObject(*d.object);
      ASSERT_TRUE(json.ok()) << file << ": " << json.status();
      if (!json->HasMember("metadata")) {
        json->AddMember("metadata", rapidjson::Value(rapidjson::kObjectType), json->GetAllocator());
      }
      auto& meta = (*json)["metadata"];
      meta.RemoveMember("resourceVersion");
      meta.RemoveMember("uid");
      meta.RemoveMember("creationTimestamp");
      meta.RemoveMember("managedFields");
      meta.RemoveMember("generation");
      // Owners (Nodes of the cluster the dump came from) do not exist here: the garbage collector
      // would delete the object at once.
      meta.RemoveMember("ownerReferences");
      json->RemoveMember("status");
      if (api::IsNamespaced(kind)) {
        meta.RemoveMember("namespace");
        meta.AddMember("namespace", rapidjson::Value(ns.c_str(), json->GetAllocator()), json->GetAllocator());
      }
      std::string version = d.object->api_version.substr(d.object->api_version.find('/') + 1);
      auto created = c->Create(*ResourceFor(kind, version), ns, *json);
      if (!created.ok()) {
        ++rejected;
        auto st = GetApiStatus(created.status());
        rejected_reasons[st ? st->reason : std::string(absl::StatusCodeToString(created.status().code()))]++;
        continue;
      }
      ++accepted;
      std::string name = Str(*created, {"metadata", "name"});
      made.push_back({kind, name});
      // What kubectl get -o json reads: a GET in the preferred version, resource.k8s.io/v1.
      Resource v1 = *ResourceFor(kind, "v1");
      std::string want_ns = api::IsNamespaced(kind) ? ns : "";
      const api::Object* stored = nullptr;
      rapidjson::Document want;
      bool same_rv = WaitUntil(
          [&] {
            auto got = c->Get(v1, want_ns, name);
            if (!got.ok()) return false;
            auto snap = cluster.snapshot();
            stored = snap->Get(kind, want_ns, name);
            if (stored == nullptr || stored->metadata().resource_version != Rv(*got)) return false;
            want = std::move(got).value();
            auto have = api::EncodeObject(*stored, v1.ApiVersion());
            EXPECT_TRUE(have.ok()) << have.status();
            if (!have.ok()) return true;
            ++compared;
            // Exact: explicit nulls the API server writes ("requests": null) must come back too.
            if (*have == want) return true;
            differing.push_back(absl::StrCat(file.filename().string(), ":", name));
            ADD_FAILURE() << file << ": " << name << " differs from the API server's answer\nstore:  "
                          << api::WriteJson(*have, false) << "\nserver: " << api::WriteJson(want, false);
            return true;
          },
          absl::Seconds(20));
      EXPECT_TRUE(same_rv) << file << ": " << name << " never reached the store";
    }
    for (const Made& m : made) {
      std::string mns = api::IsNamespaced(m.kind) ? ns : "";
      Resource r = *ResourceFor(m.kind, "v1");
      (void)c->Delete(r, mns, m.name, {.grace_period_seconds = 0});
      EXPECT_TRUE(WaitUntil([&] { return cluster.snapshot()->Get(m.kind, mns, m.name) == nullptr; }))
          << m.name << " deleted on the server but still in the store";
    }
  }
  std::string reasons;
  for (const auto& [r, n] : rejected_reasons) absl::StrAppend(&reasons, " ", r, "=", n);
  std::cout << "[corpus] accepted " << accepted << ", rejected " << rejected << " (" << reasons
            << "), compared " << compared << ", different from the API server: " << differing.size() << " ("
            << absl::StrJoin(differing, ", ") << ")\n";
  EXPECT_GT(accepted, 100);
  EXPECT_EQ(compared, accepted);
  EXPECT_THAT(differing, ::testing::IsEmpty());
  EXPECT_EQ(reflector.stats().decode_errors, 0u);
}

// ---------------------------------------------------------------------------------------------
// Retries against API Priority and Fairness (APF).
//
// A FlowSchema sends every request of one ServiceAccount to a PriorityLevelConfiguration of type
// Limited with nominalConcurrencyShares 0, lendablePercent 0, borrowingLimitPercent 0 and
// limitResponse Reject (1.37 accepts all four; borrowingLimitPercent must be set, unset means the
// level may borrow seats from the others). Such a level has a concurrency limit of 0, but APF still
// dispatches a request when nothing of its level is executing (queueset's guard against
// starvation): an idle level answers 200. So the test first parks one request of that identity in
// the level: a POST whose body it holds back, which takes the level's seat as soon as its headers
// arrive and keeps it until the test releases the body. From then on every request of the identity
// gets APF's answer: 429, a plain-text body, Retry-After (1 s at first, more if rejections go on).

const Resource kConfigMaps{"", "v1", "configmaps", "ConfigMap", true};
const Resource kServiceAccounts{"", "v1", "serviceaccounts", "ServiceAccount", true};
const Resource kFlowSchemas{"flowcontrol.apiserver.k8s.io", "v1", "flowschemas", "FlowSchema", false};
const Resource kPriorityLevels{"flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations",
                               "PriorityLevelConfiguration", false};

// A POST of a ConfigMap as `config`'s identity whose body is sent only on Release(): while it waits,
// the request holds one seat of its priority level. Uses libcurl directly because kube::Client sends
// whole bodies.
class SeatHolder {
 public:
  SeatHolder(const RestConfig& config, const std::string& ns, const std::string& name)
      : body_(absl::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", name, R"("}})")) {
    url_ = absl::StrCat(config.server, kConfigMaps.CollectionPath(ns));
    ca_ = config.ca_pem;
    auth_ = absl::StrCat("Authorization: Bearer ", config.bearer_token);
    thread_ = std::thread([this] { Run(); });
  }
  ~SeatHolder() {
    Release();
    if (thread_.joinable()) thread_.join();
  }
  void Release() { release_.store(true); }
  // Releases the body and returns the held POST's HTTP status (-1 when curl failed).
  long Result() {  // NOLINT(runtime/int): libcurl's type
    Release();
    if (thread_.joinable()) thread_.join();
    return code_;
  }

 private:
  static size_t Read(char* out, size_t size, size_t n, void* self_ptr) {
    auto* self = static_cast<SeatHolder*>(self_ptr);
    while (!self->release_.load()) absl::SleepFor(absl::Milliseconds(20));
    size_t left = self->body_.size() - self->sent_;
    size_t count = std::min(left, size * n);
    std::memcpy(out, self->body_.data() + self->sent_, count);
    self->sent_ += count;
    return count;
  }
  static size_t Discard(char*, size_t size, size_t n, void*) { return size * n; }
  void Run() {
    CURL* curl = curl_easy_init();
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, auth_.c_str());
    headers = curl_slist_append(headers, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Expect:");
    curl_blob ca{ca_.data(), ca_.size(), CURL_BLOB_COPY};
    curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, &SeatHolder::Read);
    curl_easy_setopt(curl, CURLOPT_READDATA, this);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &SeatHolder::Discard);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 120L);
    CURLcode rc = curl_easy_perform(curl);
    long code = -1;  // NOLINT(runtime/int)
    if (rc == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    code_ = code;
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
  }

  const std::string body_;
  std::string url_, ca_, auth_;
  size_t sent_ = 0;
  std::atomic<bool> release_{false};
  std::atomic<long> code_{0};  // NOLINT(runtime/int)
  std::thread thread_;
};

// The column `column` of priority level `level` in the API server's APF debug dump, or -1.
int PriorityLevelColumn(Client& admin, const std::string& level, const std::string& column) {
  auto dump = admin.Do({.path = "/debug/api_priority_and_fairness/dump_priority_levels"});
  if (!dump.ok() || dump->code != 200) return -1;
  std::vector<std::string> lines = absl::StrSplit(dump->body, '\n');
  if (lines.empty()) return -1;
  std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  int index = -1;
  for (size_t i = 0; i < header.size(); ++i) {
    if (absl::StripAsciiWhitespace(header[i]) == column) index = static_cast<int>(i);
  }
  for (const std::string& line : lines) {
    std::vector<std::string> cells = absl::StrSplit(line, ',');
    if (index < 0 || cells.size() <= static_cast<size_t>(index)) continue;
    if (absl::StripAsciiWhitespace(cells[0]) != level) continue;
    int value = -1;
    return absl::SimpleAtoi(absl::StripAsciiWhitespace(cells[index]), &value) ? value : -1;
  }
  return -1;
}

class PriorityAndFairness : public ::testing::Test {
 protected:
  static constexpr char kNs[] = "kube-apf";
  static constexpr char kAccount[] = "throttled";
  static constexpr char kLevel[] = "draforge-no-seats";
  static constexpr char kSchema[] = "draforge-throttled";

  void SetUp() override {
    admin_ = Admin();
    ASSERT_TRUE(admin_);
    EnsureNamespace(*admin_, kNs);
    auto sa = admin_->Create(kServiceAccounts, kNs,
                             Json(absl::StrCat(R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":")",
                                               kAccount, R"("}})")));
    ASSERT_TRUE(sa.ok() || IsApiAlreadyExists(sa.status())) << sa.status();
    const Resource roles{"rbac.authorization.k8s.io", "v1", "roles", "Role", true};
    const Resource bindings{"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true};
    auto role = admin_->Create(roles, kNs, Json(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",
        "metadata":{"name":"configmaps"},
        "rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get","list","create","delete"]}]})"));
    ASSERT_TRUE(role.ok() || IsApiAlreadyExists(role.status())) << role.status();
    auto binding = admin_->Create(bindings, kNs, Json(absl::StrCat(R"({"apiVersion":"rbac.authorization.k8s.io/v1",
        "kind":"RoleBinding","metadata":{"name":"configmaps"},
        "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"configmaps"},
        "subjects":[{"kind":"ServiceAccount","name":")", kAccount, R"(","namespace":")", kNs, R"("}]})")));
    ASSERT_TRUE(binding.ok() || IsApiAlreadyExists(binding.status())) << binding.status();

    // A token of the ServiceAccount (TokenRequest), the identity the FlowSchema matches.
    auto token = admin_->Do({.method = "POST",
                             .path = kServiceAccounts.ObjectPath(kNs, kAccount, "token"),
                             .body = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",
                                         "spec":{"expirationSeconds":3600}})"});
    ASSERT_TRUE(token.ok()) << token.status();
    ASSERT_EQ(token->code, 201) << token->body;
    auto base = LoadKubeconfigFile(Env("KUBECONFIG"));
    ASSERT_TRUE(base.ok()) << base.status();
    throttled_ = *base;
    throttled_.client_certificate_pem.clear();
    throttled_.client_key_pem.clear();
    throttled_.bearer_token = Str(Json(token->body), {"status", "token"});
    ASSERT_FALSE(throttled_.bearer_token.empty());

    (void)admin_->Delete(kFlowSchemas, "", kSchema);
    (void)admin_->Delete(kPriorityLevels, "", kLevel);
    auto level = admin_->Create(kPriorityLevels, "", Json(absl::StrCat(
        R"({"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration",
            "metadata":{"name":")", kLevel, R"("},
            "spec":{"type":"Limited","limited":{"nominalConcurrencyShares":0,"lendablePercent":0,
                    "borrowingLimitPercent":0,"limitResponse":{"type":"Reject"}}}})")));
    ASSERT_TRUE(level.ok()) << level.status();
    // Precedence 10: before every bootstrap schema but "exempt" (1), which only matches
    // system:masters, so the admin client is never throttled.
    auto schema = admin_->Create(kFlowSchemas, "", Json(absl::StrCat(
        R"({"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":")", kSchema,
        R"("},"spec":{"matchingPrecedence":10,"priorityLevelConfiguration":{"name":")", kLevel,
        R"("},"distinguisherMethod":{"type":"ByUser"},"rules":[{"subjects":[{"kind":"ServiceAccount",
            "serviceAccount":{"name":")", kAccount, R"(","namespace":")", kNs, R"("}}],
          "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"clusterScope":true,
                            "namespaces":["*"]}],
          "nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}]}]}})")));
    ASSERT_TRUE(schema.ok()) << schema.status();
  }

  void TearDown() override {
    holder_.reset();
    if (!admin_) return;
    (void)admin_->Delete(kFlowSchemas, "", kSchema);
    (void)admin_->Delete(kPriorityLevels, "", kLevel);
    if (auto list = admin_->List(kConfigMaps, kNs); list.ok()) {
      for (const auto& item : list->list["items"].GetArray()) {
        (void)admin_->Delete(kConfigMaps, kNs, Str(item, {"metadata", "name"}));
      }
    }
  }

  // Parks a seat holder and waits until the API server reports it executing in kLevel: from then on
  // the level is full. The APF controller takes new objects up asynchronously, and not even its
  // status write says when (it holds back the Dangling condition for 30-75 s when one FlowSchema
  // name changes often, as it does here), so a holder that arrived earlier executes in another
  // level; it is then released and replaced.
  // Each holder gets 10 s to show up there: its TLS handshake and headers can take seconds on a
  // loaded machine, and 3 s could give up on a holder that was merely slow.
  void OccupyTheLevel(const std::string& holder_name) {
    absl::Time deadline = absl::Now() + absl::Seconds(120);
    for (int attempt = 1; absl::Now() < deadline; ++attempt) {
      holder_ = std::make_unique<SeatHolder>(throttled_, kNs, absl::StrCat(holder_name, "-", attempt));
      if (WaitUntil([&] { return PriorityLevelColumn(*admin_, kLevel, "ExecutingRequests") == 1; },
                    absl::Seconds(10))) {
        return;
      }
      holder_.reset();
    }
    FAIL() << "no request of " << kAccount << " ever executed in priority level " << kLevel;
  }

  // A client of the throttled identity whose waits are recorded (and then slept, so that the API
  // server sees the pace a real client would keep); `on_wait` runs before each wait.
  std::unique_ptr<Client> ThrottledClient(RetryPolicy policy, std::function<void(int)> on_wait = nullptr) {
    ClientOptions options;
    options.retry = policy;
    options.sleep = [this, on_wait](absl::Duration d) {
      int n;
      {
        absl::MutexLock lock(&mu_);
        waits_.push_back(d);
        n = static_cast<int>(waits_.size());
      }
      if (on_wait) on_wait(n);
      absl::SleepFor(d);
    };
    options.log = [this](LogLevel, std::string_view line) {
      absl::MutexLock lock(&mu_);
      log_.emplace_back(line);
    };
    auto c = Client::Create(throttled_, options);
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? std::move(c).value() : nullptr;
  }

  // What APF answers this identity right now, without retries.
  absl::StatusOr<Response> Probe() {
    auto c = Client::Create(throttled_, {.retry = {.max_attempts = 1}});
    if (!c.ok()) return c.status();
    return (*c)->Do({.path = kConfigMaps.CollectionPath(kNs)});
  }

  std::unique_ptr<Client> admin_;
  RestConfig throttled_;
  std::unique_ptr<SeatHolder> holder_;
  absl::Mutex mu_;
  std::vector<absl::Duration> waits_;
  std::vector<std::string> log_;
};

TEST_F(PriorityAndFairness, RetriesWithBackoffUntilTheLimitIsLiftedAndTheWriteHappensOnce) {
  // The holder executing in a level of 0 seats is the guard against starvation at work.
  ASSERT_NO_FATAL_FAILURE(OccupyTheLevel("seat-holder-lifted"));
  auto rejected = Probe();
  ASSERT_TRUE(rejected.ok()) << rejected.status();
  ASSERT_EQ(rejected->code, 429) << rejected->body;
  EXPECT_GE(rejected->retry_after_seconds, 1);
  EXPECT_THAT(rejected->body, HasSubstr("Too many requests"));
  const int retry_after = rejected->retry_after_seconds;

  // POST under the limit; before the second wait the test deletes the FlowSchema, so the next
  // attempt falls to the bootstrap schemas (service-accounts) and has seats again.
  const RetryPolicy policy{.max_attempts = 8, .initial_delay = absl::Milliseconds(300), .max_delay = absl::Seconds(4)};
  std::atomic<bool> lifted{false};
  auto c = ThrottledClient(policy, [&](int n) {
    if (n == 2) {
      auto deleted = admin_->Delete(kFlowSchemas, "", kSchema);
      EXPECT_TRUE(deleted.ok()) << deleted.status();
      lifted.store(true);
    }
  });
  ASSERT_TRUE(c);
  auto created = c->Create(kConfigMaps, kNs,
                           Json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"written-once"},
                                    "data":{"k":"v"}})"));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(lifted.load());
  {
    absl::MutexLock lock(&mu_);
    ASSERT_GE(waits_.size(), 2u);
    for (size_t i = 0; i < waits_.size(); ++i) {
      // At least the server's Retry-After and the exponential backoff, at most max_delay.
      absl::Duration floor = std::min(std::max(absl::Seconds(retry_after), policy.initial_delay * (int64_t{1} << i)),
                                      policy.max_delay);
      EXPECT_GE(waits_[i], floor) << "wait " << i;
      EXPECT_LE(waits_[i], policy.max_delay) << "wait " << i;
    }
    ASSERT_EQ(log_.size(), waits_.size());
    for (const std::string& line : log_) {
      EXPECT_THAT(line, HasSubstr("POST /api/v1/namespaces/kube-apf/configmaps: HTTP 429 (Retry-After: "));
    }
  }
  // The repeated POST wrote the object once: APF turned the earlier attempts away unprocessed.
  auto list = admin_->List(kConfigMaps, kNs, {.field_selector = "metadata.name=written-once"});
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->list["items"].Size(), 1u);
  EXPECT_EQ(Str(list->list["items"][0], {"metadata", "uid"}), Str(*created, {"metadata", "uid"}));

  EXPECT_EQ(holder_->Result(), 201);
}

TEST_F(PriorityAndFairness, KeptLimitEndsAfterTheBudgetWithTheServersTooManyRequestsStatus) {
  ASSERT_NO_FATAL_FAILURE(OccupyTheLevel("seat-holder-kept"));
  const RetryPolicy policy{.max_attempts = 4, .initial_delay = absl::Milliseconds(500), .max_delay = absl::Seconds(2)};
  auto c = ThrottledClient(policy);
  ASSERT_TRUE(c);
  auto created = c->Create(kConfigMaps, kNs,
                           Json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"never-written"}})"));
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), absl::StatusCode::kResourceExhausted) << created.status();
  EXPECT_TRUE(IsApiTooManyRequests(created.status())) << created.status();
  std::optional<ApiStatus> status = GetApiStatus(created.status());
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 429);
  EXPECT_EQ(status->reason, "TooManyRequests");
  EXPECT_GE(status->retry_after_seconds, 1);
  ASSERT_FALSE(status->causes.empty());
  EXPECT_EQ(status->causes[0].message, "Too many requests, please try again later.");
  EXPECT_THAT(created.status().message(),
              HasSubstr("create configmaps kube-apf/never-written: 429 TooManyRequests: the server has received too "
                        "many requests and has asked us to try again later"));
  {
    absl::MutexLock lock(&mu_);
    EXPECT_EQ(waits_.size(), 3u);  // max_attempts 4: three waits, then the last answer
    for (size_t i = 0; i < waits_.size(); ++i) {
      absl::Duration floor =
          std::min(std::max(absl::Seconds(1), policy.initial_delay * (int64_t{1} << i)), policy.max_delay);
      EXPECT_GE(waits_[i], floor) << "wait " << i;
      EXPECT_LE(waits_[i], policy.max_delay) << "wait " << i;
    }
  }
  // None of the four POSTs reached storage.
  EXPECT_TRUE(IsApiNotFound(admin_->Get(kConfigMaps, kNs, "never-written").status()));

  EXPECT_EQ(holder_->Result(), 201);
}

// A real answer after which a write may have happened: a request timeout (?timeout=1ns) is a 504
// Timeout without Retry-After; the handler may still be running. client-go never repeats it, for no
// verb; neither does lib/kube.
TEST(Retries, ServerTimeoutWithoutRetryAfterIsNeverRepeated) {
  auto base = LoadKubeconfigFile(Env("KUBECONFIG"));
  ASSERT_TRUE(base.ok()) << base.status();
  std::vector<absl::Duration> waits;
  ClientOptions options;
  options.retry = {.max_attempts = 5, .initial_delay = absl::Milliseconds(10), .max_delay = absl::Milliseconds(50)};
  options.sleep = [&](absl::Duration d) { waits.push_back(d); };
  auto c = Client::Create(*base, options);
  ASSERT_TRUE(c.ok());
  const std::string ns = "kube-rest";
  EnsureNamespace(**c, ns);
  auto post = (*c)->Do({.method = "POST",
                        .path = kConfigMaps.CollectionPath(ns) + "?timeout=1ns",
                        .body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"timed-out"}})"});
  ASSERT_TRUE(post.ok()) << post.status();
  EXPECT_EQ(post->code, 504) << post->body;
  EXPECT_EQ(post->retry_after_seconds, -1);
  EXPECT_THAT(post->body, HasSubstr(R"("reason":"Timeout")"));
  auto get = (*c)->Do({.path = kConfigMaps.CollectionPath(ns) + "?timeout=1ns"});
  ASSERT_TRUE(get.ok()) << get.status();
  EXPECT_EQ(get->code, 504) << get->body;
  EXPECT_TRUE(waits.empty()) << waits.size() << " retries";
  (void)(*c)->Delete(kConfigMaps, ns, "timed-out");
}

// ---------------------------------------------------------------------------------------------
// Leader election.

// Every version of one Lease in "default", as a watch delivers them. The handover checks read the
// times the candidates wrote (renewTime, acquireTime) rather than this test's clock around Stop()
// and a poll, which on a loaded machine adds seconds that are no candidate's doing. Every candidate
// runs on this machine, so their clocks agree.
class LeaseHistory {
 public:
  struct Record {
    std::string holder;
    absl::Time renew, acquire;
  };

  explicit LeaseHistory(std::string name) : client_(Admin()), name_(std::move(name)) {
    if (!client_) return;
    auto list = client_->List(LeaseResource(), "default");
    EXPECT_TRUE(list.ok()) << list.status();
    if (!list.ok()) return;
    rv_ = list->resource_version;
    thread_ = std::thread([this] { Run(); });
  }
  ~LeaseHistory() { Stop(); }

  // Ends the watch; returns every version seen, oldest first, and the watch's error if it failed.
  std::vector<Record> Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    EXPECT_TRUE(error_.ok()) << "watch of Lease " << name_ << ": " << error_;
    return records_;
  }

 private:
  static absl::Time Time(const rapidjson::Value& spec, const char* field) {
    absl::Time t = absl::InfinitePast();
    std::string err;
    std::string text = Str(spec, {field});
    if (!text.empty()) {
      EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, text, &t, &err)) << field << ": " << err;
    }
    return t;
  }
  void Run() {
    while (!stop_.load()) {
      absl::Status s = client_->Watch(
          LeaseResource(), "default", {.resource_version = rv_, .timeout_seconds = 120},
          [this](WatchEvent& e) {
            if (!Rv(e.object).empty()) rv_ = Rv(e.object);
            if (e.type != "BOOKMARK" && Str(e.object, {"metadata", "name"}) == name_ && e.object.HasMember("spec")) {
              const rapidjson::Value& spec = e.object["spec"];
              records_.push_back({Str(spec, {"holderIdentity"}), Time(spec, "renewTime"), Time(spec, "acquireTime")});
            }
            return !stop_.load();
          },
          &stop_);
      if (!s.ok() && !stop_.load()) {
        error_ = s;
        return;
      }
    }
  }

  std::unique_ptr<Client> client_;
  const std::string name_;
  std::string rv_;
  std::vector<Record> records_;  // written by the watch thread only until Stop() joins it
  absl::Status error_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(LeaderElection, TwoContendersHandOverWithinTheLeaseAndNeverOverlap) {
  auto c1 = Admin();
  auto c2 = Admin();
  ASSERT_TRUE(c1 && c2);
  const std::string lease = absl::StrCat("draforge-le-", getpid());
  auto opts = [&](const std::string& id, bool release) {
    LeaderElectionOptions o;
    o.lease_name = lease;
    o.identity = id;
    o.lease_duration = absl::Seconds(4);
    o.renew_deadline = absl::Seconds(3);
    o.retry_period = absl::Milliseconds(500);
    o.release_on_stop = release;
    return o;
  };
  std::atomic<bool> overlap{false}, sampling{true};
  std::atomic<int> a_started{0}, a_stopped{0};
  std::vector<std::string> b_saw;
  absl::Mutex saw_mu;
  LeaderElectionOptions a_opts = opts("a", true);
  a_opts.on_started_leading = [&] { ++a_started; };
  a_opts.on_stopped_leading = [&] { ++a_stopped; };
  LeaderElectionOptions b_opts = opts("b", false);
  b_opts.on_new_leader = [&](const std::string& id) {
    absl::MutexLock lock(&saw_mu);
    b_saw.push_back(id);
  };
  LeaseHistory history(lease);  // before any candidate writes
  auto a = std::make_unique<LeaderElector>(*c1, a_opts);
  auto b = std::make_unique<LeaderElector>(*c2, b_opts);
  std::unique_ptr<LeaderElector> c3;
  absl::Mutex mu;
  std::thread sampler([&] {
    while (sampling) {
      {
        absl::MutexLock lock(&mu);
        int leaders = (a && a->IsLeader()) + (b && b->IsLeader()) + (c3 && c3->IsLeader());
        if (leaders > 1) overlap = true;
      }
      absl::SleepFor(absl::Milliseconds(5));
    }
  });
  EXPECT_EQ(LeaderElector(*c1, LeaderElectionOptions{}).Start().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(a->Start().ok());
  ASSERT_TRUE(WaitUntil([&] { return a->IsLeader(); }, absl::Seconds(10)));
  ASSERT_TRUE(b->Start().ok());
  ASSERT_TRUE(WaitUntil([&] { return b->ObservedLeader() == "a"; }, absl::Seconds(10)));
  absl::SleepFor(absl::Seconds(5));  // longer than the lease: a keeps renewing, b never takes over
  EXPECT_TRUE(a->IsLeader());
  EXPECT_FALSE(b->IsLeader());

  // a stops and releases: b takes over well within one lease duration (checked on the Lease's
  // history below).
  {
    absl::MutexLock lock(&mu);
    a->Stop();
  }
  EXPECT_FALSE(a->IsLeader());
  ASSERT_TRUE(WaitUntil([&] { return b->IsLeader(); }, absl::Seconds(30)));

  // b vanishes without releasing (a crash): a new contender waits for the lease to expire, then
  // leads; within lease duration plus two retry periods of b's last renewal.
  c3 = std::make_unique<LeaderElector>(*c1, opts("c", true));
  ASSERT_TRUE(c3->Start().ok());
  ASSERT_TRUE(WaitUntil([&] { return c3->ObservedLeader() == "b"; }, absl::Seconds(30)));
  {
    absl::MutexLock lock(&mu);
    b->Stop();
  }
  ASSERT_TRUE(WaitUntil([&] { return c3->IsLeader(); }, absl::Seconds(30)));
  {
    absl::MutexLock lock(&mu);
    c3->Stop();
  }
  sampling = false;
  sampler.join();
  EXPECT_FALSE(overlap.load()) << "two leaders at once";

  // The Lease's history: a ... a, "" (a released), b ... b (b crashed), c ... c, "" (c released).
  std::vector<LeaseHistory::Record> h = history.Stop();
  std::string holders;
  for (const auto& r : h) absl::StrAppend(&holders, holders.empty() ? "" : ",", r.holder.empty() ? "-" : r.holder);
  auto index_of = [&](size_t from, const std::string& holder) {
    for (size_t i = from; i < h.size(); ++i) {
      if (h[i].holder == holder) return i;
    }
    return h.size();
  };
  const size_t first_a = index_of(0, "a");
  const size_t released = index_of(first_a, "");
  const size_t first_b = index_of(released, "b");
  const size_t first_c = index_of(first_b, "c");
  ASSERT_TRUE(first_a == 0 && released < h.size() && first_b == released + 1 && first_c < h.size() &&
              h[first_c - 1].holder == "b")
      << "Lease holders in order: " << holders;
  // b took over from a's release (which lets anyone take the lease at once) at its next retry
  // (500 ms, +20 % jitter), well within one lease duration.
  absl::Duration takeover = h[first_b].acquire - h[released].renew;
  EXPECT_LT(takeover, absl::Seconds(4)) << takeover << "; holders " << holders;
  // c may take over once it has seen b's last renewal unchanged for a lease duration (4 s), and it
  // looks every retry period: lease + two jittered retry periods, plus 1 s for the requests
  // themselves on a loaded machine. A candidate that did not wait would take over within about one
  // retry period; one that waited twice the lease would need 8 s.
  absl::Duration handover = h[first_c].acquire - h[first_c - 1].renew;
  EXPECT_LT(handover, absl::Seconds(4) + absl::Milliseconds(2 * 600) + absl::Seconds(1)) << handover;
  EXPECT_GT(handover, absl::Seconds(2)) << handover;  // it did wait for the lease
  std::cout << "[leader] holders " << holders << "; takeover after release " << takeover
            << ", handover after the last renewal " << handover << "\n";
  EXPECT_EQ(a_started.load(), 1);
  EXPECT_EQ(a_stopped.load(), 1);
  {
    absl::MutexLock lock(&saw_mu);
    EXPECT_THAT(b_saw, ::testing::ElementsAre("a", "b"));
  }
  auto record = c1->Get(LeaseResource(), "default", lease);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(Str((*record)["spec"], {"holderIdentity"}), "");  // c released it
  EXPECT_EQ((*record)["spec"]["leaseTransitions"].GetInt(), 2);
  (void)c1->Delete(LeaseResource(), "default", lease);
}

// ---------------------------------------------------------------------------------------------
// kube-scheduler allocates; DRAForge's allocator must agree.

TEST(Scheduler, AllocationsOfTemplatedClaimsMatchDraforgesAllocator) {
  if (Env("KUBE_SCHEDULER") != "1" || Env("KUBE_CONTROLLER_MANAGER") != "1") {
    GTEST_SKIP() << "needs tests/cluster/up --scheduler --controller-manager";
  }
  auto c = Admin();
  ASSERT_TRUE(c);
  const std::string ns = "kube-sched";
  EnsureNamespace(*c, ns);
  const std::string driver = "gpu.parity.draforge.test";
  (void)c->Create(kClasses, "", Json(absl::StrCat(R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
      "metadata":{"name":")", driver, R"("},"spec":{"selectors":[{"cel":{"expression":"device.driver == ')", driver,
                                                  R"('"}}]}})")));
  // Two devices per fake node, with a memory attribute; pods ask for one >= 40Gi device.
  for (int n = 1; n <= 3; ++n) {
    std::string node = absl::StrCat("node-", n);
    std::string devices;
    for (int d = 0; d < 3; ++d) {
      absl::StrAppend(&devices, d ? "," : "", R"({"name":"gpu-)", d, R"(","attributes":{"index":{"int":)", d,
                      R"(}},"capacity":{"memory":{"value":")", d == 0 ? "16Gi" : "80Gi", R"("}}})");
    }
    auto r = c->Create(kSlices, "", Json(absl::StrCat(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
        "metadata":{"name":"parity-)", node, R"("},"spec":{"driver":")", driver, R"(","nodeName":")", node,
                                                      R"(","pool":{"name":")", node,
                                                      R"(","generation":1,"resourceSliceCount":1},"devices":[)", devices,
                                                      "]}}")));
    ASSERT_TRUE(r.ok() || IsApiAlreadyExists(r.status())) << r.status();
  }
  auto rct = c->Create(kTemplates, ns, Json(absl::StrCat(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",
      "metadata":{"name":"big-gpu"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":")",
                                                         driver, R"(","selectors":[{"cel":{"expression":
      "device.capacity['gpu.parity.draforge.test'].memory.compareTo(quantity('40Gi')) >= 0"}}]}}]}}}})")));
  ASSERT_TRUE(rct.ok() || IsApiAlreadyExists(rct.status())) << rct.status();

  store::Cluster cluster;
  Reflector reflector(*c, cluster, {});
  ASSERT_TRUE(reflector.Start().ok());
  ASSERT_TRUE(reflector.WaitForSync(absl::Seconds(30)));

  // Pods one at a time, so that each allocation is made against the previous ones only.
  const int kPodsToSchedule = 6;  // 2 fitting devices per node, 3 nodes
  std::vector<std::string> pods;
  for (int i = 0; i < kPodsToSchedule; ++i) {
    std::string pod = absl::StrCat("parity-", i);
    pods.push_back(pod);
    auto created = c->Create(kPods, ns, Json(absl::StrCat(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", pod,
        R"("},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10",
        "resources":{"claims":[{"name":"gpu"}]}}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"big-gpu"}]}})")));
    ASSERT_TRUE(created.ok()) << created.status();
    ASSERT_TRUE(WaitUntil(
        [&] {
          auto snap = cluster.snapshot();
          const api::Pod* p = snap->GetPod(ns, pod);
          if (p == nullptr || !p->spec || !p->spec->node_name) return false;
          auto claims = snap->ClaimsForPod(ns, pod);
          return !claims.empty() && claims[0].claim != nullptr && claims[0].claim->status &&
                 claims[0].claim->status->allocation;
        },
        absl::Seconds(60)))
        << pod << " was not scheduled with an allocated claim";
  }
  auto snap = cluster.snapshot();
  alloc::AllocatedState state;  // what was allocated before the pod in turn
  // The objects of the scenario as the server returns them, for the recorded fixtures.
  auto lean = [](rapidjson::Document d) {
    d["metadata"].RemoveMember("managedFields");
    return d;
  };
  std::string objects;
  {
    auto cls = c->Get(kClasses, "", driver);
    ASSERT_TRUE(cls.ok());
    absl::StrAppend(&objects, "---\n", api::WriteJson(lean(std::move(cls).value()), true), "\n");
    for (int n = 1; n <= 3; ++n) {
      auto slice = c->Get(kSlices, "", absl::StrCat("parity-node-", n));
      ASSERT_TRUE(slice.ok());
      absl::StrAppend(&objects, "---\n", api::WriteJson(lean(std::move(slice).value()), true), "\n");
    }
  }
  std::string allocated_claims;  // earlier pods' claims, with their allocation
  std::string summary;
  for (size_t i = 0; i < pods.size(); ++i) {
    const api::Pod* pod = snap->GetPod(ns, pods[i]);
    auto claims = snap->ClaimsForPod(ns, pods[i]);
    ASSERT_EQ(claims.size(), 1u);
    const api::ResourceClaim* claim = claims[0].claim;
    const std::string claim_name = claim->metadata.name.value_or("");
    // The claim as the scheduler saw it: no status.
    api::ResourceClaim pending = *claim;
    pending.status.reset();
    const std::string node_name = *pod->spec->node_name;
    const api::Node* node = snap->GetNode(node_name);
    ASSERT_NE(node, nullptr);
    alloc::AllocateOptions options;
    options.allocated_state = &state;
    alloc::AllocateResult ours = alloc::Allocate(*snap, {&pending}, alloc::NodeInfo::FromNode(*node), options);
    ASSERT_EQ(ours.outcome, alloc::Outcome::kAllocated) << pods[i] << ": " << ours.error;
    // The whole status.allocation (results, nodeSelector, config) must be what kube-scheduler wrote,
    // except allocationTimestamp (a wall clock).
    auto server_claim = c->Get(kClaims, ns, claim_name);
    ASSERT_TRUE(server_claim.ok());
    rapidjson::Document theirs;
    theirs.CopyFrom((*server_claim)["status"]["allocation"], theirs.GetAllocator());
    theirs.RemoveMember("allocationTimestamp");
    auto mine = alloc::EncodeAllocationResult(ours.allocations[0]);
    ASSERT_TRUE(mine.ok()) << mine.status();
    mine->RemoveMember("allocationTimestamp");
    EXPECT_TRUE(*mine == theirs) << pods[i] << " on " << node_name << "\nkube-scheduler: " << api::WriteJson(theirs, false)
                                 << "\ndraforge:       " << api::WriteJson(*mine, false);
    absl::StrAppend(&summary, pods[i], " -> ", node_name, "/",
                    Str(theirs["devices"]["results"][0], {"device"}), "\n");

    // An AllocatorTestCase (tests/alloc/fixtures format): this claim pending, the earlier ones allocated.
    rapidjson::Document pending_json = lean(std::move(server_claim).value());
    rapidjson::Document allocated_json;
    allocated_json.CopyFrom(pending_json, allocated_json.GetAllocator());
    pending_json.RemoveMember("status");
    std::string node_labels;
    for (const auto& [k, v] : node->metadata.labels) {
      absl::StrAppend(&node_labels, node_labels.empty() ? "" : ", ", "\"", k, "\": \"", v, "\"");
    }
    std::string fixture = absl::StrCat(
        "# Recorded from kube-scheduler ", Env("KUBE_VERSION"), " by tests/kube (Scheduler.AllocationsOf...):\n",
        "# pod ", pods[i], " was bound to ", node_name, " and its templated claim allocated as below.\n",
        "apiVersion: draforge.dev/v1alpha1\nkind: AllocatorTestCase\nmetadata: {name: scheduler-", pods[i], "}\n",
        "node: {name: ", node_name, ", labels: {", node_labels, "}}\n", "claims: [", ns, "/", claim_name, "]\n",
        "expect:\n  outcome: allocated\n  allocations:\n    ", ns, "/", claim_name, ": ", api::WriteJson(theirs, false),
        "\n", objects, allocated_claims, "---\n", api::WriteJson(pending_json, true), "\n");
    if (std::string dir = Env("DRAFORGE_KUBE_RECORD_DIR"); !dir.empty()) {
      std::ofstream(absl::StrCat(dir, "/scheduler-", pods[i], ".yaml")) << fixture;
    }
    absl::StrAppend(&allocated_claims, "---\n", api::WriteJson(allocated_json, true), "\n");
    state.Add(*claim->status->allocation);
  }
  std::cout << "[scheduler] kube-scheduler allocated:\n" << summary;
  // The bound pods (core/v1, written by the API server, the controller and the scheduler) are in
  // the store exactly as a GET returns them.
  for (const auto& name : pods) {
    EXPECT_TRUE(WaitUntil([&] {
      auto got = c->Get(kPods, ns, name);
      if (!got.ok()) return false;
      const api::Object* stored = cluster.snapshot()->Get(api::Kind::kPod, ns, name);
      if (stored == nullptr || stored->metadata().resource_version != Rv(*got)) return false;
      auto have = api::EncodeObject(*stored);
      EXPECT_TRUE(have.ok() && *have == *got) << name << "\nstore:  " << (have.ok() ? api::WriteJson(*have, false) : "")
                                               << "\nserver: " << api::WriteJson(*got, false);
      return true;
    })) << name;
  }
  // A seventh pod does not fit anywhere (every big device is taken): it stays unscheduled.
  ASSERT_TRUE(c->Create(kPods, ns, Json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"parity-extra"},
      "spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","resources":{"claims":[{"name":"gpu"}]}}],
      "resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"big-gpu"}]}})")).ok());
  // Wait until kube-scheduler has tried the pod with its claim and found no device (a fixed sleep
  // passed as well when the scheduler had not tried yet on a loaded machine).
  std::string scheduled_message;
  bool tried = WaitUntil(
      [&] {
        auto pod = c->Get(kPods, ns, "parity-extra");
        if (!pod.ok() || !pod->HasMember("status") || !(*pod)["status"].HasMember("conditions")) return false;
        for (const auto& cond : (*pod)["status"]["conditions"].GetArray()) {
          if (Str(cond, {"type"}) != "PodScheduled") continue;
          scheduled_message = Str(cond, {"message"});
          return Str(cond, {"status"}) == "False" && Str(cond, {"reason"}) == "Unschedulable" &&
                 absl::StrContains(scheduled_message, "cannot allocate all claims");
        }
        return false;
      },
      absl::Seconds(60));
  EXPECT_TRUE(tried) << "kube-scheduler never reported parity-extra unschedulable for its claim: "
                     << scheduled_message;
  auto extra = c->Get(kPods, ns, "parity-extra");
  ASSERT_TRUE(extra.ok());
  EXPECT_EQ(Str(*extra, {"spec", "nodeName"}), "");
  reflector.Stop();
  for (const auto& p : pods) (void)c->Delete(kPods, ns, p, {.grace_period_seconds = 0});
  (void)c->Delete(kPods, ns, "parity-extra", {.grace_period_seconds = 0});
}


// ---------------------------------------------------------------------------------------------
// The CLI's online mode and `draforge dump` (DRAFORGE_CLI: the draforge binary).

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

CliRun Cli(const std::string& args, const std::string& env_prefix = "") {
  fs::path dir = fs::temp_directory_path() / absl::StrCat("kube-cli-", getpid());
  fs::create_directories(dir);
  std::string cmd = absl::StrCat(env_prefix, " ", Env("DRAFORGE_CLI"), " ", args, " >", (dir / "out").string(), " 2>",
                                 (dir / "err").string());
  int rc = std::system(cmd.c_str());
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  CliRun r{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(dir / "out"), slurp(dir / "err")};
  fs::remove_all(dir);
  return r;
}

TEST(Cli, DumpWritesWhatTheOfflineCommandsReadAndOnlineGetMatchesIt) {
  if (Env("DRAFORGE_CLI").empty()) GTEST_SKIP() << "DRAFORGE_CLI not set";
  auto c = Admin();
  ASSERT_TRUE(c);
  const std::string ns = "kube-cli";
  EnsureNamespace(*c, ns);
  (void)c->Create(kClaims, ns, Json(ClaimJson(ns, "cli-claim")));
  std::string kubeconfig = Env("KUBECONFIG");
  fs::path dump = fs::temp_directory_path() / absl::StrCat("kube-dump-", getpid(), ".json");
  // "namespace/name" of every object of `kind` on the server.
  auto server_names = [&](api::Kind kind) {
    std::set<std::string> out;
    auto list = c->List(*ResourceFor(kind), "");
    EXPECT_TRUE(list.ok()) << list.status();
    if (!list.ok()) return out;
    for (const auto& item : list->list["items"].GetArray()) {
      out.insert(absl::StrCat(Str(item, {"metadata", "namespace"}), "/", Str(item, {"metadata", "name"})));
    }
    return out;
  };
  // The test before deleted its pods, and the resourceclaim controller deletes their claims a moment
  // later, possibly while the dump runs: compare with a cluster that did not change during the dump
  // (the same nodes and claims listed before and after it), dumping again until it holds still.
  std::map<api::Kind, std::set<std::string>> dumped, want;
  bool still = false;
  int dumps = 0;
  for (absl::Time deadline = absl::Now() + absl::Seconds(60); !still && absl::Now() < deadline;) {
    ++dumps;
    want = {{api::Kind::kNode, server_names(api::Kind::kNode)},
            {api::Kind::kResourceClaim, server_names(api::Kind::kResourceClaim)}};
    CliRun d = Cli(absl::StrCat("dump --kubeconfig ", kubeconfig, " -o ", dump.string()));
    ASSERT_EQ(d.code, 0) << d.err;
    std::ifstream in(dump);
    std::stringstream text;
    text << in.rdbuf();
    auto objects = api::DecodeStream(text.str(), {});
    ASSERT_TRUE(objects.ok()) << objects.status();
    dumped.clear();
    for (const auto& o : *objects) {
      ASSERT_TRUE(o.object.ok()) << o.object.status();
      dumped[o.object->kind()].insert(absl::StrCat(o.object->metadata().namespace_.value_or(""), "/",
                                                   o.object->metadata().name.value_or("")));
    }
    still = want[api::Kind::kNode] == server_names(api::Kind::kNode) &&
            want[api::Kind::kResourceClaim] == server_names(api::Kind::kResourceClaim);
  }
  ASSERT_TRUE(still) << "the cluster's nodes or claims kept changing for 60 s";
  std::cout << "[cli] dumps until the cluster held still: " << dumps << "\n";
  EXPECT_EQ(dumped[api::Kind::kNode], want[api::Kind::kNode]);
  EXPECT_EQ(dumped[api::Kind::kResourceClaim], want[api::Kind::kResourceClaim]);
  EXPECT_TRUE(want[api::Kind::kResourceClaim].count("kube-cli/cli-claim"));

  // Online get and offline get over the dump print the same.
  CliRun online = Cli(absl::StrCat("get resourceclaims -n ", ns, " -o json --kubeconfig ", kubeconfig));
  CliRun offline = Cli(absl::StrCat("get resourceclaims -n ", ns, " -o json -f ", dump.string()));
  ASSERT_EQ(online.code, 0) << online.err;
  ASSERT_EQ(offline.code, 0) << offline.err;
  EXPECT_EQ(online.out, offline.out);
  EXPECT_THAT(online.out, HasSubstr("cli-claim"));
  // $KUBECONFIG is the default without -f.
  // Without -f: $KUBECONFIG (then ~/.kube/config, then in-cluster), as kubectl.
  CliRun by_env = Cli("get nodes", absl::StrCat("env KUBECONFIG=", kubeconfig));
  EXPECT_EQ(by_env.code, 0) << by_env.err;
  EXPECT_THAT(by_env.out, HasSubstr("node-1"));
  CliRun nothing = Cli("get nodes", "env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME=/nonexistent");
  EXPECT_EQ(nothing.code, 2);
  EXPECT_THAT(nothing.err, HasSubstr("no input"));
  CliRun with_context = Cli(absl::StrCat("get nodes --context draforge-test --kubeconfig ", kubeconfig));
  EXPECT_EQ(with_context.code, 0) << with_context.err;
  EXPECT_THAT(with_context.out, HasSubstr("node-1"));

  // Errors: a missing context, both -f and --kubeconfig, a forbidden identity.
  CliRun bad_ctx = Cli(absl::StrCat("get nodes --context nope --kubeconfig ", kubeconfig));
  EXPECT_EQ(bad_ctx.code, 2);
  EXPECT_THAT(bad_ctx.err, HasSubstr("context \"nope\" not found"));
  CliRun both = Cli(absl::StrCat("get nodes -f ", dump.string(), " --kubeconfig ", kubeconfig));
  EXPECT_EQ(both.code, 2);
  EXPECT_THAT(both.err, HasSubstr("not both"));
  CliRun denied = Cli(absl::StrCat("dump --kubeconfig ", Env("KUBE_RESTRICTED_KUBECONFIG")));
  EXPECT_NE(denied.code, 0);
  EXPECT_THAT(denied.err, HasSubstr("cannot list resource"));
  fs::remove(dump);
  (void)c->Delete(kClaims, ns, "cli-claim");
}

// The capacity views count within a namespace's ResourceQuotas: the one-shot read (`draforge dump`,
// the CLI's --kubeconfig mode) brings them along, and an identity that may not list them still reads
// the rest, with the reason recorded instead of a silent "no quota".
TEST(ClusterState, ReadsResourceQuotasAndSaysWhenItMayNot) {
  auto c = Admin();
  ASSERT_TRUE(c);
  const std::string ns = "kube-quota";
  EnsureNamespace(*c, ns);
  const Resource quotas = ResourceQuotaResource();
  (void)c->Delete(quotas, ns, "devices");
  ASSERT_TRUE(c->Create(quotas, ns,
                        Json(R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"devices"},)"
                             R"("spec":{"hard":{"x.deviceclass.resource.k8s.io/devices":"3"}}})"))
                  .ok());
  auto state = ListClusterState(*c, {.kinds = {api::Kind::kNode}, .namespace_ = ns, .pod_groups = false});
  ASSERT_TRUE(state.ok()) << state.status();
  std::vector<std::string> read;
  for (const api::Object& o : state->objects) {
    if (o.kind() != api::Kind::kOther) continue;
    const auto& other = std::get<api::OtherObject>(o.value);
    ASSERT_TRUE(api::IsResourceQuota(other)) << other.api_version << " " << other.kind;
    auto quota = api::ReadResourceQuota(other);
    ASSERT_TRUE(quota.ok()) << quota.status();
    read.push_back(absl::StrCat(quota->ns, "/", quota->name, " ", quota->spec_hard.size()));
  }
  EXPECT_THAT(read, testing::ElementsAre("kube-quota/devices 1"));
  EXPECT_TRUE(state->skipped.empty()) << absl::StrJoin(state->skipped, "; ");

  auto restricted = MakeClient(Env("KUBE_RESTRICTED_KUBECONFIG"));
  ASSERT_TRUE(restricted);
  auto partial = ListClusterState(*restricted, {.kinds = {}, .namespace_ = ns, .pod_groups = false});
  ASSERT_TRUE(partial.ok()) << partial.status();
  EXPECT_TRUE(partial->objects.empty());
  // ResourceQuotas and PodDisruptionBudgets the identity may not list are skipped, not errors.
  ASSERT_EQ(partial->skipped.size(), 2u);
  EXPECT_THAT(partial->skipped[0], testing::StartsWith("list resourcequotas: "));
  EXPECT_THAT(partial->skipped[0], HasSubstr("forbidden"));
  EXPECT_THAT(partial->skipped[1], testing::StartsWith("list poddisruptionbudgets: "));
  EXPECT_THAT(partial->skipped[1], HasSubstr("forbidden"));
  (void)c->Delete(quotas, ns, "devices");
}

}  // namespace
}  // namespace draforge::kube
