// UTF-8 as Go's unicode/utf8 reads it, shared by the quoting, parsing and conversion code.
#ifndef DRAFORGE_CEL_INTERNAL_UTF8_H_
#define DRAFORGE_CEL_INTERNAL_UTF8_H_

#include <cstddef>
#include <string_view>
#include <utility>

namespace draforge::cel::internal {

// Decodes the UTF-8 sequence at s[i] (i < s.size()) as utf8.DecodeRuneInString accepts it: no
// overlong forms, no surrogates, at most U+10FFFF. Returns the rune and its length, or length 0
// for an invalid or truncated sequence.
inline std::pair<char32_t, size_t> DecodeRune(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1};
  auto cont = [&](size_t k) { return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80; };
  auto byte = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k]) & 0x3F); };
  if (b0 >= 0xC2 && b0 <= 0xDF && cont(1)) return {(static_cast<char32_t>(b0 & 0x1F) << 6) | byte(1), 2};
  if (b0 >= 0xE0 && b0 <= 0xEF && cont(1) && cont(2)) {
    char32_t r = (static_cast<char32_t>(b0 & 0x0F) << 12) | (byte(1) << 6) | byte(2);
    if (r < 0x800 || (r >= 0xD800 && r <= 0xDFFF)) return {0, 0};
    return {r, 3};
  }
  if (b0 >= 0xF0 && b0 <= 0xF4 && cont(1) && cont(2) && cont(3)) {
    char32_t r = (static_cast<char32_t>(b0 & 0x07) << 18) | (byte(1) << 12) | (byte(2) << 6) | byte(3);
    if (r < 0x10000 || r > 0x10FFFF) return {0, 0};
    return {r, 4};
  }
  return {0, 0};
}

// utf8.ValidString.
inline bool ValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = DecodeRune(s, i).second;
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_UTF8_H_
