// kube::Client: REST calls to one API server over libcurl (HTTP/1.1 or HTTP/2, TLS).
//
// The client speaks JSON: objects go in and come out as rapidjson documents, so it works for every
// kind (api::DecodeObject turns them into typed objects). Failed requests return an absl::Status
// carrying the server's metav1.Status (api_status.h). Requests time out after RestConfig::timeout.
//
// Retries follow client-go (rest/with_retry.go): a 429 or 5xx answer is retried, for every verb,
// only when it carries Retry-After, the API server's statement that it turned the request away
// unprocessed (API Priority and Fairness, max-in-flight, shutting down); the wait is the larger of
// Retry-After and an exponential backoff, plus up to 50% jitter, at most RetryPolicy::max_delay. A
// 5xx without Retry-After (a 504 Timeout "may still be processing", a 500 after the write) is never
// retried: the write may have happened. Connection failures are retried for GET only (a POST may
// have reached the server). After the last attempt the caller gets the last answer's status.
//
// Deadlines: every call may carry an absolute deadline (Request::deadline, GetOptions::deadline,
// ListOptions::deadline, WriteOptions::deadline, DeleteOptions::deadline; default: none). No attempt starts at or past it
// (a call whose deadline has passed is not sent at all: DeadlineExceeded), each attempt's timeout
// is the smaller of RestConfig::timeout and the time left, and a retry whose wait would end past it
// is not made (the caller gets the last answer). A leader passes LeaderElector::LeadershipDeadline()
// so that none of its writes is sent after its lease may have passed to another candidate.
//
// Thread-safety: every method may be called from any number of threads at once. Cancel() makes
// every in-flight and later watch return promptly (requests finish within their timeout).
#ifndef DRAFORGE_KUBE_CLIENT_H_
#define DRAFORGE_KUBE_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kube/config.h"
#include "kube/log.h"
#include "kube/resource.h"
#include "rapidjson/document.h"

namespace draforge::kube {

namespace internal {
class Transport;
}  // namespace internal

// How often and how long a request is repeated when the server says "retry" (see above).
struct RetryPolicy {
  int max_attempts = 5;  // including the first; 1 disables retries
  absl::Duration initial_delay = absl::Milliseconds(200);
  absl::Duration max_delay = absl::Seconds(10);  // also caps Retry-After
};

struct ClientOptions {
  RetryPolicy retry;
  LogFunction log;  // debug lines per request and retry; may be empty
  // How the client waits between retries; empty: absl::SleepFor. Tests record the waits instead of
  // measuring them.
  std::function<void(absl::Duration)> sleep;
  // The largest answer read into memory (one request, so one page of a List); more ends the request
  // with ResourceExhausted, so a broken or hostile server cannot make the client allocate without
  // end. etcd refuses objects over 1.5 MiB (--max-request-bytes), and an object's JSON is about that
  // size at most, so 256 MiB holds a page of the default 500 objects averaging 512 KiB (DRA objects
  // are far smaller: a ResourceSlice of 128 devices is tens of KiB). A page that is larger is
  // refused with a message that says to ask for smaller pages (ListOptions::limit).
  uint64_t max_response_bytes = uint64_t{256} << 20;
  // The largest single watch event (one line of the stream). An event carries one object (at most
  // 1.5 MiB in etcd); 16 MiB leaves room for JSON's growth over etcd's encoding and for the event
  // envelope, and bounds what a stream that never sends a newline can make the client buffer.
  uint64_t max_watch_event_bytes = uint64_t{16} << 20;
};

// A raw request (for paths the typed methods do not cover, e.g. /version or /apis).
struct Request {
  std::string method = "GET";
  std::string path;  // starts with "/"; may carry a query string
  std::string body;
  std::string content_type;  // defaults to application/json when there is a body
  absl::Time deadline = absl::InfiniteFuture();  // see "Deadlines" above
};

struct Response {
  long code = 0;  // NOLINT(runtime/int): libcurl's type
  std::string body;
  std::string content_type;
  int retry_after_seconds = -1;  // -1: no Retry-After header
  std::vector<std::string> warnings;  // Warning headers (deprecated API versions, ...)
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 500;  // page size; 0: no pagination
  // "" (a consistent read from etcd), "0" (any, from the watch cache), or a version with
  // resource_version_match.
  std::string resource_version;
  std::string resource_version_match;  // "", NotOlderThan, Exact
  // Applies to every page: no page is requested at or past it (see "Deadlines" above).
  absl::Time deadline = absl::InfiniteFuture();
};

// A complete list: every page joined.
struct ListResult {
  // {"apiVersion","kind","metadata":{"resourceVersion"},"items":[...]}: the items of every page.
  rapidjson::Document list;
  std::string resource_version;  // of the list (the first page's snapshot)
  int pages = 0;
};

enum class PatchType {
  kJsonMerge,       // application/merge-patch+json
  kStrategicMerge,  // application/strategic-merge-patch+json (built-in types only)
  kApply,           // application/apply-patch+yaml: server-side apply, needs field_manager
  kJson,            // application/json-patch+json
};

struct WriteOptions {
  std::string field_manager;  // required for kApply
  bool force = false;         // server-side apply: take conflicting fields
  bool dry_run = false;       // dryRun=All
  std::string subresource;    // "status" for the status subresource
  absl::Time deadline = absl::InfiniteFuture();  // see "Deadlines" above
};

struct GetOptions {
  std::string subresource;
  absl::Time deadline = absl::InfiniteFuture();  // see "Deadlines" above
};

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;             // Foreground, Background, Orphan
  std::string precondition_uid;               // preconditions.uid
  std::string precondition_resource_version;  // preconditions.resourceVersion
  absl::Time deadline = absl::InfiniteFuture();  // see "Deadlines" above
};

