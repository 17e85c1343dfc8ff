// draforge whatif fragmentation: how fragmented the devices are, and which moves make room for a
// shape (draforge_fragmentation_json).
//
//   draforge whatif fragmentation (-f FILE... | --kubeconfig FILE [--context NAME])
//                                 [--shape FILE | --shape-pod NS/NAME] [--max-moves N]
//                                 [--max-candidates N] [--max-trials N]
//                                 [--feature-gates A=true,B=false] [--kubernetes-version 1.3X]
//                                 [-o table|json|yaml]
//     Per node (and per pool for pools that are not node-local) and across the cluster: devices
//     grouped into kinds by driver and size (counters consumed, else capacity), how many of each are
//     allocated, tainted and free, how many one claim could get now ("fit"), how many the free
//     counters would hold if packed ("ideal") and score = 1 - fit/ideal; across the cluster the
//     largest fit on one node and score = 1 - largest/sum. The shared counters of each pool.
//     With --shape (a file with a Pod and its claims/templates, a ResourceClaim or a
//     ResourceClaimTemplate) or --shape-pod (a pending pod of the input): the fewest moves (a pod
//     deleted and created again pinned to a node, its claims allocated again there) after which
//     the shape is placed, each replayed on the cluster after the moves before it; the search is
//     bounded by --max-moves (3), --max-candidates (16 consumer groups per node) and --max-trials
//     (1000 sets of moves). Nothing is written anywhere.
//     Exit status: 0 (with a shape: it fits now or after the moves), 1 no moves found within the
//     bounds, 2 bad input.
//
// -o json (yaml: the same object): draforge_fragmentation_json's object (include/draforge/place.h).
#include <cstdint>
#include <exception>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "json_fields.h"
#include "output.h"
#include "rapidjson/document.h"
#include "table.h"

