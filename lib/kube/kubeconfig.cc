// Kubeconfig loading with client-go clientcmd's rules for the fields DRAForge supports.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status.h"
#include "kube/config.h"
#include "kube/internal/files.h"
#include "yaml-cpp/yaml.h"

namespace draforge::kube {
namespace {

using internal::ReadFileText;
using internal::ResolvePath;

absl::Status Invalid(std::string_view where, std::string_view msg) {
  return absl::InvalidArgumentError(absl::StrCat("kubeconfig: ", AV(where), ": ", AV(msg)));
}

// A scalar field as a string; "" when absent; error when present but not a scalar.
absl::StatusOr<std::string> Scalar(const YAML::Node& node, const char* key, std::string_view where) {
  YAML::Node v = node[key];
  if (!v || v.IsNull()) return std::string();
  if (!v.IsScalar()) return Invalid(where, absl::StrCat("field ", key, " must be a string"));
  return v.Scalar();
}

absl::StatusOr<bool> Bool(const YAML::Node& node, const char* key, std::string_view where) {
  ASSIGN_OR_RETURN(std::string v, Scalar(node, key, where));
  if (v.empty() || v == "false") return false;
  if (v == "true") return true;
  return Invalid(where, absl::StrCat("field ", key, " must be true or false, not \"", v, "\""));
}

// PEM text from either the inline base64 `data_key` or the file `file_key` (data wins, as in
// client-go). `what` names the field in messages.
absl::StatusOr<std::string> PemField(const YAML::Node& node, const char* file_key, const char* data_key,
                                     std::string_view where, std::string_view base_dir) {
  ASSIGN_OR_RETURN(std::string data, Scalar(node, data_key, where));
  ASSIGN_OR_RETURN(std::string file, Scalar(node, file_key, where));
  std::string pem;
  if (!data.empty()) {
    if (!absl::Base64Unescape(data, &pem)) {
      return Invalid(where, absl::StrCat(data_key, ": not valid base64"));
    }
  } else if (!file.empty()) {
    std::string path = ResolvePath(base_dir, file);
    ASSIGN_OR_RETURN(pem, ReadFileText(path, absl::StrCat("kubeconfig: ", AV(where), ": ", file_key)));
  } else {
    return std::string();
  }
  if (pem.find("-----BEGIN ") == std::string::npos) {
    return Invalid(where, absl::StrCat(data.empty() ? file_key : data_key, ": no PEM data found"));
  }
  return pem;
}

absl::StatusOr<ExecConfig> ParseExec(const YAML::Node& node, std::string_view where, std::string_view base_dir) {
  if (!node.IsMap()) return Invalid(where, "exec must be a map");
  ExecConfig exec;
  std::string ewhere = absl::StrCat(AV(where), ": exec");
  ASSIGN_OR_RETURN(exec.api_version, Scalar(node, "apiVersion", ewhere));
  if (exec.api_version != "client.authentication.k8s.io/v1" &&
      exec.api_version != "client.authentication.k8s.io/v1beta1") {
    return Invalid(ewhere, absl::StrCat("apiVersion \"", exec.api_version,
                                        "\" is not supported (client.authentication.k8s.io/v1 or v1beta1)"));
  }
  ASSIGN_OR_RETURN(exec.command, Scalar(node, "command", ewhere));
  if (exec.command.empty()) return Invalid(ewhere, "command is required");
  // client-go resolves a relative command with a path separator against the kubeconfig's folder.
  if (exec.command.find('/') != std::string::npos) exec.command = ResolvePath(base_dir, exec.command);
  if (YAML::Node args = node["args"]; args && !args.IsNull()) {
    if (!args.IsSequence()) return Invalid(ewhere, "args must be a list of strings");
    for (const auto& a : args) {
      if (!a.IsScalar()) return Invalid(ewhere, "args must be a list of strings");
      exec.args.push_back(a.Scalar());
    }
  }
  if (YAML::Node env = node["env"]; env && !env.IsNull()) {
    if (!env.IsSequence()) return Invalid(ewhere, "env must be a list of {name, value}");
    for (const auto& e : env) {
      if (!e.IsMap()) return Invalid(ewhere, "env must be a list of {name, value}");
      ASSIGN_OR_RETURN(std::string name, Scalar(e, "name", ewhere));
      ASSIGN_OR_RETURN(std::string value, Scalar(e, "value", ewhere));
      if (name.empty()) return Invalid(ewhere, "env entry without a name");
      exec.env.emplace_back(name, value);
    }
  }
  ASSIGN_OR_RETURN(exec.provide_cluster_info, Bool(node, "provideClusterInfo", ewhere));
  ASSIGN_OR_RETURN(exec.interactive_mode, Scalar(node, "interactiveMode", ewhere));
  if (exec.interactive_mode == "Always") {
    return Invalid(ewhere, "interactiveMode Always needs a terminal; DRAForge runs plugins non-interactively");
  }
  ASSIGN_OR_RETURN(exec.install_hint, Scalar(node, "installHint", ewhere));
  return exec;
}

// One named entry of clusters/users/contexts, with the file that declared it: relative paths in it
// are resolved against that file's folder, and messages name that file.
struct Entry {
  YAML::Node node;   // the inner map ("cluster", "user" or "context"); an empty map when absent
  std::string file;  // "" for a single document (the caller names it)
  std::string base_dir;
};

// clusters, users and contexts by name, and current-context, after clientcmd's merge.
struct MergedConfig {
  std::map<std::string, Entry> clusters;
  std::map<std::string, Entry> users;
  std::map<std::string, Entry> contexts;
  std::string current_context;
  // " in FILE, FILE" (the files read) for messages about the merged whole; "" for one document
  // whose caller names it.
  std::string sources;
};

// "where" prefixed with the declaring file, when there is one.
std::string Where(const Entry& e, std::string_view what, std::string_view name) {
  std::string where = absl::StrCat(AV(what), " \"", AV(name), "\"");
  return e.file.empty() ? where : absl::StrCat(e.file, ": ", where);
}

// Adds the entries of list `list` of `root` to `out`, keeping entries already there: clientcmd's
// merge lets the first file to set a name win, and so does a single file with a repeated name.
absl::Status AddNamed(const YAML::Node& root, const char* list, const char* inner, const std::string& file,
                      const std::string& base_dir, std::map<std::string, Entry>& out) {
  YAML::Node entries = root[list];
  if (!entries || entries.IsNull()) return absl::OkStatus();
  if (!entries.IsSequence()) return Invalid(list, "must be a list");
  for (const auto& e : entries) {
    if (!e.IsMap()) return Invalid(list, "entries must be maps");
    if (!e["name"] || !e["name"].IsScalar()) continue;
    const std::string name = e["name"].Scalar();
    if (out.contains(name)) continue;
    YAML::Node v = e[inner];
    if (v && !v.IsNull() && !v.IsMap()) {
      return Invalid(absl::StrCat(list, " \"", name, "\""), absl::StrCat("field ", inner, " must be a map"));
    }
    out.emplace(name, Entry{v && !v.IsNull() ? v : YAML::Node(YAML::NodeType::Map), file, base_dir});
  }
  return absl::OkStatus();
}

// Parses one kubeconfig document and merges it under what `merged` already holds.
absl::Status MergeDocument(std::string_view yaml, const std::string& file, const std::string& base_dir,
                           MergedConfig& merged) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("kubeconfig: not valid YAML: ", e.what()));
  }
  // An empty file is an empty config for clientcmd, not an error.
  if (root.IsNull() && !file.empty()) return absl::OkStatus();
  if (!root.IsMap()) return absl::InvalidArgumentError("kubeconfig: not a YAML map (kind: Config)");
  try {
    ASSIGN_OR_RETURN(std::string kind, Scalar(root, "kind", "top level"));
    if (!kind.empty() && kind != "Config") {
      return Invalid("top level", absl::StrCat("kind is \"", kind, "\", want Config"));
    }
    ASSIGN_OR_RETURN(std::string current, Scalar(root, "current-context", "top level"));
    if (merged.current_context.empty()) merged.current_context = current;
    RETURN_IF_ERROR(AddNamed(root, "clusters", "cluster", file, base_dir, merged.clusters));
    RETURN_IF_ERROR(AddNamed(root, "users", "user", file, base_dir, merged.users));
    RETURN_IF_ERROR(AddNamed(root, "contexts", "context", file, base_dir, merged.contexts));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("kubeconfig: ", e.what()));
  }
  return absl::OkStatus();
}

