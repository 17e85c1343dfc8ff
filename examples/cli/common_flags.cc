#include <cerrno>
#include <cstdlib>

#include "commands.h"
#include "json_fields.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::cli {

std::vector<FlagSpec> InputFlags() {
  return {
      {{"-f", "--filename"}, true, "file, directory (its .yaml/.yml/.json files) or - for standard input; repeatable"},
      {{"--max-input-size"}, true, "largest file accepted, in bytes (default 33554432)"},
      {{"--kubeconfig"}, true,
       "read the objects from this kubeconfig's cluster instead of -f (without -f: $KUBECONFIG, ~/.kube/config, "
       "in-cluster)"},
      {{"--context"}, true, "the kubeconfig context to use (default: its current-context)"},
  };
}

std::optional<Flags> ParseOrUsage(const Args& args, std::vector<FlagSpec> specs, const std::string& usage, Io io,
                                  int& exit_code) {
  specs.push_back({{"--help", "-h"}, false, "show this help"});
  auto flags = Flags::Parse(args, specs);
  if (!flags.ok()) {
    io.err << "error: " << flags.error().message << "\n\nUsage: " << usage << "\n\nFlags:\n" << FlagHelp(specs);
    exit_code = kExitBadInput;
    return std::nullopt;
  }
  if (flags->Has("--help")) {
    io.out << "Usage: " << usage << "\n\nFlags:\n" << FlagHelp(specs);
    exit_code = kExitOk;
    return std::nullopt;
  }
  return *std::move(flags);
}

std::optional<std::string> OutputFormat(const Flags& flags, const std::string& fallback,
                                        const std::vector<std::string>& formats, Io io) {
  std::string format = flags.GetOr("-o", fallback);
  for (const std::string& f : formats) {
    if (f == format) return format;
  }
  io.err << "error: --output: unknown format \"" << format << "\" (" << Join(formats, ", ") << ")\n";
  return std::nullopt;
}

