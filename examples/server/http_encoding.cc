#include "http_encoding.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>


namespace draforge::server {
std::string_view TrimOptionalWhitespace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Calls fn on each `sep`-separated part of s.
template <typename Fn>
void ForEachPart(std::string_view s, char sep, Fn fn) {
  while (true) {
    const size_t at = s.find(sep);
    fn(s.substr(0, at));
    if (at == std::string_view::npos) return;
    s.remove_prefix(at + 1);
  }
}

// The q value of one Accept-Encoding element's parameters ("q=0.5"); 1 when absent, -1 when
// malformed (the element is then ignored, as a client would not mean it).
double QValue(std::string_view params) {
  double q = 1;
  bool bad = false;
  ForEachPart(params, ';', [&](std::string_view p) {
    p = TrimOptionalWhitespace(p);
    if (p.size() < 2 || Lower(p.substr(0, 2)) != "q=") return;  // empty, or another parameter
    const std::string_view v = TrimOptionalWhitespace(p.substr(2));
    // RFC 9110: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), q);
    if (ec != std::errc() || end != v.data() + v.size() || q < 0 || q > 1) bad = true;
  });
  return bad ? -1 : q;
}

}  // namespace

bool AcceptsGzip(std::string_view accept_encoding) {
  double gzip_q = -1;  // not listed
  double star_q = -1;
  ForEachPart(accept_encoding, ',', [&](std::string_view element) {
    const size_t semi = element.find(';');
    const std::string coding = Lower(TrimOptionalWhitespace(element.substr(0, semi)));
    const double q = QValue(semi == std::string_view::npos ? std::string_view() : element.substr(semi + 1));
    if (q < 0) return;
    if (coding == "gzip" || coding == "x-gzip") {
      gzip_q = std::max(gzip_q, q);
    } else if (coding == "*") {
      star_q = std::max(star_q, q);
    }
  });
  if (gzip_q >= 0) return gzip_q > 0;
  return star_q > 0;
}

bool IsCompressible(std::string_view content_type) {
  const std::string type = Lower(TrimOptionalWhitespace(content_type.substr(0, content_type.find(';'))));
  auto starts = [&](std::string_view p) { return type.compare(0, p.size(), p) == 0; };
  auto ends = [&](std::string_view p) {
    return type.size() >= p.size() && type.compare(type.size() - p.size(), p.size(), p) == 0;
  };
  if (type == "text/event-stream") return false;  // a stream: every event must leave at once
  if (starts("text/")) return true;
  return type == "application/json" || type == "application/javascript" || type == "application/xml" ||
         type == "image/svg+xml" || type == "application/wasm" || ends("+json") || ends("+xml");
}

std::optional<std::string> Gzip(std::string_view data, int level) {
  if (data.size() > UINT32_MAX) return std::nullopt;
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::nullopt;
  }
  std::string out;
  out.resize(deflateBound(&z, static_cast<uLong>(data.size())));
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  // deflateBound is an upper bound for a single deflate(Z_FINISH) call, so one call ends the member.
  const int rc = deflate(&z, Z_FINISH);
  const size_t written = out.size() - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return std::nullopt;
  out.resize(written);
  return out;
}

}  // namespace draforge::server
