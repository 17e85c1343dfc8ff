// Fuzz target for lib/kube/kubeconfig.cc: ParseKubeconfig must never crash on any text, and a
// configuration it accepts must be one Client::Create can use: an http(s) server without a trailing
// slash, a client certificate only with its key, an exec plugin only with a supported apiVersion
// and a command.
//
// Relative file references (certificate-authority, client-key, tokenFile) resolve against a folder
// that does not exist, so the fuzzer reads no file through them. Absolute paths are read as they
// are: inputs naming the kernel's endless files are skipped, so that /dev/zero is not reported as an
// out-of-memory crash of the parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/strings/match.h"
#include "kube/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256 * 1024) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (std::string_view endless : {"/dev", "/proc", "/sys"}) {
    if (text.find(endless) != std::string_view::npos) return 0;
  }
  auto config = draforge::kube::ParseKubeconfig(text, "/nonexistent-draforge-fuzz");
  if (!config.ok()) {
    if (config.status().message().empty()) __builtin_trap();
    return 0;
  }
  const draforge::kube::RestConfig& c = *config;
  if (!absl::StartsWith(c.server, "https://") && !absl::StartsWith(c.server, "http://")) __builtin_trap();
  if (absl::EndsWith(c.server, "/")) __builtin_trap();
  if (c.client_certificate_pem.empty() != c.client_key_pem.empty()) __builtin_trap();
  if (c.default_namespace.empty() || c.context_name.empty()) __builtin_trap();
  if (c.exec) {
    if (c.exec->command.empty()) __builtin_trap();
    if (c.exec->api_version != "client.authentication.k8s.io/v1" &&
        c.exec->api_version != "client.authentication.k8s.io/v1beta1") {
      __builtin_trap();
    }
  }
  return 0;
}
