// kube::ApiStatus: the metav1.Status an API server returns with a failed request, carried inside
// the absl::Status that lib/kube returns, so callers see the server's reason, message and field
// causes, and can branch on them (IsConflict, IsGone, ...).
#ifndef DRAFORGE_KUBE_API_STATUS_H_
#define DRAFORGE_KUBE_API_STATUS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace draforge::kube {

struct StatusCause {
  std::string reason;  // FieldValueInvalid, FieldValueRequired, ...
  std::string message;
  std::string field;  // "spec.devices[0].name"
  friend bool operator==(const StatusCause&, const StatusCause&) = default;
};

struct ApiStatus {
  int code = 0;        // HTTP status code
  std::string reason;  // Conflict, AlreadyExists, NotFound, Forbidden, Invalid, Expired, Gone, ...
  std::string message;
  // details
  std::string name;
  std::string group;
  std::string kind;  // the resource ("resourceclaims") as the server reports it
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;
  friend bool operator==(const ApiStatus&, const ApiStatus&) = default;
};

// Parses a metav1.Status JSON body; nullopt when `body` is not a Status object.
std::optional<ApiStatus> ParseApiStatus(std::string_view body);

// The ApiStatus for an error answer whose body is not a metav1.Status, built as client-go builds it
// (apimachinery errors.NewGenericServerResponse): API Priority and Fairness rejects with a plain-text
// 429, a proxy answers 502 with HTML. `code` is the HTTP status, `method` the request's verb (a 409
// to a POST is AlreadyExists, otherwise Conflict). The reason follows the code (400 BadRequest, 401
// Unauthorized, 403 Forbidden, 404 NotFound, 405 MethodNotAllowed, 406 NotAcceptable, 415
// UnsupportedMediaType, 422 Invalid, 429 TooManyRequests, 503 ServiceUnavailable, 504 Timeout, other
// 5xx InternalError, anything else Unknown); the message is client-go's sentence for the code
// followed by the body (trimmed, at most 500 bytes); the body is also kept as a cause of reason
// UnexpectedServerResponse. retry_after_seconds is the Retry-After header (0 when absent).
ApiStatus GenericServerResponse(int code, std::string_view method, std::string_view body, int retry_after_seconds);

// Builds the absl::Status for an API error: the code follows the HTTP status (400 InvalidArgument,
// 401 Unauthenticated, 403 PermissionDenied, 404 NotFound, 409 AlreadyExists or Aborted for a
// Conflict, 410 OutOfRange, 422 InvalidArgument, 429 ResourceExhausted, 5xx Unavailable, 504
// DeadlineExceeded); the message is `context` ("create resourceclaims default/a") plus the server's
// message and causes; the ApiStatus rides along as a payload (GetApiStatus).
absl::Status ApiError(const ApiStatus& status, std::string_view context);

// The ApiStatus carried by `status`, or nullopt (OK, or an error that did not come from the server:
// connection refused, TLS, timeouts).
std::optional<ApiStatus> GetApiStatus(const absl::Status& status);

// Classifiers (apimachinery's errors.IsConflict etc.; named IsApi* so that they never clash with
// absl::IsNotFound and friends); false for errors without an ApiStatus.
bool IsApiConflict(const absl::Status& status);       // 409 reason Conflict (stale resourceVersion)
bool IsApiAlreadyExists(const absl::Status& status);  // 409 reason AlreadyExists
bool IsApiNotFound(const absl::Status& status);        // 404
bool IsApiForbidden(const absl::Status& status);       // 403
bool IsApiGone(const absl::Status& status);            // 410 (Expired or Gone): relist
bool IsApiInvalid(const absl::Status& status);         // 422
bool IsApiTooManyRequests(const absl::Status& status);  // 429 (API Priority and Fairness, max in flight)

}  // namespace draforge::kube

#endif  // DRAFORGE_KUBE_API_STATUS_H_