namespace draforge::cli {
namespace {

constexpr int kExitNoRoom = 1;
constexpr char kFragmentationUsage[] =
    "draforge whatif fragmentation (-f FILE... | --kubeconfig FILE [--context NAME]) "
    "[--shape FILE | --shape-pod NS/NAME] [--max-moves N] [--max-candidates N] [--max-trials N] "
    "[--feature-gates A=true,B=false] [--kubernetes-version 1.3X] [-o table|json|yaml]";

std::string Score(const rapidjson::Value& v) {
  const rapidjson::Value* s = JsonMember(v, "score");
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << (s != nullptr && s->IsNumber() ? s->GetDouble() : 0.0);
  return out.str();
}

std::string Size(const rapidjson::Value& k) {
  const std::string s = JsonStr(k, "size");
  return s.empty() ? "-" : s;
}

void KindRows(const std::string& where, const rapidjson::Value& kinds, Table& table) {
  for (const auto& k : kinds.GetArray()) {
    table.AddRow({where, JsonStr(k, "driver"), JsonStr(k, "kind"), Size(k), std::to_string(JsonInt(k, "devices")),
                  std::to_string(JsonInt(k, "allocated")), std::to_string(JsonInt(k, "tainted")),
                  std::to_string(JsonInt(k, "free")), std::to_string(JsonInt(k, "fit")),
                  std::to_string(JsonInt(k, "ideal")), Score(k)});
  }
}

std::string Moved(const rapidjson::Value& m, const char* node, const char* devices) {
  const auto list = JsonStrings(m, devices);
  return JsonStr(m, node) + " [" + (list.empty() ? std::string("no devices") : Join(list, ", ")) + "]";
}

void PrintAdvice(const rapidjson::Value& a, std::ostream& out) {
  out << "\nadvice for " << JsonStr(a, "shape") << ":\n";
  auto shape_claims = [&]() {
    std::vector<std::string> claims;
    for (const auto& c : JsonArray(a, "shapeClaims").GetArray()) {
      std::vector<std::string> devices;
      for (const auto& r : JsonArray(c, "results").GetArray()) {
        devices.push_back(JsonStr(r, "driver") + "/" + JsonStr(r, "pool") + "/" + JsonStr(r, "device"));
      }
      claims.push_back(JsonStr(c, "claim") + " [" + Join(devices, ", ") + "]");
    }
    return Join(claims, "; ");
  };
  if (JsonBool(a, "fitsNow")) {
    out << "  fits now on " << JsonStr(a, "shapeNode") << ": " << shape_claims() << "; no move needed\n";
    return;
  }
  out << "  fits on no node now:\n";
  for (const auto& b : JsonArray(a, "blocked").GetArray()) {
    out << "    " << JsonStr(b, "node") << ": " << JsonStr(b, "filter") << ": " << JsonStr(b, "reason") << "\n";
  }
  const rapidjson::Value& search = JsonObject(a, "search");
  const std::string bounds = "at most " + std::to_string(JsonInt(search, "maxMoves")) + " moves, " +
                             std::to_string(JsonInt(search, "maxCandidates")) + " groups per node, " +
                             std::to_string(JsonInt(search, "maxTrials")) + " sets";
  if (!JsonBool(a, "found")) {
    out << "  no advice: " << JsonStr(a, "why") << " (" << bounds << ")\n";
    return;
  }
  const rapidjson::Value& moves = JsonArray(a, "moves");
  out << "  " << moves.Size() << (moves.Size() == 1 ? " move frees" : " moves free") << " room on node "
      << JsonStr(a, "node") << " (" << JsonInt(search, "trials")
      << (JsonInt(search, "trials") == 1 ? " set" : " sets") << " of moves tried; " << bounds << "):\n";
  int i = 0;
  for (const auto& m : moves.GetArray()) {
    out << "    " << ++i << ". reschedule " << Join(JsonStrings(m, "pods"), ", ") << " (claims "
        << Join(JsonStrings(m, "claims"), ", ") << ") pinned to node " << JsonStr(m, "toNode") << ": "
        << Moved(m, "fromNode", "fromDevices") << " -> " << Moved(m, "toNode", "toDevices") << "\n";
  }
  out << "  then the shape goes to " << JsonStr(a, "shapeNode") << ": " << shape_claims() << "\n";
}

void PrintTable(const rapidjson::Document& r, std::ostream& out) {
  const rapidjson::Value& nodes = JsonArray(r, "nodes");
  const rapidjson::Value& pools = JsonArray(r, "pools");
  out << "fragmentation: " << pools.Size() << (pools.Size() == 1 ? " pool, " : " pools, ") << nodes.Size()
      << (nodes.Size() == 1 ? " node\n" : " nodes\n");
  const std::vector<std::string> kind_columns = {"DRIVER", "KIND", "SIZE", "DEVICES", "ALLOCATED", "TAINTED",
                                                 "FREE", "FIT", "IDEAL", "SCORE"};
  if (!nodes.Empty()) {
    std::vector<std::string> cols = {"NODE"};
    cols.insert(cols.end(), kind_columns.begin(), kind_columns.end());
    Table table(cols);
    for (const auto& n : nodes.GetArray()) KindRows(JsonStr(n, "node"), JsonArray(n, "kinds"), table);
    out << "\n";
    table.Print(out);
  }
  bool shared_pools = false;
  for (const auto& p : pools.GetArray()) shared_pools = shared_pools || JsonStr(p, "node").empty();
  if (shared_pools) {
    std::vector<std::string> cols = {"POOL"};
    cols.insert(cols.end(), kind_columns.begin(), kind_columns.end());
    Table table(cols);
    for (const auto& p : pools.GetArray()) {
      if (JsonStr(p, "node").empty()) KindRows(JsonStr(p, "pool"), JsonArray(p, "kinds"), table);
    }
    out << "\npools that are not node-local:\n";
    table.Print(out);
  }
  Table counters({"POOL", "COUNTER SET", "COUNTER", "CAPACITY", "CONSUMED", "FREE"});
  bool any_counter = false;
  for (const auto& p : pools.GetArray()) {
    for (const auto& c : JsonArray(p, "counters").GetArray()) {
      any_counter = true;
      counters.AddRow({JsonStr(p, "driver") + "/" + JsonStr(p, "pool"), JsonStr(c, "counterSet"),
                       JsonStr(c, "counter"), JsonStr(c, "capacity"), JsonStr(c, "consumed"), JsonStr(c, "free")});
    }
  }
  if (any_counter) {
    out << "\nshared counters:\n";
    counters.Print(out);
  }
  Table capacity({"NODE", "DRIVER", "CAPACITY", "DEVICES", "TOTAL", "CONSUMED", "FREE", "LARGEST", "SCORE"});
  bool any_capacity = false;
  for (const auto& n : nodes.GetArray()) {
    for (const auto& c : JsonArray(n, "capacity").GetArray()) {
      any_capacity = true;
      capacity.AddRow({JsonStr(n, "node"), JsonStr(c, "driver"), JsonStr(c, "name"),
                       std::to_string(JsonInt(c, "devices")), JsonStr(c, "capacity"), JsonStr(c, "consumed"),
                       JsonStr(c, "free"), JsonStr(c, "largest"), Score(c)});
    }
  }
  if (any_capacity) {
    out << "\nconsumable capacity (devices that allow multiple allocations):\n";
    capacity.Print(out);
  }
  const rapidjson::Value& kinds = JsonArray(r, "kinds");
  if (!kinds.Empty()) {
    Table table({"DRIVER", "KIND", "SIZE", "FREE", "FIT", "LARGEST FIT", "ON NODE", "SCORE"});
    for (const auto& k : kinds.GetArray()) {
      const std::string node = JsonStr(k, "largestNode");
      table.AddRow({JsonStr(k, "driver"), JsonStr(k, "kind"), Size(k), std::to_string(JsonInt(k, "free")),
                    std::to_string(JsonInt(k, "fit")), std::to_string(JsonInt(k, "largestFit")),
                    node.empty() ? "-" : node, Score(k)});
    }
    out << "\nacross the cluster (largest fit: the most of a kind one pod can get on one node):\n";
    table.Print(out);
  }
  for (const auto& s : JsonArray(r, "skipped").GetArray()) out << "skipped pool " << s.GetString() << "\n";
  if (const rapidjson::Value* a = JsonMember(r, "advice"); a != nullptr && a->IsObject()) PrintAdvice(*a, out);
}

bool PositiveInt(const Flags& flags, const char* name, int64_t& value, std::ostream& err) {
  if (!flags.Has(name)) return true;
  const std::string text = flags.GetOr(name, "");
  size_t used = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < 1 || value > 1000000000) {
    err << "error: " << name << ": want a positive integer, got \"" << text << "\"\n";
    return false;
  }
  return true;
}

}  // namespace

