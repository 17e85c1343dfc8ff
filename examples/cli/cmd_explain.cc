// draforge explain: why a claim is pending (draforge_explain: the explain funnel).
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "json_fields.h"
#include "output.h"
#include "rapidjson/document.h"

namespace draforge::cli {

namespace {

// The scheduler's view first: the verdict per node. Up to kListed nodes one line each; past that,
// the nodes that fit on one line and the others grouped by their reason (`groups`:
// draforge_explanation_node_groups_json).
void WriteNodeVerdicts(const rapidjson::Value& ex, const rapidjson::Value& groups, std::ostream& out) {
  constexpr size_t kListed = 10;
  out << JsonStr(ex, "nodesSummary") << "\n";
  auto names = [](const std::vector<std::string>& nodes) {
    std::string s;
    for (size_t i = 0; i < nodes.size() && i < kListed; ++i) s += (i ? ", " : "") + nodes[i];
    if (nodes.size() > kListed) s += " and " + std::to_string(nodes.size() - kListed) + " more";
    return s;
  };
  const rapidjson::Value& nodes = JsonArray(ex, "nodes");
  if (nodes.Size() <= kListed) {
    for (const auto& v : nodes.GetArray()) {
      out << "  " << JsonStr(v, "node") << ": " << (JsonBool(v, "fits") ? std::string("fits") : JsonStr(v, "reason"))
          << "\n";
    }
  } else {
    std::vector<std::string> fitting;
    for (const auto& v : nodes.GetArray()) {
      if (JsonBool(v, "fits")) fitting.push_back(JsonStr(v, "node"));
    }
    if (!fitting.empty()) out << "  fits: " << names(fitting) << "\n";
    if (groups.IsArray()) {
      for (const auto& g : groups.GetArray()) out << "  " << names(JsonStrings(g, "nodes")) << ": " << JsonStr(g, "reason") << "\n";
    }
  }
  if (JsonBool(ex, "nodesTruncated")) {
    out << "  (" << JsonInt(ex, "nodesTotal") - static_cast<int64_t>(nodes.Size()) << " more nodes not examined)\n";
  }
}

}  // namespace

int RunExplain(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--claim"}, true, "NAMESPACE/NAME of the claim (NAME alone: namespace \"default\")"});
  specs.push_back({{"--node"}, true,
                   "the node to explain for (default: every node, at most 1000: on which ones the claim fits, and "
                   "why not on the others; the funnel then skips the node step)"});
  specs.push_back({{"--feature-gates"}, true, "A=true,B=false on top of the Kubernetes version's defaults"});
  specs.push_back(KubernetesVersionFlag());
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
  draforge::AllocateOptions options;
  auto loaded = LoadClusterForAllocation(*flags, io, options);
  if (!loaded) return kExitBadInput;
  auto ex = draforge::Explain(loaded->snapshot, ref, flags->GetOr("--node", ""), options);
  if (!ex.ok()) {
    io.err << "error: " << ex.error().message << "\n";
    return kExitBadInput;
  }
  auto json = ex->Json();
  if (!json.ok()) {
    io.err << "error: " << json.error().message << "\n";
    return kExitError;
  }
  rapidjson::Document doc;
  doc.Parse(json->data(), json->size());
  if (format == "text") {
    if (!JsonStr(doc, "nodesSummary").empty()) {
      auto groups_json = ex->NodeGroupsJson();
      if (!groups_json.ok()) {
        io.err << "error: " << groups_json.error().message << "\n";
        return kExitError;
      }
      rapidjson::Document groups;
      groups.Parse(groups_json->data(), groups_json->size());
      WriteNodeVerdicts(doc, groups, io.out);
      io.out << "\nevery device, whatever its node:\n";
    }
    io.out << JsonStr(doc, "summary") << "\n";
    for (const auto& r : JsonArray(doc, "requests").GetArray()) {
      io.out << "\nrequest " << JsonStr(r, "request") << " (class " << JsonStr(r, "deviceClass") << ", needs "
             << (JsonBool(r, "allMode") ? std::string("all matching") : std::to_string(JsonInt(r, "needed"))) << "):\n";
      for (const auto& s : JsonArray(r, "steps").GetArray()) {
        io.out << "  " << JsonStr(s, "step") << ": " << JsonInt(s, "remaining") << "  " << JsonStr(s, "detail") << "\n";
      }
      if (const std::string first_error = JsonStr(r, "firstError"); !first_error.empty()) {
        io.out << "  first CEL error: " << first_error << "\n";
      }
    }
    return kExitOk;
  }
  std::vector<rapidjson::Document> docs;
  docs.push_back(std::move(doc));
  if (auto printed = PrintDocuments(docs, format, io.out); !printed.ok()) {
    io.err << "error: " << printed.error().message << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace draforge::cli
