// draforge place: cluster-wide placement (draforge_place_pod_json, draforge_how_many_more_json).
//
//   draforge place --pod NS/NAME (-f FILE... | --kubeconfig FILE [--context NAME]) [--feature-gates A=true,B=false] [-o text|json|yaml]
//     On which nodes the pod's claims fit: kube-scheduler's DRA Filter on every node (Node objects of
//     the input, in name order; without any, the nodes that node-local ResourceSlices name).
//     Exit status: 0 at least one node fits, 1 none does, 2 bad input (flags, files, unknown pod),
//     3 no node fits and the allocator reported an error on at least one node.
//
//   draforge place (--claim NS/NAME | --template NS/NAME | --pod NS/NAME --count) [--count] [--cap N] (-f FILE... | --kubeconfig FILE [--context NAME]) [...]
//     How many more claims like this one (or like the template's claim) fit, and where: copies are
//     allocated one by one, node by node, until none fits, N are placed (--cap, default 1000) or
//     the allocator fails. --count only spells the mode out; --claim/--template imply it. With
//     --pod, --count counts pods like it: each a copy of the pod's claims plus its requests, which
//     must fit the node's allocatable minus the pods bound there (nodes[].limitedBy says which side
//     stopped a node).
//     Exit status: 0 at least one more fits, 1 none, 2 bad input, 3 the allocator stopped the count
//     with an error.
//
// NAME alone means namespace "default".
//
// -o json (yaml: the same object) for --pod:
//   {
//     "pod": "team-a/finetune-0",
//     "nodeSource": "nodes",                 // or "slices": node names taken from ResourceSlices
//     "claims": [{"name": "gpus",            // spec.resourceClaims[].name
//                 "claim": "team-a/big-h100",
//                 "source": "claim",         // "template", "template-instantiated" (not created yet)
//                 "template": "...",         // template entries only
//                 "allocated": false}],      // already allocated: pins the node, not re-allocated
//     "unresolvable": [],                    // why no node can fit (claim or template not found, ...)
//     "fittingNodes": ["node-3"],
//     "nodes": [{"node": "node-1", "fits": false,
//                "outcome": "unschedulable", // "allocated" (fits), "unschedulable" or "error"
//                "reasons": ["cannot allocate all claims"],
//                "why": "claim team-a/big-h100: request gpus/eight: ...",
//                "error": "...",             // outcome error only
//                "searchSteps": 12},
//               {"node": "node-3", "fits": true, "outcome": "allocated", "searchSteps": 9,
//                "allocations": [{"claim": "team-a/big-h100", "existing": false,
//                                 "allocation": {...status.allocation as Kubernetes writes it...}}]}]
//   }
// -o json for --claim/--template:
//   {
//     "prototype": "resourceclaim default/two-gpus",
//     "total": 6, "cap": 1000,
//     "stop": "exhausted",                   // "cap", "error", "no-nodes"
//     "error": "...", "errorNode": "...",   // stop "error" only
//     "nodes": [{"node": "node-a", "count": 2,
//                "reasons": ["cannot allocate all claims"],  // why the next copy did not fit
//                "why": "request gpus: ..."}],                // the funnel's sentence (with reasons)
//     "copies": [{"claim": "default/two-gpus-more-1", "node": "node-a", "allocation": {...}}]
//   }
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "json_fields.h"
#include "output.h"
#include "rapidjson/document.h"
#include "table.h"

