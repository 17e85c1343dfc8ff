// draforge explain: why a claim is pending (lib/alloc explain funnel).
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "alloc/explain.h"
#include "alloc/explanation_json.h"
#include "alloc/features.h"
#include "commands.h"
#include "output.h"
#include "common/json_string.h"

namespace draforge::cli {

namespace {

// The scheduler's view first: the verdict per node. Up to kListed nodes one line each; past that,
// the nodes that fit on one line and the others grouped by their reason.
void WriteNodeVerdicts(const alloc::Explanation& ex, std::ostream& out) {
  constexpr size_t kListed = 10;
  out << ex.nodes_summary << "\n";
  auto names = [](const std::vector<std::string>& nodes) {
    std::string s;
    for (size_t i = 0; i < nodes.size() && i < kListed; ++i) s += (i ? ", " : "") + nodes[i];
    if (nodes.size() > kListed) s += " and " + std::to_string(nodes.size() - kListed) + " more";
    return s;
  };
  if (ex.nodes.size() <= kListed) {
    for (const alloc::NodeVerdict& v : ex.nodes) {
      out << "  " << v.node << ": " << (v.fits() ? std::string("fits") : v.reason) << "\n";
    }
  } else {
    if (const auto fitting = ex.FittingNodes(); !fitting.empty()) out << "  fits: " << names(fitting) << "\n";
    for (const alloc::NodeReasonGroup& g : alloc::GroupNodesByReason(ex.nodes)) {
      out << "  " << names(g.nodes) << ": " << g.reason << "\n";
    }
  }
  if (ex.NodesTruncated()) {
    out << "  (" << ex.nodes_total - static_cast<int64_t>(ex.nodes.size()) << " more nodes not examined)\n";
  }
}

}  // namespace

int RunExplain(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--claim"}, true, "NAMESPACE/NAME of the claim (NAME alone: namespace \"default\")"});
  specs.push_back({{"--node"}, true,
                   "the node to explain for (default: every node, at most 1000: on which ones the claim fits, and "
                   "why not on the others; the funnel then skips the node step)"});
  specs.push_back({{"--feature-gates"}, true, "A=true,B=false on top of the Kubernetes 1.37 defaults"});
  specs.push_back({{"-o", "--output"}, true, "text (default), json or yaml"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, "draforge explain --claim NS/NAME (-f FILE... | --kubeconfig FILE [--context NAME]) [--node NODE] [-o text|json|yaml]",
                            io, code);
  if (!flags) return code;
  const auto format_or = OutputFormat(*flags, "text", {"text", "json", "yaml"}, io);
  if (!format_or) return kExitBadInput;
  const std::string& format = *format_or;
  const std::string ref = flags->GetOr("--claim", "");
  if (ref.empty()) {
    io.err << "error: --claim is required\n";
    return kExitBadInput;
  }
  auto features = alloc::ParseFeatureGates(flags->GetOr("--feature-gates", ""));
  if (!features.ok()) {
    io.err << "error: --feature-gates: " << features.status().message() << "\n";
    return kExitBadInput;
  }
  store::Cluster cluster;
  auto inputs = LoadIntoCluster(*flags, io, cluster);
  if (!inputs) return kExitBadInput;
  auto snapshot = cluster.snapshot();
  const size_t slash = ref.find('/');
  const std::string ns = slash == std::string::npos ? "default" : ref.substr(0, slash);
  const std::string name = slash == std::string::npos ? ref : ref.substr(slash + 1);
  std::optional<alloc::NodeInfo> node;
  if (auto n = flags->Get("--node")) {
    node = alloc::NodeInfo{*n, {}};
    if (const api::Node* obj = snapshot->GetNode(*n)) node = alloc::NodeInfo::FromNode(*obj);
  }
  auto ex = alloc::Explain(*snapshot, ns, name, node ? &*node : nullptr, *features);
  if (!ex.ok()) {
    io.err << "error: " << ex.status().message() << "\n";
    return kExitBadInput;
  }
  if (format == "text") {
    if (!ex->nodes_summary.empty()) {
      WriteNodeVerdicts(*ex, io.out);
      io.out << "\nevery device, whatever its node:\n";
    }
    io.out << ex->summary << "\n";
    for (const auto& r : ex->requests) {
      io.out << "\nrequest " << r.request << " (class " << r.device_class << ", needs "
             << (r.all_mode ? std::string("all matching") : std::to_string(r.needed)) << "):\n";
      for (const auto& s : r.steps) {
        io.out << "  " << alloc::FunnelStepName(s.step) << ": " << s.remaining << "  " << s.detail << "\n";
      }
      if (!r.first_error.empty()) io.out << "  first CEL error: " << r.first_error << "\n";
    }
    return kExitOk;
  }
  std::vector<rapidjson::Document> docs(1);
  rapidjson::Document& d = docs.front();
  static_cast<rapidjson::Value&>(d) = alloc::ExplanationJson(*ex, d.GetAllocator());
  if (absl::Status s = WriteDocuments(docs, format, io.out); !s.ok()) {
    io.err << "error: " << s.message() << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace draforge::cli