const char* WhatifFragmentationUsage() { return kFragmentationUsage; }

int RunWhatifFragmentation(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--shape"}, true,
                   "a file with the shape to make room for: a Pod (with its claims or templates), a "
                   "ResourceClaim or a ResourceClaimTemplate"});
  specs.push_back({{"--shape-pod"}, true, "make room for pod NS/NAME of the input (a pending one)"});
  specs.push_back({{"--max-moves"}, true, "most moves tried (default 3)"});
  specs.push_back({{"--max-candidates"}, true, "consumer groups considered per node (default 16)"});
  specs.push_back({{"--max-trials"}, true, "sets of moves tried before giving up (default 1000)"});
  int code = kExitOk;
  std::optional<std::string> format;
  auto flags = ParseWhatifFlags(args, std::move(specs), kFragmentationUsage, io, code, format);
  if (!flags) return code;
  draforge::DefragRequest request;
  if (flags->Has("--shape") && flags->Has("--shape-pod")) {
    io.err << "error: --shape and --shape-pod: give one\n";
    return kExitBadInput;
  }
  if (flags->Has("--shape")) {
    const std::string path = flags->GetOr("--shape", "");
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      io.err << "error: --shape: cannot read \"" << path << "\"\n";
      return kExitBadInput;
    }
    std::ostringstream text;
    text << in.rdbuf();
    request.shape = text.str();
  }
  request.shape_pod = flags->GetOr("--shape-pod", "");
  int64_t moves = request.max_moves, candidates = request.max_candidates, trials = request.max_trials;
  if (!PositiveInt(*flags, "--max-moves", moves, io.err) ||
      !PositiveInt(*flags, "--max-candidates", candidates, io.err) ||
      !PositiveInt(*flags, "--max-trials", trials, io.err)) {
    return kExitBadInput;
  }
  request.max_moves = static_cast<int>(moves);
  request.max_candidates = static_cast<int>(candidates);
  request.max_trials = trials;
  draforge::AllocateOptions options;
  auto loaded = LoadClusterForAllocation(*flags, io, options);
  if (!loaded) return kExitBadInput;
  auto result = draforge::FragmentationJson(loaded->snapshot, request, options);
  if (!result.ok()) {
    io.err << "error: " << result.error().message << "\n";
    return result.error().code == DRAFORGE_EINVALID || result.error().code == DRAFORGE_ENOTFOUND ? kExitBadInput
                                                                                                : kExitError;
  }
  auto doc = ParseResultObject(*result, "fragmentation result", io.err);
  if (!doc) return kExitError;
  int exit = kExitOk;
  if (const rapidjson::Value* a = JsonMember(*doc, "advice"); a != nullptr && a->IsObject()) {
    if (!JsonBool(*a, "fitsNow") && !JsonBool(*a, "found")) exit = kExitNoRoom;
  }
  if (*format == "table") {
    PrintTable(*doc, io.out);
    return exit;
  }
  if (!PrintDocument(std::move(*doc), *format, io.out, io.err)) return kExitBadInput;
  return exit;
}

}  // namespace draforge::cli
