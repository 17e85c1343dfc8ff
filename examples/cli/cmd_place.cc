// draforge place: cluster-wide placement (lib/alloc/placement.h).
//
//   draforge place --pod NS/NAME (-f FILE... | --kubeconfig FILE [--context NAME]) [--feature-gates A=true,B=false] [-o text|json|yaml]
//     On which nodes the pod's claims fit: kube-scheduler's DRA Filter on every node (Node objects of
//     the input, in name order; without any, the nodes that node-local ResourceSlices name).
//     Exit status: 0 at least one node fits, 1 none does, 2 bad input (flags, files, unknown pod),
//     3 no node fits and the allocator reported an error on at least one node.
//
//   draforge place (--claim NS/NAME | --template NS/NAME) [--count] [--cap N] (-f FILE... | --kubeconfig FILE [--context NAME]) [...]
//     How many more claims like this one (or like the template's claim) fit, and where: copies are
//     allocated one by one, node by node, until none fits, N are placed (--cap, default 1000) or
//     the allocator fails. --count only spells the mode out; --claim/--template imply it.
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
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/allocator.h"
#include "alloc/features.h"
#include "alloc/placement.h"
#include "commands.h"
#include "common/status.h"
#include "output.h"
#include "table.h"
#include "common/json_string.h"

namespace draforge::cli {
namespace {

constexpr int kExitNoFit = 1;

std::pair<std::string, std::string> SplitRef(const std::string& ref) {
  const size_t slash = ref.find('/');
  if (slash == std::string::npos) return {"default", ref};
  return {ref.substr(0, slash), ref.substr(slash + 1)};
}

// "gpus/four=gpu.example.com/node-3/gpu-0,gpu.example.com/node-3/gpu-1": the devices of an
// allocation grouped by request, in result order.
std::string DeviceList(const api::AllocationResult& allocation) {
  if (!allocation.devices || allocation.devices->results.empty()) return "no devices";
  std::vector<std::pair<std::string, std::vector<std::string>>> by_request;
  for (const auto& r : allocation.devices->results) {
    const std::string request = r.request.value_or("");
    if (by_request.empty() || by_request.back().first != request) by_request.push_back({request, {}});
    by_request.back().second.push_back(absl::StrCat(alloc::ResultDeviceID(r).String(),
                                                    r.admin_access.value_or(false) ? "(admin)" : ""));
  }
  std::vector<std::string> parts;
  for (const auto& [request, devices] : by_request) parts.push_back(absl::StrCat(request, "=", absl::StrJoin(devices, ",")));
  return absl::StrJoin(parts, " ");
}

class Json {
 public:
  Json() { docs_.resize(1); doc().SetObject(); }
  rapidjson::Document& doc() { return docs_.front(); }
  rapidjson::Document::AllocatorType& a() { return doc().GetAllocator(); }
  rapidjson::Value Str(std::string_view s) {
    return JsonString(s, a());
  }
  rapidjson::Value Strings(const std::vector<std::string>& list) {
    rapidjson::Value v(rapidjson::kArrayType);
    for (const auto& s : list) v.PushBack(Str(s), a());
    return v;
  }
  // status.allocation as Kubernetes writes it; false (after printing) when it cannot be encoded.
  bool Allocation(const api::AllocationResult& allocation, rapidjson::Value& out, Io io) {
    auto encoded = alloc::EncodeAllocationResult(allocation);
    if (!encoded.ok()) {
      io.err << "error: " << encoded.status().message() << "\n";
      return false;
    }
    out.CopyFrom(*encoded, a());
    return true;
  }
  bool Write(const std::string& format, Io io) {
    if (absl::Status s = WriteDocuments(docs_, format, io.out); !s.ok()) {
      io.err << "error: " << s.message() << "\n";
      return false;
    }
    return true;
  }

