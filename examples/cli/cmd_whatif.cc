// draforge whatif: what-if questions answered on a copy of the input (draforge_replay_json).
//
//   draforge whatif replay (-f FILE... | --kubeconfig FILE [--context NAME])
//                          [--policy first-fit|most-allocated|least-allocated]
//                          [--add-nodes N --like NODE]... [--add-template-nodes N --template FILE]...
//                          [--delete-claim NS/NAME]... [--delete-pod NS/NAME]...
//                          [--drain-node NODE]... [--delete-node NODE]... [--taint-devices FILE]...
//                          [--set-class-selector CLASS=CEL]...
//                          [--feature-gates A=true,B=false] [--kubernetes-version 1.3X] [-o table|json|yaml]
//     Places the pending pods (no spec.nodeName, not terminal, default scheduler) one at a time in
//     kube-scheduler's queue order (priority, then creation time, then namespace/name): each node goes
//     through the scheduler's filters in order (NodeUnschedulable, TaintToleration, NodeAffinity,
//     NodeResourcesFit: the pod's cpu/memory/pods against the node's allocatable minus the pods bound
//     there), then is judged as `draforge place` judges it (DynamicResources); --policy picks among the nodes that fit (default
//     first-fit: the first in name order; most-/least-allocated: by the share of the node's devices
//     allocated); the result is committed before the next pod. Nothing is written anywhere.
//     Edits first change the copy (draforge_whatif_edit), in this order whatever the order on the
//     command line: --add-nodes N --like NODE (the i-th --add-nodes pairs with the i-th --like; copies
//     NODE-whatif-1.. with its node-local slices), --add-template-nodes N --template FILE (a Node
//     template with its ResourceSlices and SimulatedDevicePools, expanded for it), --delete-claim,
//     --delete-pod, --drain-node (cordon, evict all but DaemonSet and mirror pods to pending, release
//     their claims), --delete-node (node and its slices gone, its pods pending), --taint-devices
//     (DeviceTaintRules added), --set-class-selector (a class's selectors replaced). The table starts with what each edit did; JSON has them
//     under "edits".
//     Exit status: 0 every pending pod is placed, 1 at least one stays pending, 2 bad input.
//
// -o json (yaml: the same object):
//   {"policy": "first-fit",
//    "edits": ["drain-node n1: cordoned; ...", ...],          // with edit flags only
//    "order": ["team-a/trainer", ...],                       // the pending pods in queue order
//    "placed": [{"pod": "team-a/trainer", "node": "node-1",
//                "claims": [{"claim": "team-a/gpus", "existing": false,
//                            "results": [...status.allocation.devices.results...]}]}],
//    "pending": [{"pod": "team-b/big", "nodes": [{"node": "node-1", "filter": "NodeResourcesFit",
//                                                 "reason": "cpu: 8 requested, 2 free ..."}]}]}
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "input.h"
#include "json_fields.h"
#include "output.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "table.h"

