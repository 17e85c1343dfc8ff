// kube::ResolveRestConfig: client-go's loading rules, each rule of the order, the $KUBECONFIG
// merge, --context, and the environment exec credential plugins get.
#include "kube/loading_rules.h"

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/internal/exec_credential.h"
#include "temp_dir.h"

namespace draforge::kube {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

constexpr char kCa[] = "-----BEGIN CERTIFICATE-----\nMIIBcA==\n-----END CERTIFICATE-----\n";

// A kubeconfig with one context `name` on server `server`, current unless `current` is empty.
std::string Kubeconfig(const std::string& name, const std::string& server, const std::string& current) {
  return absl::StrCat("apiVersion: v1\nkind: Config\n", current.empty() ? "" : "current-context: " + current + "\n",
                      "clusters:\n- name: ", name, "\n  cluster:\n    server: ", server, "\n",
                      "users:\n- name: ", name, "\n  user:\n    token: t-", name, "\n",
                      "contexts:\n- name: ", name, "\n  context:\n    cluster: ", name, "\n    user: ", name, "\n");
}

// A pod's service account in `dir`, and rules that point at it.
LoadingRules InPod(const TempDir& dir) {
  LoadingRules rules;
  rules.in_cluster.host = "10.96.0.1";
  rules.in_cluster.port = "443";
  rules.in_cluster.token_path = dir.Write("token", "sa-token");
  rules.in_cluster.ca_path = dir.Write("ca.crt", kCa);
  rules.in_cluster.namespace_path = dir.Write("namespace", "team-a\n");
  return rules;
}

TEST(ResolveRestConfig, ExplicitPathComesFirst) {
  TempDir dir;
  LoadingRules rules = InPod(dir);
  rules.explicit_path = dir.Write("explicit", Kubeconfig("e", "https://explicit:6443", "e"));
  rules.kubeconfig_env = dir.Write("env", Kubeconfig("v", "https://env:6443", "v"));
  std::filesystem::create_directories(dir.Path("home/.kube"));
  dir.Write("home/.kube/config", Kubeconfig("h", "https://home:6443", "h"));
  rules.home = dir.Path("home");
  auto r = ResolveRestConfig(rules);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->source, ConfigSource::kExplicitPath);
  EXPECT_EQ(r->config.server, "https://explicit:6443");
  EXPECT_THAT(r->files, ElementsAre(rules.explicit_path));
}

TEST(ResolveRestConfig, MissingExplicitPathIsAnErrorNotAFallback) {
  TempDir dir;
  LoadingRules rules = InPod(dir);
  rules.explicit_path = dir.Path("absent");
  auto r = ResolveRestConfig(rules);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr(dir.Path("absent")));
}

TEST(ResolveRestConfig, KubeconfigEnvBeatsHomeAndMergesItsFiles) {
  TempDir dir;
  LoadingRules rules;
  std::filesystem::create_directories(dir.Path("home/.kube"));
  dir.Write("home/.kube/config", Kubeconfig("h", "https://home:6443", "h"));
  rules.home = dir.Path("home");
  // The first file sets current-context "b", defined only in the second file: the merge resolves it.
  const std::string a = dir.Write("a", absl::StrCat(Kubeconfig("a", "https://a:6443", "b")));
  const std::string b = dir.Write("b", Kubeconfig("b", "https://b:6443", "a"));
  rules.kubeconfig_env = absl::StrCat(a, ":", dir.Path("missing"), "::", b);
  auto r = ResolveRestConfig(rules);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->source, ConfigSource::kKubeconfigEnv);
  EXPECT_EQ(r->config.server, "https://b:6443");
  EXPECT_EQ(r->config.context_name, "b");
  EXPECT_EQ(r->config.bearer_token, "t-b");
  EXPECT_THAT(r->files, ElementsAre(a, b));
}

TEST(ResolveRestConfig, KubeconfigEnvErrorsSayThatKubeconfigChoseTheFiles) {
  TempDir dir;
  LoadingRules rules;
  rules.kubeconfig_env = dir.Write("broken", "clusters: [");
  auto r = ResolveRestConfig(rules);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("$KUBECONFIG: "));
  EXPECT_THAT(r.status().message(), HasSubstr(rules.kubeconfig_env));
}

