// kube::ResolveRestConfig: which API server a program talks to, by client-go's loading rules
// (clientcmd.ClientConfigLoadingRules plus rest.InClusterConfig), written once for every front end.
//
// The order: an explicit kubeconfig path; else $KUBECONFIG (a list of files, merged); else
// ~/.kube/config when it exists; else in-cluster (the pod's service account). The library reads no
// environment: the caller puts $KUBECONFIG, $HOME, KUBERNETES_SERVICE_HOST/PORT and the environment
// an exec credential plugin should see into LoadingRules.
#ifndef DRAFORGE_KUBE_LOADING_RULES_H_
#define DRAFORGE_KUBE_LOADING_RULES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/config.h"

namespace draforge::kube {

struct LoadingRules {
  std::string explicit_path;   // kubectl's --kubeconfig; "": none
  std::string kubeconfig_env;  // the value of $KUBECONFIG (':'-separated); "": unset
  std::string home;            // $HOME; "": no ~/.kube/config
  std::string context;         // "": the kubeconfig's current-context
  // "NAME=value" strings: the environment exec credential plugins run with (plus the kubeconfig's
  // exec.env). client-go hands plugins the caller's environment; so should every caller.
  std::vector<std::string> environment;
  // KUBERNETES_SERVICE_HOST/PORT and the service account files; host or port "": not in a pod.
  InClusterOptions in_cluster;
};

// Where a configuration came from.
enum class ConfigSource {
  kNone,           // nothing configured (not an error of ResolveRestConfig: see NoClusterConfigured)
  kExplicitPath,   // LoadingRules::explicit_path
  kKubeconfigEnv,  // $KUBECONFIG
  kHome,           // ~/.kube/config
  kInCluster,      // the service account
};

// "kubeconfig", "KUBECONFIG", "home", "in-cluster", "none".
std::string_view ConfigSourceName(ConfigSource source);

struct ResolvedRestConfig {
  ConfigSource source = ConfigSource::kNone;
  // The kubeconfig files that were read (in merge order); empty in-cluster and for kNone.
  std::vector<std::string> files;
  // Meaningful unless source is kNone; exec_environment is LoadingRules::environment.
  RestConfig config;
};

// Applies the rules. Unlike client-go, a $KUBECONFIG none of whose files exist is an error naming
// them unless in-cluster is available (client-go falls back to in-cluster in that case too, and
// otherwise reports an empty configuration). Errors: those of LoadKubeconfigFile (explicit path,
// ~/.kube/config) and LoadKubeconfigFiles ($KUBECONFIG; messages start with "$KUBECONFIG: "), and
// of InClusterConfig. Nothing configured is a result: source kNone.
absl::StatusOr<ResolvedRestConfig> ResolveRestConfig(const LoadingRules& rules);

// The error for a kNone result: NotFound "no cluster configured: ..." listing what was tried.
absl::Status NoClusterConfigured(const LoadingRules& rules);

}  // namespace draforge::kube

#endif  // DRAFORGE_KUBE_LOADING_RULES_H_