namespace draforge::cli {
namespace {

constexpr int kExitPending = 1;
constexpr char kReplayUsage[] =
    "draforge whatif replay (-f FILE... | --kubeconfig FILE [--context NAME]) "
    "[--policy first-fit|most-allocated|least-allocated] [--no-explain] [--add-nodes N --like NODE]... "
    "[--add-template-nodes N --template FILE]... [--delete-claim NS/NAME]... [--delete-pod NS/NAME]... "
    "[--drain-node NODE]... [--delete-node NODE]... [--taint-devices FILE]... [--set-class-selector CLASS=CEL]... "
    "[--feature-gates A=true,B=false] [--kubernetes-version 1.3X] [-o table|json|yaml]";

// "request=driver/pool/device,..." for one claim's results.
std::string Devices(const rapidjson::Value& results) {
  std::vector<std::string> out;
  for (const auto& r : results.GetArray()) {
    out.push_back(JsonStr(r, "request") + "=" + JsonStr(r, "driver") + "/" + JsonStr(r, "pool") + "/" +
                  JsonStr(r, "device"));
  }
  return out.empty() ? "no devices" : Join(out, " ");
}

// Writes every object of `after` to `path` as a YAML stream; false after printing the problem.
bool WriteAfter(const draforge::Snapshot& after, const std::string& path, std::ostream& err) {
  auto json = after.ObjectsJson();
  if (!json.ok()) {
    err << "error: --after: " << json.error().message << "\n";
    return false;
  }
  rapidjson::Document d;
  d.Parse(json->c_str());
  std::string yaml;
  for (const auto& o : d.GetArray()) {
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    o.Accept(w);
    auto doc = draforge::ReformatJson(std::string_view(sb.GetString(), sb.GetSize()), draforge::Format::kYaml);
    if (!doc.ok()) {
      err << "error: --after: " << doc.error().message << "\n";
      return false;
    }
    yaml += "---\n" + *doc;
  }
  // Written beside and renamed: a reader never sees half a file.
  const std::string tmp = path + ".tmp";
  std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
  f << yaml;
  f.close();
  if (!f || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    err << "error: --after: cannot write " << path << "\n";
    return false;
  }
  return true;
}

}  // namespace

std::optional<Flags> ParseWhatifFlags(const Args& args, std::vector<FlagSpec> specs, const std::string& usage, Io io,
                                      int& exit_code, std::optional<std::string>& format) {
  specs.push_back({{"--feature-gates"}, true, "A=true,B=false on top of the Kubernetes version's defaults"});
  specs.push_back(KubernetesVersionFlag());
  specs.push_back({{"-o", "--output"}, true, "table (default), json or yaml"});
  auto flags = ParseOrUsage(args, std::move(specs), usage, io, exit_code);
  if (!flags) return std::nullopt;
  format = OutputFormat(*flags, "table", {"table", "json", "yaml"}, io);
  if (!format) {
    exit_code = kExitBadInput;
    return std::nullopt;
  }
  if (!flags->positional().empty()) {
    io.err << "error: unexpected argument \"" << flags->positional().front() << "\"\n";
    exit_code = kExitBadInput;
    return std::nullopt;
  }
  return flags;
}

namespace {

// The positive integer `value` of `flag`, or nullopt after printing the problem.
std::optional<int64_t> PositiveCount(const char* flag, const std::string& value, std::ostream& err) {
  int64_t n = 0;
  size_t used = 0;
  try {
    n = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || n < 1) {
    err << "error: " << flag << ": want a positive integer, got \"" << value << "\"\n";
    return std::nullopt;
  }
  return n;
}

// The objects of FILE as JSON values, by kind; false after printing the problem (an object that does
// not decode, a kind not in `kinds`).
bool ObjectsOfFile(const std::string& flag, const std::string& file, const std::vector<std::string>& kinds,
                   rapidjson::Document& d, std::vector<std::pair<std::string, rapidjson::Value>>& out,
                   std::ostream& err) {
  auto read = ReadObjects({file}, true, 0);
  if (!read.ok()) {
    err << "error: " << flag << " " << file << ": " << read.error().message << "\n";
    return false;
  }
  const Inputs in{*std::move(read), "", "", ""};
  const draforge::Objects* objects = &in.objects;
  for (size_t i = 0; i < objects->size(); ++i) {
    if (!objects->decoded(i)) {
      err << "error: " << flag << " " << in.Where(i) << objects->error(i) << "\n";
      return false;
    }
    const std::string kind(objects->kind(i));
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
      err << "error: " << flag << " " << in.Where(i) << "kind " << kind << " is not expected here ("
          << Join(kinds, ", ") << ")\n";
      return false;
    }
    auto json = objects->Encode(i);
    if (!json.ok()) {
      err << "error: " << flag << " " << in.Where(i) << json.error().message << "\n";
      return false;
    }
    rapidjson::Document o;
    o.Parse(json->c_str());
    rapidjson::Value v;
    v.CopyFrom(o, d.GetAllocator());
    out.emplace_back(kind, std::move(v));
  }
  return true;
}

// --add-template-nodes N --template FILE pairs: FILE holds one Node (the template) and the
// ResourceSlices and SimulatedDevicePools of such a node.
bool TemplateEdits(const Flags& flags, rapidjson::Document& d, std::ostream& err) {
  auto& a = d.GetAllocator();
  const auto& counts = flags.All("--add-template-nodes");
  const auto& files = flags.All("--template");
  if (counts.size() != files.size()) {
    err << "error: --add-template-nodes and --template come in pairs (" << counts.size() << " --add-template-nodes, "
        << files.size() << " --template)\n";
    return false;
  }
  for (size_t i = 0; i < counts.size(); ++i) {
    const auto n = PositiveCount("--add-template-nodes", counts[i], err);
    if (!n) return false;
    std::vector<std::pair<std::string, rapidjson::Value>> objects;
    if (!ObjectsOfFile("--template", files[i], {"Node", "ResourceSlice", "SimulatedDevicePool"}, d, objects, err)) {
      return false;
    }
    rapidjson::Value e(rapidjson::kObjectType), slices(rapidjson::kArrayType), pools(rapidjson::kArrayType);
    e.AddMember("op", "add-nodes", a);
    e.AddMember("count", *n, a);
    int nodes = 0;
    for (auto& [kind, v] : objects) {
      if (kind == "Node") {
        ++nodes;
        e.AddMember("node", v, a);
      } else if (kind == "ResourceSlice") {
        slices.PushBack(v, a);
      } else {
        pools.PushBack(v, a);
      }
    }
    if (nodes != 1) {
      err << "error: --template " << files[i] << ": want exactly one Node (the template), found " << nodes << "\n";
      return false;
    }
    e.AddMember("slices", slices, a);
    if (!pools.Empty()) e.AddMember("simulatedDevicePools", pools, a);
    d.PushBack(e, a);
  }
  return true;
}

// --taint-devices FILE (DeviceTaintRules) and --set-class-selector CLASS=CEL (grouped by class, in
// the order of first appearance).
bool RuleAndClassEdits(const Flags& flags, rapidjson::Document& d, std::ostream& err) {
  auto& a = d.GetAllocator();
  for (const std::string& file : flags.All("--taint-devices")) {
    std::vector<std::pair<std::string, rapidjson::Value>> rules;
    if (!ObjectsOfFile("--taint-devices", file, {"DeviceTaintRule"}, d, rules, err)) return false;
    for (auto& [kind, v] : rules) {
      rapidjson::Value e(rapidjson::kObjectType);
      e.AddMember("op", "taint-devices", a);
      e.AddMember("rule", v, a);
      d.PushBack(e, a);
    }
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> classes;
  for (const std::string& value : flags.All("--set-class-selector")) {
    const size_t eq = value.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
      err << "error: --set-class-selector: want CLASS=CEL-EXPRESSION, got \"" << value << "\"\n";
      return false;
    }
    const std::string klass = value.substr(0, eq);
    auto it = std::find_if(classes.begin(), classes.end(), [&](const auto& c) { return c.first == klass; });
    if (it == classes.end()) it = classes.insert(classes.end(), {klass, {}});
    it->second.push_back(value.substr(eq + 1));
  }
  for (const auto& [klass, expressions] : classes) {
    rapidjson::Value e(rapidjson::kObjectType), selectors(rapidjson::kArrayType);
    e.AddMember("op", "set-class-selectors", a);
    e.AddMember("name", rapidjson::Value(klass.c_str(), a), a);
    for (const std::string& x : expressions) {
      rapidjson::Value cel(rapidjson::kObjectType), sel(rapidjson::kObjectType);
      cel.AddMember("expression", rapidjson::Value(x.c_str(), a), a);
      sel.AddMember("cel", cel, a);
      selectors.PushBack(sel, a);
    }
    e.AddMember("selectors", selectors, a);
    d.PushBack(e, a);
  }
  return true;
}

// The edit flags as draforge_whatif_edit's JSON array, in the documented order; nullopt after
// printing the problem (an --add-nodes without its --like, a count that is not a positive integer).
std::optional<std::string> EditsJson(const Flags& flags, std::ostream& err) {
  rapidjson::Document d(rapidjson::kArrayType);
  auto& a = d.GetAllocator();
  const auto& counts = flags.All("--add-nodes");
  const auto& likes = flags.All("--like");
  if (counts.size() != likes.size()) {
    err << "error: --add-nodes and --like come in pairs (" << counts.size() << " --add-nodes, " << likes.size()
        << " --like)\n";
    return std::nullopt;
  }
  for (size_t i = 0; i < counts.size(); ++i) {
    const auto n = PositiveCount("--add-nodes", counts[i], err);
    if (!n) return std::nullopt;
    rapidjson::Value e(rapidjson::kObjectType);
    e.AddMember("op", "add-nodes", a);
    e.AddMember("like", rapidjson::Value(likes[i].c_str(), a), a);
    e.AddMember("count", *n, a);
    d.PushBack(e, a);
  }
  if (!TemplateEdits(flags, d, err)) return std::nullopt;
  for (const char* op : {"delete-claim", "delete-pod", "drain-node", "delete-node"}) {
    for (const std::string& name : flags.All(std::string("--") + op)) {
      rapidjson::Value e(rapidjson::kObjectType);
      e.AddMember("op", rapidjson::StringRef(op), a);
      e.AddMember("name", rapidjson::Value(name.c_str(), a), a);
      d.PushBack(e, a);
    }
  }
  if (!RuleAndClassEdits(flags, d, err)) return std::nullopt;
  if (d.Empty()) return std::string();
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  d.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

void PrintReplayTable(const rapidjson::Document& r, std::ostream& out) {
  if (r.HasMember("edits")) {
    for (const auto& e : r["edits"].GetArray()) out << "edit: " << e.GetString() << "\n";
    out << "\n";
  }
  const rapidjson::Value& placed = JsonArray(r, "placed");
  const rapidjson::Value& pending = JsonArray(r, "pending");
  out << "replay (" << JsonStr(r, "policy") << "): " << placed.Size() << " of " << JsonArray(r, "order").Size()
      << " pending pods placed, " << pending.Size() << " stay pending\n";
  if (!placed.Empty()) {
    Table table({"POD", "NODE", "FITS ON", "DEVICES"});
    for (const auto& p : placed.GetArray()) {
      std::vector<std::string> claims;
      for (const auto& c : JsonArray(p, "claims").GetArray()) {
        claims.push_back(JsonStr(c, "claim") + (JsonBool(c, "existing") ? " (allocated)" : "") + ": " +
                         Devices(JsonArray(c, "results")));
      }
      const size_t fits_on = JsonArray(p, "feasible").Size();
      table.AddRow({JsonStr(p, "pod"), JsonStr(p, "node"), std::to_string(fits_on) + (fits_on == 1 ? " node" : " nodes"),
                    claims.empty() ? "no claims" : Join(claims, "; ")});
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
  specs.push_back({{"--no-explain"}, false,
                   "a node whose devices do not fit gets the allocator's reason, not the explain funnel's "
                   "sentence (faster on big inputs)"});
  specs.push_back({{"--add-nodes"}, true, "add N copies of the node given by the matching --like (repeatable)"});
  specs.push_back({{"--like"}, true, "the node --add-nodes copies, with its node-local ResourceSlices"});
  specs.push_back({{"--add-template-nodes"}, true,
                   "add N nodes of the template in the matching --template (repeatable)"});
  specs.push_back({{"--template"}, true,
                   "a file with one Node (a node group's template) and the ResourceSlices and "
                   "SimulatedDevicePools such a node publishes"});
  specs.push_back({{"--delete-claim"}, true, "delete ResourceClaim NS/NAME first, freeing its devices (repeatable)"});
  specs.push_back({{"--delete-pod"}, true, "delete Pod NS/NAME first, releasing its claims (repeatable)"});
  specs.push_back({{"--drain-node"}, true, "drain NODE first: cordon it, its pods pending again (repeatable)"});
  specs.push_back({{"--delete-node"}, true, "delete NODE and its ResourceSlices first, its pods pending again (repeatable)"});
  specs.push_back({{"--taint-devices"}, true, "add the DeviceTaintRules of FILE first (repeatable)"});
  specs.push_back({{"--set-class-selector"}, true,
                   "CLASS=CEL: DeviceClass CLASS's selectors replaced by these (repeatable, per class)"});
  specs.push_back({{"--after"}, true,
                   "write the cluster after the replay (placed pods bound, their claims allocated) to FILE as "
                   "YAML, input for any other command"});
  int code = kExitOk;
  std::optional<std::string> format;
  auto flags = ParseWhatifFlags(args, std::move(specs), kReplayUsage, io, code, format);
  if (!flags) return code;
  const std::string policy = flags->GetOr("--policy", "first-fit");
  if (policy != "first-fit" && policy != "most-allocated" && policy != "least-allocated") {
    io.err << "error: --policy: unknown policy \"" << policy << "\" (first-fit, most-allocated, least-allocated)\n";
    return kExitBadInput;
  }
  const auto edits = EditsJson(*flags, io.err);
  if (!edits) return kExitBadInput;
  draforge::AllocateOptions options;
  auto loaded = LoadClusterForAllocation(*flags, io, options);
  if (!loaded) return kExitBadInput;
  draforge::Snapshot snapshot = loaded->snapshot;
  std::optional<rapidjson::Document> changes;
  if (!edits->empty()) {
    auto edited = draforge::WhatifEdit(loaded->snapshot, *edits);
    if (!edited.ok()) {
      io.err << "error: " << edited.error().message << "\n";
      return edited.error().code == DRAFORGE_EINVALID || edited.error().code == DRAFORGE_ENOTFOUND ? kExitBadInput
                                                                                                  : kExitError;
    }
    snapshot = edited->snapshot;
    changes.emplace();
    changes->Parse(edited->changes_json.c_str());
  }
  auto replayed = draforge::ReplayAfter(snapshot, policy, options, !flags->Has("--no-explain"));
  if (!replayed.ok()) {
    io.err << "error: " << replayed.error().message << "\n";
    return replayed.error().code == DRAFORGE_EINVALID ? kExitBadInput : kExitError;
  }
  if (auto path = flags->Get("--after"); path && !WriteAfter(replayed->after, *path, io.err)) return kExitError;
  const std::optional<std::string> result(std::move(replayed->json));
  auto doc = ParseResultObject(*result, "replay result", io.err);
  if (!doc) return kExitError;
  if (changes && changes->IsArray()) {
    // "edits" first, as documented.
    rapidjson::Document ordered(rapidjson::kObjectType);
    auto& a = ordered.GetAllocator();
    ordered.AddMember("edits", rapidjson::Value(*changes, a), a);
    for (auto& m : doc->GetObject()) ordered.AddMember(rapidjson::Value(m.name, a), rapidjson::Value(m.value, a), a);
    doc->Swap(ordered);
  }
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
    (args.empty() ? io.err : io.out) << "usage:\n  " << kReplayUsage << "\n  " << kWhatifGangUsage << "\n  "
                                     << WhatifFragmentationUsage()
                                     << "\n  draforge whatif preempt --pod NS/NAME ... (draforge whatif preempt --help)\n";
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "replay") return RunReplay(rest, io);
  if (args[0] == "gang") return RunWhatifGang(rest, io);
  if (args[0] == "fragmentation") return RunWhatifFragmentation(rest, io);
  if (args[0] == "preempt") return RunWhatifPreempt(rest, io);
  io.err << "error: unknown whatif command \"" << args[0] << "\" (replay, preempt, gang, fragmentation)\nusage:\n  "
         << kReplayUsage << "\n  " << kWhatifGangUsage << "\n  " << WhatifFragmentationUsage() << "\n";
  return kExitBadInput;
}

}  // namespace draforge::cli
