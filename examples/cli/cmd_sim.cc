// draforge sim | fault | scenario: simulated device pools (draforge/sim.h).
//
//   sim expand      -f FILE... [-o yaml|json] [--tick N]      the slices the pools publish (offline)
//   sim profiles                                              the driver profiles
//   fault inject    -f FILE --name N --type T [...]           add a fault to a pool (prints the pool)
//   fault list      -f FILE...                                the faults of every pool
//   fault clear     -f FILE (--name N | --all) [...]          remove faults (prints the pool)
//   scenario apply  -f FILE... --kubeconfig PATH              create the scenario in a cluster
//   scenario reset  -f FILE... --kubeconfig PATH              delete what apply created
//
// Nothing is written unless asked: fault inject/clear print the edited pool, and rewrite the file
// only with --in-place.
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "json_fields.h"
#include "draforge/draforge.hpp"
#include "output.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "table.h"

namespace draforge::cli {

namespace {

constexpr char kSimUsage[] = R"(draforge sim expand -f FILE... [-o yaml|json] [--tick N]
       draforge sim profiles)";
constexpr char kFaultUsage[] = R"(draforge fault inject -f FILE [--pool NAME] --name NAME --type TYPE [--node NODE]... [--device DEV]...
                             [--key K --effect E [--value V]] [--xid N] [--slice N] [--period N] [--missing-slices N]
                             [-o yaml|json] [--in-place]
       draforge fault list (-f FILE... | --kubeconfig PATH)
       draforge fault clear -f FILE [--pool NAME] (--name NAME | --all) [-o yaml|json] [--in-place]
       draforge fault inject|clear --kubeconfig PATH --pool NAME ...   (edits the pool in the cluster)
Fault types: taint, xid, gpu-lost, health-unknown, remove-device, remove-slice, flap, incomplete-pool,
stale-generation, binding-failure)";

bool ParseInt(const Flags& flags, const std::string& name, int64_t& out, Io io) {
  auto v = flags.Get(name);
  if (!v) return true;
  const char* begin = v->c_str();
  while (*begin == ' ' || *begin == '\t') ++begin;
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(begin, &end, 10);
  while (end != nullptr && (*end == ' ' || *end == '\t')) ++end;
  if (*begin == '\0' || errno != 0 || end == nullptr || *end != '\0') {
    io.err << "error: " << name << ": not an integer: \"" << *v << "\"\n";
    return false;
  }
  out = n;
  return true;
}

