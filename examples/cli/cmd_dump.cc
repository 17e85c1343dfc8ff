// draforge dump: the cluster's DRA state as one List file that the offline commands read with -f.
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "draforge/draforge.hpp"
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
  const bool json_file = file.size() >= 5 && file.compare(file.size() - 5, 5, ".json") == 0;
  std::string format = flags->GetOr("--format", json_file ? "json" : "yaml");
  if (format != "yaml" && format != "json") {
    io.err << "error: --format: unknown format \"" << format << "\" (yaml, json)\n";
    return kExitBadInput;
  }
  auto client = ClusterClient(*flags, io);
  if (!client) return kExitBadInput;
  const std::string server(client->server());
  auto state = ListClusterState(*client, flags->GetOr("-n", ""), server, io);
  if (!state) return kExitError;
  // An object that did not decode makes the dump incomplete (exit 2); ResourceQuotas the identity may
  // not list only leave the dump without them (the capacity views' --quota then has nothing to count),
  // and so do PodDisruptionBudgets (the preemption what-if then sees no budget).
  bool incomplete = false;
  for (const std::string& s : state->skipped) {
    io.err << "warning: skipped " << s << "\n";
    incomplete = incomplete || (s.rfind("list resourcequotas: ", 0) != 0 && s.rfind("list poddisruptionbudgets: ", 0) != 0);
  }
  std::vector<rapidjson::Document> docs;
  docs.reserve(state->objects.size());
  for (size_t i = 0; i < state->objects.size(); ++i) {
    auto json = state->objects.Encode(i);
    if (!json.ok()) {
      io.err << "error: " << state->objects.kind(i) << " " << state->objects.key(i) << ": " << json.error().message
             << "\n";
      return kExitError;
    }
    docs.emplace_back().Parse(json->data(), json->size());
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
    io.err << "wrote " << docs.size() << " objects from " << server << " to " << file << "\n";
  }
  return incomplete ? kExitBadInput : kExitOk;
}

}  // namespace draforge::cli
