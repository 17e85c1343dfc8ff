// The draforge CLI's commands. Each takes its arguments (after the command name) and returns the
// process exit status: 0 success, 1 unschedulable (allocate, place) or drift found (cdi audit), 2 bad input or usage, 3 error.
#ifndef DRAFORGE_EXAMPLES_CLI_COMMANDS_H_
#define DRAFORGE_EXAMPLES_CLI_COMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

#include "flags.h"
#include "input.h"
#include "kube/config.h"

namespace draforge::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitError = 3;

struct Io {
  std::ostream& out;
  std::ostream& err;
};

using Args = std::vector<std::string>;

int RunVersion(const Args& args, Io io);
int RunConvert(const Args& args, Io io);
int RunValidate(const Args& args, Io io);
int RunGet(const Args& args, Io io);
int RunGraph(const Args& args, Io io);
int RunDemo(const Args& args, Io io);
int RunAllocate(const Args& args, Io io);
int RunExplain(const Args& args, Io io);
int RunPlace(const Args& args, Io io);
int RunCel(const Args& args, Io io);
int RunCdi(const Args& args, Io io);
int RunDump(const Args& args, Io io);
int RunSim(const Args& args, Io io);
int RunFault(const Args& args, Io io);
int RunScenario(const Args& args, Io io);

// Shared by commands that read objects: the -f flag and its companions, and --kubeconfig/--context
// to read a live cluster instead.
std::vector<FlagSpec> InputFlags();
// Reads the -f sources named in `flags`, or with --kubeconfig/--context the cluster's DRA objects
// (DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates, DeviceTaintRules, Pods,
// Nodes). Prints every problem to io.err; returns nullopt (after printing) when the input is
// unusable. Objects that failed to decode are reported and, unless `keep_failed`, make the call fail
// too.
std::optional<std::vector<InputObject>> LoadInputs(const Flags& flags, Io io, bool strict, bool keep_failed = false);

// The same as LoadInputs through the C ABI: the objects of -f, or of the cluster with
// --kubeconfig/--context. Prints every problem to io.err; nullopt (after printing) when unusable.
std::optional<Inputs> LoadObjects(const Flags& flags, Io io, bool strict, bool keep_failed = false);

// What LoadCluster read: the objects (in input order) in a store, and its snapshot.
struct ClusterInputs {
  Inputs inputs;
  draforge::Cluster cluster;
  draforge::Snapshot snapshot;
};
// LoadObjects (not strict) applied to a new store, as LoadIntoCluster does (also the implicit
// cluster without -f). Prints the problem and returns nullopt when the input is unusable.
std::optional<ClusterInputs> LoadCluster(const Flags& flags, Io io);

// LoadInputs (not strict) and ApplyAll into `cluster`; prints the problem and returns nullopt when the
// input is unusable. The inputs are returned for commands that need the file order. Without -f,
// --kubeconfig or --context it reads the cluster kubectl would use: $KUBECONFIG, ~/.kube/config,
// then the in-cluster service account.
std::optional<std::vector<InputObject>> LoadIntoCluster(const Flags& flags, Io io, store::Cluster& cluster);

// The cluster configuration for --kubeconfig/--context in kubectl's order (--kubeconfig, the first
// existing file of $KUBECONFIG, ~/.kube/config, in-cluster). Prints the problem and returns nullopt
// when it cannot be loaded; *none_found (may be null) tells "nothing configured" apart.
std::optional<kube::RestConfig> ClusterConfig(const Flags& flags, Io io, bool* none_found = nullptr);

// Parses flags, or prints the error (exit_code 2) or the help (--help, exit_code 0) and returns nullopt.
std::optional<Flags> ParseOrUsage(const Args& args, std::vector<FlagSpec> specs, const std::string& usage, Io io,
                                  int& exit_code);

// The value of -o/--output in `flags` (`fallback` when not given) if it is one of `formats`;
// otherwise prints `error: --output: unknown format "X" (a, b)` (the formats in the order given)
// and returns nullopt: the caller exits with kExitBadInput.
std::optional<std::string> OutputFormat(const Flags& flags, const std::string& fallback,
                                        const std::vector<std::string>& formats, Io io);

}  // namespace draforge::cli

#endif  // DRAFORGE_EXAMPLES_CLI_COMMANDS_H_
