// Fuzz target for the watch-stream framing (kube::internal::WatchDecoder): any response body, cut
// into chunks anywhere, must never crash, and the events and the error must not depend on where the
// chunks were cut. An event of type STOP makes the consumer stop, and no event may follow.
//
// Each input is decoded three times: in one chunk; in chunks whose sizes come from the input's own
// bytes (so the fuzzer explores the cuts); and in one chunk with a 256-byte event cap. The capped run
// must deliver a prefix of the uncapped events and fail with the cap's error only when some line is
// over the cap; with no line over the cap it must agree exactly. (An ERROR event's Status may itself
// be ResourceExhausted: code 429, TooManyRequests; only the cap's own message counts as the cap.)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "api/codec.h"
#include "kube/internal/watch_decoder.h"

namespace {

using draforge::kube::WatchEvent;
using draforge::kube::internal::WatchDecoder;

constexpr size_t kCap = 256;

struct Outcome {
  std::vector<std::string> events;  // "TYPE object-as-JSON"
  absl::Status error;
  bool stopped = false;
  bool after_stop = false;  // an event was delivered after the consumer said stop
};

Outcome Decode(std::string_view body, const std::vector<size_t>& cuts, size_t cap) {
  Outcome out;
  bool said_stop = false;
  WatchDecoder decoder(
      "watch fuzz",
      [&](WatchEvent& e) {
        if (said_stop) out.after_stop = true;
        out.events.push_back(e.type + " " + draforge::api::WriteJson(e.object, false));
        said_stop = e.type == "STOP";
        return !said_stop;
      },
      cap);
  size_t pos = 0;
  bool going = true;
  for (size_t cut : cuts) {
    if (!going || pos >= body.size()) break;
    cut = std::min(cut, body.size() - pos);
    going = decoder.Feed(body.substr(pos, cut));
    pos += cut;
  }
  if (going) going = decoder.Feed(body.substr(pos));
  if (going) going = decoder.Finish();
  // Once stopped, the decoder stays stopped.
  if (!going && (decoder.Feed("{\"type\":\"ADDED\",\"object\":{}}\n") || decoder.Finish())) __builtin_trap();
  out.error = decoder.error();
  out.stopped = decoder.consumer_stopped();
  if (going != (out.error.ok() && !out.stopped)) __builtin_trap();
  if (out.stopped && !out.error.ok()) __builtin_trap();
  return out;
}

// The decoder's own "event too large" error, not a server Status that maps to ResourceExhausted.
bool OverTheCap(const absl::Status& s) {
  return absl::IsResourceExhausted(s) && s.message().find("max_watch_event_bytes") != std::string_view::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256 * 1024) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data), size);

  const Outcome whole = Decode(body, {}, 0);
  if (whole.after_stop) __builtin_trap();
  if (!whole.error.ok() && whole.error.message().find("watch fuzz: ") != 0) __builtin_trap();
  if (OverTheCap(whole.error)) __builtin_trap();  // no cap, no such error

  // Chunk sizes 1..64 taken from the body's bytes, in order, until it is covered.
  std::vector<size_t> cuts;
  for (size_t pos = 0, i = 0; pos < size; ++i) {
    size_t n = 1 + (data[i % size] & 63);
    cuts.push_back(n);
    pos += n;
  }
  const Outcome chunked = Decode(body, cuts, 0);
  if (chunked.events != whole.events || chunked.error != whole.error || chunked.stopped != whole.stopped) {
    __builtin_trap();
  }

  size_t longest = 0;
  for (size_t start = 0; start <= size;) {
    size_t nl = body.find('\n', start);
    if (nl == std::string_view::npos) nl = size;
    longest = std::max(longest, nl - start);
    start = nl + 1;
  }
  const Outcome capped = Decode(body, {}, kCap);
  if (capped.events.size() > whole.events.size()) __builtin_trap();
  for (size_t i = 0; i < capped.events.size(); ++i) {
    if (capped.events[i] != whole.events[i]) __builtin_trap();
  }
  if (OverTheCap(capped.error) && longest <= kCap) __builtin_trap();
  if (longest <= kCap && (capped.events != whole.events || capped.error != whole.error)) __builtin_trap();
  return 0;
}