TEST(ResolveRestConfig, KubeconfigEnvWithNoExistingFileNamesThemOutsideAPod) {
  TempDir dir;
  LoadingRules rules;
  rules.kubeconfig_env = dir.Path("nope");
  auto r = ResolveRestConfig(rules);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr(dir.Path("nope")));
}

TEST(ResolveRestConfig, KubeconfigEnvWithNoExistingFileFallsBackToInClusterInAPod) {
  TempDir dir;
  LoadingRules rules = InPod(dir);
  rules.kubeconfig_env = dir.Path("nope");
  auto r = ResolveRestConfig(rules);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->source, ConfigSource::kInCluster);
}

TEST(ResolveRestConfig, HomeKubeconfigBeatsInCluster) {
  TempDir dir;
  LoadingRules rules = InPod(dir);
  std::filesystem::create_directories(dir.Path("home/.kube"));
  const std::string home_config = dir.Write("home/.kube/config", Kubeconfig("h", "https://home:6443", "h"));
  rules.home = dir.Path("home") + "/";
  auto r = ResolveRestConfig(rules);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->source, ConfigSource::kHome);
  EXPECT_EQ(r->config.server, "https://home:6443");
  EXPECT_THAT(r->files, ElementsAre(home_config));
}

TEST(ResolveRestConfig, InClusterWhenNoKubeconfigExists) {
  TempDir dir;
  LoadingRules rules = InPod(dir);
  rules.home = dir.Path("no-home");
  auto r = ResolveRestConfig(rules);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->source, ConfigSource::kInCluster);
  EXPECT_EQ(r->config.server, "https://10.96.0.1:443");
  EXPECT_EQ(r->config.default_namespace, "team-a");
  EXPECT_EQ(r->config.bearer_token_file, rules.in_cluster.token_path);
  EXPECT_TRUE(r->files.empty());
}

TEST(ResolveRestConfig, NothingConfiguredIsAResultAndItsErrorSaysWhatWasTried) {
  TempDir dir;
  LoadingRules rules;
  rules.home = dir.path();
  auto r = ResolveRestConfig(rules);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->source, ConfigSource::kNone);
  absl::Status none = NoClusterConfigured(rules);
  EXPECT_EQ(none.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(none.message(), HasSubstr(dir.path() + "/.kube/config does not exist"));
  EXPECT_THAT(none.message(), HasSubstr("KUBERNETES_SERVICE_HOST"));
}

TEST(ResolveRestConfig, ContextSelectsAnotherContextOfTheMergedFiles) {
  TempDir dir;
  LoadingRules rules;
  rules.kubeconfig_env = absl::StrCat(dir.Write("a", Kubeconfig("a", "https://a:6443", "a")), ":",
                                      dir.Write("b", Kubeconfig("b", "https://b:6443", "")));
  rules.context = "b";
  auto r = ResolveRestConfig(rules);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->config.server, "https://b:6443");
  rules.context = "c";
  EXPECT_THAT(ResolveRestConfig(rules).status().message(), HasSubstr("context \"c\" not found"));
}

// The regression the server had: its exec plugins ran with an empty environment. The rules hand
// the caller's environment to the plugin, whatever source the configuration came from.
TEST(ResolveRestConfig, ExecPluginsRunWithTheCallersEnvironment) {
  TempDir dir;
  const std::string plugin = dir.Script(
      "plugin.sh",
      "#!/bin/sh\nprintf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
      "\"status\":{\"token\":\"%s\"}}' \"$CALLER_TOKEN\"\n");
  LoadingRules rules;
  rules.explicit_path = dir.Write(
      "kubeconfig", absl::StrCat("apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: x\n"
                                 "  cluster:\n    server: https://x:6443\nusers:\n- name: x\n  user:\n    exec:\n"
                                 "      apiVersion: client.authentication.k8s.io/v1\n      command: ",
                                 plugin, "\ncontexts:\n- name: x\n  context:\n    cluster: x\n    user: x\n"));
  rules.environment = {"PATH=/usr/bin:/bin", "CALLER_TOKEN=from-the-caller"};
  auto r = ResolveRestConfig(rules);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->config.exec_environment, rules.environment);
  auto credential = internal::RunExecPlugin(r->config);
  ASSERT_TRUE(credential.ok()) << credential.status();
  EXPECT_EQ(credential->token, "from-the-caller");
}

}  // namespace
}  // namespace draforge::kube
