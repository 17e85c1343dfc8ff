// draforge whatif preempt: which pods kube-scheduler's DefaultPreemption would evict so that a pending
// pod can run, DRA-aware as KEP-5690 proposes (draforge_whatif_preempt_json).
//
//   draforge whatif preempt --pod NS/NAME (-f FILE... | --kubeconfig FILE [--context NAME])
//                           [--mode kep-5690|released] [--feature-gates A=true,B=false]
//                           [--kubernetes-version 1.3X] [-o table|json|yaml]
//     Judges the pod on every node as `draforge whatif replay` does; when no node fits and its
//     preemptionPolicy is not Never, dry-runs preemption on every node where it can help: all pods
//     there with a lower priority removed (a claim's devices freed only when every pod using the
//     claim is removed), then put back one by one (PodDisruptionBudget-violating pods first, each
//     group by priority then start time) while the pod still fits; then picks the node as
//     kube-scheduler does (fewest PDB violations, lowest highest victim priority, smallest priority
//     sum, fewest victims, latest start time, name order). --mode released answers for Kubernetes
//     1.37 as released: its DynamicResources plugin never frees devices by preemption.
//     Exit status: 0 a node and its victims (or the pod fits already), 1 no node can work or the pod
//     may not preempt (preemptionPolicy Never), 2 bad input.
//
// -o json (yaml: the same object): draforge_whatif_preempt_json's (include/draforge/place.h):
//   {"pod": "team-a/trainer", "priority": 1000, "outcome": "preempt", "draAware": true,
//    "message": "...", "node": "node-b", "decidedBy": "fewest PDB violations", "pdbViolations": 0,
//    "victims": [{"pod", "priority", "startTime", "claimsFreed": [...], "claimsKept": [...],
//                 "pdbViolated"}],
//    "candidates": [{"node", "pdbViolations", "victims": [...]}], "fittingNodes": [],
//    "nodes": [{"node", "filter", "reason"}]}
#include <string>
#include <vector>

#include "commands.h"
#include "json_fields.h"
#include "output.h"
#include "rapidjson/document.h"
#include "table.h"

