// draforge sim | fault | scenario: simulated device pools (lib/sim).
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
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/codec.h"
#include "api/yaml.h"
#include "commands.h"
#include "common/status.h"
#include "kube/api_status.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/resource.h"
#include "output.h"
#include "sim/expand.h"
#include "sim/faults.h"
#include "sim/profiles.h"
#include "sim/scenario.h"
#include "sim/scenario_plan.h"
#include "sim/simulated_device_pool.h"
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
  if (!absl::SimpleAtoi(*v, &out)) {
    io.err << "error: " << name << ": not an integer: \"" << *v << "\"\n";
    return false;
  }
  return true;
}

// The pools of the input, decoded; prints and returns false on the first bad one.
bool DecodePools(const std::vector<InputObject>& inputs, Io io, std::vector<sim::SimulatedDevicePool>& pools) {
  for (const InputObject& in : inputs) {
    if (!in.object.ok() || !sim::IsSimulatedDevicePool(*in.object)) continue;
    auto pool = sim::DecodeSimulatedDevicePool(*in.object);
    if (!pool.ok()) {
      io.err << "error: " << in.Where() << pool.status().message() << "\n";
      return false;
    }
    pools.push_back(*std::move(pool));
  }
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
  sim::ExpandOptions options;
  if (!ParseInt(*flags, "--tick", options.tick, io)) return kExitBadInput;
  if (!flags->positional().empty()) {
    io.err << "error: unexpected argument \"" << flags->positional().front() << "\"\n";
    return kExitBadInput;
  }
  auto inputs = LoadInputs(*flags, io, /*strict=*/false);
  if (!inputs) return kExitBadInput;
  std::vector<sim::SimulatedDevicePool> pools;
  if (!DecodePools(*inputs, io, pools)) return kExitBadInput;
  if (pools.empty()) {
    io.err << "error: no SimulatedDevicePool (" << sim::kApiVersion << ") in the input\n";
    return kExitBadInput;
  }
  auto expansion = sim::ExpandAll(pools, options);
  if (!expansion.ok()) {
    io.err << "error: " << expansion.status().message() << "\n";
    return kExitBadInput;
  }
  std::vector<rapidjson::Document> docs;
  for (const api::ResourceSlice& s : expansion->slices) {
    api::Object o;
    o.api_version = "resource.k8s.io/v1";
    o.value = s;
    auto d = api::EncodeObject(o);
    if (!d.ok()) {
      io.err << "error: " << d.status().message() << "\n";
      return kExitError;
    }
    docs.push_back(*std::move(d));
  }
  if (format == "yaml") {
    // kubectl's `get -o yaml` of several objects is a List; a stream of documents is what
    // `kubectl apply -f` and diff tools read best, and what the golden files hold.
    std::vector<const rapidjson::Value*> values;
    for (const auto& d : docs) values.push_back(&d);
    io.out << api::WriteYamlStream(values);
    return kExitOk;
  }
  if (absl::Status s = WriteDocuments(docs, format, io.out, /*always_list=*/true); !s.ok()) {
    io.err << "error: " << s.message() << "\n";
    return kExitError;
  }
  return kExitOk;
}

int RunProfiles(const Args& args, Io io) {
  int code = kExitOk;
  auto flags = ParseOrUsage(args, {}, "draforge sim profiles", io, code);
  if (!flags) return code;
  Table t({"PROFILE", "DRIVER", "DEVICES-PER-NODE", "DEFAULT", "OPTIONS", "DESCRIPTION"});
  for (const sim::ProfileInfo& p : sim::Profiles()) {
    std::vector<std::string> options(p.options.begin(), p.options.end());
    t.AddRow({std::string(p.name), p.driver.empty() ? "(spec.driver)" : std::string(p.driver), std::string(p.unit),
              absl::StrCat(p.default_devices_per_node), options.empty() ? "-" : absl::StrJoin(options, ","),
              std::string(p.description)});
  }
  t.Print(io.out);
  return kExitOk;
}

