// Client::Watch: the streaming half of the client. The API server sends one JSON object per event,
// each followed by a newline, in a chunked response; chunk boundaries fall anywhere, so bytes are
// buffered until a full line is there, up to ClientOptions::max_watch_event_bytes.
#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "common/status.h"
#include "kube/api_status.h"
#include "kube/client.h"
#include "kube/internal/query.h"
#include "kube/internal/transport.h"

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
  std::string buffer;
  absl::Status stream_error;
  bool consumer_stopped = false;

  auto handle_line = [&](std::string_view line) -> bool {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
    auto doc = api::ParseJson(line, /*check_duplicate_keys=*/false);
    if (!doc.ok() || !doc->IsObject()) {
      stream_error = absl::DataLossError(absl::StrCat(context, ": malformed watch event: ",
                                                      doc.ok() ? "not an object" : doc.status().message()));
      return false;
    }
    auto type = doc->FindMember("type");
    auto object = doc->FindMember("object");
    if (type == doc->MemberEnd() || !type->value.IsString() || object == doc->MemberEnd()) {
      stream_error = absl::DataLossError(absl::StrCat(context, ": watch event without type or object"));
      return false;
    }
    WatchEvent event;
    event.type = type->value.GetString();
    if (event.type == "ERROR") {
      std::optional<ApiStatus> status = ParseApiStatus(api::WriteJson(object->value, false));
      if (!status) {
        status = ApiStatus{};
        status->code = 500;
        status->message = "ERROR watch event without a Status";
      }
      stream_error = ApiError(*status, context);
      return false;
    }
    event.object.CopyFrom(object->value, event.object.GetAllocator());
    if (!on_event(event)) {
      consumer_stopped = true;
      return false;
    }
    return true;
  };

  internal::HttpCall call;
  call.method = "GET";
  call.path = resource.CollectionPath(ns) + q;
  // The server ends the watch after timeoutSeconds; allow a margin before calling it a hang.
  call.timeout = options.timeout_seconds > 0 ? absl::Seconds(options.timeout_seconds + 30) : absl::InfiniteDuration();
  call.cancelled = [&] { return cancelled_.load() || (stop != nullptr && stop->load()); };
  call.max_body_bytes = options_.max_response_bytes;  // an error answer is buffered whole
  const uint64_t max_event = options_.max_watch_event_bytes;
  auto too_large = [&] {
    stream_error = absl::ResourceExhaustedError(
        absl::StrCat(context, ": a watch event exceeds ", max_event, " bytes (ClientOptions::max_watch_event_bytes)"));
    return false;
  };
  call.on_data = [&](std::string_view chunk) -> bool {
    buffer.append(chunk);
    size_t start = 0;
    for (size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (nl - start > max_event) return too_large();
      if (!handle_line(std::string_view(buffer).substr(start, nl - start))) return false;
    }
    buffer.erase(0, start);
    // An event still incomplete: the buffer never holds more than one event's worth.
    if (buffer.size() > max_event) return too_large();
    return true;
  };
  absl::StatusOr<Response> response = transport_->Perform(call);
  if (consumer_stopped) return absl::OkStatus();
  if (!stream_error.ok()) return stream_error;
  if (!response.ok()) {
    if (absl::IsCancelled(response.status())) return absl::CancelledError(absl::StrCat(context, ": stopped"));
    return absl::Status(response.status().code(), absl::StrCat(context, ": ", response.status().message()));
  }
  if (response->code != 200) {
    return Expect(std::move(response), "GET", context).status();
  }
  // A last event without a trailing newline.
  if (!buffer.empty() && !handle_line(buffer)) {
    return consumer_stopped ? absl::OkStatus() : stream_error;
  }
  return absl::OkStatus();
}

}  // namespace draforge::kube