std::string JsonText(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

rapidjson::Document ParseJson(std::string_view text) {
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  return d;
}

// Whether object `i` is a SimulatedDevicePool of any version of the sim.draforge.io group.
bool IsPool(const Objects& objects, size_t i) {
  return objects.decoded(i) && objects.kind(i) == DRAFORGE_SIM_KIND &&
         objects.api_version(i).rfind(DRAFORGE_SIM_GROUP "/", 0) == 0;
}

// The pools of the input as a JSON array, each checked; prints and returns false on the first bad one.
bool PoolsArray(const Inputs& inputs, Io io, std::string& array, size_t& count) {
  array = "[";
  count = 0;
  for (size_t i = 0; i < inputs.objects.size(); ++i) {
    if (!IsPool(inputs.objects, i)) continue;
    auto pool = inputs.objects.Encode(i);
    if (!pool.ok()) {
      io.err << "error: " << inputs.Where(i) << pool.error().message << "\n";
      return false;
    }
    if (auto checked = SimCheckPool(*pool); !checked.ok()) {
      io.err << "error: " << inputs.Where(i) << checked.error().message << "\n";
      return false;
    }
    array += (count++ == 0 ? "" : ",") + *pool;
  }
  array += "]";
  return true;
}

int RunExpand(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"-o", "--output"}, true, "yaml (default: one document per slice) or json (a List)"});
  specs.push_back({{"--tick"}, true, "simulation clock for flap faults (default 0)"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, "draforge sim expand -f FILE... [-o yaml|json] [--tick N]", io, code);
  if (!flags) return code;
  const auto format_or = OutputFormat(*flags, "yaml", {"yaml", "json"}, io);
  if (!format_or) return kExitBadInput;
  const std::string& format = *format_or;
  int64_t tick = 0;
  if (!ParseInt(*flags, "--tick", tick, io)) return kExitBadInput;
  if (!flags->positional().empty()) {
    io.err << "error: unexpected argument \"" << flags->positional().front() << "\"\n";
    return kExitBadInput;
  }
  auto inputs = LoadObjects(*flags, io, /*strict=*/false);
  if (!inputs) return kExitBadInput;
  std::string pools;
  size_t count = 0;
  if (!PoolsArray(*inputs, io, pools, count)) return kExitBadInput;
  if (count == 0) {
    io.err << "error: no SimulatedDevicePool (" << DRAFORGE_SIM_API_VERSION << ") in the input\n";
    return kExitBadInput;
  }
  auto expansion = SimExpand(pools, tick);
  if (!expansion.ok()) {
    io.err << "error: " << expansion.error().message << "\n";
    return kExitBadInput;
  }
  rapidjson::Document expanded = ParseJson(*expansion);
  if (format == "yaml") {
    // kubectl's `get -o yaml` of several objects is a List; a stream of documents is what
    // `kubectl apply -f` and diff tools read best, and what the golden files hold.
    bool first = true;
    for (const rapidjson::Value& slice : expanded["slices"].GetArray()) {
      auto yaml = ReformatJson(JsonText(slice), Format::kYaml);
      if (!yaml.ok()) {
        io.err << "error: " << yaml.error().message << "\n";
        return kExitError;
      }
      io.out << (first ? "" : "---\n") << *yaml;
      first = false;
    }
    return kExitOk;
  }
  std::vector<rapidjson::Document> docs;
  for (const rapidjson::Value& slice : expanded["slices"].GetArray()) {
    rapidjson::Document d;
    d.CopyFrom(slice, d.GetAllocator());
    docs.push_back(std::move(d));
  }
  if (auto printed = PrintDocuments(docs, format, io.out, /*always_list=*/true); !printed.ok()) {
    io.err << "error: " << printed.error().message << "\n";
    return kExitError;
  }
  return kExitOk;
}

int RunProfiles(const Args& args, Io io) {
  int code = kExitOk;
  auto flags = ParseOrUsage(args, {}, "draforge sim profiles", io, code);
  if (!flags) return code;
  auto profiles = SimProfilesJson();
  if (!profiles.ok()) {
    io.err << "error: " << profiles.error().message << "\n";
    return kExitError;
  }
  Table t({"PROFILE", "DRIVER", "DEVICES-PER-NODE", "DEFAULT", "OPTIONS", "DESCRIPTION"});
  const rapidjson::Document list = ParseJson(*profiles);
  for (const rapidjson::Value& p : list.GetArray()) {
    std::string options;
    for (const rapidjson::Value& o : p["options"].GetArray()) options += (options.empty() ? "" : ",") + std::string(o.GetString());
    const std::string driver = p["driver"].GetString();
    t.AddRow({p["name"].GetString(), driver.empty() ? "(spec.driver)" : driver, p["unit"].GetString(),
              std::to_string(p["defaultDevicesPerNode"].GetInt64()), options.empty() ? "-" : options,
              p["description"].GetString()});
  }
  t.Print(io.out);
  return kExitOk;
}

std::string NameOf(const std::string& object_json) {
  const rapidjson::Document d = ParseJson(object_json);
  if (!d.IsObject() || !d.HasMember("metadata") || !d["metadata"].IsObject()) return "";
  const rapidjson::Value& m = d["metadata"];
  return m.HasMember("name") && m["name"].IsString() ? m["name"].GetString() : "";
}

// The one pool the fault commands edit: --pool NAME, or the only pool of the input. Returns its
// index in `inputs`, or -1 after printing why there is none.
long SelectPool(const Flags& flags, const Inputs& inputs, Io io) {
  long found = -1;
  std::string names;
  const auto want = flags.Get("--pool");
  for (size_t i = 0; i < inputs.objects.size(); ++i) {
    if (!IsPool(inputs.objects, i)) continue;
    auto pool = inputs.objects.Encode(i);
    const std::string name = pool.ok() ? NameOf(*pool) : "";
    names += (names.empty() ? "" : ", ") + name;
    if (want && *want != name) continue;
    if (found >= 0 && !want) {
      io.err << "error: the input has several SimulatedDevicePools (" << names
             << "...): choose one with --pool NAME\n";
      return -1;
    }
    found = static_cast<long>(i);
  }
  if (found < 0) {
    io.err << "error: "
           << (want ? "no SimulatedDevicePool named \"" + *want + "\" in the input"
                    : std::string("no SimulatedDevicePool in the input"))
           << (names.empty() ? "" : " (it has " + names + ")") << "\n";
  }
  return found;
}

