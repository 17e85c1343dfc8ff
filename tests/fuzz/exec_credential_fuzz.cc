// Fuzz target for the output of an exec credential plugin (kube::internal::ParseExecCredential):
// whatever a plugin prints must give either an error naming the plugin or a usable credential (a
// token, or a client certificate with its key). A plugin is an arbitrary program, so its stdout is
// untrusted input like a server's response.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/strings/match.h"
#include "kube/internal/exec_credential.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  draforge::kube::ExecConfig exec;
  exec.command = "fuzz-plugin";
  // Both versions a kubeconfig may ask for; the output must match the one asked for.
  for (const char* version : {"client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"}) {
    exec.api_version = version;
    auto cred = draforge::kube::internal::ParseExecCredential(text, exec);
    if (!cred.ok()) {
      if (!absl::StrContains(cred.status().message(), "exec plugin fuzz-plugin")) __builtin_trap();
      continue;
    }
    if (cred->client_certificate_pem.empty() != cred->client_key_pem.empty()) __builtin_trap();
    if (cred->token.empty() && cred->client_certificate_pem.empty()) __builtin_trap();
  }
  return 0;
}
