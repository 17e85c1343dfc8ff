// Runs a client.authentication.k8s.io exec credential plugin and parses its ExecCredential.
#ifndef DRAFORGE_KUBE_INTERNAL_EXEC_CREDENTIAL_H_
#define DRAFORGE_KUBE_INTERNAL_EXEC_CREDENTIAL_H_

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

// Runs `config.exec` with config.exec_environment + exec.env + KUBERNETES_EXEC_INFO, stdin from
// /dev/null, and parses stdout. Errors: FailedPrecondition when the command cannot be started (with
// the install hint), Internal when it exits non-zero (with the tail of its stderr), the parse errors.
absl::StatusOr<ExecCredential> RunExecPlugin(const RestConfig& config);

}  // namespace draforge::kube::internal

#endif  // DRAFORGE_KUBE_INTERNAL_EXEC_CREDENTIAL_H_
