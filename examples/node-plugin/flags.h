// draforge-node-plugin's command line (docs/node-plugin.md): parsing, and the directories each mode
// defaults to.
#ifndef DRAFORGE_EXAMPLES_NODE_PLUGIN_FLAGS_H_
#define DRAFORGE_EXAMPLES_NODE_PLUGIN_FLAGS_H_

#include <chrono>
#include <string>

namespace draforge::node_plugin {

extern const char kUsage[];

struct Flags {
  std::string driver;
  bool node_mode = false;  // --mode node; the default is demo
  std::string node;
  std::string kubeconfig, scenario;
  std::string cdi_dir, registration_dir, plugin_dir, state_dir, root;
  std::string instance_uid;
  std::string listen_host = "127.0.0.1";
  int listen_port = 9092;
  std::chrono::seconds resync{30};
  bool help = false;
  bool version = false;  // --version: print the name and libdraforge's version, nothing else
};

// Reads argv (each flag as --flag VALUE or --flag=VALUE, what Kubernetes manifests usually write)
// into `f`. Returns "" or the error, naming the flag: an unknown flag, a missing or bad value, a
// value given to --help, a flag that the mode does not take (--scenario or --root in node mode),
// --scenario with --kubeconfig, --driver or (node mode) --node missing. --help sets f.help and
// --version f.version; either skips the checks of what is required.
std::string ParseFlags(int argc, const char* const* argv, Flags& f);

// Fills what was not given, by mode (docs/node-plugin.md, "Flags"): demo mode puts every directory
// under --root (default `tmpdir`/draforge-node-plugin, `tmpdir` being $TMPDIR or /tmp) and the node
// name node-1; node mode uses kubelet's directories. The state dir defaults to the plugin dir.
void ApplyDefaults(Flags& f, const std::string& tmpdir);

// A Go-style duration of whole seconds: "30s", "2m", "1h30m", or a bare number of seconds.
// False for anything else, and for zero.
bool ParseDuration(const std::string& text, std::chrono::seconds& out);

}  // namespace draforge::node_plugin

#endif  // DRAFORGE_EXAMPLES_NODE_PLUGIN_FLAGS_H_
