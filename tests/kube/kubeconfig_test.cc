// Offline tests of lib/kube: kubeconfig and in-cluster loading, exec credentials, API errors, paths.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api_status.h"
#include "kube/config.h"
#include "kube/internal/exec_credential.h"
#include "kube/internal/query.h"
#include "kube/resource.h"
#include "temp_dir.h"

namespace draforge::kube {
namespace {

using ::testing::HasSubstr;

constexpr char kCa[] = "-----BEGIN CERTIFICATE-----\nMIIBcA==\n-----END CERTIFICATE-----\n";
constexpr char kCert[] = "-----BEGIN CERTIFICATE-----\nMIIBcB==\n-----END CERTIFICATE-----\n";
constexpr char kKey[] = "-----BEGIN EC PRIVATE KEY-----\nMHcC==\n-----END EC PRIVATE KEY-----\n";

using testing::TempDir;

std::string TwoContexts(const std::string& dir) {
  return absl::StrCat(R"(apiVersion: v1
kind: Config
current-context: files
clusters:
- name: c-files
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority: pki/ca.crt
    proxy-url: socks5://proxy:1080
    tls-server-name: kubernetes.default
- name: c-data
  cluster:
    server: https://api.example.com
    certificate-authority-data: )", absl::Base64Escape(kCa), R"(
- name: c-insecure
  cluster:
    server: https://10.0.0.1
    insecure-skip-tls-verify: true
users:
- name: u-files
  user:
    client-certificate: )", dir, R"(/pki/admin.crt
    client-key: pki/admin.key
- name: u-data
  user:
    client-certificate-data: )", absl::Base64Escape(kCert), R"(
    client-key-data: )", absl::Base64Escape(kKey), R"(
    token: secret-token
- name: u-tokenfile
  user:
    tokenFile: token
- name: u-exec
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/cred
      args: [get, --audience, k8s]
      env:
      - name: CRED_MODE
        value: fast
      provideClusterInfo: true
      interactiveMode: Never
contexts:
- name: files
  context: {cluster: c-files, user: u-files, namespace: team-a}
- name: data
  context: {cluster: c-data, user: u-data}
- name: tokenfile
  context: {cluster: c-insecure, user: u-tokenfile}
- name: exec
  context: {cluster: c-data, user: u-exec}
- name: missing-user
  context: {cluster: c-data, user: nobody}
)");
}

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.path() + "/pki");
    dir_.Write("pki/ca.crt", kCa);
    dir_.Write("pki/admin.crt", kCert);
    dir_.Write("pki/admin.key", kKey);
    dir_.Write("token", "file-token\n");
    path_ = dir_.Write("config", TwoContexts(dir_.path()));
  }
  TempDir dir_;
  std::string path_;
};

TEST_F(KubeconfigTest, CurrentContextReadsFilesRelativeToTheKubeconfig) {
  auto c = LoadKubeconfigFile(path_);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->context_name, "files");
  EXPECT_EQ(c->server, "https://127.0.0.1:6443");  // trailing slash dropped
  EXPECT_EQ(c->ca_pem, kCa);
  EXPECT_EQ(c->client_certificate_pem, kCert);
  EXPECT_EQ(c->client_key_pem, kKey);
  EXPECT_EQ(c->proxy_url, "socks5://proxy:1080");
  EXPECT_EQ(c->tls_server_name, "kubernetes.default");
  EXPECT_EQ(c->default_namespace, "team-a");
  EXPECT_FALSE(c->exec.has_value());
}

