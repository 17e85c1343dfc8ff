// draforge package: package catalogs (draforge/package.h). A package ID expands to a pod's CPU and
// memory and N devices of one DeviceClass; docs/packages.md describes the catalog.
//
//   draforge package validate --catalog FILE [-f FILE... | --kubeconfig FILE [--context NAME]] [-o text|json|yaml]
//     Parses and validates the catalog; with cluster input also checks that every DeviceClass it
//     names exists. Exit status: 0 valid, 1 problems against the cluster, 2 a bad catalog or usage.
//
//   draforge package expand ID --catalog FILE --name N [--namespace NS] --image IMG [-o yaml|json]
//     Prints the ResourceClaim and the Pod one unit of package ID is made of (YAML: two documents;
//     JSON: a List), ready for kubectl apply.
//
//   draforge package capacity --catalog FILE [--id ID] [--namespace NS [--quota]] [--cap N]
//        (-f FILE... | --kubeconfig FILE [--context NAME]) [--feature-gates ...] [-o table|json|yaml]
//     How many more units of each package fit now, per node and cluster-wide (devices through the
//     allocator; cpu, memory and pod slots against each Node's allocatable minus the pods bound
//     there); with --quota within the namespace's ResourceQuotas. Exit status: 0, 2 bad input, 3 an
//     allocator error stopped a count.
//
//   draforge package inventory (-f FILE... | --kubeconfig FILE [--context NAME]) [-o table|json|yaml]
//     The inventory fields a platform reports (totalGpuAllocatable, draClaimCount,
//     draAllocatedClaims, draAllocatedDevices, draResourceSlices, draDevices), cluster-wide and per
//     namespace, from observed state only.
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
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

constexpr char kPackageUsage[] =
    "draforge package validate --catalog FILE [-f FILE... | --kubeconfig FILE] [-o text|json|yaml]\n"
    "       draforge package expand ID --catalog FILE --name N [--namespace NS] --image IMG [-o yaml|json]\n"
    "       draforge package capacity --catalog FILE [--id ID] [--namespace NS [--quota]] [--cap N] "
    "(-f FILE... | --kubeconfig FILE [--context NAME]) [--feature-gates A=true,B=false] [-o table|json|yaml]\n"
    "       draforge package inventory (-f FILE... | --kubeconfig FILE [--context NAME]) [-o table|json|yaml]";