namespace {

// A positive decimal number (surrounding blanks allowed, as absl::SimpleAtoi allowed them), or nullopt.
std::optional<uint64_t> ParseByteCount(const std::string& text) {
  const char* begin = text.c_str();
  while (*begin == ' ' || *begin == '\t' || *begin == '\n') ++begin;
  if (*begin == '-' || *begin == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(begin, &end, 10);
  while (end != nullptr && (*end == ' ' || *end == '\t' || *end == '\n')) ++end;
  if (errno != 0 || end == nullptr || *end != '\0' || n == 0) return std::nullopt;
  return static_cast<uint64_t>(n);
}

constexpr char kNoCluster[] =
    "error: no cluster configured: give --kubeconfig FILE (or set KUBECONFIG, or create ~/.kube/config, or run "
    "in a pod)\n";
}  // namespace

std::optional<draforge::KubeClient> ClusterClient(const Flags& flags, Io io, bool* none_found) {
  if (none_found != nullptr) *none_found = false;
  // The CLI reads its environment; the library applies client-go's rules to it (kube.h).
  draforge::KubeConfigOptions options =
      draforge::KubeConfigOptionsFromEnvironment(flags.GetOr("--kubeconfig", ""), flags.GetOr("--context", ""));
  options.user_agent = "draforge-cli";
  auto resolved = draforge::ResolveKubeConfig(options);
  rapidjson::Document doc;
  if (resolved.ok() && !doc.Parse(resolved->data(), resolved->size()).HasParseError() && doc.IsObject() &&
      doc.HasMember("source") && doc["source"] == "none") {
    if (none_found != nullptr) {
      *none_found = true;  // the caller words the message
    } else {
      io.err << kNoCluster;
    }
    return std::nullopt;
  }
  auto client = resolved.ok() ? draforge::KubeClient::Create(options) : draforge::Result<draforge::KubeClient>(resolved.error());
  if (!client.ok()) {
    // Say where the files came from: the messages name them, but not that $KUBECONFIG chose them.
    const bool from_env = options.kubeconfig.empty() && !options.kubeconfig_env.empty();
    io.err << (from_env ? "error: $KUBECONFIG: " : "error: ") << client.error().message << "\n";
    return std::nullopt;
  }
  return *std::move(client);
}

std::optional<ClusterState> ListClusterState(const draforge::KubeClient& client, const std::string& namespace_,
                                             const std::string& source, Io io) {
  auto json = client.ListClusterState(namespace_);
  rapidjson::Document doc;
  if (!json.ok()) {
    io.err << "error: " << source << ": " << json.error().message << "\n";
    return std::nullopt;
  }
  if (doc.Parse(json->data(), json->size()).HasParseError() || !doc.IsObject() || !doc.HasMember("objects")) {
    io.err << "error: " << source << ": unreadable cluster state\n";
    return std::nullopt;
  }
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> writer(sb);
  doc["objects"].Accept(writer);
  auto objects = draforge::Objects::Parse(std::string_view(sb.GetString(), sb.GetSize()));
  if (!objects.ok()) {
    io.err << "error: " << source << ": " << objects.error().message << "\n";
    return std::nullopt;
  }
  ClusterState state{*std::move(objects), {}};
  if (doc.HasMember("skipped") && doc["skipped"].IsArray()) {
    for (const auto& s : doc["skipped"].GetArray()) {
      if (s.IsString()) state.skipped.emplace_back(s.GetString());
    }
  }
  return state;
}

namespace {

// The input rules: -f FILE... or --kubeconfig/--context, not both; without
// either, the implicit cluster when `implicit_cluster`. `from_cluster(bool* none_found)` and
// `from_files(files, max_bytes)` (max_bytes 0: the default) read; each prints its own problems.
template <typename T, typename FromCluster, typename FromFiles>
std::optional<T> LoadFrom(const Flags& flags, Io io, bool implicit_cluster, FromCluster from_cluster,
                          FromFiles from_files) {
  const auto& files = flags.All("-f");
  bool online = flags.Has("--kubeconfig") || flags.Has("--context");
  if (!files.empty() && online) {
    io.err << "error: give either -f FILE or --kubeconfig/--context, not both\n";
    return std::nullopt;
  }
  if (files.empty()) {
    if (online || implicit_cluster) {
      bool none_found = false;
      std::optional<T> objects = from_cluster(&none_found);
      if (objects || !none_found) return objects;
      if (online) {
        io.err << kNoCluster;
        return std::nullopt;
      }
    }
    io.err << "error: no input: give one or more -f FILE (or -f - for standard input), or --kubeconfig FILE\n";
    return std::nullopt;
  }
  size_t max_bytes = 0;
  if (auto max = flags.Get("--max-input-size")) {
    const std::optional<uint64_t> n = ParseByteCount(*max);
    if (!n) {
      io.err << "error: --max-input-size: not a positive number of bytes: " << *max << "\n";
      return std::nullopt;
    }
    max_bytes = *n;
  }
  return from_files(files, max_bytes);
}

// The cluster's DRA objects through kube.h (draforge_kube_list_cluster_state), as Inputs whose
// source is "cluster <server>".
std::optional<Inputs> ObjectsFromCluster(const Flags& flags, Io io, bool* none_found) {
  auto client = ClusterClient(flags, io, none_found);
  if (!client) return std::nullopt;
  const std::string source = "cluster " + std::string(client->server());
  auto state = ListClusterState(*client, "", source, io);
  if (!state) return std::nullopt;
  Inputs inputs{std::move(state->objects), source, ""};
  for (const std::string& s : state->skipped) {
    if (s.rfind("list resourcequotas: ", 0) == 0 && inputs.resource_quotas_unread.empty()) {
      inputs.resource_quotas_unread = s.substr(std::string("list resourcequotas: ").size());
      continue;  // only the views that count within quotas need them; they say so (package capacity --quota)
    }
    io.err << "warning: " << source << ": skipped " << s << "\n";
  }
  if (auto version = client->ServerVersionJson(); version.ok()) {
    if (auto doc = ParseAbiJson(*version, "GET /version"); doc.ok() && doc->IsObject()) {
      inputs.server_git_version = JsonStr(*doc, "gitVersion");
    }
  }
  return inputs;
}

std::optional<Inputs> LoadObjectsImpl(const Flags& flags, Io io, bool strict, bool keep_failed,
                                      bool implicit_cluster) {
  auto from_files = [&](const std::vector<std::string>& files, size_t max_bytes) -> std::optional<Inputs> {
    auto objects = ReadObjects(files, strict, max_bytes);
    if (!objects.ok()) {
      io.err << "error: " << objects.error().message << "\n";
      return std::nullopt;
    }
    Inputs inputs{*std::move(objects), ""};
    bool failed = false;
    for (size_t i = 0; i < inputs.objects.size(); ++i) {
      for (std::string_view w : inputs.objects.warnings(i)) io.err << "warning: " << inputs.Where(i) << w << "\n";
      if (!inputs.objects.decoded(i)) {
        io.err << "error: " << inputs.Where(i) << inputs.objects.error(i) << "\n";
        failed = true;
      }
    }
    if (failed && !keep_failed) return std::nullopt;
    return inputs;
  };
  return LoadFrom<Inputs>(
      flags, io, implicit_cluster, [&](bool* none_found) { return ObjectsFromCluster(flags, io, none_found); },
      from_files);
}

}  // namespace

std::optional<Inputs> LoadObjects(const Flags& flags, Io io, bool strict, bool keep_failed) {
  return LoadObjectsImpl(flags, io, strict, keep_failed, /*implicit_cluster=*/false);
}

FlagSpec KubernetesVersionFlag() {
  return {{"--kubernetes-version"}, true,
          "the Kubernetes version to reproduce (1.34, 1.35, 1.36, 1.37; default 1.37): its gate defaults, "
          "locks and allocator; `draforge version --kubernetes` lists them"};
}

bool ResolveKubernetesVersion(const Inputs& inputs, const std::string& gates, std::string& kubernetes_version,
                              Io io) {
  if (!kubernetes_version.empty() || inputs.server_git_version.empty()) return true;
  if (!draforge::KubernetesFeatureGatesJson(inputs.server_git_version, "").ok()) {
    io.err << "warning: " << inputs.cluster << " runs Kubernetes " << inputs.server_git_version
           << ", which DRAForge does not reproduce; using its default (give --kubernetes-version)\n";
    return true;
  }
  kubernetes_version = inputs.server_git_version;
  return CheckFeatureGates(gates, io, kubernetes_version);
}

bool CheckFeatureGates(const std::string& gates, Io io, const std::string& kubernetes_version) {
  auto checked = draforge::KubernetesFeatureGatesJson(kubernetes_version, gates);
  if (checked.ok()) return true;
  std::string_view message = checked.error().message;
  std::string_view flag = "--feature-gates";
  for (auto [prefix, name] : {std::pair<std::string_view, std::string_view>{"feature_gates: ", "--feature-gates"},
                              {"kubernetes_version: ", "--kubernetes-version"}}) {
    if (message.substr(0, prefix.size()) == prefix) {
      message.remove_prefix(prefix.size());
      flag = name;
    }
  }
  io.err << "error: " << flag << ": " << message << "\n";
  return false;
}

std::optional<ClusterInputs> LoadCluster(const Flags& flags, Io io) {
  auto inputs = LoadObjectsImpl(flags, io, /*strict=*/false, /*keep_failed=*/false, /*implicit_cluster=*/true);
  if (!inputs) return std::nullopt;
  auto cluster = draforge::Cluster::Create();
  if (!cluster.ok()) {
    io.err << "error: " << cluster.error().message << "\n";
    return std::nullopt;
  }
  if (auto applied = cluster->ApplyObjects(inputs->objects); !applied.ok()) {
    io.err << "error: " << applied.error().message << "\n";
    return std::nullopt;
  }
  auto snapshot = cluster->snapshot();
  if (!snapshot.ok()) {
    io.err << "error: " << snapshot.error().message << "\n";
    return std::nullopt;
  }
  return ClusterInputs{*std::move(inputs), *std::move(cluster), *std::move(snapshot)};
}

std::optional<ClusterInputs> LoadClusterForAllocation(const Flags& flags, Io io, draforge::AllocateOptions& options) {
  options.feature_gates = flags.GetOr("--feature-gates", "");
  options.kubernetes_version = flags.GetOr("--kubernetes-version", "");
  if (!CheckFeatureGates(options.feature_gates, io, options.kubernetes_version)) return std::nullopt;
  auto loaded = LoadCluster(flags, io);
  if (!loaded) return std::nullopt;
  if (!ResolveKubernetesVersion(loaded->inputs, options.feature_gates, options.kubernetes_version, io)) {
    return std::nullopt;
  }
  return loaded;
}

}  // namespace draforge::cli