// The one pool the fault commands edit: --pool NAME, or the only pool of the input.
const InputObject* SelectPool(const Flags& flags, const std::vector<InputObject>& inputs, Io io) {
  const InputObject* found = nullptr;
  std::vector<std::string> names;
  const auto want = flags.Get("--pool");
  for (const InputObject& in : inputs) {
    if (!in.object.ok() || !sim::IsSimulatedDevicePool(*in.object)) continue;
    const std::string name = in.object->metadata().name.value_or("");
    names.push_back(name);
    if (want && *want != name) continue;
    if (found != nullptr && !want) {
      io.err << "error: the input has several SimulatedDevicePools (" << absl::StrJoin(names, ", ")
             << "...): choose one with --pool NAME\n";
      return nullptr;
    }
    found = &in;
  }
  if (found == nullptr) {
    io.err << "error: " << (want ? absl::StrCat("no SimulatedDevicePool named \"", *want, "\" in the input")
                                 : std::string("no SimulatedDevicePool in the input"))
           << (names.empty() ? "" : absl::StrCat(" (it has ", absl::StrJoin(names, ", "), ")")) << "\n";
  }
  return found;
}

// Writes `text` to `path` through a temporary file and a rename, so the file is never half-written.
absl::Status WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".draforge-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return absl::UnavailableError(absl::StrCat("cannot write ", tmp));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("cannot replace ", path, ": ", ec.message()));
  }
  return absl::OkStatus();
}

// Prints the edited pool, or with --in-place rewrites its file (every object of it, the pool edited).
int EmitPool(const Flags& flags, const std::vector<InputObject>& inputs, const InputObject& target,
             rapidjson::Document& edited, Io io) {
  const std::string format = flags.GetOr("-o", "yaml");
  if (!flags.Has("--in-place")) {
    if (format == "json") {
      io.out << api::WriteJson(edited, /*pretty=*/true) << "\n";
    } else {
      io.out << api::WriteYaml(edited);
    }
    return kExitOk;
  }
  if (target.source == "<stdin>") {
    io.err << "error: --in-place needs a file, not standard input\n";
    return kExitBadInput;
  }
  std::vector<rapidjson::Document> docs;
  for (const InputObject& in : inputs) {
    if (in.source != target.source) continue;
    if (!in.object.ok()) {
      io.err << "error: " << in.Where() << "cannot rewrite a file with an object that does not decode\n";
      return kExitBadInput;
    }
    if (&in == &target) {
      rapidjson::Document d;
      d.CopyFrom(edited, d.GetAllocator());
      docs.push_back(std::move(d));
      continue;
    }
    auto d = api::EncodeObject(*in.object);
    if (!d.ok()) {
      io.err << "error: " << in.Where() << d.status().message() << "\n";
      return kExitError;
    }
    docs.push_back(*std::move(d));
  }
  std::string text;
  if (format == "json" && docs.size() == 1) {
    text = api::WriteJson(docs.front(), /*pretty=*/true) + "\n";
  } else {
    std::vector<const rapidjson::Value*> values;
    for (const auto& d : docs) values.push_back(&d);
    text = api::WriteYamlStream(values);
  }
  if (absl::Status s = WriteFileAtomically(target.source, text); !s.ok()) {
    io.err << "error: " << s.message() << "\n";
    return kExitError;
  }
  io.err << "wrote " << target.source << "\n";
  return kExitOk;
}

absl::StatusOr<rapidjson::Document> PoolJson(const InputObject& in) {
  const auto& other = std::get<api::OtherObject>(in.object->value);
  return api::ParseJson(other.raw.json);
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

std::unique_ptr<kube::Client> Connect(const Flags& flags, Io io);
kube::Resource SimPoolResource();

// Cluster mode of fault inject/clear: read the pool, edit it, write it back with the resourceVersion
// read (a concurrent change is retried from a fresh read, never overwritten).
int EditPoolInCluster(const Flags& flags, Io io, const std::function<absl::Status(rapidjson::Document&)>& edit) {
  const std::string name = flags.GetOr("--pool", "");
  if (name.empty()) {
    io.err << "error: --kubeconfig edits a pool in the cluster: give --pool NAME\n";
    return kExitBadInput;
  }
  std::unique_ptr<kube::Client> client = Connect(flags, io);
  if (client == nullptr) return kExitError;
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto doc = client->Get(SimPoolResource(), "", name);
    if (!doc.ok()) {
      io.err << "error: simulateddevicepool/" << name << ": " << doc.status().message() << "\n";
      return kube::IsApiNotFound(doc.status()) ? kExitBadInput : kExitError;
    }
    doc->RemoveMember("status");
    if (absl::Status s = edit(*doc); !s.ok()) {
      io.err << "error: " << s.message() << "\n";
      return kExitBadInput;
    }
    auto updated = client->Update(SimPoolResource(), "", *doc);
    if (updated.ok()) {
      io.out << "simulateddevicepool/" << name << " updated\n";
      return kExitOk;
    }
    if (!kube::IsApiConflict(updated.status())) {
      io.err << "error: simulateddevicepool/" << name << ": " << updated.status().message() << "\n";
      return kExitError;
    }
  }
  io.err << "error: simulateddevicepool/" << name << " kept changing; try again\n";
  return kExitError;
}

