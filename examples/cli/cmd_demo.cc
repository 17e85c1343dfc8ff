#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

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

constexpr char kUsage[] = "draforge demo [--print-scenario] | draforge demo --serve [--port N] [--address A]";

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

}  // namespace

int RunDemo(const Args& args, Io io) {
  int code = kExitOk;
  auto flags = ParseOrUsage(args,
                            {{{"--print-scenario"}, false, "print the embedded scenario (YAML) and exit"},
                             {{"--serve"}, false, "run draforge-server on the demo scenario and print the dashboard URL"},
                             {{"--port"}, true, "with --serve: listen port (default 8080; 0 picks a free one)"},
                             {{"--address"}, true, "with --serve: listen address (default 127.0.0.1)"}},
                            kUsage, io, code);
  if (!flags) return code;
  if (!flags->positional().empty()) {
    io.err << "error: unexpected argument \"" << flags->positional()[0] << "\"\n\nUsage: " << kUsage << "\n";
    return kExitBadInput;
  }
  if (flags->Has("--serve")) {
    if (flags->Has("--print-scenario")) {
      io.err << "error: --print-scenario and --serve cannot be combined\n\nUsage: " << kUsage << "\n";
      return kExitBadInput;
    }
    return Serve(*flags, io);
  }
  for (const char* f : {"--port", "--address"}) {
    if (flags->Has(f)) {
      io.err << "error: " << f << " needs --serve\n\nUsage: " << kUsage << "\n";
      return kExitBadInput;
    }
  }
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
