#include "kube/internal/watch_decoder.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "kube/api_status.h"

namespace draforge::kube::internal {

WatchDecoder::WatchDecoder(std::string context, std::function<bool(WatchEvent&)> on_event, size_t max_event_bytes)
    : context_(std::move(context)), on_event_(std::move(on_event)), max_event_bytes_(max_event_bytes) {}

bool WatchDecoder::Fail(absl::Status status) {
  error_ = std::move(status);
  return false;
}

bool WatchDecoder::TooLarge(size_t bytes) {
  return Fail(absl::ResourceExhaustedError(
      absl::StrCat(context_, ": a watch event exceeds ", max_event_bytes_, " bytes (", bytes,
                   " so far; ClientOptions::max_watch_event_bytes)")));
}

bool WatchDecoder::Feed(std::string_view chunk) {
  if (!error_.ok() || consumer_stopped_) return false;
  buffer_.append(chunk);
  size_t start = 0;
  for (size_t nl; (nl = buffer_.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (!HandleLine(std::string_view(buffer_).substr(start, nl - start))) return false;
  }
  buffer_.erase(0, start);
  // An incomplete event already over the cap will not shrink: refuse it before buffering more.
  if (max_event_bytes_ > 0 && buffer_.size() > max_event_bytes_) return TooLarge(buffer_.size());
  return true;
}

bool WatchDecoder::Finish() {
  if (!error_.ok() || consumer_stopped_) return false;
  if (buffer_.empty()) return true;
  std::string last = std::move(buffer_);
  buffer_.clear();
  return HandleLine(last);
}

bool WatchDecoder::HandleLine(std::string_view line) {
  if (max_event_bytes_ > 0 && line.size() > max_event_bytes_) return TooLarge(line.size());
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
  auto doc = api::ParseJson(line, /*check_duplicate_keys=*/false);
  if (!doc.ok() || !doc->IsObject()) {
    return Fail(absl::DataLossError(
        absl::StrCat(context_, ": malformed watch event: ", doc.ok() ? "not an object" : doc.status().message())));
  }
  auto type = doc->FindMember("type");
  auto object = doc->FindMember("object");
  if (type == doc->MemberEnd() || !type->value.IsString() || object == doc->MemberEnd()) {
    return Fail(absl::DataLossError(absl::StrCat(context_, ": watch event without type or object")));
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
    return Fail(ApiError(*status, context_));
  }
  event.object.CopyFrom(object->value, event.object.GetAllocator());
  if (!on_event_(event)) {
    consumer_stopped_ = true;
    return false;
  }
  return true;
}

}  // namespace draforge::kube::internal
