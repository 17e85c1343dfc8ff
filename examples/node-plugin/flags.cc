#include "flags.h"

#include <cstdint>
#include <cstdlib>
#include <optional>

#include "inline_value.h"

namespace draforge::node_plugin {

const char kUsage[] = R"(draforge-node-plugin: a kubelet DRA driver. It registers with kubelet (plugin registration v1) and
answers its DRAPlugin calls (dra v1 and v1beta1) by writing the CDI specs of the claims allocated on
this node (docs/node-plugin.md).

Usage: draforge-node-plugin --driver NAME [flags]     (each flag as --flag VALUE or --flag=VALUE)
  --driver NAME            the DRA driver name it serves (required), e.g. gpu.example.com
  --mode demo|node         demo (default): everything under --root, nothing else on the host is touched;
                           node: kubelet's directories, and the CDI dir is kept equal to the claims
                           allocated on --node
  --node NAME              this node (required in node mode; demo default node-1)
  --kubeconfig PATH        claims come from this API server (default: $KUBECONFIG, ~/.kube/config,
                           in-cluster)
  --scenario FILE          demo mode without a cluster: claims and slices from this file (default: the
                           embedded demo scenario, examples/scenarios/demo.yaml)
  --cdi-dir DIR            where CDI specs are written (node default /var/run/cdi)
  --registration-dir DIR   kubelet's plugins_registry (node default /var/lib/kubelet/plugins_registry)
  --plugin-dir DIR         where the DRA socket lives (node default /var/lib/kubelet/plugins/<driver>)
  --state-dir DIR          where checkpoint.json lives (default: the plugin dir)
  --root DIR               demo mode: every directory above defaults under it
                           (default ${TMPDIR:-/tmp}/draforge-node-plugin)
  --instance-uid UID       this instance's id in the socket names (default: random; a DaemonSet passes
                           the pod UID), so that a new instance registers beside the old one
  --listen HOST:PORT       /healthz, /readyz, /metrics (default 127.0.0.1:9092; port 0: any free port,
                           printed on stderr as "listening on http://HOST:PORT")
  --resync DURATION        node mode: period of the full resync of the CDI dir (default 30s)
  --version                print "draforge-node-plugin VERSION" (libdraforge's version) and exit
  --help                   this text
Sockets: <registration-dir>/<driver>-<uid>-reg.sock and <plugin-dir>/dra-<uid>.sock; both are removed at
SIGTERM/SIGINT.)";

namespace {

// Driver names are DNS subdomains (ResourceSlice spec.driver); they also become file names here.
bool IsDnsSubdomain(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  if (s.front() == '-' || s.front() == '.' || s.back() == '-' || s.back() == '.') return false;
  return s.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") == std::string::npos;
}

// An instance UID becomes part of two socket file names.
bool IsFileNamePart(const std::string& s) {
  return !s.empty() && s.size() <= 64 &&
         s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") ==
             std::string::npos &&
         s != "." && s != "..";
}

// "HOST:PORT" with HOST an IP literal ("[::1]" for IPv6) and PORT 0-65535.
bool ParseListen(const std::string& text, std::string& host, int& port) {
  size_t colon;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') return false;
    host = text.substr(1, close - 1);
    colon = close + 1;
  } else {
    colon = text.rfind(':');
    if (colon == std::string::npos) return false;
    host = text.substr(0, colon);
    if (host.find(':') != std::string::npos) return false;  // IPv6 needs its brackets
  }
  const std::string p = text.substr(colon + 1);
  if (host.empty() || p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  port = std::atoi(p.c_str());
  return port <= 65535;
}

}  // namespace

bool ParseDuration(const std::string& text, std::chrono::seconds& out) {
  if (text.empty()) return false;
  int64_t total = 0;
  size_t i = 0;
  const std::string t = text.find_first_not_of("0123456789") == std::string::npos ? text + "s" : text;
  while (i < t.size()) {
    const size_t digits_end = t.find_first_not_of("0123456789", i);
    if (digits_end == i || digits_end == std::string::npos || digits_end - i > 9) return false;
    const int64_t n = std::atoll(t.substr(i, digits_end - i).c_str());
    const char unit = t[digits_end];
    const int64_t scale = unit == 'h' ? 3600 : unit == 'm' ? 60 : unit == 's' ? 1 : 0;
    if (scale == 0) return false;
    total += n * scale;
    i = digits_end + 1;
  }
  if (total <= 0) return false;
  out = std::chrono::seconds(total);
  return true;
}