// The permission bits of an existing file, so that --in-place keeps them (0644 when unknown).
unsigned int ModeOf(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<unsigned int>(st.st_mode & 07777) : 0644;
}

// Prints the edited pool, or with --in-place rewrites its file (every object of it, the pool edited).
int EmitPool(const Flags& flags, const Inputs& inputs, size_t target, const std::string& edited, Io io) {
  const std::string format = flags.GetOr("-o", "yaml");
  const std::string source(inputs.objects.source(target));
  if (!flags.Has("--in-place")) {
    auto text = ReformatJson(edited, format == "json" ? Format::kJson : Format::kYaml);
    if (!text.ok()) {
      io.err << "error: " << text.error().message << "\n";
      return kExitError;
    }
    io.out << *text << (format == "json" ? "\n" : "");
    return kExitOk;
  }
  if (source == "<stdin>") {
    io.err << "error: --in-place needs a file, not standard input\n";
    return kExitBadInput;
  }
  std::vector<std::string> docs;
  for (size_t i = 0; i < inputs.objects.size(); ++i) {
    if (inputs.objects.source(i) != source) continue;
    if (!inputs.objects.decoded(i)) {
      io.err << "error: " << inputs.Where(i) << "cannot rewrite a file with an object that does not decode\n";
      return kExitBadInput;
    }
    if (i == target) {
      docs.push_back(edited);
      continue;
    }
    auto d = inputs.objects.Encode(i);
    if (!d.ok()) {
      io.err << "error: " << inputs.Where(i) << d.error().message << "\n";
      return kExitError;
    }
    docs.push_back(*std::move(d));
  }
  std::string text;
  const bool one_json = format == "json" && docs.size() == 1;
  for (size_t i = 0; i < docs.size(); ++i) {
    auto t = ReformatJson(docs[i], one_json ? Format::kJson : Format::kYaml);
    if (!t.ok()) {
      io.err << "error: " << t.error().message << "\n";
      return kExitError;
    }
    text += (i == 0 ? "" : "---\n") + *t + (one_json ? "\n" : "");
  }
  if (auto written = WriteFileAtomic(source, text, ModeOf(source)); !written.ok()) {
    io.err << "error: " << written.error().message << "\n";
    return kExitError;
  }
  io.err << "wrote " << source << "\n";
  return kExitOk;
}

// InputFlags() with the help of --kubeconfig saying what this command does with the cluster.
std::vector<FlagSpec> InputFlagsWithCluster(const std::string& kubeconfig_help) {
  auto specs = InputFlags();
  for (FlagSpec& f : specs) {
    if (!f.names.empty() && f.names.front() == "--kubeconfig") f.help = kubeconfig_help;
  }
  return specs;
}

std::vector<FlagSpec> FaultEditFlags() {
  auto specs = InputFlagsWithCluster("edit the pool in this kubeconfig's cluster (with --pool NAME, without -f)");
  specs.push_back({{"--pool"}, true, "the SimulatedDevicePool to edit (default: the only one)"});
  specs.push_back({{"-o", "--output"}, true, "yaml (default) or json"});
  specs.push_back({{"--in-place"}, false, "rewrite the input file instead of printing the pool"});
  return specs;
}

// An edit of a pool's JSON: the edited pool, or the error (whose code decides the exit status).
using PoolEdit = std::function<Result<std::string>(const std::string& pool_json)>;

// A SimulatedDevicePool's API version and resource, for the kube.h calls.
constexpr char kSimApiVersion[] = DRAFORGE_SIM_API_VERSION;
constexpr char kSimResource[] = DRAFORGE_SIM_RESOURCE;

