// draforge: the command-line front end of the DRAForge library. Every command only composes library
// calls; see docs/cli.md for the surface.
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"

namespace {

constexpr char kUsage[] = R"(draforge: Kubernetes Dynamic Resource Allocation, offline and online.

Usage: draforge COMMAND [flags]

Commands:
  demo        print a report of the built-in demo scenario (pools, devices, claims, graph);
                draforge demo --serve [--port N] [--address A] runs draforge-server on it and prints the dashboard URL
  get         list objects of a kind:        draforge get KIND -f FILE... [-o table|json|yaml]
  graph       the Pod -> claim -> class -> slice -> device -> pool -> node graph:
                                             draforge graph -f FILE... [-o text|json|dot]
  convert     convert objects between versions: draforge convert -f FILE... [-o json|yaml] [--to VERSION]
  validate    validate objects as the API server does: draforge validate -f FILE...
  allocate    allocate claims on a node as kube-scheduler would:
                draforge allocate --node NODE [--claim NS/NAME]... [--feature-gates A=true,B=false] -f FILE... [-o json|yaml|text]
  explain     why a claim is pending:       draforge explain --claim NS/NAME -f FILE... [--node NODE] [-o text|json|yaml]
                (no --node: on which nodes it fits, and the first reason on each other node)
  cel         DRA CEL selectors: draforge cel eval [--device FILE] [--] EXPR | cel check EXPR |
                cel explain EXPR -f FILE...
  cdi         CDI specs for a node's claims, validation of CDI files as runtimes read them, and audit of a node's CDI directory:
                draforge cdi generate --node NODE -f FILE... (--out DIR | --dry-run) [--driver D]... [--max-version V] [-o text|json]
                draforge cdi validate [--strict] [--max-version V] [-o text|json] FILE|DIR...
                draforge cdi audit --node NODE -f FILE... [--driver D]... [--max-version V] [-o text|json] DIR
  place       on which nodes a pod fits, or how many more claims like one fit:
                draforge place --pod NS/NAME -f FILE... [--feature-gates A=true,B=false] [-o text|json|yaml]
                draforge place (--claim NS/NAME | --template NS/NAME) [--count] [--cap N] -f FILE... [-o text|json|yaml]
  whatif      what-if questions on a copy of the input: draforge whatif replay -f FILE... [--policy first-fit|most-allocated|least-allocated] [-o table|json|yaml]
                (the pending pods placed one at a time in kube-scheduler's queue order)
  package     package catalogs: what a platform sells (a package ID: cpu, memory, N devices of a class):
                draforge package validate --catalog FILE [-f FILE...] | package expand ID --catalog FILE --name N --image IMG
                draforge package capacity --catalog FILE [--namespace NS [--quota]] -f FILE... [-o table|json|yaml]
                draforge package inventory -f FILE... [-o table|json|yaml]
  sim         simulated device pools: draforge sim expand -f FILE... [-o yaml|json] [--tick N] | sim profiles
  fault       faults of a SimulatedDevicePool: draforge fault inject|list|clear -f FILE ... [--in-place]
                (or --kubeconfig PATH --pool NAME to edit the pool in the cluster)
  scenario    draforge scenario apply|reset -f FILE... [--scenario NAME] [--mode slices|pools] [--kubeconfig PATH]
  dump        write a cluster's DRA state to a file the other commands read:
                draforge dump [--kubeconfig FILE] [--context NAME] [-o FILE] [--format yaml|json] [-n NAMESPACE]
  version     print the version

`-f -` reads standard input; `-f DIR` reads every .yaml, .yml and .json file in DIR.
get, graph, explain, allocate, place, whatif replay and cdi generate read a live cluster instead of -f with
--kubeconfig FILE [--context NAME] (without -f and --kubeconfig: $KUBECONFIG, ~/.kube/config, in-cluster).
Exit status: 0 success, 1 unschedulable (allocate, place, whatif replay) or drift found (cdi audit), 2 bad input or usage, 3 error. Run `draforge COMMAND --help` for flags;
each flag is given as --flag VALUE or --flag=VALUE.
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace draforge::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  Io io{std::cout, std::cerr};
  if (args.empty()) {
    std::cerr << kUsage;
    return kExitBadInput;
  }
  const std::string command = args.front();
  args.erase(args.begin());
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return kExitOk;
  }
  if (command == "version" || command == "--version") return RunVersion(args, io);
  if (command == "convert") return RunConvert(args, io);
  if (command == "validate") return RunValidate(args, io);
  if (command == "get") return RunGet(args, io);
  if (command == "graph") return RunGraph(args, io);
  if (command == "demo") return RunDemo(args, io);
  if (command == "allocate") return RunAllocate(args, io);
  if (command == "explain") return RunExplain(args, io);
  if (command == "place") return RunPlace(args, io);
  if (command == "package") return RunPackage(args, io);
  if (command == "whatif") return RunWhatif(args, io);
  if (command == "cel") return RunCel(args, io);
  if (command == "cdi") return RunCdi(args, io);
  if (command == "dump") return RunDump(args, io);
  if (command == "sim") return RunSim(args, io);
  if (command == "fault") return RunFault(args, io);
  if (command == "scenario") return RunScenario(args, io);
  std::cerr << "error: unknown command \"" << command << "\"\n\n" << kUsage;
  return kExitBadInput;
}
