#include <string_view>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "commands.h"
#include "graph/graph.h"
#include "report.h"

extern const char kDemoScenario[];

namespace draforge::cli {
namespace {

void Section(std::ostream& out, std::string_view title) {
  out << "\n" << title << "\n" << std::string(title.size(), '=') << "\n";
}

}  // namespace

int RunDemo(const Args& args, Io io) {
  int code = kExitOk;
  auto flags = ParseOrUsage(args, {{{"--print-scenario"}, false, "print the embedded scenario (YAML) and exit"}},
                            "draforge demo [--print-scenario]", io, code);
  if (!flags) return code;
  if (flags->Has("--print-scenario")) {
    io.out << kDemoScenario;
    return kExitOk;
  }
  auto decoded = api::DecodeStream(kDemoScenario, {});
  if (!decoded.ok()) {
    io.err << "error: demo scenario: " << decoded.status().message() << "\n";
    return kExitError;
  }
  store::Cluster cluster;
  for (auto& d : *decoded) {
    absl::Status s = d.object.ok() ? cluster.Apply(*std::move(d.object)) : d.object.status();
    if (!s.ok()) {
      io.err << "error: demo scenario: " << s.message() << "\n";
      return kExitError;
    }
  }
  auto snap = cluster.snapshot();

  size_t devices = 0, in_use = 0;
  const auto pools = snap->Pools();
  for (const auto& p : pools) {
    for (const auto* slice : p.slices) {
      for (const auto& d : slice->spec->devices) {
        ++devices;
        if (snap->InUse(p.driver, p.pool, d.name.value_or(""))) ++in_use;
      }
    }
  }
  size_t allocated_claims = 0;
  const auto claims = snap->ResourceClaims();
  for (const auto* c : claims) allocated_claims += c->status && c->status->allocation ? 1 : 0;

  io.out << "DRAForge demo: the built-in scenario (examples/scenarios/demo.yaml; `draforge demo --print-scenario`)\n"
         << snap->Count(api::Kind::kNode) << " nodes, " << snap->Drivers().size() << " drivers, " << pools.size()
         << " pools, " << snap->Count(api::Kind::kResourceSlice) << " slices, " << devices << " devices (" << in_use
         << " in use), " << snap->Count(api::Kind::kDeviceClass) << " device classes, " << claims.size() << " claims ("
         << allocated_claims << " allocated), " << snap->Count(api::Kind::kPod) << " pods\n";

  Section(io.out, "Pools");
  MakeTable(*snap, *ParseGetTarget("pools"), {}).Print(io.out);
  Section(io.out, "Devices");
  MakeTable(*snap, *ParseGetTarget("devices"), {}).Print(io.out);
  Section(io.out, "Device classes");
  MakeTable(*snap, *ParseGetTarget("deviceclasses"), {}).Print(io.out);
  Section(io.out, "Claims");
  MakeTable(*snap, *ParseGetTarget("resourceclaims"), {}).Print(io.out);
  Section(io.out, "Pods");
  MakeTable(*snap, *ParseGetTarget("pods"), {}).Print(io.out);
  Section(io.out, "Graph (pod -> claim -> request -> class -> device -> pool -> node)");
  io.out << graph::ToText(graph::BuildGraph(*snap));
  return kExitOk;
}

}  // namespace draforge::cli