// The RestConfig of the chosen context of a merged configuration.
absl::StatusOr<RestConfig> Resolve(const MergedConfig& merged, const KubeconfigOptions& options) {
  try {
    std::string context_name = options.context;
    if (context_name.empty()) {
      context_name = merged.current_context;
      if (context_name.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("kubeconfig: no current-context is set and no context was given", merged.sources));
      }
    }
    auto context = merged.contexts.find(context_name);
    if (context == merged.contexts.end()) {
      return absl::InvalidArgumentError(absl::StrCat("kubeconfig: context \"", context_name, "\" not found", merged.sources));
    }
    const std::string cwhere = Where(context->second, "context", context_name);
    const YAML::Node& cnode = context->second.node;
    ASSIGN_OR_RETURN(std::string cluster_name, Scalar(cnode, "cluster", cwhere));
    ASSIGN_OR_RETURN(std::string user_name, Scalar(cnode, "user", cwhere));
    ASSIGN_OR_RETURN(std::string ns, Scalar(cnode, "namespace", cwhere));
    if (cluster_name.empty()) return Invalid(cwhere, "no cluster set");

    RestConfig config;
    config.context_name = context_name;
    if (!ns.empty()) config.default_namespace = ns;
    if (!options.namespace_override.empty()) config.default_namespace = options.namespace_override;

    auto cluster_it = merged.clusters.find(cluster_name);
    if (cluster_it == merged.clusters.end()) {
      return Invalid(cwhere, absl::StrCat("cluster \"", cluster_name, "\" not found", merged.sources));
    }
    const Entry& cluster = cluster_it->second;
    const std::string kwhere = Where(cluster, "cluster", cluster_name);
    ASSIGN_OR_RETURN(config.server, Scalar(cluster.node, "server", kwhere));
    if (config.server.empty()) return Invalid(kwhere, "server is required");
    if (!absl::StartsWith(config.server, "https://") && !absl::StartsWith(config.server, "http://")) {
      return Invalid(kwhere, absl::StrCat("server \"", config.server, "\" is not an http(s) URL"));
    }
    // "https://" names no host, and trimming its slashes would leave "https:", not a URL.
    if (size_t host = config.server.find("://") + 3; host == config.server.size() || config.server[host] == '/') {
      return Invalid(kwhere, absl::StrCat("server \"", config.server, "\" has no host"));
    }
    while (!config.server.empty() && config.server.back() == '/') config.server.pop_back();
    ASSIGN_OR_RETURN(config.tls_server_name, Scalar(cluster.node, "tls-server-name", kwhere));
    ASSIGN_OR_RETURN(config.insecure_skip_tls_verify, Bool(cluster.node, "insecure-skip-tls-verify", kwhere));
    ASSIGN_OR_RETURN(config.proxy_url, Scalar(cluster.node, "proxy-url", kwhere));
    ASSIGN_OR_RETURN(config.ca_pem, PemField(cluster.node, "certificate-authority", "certificate-authority-data",
                                             kwhere, cluster.base_dir));
    if (config.insecure_skip_tls_verify && !config.ca_pem.empty()) {
      // client-go refuses the combination rather than silently ignoring one of them.
      return Invalid(kwhere, "certificate-authority and insecure-skip-tls-verify cannot both be set");
    }

    if (!user_name.empty()) {
      auto user_it = merged.users.find(user_name);
      if (user_it == merged.users.end()) return Invalid(cwhere, absl::StrCat("user \"", user_name, "\" not found", merged.sources));
      const YAML::Node& user = user_it->second.node;
      const std::string& base_dir = user_it->second.base_dir;
      const std::string uwhere = Where(user_it->second, "user", user_name);
      ASSIGN_OR_RETURN(config.client_certificate_pem,
                       PemField(user, "client-certificate", "client-certificate-data", uwhere, base_dir));
      ASSIGN_OR_RETURN(config.client_key_pem, PemField(user, "client-key", "client-key-data", uwhere, base_dir));
      if (config.client_certificate_pem.empty() != config.client_key_pem.empty()) {
        return Invalid(uwhere, config.client_key_pem.empty() ? "client-certificate is set without client-key"
                                                             : "client-key is set without client-certificate");
      }
      ASSIGN_OR_RETURN(config.bearer_token, Scalar(user, "token", uwhere));
      ASSIGN_OR_RETURN(std::string token_file, Scalar(user, "tokenFile", uwhere));
      if (!token_file.empty()) {
        config.bearer_token_file = ResolvePath(base_dir, token_file);
        // Fail at load time on a missing file, as kubectl does, rather than at the first request.
        ASSIGN_OR_RETURN(std::string unused, ReadFileText(config.bearer_token_file,
                                                          absl::StrCat("kubeconfig: ", uwhere, ": tokenFile")));
        (void)unused;
      }
      ASSIGN_OR_RETURN(config.username, Scalar(user, "username", uwhere));
      ASSIGN_OR_RETURN(config.password, Scalar(user, "password", uwhere));
      if (YAML::Node exec = user["exec"]; exec && !exec.IsNull()) {
        ASSIGN_OR_RETURN(config.exec, ParseExec(exec, uwhere, base_dir));
      }
      if (YAML::Node ap = user["auth-provider"]; ap && !ap.IsNull()) {
        return Invalid(uwhere, "auth-provider plugins were removed from Kubernetes; use an exec plugin");
      }
    }
    return config;
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("kubeconfig: ", e.what()));
  }
}

}  // namespace

