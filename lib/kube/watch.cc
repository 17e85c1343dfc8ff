// Client::Watch: the streaming half of the client. The API server sends one JSON object per event,
// each followed by a newline, in a chunked response; internal::WatchDecoder does the framing.
#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "common/status.h"
#include "kube/api_status.h"
#include "kube/client.h"
#include "kube/internal/query.h"
#include "kube/internal/transport.h"
#include "kube/internal/watch_decoder.h"

namespace draforge::kube {

absl::Status Client::Watch(const Resource& resource, std::string_view ns, const WatchOptions& options,
                           const std::function<bool(WatchEvent&)>& on_event, const std::atomic<bool>* stop) {
  std::string q;
  internal::AddParam(q, "watch", "true");
  internal::AddParam(q, "resourceVersion", options.resource_version);
  if (options.allow_bookmarks) internal::AddParam(q, "allowWatchBookmarks", "true");
  if (options.timeout_seconds > 0) internal::AddParam(q, "timeoutSeconds", absl::StrCat(options.timeout_seconds));
  internal::AddParam(q, "labelSelector", options.label_selector);
  internal::AddParam(q, "fieldSelector", options.field_selector);
  if (options.send_initial_events) {
    internal::AddParam(q, "sendInitialEvents", "true");
    internal::AddParam(q, "resourceVersionMatch", "NotOlderThan");
  }
  std::string context = absl::StrCat("watch ", resource.resource, ns.empty() ? "" : " in namespace ", AV(ns));
  internal::WatchDecoder decoder(context, on_event, options_.max_watch_event_bytes);

  internal::HttpCall call;
  call.method = "GET";
  call.path = resource.CollectionPath(ns) + q;
  // The server ends the watch after timeoutSeconds; allow a margin before calling it a hang.
  call.timeout = options.timeout_seconds > 0 ? absl::Seconds(options.timeout_seconds + 30) : absl::InfiniteDuration();
  call.cancelled = [&] { return cancelled_.load() || (stop != nullptr && stop->load()); };
  call.max_body_bytes = options_.max_response_bytes;  // an error answer is buffered whole
  call.on_data = [&](std::string_view chunk) -> bool { return decoder.Feed(chunk); };
  call.on_open = options.on_open;
  absl::StatusOr<Response> response = transport_->Perform(call);
  if (decoder.consumer_stopped()) return absl::OkStatus();
  if (!decoder.error().ok()) return decoder.error();
  if (!response.ok()) {
    if (absl::IsCancelled(response.status())) return absl::CancelledError(absl::StrCat(context, ": stopped"));
    return absl::Status(response.status().code(), absl::StrCat(context, ": ", response.status().message()));
  }
  if (response->code != 200) {
    return Expect(std::move(response), "GET", context).status();
  }
  // A last event without a trailing newline.
  if (!decoder.Finish()) return decoder.consumer_stopped() ? absl::OkStatus() : decoder.error();
  return absl::OkStatus();
}

}  // namespace draforge::kube