TEST_F(KubeconfigTest, ExplicitContextWithInlineDataAndToken) {
  auto c = LoadKubeconfigFile(path_, {.context = "data"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://api.example.com");
  EXPECT_EQ(c->ca_pem, kCa);
  EXPECT_EQ(c->client_certificate_pem, kCert);
  EXPECT_EQ(c->client_key_pem, kKey);
  EXPECT_EQ(c->bearer_token, "secret-token");
  EXPECT_EQ(c->default_namespace, "default");
}

TEST_F(KubeconfigTest, NamespaceOverrideWins) {
  auto c = LoadKubeconfigFile(path_, {.context = "files", .namespace_override = "other"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->default_namespace, "other");
}

TEST_F(KubeconfigTest, TokenFileIsResolvedAndInsecureIsKept) {
  auto c = LoadKubeconfigFile(path_, {.context = "tokenfile"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->bearer_token_file, dir_.path() + "/token");
  EXPECT_TRUE(c->bearer_token.empty());
  EXPECT_TRUE(c->insecure_skip_tls_verify);
  EXPECT_TRUE(c->ca_pem.empty());
}

TEST_F(KubeconfigTest, ExecPluginSettings) {
  auto c = LoadKubeconfigFile(path_, {.context = "exec"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(c->exec.has_value());
  EXPECT_EQ(c->exec->api_version, "client.authentication.k8s.io/v1");
  EXPECT_EQ(c->exec->command, dir_.path() + "/./bin/cred");
  EXPECT_THAT(c->exec->args, ::testing::ElementsAre("get", "--audience", "k8s"));
  ASSERT_EQ(c->exec->env.size(), 1u);
  EXPECT_EQ(c->exec->env[0].first, "CRED_MODE");
  EXPECT_EQ(c->exec->env[0].second, "fast");
  EXPECT_TRUE(c->exec->provide_cluster_info);
}

TEST_F(KubeconfigTest, ErrorsNameTheContextUserAndFile) {
  auto missing_ctx = LoadKubeconfigFile(path_, {.context = "nope"});
  EXPECT_EQ(missing_ctx.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing_ctx.status().message(), HasSubstr("context \"nope\" not found"));
  EXPECT_THAT(missing_ctx.status().message(), HasSubstr(path_));

  auto missing_user = LoadKubeconfigFile(path_, {.context = "missing-user"});
  EXPECT_THAT(missing_user.status().message(), HasSubstr("user \"nobody\" not found"));

  auto no_file = LoadKubeconfigFile(dir_.path() + "/absent");
  EXPECT_EQ(no_file.status().code(), absl::StatusCode::kNotFound);
}

// A file path in a kubeconfig that names something endless is refused at a bound, not read until
// memory runs out.
TEST(ParseKubeconfig, EndlessCertificateFileIsRefusedAtItsBound) {
  auto config = ParseKubeconfig(
      "current-context: x\ncontexts:\n- name: x\n  context: {cluster: k}\nclusters:\n- name: k\n  "
      "cluster: {server: https://h, certificate-authority: /dev/zero}\n",
      "/");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(config.status().message(), HasSubstr("/dev/zero is larger than 16777216 bytes"));
}

TEST(ParseKubeconfig, RejectsBadInputWithTheField) {
  struct Case {
    std::string yaml;
    std::string want;
  } cases[] = {
      {"a: [", "not valid YAML"},
      {"- 1\n- 2\n", "not a YAML map"},
      {"kind: Pod\n", "want Config"},
      {"clusters: []\ncontexts: []\n", "no current-context"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: k}\nclusters:\n- name: k\n  cluster: {}\n",
       "cluster \"k\": server is required"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: k}\nclusters:\n- name: k\n  cluster: "
       "{server: ftp://h}\n",
       "is not an http(s) URL"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: k}\nclusters:\n- name: k\n  cluster: "
       "{server: https://h, certificate-authority-data: '!!!'}\n",
       "certificate-authority-data: not valid base64"},
      {absl::StrCat("current-context: x\ncontexts:\n- name: x\n  context: {cluster: k}\nclusters:\n- name: k\n  "
                    "cluster: {server: https://h, certificate-authority-data: ",
                    absl::Base64Escape("hello"), "}\n"),
       "no PEM data found"},
      {absl::StrCat("current-context: x\ncontexts:\n- name: x\n  context: {cluster: k}\nclusters:\n- name: k\n  "
                    "cluster: {server: https://h, insecure-skip-tls-verify: true, certificate-authority-data: ",
                    absl::Base64Escape(kCa), "}\n"),
       "cannot both be set"},
      {absl::StrCat("current-context: x\ncontexts:\n- name: x\n  context: {cluster: k, user: u}\nclusters:\n- "
                    "name: k\n  cluster: {server: https://h}\nusers:\n- name: u\n  user: {client-certificate-data: ",
                    absl::Base64Escape(kCert), "}\n"),
       "user \"u\": client-certificate is set without client-key"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  "
       "cluster: {server: https://h}\nusers:\n- name: u\n  user: {exec: {apiVersion: "
       "client.authentication.k8s.io/v1alpha1, command: x}}\n",
       "is not supported"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  "
       "cluster: {server: https://h}\nusers:\n- name: u\n  user: {auth-provider: {name: gcp}}\n",
       "auth-provider plugins were removed"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  "
       "cluster: {server: https://h}\nusers:\n- name: u\n  user: {tokenFile: /nonexistent/token}\n",
       "tokenFile"},
  };
  for (const Case& c : cases) {
    auto config = ParseKubeconfig(c.yaml, "/tmp");
    EXPECT_FALSE(config.ok()) << c.yaml;
    EXPECT_THAT(config.status().message(), HasSubstr(c.want)) << c.yaml;
  }
}

// $KUBECONFIG=a:b:c, merged as kubectl merges it.
class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.path() + "/one/pki");
    std::filesystem::create_directories(dir_.path() + "/two/pki");
    dir_.Write("one/pki/ca.crt", kCa);
    dir_.Write("two/pki/ca.crt", kCa);
    dir_.Write("two/pki/client.crt", kCert);
    dir_.Write("two/pki/client.key", kKey);
    dir_.Write("two/token", "t0k3n\n");
    one_ = dir_.Write("one/config", R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: shared
  cluster:
    server: https://one.example.com
    certificate-authority: pki/ca.crt
contexts:
- name: dev
  context:
    cluster: shared
    user: admin
    namespace: team-one
)");
    two_ = dir_.Write("two/config", R"(apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: shared
  cluster:
    server: https://two.example.com
    insecure-skip-tls-verify: true
- name: prod-cluster
  cluster:
    server: https://prod.example.com
    certificate-authority: pki/ca.crt
users:
- name: admin
  user:
    client-certificate: pki/client.crt
    client-key: pki/client.key
- name: robot
  user:
    tokenFile: token
contexts:
- name: dev
  context:
    cluster: prod-cluster
    user: robot
- name: prod
  context:
    cluster: prod-cluster
    user: robot
    namespace: team-two
)");
  }

  TempDir dir_;
  std::string one_;
  std::string two_;
};