struct WatchOptions {
  std::string resource_version;  // where to start; "" = from "now" after a synthetic list
  bool allow_bookmarks = true;
  int timeout_seconds = 300;  // server-side end of the watch (the stream then ends cleanly)
  std::string label_selector;
  std::string field_selector;
  bool send_initial_events = false;  // watch-list (needs resource_version_match=NotOlderThan)
  // Called once the server has accepted the watch (its 200 answer's headers are in), before any
  // event; a quiet watch may then carry no event for minutes.
  std::function<void()> on_open;
};

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK (ERROR events end the watch with an error)
  rapidjson::Document object;
};

// The resource.k8s.io (or another group's) versions the server offers.
struct GroupVersions {
  std::vector<std::string> versions;  // as the server lists them (preferred first, usually)
  std::string preferred;
};

class Client {
 public:
  // Errors: InvalidArgument when config.server is not an http(s) URL, or a size limit of `options`
  // is 0.
  static absl::StatusOr<std::unique_ptr<Client>> Create(RestConfig config, ClientOptions options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const RestConfig& config() const { return config_; }

  // One HTTP exchange with retries (the policy above); any HTTP status is a Response (after the
  // retry budget: the last one), transport failures are Unavailable/DeadlineExceeded errors (also
  // when request.deadline has passed before an attempt could start), an answer over
  // ClientOptions::max_response_bytes is ResourceExhausted. Use the typed methods for API errors as
  // statuses.
  absl::StatusOr<Response> Do(const Request& request);

  // GET of one object. Errors: the server's (NotFound, Forbidden, ...) as ApiStatus-carrying statuses.
  absl::StatusOr<rapidjson::Document> Get(const Resource& resource, std::string_view ns, std::string_view name,
                                          std::string_view subresource = {});
  absl::StatusOr<rapidjson::Document> Get(const Resource& resource, std::string_view ns, std::string_view name,
                                          const GetOptions& options);
  // Every item, following `continue` tokens page by page. A token that expired mid-list (410) is an
  // error: the caller relists from the start.
  absl::StatusOr<ListResult> List(const Resource& resource, std::string_view ns, const ListOptions& options = {});
  // POST. `ns` overrides the object's metadata.namespace when non-empty.
  absl::StatusOr<rapidjson::Document> Create(const Resource& resource, std::string_view ns,
                                             const rapidjson::Value& object, const WriteOptions& options = {});
  // PUT of the whole object (optimistic concurrency: a stale metadata.resourceVersion is a 409
  // Conflict, see IsApiConflict). options.subresource "status" updates the status subresource.
  absl::StatusOr<rapidjson::Document> Update(const Resource& resource, std::string_view ns,
                                             const rapidjson::Value& object, const WriteOptions& options = {});
  // PATCH with `patch` (JSON for every type but kApply, which also accepts JSON since JSON is YAML).
  // Errors: InvalidArgument for kApply without field_manager.
  absl::StatusOr<rapidjson::Document> Patch(const Resource& resource, std::string_view ns, std::string_view name,
                                            PatchType type, std::string_view patch, const WriteOptions& options = {});
  // DELETE; returns the server's answer (the object being deleted, or a Status).
  absl::StatusOr<rapidjson::Document> Delete(const Resource& resource, std::string_view ns, std::string_view name,
                                             const DeleteOptions& options = {});

  // Streams a watch, calling `on_event` for every event in order until the server ends the stream
  // (OK), `on_event` returns false (OK), Cancel() is called or `*stop` becomes true (Cancelled), or
  // an error: an ERROR event (its Status, e.g. 410 Gone: IsApiGone), a non-200 answer, a malformed
  // event (DataLoss), an event longer than ClientOptions::max_watch_event_bytes (ResourceExhausted,
  // naming the watch), or a broken connection (Unavailable). `stop` may be null.
  absl::Status Watch(const Resource& resource, std::string_view ns, const WatchOptions& options,
                     const std::function<bool(WatchEvent&)>& on_event, const std::atomic<bool>* stop = nullptr);

  // GET /apis/<group>: the versions served. Errors: NotFound when the server does not serve the group.
  absl::StatusOr<GroupVersions> DiscoverGroup(std::string_view group);
  // The newest of `supported` (in order of preference) that the server serves for `group`, e.g.
  // PreferredVersion("resource.k8s.io", {"v1", "v1beta2", "v1beta1"}). Errors: NotFound when none.
  absl::StatusOr<std::string> PreferredVersion(std::string_view group, const std::vector<std::string>& supported);
  // GET /version: gitVersion ("v1.37.2").
  absl::StatusOr<std::string> ServerVersion();

  // Makes running and future watches return Cancelled; irreversible.
  void Cancel() { cancelled_.store(true); }

 private:
  Client(RestConfig config, ClientOptions options);
  absl::StatusOr<Response> DoOnce(const Request& request, absl::Duration timeout);
  absl::StatusOr<rapidjson::Document> Expect(absl::StatusOr<Response> response, std::string_view method,
                                             std::string_view context);

  const RestConfig config_;
  const ClientOptions options_;
  std::unique_ptr<internal::Transport> transport_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace draforge::kube

#endif  // DRAFORGE_KUBE_CLIENT_H_
