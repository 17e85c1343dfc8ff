#include "commands.h"

namespace draforge::cli {

int RunGraph(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"-o", "--output"}, true, "text (default: a tree per pod), json or dot (Graphviz)"});
  specs.push_back({{"-n", "--namespace"}, true, "keep the parts connected to this namespace"});
  specs.push_back({{"--node"}, true, "keep the parts connected to this node"});
  specs.push_back({{"--driver"}, true, "keep the parts connected to this driver"});
  int code = kExitOk;
  auto flags = ParseOrUsage(
      args, specs, "draforge graph (-f FILE... | --kubeconfig FILE [--context NAME]) [-o text|json|dot] [-n NAMESPACE] [--node NODE] [--driver DRIVER]", io,
      code);
  if (!flags) return code;
  const auto format_or = OutputFormat(*flags, "text", {"text", "json", "dot"}, io);
  if (!format_or) return kExitBadInput;
  const std::string& format = *format_or;
  if (!flags->positional().empty()) {
    io.err << "error: unexpected argument \"" << flags->positional().front() << "\"\n";
    return kExitBadInput;
  }
  auto loaded = LoadCluster(*flags, io);
  if (!loaded) return kExitBadInput;
  draforge::Snapshot::GraphQuery query;
  query.format = format == "json" ? DRAFORGE_GRAPH_JSON : format == "dot" ? DRAFORGE_GRAPH_DOT : DRAFORGE_GRAPH_TEXT;
  query.namespace_ = flags->GetOr("-n", "");
  query.node = flags->GetOr("--node", "");
  query.driver = flags->GetOr("--driver", "");
  auto text = loaded->snapshot.RenderGraph(query);
  if (!text.ok()) {
    io.err << "error: " << text.error().message << "\n";
    return kExitError;
  }
  io.out << *text << (format == "json" ? "\n" : "");
  return kExitOk;
}

}  // namespace draforge::cli