absl::StatusOr<RestConfig> ParseKubeconfig(std::string_view yaml, std::string_view base_dir,
                                           const KubeconfigOptions& options) {
  MergedConfig merged;
  RETURN_IF_ERROR(MergeDocument(yaml, "", std::string(base_dir), merged));
  return Resolve(merged, options);
}

absl::StatusOr<RestConfig> LoadKubeconfigFile(const std::string& path, const KubeconfigOptions& options) {
  ASSIGN_OR_RETURN(std::string text, internal::ReadFileText(path, "kubeconfig"));
  auto config = ParseKubeconfig(text, internal::DirName(path), options);
  if (!config.ok()) {
    return absl::Status(config.status().code(), absl::StrCat(path, ": ", config.status().message()));
  }
  return config;
}

absl::StatusOr<RestConfig> LoadKubeconfigFiles(const std::vector<std::string>& paths,
                                               const KubeconfigOptions& options) {
  MergedConfig merged;
  std::set<std::string> seen;
  std::vector<std::string> loaded;
  std::vector<std::string> missing;
  for (const std::string& path : paths) {
    // clientcmd skips empty entries and reads a file listed twice once.
    if (path.empty() || !seen.insert(path).second) continue;
    absl::StatusOr<std::string> text = ReadFileText(path, "kubeconfig");
    if (absl::IsNotFound(text.status())) {
      missing.push_back(path);
      continue;
    }
    if (!text.ok()) return text.status();
    if (absl::Status s = MergeDocument(*text, path, internal::DirName(path), merged); !s.ok()) {
      // One bad file fails the whole load, as in kubectl, rather than silently using the others.
      return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
    }
    loaded.push_back(path);
  }
  if (loaded.empty()) {
    return absl::NotFoundError(absl::StrCat("kubeconfig: none of the files exists: ",
                                            missing.empty() ? "(no file given)" : absl::StrJoin(missing, ", ")));
  }
  merged.sources = absl::StrCat(" in ", absl::StrJoin(loaded, ", "));
  return Resolve(merged, options);
}

absl::StatusOr<RestConfig> InClusterConfig(const InClusterOptions& options) {
  if (options.host.empty() || options.port.empty()) {
    return absl::FailedPreconditionError(
        "in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set "
        "(not running in a pod)");
  }
  RestConfig config;
  std::string host = options.host;
  if (host.find(':') != std::string::npos && host.front() != '[') host = absl::StrCat("[", host, "]");
  config.server = absl::StrCat("https://", host, ":", options.port);
  ASSIGN_OR_RETURN(std::string token, internal::ReadFileText(options.token_path, "in-cluster service account token"));
  config.bearer_token_file = options.token_path;
  ASSIGN_OR_RETURN(config.ca_pem, internal::ReadFileText(options.ca_path, "in-cluster CA"));
  if (config.ca_pem.find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("in-cluster CA ", options.ca_path, ": no PEM certificate"));
  }
  if (auto ns = internal::ReadFileText(options.namespace_path, "namespace"); ns.ok()) {
    std::string n = *ns;
    while (!n.empty() && (n.back() == '\n' || n.back() == ' ')) n.pop_back();
    if (!n.empty()) config.default_namespace = n;
  }
  return config;
}

}  // namespace draforge::kube