namespace draforge::cli {
namespace {

constexpr int kExitNoPreemption = 1;
constexpr char kPreemptUsage[] =
    "draforge whatif preempt --pod NS/NAME (-f FILE... | --kubeconfig FILE [--context NAME]) "
    "[--mode kep-5690|released] [--feature-gates A=true,B=false] [--kubernetes-version 1.3X] "
    "[-o table|json|yaml]";

std::string JoinedOrDash(const rapidjson::Value& list) {
  std::vector<std::string> out;
  for (const auto& s : list.GetArray()) out.push_back(s.GetString());
  return out.empty() ? "-" : Join(out, ", ");
}

std::string DashIfEmpty(const std::string& s) { return s.empty() ? "-" : s; }

void PrintVictims(const rapidjson::Value& victims, std::ostream& out) {
  Table table({"VICTIM", "PRIORITY", "STARTED", "CLAIMS FREED", "CLAIMS KEPT", "PDB VIOLATED"});
  for (const auto& v : victims.GetArray()) {
    table.AddRow({JsonStr(v, "pod"), std::to_string(v["priority"].GetInt64()), DashIfEmpty(JsonStr(v, "startTime")),
                  JoinedOrDash(JsonArray(v, "claimsFreed")), JoinedOrDash(JsonArray(v, "claimsKept")),
                  DashIfEmpty(JsonStr(v, "pdbViolated"))});
  }
  table.Print(out);
}

void PrintPreemptTable(const rapidjson::Document& r, std::ostream& out) {
  const std::string outcome = JsonStr(r, "outcome");
  out << "pod " << JsonStr(r, "pod") << " (priority " << r["priority"].GetInt64() << ", "
      << (JsonBool(r, "draAware") ? "DRA-aware preemption as KEP-5690 proposes" : "Kubernetes 1.37 as released")
      << "):\n";
  if (outcome == "fits") {
    out << "fits without preemption on " << JoinedOrDash(JsonArray(r, "fittingNodes")) << "\n";
    return;
  }
  if (outcome == "not-eligible") {
    out << "preempts nothing: " << JsonStr(r, "message") << "\n";
    return;
  }
  if (outcome == "preempt") {
    const rapidjson::Value& victims = JsonArray(r, "victims");
    out << "preempt " << victims.Size() << " pod(s) on node " << JsonStr(r, "node") << " (chosen by "
        << JsonStr(r, "decidedBy") << "; " << r["pdbViolations"].GetInt64() << " PDB violation(s))\n";
    PrintVictims(victims, out);
    const rapidjson::Value& candidates = JsonArray(r, "candidates");
    if (candidates.Size() > 1) {
      out << "\nevery node where preemption works:\n";
      Table table({"NODE", "VICTIMS", "PDB VIOLATIONS"});
      for (const auto& c : candidates.GetArray()) {
        std::vector<std::string> names;
        for (const auto& v : JsonArray(c, "victims").GetArray()) {
          names.push_back(JsonStr(v, "pod") + " (" + std::to_string(v["priority"].GetInt64()) + ")");
        }
        table.AddRow({JsonStr(c, "node"), Join(names, ", "), std::to_string(c["pdbViolations"].GetInt64())});
      }
      table.Print(out);
    }
  } else {
    out << "no node can be made to fit: " << JsonStr(r, "message") << "\n";
  }
  const rapidjson::Value& nodes = JsonArray(r, "nodes");
  if (!nodes.Empty()) {
    out << "\nnodes where preemption does not help:\n";
    Table table({"NODE", "FILTER", "WHY"});
    for (const auto& n : nodes.GetArray()) table.AddRow({JsonStr(n, "node"), JsonStr(n, "filter"), JsonStr(n, "reason")});
    table.Print(out);
  }
}

}  // namespace

int RunWhatifPreempt(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--pod"}, true, "the pending pod, NS/NAME (a name alone is in namespace default)"});
  specs.push_back({{"--mode"}, true,
                   "kep-5690 (default: a victim's claims are freed when every pod using them is a victim) or "
                   "released (Kubernetes 1.37: DRA rejections are never resolved by preemption)"});
  int code = kExitOk;
  std::optional<std::string> format;
  auto flags = ParseWhatifFlags(args, std::move(specs), kPreemptUsage, io, code, format);
  if (!flags) return code;
  const std::string pod = flags->GetOr("--pod", "");
  if (pod.empty()) {
    io.err << "error: --pod NS/NAME is required\nusage:\n  " << kPreemptUsage << "\n";
    return kExitBadInput;
  }
  const std::string mode = flags->GetOr("--mode", "kep-5690");
  if (mode != "kep-5690" && mode != "released") {
    io.err << "error: --mode: unknown mode \"" << mode << "\" (kep-5690, released)\n";
    return kExitBadInput;
  }
  draforge::AllocateOptions options;
  auto loaded = LoadClusterForAllocation(*flags, io, options);
  if (!loaded) return kExitBadInput;
  auto result = draforge::WhatifPreemptJson(loaded->snapshot, pod, mode == "kep-5690", options);
  if (!result.ok()) {
    io.err << "error: " << result.error().message << "\n";
    return result.error().code == DRAFORGE_EINVALID || result.error().code == DRAFORGE_ENOTFOUND ? kExitBadInput
                                                                                                : kExitError;
  }
  auto doc = ParseResultObject(*result, "preemption result", io.err);
  if (!doc) return kExitError;
  const std::string outcome = JsonStr(*doc, "outcome");
  const int exit = outcome == "preempt" || outcome == "fits" ? kExitOk : kExitNoPreemption;
  if (*format == "table") {
    PrintPreemptTable(*doc, io.out);
    return exit;
  }
  if (!PrintDocument(std::move(*doc), *format, io.out, io.err)) return kExitBadInput;
  return exit;
}

}  // namespace draforge::cli
