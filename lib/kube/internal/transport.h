// The libcurl layer under kube::Client: one easy handle per request, TLS and credentials from a
// RestConfig, streaming for watches.
#ifndef DRAFORGE_KUBE_INTERNAL_TRANSPORT_H_
#define DRAFORGE_KUBE_INTERNAL_TRANSPORT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/internal/exec_credential.h"

namespace draforge::kube::internal {

struct HttpCall {
  std::string method;
  std::string path;  // appended to config.server
  std::string body;
  std::string content_type;
  absl::Duration timeout = absl::Seconds(30);  // whole request; InfiniteDuration for watches
  // Streaming: called with each chunk of a 200 response body as it arrives (instead of buffering);
  // returning false aborts the transfer (Cancelled).
  std::function<bool(std::string_view chunk)> on_data;
  // Streaming: called once the headers of a 200 response are in, before any body (a watch the
  // server accepted, though no event may come for minutes).
  std::function<void()> on_open;
  // Checked about every 100 ms; true aborts the transfer (Cancelled).
  std::function<bool()> cancelled;
  // The most body bytes buffered (a whole answer, or the error answer to a streamed call); more
  // ends the transfer with ResourceExhausted. Client sets ClientOptions::max_response_bytes.
  uint64_t max_body_bytes = std::numeric_limits<uint64_t>::max();
};

// Credentials (bearer token, token file, exec plugin, basic auth) go only to https:// servers,
// unless RestConfig::allow_credentials_over_http says otherwise (see config.h for why).
bool SendsCredentials(const RestConfig& config);
// Whether `config` has credentials that SendsCredentials() keeps from its server.
bool WithholdsCredentials(const RestConfig& config);

class Transport {
 public:
  // `config` is borrowed and must outlive the Transport.
  explicit Transport(const RestConfig& config);
  // One exchange; after a 401 with an exec plugin, refreshes the credential and tries once more.
  // Errors: Unavailable (connection failures), DeadlineExceeded (timeout, or an exec plugin that
  // ran past RestConfig::exec_timeout), Cancelled, ResourceExhausted (a body over
  // call.max_body_bytes), Unauthenticated when the credential plugin fails otherwise.
  absl::StatusOr<Response> Perform(const HttpCall& call);

 private:
  // A credential and the plugin run that produced it (the first run is 1).
  struct ExecResult {
    ExecCredential cred;
    uint64_t generation = 0;
  };
  absl::StatusOr<Response> PerformOnce(const HttpCall& call, const ExecCredential* cred, const std::string& token,
                                       bool send_credentials);
  absl::StatusOr<std::string> FileToken();
  // The cached exec credential while it is valid and not of generation `rejected` (0: none
  // rejected); else runs the plugin. The plugin runs without mu_ held, so requests holding a valid
  // credential, Lease renewals among them, never wait for it; while one run is in flight other
  // callers that need a new credential wait for its result instead of starting a second plugin.
  absl::StatusOr<ExecResult> ExecCred(uint64_t rejected);

  const RestConfig& config_;
  absl::Mutex mu_;
  std::string file_token_ ABSL_GUARDED_BY(mu_);
  absl::Time file_token_read_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::optional<ExecCredential> exec_cred_ ABSL_GUARDED_BY(mu_);
  uint64_t exec_runs_ ABSL_GUARDED_BY(mu_) = 0;             // finished plugin runs
  uint64_t exec_cred_generation_ ABSL_GUARDED_BY(mu_) = 0;  // the run that produced exec_cred_
  absl::Status exec_error_ ABSL_GUARDED_BY(mu_);        // the last run's failure, OK after a success
  bool exec_running_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace draforge::kube::internal

#endif  // DRAFORGE_KUBE_INTERNAL_TRANSPORT_H_