// Cluster mode of fault inject/clear: read the pool, edit it, write it back with the resourceVersion
// read (a concurrent change is retried from a fresh read, never overwritten).
int EditPoolInCluster(const Flags& flags, Io io, const PoolEdit& edit) {
  const std::string name = flags.GetOr("--pool", "");
  if (name.empty()) {
    io.err << "error: --kubeconfig edits a pool in the cluster: give --pool NAME\n";
    return kExitBadInput;
  }
  std::optional<KubeClient> client = ClusterClient(flags, io);
  if (!client) return kExitError;
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto got = client->Get(kSimApiVersion, kSimResource, "", name);
    if (!got.ok()) {
      io.err << "error: simulateddevicepool/" << name << ": " << got.error().message << "\n";
      return IsKubeNotFound(got.error()) ? kExitBadInput : kExitError;
    }
    rapidjson::Document doc = ParseJson(*got);
    doc.RemoveMember("status");
    auto edited = edit(JsonText(doc));
    if (!edited.ok()) {
      io.err << "error: " << edited.error().message << "\n";
      return kExitBadInput;
    }
    auto updated = client->Update(kSimApiVersion, kSimResource, "", *edited);
    if (updated.ok()) {
      io.out << "simulateddevicepool/" << name << " updated\n";
      return kExitOk;
    }
    if (!IsKubeConflict(updated.error())) {
      io.err << "error: simulateddevicepool/" << name << ": " << updated.error().message << "\n";
      return kExitError;
    }
  }
  io.err << "error: simulateddevicepool/" << name << " kept changing; try again\n";
  return kExitError;
}

bool ClusterMode(const Flags& flags) {
  return flags.Has("--kubeconfig") || flags.Has("--context") || (flags.All("-f").empty() && flags.Has("--pool"));
}

// Offline mode of fault inject/clear: edit the selected pool of the -f input and print or rewrite it.
int EditPoolInFiles(const Flags& flags, Io io, const PoolEdit& edit) {
  auto inputs = LoadObjects(flags, io, /*strict=*/false, /*keep_failed=*/true);
  if (!inputs) return kExitBadInput;
  const long target = SelectPool(flags, *inputs, io);
  if (target < 0) return kExitBadInput;
  auto pool = inputs->objects.Encode(static_cast<size_t>(target));
  if (!pool.ok()) {
    io.err << "error: " << inputs->Where(target) << pool.error().message << "\n";
    return kExitBadInput;
  }
  auto edited = edit(*pool);
  if (!edited.ok()) {
    io.err << "error: " << inputs->Where(target) << edited.error().message << "\n";
    return kExitBadInput;
  }
  return EmitPool(flags, *inputs, static_cast<size_t>(target), *edited, io);
}

// A JSON array of strings.
void AddStrings(rapidjson::Value& o, const char* key, const std::vector<std::string>& v,
                rapidjson::Document::AllocatorType& a) {
  rapidjson::Value arr(rapidjson::kArrayType);
  for (const std::string& s : v) arr.PushBack(rapidjson::Value(s.c_str(), a), a);
  o.AddMember(rapidjson::StringRef(key), arr, a);
}

bool IsFaultType(const std::string& type) {
  auto types = SimFaultTypesJson();
  if (!types.ok()) return false;
  const rapidjson::Document names = ParseJson(*types);
  for (const rapidjson::Value& t : names.GetArray()) {
    if (type == t.GetString()) return true;
  }
  return false;
}

