// draforge whatif gang: can every member of a PodGroup get a node at once (draforge_gang_json)?
//
//   draforge whatif gang --group NS/NAME (-f FILE... | --kubeconfig FILE [--context NAME])
//                        [--workload NAME --template NAME] [--policy first-fit|most-allocated|least-allocated]
//                        [--feature-gates A=true,B=false] [--kubernetes-version 1.3X] [-o table|json|yaml]
//     Places the pending members of PodGroup NS/NAME (scheduling.k8s.io/v1beta1; the pods whose
//     spec.schedulingGroup.podGroupName names it) as kube-scheduler 1.37's pod group cycle does: one
//     at a time (priority, then creation time, then name), each through the node filters and
//     DynamicResources as `draforge whatif replay` judges a pod, committed before the next; the cycle
//     stops once gang.minCount is out of reach. Claims the PodGroup declares (spec.resourceClaims)
//     are allocated once, by the first member, and shared by the others, on that node. With
//     --workload and --template, a PodGroup that does not exist is built from the Workload's
//     podGroupTemplate. Nothing is written anywhere.
//     Exit status: 0 the gang fits (its placed members would bind), 1 it does not (nothing binds;
//     the blocking member is named), 2 bad input.
//
// -o json (yaml: the same object): draforge_gang_json's object (include/draforge/place.h):
//   {"group": "team-a/shared", "policy": "gang", "minCount": 3, "fits": false,
//    "status": "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining", "blocking": "team-a/shared-2",
//    "scheduled": [], "order": ["team-a/shared-0", ...],
//    "placed": [{"pod", "node", "claims": [{"claim", "existing", "results": [...]}]}],
//    "unschedulable": [{"pod", "nodes": [{"node", "filter", "reason"}]}], "notTried": [],
//    "groupClaims": [{"name", "claim", "source", "existing", "allocatedBy", "members", "results"}]}
#include <string>
#include <vector>

#include "commands.h"
#include "json_fields.h"
#include "output.h"
#include "rapidjson/document.h"
#include "table.h"