std::optional<std::string> ReadCatalog(const Flags& flags, Io io) {
  const auto path = flags.Get("--catalog");
  if (!path) {
    io.err << "error: --catalog FILE is required\n";
    return std::nullopt;
  }
  std::ifstream f(*path, std::ios::binary);
  if (!f) {
    io.err << "error: " << *path << ": cannot open\n";
    return std::nullopt;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int Fail(const draforge::Error& e, Io io) {
  io.err << "error: " << e.message << "\n";
  return e.code == DRAFORGE_ENOTFOUND || e.code == DRAFORGE_EINVALID ? kExitBadInput : kExitError;
}

bool HasClusterInput(const Flags& flags) {
  return flags.Has("-f") || flags.Has("--kubeconfig") || flags.Has("--context");
}

int Validate(const Flags& flags, const std::string& format, Io io) {
  auto catalog = ReadCatalog(flags, io);
  if (!catalog) return kExitBadInput;
  std::optional<ClusterInputs> loaded;
  if (HasClusterInput(flags)) {
    loaded = LoadCluster(flags, io);
    if (!loaded) return kExitBadInput;
  }
  auto result = draforge::PackageValidateJson(*catalog, loaded ? &loaded->snapshot : nullptr);
  if (!result.ok()) return Fail(result.error(), io);
  auto doc = ParseResultObject(*result, "result", io.err);
  if (!doc) return kExitError;
  const std::vector<std::string> problems = JsonStrings(*doc, "problems");
  const int exit = problems.empty() ? kExitOk : 1;
  if (format != "text") return PrintDocument(std::move(*doc), format, io.out, io.err) ? exit : kExitBadInput;
  const rapidjson::Value& packages = JsonArray(*doc, "packages");
  io.out << "catalog " << *flags.Get("--catalog") << ": " << packages.Size()
         << (packages.Size() == 1 ? " package" : " packages") << ", "
         << (loaded ? (problems.empty() ? "valid against the cluster" : "problems against the cluster")
                    : "valid (no cluster input: DeviceClasses not checked)")
         << "\n";
  for (const std::string& p : problems) io.out << "  " << p << "\n";
  return exit;
}

int Expand(const Flags& flags, const std::string& format, Io io) {
  if (flags.positional().size() != 1) {
    io.err << "error: package expand takes one package ID\n";
    return kExitBadInput;
  }
  for (const char* f : {"--name", "--image"}) {
    if (!flags.Has(f)) {
      io.err << "error: " << f << " is required\n";
      return kExitBadInput;
    }
  }
  auto catalog = ReadCatalog(flags, io);
  if (!catalog) return kExitBadInput;
  auto result = draforge::PackageExpandJson(*catalog, flags.positional().front(), flags.GetOr("--name", ""),
                                            flags.GetOr("--namespace", "default"), flags.GetOr("--image", ""));
  if (!result.ok()) return Fail(result.error(), io);
  auto doc = ParseResultObject(*result, "result", io.err);
  if (!doc) return kExitError;
  std::vector<rapidjson::Document> objects;
  for (const auto& o : JsonArray(*doc, "objects").GetArray()) {
    rapidjson::Document d;
    d.CopyFrom(o, d.GetAllocator());
    objects.push_back(std::move(d));
  }
  if (format == "json") {
    if (auto printed = PrintDocuments(objects, format, io.out, true); !printed.ok()) return Fail(printed.error(), io);
    return kExitOk;
  }
  for (size_t i = 0; i < objects.size(); ++i) {
    if (i > 0) io.out << "---\n";
    std::vector<rapidjson::Document> one;
    one.push_back(std::move(objects[i]));
    if (auto printed = PrintDocuments(one, format, io.out); !printed.ok()) return Fail(printed.error(), io);
  }
  return kExitOk;
}

// A positive integer; false otherwise.
bool ParseCap(const std::string& text, int64_t& out) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  errno = 0;
  char* stop = nullptr;
  const long long n = std::strtoll(text.c_str(), &stop, 10);
  if (errno != 0 || *stop != '\0' || n <= 0) return false;
  out = n;
  return true;
}

std::string CapacityStopSentence(const rapidjson::Value& c) {
  const std::string stop = JsonStr(c, "stop");
  if (stop == "exhausted") return "no node fits another";
  if (stop == "cap") return "cap of " + std::to_string(JsonInt(c, "cap")) + " reached";
  if (stop == "quota") {
    const auto q = c.FindMember("quota");
    return "quota: " + (q != c.MemberEnd() ? JsonStr(q->value, "why") : std::string());
  }
  if (stop == "error") return "error on node " + JsonStr(c, "errorNode") + ": " + JsonStr(c, "error");
  if (stop == "no-nodes") return "no nodes in the input";
  return stop;
}

int Capacity(const Flags& flags, const std::string& format, Io io) {
  if (!flags.positional().empty()) {
    io.err << "error: unexpected argument \"" << flags.positional().front() << "\" (use --id ID)\n";
    return kExitBadInput;
  }
  if (flags.Has("--quota") && !flags.Has("--namespace")) {
    io.err << "error: --quota needs --namespace NS (whose ResourceQuotas count)\n";
    return kExitBadInput;
  }
  int64_t cap = 0;
  if (auto text = flags.Get("--cap"); text && !ParseCap(*text, cap)) {
    io.err << "error: --cap: expected a positive integer, got \"" << *text << "\"\n";
    return kExitBadInput;
  }
  draforge::AllocateOptions options;
  options.feature_gates = flags.GetOr("--feature-gates", "");
  if (!CheckFeatureGates(options.feature_gates, io)) return kExitBadInput;
  auto catalog = ReadCatalog(flags, io);
  if (!catalog) return kExitBadInput;
  auto loaded = LoadCluster(flags, io);
  if (!loaded) return kExitBadInput;
  if (flags.Has("--quota") && !loaded->inputs.resource_quotas_unread.empty()) {
    io.err << "error: --quota: cannot read the ResourceQuotas of " << loaded->inputs.cluster << ": "
           << loaded->inputs.resource_quotas_unread << "\n";
    return kExitError;
  }
  auto result = draforge::PackageCapacityJson(loaded->snapshot, *catalog, flags.GetOr("--id", ""),
                                              flags.GetOr("--namespace", ""), flags.Has("--quota"), cap, options);
  if (!result.ok()) return Fail(result.error(), io);
  auto doc = ParseResultObject(*result, "result", io.err);
  if (!doc) return kExitError;
  bool any_error = false;
  for (const auto& p : JsonArray(*doc, "packages").GetArray()) {
    any_error = any_error || JsonStr(p["capacity"], "stop") == "error";
  }
  const int exit = any_error ? kExitError : kExitOk;
  if (format != "table") return PrintDocument(std::move(*doc), format, io.out, io.err) ? exit : kExitBadInput;

  Table totals({"PACKAGE", "CPU", "MEMORY", "DEVICES", "MORE", "STOPPED"});
  Table per_node({"PACKAGE", "NODE", "MORE", "LIMITED BY", "WHY NOT MORE"});
  for (const auto& p : JsonArray(*doc, "packages").GetArray()) {
    const rapidjson::Value& c = p["capacity"];
    const std::string devices =
        JsonInt(p, "gpu") == 0 ? "-" : std::to_string(JsonInt(p, "gpu")) + " " + JsonStr(p, "deviceClassName");
    totals.AddRow({JsonStr(p, "id"), JsonStr(p, "cpu"), JsonStr(p, "memory"), devices, std::to_string(JsonInt(c, "total")),
                   CapacityStopSentence(c)});
    for (const auto& n : JsonArray(c, "nodes").GetArray()) {
      std::string why = JsonStr(n, "why").empty() ? Join(JsonStrings(n, "reasons"), "; ") : JsonStr(n, "why");
      per_node.AddRow({JsonStr(p, "id"), JsonStr(n, "node"), std::to_string(JsonInt(n, "count")),
                       JsonStr(n, "limitedBy").empty() ? "-" : JsonStr(n, "limitedBy"), why.empty() ? "-" : why});
    }
  }
  io.out << "namespace " << JsonStr(*doc, "namespace") << (JsonBool(*doc, "quota") ? ", within its ResourceQuotas" : "")
         << "\n";
  totals.Print(io.out);
  io.out << "\n";
  per_node.Print(io.out);
  return exit;
}

int Inventory(const Flags& flags, const std::string& format, Io io) {
  auto loaded = LoadCluster(flags, io);
  if (!loaded) return kExitBadInput;
  auto result = draforge::PackageInventoryJson(loaded->snapshot);
  if (!result.ok()) return Fail(result.error(), io);
  auto doc = ParseResultObject(*result, "result", io.err);
  if (!doc) return kExitError;
  if (format != "table") return PrintDocument(std::move(*doc), format, io.out, io.err) ? kExitOk : kExitBadInput;
  const char* kFields[] = {"totalGpuAllocatable", "draClaimCount",     "draAllocatedClaims",
                           "draAllocatedDevices", "draResourceSlices", "draDevices"};
  Table cluster({"FIELD", "VALUE"});
  for (const char* f : kFields) cluster.AddRow({f, std::to_string(JsonInt(*doc, f))});
  cluster.Print(io.out);
  const auto ns = doc->FindMember("namespaces");
  if (ns != doc->MemberEnd() && ns->value.IsObject() && ns->value.MemberCount() > 0) {
    io.out << "\n";
    Table per_ns({"NAMESPACE", "CLAIMS", "ALLOCATED CLAIMS", "ALLOCATED DEVICES"});
    for (const auto& m : ns->value.GetObject()) {
      per_ns.AddRow({m.name.GetString(), std::to_string(JsonInt(m.value, "draClaimCount")),
                     std::to_string(JsonInt(m.value, "draAllocatedClaims")),
                     std::to_string(JsonInt(m.value, "draAllocatedDevices"))});
    }
    per_ns.Print(io.out);
  }
  return kExitOk;
}

}  // namespace

