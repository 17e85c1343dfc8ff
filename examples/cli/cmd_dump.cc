// draforge dump: the cluster's DRA state as one List file that the offline commands read with -f.
#include <sstream>

#include "absl/strings/match.h"
#include "api/codec.h"
#include "commands.h"
#include "draforge/draforge.hpp"
#include "kube/client.h"
#include "kube/cluster_state.h"
#include "output.h"

namespace draforge::cli {

int RunDump(const Args& args, Io io) {
  std::vector<FlagSpec> specs = {
      {{"--kubeconfig"}, true, "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)"},
      {{"--context"}, true, "the kubeconfig context to use (default: its current-context)"},
      {{"-o", "--output"}, true, "write to this file (atomically) instead of standard output"},
      {{"--format"}, true, "yaml or json (default: json for a .json file, else yaml)"},
      {{"-n", "--namespace"}, true, "only this namespace's claims, templates and pods (default: every namespace)"},
  };
  const std::string usage =
      "draforge dump [--kubeconfig FILE] [--context NAME] [-o FILE] [--format yaml|json] [-n NAMESPACE]\n"
      "  Writes the cluster's DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates,\n"
      "  DeviceTaintRules, Pods and Nodes as one List, readable by every command's -f.";
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, usage, io, code);
  if (!flags) return code;
  if (!flags->positional().empty()) {
    io.err << "error: unexpected argument \"" << flags->positional()[0] << "\"\n\nUsage: " << usage << "\n";
    return kExitBadInput;
  }
  std::string file = flags->GetOr("-o", "");
  std::string format = flags->GetOr("--format", absl::EndsWith(file, ".json") ? "json" : "yaml");
  if (format != "yaml" && format != "json") {
    io.err << "error: --format: unknown format \"" << format << "\" (yaml, json)\n";
    return kExitBadInput;
  }
  auto config = ClusterConfig(*flags, io);
  if (!config) return kExitBadInput;
  auto client = kube::Client::Create(*config);
  if (!client.ok()) {
    io.err << "error: " << client.status().message() << "\n";
    return kExitBadInput;
  }
  kube::ClusterStateOptions options;
  options.namespace_ = flags->GetOr("-n", "");
  auto state = kube::ListClusterState(**client, options);
  if (!state.ok()) {
    io.err << "error: " << config->server << ": " << state.status().message() << "\n";
    return kExitError;
  }
  for (const std::string& s : state->skipped) io.err << "warning: skipped " << s << "\n";
  std::vector<rapidjson::Document> docs;
  docs.reserve(state->objects.size());
  for (const api::Object& obj : state->objects) {
    auto doc = api::EncodeObject(obj);
    if (!doc.ok()) {
      io.err << "error: " << obj.kind_name() << " " << obj.Key() << ": " << doc.status().message() << "\n";
      return kExitError;
    }
    docs.push_back(*std::move(doc));
  }
  std::ostringstream text;
  if (auto printed = PrintDocuments(docs, format, text, /*always_list=*/true); !printed.ok()) {
    io.err << "error: " << printed.error().message << "\n";
    return kExitError;
  }
  if (file.empty() || file == "-") {
    io.out << text.str();
  } else {
    // Atomic and durable (fsync of the file and its directory): a crash leaves the old dump or the new one.
    if (auto written = draforge::WriteFileAtomic(file, text.str(), 0644); !written.ok()) {
      io.err << "error: cannot write " << file << ": " << written.error().message << "\n";
      return kExitError;
    }
    io.err << "wrote " << docs.size() << " objects from " << config->server << " to " << file << "\n";
  }
  return state->skipped.empty() ? kExitOk : kExitBadInput;
}

}  // namespace draforge::cli