int RunFaultInject(const Args& args, Io io) {
  auto specs = FaultEditFlags();
  specs.push_back({{"--name"}, true, "the fault's name (a DNS label, unique in the pool)"});
  specs.push_back({{"--type"}, true, "taint, xid, gpu-lost, health-unknown, remove-device, remove-slice, flap, "
                                     "incomplete-pool, stale-generation, binding-failure"});
  specs.push_back({{"--node"}, true, "a node whose pool is affected; repeatable (default: every pool)"});
  specs.push_back({{"--device"}, true, "a device affected; repeatable (default: every device)"});
  specs.push_back({{"--key"}, true, "taint: the key"});
  specs.push_back({{"--value"}, true, "taint: the value"});
  specs.push_back({{"--effect"}, true, "taint: NoSchedule, NoExecute or None"});
  specs.push_back({{"--xid"}, true, "xid: the XID code"});
  specs.push_back({{"--slice"}, true, "remove-slice: the slice's index in its pool (default: the last)"});
  specs.push_back({{"--period"}, true, "flap: ticks per phase (default 1)"});
  specs.push_back({{"--missing-slices"}, true, "incomplete-pool: slices missing (default 1)"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, kFaultUsage, io, code);
  if (!flags) return code;
  if (!OutputFormat(*flags, "yaml", {"yaml", "json"}, io)) return kExitBadInput;
  const std::string name = flags->GetOr("--name", "");
  const std::string type = flags->GetOr("--type", "");
  if (name.empty() || type.empty()) {
    io.err << "error: --name and --type are required\n";
    return kExitBadInput;
  }
  if (!IsFaultType(type)) {
    io.err << "error: --type: unknown fault type \"" << type << "\"\n\nUsage: " << kFaultUsage << "\n";
    return kExitBadInput;
  }
  // The fault as a spec.faults[] item, in the field order the pool's encoder uses.
  rapidjson::Document fault(rapidjson::kObjectType);
  auto& a = fault.GetAllocator();
  fault.AddMember("name", rapidjson::Value(name.c_str(), a), a);
  fault.AddMember("type", rapidjson::Value(type.c_str(), a), a);
  if (!flags->All("--node").empty()) AddStrings(fault, "nodes", flags->All("--node"), a);
  if (!flags->All("--device").empty()) AddStrings(fault, "devices", flags->All("--device"), a);
  if (flags->Has("--key") || flags->Has("--effect") || flags->Has("--value")) {
    for (const char* f : {"--key", "--value", "--effect"}) {
      if (auto v = flags->Get(f)) fault.AddMember(rapidjson::StringRef(f + 2), rapidjson::Value(v->c_str(), a), a);
    }
  }
  int64_t xid = 0, slice = -1, period = 1, missing = 1;
  if (!ParseInt(*flags, "--xid", xid, io) || !ParseInt(*flags, "--slice", slice, io) ||
      !ParseInt(*flags, "--period", period, io) || !ParseInt(*flags, "--missing-slices", missing, io)) {
    return kExitBadInput;
  }
  // Each parameter only with the type that reads it, as the pool's encoder writes them.
  if (type == "xid") fault.AddMember("xid", xid, a);
  if (flags->Has("--slice")) fault.AddMember("slice", slice, a);
  if (type == "flap") fault.AddMember("period", period, a);
  if (type == "incomplete-pool") fault.AddMember("missingSlices", missing, a);
  const std::string fault_json = JsonText(fault);
  PoolEdit inject = [&](const std::string& pool) { return SimInjectFault(pool, fault_json); };
  return ClusterMode(*flags) ? EditPoolInCluster(*flags, io, inject) : EditPoolInFiles(*flags, io, inject);
}

int RunFaultClear(const Args& args, Io io) {
  auto specs = FaultEditFlags();
  specs.push_back({{"--name"}, true, "the fault to clear"});
  specs.push_back({{"--all"}, false, "clear every fault of the pool"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, kFaultUsage, io, code);
  if (!flags) return code;
  if (!OutputFormat(*flags, "yaml", {"yaml", "json"}, io)) return kExitBadInput;
  if (flags->Has("--name") == flags->Has("--all")) {
    io.err << "error: give exactly one of --name NAME and --all\n";
    return kExitBadInput;
  }
  const bool cluster = ClusterMode(*flags);
  PoolEdit clear = [&](const std::string& pool) -> Result<std::string> {
    if (!flags->Has("--all")) return SimClearFault(pool, flags->GetOr("--name", ""));
    auto cleared = SimClearAllFaults(pool);
    if (!cleared.ok()) return cleared.error();
    if (!cluster) io.err << "cleared " << cleared->cleared << " faults\n";
    return cleared->pool_json;
  };
  return cluster ? EditPoolInCluster(*flags, io, clear) : EditPoolInFiles(*flags, io, clear);
}

int RunFaultList(const Args& args, Io io) {
  int code = kExitOk;
  auto flags = ParseOrUsage(args, InputFlagsWithCluster("list the faults of the pools in this kubeconfig's cluster"),
                            "draforge fault list (-f FILE... | --kubeconfig PATH)", io, code);
  if (!flags) return code;
  std::vector<std::string> pools;  // each a whole SimulatedDevicePool as JSON
  if (flags->All("-f").empty()) {
    std::optional<KubeClient> client = ClusterClient(*flags, io);
    if (!client) return kExitError;
    auto listed = client->List(kSimApiVersion, kSimResource);
    if (!listed.ok()) {
      io.err << "error: list simulateddevicepools: " << listed.error().message << "\n";
      return kExitError;
    }
    const rapidjson::Document list = ParseJson(*listed);
    for (const auto& item : JsonArray(list, "items").GetArray()) {
      std::string pool = JsonText(item);
      if (auto checked = SimCheckPool(pool); !checked.ok()) {
        io.err << "warning: " << checked.error().message << "\n";
        continue;
      }
      pools.push_back(std::move(pool));
    }
  } else {
    auto inputs = LoadObjects(*flags, io, /*strict=*/false);
    if (!inputs) return kExitBadInput;
    std::string array;
    size_t count = 0;
    if (!PoolsArray(*inputs, io, array, count)) return kExitBadInput;
    const rapidjson::Document checked = ParseJson(array);
    for (const rapidjson::Value& p : checked.GetArray()) pools.push_back(JsonText(p));
  }
  Table t({"POOL", "FAULT", "TYPE", "EFFECT"});
  for (const std::string& pool : pools) {
    auto faults = SimFaultsJson(pool);
    if (!faults.ok()) {
      io.err << "error: " << faults.error().message << "\n";
      return kExitBadInput;
    }
    const std::string name = NameOf(pool);
    const rapidjson::Document list = ParseJson(*faults);
    for (const rapidjson::Value& f : list.GetArray()) {
      t.AddRow({name, f["name"].GetString(), f["type"].GetString(), f["description"].GetString()});
    }
  }
  if (t.empty()) {
    io.err << "No faults.\n";
    return kExitOk;
  }
  t.Print(io.out);
  return kExitOk;
}

}  // namespace

int RunSim(const Args& args, Io io) {
  const std::string verb = args.empty() ? "" : args.front();
  const Args rest(args.empty() ? args.begin() : args.begin() + 1, args.end());
  if (verb == "expand") return RunExpand(rest, io);
  if (verb == "profiles") return RunProfiles(rest, io);
  if (verb == "--help" || verb == "-h") {
    io.out << "Usage: " << kSimUsage << "\n";
    return kExitOk;
  }
  io.err << "error: " << (verb.empty() ? "missing subcommand" : "unknown subcommand \"" + verb + "\"")
         << "\n\nUsage: " << kSimUsage << "\n";
  return kExitBadInput;
}

int RunFault(const Args& args, Io io) {
  const std::string verb = args.empty() ? "" : args.front();
  const Args rest(args.empty() ? args.begin() : args.begin() + 1, args.end());
  if (verb == "inject") return RunFaultInject(rest, io);
  if (verb == "list") return RunFaultList(rest, io);
  if (verb == "clear") return RunFaultClear(rest, io);
  if (verb == "--help" || verb == "-h") {
    io.out << "Usage: " << kFaultUsage << "\n";
    return kExitOk;
  }
  io.err << "error: " << (verb.empty() ? "missing subcommand" : "unknown subcommand \"" + verb + "\"")
         << "\n\nUsage: " << kFaultUsage << "\n";
  return kExitBadInput;
}

// ---------------------------------------------------------------------------------------------
// scenario apply | reset: online, through lib/kube.

namespace {

constexpr char kScenarioUsage[] = R"(draforge scenario apply -f FILE... [--scenario NAME] [--mode slices|pools] [--kubeconfig PATH] [--context NAME]
       draforge scenario reset (-f FILE... | --scenario NAME) [--kubeconfig PATH] [--context NAME]
apply creates every object of the scenario, labelled sim.draforge.io/scenario=NAME (default: the
first file's or folder's name). --mode slices (default) publishes the SimulatedDevicePools'
ResourceSlices directly; --mode pools creates the SimulatedDevicePools for draforge-controller
(the CRD in deploy/crds must be installed). Objects that exist without the label stop apply before
anything is written. reset deletes exactly the labelled objects.)";

// The apiVersion of a planned write or a scenario kind ({"kind","group","version","resource",
// "namespaced"} of draforge/sim.h): "group/version", or "version" for the core group.
std::string ApiVersionOf(const rapidjson::Value& v) {
  const std::string group = JsonStr(v, "group");
  return group.empty() ? JsonStr(v, "version") : group + "/" + JsonStr(v, "version");
}

int ScenarioApply(const Flags& flags, const std::string& scenario, Io io) {
  const std::string mode = flags.GetOr("--mode", "slices");
  if (mode != "slices" && mode != "pools") {
    io.err << "error: --mode: \"" << mode << "\" is not slices or pools\n";
    return kExitBadInput;
  }
  // The files, read directly: apply takes -f and --kubeconfig together (LoadObjects reads one or the other).
  auto objects = ReadObjects(flags.All("-f"), /*strict=*/false, /*max_bytes=*/0);
  if (!objects.ok()) {
    io.err << "error: " << objects.error().message << "\n";
    return kExitBadInput;
  }
  const Inputs inputs{*std::move(objects), ""};
  std::string array = "[";
  for (size_t i = 0; i < inputs.objects.size(); ++i) {
    for (std::string_view w : inputs.objects.warnings(i)) io.err << "warning: " << inputs.Where(i) << w << "\n";
    if (!inputs.objects.decoded(i)) {
      io.err << "error: " << inputs.Where(i) << inputs.objects.error(i) << "\n";
      return kExitBadInput;
    }
    auto json = inputs.objects.Encode(i);
    if (!json.ok()) {
      io.err << "error: " << inputs.Where(i) << json.error().message << "\n";
      return kExitBadInput;
    }
    array += (i == 0 ? "" : ",") + *json;
  }
  array += "]";
  auto planned = SimPlanScenario(array, scenario, mode == "pools" ? ScenarioMode::kPools : ScenarioMode::kSlices);
  if (!planned.ok()) {
    io.err << "error: " << planned.error().message << "\n";
    return kExitBadInput;
  }
  rapidjson::Document parsed = ParseJson(*planned);
  for (const rapidjson::Value& note : parsed["notes"].GetArray()) io.err << "note: " << note.GetString() << "\n";
  rapidjson::Value& plan = parsed["writes"];
  std::optional<KubeClient> client = ClusterClient(flags, io);
  if (!client) return kExitError;
  if (mode == "pools") {
    // The scenario's own pools: a list that fails with 404 means the CRD is not installed.
    KubeRequestOptions mine;
    mine.label_selector = std::string(DRAFORGE_SIM_SCENARIO_LABEL) + "=" + scenario;
    if (auto listed = client->List(kSimApiVersion, kSimResource, "", mine); !listed.ok()) {
      io.err << "error: the cluster does not serve " << DRAFORGE_SIM_API_VERSION
             << " (install deploy/crds/sim.draforge.io_simulateddevicepools.yaml first): " << listed.error().message
             << "\n";
      return kExitError;
    }
  }
  // Nothing is written while any object exists that this scenario does not own.
  std::vector<bool> exists(plan.Size(), false);
  for (rapidjson::SizeType i = 0; i < plan.Size(); ++i) {
    const rapidjson::Value& w = plan[i];
    auto got = client->Get(ApiVersionOf(w), JsonStr(w, "resource"), JsonStr(w, "namespace"), JsonStr(w, "name"));
    if (!got.ok()) {
      if (IsKubeNotFound(got.error())) continue;
      io.err << "error: " << w["ref"].GetString() << ": " << got.error().message << "\n";
      return kExitError;
    }
    auto owned = SimScenarioOwns(*got, scenario);
    if (!owned.ok() || !*owned) {
      io.err << "error: " << w["ref"].GetString() << " already exists and is not part of scenario \"" << scenario
             << "\"; nothing was changed\n";
      return kExitError;
    }
    exists[i] = true;
  }
  int created = 0;
  int unchanged = 0;
  for (rapidjson::SizeType i = 0; i < plan.Size(); ++i) {
    const rapidjson::Value& w = plan[i];
    if (exists[i]) {
      io.out << w["ref"].GetString() << " unchanged (already applied)\n";
      ++unchanged;
      continue;
    }
    auto r = client->Create(ApiVersionOf(w), JsonStr(w, "resource"), JsonStr(w, "namespace"), JsonText(w["body"]));
    if (!r.ok()) {
      io.err << "error: " << w["ref"].GetString() << ": " << r.error().message << "\n"
             << "(" << created << " objects were created; `draforge scenario reset --scenario " << scenario
             << "` removes them)\n";
      return kExitError;
    }
    io.out << w["ref"].GetString() << " created\n";
    ++created;
  }
  io.err << "scenario " << scenario << ": " << created << " created, " << unchanged << " unchanged\n";
  return kExitOk;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

int ScenarioReset(const Flags& flags, const std::string& scenario, Io io) {
  auto kinds = SimScenarioKindsJson();
  if (!kinds.ok()) {
    io.err << "error: " << kinds.error().message << "\n";
    return kExitError;
  }
  std::optional<KubeClient> client = ClusterClient(flags, io);
  if (!client) return kExitError;
  KubeRequestOptions list;
  list.label_selector = std::string(DRAFORGE_SIM_SCENARIO_LABEL) + "=" + scenario;
  int deleted = 0;
  // What apply creates, in the reverse order.
  const rapidjson::Document created_kinds = ParseJson(*kinds);
  for (rapidjson::SizeType k = created_kinds.Size(); k-- > 0;) {
    const rapidjson::Value& r = created_kinds[k];
    const std::string kind = JsonStr(r, "kind"), resource = JsonStr(r, "resource");
    auto listed = client->List(ApiVersionOf(r), resource, "", list);
    if (!listed.ok()) {
      // Not served: e.g. DeviceTaintRule, or SimulatedDevicePool where the CRD is not installed.
      if (IsKubeNotFound(listed.error())) continue;
      io.err << "error: list " << resource << ": " << listed.error().message << "\n";
      return kExitError;
    }
    const rapidjson::Document items = ParseJson(*listed);
    for (const rapidjson::Value& item : JsonArray(items, "items").GetArray()) {
      const rapidjson::Value& meta = JsonObject(item, "metadata");
      const std::string name = JsonStr(meta, "name");
      const std::string ns = JsonStr(meta, "namespace");
      KubeRequestOptions options;
      // Simulated nodes have no kubelet to confirm a graceful pod deletion.
      if (kind == "Pod") options.grace_period_seconds = 0;
      options.propagation_policy = "Background";
      auto d = client->Delete(ApiVersionOf(r), resource, ns, name, options);
      if (!d.ok() && !IsKubeNotFound(d.error())) {
        io.err << "error: delete " << resource << " " << (ns.empty() ? "" : ns + "/") << name << ": "
               << d.error().message << "\n";
        return kExitError;
      }
      io.out << Lower(kind) << "/" << (ns.empty() ? "" : ns + "/") << name << " deleted\n";
      ++deleted;
    }
  }
  io.err << "scenario " << scenario << ": " << deleted << " deleted\n";
  return kExitOk;
}

}  // namespace

int RunScenario(const Args& args, Io io) {
  const std::string verb = args.empty() ? "" : args.front();
  const Args rest(args.empty() ? args.begin() : args.begin() + 1, args.end());
  if (verb != "apply" && verb != "reset") {
    if (verb == "--help" || verb == "-h") {
      io.out << "Usage: " << kScenarioUsage << "\n";
      return kExitOk;
    }
    io.err << "error: " << (verb.empty() ? "missing subcommand" : "unknown subcommand \"" + verb + "\"")
           << "\n\nUsage: " << kScenarioUsage << "\n";
    return kExitBadInput;
  }
  auto specs = InputFlagsWithCluster("the cluster to apply to / reset (default: $KUBECONFIG, ~/.kube/config, "
                                     "in-cluster)");
  specs.push_back({{"--scenario"}, true, "the scenario's name (the label value); default: the first -f's name"});
  if (verb == "apply") specs.push_back({{"--mode"}, true, "slices (default) or pools"});
  int code = kExitOk;
  auto flags = ParseOrUsage(rest, specs, kScenarioUsage, io, code);
  if (!flags) return code;
  std::string scenario = flags->GetOr("--scenario", "");
  if (scenario.empty() && !flags->All("-f").empty()) {
    scenario = SimScenarioNameFromPath(flags->All("-f").front()).value_or("");
  }
  if (scenario.empty()) {
    io.err << "error: give -f FILE or --scenario NAME\n";
    return kExitBadInput;
  }
  if (!SimValidScenarioName(scenario)) {
    io.err << "error: --scenario: \"" << scenario << "\" is not a valid label value (63 letters, digits, '-', '_', "
              "'.' at most, alphanumeric at both ends)\n";
    return kExitBadInput;
  }
  if (verb == "apply" && flags->All("-f").empty()) {
    io.err << "error: scenario apply needs -f FILE\n";
    return kExitBadInput;
  }
  return verb == "apply" ? ScenarioApply(*flags, scenario, io) : ScenarioReset(*flags, scenario, io);
}

}  // namespace draforge::cli