 private:
  std::vector<rapidjson::Document> docs_;
};

int PrintPlacement(const alloc::PodPlacement& p, const std::string& format, Io io) {
  const std::vector<std::string> fitting = p.FittingNodes();
  bool any_error = false;
  for (const auto& n : p.nodes) any_error = any_error || n.outcome == alloc::Outcome::kError;
  const int exit = !fitting.empty() ? kExitOk : any_error ? kExitError : kExitNoFit;

  if (format == "text") {
    io.out << "pod " << p.pod << ": ";
    if (p.nodes.empty()) {
      io.out << "no nodes in the input (no Node objects, no node-local ResourceSlices)\n";
    } else {
      io.out << "fits on " << fitting.size() << " of " << p.nodes.size() << " nodes"
             << (fitting.empty() ? "" : absl::StrCat(" (", absl::StrJoin(fitting, ", "), ")"))
             << (p.node_source == "slices" ? "; nodes taken from ResourceSlices" : "") << "\n";
    }
    if (p.claims.empty()) io.out << "claims: none (DRA does not restrict the pod)\n";
    for (const auto& c : p.claims) {
      io.out << "claim " << c.pod_claim << ": " << c.key;
      switch (c.source) {
        case alloc::ClaimSource::kClaim:
          break;
        case alloc::ClaimSource::kTemplate:
          io.out << " (from template " << c.template_name << ")";
          break;
        case alloc::ClaimSource::kTemplateInstantiated:
          io.out << " (from template " << c.template_name << ", not created yet: instantiated in memory)";
          break;
      }
      io.out << (c.claim == nullptr ? ", not found" : c.allocated ? ", allocated" : ", pending") << "\n";
    }
    for (const auto& u : p.unresolvable) io.out << "unresolvable: " << u << "\n";
    if (!p.nodes.empty()) {
      Table table({"NODE", "FITS", "WHY/DEVICES"});
      for (const auto& n : p.nodes) {
        std::string detail;
        if (n.fits()) {
          std::vector<std::string> parts;
          for (const auto& a : n.allocations) {
            parts.push_back(absl::StrCat(a.claim, a.existing ? " (allocated)" : "", ": ", DeviceList(a.allocation)));
          }
          detail = parts.empty() ? "no claims to allocate" : absl::StrJoin(parts, "; ");
        } else {
          detail = n.why.empty() ? absl::StrJoin(n.reasons, "; ") : n.why;
        }
        table.AddRow({n.node, n.fits() ? "yes" : n.outcome == alloc::Outcome::kError ? "error" : "no", detail});
      }
      table.Print(io.out);
    }
    return exit;
  }

  Json j;
  auto& d = j.doc();
  auto& a = j.a();
  d.AddMember("pod", j.Str(p.pod), a);
  d.AddMember("nodeSource", j.Str(p.node_source), a);
  rapidjson::Value claims(rapidjson::kArrayType);
  for (const auto& c : p.claims) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("name", j.Str(c.pod_claim), a);
    o.AddMember("claim", j.Str(c.key), a);
    o.AddMember("source", j.Str(alloc::ClaimSourceName(c.source)), a);
    if (!c.template_name.empty()) o.AddMember("template", j.Str(c.template_name), a);
    o.AddMember("allocated", c.allocated, a);
    claims.PushBack(o, a);
  }
  d.AddMember("claims", claims, a);
  d.AddMember("unresolvable", j.Strings(p.unresolvable), a);
  d.AddMember("fittingNodes", j.Strings(fitting), a);
  rapidjson::Value nodes(rapidjson::kArrayType);
  for (const auto& n : p.nodes) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("node", j.Str(n.node), a);
    o.AddMember("fits", n.fits(), a);
    o.AddMember("outcome", j.Str(alloc::OutcomeName(n.outcome)), a);
    if (n.fits()) {
      rapidjson::Value allocations(rapidjson::kArrayType);
      for (const auto& ca : n.allocations) {
        rapidjson::Value e(rapidjson::kObjectType);
        e.AddMember("claim", j.Str(ca.claim), a);
        e.AddMember("existing", ca.existing, a);
        rapidjson::Value alloc_json;
        if (!j.Allocation(ca.allocation, alloc_json, io)) return kExitError;
        e.AddMember("allocation", alloc_json, a);
        allocations.PushBack(e, a);
      }
      o.AddMember("allocations", allocations, a);
    } else {
      o.AddMember("reasons", j.Strings(n.reasons), a);
      o.AddMember("why", j.Str(n.why), a);
      if (!n.error.ok()) o.AddMember("error", j.Str(SV(n.error.message())), a);
    }
    o.AddMember("searchSteps", rapidjson::Value(static_cast<int64_t>(n.search_steps)), a);
    nodes.PushBack(o, a);
  }
  d.AddMember("nodes", nodes, a);
  if (!j.Write(format, io)) return kExitBadInput;
  return exit;
}

std::string StopSentence(const alloc::HowManyMoreResult& r) {
  switch (r.stop) {
    case alloc::StopReason::kExhausted:
      return "no node fits another";
    case alloc::StopReason::kCap:
      return absl::StrCat("cap of ", r.cap, " reached");
    case alloc::StopReason::kError:
      return absl::StrCat("error on node ", r.error_node, ": ", r.error.message());
    case alloc::StopReason::kNoNodes:
      return "no nodes in the input (no Node objects, no node-local ResourceSlices)";
  }
  return "";
}

