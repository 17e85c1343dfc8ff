// kube::RestConfig: how to reach and authenticate to one API server, loaded from a kubeconfig file
// (clientcmd semantics) or from a pod's service account (in-cluster).
//
// Loading reads the files a kubeconfig names (CA, client certificate and key) at load time, so a
// RestConfig holds PEM text, never paths, except for token files, which are re-read as they rotate.
// Nothing here reads the environment: the caller picks the kubeconfig path (kubectl's order is
// --kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster) and passes the environment an exec
// credential plugin should see.
#ifndef DRAFORGE_KUBE_CONFIG_H_
#define DRAFORGE_KUBE_CONFIG_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace draforge::kube {

// users[].user.exec of a kubeconfig: a client.authentication.k8s.io credential plugin.
struct ExecConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 or v1beta1
  std::string command;      // resolved against `base_dir` when it contains a slash and is relative
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to RestConfig::exec_environment
  bool provide_cluster_info = false;
  std::string interactive_mode;  // Never, IfAvailable, Always; plugins are always run non-interactive
  std::string install_hint;      // appended to the error when the command cannot be run
};

struct RestConfig {
  // https://host:port (optionally with a path prefix), without a trailing slash.
  std::string server;
  std::string tls_server_name;  // clusters[].cluster.tls-server-name
  std::string ca_pem;           // certificate-authority(-data); empty: the system trust store
  bool insecure_skip_tls_verify = false;
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::string bearer_token;       // users[].user.token
  std::string bearer_token_file;  // users[].user.tokenFile: re-read every minute (rotation)
  std::string username;           // basic auth, kept for completeness
  std::string password;
  std::optional<ExecConfig> exec;
  std::string proxy_url;  // clusters[].cluster.proxy-url (http, https, socks5)
  // contexts[].context.namespace, or "default".
  std::string default_namespace = "default";
  std::string context_name;  // the context used ("" for in-cluster)
  // Per-request timeout (not applied to watches, which have their own).
  absl::Duration timeout = absl::Seconds(30);
  // The environment ("NAME=value") an exec plugin runs with, plus ExecConfig::env. The caller fills
  // it (typically from its own environ); the library never reads the environment.
  std::vector<std::string> exec_environment;
  // How long an exec plugin may run before its process group is killed and the request fails with
  // DeadlineExceeded naming the command. client-go waits for ever; a plugin that hangs (a browser
  // login nobody answers, a dead metadata endpoint) would then hang every caller, Lease renewals
  // included. 30 s leaves room for a plugin that fetches a token over the network. A kubeconfig
  // cannot set it: it is the embedding program's choice. InfiniteDuration: no deadline.
  absl::Duration exec_timeout = absl::Seconds(30);
  // Whether credentials may be sent to an http:// server: the bearer token (token, tokenFile or an
  // exec plugin's token) and basic-auth username/password. Off by default, unlike client-go, which
  // sends them: over plain HTTP anyone on the path reads the token and can act as this identity
  // until it expires, and a service account token does not expire soon. With it off, requests to
  // an http:// server go without credentials (an exec plugin is not even run) and a 401 answer says
  // why. Meant for a local test server or `kubectl proxy` on loopback; a kubeconfig cannot set it.
  bool allow_credentials_over_http = false;
  // User-Agent header.
  std::string user_agent = "draforge";
};

struct KubeconfigOptions {
  // The context to use; empty: current-context.
  std::string context;
  // Overrides the context's namespace when non-empty.
  std::string namespace_override;
};

// Parses kubeconfig YAML. Relative file paths are resolved against `base_dir` (the file's folder),
// as kubectl does. Errors (InvalidArgument, naming the file, context, cluster or user and the field):
// malformed YAML, an unknown or missing context/cluster/user, no server, unreadable or
// non-PEM certificate data, invalid base64 in *-data fields, a client certificate without its key.
// NotFound when a referenced file does not exist.
absl::StatusOr<RestConfig> ParseKubeconfig(std::string_view yaml, std::string_view base_dir,
                                           const KubeconfigOptions& options = {});

// Reads and parses the kubeconfig at `path` (messages name the path).
absl::StatusOr<RestConfig> LoadKubeconfigFile(const std::string& path, const KubeconfigOptions& options = {});

// Reads the kubeconfig files `paths` (the entries of $KUBECONFIG, split by the caller, in order) and
// merges them as kubectl does (client-go clientcmd.ClientConfigLoadingRules.Load): for clusters,
// users and contexts the first file that defines a name wins, whole (entries are not merged field
// by field); current-context comes from the first file that sets it; relative paths in an entry
// (certificate-authority, client-certificate, client-key, tokenFile, an exec command with a '/')
// are resolved against the folder of the file that declared the entry; files that do not exist
// are skipped, empty entries and repeated paths are ignored, and an empty file is an empty config.
// The chosen context may then use a cluster and a user from other files.
// Errors: NotFound when no file of the list exists; the errors of ParseKubeconfig, prefixed with
// the file at fault, when any existing file is unreadable or malformed (even one whose entries
// would not be used, as kubectl refuses it too) or the chosen context cannot be resolved.
absl::StatusOr<RestConfig> LoadKubeconfigFiles(const std::vector<std::string>& paths,
                                               const KubeconfigOptions& options = {});

// Where a pod finds its API server and credentials. The caller reads KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT (the library does not read the environment).
struct InClusterOptions {
  std::string host;
  std::string port;
  std::string token_path = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string ca_path = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  std::string namespace_path = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
};

// The configuration client-go's rest.InClusterConfig builds: https://host:port (IPv6 hosts in
// brackets), the CA file's contents, the token file (re-read as it rotates), the pod's namespace.
// Errors: FailedPrecondition when host or port is empty (not running in a pod), NotFound when the
// token file is missing, InvalidArgument when the CA file holds no PEM certificate.
absl::StatusOr<RestConfig> InClusterConfig(const InClusterOptions& options);

}  // namespace draforge::kube

#endif  // DRAFORGE_KUBE_CONFIG_H_
