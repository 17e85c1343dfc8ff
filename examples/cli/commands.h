// The draforge CLI's commands. Each takes its arguments (after the command name) and returns the
// process exit status: 0 success, 1 unschedulable (allocate, place, whatif replay) or drift found (cdi audit), 2 bad input or usage, 3 error.
#ifndef DRAFORGE_EXAMPLES_CLI_COMMANDS_H_
#define DRAFORGE_EXAMPLES_CLI_COMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

#include "flags.h"
#include "input.h"

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
int RunWhatif(const Args& args, Io io);
int RunWhatifGang(const Args& args, Io io);  // `whatif gang` (cmd_whatif_gang.cc)
extern const char kWhatifGangUsage[];
int RunWhatifFragmentation(const Args& args, Io io);  // cmd_whatif_fragmentation.cc
const char* WhatifFragmentationUsage();
int RunWhatifPreempt(const Args& args, Io io);  // cmd_whatif_preempt.cc
int RunPackage(const Args& args, Io io);
int RunCel(const Args& args, Io io);
int RunCdi(const Args& args, Io io);
int RunDump(const Args& args, Io io);
int RunSim(const Args& args, Io io);
int RunFault(const Args& args, Io io);
int RunScenario(const Args& args, Io io);

// Shared by commands that read objects: the -f flag and its companions, and --kubeconfig/--context
// to read a live cluster instead.
std::vector<FlagSpec> InputFlags();
// Reads the -f sources named in `flags` through the C ABI, or with --kubeconfig/--context the
// cluster's DRA objects (DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates,
// DeviceTaintRules, Pods, Nodes). Prints every problem to io.err; returns nullopt (after printing)
// when the input is unusable. Objects that failed to decode are reported and, unless `keep_failed`,
// make the call fail too.
std::optional<Inputs> LoadObjects(const Flags& flags, Io io, bool strict, bool keep_failed = false);

// What LoadCluster read: the objects (in input order) in a store, and its snapshot.
struct ClusterInputs {
  Inputs inputs;
  draforge::Cluster cluster;
  draforge::Snapshot snapshot;
};
// LoadObjects (not strict) applied to a new store. Without -f, --kubeconfig or --context it reads the
// cluster kubectl would use: $KUBECONFIG, ~/.kube/config, then the in-cluster service account.
// Prints the problem and returns nullopt when the input is unusable.
std::optional<ClusterInputs> LoadCluster(const Flags& flags, Io io);

// Checks the --feature-gates text `gates` through the C ABI; prints "error: --feature-gates: ..."
// (without the ABI's "feature_gates: " field prefix) and returns false when it is invalid.
// Also checks --kubernetes-version ("" : 1.37), whose gates --feature-gates are checked against.
bool CheckFeatureGates(const std::string& gates, Io io, const std::string& kubernetes_version = "");
// The --kubernetes-version flag spec of the commands that take --feature-gates.
FlagSpec KubernetesVersionFlag();
// Without --kubernetes-version (`kubernetes_version` empty), objects read from a cluster make the
// cluster's version (its /version gitVersion) the one to reproduce, when DRAForge supports it (else
// a warning and the default); --feature-gates is checked again against it. False (printed) when the
// gates are invalid for that version.
bool ResolveKubernetesVersion(const Inputs& inputs, const std::string& gates, std::string& kubernetes_version,
                              Io io);
// The allocation commands' common start: --feature-gates and --kubernetes-version into `options`
// (checked), LoadCluster, then the version a cluster reports (ResolveKubernetesVersion). Prints
// the problem and returns nullopt when any step fails.
std::optional<ClusterInputs> LoadClusterForAllocation(const Flags& flags, Io io, draforge::AllocateOptions& options);

// A client of the cluster --kubeconfig/--context name, by client-go's rules (kube.h: --kubeconfig,
// $KUBECONFIG merged, ~/.kube/config, in-cluster) with this process's environment. Prints the problem
// and returns nullopt when there is none; *none_found (may be null) tells "nothing configured" apart
// (then nothing is printed).
std::optional<draforge::KubeClient> ClusterClient(const Flags& flags, Io io, bool* none_found = nullptr);

// The DRA objects, Pods and Nodes of a cluster (draforge_kube_list_cluster_state), and what was
// skipped because it did not decode.
struct ClusterState {
  draforge::Objects objects;
  std::vector<std::string> skipped;
};
// Lists them (`namespace_` "": every namespace); prints "error: <source>: ..." and returns nullopt
// on failure.
std::optional<ClusterState> ListClusterState(const draforge::KubeClient& client, const std::string& namespace_,
                                             const std::string& source, Io io);

// Parses flags, or prints the error (exit_code 2) or the help (--help, exit_code 0) and returns nullopt.
std::optional<Flags> ParseOrUsage(const Args& args, std::vector<FlagSpec> specs, const std::string& usage, Io io,
                                  int& exit_code);

// The value of -o/--output in `flags` (`fallback` when not given) if it is one of `formats`;
// otherwise prints `error: --output: unknown format "X" (a, b)` (the formats in the order given)
// and returns nullopt: the caller exits with kExitBadInput.
std::optional<std::string> OutputFormat(const Flags& flags, const std::string& fallback,
                                        const std::vector<std::string>& formats, Io io);

// A whatif command's flags: `specs` (InputFlags() and the command's own) plus --feature-gates,
// --kubernetes-version and -o table|json|yaml (in `format`), no positional argument. nullopt after
// printing the problem or the help, with `exit_code` set (cmd_whatif.cc).
std::optional<Flags> ParseWhatifFlags(const Args& args, std::vector<FlagSpec> specs, const std::string& usage, Io io,
                                      int& exit_code, std::optional<std::string>& format);

}  // namespace draforge::cli

#endif  // DRAFORGE_EXAMPLES_CLI_COMMANDS_H_