int PrintHowManyMore(const alloc::HowManyMoreResult& r, const std::string& format, Io io) {
  const int exit = r.stop == alloc::StopReason::kError ? kExitError : r.total > 0 ? kExitOk : kExitNoFit;
  if (format == "text") {
    io.out << r.total << " more " << (r.total == 1 ? "claim" : "claims") << " like " << r.prototype << " "
           << (r.total == 1 ? "fits" : "fit") << " (stopped: " << StopSentence(r) << ")\n";
    if (!r.nodes.empty()) {
      Table table({"NODE", "COUNT", "WHY NOT MORE"});
      for (const auto& n : r.nodes) {
        std::string why = n.why.empty() ? absl::StrJoin(n.reasons, "; ") : n.why;
        if (why.empty()) why = r.stop == alloc::StopReason::kError && n.node == r.error_node ? "error" : "-";
        table.AddRow({n.node, std::to_string(n.count), why});
      }
      table.Print(io.out);
    }
    return exit;
  }
  Json j;
  auto& d = j.doc();
  auto& a = j.a();
  d.AddMember("prototype", j.Str(r.prototype), a);
  d.AddMember("total", rapidjson::Value(static_cast<int64_t>(r.total)), a);
  d.AddMember("cap", rapidjson::Value(static_cast<int64_t>(r.cap)), a);
  d.AddMember("stop", j.Str(alloc::StopReasonName(r.stop)), a);
  if (r.stop == alloc::StopReason::kError) {
    d.AddMember("error", j.Str(SV(r.error.message())), a);
    d.AddMember("errorNode", j.Str(r.error_node), a);
  }
  rapidjson::Value nodes(rapidjson::kArrayType);
  for (const auto& n : r.nodes) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("node", j.Str(n.node), a);
    o.AddMember("count", rapidjson::Value(static_cast<int64_t>(n.count)), a);
    o.AddMember("reasons", j.Strings(n.reasons), a);
    if (!n.why.empty()) o.AddMember("why", j.Str(n.why), a);
    nodes.PushBack(o, a);
  }
  d.AddMember("nodes", nodes, a);
  rapidjson::Value copies(rapidjson::kArrayType);
  for (const auto& c : r.copies) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("claim", j.Str(c.claim), a);
    o.AddMember("node", j.Str(c.node), a);
    rapidjson::Value alloc_json;
    if (!j.Allocation(c.allocation, alloc_json, io)) return kExitError;
    o.AddMember("allocation", alloc_json, a);
    copies.PushBack(o, a);
  }
  d.AddMember("copies", copies, a);
  if (!j.Write(format, io)) return kExitBadInput;
  return exit;
}

}  // namespace

int RunPlace(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--pod"}, true, "NAMESPACE/NAME of the pod to place: on which nodes its claims fit"});
  specs.push_back({{"--claim"}, true, "NAMESPACE/NAME of a claim: how many more claims like it fit, and where"});
  specs.push_back({{"--template"}, true,
                   "NAMESPACE/NAME of a ResourceClaimTemplate: how many more claims from it fit, and where"});
  specs.push_back({{"--count"}, false, "with --claim/--template: count how many more fit (the default there)"});
  specs.push_back({{"--cap"}, true, "with --claim/--template: stop after this many (default 1000)"});
  specs.push_back({{"--feature-gates"}, true, "A=true,B=false on top of the Kubernetes 1.37 defaults"});
  specs.push_back({{"-o", "--output"}, true, "text (default), json or yaml"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs,
                            "draforge place --pod NS/NAME (-f FILE... | --kubeconfig FILE [--context NAME]) [--feature-gates A=true,B=false] "
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
  const bool pod_mode = flags->Has("--pod");
  if (pod_mode && (flags->Has("--count") || flags->Has("--cap"))) {
    io.err << "error: --count and --cap go with --claim or --template, not --pod\n";
    return kExitBadInput;
  }
  alloc::HowManyMoreOptions more;
  if (auto cap = flags->Get("--cap")) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(*cap, &n) || n <= 0) {
      io.err << "error: --cap: expected a positive integer, got \"" << *cap << "\"\n";
      return kExitBadInput;
    }
    more.cap = n;
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

  if (pod_mode) {
    const auto [ns, name] = SplitRef(flags->GetOr("--pod", ""));
    alloc::PlaceOptions options;
    options.features = *features;
    auto placement = alloc::Place(*snapshot, ns, name, options);
    if (!placement.ok()) {
      io.err << "error: " << placement.status().message() << (absl::IsNotFound(placement.status()) ? " in the input" : "")
             << "\n";
      return absl::IsNotFound(placement.status()) || absl::IsInvalidArgument(placement.status()) ? kExitBadInput
                                                                                                : kExitError;
    }
    return PrintPlacement(*placement, format, io);
  }

  const bool is_claim = flags->Has("--claim");
  const auto [ns, name] = SplitRef(flags->GetOr(is_claim ? "--claim" : "--template", ""));
  more.features = *features;
  auto result = alloc::HowManyMore(*snapshot, is_claim ? alloc::PrototypeKind::kClaim : alloc::PrototypeKind::kTemplate,
                                   ns, name, more);
  if (!result.ok()) {
    io.err << "error: " << result.status().message() << (absl::IsNotFound(result.status()) ? " in the input" : "")
           << "\n";
    return absl::IsNotFound(result.status()) || absl::IsInvalidArgument(result.status()) ? kExitBadInput : kExitError;
  }
  return PrintHowManyMore(*result, format, io);
}

}  // namespace draforge::cli