TEST_F(MergeTest, FirstFileWinsForEachNameAndForCurrentContext) {
  auto config = LoadKubeconfigFiles({one_, two_});
  ASSERT_TRUE(config.ok()) << config.status();
  // current-context "dev" and context "dev" come from the first file, not the second's "prod"/"dev".
  EXPECT_EQ(config->context_name, "dev");
  EXPECT_EQ(config->default_namespace, "team-one");
  // Cluster "shared" is the first file's, whole: its CA, and not the second's insecure flag.
  EXPECT_EQ(config->server, "https://one.example.com");
  EXPECT_EQ(config->ca_pem, kCa);
  EXPECT_FALSE(config->insecure_skip_tls_verify);
  // User "admin" exists only in the second file: its relative paths are resolved against
  // two/, where it was declared, not against one/ where the context is.
  EXPECT_EQ(config->client_certificate_pem, kCert);
  EXPECT_EQ(config->client_key_pem, kKey);
}

TEST_F(MergeTest, OrderDecides) {
  auto config = LoadKubeconfigFiles({two_, one_});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->context_name, "prod");
  EXPECT_EQ(config->server, "https://prod.example.com");
  EXPECT_EQ(config->default_namespace, "team-two");
  EXPECT_EQ(config->bearer_token_file, dir_.path() + "/two/token");

  KubeconfigOptions dev;
  dev.context = "dev";
  config = LoadKubeconfigFiles({two_, one_}, dev);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://prod.example.com");  // the second file's "dev" lost
  EXPECT_EQ(config->default_namespace, "default");
}

TEST_F(MergeTest, ContextFromOneFileUsesClusterAndUserOfAnother) {
  KubeconfigOptions prod;
  prod.context = "prod";
  // "prod" is only in the second file; its cluster and user resolve in the merged whole.
  auto config = LoadKubeconfigFiles({one_, two_}, prod);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://prod.example.com");
  EXPECT_EQ(config->ca_pem, kCa);
  EXPECT_EQ(config->bearer_token_file, dir_.path() + "/two/token");
}

TEST_F(MergeTest, MissingEmptyAndRepeatedEntriesAreSkipped) {
  std::string empty = dir_.Write("empty", "");
  auto config = LoadKubeconfigFiles({"", dir_.path() + "/nope", empty, two_, one_, two_});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->context_name, "prod");

  auto none = LoadKubeconfigFiles({dir_.path() + "/nope", dir_.path() + "/neither"});
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(absl::IsNotFound(none.status())) << none.status();
  EXPECT_THAT(none.status().message(), HasSubstr(dir_.path() + "/neither"));
  EXPECT_TRUE(absl::IsNotFound(LoadKubeconfigFiles({}).status()));
}

TEST_F(MergeTest, ABadFileFailsTheLoadAndIsNamed) {
  std::string bad = dir_.Write("bad", "clusters: {not: a list}\n");
  auto config = LoadKubeconfigFiles({one_, bad, two_});
  ASSERT_FALSE(config.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(config.status())) << config.status();
  EXPECT_THAT(config.status().message(), HasSubstr(bad + ": kubeconfig: clusters: must be a list"));
}

