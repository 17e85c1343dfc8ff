// The framing of a watch response body: one JSON object per event, each followed by a newline, in a
// chunked response whose chunk boundaries fall anywhere. Kept apart from Client::Watch so that the
// framing and event decoding can be tested and fuzzed without a network.
#ifndef DRAFORGE_KUBE_INTERNAL_WATCH_DECODER_H_
#define DRAFORGE_KUBE_INTERNAL_WATCH_DECODER_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "kube/client.h"

namespace draforge::kube::internal {

class WatchDecoder {
 public:
  // `context` starts every error message ("watch resourceslices in namespace x"). `on_event` is
  // called for each ADDED/MODIFIED/DELETED/BOOKMARK (any non-ERROR) event in order; returning false
  // stops the stream. `max_event_bytes` caps one event's line (without its newline), also while it
  // is still incomplete, so that a server cannot make the client buffer without bound; 0: no cap.
  WatchDecoder(std::string context, std::function<bool(WatchEvent&)> on_event, size_t max_event_bytes = 0);

  // Takes the next chunk of the body and decodes every line it completes. Returns false once the
  // stream must stop: the consumer returned false (consumer_stopped()) or an error (error()). After
  // false, further calls do nothing and return false.
  bool Feed(std::string_view chunk);

  // The body ended: decodes a last event that has no trailing newline. Returns false as Feed does.
  bool Finish();

  // Why decoding stopped, OK if it did not or the consumer stopped it:
  // - DataLoss: a line that is not a JSON object, or an event without type or object;
  // - the ERROR event's Status as ApiError (e.g. 410 Gone), or code 500 when it carries none;
  // - ResourceExhausted: an event longer than max_event_bytes.
  const absl::Status& error() const { return error_; }
  bool consumer_stopped() const { return consumer_stopped_; }

 private:
  bool HandleLine(std::string_view line);
  bool Fail(absl::Status status);
  bool TooLarge(size_t bytes);

  const std::string context_;
  const std::function<bool(WatchEvent&)> on_event_;
  const size_t max_event_bytes_;
  std::string buffer_;  // the start of an event whose newline has not arrived yet
  absl::Status error_;
  bool consumer_stopped_ = false;
};

}  // namespace draforge::kube::internal

#endif  // DRAFORGE_KUBE_INTERNAL_WATCH_DECODER_H_