bool ClusterMode(const Flags& flags) {
  return flags.Has("--kubeconfig") || flags.Has("--context") || (flags.All("-f").empty() && flags.Has("--pool"));
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
  sim::Fault fault;
  fault.name = flags->GetOr("--name", "");
  const std::string type = flags->GetOr("--type", "");
  if (fault.name.empty() || type.empty()) {
    io.err << "error: --name and --type are required\n";
    return kExitBadInput;
  }
  auto t = sim::ParseFaultType(type);
  if (!t) {
    io.err << "error: --type: unknown fault type \"" << type << "\"\n\nUsage: " << kFaultUsage << "\n";
    return kExitBadInput;
  }
  fault.type = *t;
  fault.nodes = flags->All("--node");
  fault.devices = flags->All("--device");
  if (flags->Has("--key") || flags->Has("--effect") || flags->Has("--value")) {
    api::DeviceTaint taint;
    if (auto k = flags->Get("--key")) taint.key = *k;
    if (auto v = flags->Get("--value")) taint.value = *v;
    if (auto e = flags->Get("--effect")) taint.effect = *e;
    fault.taint = taint;
  }
  int64_t slice = -1;
  if (!ParseInt(*flags, "--xid", fault.xid, io) || !ParseInt(*flags, "--slice", slice, io) ||
      !ParseInt(*flags, "--period", fault.period, io) || !ParseInt(*flags, "--missing-slices", fault.missing_slices, io)) {
    return kExitBadInput;
  }
  if (flags->Has("--slice")) fault.slice = slice;
  if (ClusterMode(*flags)) {
    return EditPoolInCluster(*flags, io, [&](rapidjson::Document& doc) { return sim::InjectFault(doc, fault); });
  }
  auto inputs = LoadInputs(*flags, io, /*strict=*/false, /*keep_failed=*/true);
  if (!inputs) return kExitBadInput;
  const InputObject* target = SelectPool(*flags, *inputs, io);
  if (target == nullptr) return kExitBadInput;
  auto doc = PoolJson(*target);
  if (!doc.ok()) {
    io.err << "error: " << target->Where() << doc.status().message() << "\n";
    return kExitBadInput;
  }
  if (absl::Status s = sim::InjectFault(*doc, fault); !s.ok()) {
    io.err << "error: " << target->Where() << s.message() << "\n";
    return kExitBadInput;
  }
  return EmitPool(*flags, *inputs, *target, *doc, io);
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
  if (ClusterMode(*flags)) {
    return EditPoolInCluster(*flags, io, [&](rapidjson::Document& doc) -> absl::Status {
      if (flags->Has("--all")) return sim::ClearAllFaults(doc).status();
      return sim::ClearFault(doc, flags->GetOr("--name", ""));
    });
  }
  auto inputs = LoadInputs(*flags, io, /*strict=*/false, /*keep_failed=*/true);
  if (!inputs) return kExitBadInput;
  const InputObject* target = SelectPool(*flags, *inputs, io);
  if (target == nullptr) return kExitBadInput;
  auto doc = PoolJson(*target);
  if (!doc.ok()) {
    io.err << "error: " << target->Where() << doc.status().message() << "\n";
    return kExitBadInput;
  }
  if (flags->Has("--all")) {
    auto n = sim::ClearAllFaults(*doc);
    if (!n.ok()) {
      io.err << "error: " << target->Where() << n.status().message() << "\n";
      return kExitBadInput;
    }
    io.err << "cleared " << *n << " faults\n";
  } else if (absl::Status s = sim::ClearFault(*doc, flags->GetOr("--name", "")); !s.ok()) {
    io.err << "error: " << target->Where() << s.message() << "\n";
    return kExitBadInput;
  }
  return EmitPool(*flags, *inputs, *target, *doc, io);
}

