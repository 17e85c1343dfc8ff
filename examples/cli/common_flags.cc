#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/codec.h"
#include "commands.h"
#include "kube/client.h"
#include "kube/cluster_state.h"

extern char** environ;  // NOLINT: POSIX

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
    io.err << "error: " << flags.status().message() << "\n\nUsage: " << usage << "\n\nFlags:\n" << FlagHelp(specs);
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
  io.err << "error: --output: unknown format \"" << format << "\" (" << absl::StrJoin(formats, ", ") << ")\n";
  return std::nullopt;
}

namespace {
constexpr char kNoCluster[] =
    "error: no cluster configured: give --kubeconfig FILE (or set KUBECONFIG, or create ~/.kube/config, or run "
    "in a pod)\n";
}  // namespace

std::optional<kube::RestConfig> ClusterConfig(const Flags& flags, Io io, bool* none_found) {
  if (none_found != nullptr) *none_found = false;
  kube::KubeconfigOptions options;
  options.context = flags.GetOr("--context", "");
  // The CLI, not lib/kube, reads the environment (lib/ never does).
  std::string path = flags.GetOr("--kubeconfig", "");
  // $KUBECONFIG lists files that are merged as kubectl merges them (lib/kube does the merge).
  std::vector<std::string> env_paths;
  if (path.empty()) {
    if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
      env_paths = absl::StrSplit(env, ':', absl::SkipEmpty());
    }
  }
  if (path.empty() && env_paths.empty()) {
    if (const char* home = std::getenv("HOME"); home != nullptr) {
      std::string def = absl::StrCat(home, "/.kube/config");
      if (std::filesystem::exists(def)) path = def;
    }
  }
  std::vector<std::string> environment;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) environment.emplace_back(*e);
  if (path.empty() && env_paths.empty()) {
    kube::InClusterOptions in_cluster;
    const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
    const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
    if (host == nullptr || port == nullptr) {
      if (none_found != nullptr) {
        *none_found = true;  // the caller words the message
      } else {
        io.err << kNoCluster;
      }
      return std::nullopt;
    }
    in_cluster.host = host;
    in_cluster.port = port;
    auto config = kube::InClusterConfig(in_cluster);
    if (!config.ok()) {
      io.err << "error: " << config.status().message() << "\n";
      return std::nullopt;
    }
    config->exec_environment = std::move(environment);
    return *std::move(config);
  }
  auto config = env_paths.empty() ? kube::LoadKubeconfigFile(path, options)
                                  : kube::LoadKubeconfigFiles(env_paths, options);
  if (!config.ok()) {
    // Say where the files came from: the messages name them, but not that $KUBECONFIG chose them.
    io.err << (env_paths.empty() ? "error: " : "error: $KUBECONFIG: ") << config.status().message() << "\n";
    return std::nullopt;
  }
  config->exec_environment = std::move(environment);
  config->user_agent = "draforge-cli";
  return *std::move(config);
}

namespace {

// The cluster's DRA objects as InputObjects (source "cluster <server>").
std::optional<std::vector<InputObject>> LoadFromCluster(const Flags& flags, Io io, bool* none_found) {
  auto config = ClusterConfig(flags, io, none_found);
  if (!config) return std::nullopt;
  std::string source = absl::StrCat("cluster ", config->server);
  auto client = kube::Client::Create(*config);
  if (!client.ok()) {
    io.err << "error: " << client.status().message() << "\n";
    return std::nullopt;
  }
  auto state = kube::ListClusterState(**client);
  if (!state.ok()) {
    io.err << "error: " << source << ": " << state.status().message() << "\n";
    return std::nullopt;
  }
  for (const std::string& s : state->skipped) io.err << "warning: " << source << ": skipped " << s << "\n";
  std::vector<InputObject> out;
  out.reserve(state->objects.size());
  int index = 0;
  for (api::Object& obj : state->objects) {
    InputObject in;
    in.source = source;
    in.index = index++;
    in.object = std::move(obj);
    out.push_back(std::move(in));
  }
  return out;
}

// The input rules shared by both loaders: -f FILE... or --kubeconfig/--context, not both; without
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
    uint64_t n = 0;
    if (!absl::SimpleAtoi(*max, &n) || n == 0) {
      io.err << "error: --max-input-size: not a positive number of bytes: " << *max << "\n";
      return std::nullopt;
    }
    max_bytes = n;
  }
  return from_files(files, max_bytes);
}

std::optional<std::vector<InputObject>> Load(const Flags& flags, Io io, bool strict, bool keep_failed,
                                             bool implicit_cluster) {
  auto from_files = [&](const std::vector<std::string>& files,
                        size_t max_bytes) -> std::optional<std::vector<InputObject>> {
    InputOptions options;
    options.decode.strict = strict;
    if (max_bytes != 0) options.decode.max_bytes = max_bytes;
    auto inputs = ReadInputs(files, options);
    if (!inputs.ok()) {
      io.err << "error: " << inputs.status().message() << "\n";
      return std::nullopt;
    }
    bool failed = false;
    for (const InputObject& in : *inputs) {
      for (const std::string& w : in.warnings) io.err << "warning: " << in.Where() << w << "\n";
      if (!in.object.ok()) {
        io.err << "error: " << in.Where() << in.object.status().message() << "\n";
        failed = true;
      }
    }
    if (failed && !keep_failed) return std::nullopt;
    return *std::move(inputs);
  };
  return LoadFrom<std::vector<InputObject>>(
      flags, io, implicit_cluster, [&](bool* none_found) { return LoadFromCluster(flags, io, none_found); },
      from_files);
}

// The cluster's objects through the C ABI's types: the decoded objects are encoded again as one
// List (lossless) and parsed. TODO(kube): read draforge_kube_list_cluster_state's JSON instead.
std::optional<Inputs> ObjectsFromCluster(const Flags& flags, Io io, bool* none_found) {
  auto objects = LoadFromCluster(flags, io, none_found);
  if (!objects) return std::nullopt;
  rapidjson::Document list(rapidjson::kObjectType);
  auto& a = list.GetAllocator();
  list.AddMember("apiVersion", "v1", a);
  list.AddMember("kind", "List", a);
  rapidjson::Value items(rapidjson::kArrayType);
  for (const InputObject& in : *objects) {
    auto doc = api::EncodeObject(*in.object);
    if (!doc.ok()) {
      io.err << "error: " << in.Where() << doc.status().message() << "\n";
      return std::nullopt;
    }
    items.PushBack(rapidjson::Value(*doc, a), a);
  }
  list.AddMember("items", items, a);
  auto parsed = draforge::Objects::Parse(api::WriteJson(list, /*pretty=*/false));
  if (!parsed.ok()) {
    io.err << "error: " << parsed.error().message << "\n";
    return std::nullopt;
  }
  Inputs out{*std::move(parsed), objects->empty() ? std::string() : objects->front().source};
  return out;
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

std::optional<std::vector<InputObject>> LoadInputs(const Flags& flags, Io io, bool strict, bool keep_failed) {
  return Load(flags, io, strict, keep_failed, /*implicit_cluster=*/false);
}

std::optional<std::vector<InputObject>> LoadIntoCluster(const Flags& flags, Io io, store::Cluster& cluster) {
  auto inputs = Load(flags, io, /*strict=*/false, /*keep_failed=*/false, /*implicit_cluster=*/true);
  if (!inputs) return std::nullopt;
  if (absl::Status s = ApplyAll(*inputs, cluster); !s.ok()) {
    io.err << "error: " << s.message() << "\n";
    return std::nullopt;
  }
  return inputs;
}

}  // namespace draforge::cli