TEST_F(MergeTest, ErrorsNameTheFileThatDeclaredTheEntry) {
  std::string three = dir_.Write("three", R"(kind: Config
current-context: broken
contexts:
- name: broken
  context: {cluster: prod-cluster, user: lost}
users:
- name: lost
  user: {client-key: nowhere.key, client-certificate: nowhere.crt}
)");
  auto config = LoadKubeconfigFiles({three, two_});
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr(three + ": user \"lost\": client-certificate"));
  EXPECT_THAT(config.status().message(), HasSubstr(dir_.path() + "/nowhere.crt"));

  KubeconfigOptions other;
  other.context = "staging";
  config = LoadKubeconfigFiles({one_, two_}, other);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(),
              HasSubstr(absl::StrCat("context \"staging\" not found in ", one_, ", ", two_)));

  // With one file left, messages about the whole still say which file was read.
  config = LoadKubeconfigFiles({dir_.path() + "/nope", one_}, other);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr(absl::StrCat("context \"staging\" not found in ", one_)));
}

TEST(InClusterConfig, BuildsTheServiceUrlAndReadsTheServiceAccount) {
  TempDir dir;
  InClusterOptions o;
  o.host = "10.96.0.1";
  o.port = "443";
  o.token_path = dir.Write("token", "sa-token");
  o.ca_path = dir.Write("ca.crt", kCa);
  o.namespace_path = dir.Write("namespace", "dra-system\n");
  auto c = InClusterConfig(o);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://10.96.0.1:443");
  EXPECT_EQ(c->bearer_token_file, o.token_path);
  EXPECT_EQ(c->ca_pem, kCa);
  EXPECT_EQ(c->default_namespace, "dra-system");

  o.host = "fd00::1";
  EXPECT_EQ(InClusterConfig(o)->server, "https://[fd00::1]:443");
}

TEST(InClusterConfig, OutsideAPodIsAClearError) {
  auto c = InClusterConfig({});
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(c.status().message(), HasSubstr("not running in a pod"));
  TempDir dir;
  InClusterOptions o{.host = "h", .port = "1", .token_path = dir.path() + "/none"};
  EXPECT_EQ(InClusterConfig(o).status().code(), absl::StatusCode::kNotFound);
}

ExecConfig V1Exec() {
  ExecConfig e;
  e.api_version = "client.authentication.k8s.io/v1";
  e.command = "cred";
  return e;
}

TEST(ExecCredential, ParsesTokenCertificateAndExpiry) {
  auto cred = internal::ParseExecCredential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
          "status":{"token":"t0k","expirationTimestamp":"2030-01-02T03:04:05Z"}})",
      V1Exec());
  ASSERT_TRUE(cred.ok()) << cred.status();
  EXPECT_EQ(cred->token, "t0k");
  ASSERT_TRUE(cred->expiration.has_value());
  EXPECT_EQ(*cred->expiration, absl::FromCivil(absl::CivilSecond(2030, 1, 2, 3, 4, 5), absl::UTCTimeZone()));

  auto cert = internal::ParseExecCredential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
          "status":{"clientCertificateData":"C","clientKeyData":"K"}})",
      V1Exec());
  ASSERT_TRUE(cert.ok()) << cert.status();
  EXPECT_EQ(cert->client_certificate_pem, "C");
  EXPECT_FALSE(cert->expiration.has_value());
}

TEST(ExecCredential, RejectsWrongAnswers) {
  std::pair<const char*, const char*> cases[] = {
      {"not json", "not a JSON ExecCredential"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod"})", "want ExecCredential"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"x"}})",
       "want \"client.authentication.k8s.io/v1\""},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})", "has no status"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}})",
       "neither token nor"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientKeyData":"k"}})",
       "must be set together"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"x","expirationTimestamp":"tomorrow"}})",
       "not RFC 3339"},
  };
  for (const auto& [out, want] : cases) {
    auto cred = internal::ParseExecCredential(out, V1Exec());
    EXPECT_FALSE(cred.ok()) << out;
    EXPECT_THAT(cred.status().message(), HasSubstr(want)) << out;
    EXPECT_THAT(cred.status().message(), HasSubstr("exec plugin cred")) << out;
  }
}