int RunFaultList(const Args& args, Io io) {
  int code = kExitOk;
  auto flags = ParseOrUsage(args, InputFlagsWithCluster("list the faults of the pools in this kubeconfig's cluster"),
                            "draforge fault list (-f FILE... | --kubeconfig PATH)", io, code);
  if (!flags) return code;
  std::vector<sim::SimulatedDevicePool> pools;
  if (flags->All("-f").empty()) {
    std::unique_ptr<kube::Client> client = Connect(*flags, io);
    if (client == nullptr) return kExitError;
    auto list = client->List(SimPoolResource(), "");
    if (!list.ok()) {
      io.err << "error: list simulateddevicepools: " << list.status().message() << "\n";
      return kExitError;
    }
    for (const auto& item : list->list["items"].GetArray()) {
      auto pool = sim::DecodeSimulatedDevicePool(item);
      if (!pool.ok()) {
        io.err << "warning: " << pool.status().message() << "\n";
        continue;
      }
      pools.push_back(*std::move(pool));
    }
  } else {
    auto inputs = LoadInputs(*flags, io, /*strict=*/false);
    if (!inputs) return kExitBadInput;
    if (!DecodePools(*inputs, io, pools)) return kExitBadInput;
  }
  Table t({"POOL", "FAULT", "TYPE", "EFFECT"});
  for (const sim::SimulatedDevicePool& p : pools) {
    for (const sim::Fault& f : p.spec.faults) {
      t.AddRow({p.metadata.name.value_or(""), f.name, std::string(sim::FaultTypeName(f.type)), sim::DescribeFault(p, f)});
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
  io.err << "error: " << (verb.empty() ? "missing subcommand" : absl::StrCat("unknown subcommand \"", verb, "\""))
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
  io.err << "error: " << (verb.empty() ? "missing subcommand" : absl::StrCat("unknown subcommand \"", verb, "\""))
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

kube::Resource SimPoolResource() {
  return kube::Resource{sim::kGroup, sim::kVersion, sim::kResource, sim::kKind, false};
}

// A client for the cluster kubectl would use (--kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster);
// prints the problem and returns null when there is none.
std::unique_ptr<kube::Client> Connect(const Flags& flags, Io io) {
  auto config = ClusterConfig(flags, io);
  if (!config) return nullptr;
  auto client = kube::Client::Create(*std::move(config));
  if (!client.ok()) {
    io.err << "error: " << client.status().message() << "\n";
    return nullptr;
  }
  return *std::move(client);
}

// The API resource of a planned write (lib/sim plans in kinds; lib/kube speaks resources).
kube::Resource ResourceOf(const sim::ScenarioWrite& w) {
  if (w.kind != api::Kind::kOther) return *kube::ResourceFor(w.kind);
  if (w.kind_name == sim::kKind) return SimPoolResource();
  return kube::NamespaceResource();
}

int ScenarioApply(const Flags& flags, const std::string& scenario, Io io) {
  const std::string mode = flags.GetOr("--mode", "slices");
  if (mode != "slices" && mode != "pools") {
    io.err << "error: --mode: \"" << mode << "\" is not slices or pools\n";
    return kExitBadInput;
  }
  // The files, read directly: apply takes -f and --kubeconfig together (LoadInputs reads one or the other).
  auto inputs = ReadInputs(flags.All("-f"), InputOptions{});
  if (!inputs.ok()) {
    io.err << "error: " << inputs.status().message() << "\n";
    return kExitBadInput;
  }
  for (const InputObject& in : *inputs) {
    for (const std::string& w : in.warnings) io.err << "warning: " << in.Where() << w << "\n";
    if (!in.object.ok()) {
      io.err << "error: " << in.Where() << in.object.status().message() << "\n";
      return kExitBadInput;
    }
  }
  std::vector<api::Object> objects;
  for (const InputObject& in : *inputs) objects.push_back(*in.object);
  auto planned = sim::PlanScenarioApply(objects, scenario, mode == "pools" ? sim::ScenarioMode::kPools
                                                                           : sim::ScenarioMode::kSlices);
  if (!planned.ok()) {
    io.err << "error: " << planned.status().message() << "\n";
    return kExitBadInput;
  }
  for (const std::string& note : planned->notes) io.err << "note: " << note << "\n";
  std::vector<sim::ScenarioWrite>& plan = planned->writes;
  std::unique_ptr<kube::Client> client = Connect(flags, io);
  if (client == nullptr) return kExitError;
  if (mode == "pools") {
    if (auto g = client->DiscoverGroup(sim::kGroup); !g.ok()) {
      io.err << "error: the cluster does not serve " << sim::kApiVersion
             << " (install deploy/crds/sim.draforge.io_simulateddevicepools.yaml first): " << g.status().message()
             << "\n";
      return kExitError;
    }
  }
  // Nothing is written while any object exists that this scenario does not own.
  std::vector<bool> exists(plan.size(), false);
  for (size_t i = 0; i < plan.size(); ++i) {
    auto got = client->Get(ResourceOf(plan[i]), plan[i].namespace_, plan[i].name);
    if (!got.ok()) {
      if (kube::IsApiNotFound(got.status())) continue;
      io.err << "error: " << plan[i].Ref() << ": " << got.status().message() << "\n";
      return kExitError;
    }
    if (!sim::OwnedByScenario(*got, scenario)) {
      io.err << "error: " << plan[i].Ref() << " already exists and is not part of scenario \"" << scenario
             << "\"; nothing was changed\n";
      return kExitError;
    }
    exists[i] = true;
  }
  int created = 0;
  int unchanged = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    const sim::ScenarioWrite& p = plan[i];
    if (exists[i]) {
      io.out << p.Ref() << " unchanged (already applied)\n";
      ++unchanged;
      continue;
    }
    auto r = client->Create(ResourceOf(p), p.namespace_, p.body);
    if (!r.ok()) {
      io.err << "error: " << p.Ref() << ": " << r.status().message() << "\n"
             << "(" << created << " objects were created; `draforge scenario reset --scenario " << scenario
             << "` removes them)\n";
      return kExitError;
    }
    io.out << p.Ref() << " created\n";
    ++created;
  }
  io.err << "scenario " << scenario << ": " << created << " created, " << unchanged << " unchanged\n";
  return kExitOk;
}

int ScenarioReset(const Flags& flags, const std::string& scenario, Io io) {
  std::unique_ptr<kube::Client> client = Connect(flags, io);
  if (client == nullptr) return kExitError;
  // What apply creates, in the reverse order; SimulatedDevicePools only where the CRD is installed.
  std::vector<kube::Resource> resources;
  const bool pools_served = client->DiscoverGroup(sim::kGroup).ok();
  const auto& kinds = sim::ScenarioKinds();
  for (auto k = kinds.rbegin(); k != kinds.rend(); ++k) {
    if (*k == sim::kKind) {
      if (pools_served) resources.push_back(SimPoolResource());
    } else if (*k == "Namespace") {
      resources.push_back(kube::NamespaceResource());
    } else {
      resources.push_back(*kube::ResourceFor(*api::ParseKindName(*k)));
    }
  }
  kube::ListOptions list;
  list.label_selector = absl::StrCat(sim::kScenarioLabel, "=", scenario);
  int deleted = 0;
  for (const kube::Resource& r : resources) {
    auto items = client->List(r, "", list);
    if (!items.ok()) {
      if (kube::IsApiNotFound(items.status())) continue;  // e.g. DeviceTaintRule not served
      io.err << "error: list " << r.resource << ": " << items.status().message() << "\n";
      return kExitError;
    }
    const rapidjson::Value& arr = items->list["items"];
    for (rapidjson::SizeType i = 0; i < arr.Size(); ++i) {
      const rapidjson::Value& meta = arr[i]["metadata"];
      const std::string name = meta["name"].GetString();
      const std::string ns = meta.HasMember("namespace") ? meta["namespace"].GetString() : "";
      kube::DeleteOptions options;
      // Simulated nodes have no kubelet to confirm a graceful pod deletion.
      if (r.kind == "Pod") options.grace_period_seconds = 0;
      options.propagation_policy = "Background";
      auto d = client->Delete(r, ns, name, options);
      if (!d.ok() && !kube::IsApiNotFound(d.status())) {
        io.err << "error: delete " << r.resource << " " << (ns.empty() ? "" : ns + "/") << name << ": "
               << d.status().message() << "\n";
        return kExitError;
      }
      io.out << absl::AsciiStrToLower(r.kind) << "/" << (ns.empty() ? "" : ns + "/") << name << " deleted\n";
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
    io.err << "error: " << (verb.empty() ? "missing subcommand" : absl::StrCat("unknown subcommand \"", verb, "\""))
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
  if (scenario.empty() && !flags->All("-f").empty()) scenario = sim::ScenarioNameFromPath(flags->All("-f").front());
  if (scenario.empty()) {
    io.err << "error: give -f FILE or --scenario NAME\n";
    return kExitBadInput;
  }
  if (!sim::ValidScenarioName(scenario)) {
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
