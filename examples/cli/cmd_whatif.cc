// draforge whatif: what-if questions answered on a copy of the input (draforge_replay_json).
//
//   draforge whatif replay (-f FILE... | --kubeconfig FILE [--context NAME])
//                          [--policy first-fit|most-allocated|least-allocated] [--feature-gates A=true,B=false]
//                          [--kubernetes-version 1.3X] [-o table|json|yaml]
//     Places the pending pods (no spec.nodeName, not terminal, default scheduler) one at a time in
//     kube-scheduler's queue order (priority, then creation time, then namespace/name): each node goes
//     through the scheduler's filters in order (NodeUnschedulable, TaintToleration, NodeAffinity,
//     NodeResourcesFit: the pod's cpu/memory/pods against the node's allocatable minus the pods bound
//     there), then is judged as `draforge place` judges it (DynamicResources); --policy picks among the nodes that fit (default
//     first-fit: the first in name order; most-/least-allocated: by the share of the node's devices
//     allocated); the result is committed before the next pod. Nothing is written anywhere.
//     Exit status: 0 every pending pod is placed, 1 at least one stays pending, 2 bad input.
//
// -o json (yaml: the same object):
//   {"policy": "first-fit",
//    "order": ["team-a/trainer", ...],                       // the pending pods in queue order
//    "placed": [{"pod": "team-a/trainer", "node": "node-1",
//                "claims": [{"claim": "team-a/gpus", "existing": false,
//                            "results": [...status.allocation.devices.results...]}]}],
//    "pending": [{"pod": "team-b/big", "nodes": [{"node": "node-1", "filter": "NodeResourcesFit",
//                                                 "reason": "cpu: 8 requested, 2 free ..."}]}]}
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

constexpr int kExitPending = 1;
constexpr char kReplayUsage[] =
    "draforge whatif replay (-f FILE... | --kubeconfig FILE [--context NAME]) "
    "[--policy first-fit|most-allocated|least-allocated] [--feature-gates A=true,B=false] "
    "[--kubernetes-version 1.3X] [-o table|json|yaml]";

// "request=driver/pool/device,..." for one claim's results.
std::string Devices(const rapidjson::Value& results) {
  std::vector<std::string> out;
  for (const auto& r : results.GetArray()) {
    out.push_back(JsonStr(r, "request") + "=" + JsonStr(r, "driver") + "/" + JsonStr(r, "pool") + "/" +
                  JsonStr(r, "device"));
  }
  return out.empty() ? "no devices" : Join(out, " ");
}

void PrintReplayTable(const rapidjson::Document& r, std::ostream& out) {
  const rapidjson::Value& placed = JsonArray(r, "placed");
  const rapidjson::Value& pending = JsonArray(r, "pending");
  out << "replay (" << JsonStr(r, "policy") << "): " << placed.Size() << " of " << JsonArray(r, "order").Size()
      << " pending pods placed, " << pending.Size() << " stay pending\n";
  if (!placed.Empty()) {
    Table table({"POD", "NODE", "DEVICES"});
    for (const auto& p : placed.GetArray()) {
      std::vector<std::string> claims;
      for (const auto& c : JsonArray(p, "claims").GetArray()) {
        claims.push_back(JsonStr(c, "claim") + (JsonBool(c, "existing") ? " (allocated)" : "") + ": " +
                         Devices(JsonArray(c, "results")));
      }
      table.AddRow({JsonStr(p, "pod"), JsonStr(p, "node"), claims.empty() ? "no claims" : Join(claims, "; ")});
    }
    table.Print(out);
  }
  for (const auto& p : pending.GetArray()) {
    out << "\npending " << JsonStr(p, "pod") << ":\n";
    const rapidjson::Value& nodes = JsonArray(p, "nodes");
    if (nodes.Empty()) {
      out << "  no nodes in the input\n";
      continue;
    }
    Table table({"NODE", "WHY NOT"});
    for (const auto& n : nodes.GetArray()) table.AddRow({JsonStr(n, "node"), JsonStr(n, "reason")});
    table.Print(out);
  }
}

int RunReplay(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--policy"}, true,
                   "how a pod's node is chosen among those that fit: first-fit (default, name order), "
                   "most-allocated or least-allocated (share of the node's devices allocated)"});
  specs.push_back({{"--feature-gates"}, true, "A=true,B=false on top of the Kubernetes version's defaults"});
  specs.push_back(KubernetesVersionFlag());
  specs.push_back({{"-o", "--output"}, true, "table (default), json or yaml"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, kReplayUsage, io, code);
  if (!flags) return code;
  const auto format = OutputFormat(*flags, "table", {"table", "json", "yaml"}, io);
  if (!format) return kExitBadInput;
  if (!flags->positional().empty()) {
    io.err << "error: unexpected argument \"" << flags->positional().front() << "\"\n";
    return kExitBadInput;
  }
  const std::string policy = flags->GetOr("--policy", "first-fit");
  if (policy != "first-fit" && policy != "most-allocated" && policy != "least-allocated") {
    io.err << "error: --policy: unknown policy \"" << policy << "\" (first-fit, most-allocated, least-allocated)\n";
    return kExitBadInput;
  }
  draforge::AllocateOptions options;
  auto loaded = LoadClusterForAllocation(*flags, io, options);
  if (!loaded) return kExitBadInput;
  auto result = draforge::ReplayJson(loaded->snapshot, policy, options);
  if (!result.ok()) {
    io.err << "error: " << result.error().message << "\n";
    return result.error().code == DRAFORGE_EINVALID ? kExitBadInput : kExitError;
  }
  auto doc = ParseResultObject(*result, "replay result", io.err);
  if (!doc) return kExitError;
  const int exit = JsonArray(*doc, "pending").Empty() ? kExitOk : kExitPending;
  if (*format == "table") {
    PrintReplayTable(*doc, io.out);
    return exit;
  }
  if (!PrintDocument(std::move(*doc), *format, io.out, io.err)) return kExitBadInput;
  return exit;
}

}  // namespace

int RunWhatif(const Args& args, Io io) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    (args.empty() ? io.err : io.out) << "usage:\n  " << kReplayUsage << "\n";
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "replay") return RunReplay(rest, io);
  io.err << "error: unknown whatif command \"" << args[0] << "\" (replay)\nusage:\n  " << kReplayUsage << "\n";
  return kExitBadInput;
}

}  // namespace draforge::cli
