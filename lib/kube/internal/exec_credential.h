// Runs a client.authentication.k8s.io exec credential plugin and parses its ExecCredential.
#ifndef DRAFORGE_KUBE_INTERNAL_EXEC_CREDENTIAL_H_
#define DRAFORGE_KUBE_INTERNAL_EXEC_CREDENTIAL_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kube/config.h"

namespace draforge::kube::internal {

struct ExecCredential {
  std::string token;
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::optional<absl::Time> expiration;  // none: valid until the server answers 401
};

// Parses a plugin's stdout. Errors (InvalidArgument, naming the plugin command): not JSON, kind not
// ExecCredential, apiVersion not the requested one, no status, neither token nor certificate+key, a
// certificate without key, an unparsable expirationTimestamp.
absl::StatusOr<ExecCredential> ParseExecCredential(std::string_view output, const ExecConfig& exec);

// What a plugin may write. An ExecCredential is a few KiB (a token, or a certificate and key), so
// 1 MiB of stdout is a plugin gone wrong, refused rather than buffered. Of stderr only the tail is
// kept, for the error message: a plugin's last lines say why it failed, and a plugin that logs
// without end must not grow the caller's memory.
inline constexpr size_t kExecStdoutLimitBytes = size_t{1} << 20;
inline constexpr size_t kExecStderrTailBytes = size_t{4} << 10;

// Runs `config.exec` with config.exec_environment + exec.env + KUBERNETES_EXEC_INFO, stdin from
// /dev/null, in a process group of its own, and parses stdout. Returns by config.exec_timeout: when
// it passes, the plugin's process group is killed. Errors: FailedPrecondition when the command
// cannot be started (with the install hint), DeadlineExceeded when it did not finish in time,
// ResourceExhausted when stdout exceeds kExecStdoutLimitBytes (the group is killed too), Internal
// when it exits non-zero, the parse errors; all name the command, and end with the tail of stderr.
absl::StatusOr<ExecCredential> RunExecPlugin(const RestConfig& config);

}  // namespace draforge::kube::internal

#endif  // DRAFORGE_KUBE_INTERNAL_EXEC_CREDENTIAL_H_