TEST(ExecCredential, RunsThePluginWithTheGivenEnvironmentOnly) {
  TempDir dir;
  std::string script = dir.Write("plugin.sh", R"(#!/bin/sh
case "$KUBERNETES_EXEC_INFO" in *'"interactive":false'*) ;; *) echo "bad exec info" >&2; exit 3;; esac
echo "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"$1-$TOKEN_SUFFIX-${HOME:-nohome}\"}}"
)");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  RestConfig config;
  config.server = "https://h";
  config.exec = V1Exec();
  config.exec->command = script;
  config.exec->args = {"abc"};
  config.exec->env = {{"TOKEN_SUFFIX", "xyz"}};
  config.exec_environment = {"PATH=/usr/bin:/bin"};
  auto cred = internal::RunExecPlugin(config);
  ASSERT_TRUE(cred.ok()) << cred.status();
  // HOME is not passed: the plugin sees only what the caller gave.
  EXPECT_EQ(cred->token, "abc-xyz-nohome");

  std::string failing = dir.Write("fail.sh", "#!/bin/sh\necho 'token expired, run login' >&2\nexit 4\n");
  std::filesystem::permissions(failing, std::filesystem::perms::owner_all);
  config.exec->command = failing;
  auto failed = internal::RunExecPlugin(config);
  EXPECT_THAT(failed.status().message(), HasSubstr("exit status 4"));
  EXPECT_THAT(failed.status().message(), HasSubstr("token expired, run login"));

  config.exec->command = dir.path() + "/absent";
  config.exec->install_hint = "install cred from example.com";
  auto absent = internal::RunExecPlugin(config);
  EXPECT_EQ(absent.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(absent.status().message(), HasSubstr("install cred from example.com"));
}

TEST(ApiStatus, CarriesTheServersStatusThroughAbslStatus) {
  auto parsed = ParseApiStatus(R"({"kind":"Status","apiVersion":"v1","status":"Failure",
    "message":"ResourceClaim.resource.k8s.io \"c\" is invalid: spec.devices.requests[0].name: Required value",
    "reason":"Invalid","code":422,"details":{"name":"c","group":"resource.k8s.io","kind":"ResourceClaim",
    "causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.devices.requests[0].name"}]}})");
  ASSERT_TRUE(parsed.has_value());
  absl::Status s = ApiError(*parsed, "create resourceclaims.resource.k8s.io default/c");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("create resourceclaims.resource.k8s.io default/c: 422 Invalid"));
  EXPECT_TRUE(IsApiInvalid(s));
  EXPECT_FALSE(IsApiConflict(s));
  auto back = GetApiStatus(s);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, *parsed);
  ASSERT_EQ(back->causes.size(), 1u);
  EXPECT_EQ(back->causes[0].field, "spec.devices.requests[0].name");

  ApiStatus conflict{.code = 409, .reason = "Conflict", .message = "the object has been modified"};
  EXPECT_TRUE(IsApiConflict(ApiError(conflict, "update")));
  EXPECT_EQ(ApiError(conflict, "update").code(), absl::StatusCode::kAborted);
  ApiStatus exists{.code = 409, .reason = "AlreadyExists"};
  EXPECT_TRUE(IsApiAlreadyExists(ApiError(exists, "create")));
  EXPECT_FALSE(IsApiConflict(ApiError(exists, "create")));
  ApiStatus gone{.code = 410, .reason = "Expired"};
  EXPECT_TRUE(IsApiGone(ApiError(gone, "watch")));
  EXPECT_FALSE(GetApiStatus(absl::UnavailableError("connection refused")).has_value());
  EXPECT_FALSE(ParseApiStatus(R"({"kind":"Pod"})").has_value());
  EXPECT_FALSE(ParseApiStatus("<html>").has_value());
}

TEST(Resource, PathsForEveryKind) {
  EXPECT_EQ(ResourceFor(api::Kind::kResourceClaim)->ObjectPath("ns", "c", "status"),
            "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c/status");
  EXPECT_EQ(ResourceFor(api::Kind::kResourceClaim)->CollectionPath(""), "/apis/resource.k8s.io/v1/resourceclaims");
  EXPECT_EQ(ResourceFor(api::Kind::kResourceSlice, "v1beta2")->CollectionPath("ignored"),
            "/apis/resource.k8s.io/v1beta2/resourceslices");
  EXPECT_EQ(ResourceFor(api::Kind::kPod)->ObjectPath("default", "p"), "/api/v1/namespaces/default/pods/p");
  EXPECT_EQ(ResourceFor(api::Kind::kNode)->ObjectPath("", "n"), "/api/v1/nodes/n");
  EXPECT_EQ(LeaseResource().ObjectPath("kube-system", "l"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l");
  EXPECT_FALSE(ResourceFor(api::Kind::kOther).has_value());
  EXPECT_EQ(internal::QueryEscape("app in (a,b)&x=y"), "app%20in%20%28a%2Cb%29%26x%3Dy");
}

}  // namespace
}  // namespace draforge::kube
