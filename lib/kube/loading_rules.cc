// client-go's loading rules over the kubeconfig loader (kubeconfig.cc) and InClusterConfig.
#include "kube/loading_rules.h"

#include <sys/stat.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status.h"

namespace draforge::kube {
namespace {

bool FileExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool InClusterAvailable(const InClusterOptions& options) { return !options.host.empty() && !options.port.empty(); }

std::string HomeKubeconfig(const std::string& home) {
  if (home.empty()) return "";
  return absl::StrCat(home, home.back() == '/' ? "" : "/", ".kube/config");
}

absl::StatusOr<ResolvedRestConfig> InCluster(const LoadingRules& rules) {
  ResolvedRestConfig out;
  out.source = ConfigSource::kInCluster;
  ASSIGN_OR_RETURN(out.config, InClusterConfig(rules.in_cluster));
  return out;
}

}  // namespace

std::string_view ConfigSourceName(ConfigSource source) {
  switch (source) {
    case ConfigSource::kExplicitPath: return "kubeconfig";
    case ConfigSource::kKubeconfigEnv: return "KUBECONFIG";
    case ConfigSource::kHome: return "home";
    case ConfigSource::kInCluster: return "in-cluster";
    case ConfigSource::kNone: break;
  }
  return "none";
}

absl::StatusOr<ResolvedRestConfig> ResolveRestConfig(const LoadingRules& rules) {
  const KubeconfigOptions options{.context = rules.context};
  absl::StatusOr<ResolvedRestConfig> out;
  if (!rules.explicit_path.empty()) {
    ResolvedRestConfig r;
    r.source = ConfigSource::kExplicitPath;
    r.files = {rules.explicit_path};
    ASSIGN_OR_RETURN(r.config, LoadKubeconfigFile(rules.explicit_path, options));
    out = std::move(r);
  } else if (std::vector<std::string> paths = absl::StrSplit(rules.kubeconfig_env, ':', absl::SkipEmpty());
             !paths.empty()) {
    ResolvedRestConfig r;
    r.source = ConfigSource::kKubeconfigEnv;
    absl::StatusOr<RestConfig> config = LoadKubeconfigFiles(paths, options);
    if (absl::IsNotFound(config.status()) && InClusterAvailable(rules.in_cluster)) {
      // None of the files exists: client-go's empty configuration, which a pod answers in-cluster.
      out = InCluster(rules);
    } else if (!config.ok()) {
      // The messages name the files, not that $KUBECONFIG chose them.
      return absl::Status(config.status().code(), absl::StrCat("$KUBECONFIG: ", config.status().message()));
    } else {
      for (const std::string& p : paths) {
        if (FileExists(p)) r.files.push_back(p);
      }
      r.config = *std::move(config);
      out = std::move(r);
    }
  } else if (std::string home = HomeKubeconfig(rules.home); !home.empty() && FileExists(home)) {
    ResolvedRestConfig r;
    r.source = ConfigSource::kHome;
    r.files = {home};
    ASSIGN_OR_RETURN(r.config, LoadKubeconfigFile(home, options));
    out = std::move(r);
  } else if (InClusterAvailable(rules.in_cluster)) {
    out = InCluster(rules);
  } else {
    return ResolvedRestConfig{};
  }
  if (out.ok()) out->config.exec_environment = rules.environment;
  return out;
}

absl::Status NoClusterConfigured(const LoadingRules& rules) {
  const std::string home = HomeKubeconfig(rules.home);
  return absl::NotFoundError(absl::StrCat(
      "no cluster configured: no kubeconfig was given, $KUBECONFIG is not set, ",
      home.empty() ? "no home directory is known" : absl::StrCat(home, " does not exist"),
      ", and KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set (not running in a pod)"));
}

}  // namespace draforge::kube
