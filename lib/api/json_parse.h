// Every JSON text DRAForge reads goes through here: RapidJSON's iterative parser (no recursion, so
// no stack overflow however deep the input) with a cap on nesting depth.
//
// Why a cap when the parser no longer recurses: everything after the parse walks the tree
// recursively (duplicate-key checks, decoding opaque parameters, re-encoding, validation), and a
// DOM of 600,000 nested arrays would overflow the stack there instead. Kubernetes objects nest a
// few dozen levels; the API server's own JSON decoder (sigs.k8s.io/json, encoding/json) stops at
// 10,000 levels, which is deeper than a 1 MiB thread stack can walk here, so DRAForge stops at
// kMaxJsonDepth: deep enough for any real object, opaque driver parameters included, and small
// enough for a walk on any thread.
#ifndef DRAFORGE_API_JSON_PARSE_H_
#define DRAFORGE_API_JSON_PARSE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "rapidjson/document.h"
#include "rapidjson/encodedstream.h"
#include "rapidjson/error/en.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/reader.h"

namespace draforge::api {

// Arrays and objects nested deeper than this are a parse error.
inline constexpr int kMaxJsonDepth = 512;

// The outcome of a parse: ok, a syntax error at `offset`, or nesting deeper than the cap (`offset`
// is where the first too-deep array or object starts).
struct JsonParseResult {
  rapidjson::ParseErrorCode code = rapidjson::kParseErrorNone;
  size_t offset = 0;
  bool too_deep = false;

  bool ok() const { return code == rapidjson::kParseErrorNone && !too_deep; }
  // "nesting is deeper than 512 levels", or RapidJSON's English text of the syntax error.
  std::string Message(int max_depth = kMaxJsonDepth) const {
    if (too_deep) return "nesting is deeper than " + std::to_string(max_depth) + " levels";
    return rapidjson::GetParseError_En(code);
  }
};

namespace internal {

// Forwards SAX events to `Handler`, refusing (which makes the reader stop) an array or object that
// would open more than `max_depth` levels.
template <typename Handler>
class DepthLimitedHandler {
 public:
  using Ch = char;
  DepthLimitedHandler(Handler& h, int max_depth) : h_(h), max_depth_(max_depth) {}

  bool Null() { return h_.Null(); }
  bool Bool(bool b) { return h_.Bool(b); }
  bool Int(int i) { return h_.Int(i); }
  bool Uint(unsigned u) { return h_.Uint(u); }
  bool Int64(int64_t i) { return h_.Int64(i); }
  bool Uint64(uint64_t u) { return h_.Uint64(u); }
  bool Double(double d) { return h_.Double(d); }
  bool RawNumber(const Ch* s, rapidjson::SizeType n, bool copy) { return h_.RawNumber(s, n, copy); }
  bool String(const Ch* s, rapidjson::SizeType n, bool copy) { return h_.String(s, n, copy); }
  bool Key(const Ch* s, rapidjson::SizeType n, bool copy) { return h_.Key(s, n, copy); }
  bool StartObject() { return Open() && h_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return h_.EndObject(members);
  }
  bool StartArray() { return Open() && h_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return h_.EndArray(elements);
  }

  bool too_deep() const { return too_deep_; }

 private:
  bool Open() {
    if (++depth_ > max_depth_) too_deep_ = true;
    return !too_deep_;
  }

  Handler& h_;
  const int max_depth_;
  int depth_ = 0;
  bool too_deep_ = false;
};

}  // namespace internal

// Feeds the JSON `text` (not NUL-terminated) to the SAX `handler`, iteratively, with the depth cap.
// Trailing content after the value is an error unless kFlags has kParseStopWhenDoneFlag.
template <unsigned kFlags = rapidjson::kParseFullPrecisionFlag, typename Handler>
JsonParseResult ParseJsonSax(std::string_view text, Handler& handler, int max_depth = kMaxJsonDepth) {
  rapidjson::MemoryStream ms(text.data(), text.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> is(ms);
  internal::DepthLimitedHandler<Handler> limited(handler, max_depth);
  rapidjson::Reader reader;
  rapidjson::ParseResult r = reader.Parse<kFlags | rapidjson::kParseIterativeFlag>(is, limited);
  JsonParseResult result;
  result.code = r.Code();
  result.offset = r.Offset();
  result.too_deep = limited.too_deep();
  return result;
}

// Parses `text` into `doc` (replacing its value) with the depth cap. On error `doc` is left null.
template <unsigned kFlags = rapidjson::kParseFullPrecisionFlag>
JsonParseResult ParseJsonInto(rapidjson::Document& doc, std::string_view text, int max_depth = kMaxJsonDepth) {
  JsonParseResult result;
  auto generate = [&](rapidjson::Document& handler) {
    result = ParseJsonSax<kFlags>(text, handler, max_depth);
    return result.ok();
  };
  doc.SetNull();
  doc.Populate(generate);
  if (!result.ok()) doc.SetNull();
  return result;
}

}  // namespace draforge::api

#endif  // DRAFORGE_API_JSON_PARSE_H_
