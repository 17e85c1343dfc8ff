#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "commands.h"
#include "json_fields.h"
#include "report.h"

extern const char kDemoScenario[];

namespace draforge::cli {
namespace {

void Section(std::ostream& out, std::string_view title) {
  out << "\n" << title << "\n" << std::string(title.size(), '=') << "\n";
}

constexpr char kDemoUsage[] = "draforge demo [--print-scenario] | draforge demo --serve [--port N] [--address A]";

bool IsExecutable(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// `draforge demo --serve`: the server is its own program (examples/server), found next to this
// one: installed side by side in bindir, or in the build tree's examples/server. The CLI becomes
// that process (exec), so Ctrl-C and a supervisor's signals reach the server directly and its
// exit status is the command's.
int Serve(const Flags& flags, Io io) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    io.err << "error: demo --serve: cannot find this program's path (/proc/self/exe): " << ec.message() << "\n";
    return kExitError;
  }
  const std::filesystem::path dir = self.parent_path();
  const std::filesystem::path candidates[] = {dir / "draforge-server", dir / ".." / "server" / "draforge-server"};
  std::filesystem::path server;
  for (const auto& c : candidates) {
    if (IsExecutable(c)) {
      server = c.lexically_normal();
      break;
    }
  }
  if (server.empty()) {
    io.err << "error: demo --serve: draforge-server not found (looked for " << candidates[0].lexically_normal().string()
           << " and " << candidates[1].lexically_normal().string()
           << "); build it (ninja examples/server/draforge-server) or install it next to draforge\n";
    return kExitError;
  }
  std::vector<std::string> argv = {server.string(), "--demo", "--port", flags.GetOr("--port", "8080"),
                                   "--address", flags.GetOr("--address", "127.0.0.1")};
  // In the build tree the dashboard is built into <build>/dashboard (examples/dashboard/build
  // <build>/dashboard); installed, the server's default (<datadir>/draforge/dashboard) applies.
  const std::filesystem::path built = (dir / ".." / ".." / "dashboard").lexically_normal();
  if (server.parent_path().filename() == "server" && std::filesystem::is_regular_file(built / "index.html", ec)) {
    argv.insert(argv.end(), {"--static-dir", built.string()});
  }
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  io.out.flush();
  io.err.flush();
  ::execv(server.c_str(), raw.data());
  const int err = errno;  // execv returns only on failure
  io.err << "error: demo --serve: cannot run " << server.string() << ": " << std::strerror(err) << "\n";
  return kExitError;
}

// The embedded scenario in a store, and its snapshot.
draforge::Result<draforge::Snapshot> DemoSnapshot() {
  auto objects = draforge::Objects::Parse(kDemoScenario);
  if (!objects.ok()) return objects.error();
  auto cluster = draforge::Cluster::Create();
  if (!cluster.ok()) return cluster.error();
  if (auto applied = cluster->ApplyObjects(*objects); !applied.ok()) return applied.error();
  return cluster->snapshot();
}

}  // namespace

int RunDemo(const Args& args, Io io) {
  int code = kExitOk;
  auto flags = ParseOrUsage(args,
                            {{{"--print-scenario"}, false, "print the embedded scenario (YAML) and exit"},
                             {{"--serve"}, false, "run draforge-server on the demo scenario and print the dashboard URL"},
                             {{"--port"}, true, "with --serve: listen port (default 8080; 0 picks a free one)"},
                             {{"--address"}, true, "with --serve: listen address (default 127.0.0.1)"}},
                            kDemoUsage, io, code);
  if (!flags) return code;
  if (!flags->positional().empty()) {
    io.err << "error: unexpected argument \"" << flags->positional()[0] << "\"\n\nUsage: " << kDemoUsage << "\n";
    return kExitBadInput;
  }
  if (flags->Has("--serve")) {
    if (flags->Has("--print-scenario")) {
      io.err << "error: --print-scenario and --serve cannot be combined\n\nUsage: " << kDemoUsage << "\n";
      return kExitBadInput;
    }
    return Serve(*flags, io);
  }
  for (const char* f : {"--port", "--address"}) {
    if (flags->Has(f)) {
      io.err << "error: " << f << " needs --serve\n\nUsage: " << kDemoUsage << "\n";
      return kExitBadInput;
    }
  }
  if (flags->Has("--print-scenario")) {
    io.out << kDemoScenario;
    return kExitOk;
  }
  auto snap = DemoSnapshot();
  if (!snap.ok()) {
    io.err << "error: demo scenario: " << snap.error().message << "\n";
    return kExitError;
  }
  auto summary = draforge::inventory::SummaryJson(*snap);
  auto doc = summary.ok() ? ParseAbiJson(*summary, "summary") : draforge::Result<rapidjson::Document>(summary.error());
  if (!doc.ok()) {
    io.err << "error: demo scenario: " << doc.error().message << "\n";
    return kExitError;
  }
  const rapidjson::Value& counts = JsonObject(*doc, "counts");
  auto n = [&](const char* key) { return std::to_string(JsonInt(counts, key)); };
  io.out << "DRAForge demo: the built-in scenario (examples/scenarios/demo.yaml; `draforge demo --print-scenario`)\n"
         << n("nodes") << " nodes, " << n("drivers") << " drivers, " << n("pools") << " pools, " << n("resourceSlices")
         << " slices, " << n("devices") << " devices (" << n("allocatedDevices") << " in use), " << n("deviceClasses")
         << " device classes, " << n("claims") << " claims (" << n("allocatedClaims") << " allocated), " << n("pods")
         << " pods\n";

  const std::pair<const char*, const char*> tables[] = {{"Pools", "pools"},
                                                        {"Devices", "devices"},
                                                        {"Device classes", "deviceclasses"},
                                                        {"Claims", "resourceclaims"},
                                                        {"Pods", "pods"}};
  for (const auto& [title, kind] : tables) {
    Section(io.out, title);
    auto table = MakeTable(*snap, *ParseGetTarget(kind), {});
    if (!table.ok()) {
      io.err << "error: demo scenario: " << table.error().message << "\n";
      return kExitError;
    }
    table->Print(io.out);
  }
  Section(io.out, "Graph (pod -> claim -> request -> class -> device -> pool -> node)");
  draforge::Snapshot::GraphQuery query;
  query.format = DRAFORGE_GRAPH_TEXT;
  auto graph = snap->RenderGraph(query);
  if (!graph.ok()) {
    io.err << "error: demo scenario: " << graph.error().message << "\n";
    return kExitError;
  }
  io.out << *graph;
  return kExitOk;
}

}  // namespace draforge::cli
