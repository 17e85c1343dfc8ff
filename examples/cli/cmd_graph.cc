#include "commands.h"
#include "graph/graph.h"

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
  store::Cluster cluster;
  auto inputs = LoadIntoCluster(*flags, io, cluster);
  if (!inputs) return kExitBadInput;
  graph::Graph g = graph::BuildGraph(*cluster.snapshot());
  graph::Filter filter;
  filter.namespace_ = flags->GetOr("-n", "");
  filter.node = flags->GetOr("--node", "");
  filter.driver = flags->GetOr("--driver", "");
  if (!filter.namespace_.empty() || !filter.node.empty() || !filter.driver.empty()) g = graph::FilterGraph(g, filter);
  if (format == "json") {
    io.out << graph::ToJson(g) << "\n";
  } else if (format == "dot") {
    io.out << graph::ToDot(g);
  } else {
    io.out << graph::ToText(g);
  }
  return kExitOk;
}

}  // namespace draforge::cli
