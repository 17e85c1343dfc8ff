// draforge-controller's command line.
#ifndef DRAFORGE_EXAMPLES_CONTROLLER_FLAGS_H_
#define DRAFORGE_EXAMPLES_CONTROLLER_FLAGS_H_

#include <cstdint>
#include <string>

namespace draforge::controller {

extern const char kUsage[];

struct Flags {
  std::string kubeconfig, context, id, lease_namespace = "default", lease_name = "draforge-sim-controller";
  std::string address = "127.0.0.1";
  int port = 8081;
  int64_t resync = 30, tick = 10, test_pause_ms = 0;
  bool allocate = true;
  bool serve_pool_status_requests = false;
};

// Flags as --flag VALUE or --flag=VALUE (what Kubernetes manifests usually write). Returns false,
// having said why on stderr, on an unknown flag, a missing or bad value, or a value given to a switch.
// --help prints the usage and exits 0; --version prints "draforge-controller VERSION" and exits 0.
bool ParseFlags(int argc, char** argv, Flags& f);

}  // namespace draforge::controller

#endif  // DRAFORGE_EXAMPLES_CONTROLLER_FLAGS_H_