std::string ParseFlags(int argc, const char* const* argv, Flags& f) {
  std::optional<std::string> mode;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    const std::optional<std::string> inline_value = flags::TakeInlineValue(a);
    std::string v;
    const bool takes_value = a != "--help" && a != "-h" && a != "--version";
    if (takes_value) {
      if (inline_value) {
        v = *inline_value;
      } else if (i + 1 < argc) {
        v = argv[++i];
      } else {
        return "flag " + a + " needs a value";
      }
    } else if (inline_value) {
      return "flag " + a + " takes no value";
    }
    auto directory = [&](std::string& out) {
      if (v.empty()) return "flag " + a + " needs a directory, not \"\"";
      out = v;
      return std::string();
    };
    std::string error;
    if (a == "--version") {
      f.version = true;
    } else if (!takes_value) {
      f.help = true;
    } else if (a == "--driver") {
      if (!IsDnsSubdomain(v)) {
        return "flag --driver: \"" + v + "\" is not a DNS subdomain (lowercase letters, digits, '-' and '.')";
      }
      f.driver = v;
    } else if (a == "--mode") {
      if (v != "demo" && v != "node") return "flag --mode: \"" + v + "\" is neither demo nor node";
      mode = v;
    } else if (a == "--node") {
      if (v.empty()) return "flag --node needs a node name, not \"\"";
      f.node = v;
    } else if (a == "--kubeconfig") {
      f.kubeconfig = v;
    } else if (a == "--scenario") {
      f.scenario = v;
    } else if (a == "--cdi-dir") {
      error = directory(f.cdi_dir);
    } else if (a == "--registration-dir") {
      error = directory(f.registration_dir);
    } else if (a == "--plugin-dir") {
      error = directory(f.plugin_dir);
    } else if (a == "--state-dir") {
      error = directory(f.state_dir);
    } else if (a == "--root") {
      error = directory(f.root);
    } else if (a == "--instance-uid") {
      if (!IsFileNamePart(v)) {
        return "flag --instance-uid: \"" + v + "\" must be 1-64 letters, digits, '-', '_' or '.' (it names sockets)";
      }
      f.instance_uid = v;
    } else if (a == "--listen") {
      if (!ParseListen(v, f.listen_host, f.listen_port)) {
        return "flag --listen: \"" + v + "\" is not HOST:PORT (an IP address, [v6] in brackets, port 0-65535)";
      }
    } else if (a == "--resync") {
      if (!ParseDuration(v, f.resync)) {
        return "flag --resync: \"" + v + "\" is not a positive duration (e.g. 30s, 2m, 1h)";
      }
    } else {
      return "unknown flag \"" + a + "\"";
    }
    if (!error.empty()) return error;
  }
  if (f.help || f.version) return "";
  f.node_mode = mode == "node";
  if (f.driver.empty()) return "flag --driver is required (the DRA driver name, e.g. gpu.example.com)";
  if (f.node_mode && f.node.empty()) return "flag --node is required in node mode";
  if (f.node_mode && !f.scenario.empty()) return "flag --scenario is for demo mode only; node mode reads the API server";
  if (f.node_mode && !f.root.empty()) return "flag --root is for demo mode only; node mode uses kubelet's directories";
  if (!f.scenario.empty() && !f.kubeconfig.empty()) {
    return "flags --scenario and --kubeconfig exclude each other: claims come from a file or from an API server";
  }
  return "";
}

void ApplyDefaults(Flags& f, const std::string& tmpdir) {
  auto set = [](std::string& field, const std::string& value) {
    if (field.empty()) field = value;
  };
  if (f.node_mode) {
    set(f.cdi_dir, "/var/run/cdi");
    set(f.registration_dir, "/var/lib/kubelet/plugins_registry");
    set(f.plugin_dir, "/var/lib/kubelet/plugins/" + f.driver);
  } else {
    set(f.node, "node-1");
    set(f.root, (tmpdir.empty() ? std::string("/tmp") : tmpdir) + "/draforge-node-plugin");
    set(f.cdi_dir, f.root + "/cdi");
    set(f.registration_dir, f.root + "/plugins_registry");
    set(f.plugin_dir, f.root + "/plugins/" + f.driver);
  }
  set(f.state_dir, f.plugin_dir);
}

}  // namespace draforge::node_plugin