int RunPackage(const Args& args, Io io) {
  if (args.empty() || (args.front() != "validate" && args.front() != "expand" && args.front() != "capacity" &&
                       args.front() != "inventory")) {
    if (!args.empty() && (args.front() == "--help" || args.front() == "-h")) {
      io.out << "Usage: " << kPackageUsage << "\n";
      return kExitOk;
    }
    io.err << "error: package needs a subcommand: validate, expand, capacity or inventory\nUsage: " << kPackageUsage << "\n";
    return kExitBadInput;
  }
  const std::string sub = args.front();
  const Args rest(args.begin() + 1, args.end());
  // expand reads no cluster; inventory no catalog.
  std::vector<FlagSpec> specs = sub == "expand" ? std::vector<FlagSpec>{} : InputFlags();
  if (sub != "inventory") specs.push_back({{"--catalog"}, true, "the package catalog (YAML or JSON)"});
  specs.push_back({{"-o", "--output"}, true,
                   sub == "expand" ? "yaml (default) or json" : sub == "validate" ? "text (default), json or yaml"
                                                                               : "table (default), json or yaml"});
  if (sub == "expand") {
    specs.push_back({{"--name"}, true, "the pod's name; the claim is <name>-<claimRequestName>"});
    specs.push_back({{"--namespace", "-n"}, true, "the namespace of both objects (default \"default\")"});
    specs.push_back({{"--image"}, true, "the container's image"});
  }
  if (sub == "capacity") {
    specs.push_back({{"--id"}, true, "only this package"});
    specs.push_back({{"--namespace", "-n"}, true, "where the units would go (default \"default\")"});
    specs.push_back({{"--quota"}, false, "count within the namespace's ResourceQuotas"});
    specs.push_back({{"--cap"}, true, "stop counting a package at this many (default 1000)"});
    specs.push_back({{"--feature-gates"}, true, "A=true,B=false on top of the Kubernetes 1.37 defaults"});
  }
  int code = kExitOk;
  auto flags = ParseOrUsage(rest, specs, kPackageUsage, io, code);
  if (!flags) return code;
  const std::vector<std::string> formats = sub == "expand"     ? std::vector<std::string>{"yaml", "json"}
                                           : sub == "validate" ? std::vector<std::string>{"text", "json", "yaml"}
                                                               : std::vector<std::string>{"table", "json", "yaml"};
  const auto format = OutputFormat(*flags, formats.front(), formats, io);
  if (!format) return kExitBadInput;
  if (sub == "validate") return Validate(*flags, *format, io);
  if (sub == "expand") return Expand(*flags, *format, io);
  if (sub == "capacity") return Capacity(*flags, *format, io);
  return Inventory(*flags, *format, io);
}

}  // namespace draforge::cli
