// The libcurl layer under kube::Client: one easy handle per request, TLS and credentials from a
// RestConfig, streaming for watches.
#ifndef DRAFORGE_KUBE_INTERNAL_TRANSPORT_H_
#define DRAFORGE_KUBE_INTERNAL_TRANSPORT_H_

#include <atomic>
#include <functional>
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
  // Checked about every 100 ms; true aborts the transfer (Cancelled).
  std::function<bool()> cancelled;
};

class Transport {
 public:
  explicit Transport(const RestConfig& config);
  // One exchange; after a 401 with an exec plugin, refreshes the credential and tries once more.
  // Errors: Unavailable (connection failures), DeadlineExceeded (timeout), Cancelled, Unauthenticated
  // when the credential plugin fails.
  absl::StatusOr<Response> Perform(const HttpCall& call);

 private:
  absl::StatusOr<Response> PerformOnce(const HttpCall& call, const ExecCredential* cred, const std::string& token);
  absl::StatusOr<std::string> FileToken();
  absl::StatusOr<ExecCredential> ExecCred(bool refresh);

  const RestConfig& config_;
  absl::Mutex mu_;
  std::string file_token_ ABSL_GUARDED_BY(mu_);
  absl::Time file_token_read_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::optional<ExecCredential> exec_cred_ ABSL_GUARDED_BY(mu_);
};

}  // namespace draforge::kube::internal

#endif  // DRAFORGE_KUBE_INTERNAL_TRANSPORT_H_
