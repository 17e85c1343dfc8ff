// Response compression of draforge-server: which clients get gzip, and the gzip itself.
//
// The server compresses its answers itself, once per answer, with zlib at a fast level, and only
// to gzip: Brotli at quality 11 (what the previous HTTP library picked for every browser) took 11 s
// for a 1.8 MB device list (server.cc, BodyResponse).
#ifndef DRAFORGE_EXAMPLES_SERVER_HTTP_ENCODING_H_
#define DRAFORGE_EXAMPLES_SERVER_HTTP_ENCODING_H_

#include <cstddef>
#include <string>
#include <string_view>

#include <optional>

namespace draforge::server {

// Bodies smaller than this are sent as they are: below about one TCP segment, gzip saves no
// round trip and costs a little CPU on both sides.
inline constexpr size_t kCompressMinBytes = 1400;

// The zlib level: 1 compresses a 1.8 MB JSON answer about 20-30x in tens of milliseconds, where
// level 9 (or Brotli 11) costs seconds for a few percent more.
inline constexpr int kGzipLevel = 1;

// `s` without leading and trailing spaces and tabs (RFC 9110's optional whitespace, OWS).
std::string_view TrimOptionalWhitespace(std::string_view s);

// Whether an Accept-Encoding header value (RFC 9110 section 12.5.3) allows a gzip body: `gzip` or
// `x-gzip` with a non-zero q, or `*` with a non-zero q when gzip is not listed. Empty or missing:
// false (identity). Never fails; a malformed element counts as absent.
bool AcceptsGzip(std::string_view accept_encoding);

// Whether a Content-Type is worth compressing (text, JSON, JavaScript, SVG, ...; not images,
// fonts that are already compressed, or text/event-stream).
bool IsCompressible(std::string_view content_type);

// `data` as a gzip member (RFC 1952) at `level` (0..9). Returns the compressed bytes (the
// caller's); nullopt if zlib fails (out of memory, a body over 4 GiB): the caller sends it plain.
std::optional<std::string> Gzip(std::string_view data, int level = kGzipLevel);

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_HTTP_ENCODING_H_