namespace draforge::cli {
namespace {

constexpr int kExitDoesNotFit = 1;

// "driver/pool/device ..." of a results array.
std::string DeviceList(const rapidjson::Value& results) {
  std::vector<std::string> out;
  for (const auto& r : results.GetArray()) {
    out.push_back(JsonStr(r, "driver") + "/" + JsonStr(r, "pool") + "/" + JsonStr(r, "device"));
  }
  return out.empty() ? "no devices" : Join(out, " ");
}

void PrintGangTable(const rapidjson::Document& r, std::ostream& out) {
  const bool fits = JsonBool(r, "fits");
  out << "gang " << JsonStr(r, "group") << " (" << JsonStr(r, "policy") << ", minCount " << JsonInt(r, "minCount")
      << "): " << (fits ? "fits" : "does not fit");
  if (!JsonStr(r, "status").empty()) out << ": " << JsonStr(r, "status");
  out << "\n";
  const auto scheduled = JsonStrings(r, "scheduled");
  if (!scheduled.empty()) out << "already bound: " << Join(scheduled, ", ") << "\n";
  if (!JsonStr(r, "blocking").empty()) out << "blocking member: " << JsonStr(r, "blocking") << "\n";
  const rapidjson::Value& group_claims = JsonArray(r, "groupClaims");
  for (const auto& c : group_claims.GetArray()) {
    out << "group claim " << JsonStr(c, "name") << ": " << JsonStr(c, "claim") << " (" << JsonStr(c, "source")
        << "): ";
    if (JsonArray(c, "results").Empty()) {
      out << "not allocated";
    } else {
      out << DeviceList(JsonArray(c, "results"));
      if (JsonBool(c, "existing")) {
        out << ", allocated before";
      } else if (!JsonStr(c, "allocatedBy").empty()) {
        out << ", allocated by " << JsonStr(c, "allocatedBy");
      }
    }
    const auto members = JsonStrings(c, "members");
    if (!members.empty()) out << ", shared by " << Join(members, ", ");
    out << "\n";
  }
  const rapidjson::Value& placed = JsonArray(r, "placed");
  if (!placed.Empty()) {
    out << "\n" << (fits ? "members that bind:" : "tentative placement (undone, nothing binds):") << "\n";
    Table table({"MEMBER", "NODE", "DEVICES"});
    for (const auto& p : placed.GetArray()) {
      std::vector<std::string> claims;
      for (const auto& c : JsonArray(p, "claims").GetArray()) {
        claims.push_back(JsonStr(c, "claim") + (JsonBool(c, "existing") ? " (allocated)" : "") + ": " +
                         DeviceList(JsonArray(c, "results")));
      }
      table.AddRow({JsonStr(p, "pod"), JsonStr(p, "node"), claims.empty() ? "no claims" : Join(claims, "; ")});
    }
    table.Print(out);
  }
  for (const auto& p : JsonArray(r, "unschedulable").GetArray()) {
    out << "\nunschedulable " << JsonStr(p, "pod") << ":\n";
    const rapidjson::Value& nodes = JsonArray(p, "nodes");
    if (nodes.Empty()) {
      out << "  no nodes in the input\n";
      continue;
    }
    Table table({"NODE", "FILTER", "WHY NOT"});
    for (const auto& n : nodes.GetArray()) {
      table.AddRow({JsonStr(n, "node"), JsonStr(n, "filter"), JsonStr(n, "reason")});
    }
    table.Print(out);
  }
  const auto not_tried = JsonStrings(r, "notTried");
  if (!not_tried.empty()) out << "\nnot tried: " << Join(not_tried, ", ") << "\n";
}

}  // namespace

extern const char kWhatifGangUsage[] =
    "draforge whatif gang --group NS/NAME (-f FILE... | --kubeconfig FILE [--context NAME]) "
    "[--workload NAME --template NAME] [--policy first-fit|most-allocated|least-allocated] "
    "[--feature-gates A=true,B=false] [--kubernetes-version 1.3X] [-o table|json|yaml]";

int RunWhatifGang(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--group"}, true, "the PodGroup NS/NAME whose members are placed"});
  specs.push_back(
      {{"--workload"}, true, "with --template: build the PodGroup from this Workload when it does not exist"});
  specs.push_back({{"--template"}, true, "the Workload's podGroupTemplate --workload uses"});
  specs.push_back({{"--policy"}, true,
                   "how a member's node is chosen among those that fit: first-fit (default), most-allocated or "
                   "least-allocated"});
  int code = kExitOk;
  std::optional<std::string> format;
  auto flags = ParseWhatifFlags(args, std::move(specs), kWhatifGangUsage, io, code, format);
  if (!flags) return code;
  const std::string group = flags->GetOr("--group", "");
  if (group.empty()) {
    io.err << "error: --group NS/NAME is required\nusage:\n  " << kWhatifGangUsage << "\n";
    return kExitBadInput;
  }
  const std::string workload = flags->GetOr("--workload", "");
  const std::string tmpl = flags->GetOr("--template", "");
  if (workload.empty() != tmpl.empty()) {
    io.err << "error: --workload and --template come together\n";
    return kExitBadInput;
  }
  const std::string policy = flags->GetOr("--policy", "first-fit");
  draforge::AllocateOptions options;
  auto loaded = LoadClusterForAllocation(*flags, io, options);
  if (!loaded) return kExitBadInput;
  auto result = draforge::GangJson(loaded->snapshot, group, policy, workload.empty() ? "" : workload + "/" + tmpl,
                                   options);
  if (!result.ok()) {
    io.err << "error: " << result.error().message << "\n";
    return result.error().code == DRAFORGE_EINVALID || result.error().code == DRAFORGE_ENOTFOUND ? kExitBadInput
                                                                                                : kExitError;
  }
  auto doc = ParseResultObject(*result, "gang result", io.err);
  if (!doc) return kExitError;
  const int exit = JsonBool(*doc, "fits") ? kExitOk : kExitDoesNotFit;
  if (*format == "table") {
    PrintGangTable(*doc, io.out);
    return exit;
  }
  if (!PrintDocument(std::move(*doc), *format, io.out, io.err)) return kExitBadInput;
  return exit;
}

}  // namespace draforge::cli