namespace draforge::cli {
namespace {

constexpr int kExitNoFit = 1;

// "gpus/four=gpu.example.com/node-3/gpu-0,gpu.example.com/node-3/gpu-1": the devices of a
// status.allocation grouped by request, in result order.
std::string DeviceList(const rapidjson::Value& allocation) {
  const auto devices = allocation.FindMember("devices");
  if (devices == allocation.MemberEnd() || !devices->value.IsObject() || JsonArray(devices->value, "results").Empty()) {
    return "no devices";
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> by_request;
  for (const auto& r : JsonArray(devices->value, "results").GetArray()) {
    const std::string request = JsonStr(r, "request");
    if (by_request.empty() || by_request.back().first != request) by_request.push_back({request, {}});
    by_request.back().second.push_back(JsonStr(r, "driver") + "/" + JsonStr(r, "pool") + "/" + JsonStr(r, "device") +
                                       (JsonBool(r, "adminAccess") ? "(admin)" : ""));
  }
  std::vector<std::string> parts;
  for (const auto& [request, list] : by_request) parts.push_back(request + "=" + Join(list, ","));
  return Join(parts, " ");
}

int PrintPlacement(rapidjson::Document p, const std::string& format, Io io) {
  const std::vector<std::string> fitting = JsonStrings(p, "fittingNodes");
  const rapidjson::Value& nodes = JsonArray(p, "nodes");
  bool any_error = false;
  for (const auto& n : nodes.GetArray()) any_error = any_error || JsonStr(n, "outcome") == "error";
  const int exit = !fitting.empty() ? kExitOk : any_error ? kExitError : kExitNoFit;

  if (format == "text") {
    io.out << "pod " << JsonStr(p, "pod") << ": ";
    if (nodes.Empty()) {
      io.out << "no nodes in the input (no Node objects, no node-local ResourceSlices)\n";
    } else {
      io.out << "fits on " << fitting.size() << " of " << nodes.Size() << " nodes"
             << (fitting.empty() ? "" : " (" + Join(fitting, ", ") + ")")
             << (JsonStr(p, "nodeSource") == "slices" ? "; nodes taken from ResourceSlices" : "") << "\n";
    }
    const rapidjson::Value& claims = JsonArray(p, "claims");
    if (claims.Empty()) io.out << "claims: none (DRA does not restrict the pod)\n";
    for (const auto& c : claims.GetArray()) {
      io.out << "claim " << JsonStr(c, "name") << ": " << JsonStr(c, "claim");
      const std::string source = JsonStr(c, "source");
      if (source == "template") {
        io.out << " (from template " << JsonStr(c, "template") << ")";
      } else if (source == "template-instantiated") {
        io.out << " (from template " << JsonStr(c, "template") << ", not created yet: instantiated in memory)";
      }
      io.out << (!JsonBool(c, "found") ? ", not found" : JsonBool(c, "allocated") ? ", allocated" : ", pending") << "\n";
    }
    for (const auto& u : JsonStrings(p, "unresolvable")) io.out << "unresolvable: " << u << "\n";
    if (!nodes.Empty()) {
      Table table({"NODE", "FITS", "WHY/DEVICES"});
      for (const auto& n : nodes.GetArray()) {
        const bool fits = JsonBool(n, "fits");
        std::string detail;
        if (fits) {
          std::vector<std::string> parts;
          for (const auto& a : JsonArray(n, "allocations").GetArray()) {
            const auto allocation = a.FindMember("allocation");
            parts.push_back(JsonStr(a, "claim") + (JsonBool(a, "existing") ? " (allocated)" : "") + ": " +
                            (allocation != a.MemberEnd() ? DeviceList(allocation->value) : "no devices"));
          }
          detail = parts.empty() ? "no claims to allocate" : Join(parts, "; ");
        } else {
          detail = JsonStr(n, "why").empty() ? Join(JsonStrings(n, "reasons"), "; ") : JsonStr(n, "why");
        }
        table.AddRow({JsonStr(n, "node"), fits ? "yes" : JsonStr(n, "outcome") == "error" ? "error" : "no", detail});
      }
      table.Print(io.out);
    }
    return exit;
  }
  // "found" is for the text above; the JSON keeps its documented shape.
  for (auto& c : p["claims"].GetArray()) c.RemoveMember("found");
  if (!PrintDocument(std::move(p), format, io.out, io.err)) return kExitBadInput;
  return exit;
}

std::string StopSentence(const rapidjson::Value& r) {
  const std::string stop = JsonStr(r, "stop");
  if (stop == "exhausted") return "no node fits another";
  if (stop == "cap") return "cap of " + std::to_string(JsonInt(r, "cap")) + " reached";
  if (stop == "error") return "error on node " + JsonStr(r, "errorNode") + ": " + JsonStr(r, "error");
  if (stop == "no-nodes") return "no nodes in the input (no Node objects, no node-local ResourceSlices)";
  return "";
}

int PrintHowManyMore(rapidjson::Document r, const std::string& format, Io io) {
  const bool stopped_by_error = JsonStr(r, "stop") == "error";
  const int64_t total = JsonInt(r, "total");
  const int exit = stopped_by_error ? kExitError : total > 0 ? kExitOk : kExitNoFit;
  if (format == "text") {
    const bool pods = JsonStr(r, "prototype").rfind("pod ", 0) == 0;
    const char* noun = pods ? (total == 1 ? "pod" : "pods") : (total == 1 ? "claim" : "claims");
    io.out << total << " more " << noun << " like " << JsonStr(r, "prototype") << " "
           << (total == 1 ? "fits" : "fit") << " (stopped: " << StopSentence(r) << ")\n";
    const rapidjson::Value& nodes = JsonArray(r, "nodes");
    if (!nodes.Empty()) {
      Table table({"NODE", "COUNT", "WHY NOT MORE"});
      for (const auto& n : nodes.GetArray()) {
        std::string why = JsonStr(n, "why").empty() ? Join(JsonStrings(n, "reasons"), "; ") : JsonStr(n, "why");
        if (why.empty()) why = stopped_by_error && JsonStr(n, "node") == JsonStr(r, "errorNode") ? "error" : "-";
        table.AddRow({JsonStr(n, "node"), std::to_string(JsonInt(n, "count")), why});
      }
      table.Print(io.out);
    }
    return exit;
  }
  if (!PrintDocument(std::move(r), format, io.out, io.err)) return kExitBadInput;
  return exit;
}

// A positive integer (optional '+', surrounding ASCII whitespace allowed, as before); false otherwise.
bool ParsePositive(const std::string& text, int64_t& out) {
  size_t begin = text.find_first_not_of(" \t\n\v\f\r");
  const size_t end = text.find_last_not_of(" \t\n\v\f\r");
  if (begin == std::string::npos) return false;
  const std::string digits = text.substr(begin, end - begin + 1);
  if (digits.empty() || digits[0] == '-' || std::isspace(static_cast<unsigned char>(digits[0]))) return false;
  errno = 0;
  char* stop = nullptr;
  const long long n = std::strtoll(digits.c_str(), &stop, 10);
  if (errno != 0 || stop != digits.c_str() + digits.size() || n <= 0) return false;
  out = n;
  return true;
}

// The error of a placement call, as before: " in the input" after NotFound; exit 2 for bad input.
int PrintError(const draforge::Error& e, Io io) {
  io.err << "error: " << e.message << (e.code == DRAFORGE_ENOTFOUND ? " in the input" : "") << "\n";
  return e.code == DRAFORGE_ENOTFOUND || e.code == DRAFORGE_EINVALID ? kExitBadInput : kExitError;
}

}  // namespace

int RunPlace(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--pod"}, true, "NAMESPACE/NAME of the pod to place: on which nodes its claims fit"});
  specs.push_back({{"--claim"}, true, "NAMESPACE/NAME of a claim: how many more claims like it fit, and where"});
  specs.push_back({{"--template"}, true,
                   "NAMESPACE/NAME of a ResourceClaimTemplate: how many more claims from it fit, and where"});
  specs.push_back({{"--count"}, false,
                   "count how many more fit (the default with --claim/--template; with --pod: pods like it, "
                   "their claims copied and their requests fitting each node's allocatable)"});
  specs.push_back({{"--cap"}, true, "with --count: stop after this many (default 1000)"});
  specs.push_back({{"--feature-gates"}, true, "A=true,B=false on top of the Kubernetes version's defaults"});
  specs.push_back(KubernetesVersionFlag());
  specs.push_back({{"-o", "--output"}, true, "text (default), json or yaml"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs,
                            "draforge place --pod NS/NAME (-f FILE... | --kubeconfig FILE [--context NAME]) "
                            "[--feature-gates A=true,B=false] [--kubernetes-version 1.3X] "
                            "[-o text|json|yaml]\n"
                            "       draforge place (--claim NS/NAME | --template NS/NAME) [--count] [--cap N] "
                            "(-f FILE... | --kubeconfig FILE [--context NAME]) [--feature-gates ...] [-o text|json|yaml]",
                            io, code);
  if (!flags) return code;
  const auto format_or = OutputFormat(*flags, "text", {"text", "json", "yaml"}, io);
  if (!format_or) return kExitBadInput;
  const std::string& format = *format_or;
  if (!flags->positional().empty()) {
    io.err << "error: unexpected argument \"" << flags->positional().front() << "\"\n";
    return kExitBadInput;
  }
  const int selectors = static_cast<int>(flags->Has("--pod")) + static_cast<int>(flags->Has("--claim")) +
                        static_cast<int>(flags->Has("--template"));
  if (selectors != 1) {
    io.err << "error: exactly one of --pod, --claim or --template is required\n";
    return kExitBadInput;
  }
  for (const char* f : {"--pod", "--claim", "--template", "--cap"}) {
    if (flags->All(f).size() > 1) {
      io.err << "error: " << f << " may be given once\n";
      return kExitBadInput;
    }
  }
  const bool pod_count = flags->Has("--pod") && flags->Has("--count");
  const bool pod_mode = flags->Has("--pod") && !pod_count;
  if (pod_mode && flags->Has("--cap")) {
    io.err << "error: --cap goes with --count (--claim, --template or --pod --count)\n";
    return kExitBadInput;
  }
  int64_t cap = 0;
  if (auto text = flags->Get("--cap")) {
    if (!ParsePositive(*text, cap)) {
      io.err << "error: --cap: expected a positive integer, got \"" << *text << "\"\n";
      return kExitBadInput;
    }
  }
  draforge::AllocateOptions options;
  auto loaded = LoadClusterForAllocation(*flags, io, options);
  if (!loaded) return kExitBadInput;

  if (pod_mode) {
    auto placement = draforge::PlacePodJson(loaded->snapshot, flags->GetOr("--pod", ""), options);
    if (!placement.ok()) return PrintError(placement.error(), io);
    auto doc = ParseResultObject(*placement, "placement result", io.err);
    if (!doc) return kExitError;
    return PrintPlacement(std::move(*doc), format, io);
  }

  const bool is_claim = flags->Has("--claim");
  const draforge::PrototypeKind kind = pod_count ? draforge::PrototypeKind::kPod
                                       : is_claim ? draforge::PrototypeKind::kClaim
                                                  : draforge::PrototypeKind::kTemplate;
  const char* flag = pod_count ? "--pod" : is_claim ? "--claim" : "--template";
  auto result = draforge::HowManyMoreJson(loaded->snapshot, kind, flags->GetOr(flag, ""), cap, options);
  if (!result.ok()) return PrintError(result.error(), io);
  auto doc = ParseResultObject(*result, "placement result", io.err);
  if (!doc) return kExitError;
  return PrintHowManyMore(std::move(*doc), format, io);
}

}  // namespace draforge::cli
