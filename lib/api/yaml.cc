// YAML <-> JSON the way sigs.k8s.io/yaml (go-yaml v2 underneath) does it.
//
// Reading: yaml-cpp's event parser tokenizes the stream; this file does everything after that
// exactly as go-yaml v2 (resolve.go, decode.go) and sigs.k8s.io/yaml (convertToJSONableObject,
// then encoding/json) would: scalar resolution, tags, merge keys, key conversion, and the number
// forms a JSON reader finally sees. Values are built straight into RapidJSON; anchors keep a copy
// of their value so that an alias costs exactly what it expands to, which is what the limits count.
//
// Writing: a port of the parts of go-yaml v2's emitter (emitterc.go, encode.go, sorter.go) that a
// JSON value can reach, so that the output matches `kubectl get -o yaml` byte for byte.
#include "api/yaml.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <istream>
#include <limits>
#include <new>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "rapidjson/document.h"
#include "yaml-cpp/anchor.h"
#include "yaml-cpp/depthguard.h"
#include "yaml-cpp/emitterstyle.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/exceptions.h"
#include "yaml-cpp/mark.h"
#include "yaml-cpp/parser.h"

namespace draforge::api {
namespace {

// ---------------------------------------------------------------------------------------------
// UTF-8

constexpr char32_t kRuneError = 0xFFFD;

struct Rune {
  char32_t cp;
  int len;  // bytes consumed; 1 for an invalid byte (cp is then kRuneError)
};

// Go's utf8.DecodeRuneInString: rejects overlong forms, surrogates and code points above U+10FFFF.
Rune DecodeRune(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c0 = b(i);
  if (c0 < 0x80) return {c0, 1};
  const size_t left = s.size() - i;
  const auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return k < left && b(i + k) >= lo && b(i + k) <= hi;
  };
  if (c0 >= 0xC2 && c0 <= 0xDF) {
    if (cont(1)) return {static_cast<char32_t>(((c0 & 0x1F) << 6) | (b(i + 1) & 0x3F)), 2};
  } else if (c0 >= 0xE0 && c0 <= 0xEF) {
    const unsigned char lo = c0 == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = c0 == 0xED ? 0x9F : 0xBF;
    if (cont(1, lo, hi) && cont(2)) {
      return {static_cast<char32_t>(((c0 & 0x0F) << 12) | ((b(i + 1) & 0x3F) << 6) |
                                    (b(i + 2) & 0x3F)),
              3};
    }
  } else if (c0 >= 0xF0 && c0 <= 0xF4) {
    const unsigned char lo = c0 == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c0 == 0xF4 ? 0x8F : 0xBF;
    if (cont(1, lo, hi) && cont(2) && cont(3)) {
      return {static_cast<char32_t>(((c0 & 0x07) << 18) | ((b(i + 1) & 0x3F) << 12) |
                                    ((b(i + 2) & 0x3F) << 6) | (b(i + 3) & 0x3F)),
              4};
    }
  }
  return {kRuneError, 1};
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const Rune r = DecodeRune(s, i);
    if (r.cp == kRuneError && r.len == 1) return false;
    i += r.len;
  }
  return true;
}

// Go's encoding/json writes each byte of an invalid UTF-8 sequence as U+FFFD; a string read from
// YAML can only be invalid through `!!binary` or a bad escape, and must come out as JSON would.
std::string ToValidUtf8(std::string_view s) {
  if (IsValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    const Rune r = DecodeRune(s, i);
    if (r.cp == kRuneError && r.len == 1) {
      AppendUtf8(kRuneError, &out);
    } else {
      out.append(s.substr(i, r.len));
    }
    i += r.len;
  }
  return out;
}

// yaml-cpp 0.7 decodes the escapes \N and \_ to the single bytes 0x85 and 0xA0 instead of the
// UTF-8 of U+0085 and U+00A0. The input was valid UTF-8, so a lone 0x85 or 0xA0 in a scalar can
// only come from one of them.
void RepairYamlCppEscapes(std::string* s) {
  if (IsValidUtf8(*s)) return;
  std::string out;
  out.reserve(s->size() + 8);
  for (size_t i = 0; i < s->size();) {
    const Rune r = DecodeRune(*s, i);
    const auto c = static_cast<unsigned char>((*s)[i]);
    if (r.cp == kRuneError && r.len == 1 && (c == 0x85 || c == 0xA0)) {
      AppendUtf8(c, &out);
    } else {
      out.append(*s, i, r.len);
    }
    i += r.len;
  }
  *s = std::move(out);
}

// For error messages: the key, quoted, with control characters escaped and long keys cut.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  size_t n = 0;
  for (char c : s) {
    if (++n > 80) {
      out += "...";
      break;
    }
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[(c >> 4) & 0xF]);
      out.push_back(kHex[c & 0xF]);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Input checks, as go-yaml's reader does them before any parsing

// Decodes a UTF-16 stream (after its BOM) to UTF-8; go-yaml accepts UTF-16 with a BOM.
absl::Status Utf16ToUtf8(std::string_view s, bool big_endian, std::string* out) {
  if (s.size() % 2 != 0) {
    return absl::InvalidArgumentError("yaml: incomplete UTF-16 character sequence");
  }
  const auto unit = [&](size_t i) -> char32_t {
    const auto a = static_cast<unsigned char>(s[i]);
    const auto b = static_cast<unsigned char>(s[i + 1]);
    return big_endian ? (a << 8 | b) : (b << 8 | a);
  };
  out->reserve(s.size() * 3 / 2);
  for (size_t i = 0; i < s.size(); i += 2) {
    char32_t u = unit(i);
    if (u >= 0xDC00 && u <= 0xDFFF) {
      return absl::InvalidArgumentError("yaml: unexpected low surrogate area in UTF-16");
    }
    if (u >= 0xD800 && u <= 0xDBFF) {
      if (i + 3 >= s.size()) {
        return absl::InvalidArgumentError("yaml: incomplete UTF-16 surrogate pair");
      }
      const char32_t lo = unit(i + 2);
      if (lo < 0xDC00 || lo > 0xDFFF) {
        return absl::InvalidArgumentError("yaml: expected low surrogate area in UTF-16");
      }
      u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
      i += 2;
    }
    AppendUtf8(u, out);
  }
  return absl::OkStatus();
}

// Returns the UTF-8 text to parse: BOM removed, UTF-16 converted, and every character checked
// against go-yaml's reader (valid UTF-8, no control characters). yaml-cpp is more lenient, and a
// NUL byte would otherwise make it guess UTF-16 or UTF-32.
absl::StatusOr<std::string_view> PrepareInput(std::string_view text, std::string* storage) {
  if (text.size() >= 2 && ((text[0] == '\xFF' && text[1] == '\xFE') ||
                           (text[0] == '\xFE' && text[1] == '\xFF'))) {
    RETURN_IF_ERROR(Utf16ToUtf8(text.substr(2), text[0] == '\xFE', storage));
    text = *storage;
  } else if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") {
    text.remove_prefix(3);
  }
  int line = 1;
  int column = 1;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    char32_t cp = c;
    int len = 1;
    if (c >= 0x80) {
      const Rune r = DecodeRune(text, i);
      if (r.cp == kRuneError && r.len == 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("yaml: line ", line, ", column ", column, ": invalid UTF-8"));
      }
      cp = r.cp;
      len = r.len;
    }
    const bool allowed = cp == 0x09 || cp == 0x0A || cp == 0x0D || (cp >= 0x20 && cp <= 0x7E) ||
                         cp == 0x85 || (cp >= 0xA0 && cp <= 0xD7FF) ||
                         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
    if (!allowed) {
      return absl::InvalidArgumentError(absl::StrCat("yaml: line ", line, ", column ", column,
                                                     ": control characters are not allowed"));
    }
    if (cp == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += len;
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Go's strconv, as far as go-yaml's resolve() uses it

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// strconv.ParseUint(s, base, 64) for a string without underscores; base 0 reads Go's prefixes.
bool GoParseUint(std::string_view s, int base, uint64_t* out) {
  if (s.empty()) return false;
  if (base == 0) {
    base = 10;
    if (s[0] == '0') {
      if (s.size() >= 3 && Lower(s[1]) == 'b') {
        base = 2;
        s.remove_prefix(2);
      } else if (s.size() >= 3 && Lower(s[1]) == 'o') {
        base = 8;
        s.remove_prefix(2);
      } else if (s.size() >= 3 && Lower(s[1]) == 'x') {
        base = 16;
        s.remove_prefix(2);
      } else {
        base = 8;
        s.remove_prefix(1);
      }
    }
  }
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  const uint64_t cutoff = max / base + 1;
  uint64_t n = 0;
  for (char c : s) {
    const int d = DigitValue(c);
    if (d >= base) return false;
    if (n >= cutoff) return false;
    n *= base;
    const uint64_t n1 = n + d;
    if (n1 < n) return false;
    n = n1;
  }
  *out = n;
  return true;
}

// strconv.ParseInt(s, base, 64).
bool GoParseInt(std::string_view s, int base, int64_t* out) {
  if (s.empty()) return false;
  bool neg = false;
  if (s[0] == '+') {
    s.remove_prefix(1);
  } else if (s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  uint64_t un;
  if (!GoParseUint(s, base, &un)) return false;
  const uint64_t cutoff = uint64_t{1} << 63;
  if (!neg && un >= cutoff) return false;
  if (neg && un > cutoff) return false;
  *out = neg ? static_cast<int64_t>(0 - un) : static_cast<int64_t>(un);
  return true;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Correctly rounded decimal -> double for text already known to be a decimal float (an optional
// sign, digits with at most one '.', an optional exponent; no underscores). Fails on overflow, as
// strconv.ParseFloat does; underflow gives zero without error, also as Go does.
bool GoParseDecimalFloat(std::string_view s, double* out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ptr != s.data() + s.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    // Tell overflow from underflow by the position of the first significant digit.
    long exp10 = 0;
    long first = 0;
    bool seen_dot = false;
    bool found = false;
    long pos = 0;
    size_t i = 0;
    for (; i < s.size() && (IsDigit(s[i]) || s[i] == '.'); ++i) {
      if (s[i] == '.') {
        seen_dot = true;
        continue;
      }
      if (!found && s[i] != '0') {
        found = true;
        first = pos;
      }
      if (!seen_dot) ++exp10;
      ++pos;
    }
    if (!found) {
      v = 0;
    } else {
      long e = 0;
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        bool eneg = false;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        for (; i < s.size(); ++i) e = std::min(e * 10 + (s[i] - '0'), 100000L);
        if (eneg) e = -e;
      }
      if (exp10 - first + e > 0) return false;  // overflow: Go reports ErrRange
      v = 0;
    }
  } else if (ec != std::errc()) {
    return false;
  }
  *out = neg ? -v : v;
  return true;
}

// go-yaml's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool MatchesYamlStyleFloat(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
  } else {
    const size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && IsDigit(s[i])) ++i;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    const size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

// strconv's underscoreOK: underscores only between digits (or after a base prefix).
bool GoUnderscoreOk(std::string_view s) {
  char saw = '^';
  size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  bool hex = false;
  if (s.size() >= 2 && s[0] == '0' &&
      (Lower(s[1]) == 'b' || Lower(s[1]) == 'o' || Lower(s[1]) == 'x')) {
    i = 2;
    saw = '0';
    hex = Lower(s[1]) == 'x';
  }
  for (; i < s.size(); ++i) {
    if (IsDigit(s[i]) || (hex && Lower(s[i]) >= 'a' && Lower(s[i]) <= 'f')) {
      saw = '0';
      continue;
    }
    if (s[i] == '_') {
      if (saw != '0') return false;
      saw = '_';
      continue;
    }
    if (saw == '_') return false;
    saw = '!';
  }
  return saw != '_';
}

// strconv.ParseFloat(s, 64) for go-yaml's '.' hint, i.e. s starts with '.': the mantissa is
// '.' then digits (underscores allowed between digits), then an optional exponent.
bool GoParseDotFloat(std::string_view s, double* out) {
  size_t i = 1;
  bool digits = false;
  bool underscores = false;
  for (; i < s.size(); ++i) {
    if (s[i] == '_') {
      underscores = true;
    } else if (IsDigit(s[i])) {
      digits = true;
    } else {
      break;
    }
  }
  if (!digits) return false;
  if (i < s.size() && Lower(s[i]) == 'e') {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= s.size() || !IsDigit(s[i])) return false;
    for (; i < s.size() && (IsDigit(s[i]) || s[i] == '_'); ++i) {
      if (s[i] == '_') underscores = true;
    }
  }
  if (i != s.size()) return false;
  if (underscores && !GoUnderscoreOk(s)) return false;
  std::string plain;
  for (char c : s) {
    if (c != '_') plain.push_back(c);
  }
  return GoParseDecimalFloat(plain, out);
}

// ---------------------------------------------------------------------------------------------
// Go's time.Parse for the four layouts go-yaml v2 tries (resolve.go allowedTimestampFormats).
// It decides only whether a string is a timestamp; the value then stays the original text.

int DaysIn(int month, int year) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) return 29;
  return kDays[month - 1];
}

// time's getnum(s, fixed=false|true): one or two digits.
bool GetNum(std::string_view* v, bool fixed, int* out) {
  if (v->empty() || !IsDigit((*v)[0])) return false;
  if (v->size() < 2 || !IsDigit((*v)[1])) {
    if (fixed) return false;
    *out = (*v)[0] - '0';
    v->remove_prefix(1);
    return true;
  }
  *out = ((*v)[0] - '0') * 10 + ((*v)[1] - '0');
  v->remove_prefix(2);
  return true;
}

bool Skip(std::string_view* v, char c) {
  if (v->empty() || (*v)[0] != c) return false;
  v->remove_prefix(1);
  return true;
}

// layout: 'T' or 't' for "2006-1-2T15:4:5.999999999Z07:00", ' ' for "2006-1-2 15:4:5.999999999",
// 0 for "2006-1-2".
bool ParsesAsLayout(std::string_view v, char layout) {
  int year = 0;
  for (int i = 0; i < 4; ++i) year = year * 10 + (v[i] - '0');
  v.remove_prefix(4);
  int month = 0;
  int day = 0;
  if (!Skip(&v, '-') || !GetNum(&v, false, &month) || month < 1 || month > 12) return false;
  if (!Skip(&v, '-') || !GetNum(&v, false, &day)) return false;
  if (layout != 0) {
    if (layout == ' ') {
      if (v.empty() || v[0] != ' ') return false;
      while (!v.empty() && v[0] == ' ') v.remove_prefix(1);
    } else if (!Skip(&v, layout)) {
      return false;
    }
    int hour = 0;
    int minute = 0;
    int second = 0;
    if (!GetNum(&v, false, &hour) || hour >= 24) return false;
    if (!Skip(&v, ':') || !GetNum(&v, false, &minute) || minute >= 60) return false;
    if (!Skip(&v, ':') || !GetNum(&v, false, &second) || second >= 60) return false;
    if (v.size() >= 2 && (v[0] == '.' || v[0] == ',') && IsDigit(v[1])) {
      v.remove_prefix(1);
      while (!v.empty() && IsDigit(v[0])) v.remove_prefix(1);
    }
    if (layout != ' ') {
      if (!v.empty() && v[0] == 'Z') {
        v.remove_prefix(1);
      } else {
        if (v.size() < 6 || v[3] != ':' || (v[0] != '+' && v[0] != '-')) return false;
        std::string_view hh = v.substr(1, 2);
        std::string_view mm = v.substr(4, 2);
        int h = 0;
        int m = 0;
        if (!GetNum(&hh, true, &h) || !GetNum(&mm, true, &m) || h > 24 || m > 60) return false;
        v.remove_prefix(6);
      }
    }
  }
  if (!v.empty()) return false;
  return day >= 1 && day <= DaysIn(month, year);
}

bool IsGoYamlTimestamp(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsDigit(s[i])) ++i;
  if (i != 4 || i == s.size() || s[i] != '-') return false;
  return ParsesAsLayout(s, 'T') || ParsesAsLayout(s, 't') || ParsesAsLayout(s, ' ') ||
         ParsesAsLayout(s, 0);
}

// ---------------------------------------------------------------------------------------------
// Go's float formatting

// strconv.FormatFloat(v, 'g', -1, 64 or 32), with go-yaml's names for the infinities and NaN.
std::string FormatGoFloat(double v, bool float32) {
  if (std::isnan(v)) return ".nan";
  if (float32) v = static_cast<double>(static_cast<float>(v));
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  const auto res = float32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v),
                                           std::chars_format::scientific)
                           : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);
  std::string out;
  if (sci[0] == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = 0;
  std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exp);
  const int nd = static_cast<int>(digits.size());
  const int dp = exp + 1;
  if (exp < -4 || exp >= 6) {  // %e, shortest precision
    out.push_back(digits[0]);
    if (nd > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    out.push_back('e');
    out.push_back(exp < 0 ? '-' : '+');
    const int ae = std::abs(exp);
    if (ae < 10) out.push_back('0');
    out += std::to_string(ae);
    return out;
  }
  // %f with max(nd-dp, 0) decimals.
  if (dp > 0) {
    out.append(digits, 0, std::min(nd, dp));
    for (int i = nd; i < dp; ++i) out.push_back('0');
  } else {
    out.push_back('0');
  }
  const int prec = std::max(nd - dp, 0);
  if (prec > 0) {
    out.push_back('.');
    for (int i = 1; i <= prec; ++i) {
      const int j = dp + i - 1;
      out.push_back(j >= 0 && j < nd ? digits[j] : '0');
    }
  }
  return out;
}

// The text encoding/json writes for a finite float64 with an integral value below 1e21: its
// shortest round-trip digits, padded with zeros, and no exponent (2^63 is 9223372036854776000).
// Otherwise (a fraction, or 1e21 and above) encoding/json uses a form a reader takes as a float.
std::optional<std::string> GoJsonIntegerText(double v) {
  if (!std::isfinite(v) || std::trunc(v) != v || std::fabs(v) >= 1e21) return std::nullopt;
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);
  std::string out;
  if (sci[0] == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = 0;
  std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exp);
  out += digits;
  for (int i = static_cast<int>(digits.size()); i <= exp; ++i) out.push_back('0');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Scalar resolution: go-yaml v2 resolve.go and decode.go scalar()

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";
constexpr std::string_view kStrTag = "tag:yaml.org,2002:str";
constexpr std::string_view kBoolTag = "tag:yaml.org,2002:bool";
constexpr std::string_view kIntTag = "tag:yaml.org,2002:int";
constexpr std::string_view kFloatTag = "tag:yaml.org,2002:float";
constexpr std::string_view kNullTag = "tag:yaml.org,2002:null";
constexpr std::string_view kTimestampTag = "tag:yaml.org,2002:timestamp";
constexpr std::string_view kBinaryTag = "tag:yaml.org,2002:binary";
constexpr std::string_view kMergeTag = "tag:yaml.org,2002:merge";

// yaml-cpp's tag for a plain scalar without a tag ("?") and for a quoted or block scalar, or a
// node tagged `!` ("!").
constexpr std::string_view kPlainTag = "?";
constexpr std::string_view kNonPlainTag = "!";

std::string ShortTag(std::string_view tag) {
  if (tag.substr(0, kTagPrefix.size()) == kTagPrefix) {
    return absl::StrCat("!!", AV(tag.substr(kTagPrefix.size())));
  }
  return std::string(tag);
}

enum class Kind { kNull, kBool, kInt, kUint, kFloat, kString, kTimestamp };

struct Scalar {
  Kind kind = Kind::kNull;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::string s;  // kString (valid UTF-8 or not) and kTimestamp
};

// go-yaml's resolve(tag, in) for tag "" (a plain scalar) or a resolvable tag. Returns the
// resolved kind; for kString, `out->s` is not set (it is `in`).
Kind Resolve(std::string_view tag, std::string_view in, Scalar* out) {
  char hint = 'N';
  if (!in.empty()) {
    const char c = in[0];
    if (c == '+' || c == '-') {
      hint = 'S';
    } else if (IsDigit(c)) {
      hint = 'D';
    } else if (std::string_view("yYnNtTfFoO~").find(c) != std::string_view::npos) {
      hint = 'M';
    } else if (c == '.') {
      hint = '.';
    } else {
      hint = 0;
    }
  }
  if (hint == 0 || tag == kStrTag) return Kind::kString;

  // resolveMap.
  static constexpr std::string_view kTrue[] = {"y",  "Y",    "yes",  "Yes", "YES", "true",
                                               "True", "TRUE", "on", "On",  "ON"};
  static constexpr std::string_view kFalse[] = {"n",     "N",     "no",  "No",  "NO", "false",
                                                "False", "FALSE", "off", "Off", "OFF"};
  static constexpr std::string_view kNull[] = {"", "~", "null", "Null", "NULL"};
  for (std::string_view t : kTrue) {
    if (in == t) {
      out->b = true;
      return Kind::kBool;
    }
  }
  for (std::string_view f : kFalse) {
    if (in == f) {
      out->b = false;
      return Kind::kBool;
    }
  }
  for (std::string_view n : kNull) {
    if (in == n) return Kind::kNull;
  }
  if (in == ".nan" || in == ".NaN" || in == ".NAN") {
    out->f = std::numeric_limits<double>::quiet_NaN();
    return Kind::kFloat;
  }
  if (in == ".inf" || in == ".Inf" || in == ".INF" || in == "+.inf" || in == "+.Inf" ||
      in == "+.INF") {
    out->f = std::numeric_limits<double>::infinity();
    return Kind::kFloat;
  }
  if (in == "-.inf" || in == "-.Inf" || in == "-.INF") {
    out->f = -std::numeric_limits<double>::infinity();
    return Kind::kFloat;
  }
  // "<<" is in the map too, but its hint is 0, so it never gets here.

  if (hint == '.') {
    if (GoParseDotFloat(in, &out->f)) return Kind::kFloat;
    return Kind::kString;
  }
  if (hint == 'D' || hint == 'S') {
    if ((tag.empty() || tag == kTimestampTag) && IsGoYamlTimestamp(in)) {
      out->s = std::string(in);
      return Kind::kTimestamp;
    }
    std::string plain;
    plain.reserve(in.size());
    for (char c : in) {
      if (c != '_') plain.push_back(c);
    }
    if (GoParseInt(plain, 0, &out->i)) return Kind::kInt;
    if (GoParseUint(plain, 0, &out->u)) return Kind::kUint;
    if (MatchesYamlStyleFloat(plain) && GoParseDecimalFloat(plain, &out->f)) return Kind::kFloat;
    if (plain.size() >= 2 && plain[0] == '0' && plain[1] == 'b') {
      if (GoParseInt(std::string_view(plain).substr(2), 2, &out->i)) return Kind::kInt;
      if (GoParseUint(std::string_view(plain).substr(2), 2, &out->u)) return Kind::kUint;
    } else if (plain.size() >= 3 && plain.substr(0, 3) == "-0b") {
      if (GoParseInt("-" + plain.substr(3), 2, &out->i)) return Kind::kInt;
    }
  }
  return Kind::kString;
}

std::string_view KindTag(Kind k) {
  switch (k) {
    case Kind::kNull:
      return kNullTag;
    case Kind::kBool:
      return kBoolTag;
    case Kind::kInt:
    case Kind::kUint:
      return kIntTag;
    case Kind::kFloat:
      return kFloatTag;
    case Kind::kTimestamp:
      return kTimestampTag;
    case Kind::kString:
      return kStrTag;
  }
  return kStrTag;
}

// Go's base64.StdEncoding.DecodeString: padding required, '\r' and '\n' ignored.
bool DecodeBase64(std::string_view in, std::string* out) {
  std::string s;
  for (char c : in) {
    if (c != '\r' && c != '\n') s.push_back(c);
  }
  if (s.size() % 4 != 0) return false;
  const auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  for (size_t i = 0; i < s.size(); i += 4) {
    const bool last = i + 4 == s.size();
    int v[4];
    int n = 4;
    for (int k = 0; k < 4; ++k) {
      if (s[i + k] == '=') {
        if (!last || k < 2) return false;
        for (int m = k; m < 4; ++m) {
          if (s[i + m] != '=') return false;
        }
        n = k;
        break;
      }
      v[k] = val(s[i + k]);
      if (v[k] < 0) return false;
    }
    const uint32_t bits = (v[0] << 18) | (v[1] << 12) | ((n > 2 ? v[2] : 0) << 6) |
                          (n > 3 ? v[3] : 0);
    out->push_back(static_cast<char>(bits >> 16));
    if (n > 2) out->push_back(static_cast<char>((bits >> 8) & 0xFF));
    if (n > 3) out->push_back(static_cast<char>(bits & 0xFF));
  }
  return true;
}

// Decodes one scalar node as go-yaml v2 decodes it into an interface{}. `tag` is yaml-cpp's:
// kPlainTag, kNonPlainTag or an explicit tag. On error returns the message.
std::optional<std::string> DecodeScalar(std::string_view tag, std::string_view value, Scalar* out) {
  if (tag == kNonPlainTag) {
    out->kind = Kind::kString;
    out->s = std::string(value);
    return std::nullopt;
  }
  const std::string_view gtag = tag == kPlainTag ? std::string_view() : tag;
  if (gtag == kBinaryTag) {
    out->kind = Kind::kString;
    out->s.clear();
    if (!DecodeBase64(value, &out->s)) return "!!binary value contains invalid base64 data";
    return std::nullopt;
  }
  const bool resolvable = gtag.empty() || gtag == kStrTag || gtag == kBoolTag ||
                          gtag == kIntTag || gtag == kFloatTag || gtag == kNullTag ||
                          gtag == kTimestampTag;
  if (!resolvable) {  // local and unknown tags: the text, as a string
    out->kind = Kind::kString;
    out->s = std::string(value);
    return std::nullopt;
  }
  Kind k = Resolve(gtag, value, out);
  if (k == Kind::kString) out->s = std::string(value);
  if (!gtag.empty() && gtag != KindTag(k) && gtag != kStrTag) {
    if (gtag == kFloatTag && k == Kind::kInt) {
      out->f = static_cast<double>(out->i);
      k = Kind::kFloat;
    } else {
      return absl::StrCat("cannot decode ", ShortTag(KindTag(k)), " `", AV(value), "` as a ",
                          ShortTag(gtag));
    }
  }
  out->kind = k;
  return std::nullopt;
}

// sigs.k8s.io/yaml's conversion of a map key to a JSON object key.
std::optional<std::string> KeyString(const Scalar& s, std::string* error) {
  switch (s.kind) {
    case Kind::kNull:
      *error = "null mapping keys cannot be converted to JSON";
      return std::nullopt;
    case Kind::kBool:
      return s.b ? "true" : "false";
    case Kind::kInt:
      return std::to_string(s.i);
    case Kind::kUint:
      *error = absl::StrCat("mapping key ", s.u,
                            " is out of the int64 range and cannot be converted to JSON");
      return std::nullopt;
    case Kind::kFloat:
      return FormatGoFloat(s.f, /*float32=*/true);
    case Kind::kString:
    case Kind::kTimestamp:
      return ToValidUtf8(s.s);
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Builder: yaml-cpp events -> RapidJSON, with go-yaml v2's decoding rules

// Aborts parsing from inside an event callback; the status is in the StreamState.
struct Abort {};

struct StreamState {
  const YamlLimits& limits;
  std::string_view input;  // what yaml-cpp reads; its marks' pos are offsets into it
  size_t nodes = 0;
  size_t bytes = 0;
  int document = 0;  // 1-based number of the document being parsed
  absl::Status error;
};

// yaml-cpp 0.7 accepts a quoted scalar that the end of the input cuts off (`a: 'x` reads as
// "x "). `pos` is the node's mark: skip its properties (tags, anchors), blanks and comments, and
// look for the closing quote.
bool QuoteIsUnterminated(std::string_view in, size_t pos) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  size_t i = pos;
  while (i < in.size()) {
    if (in[i] == '!' || in[i] == '&') {
      while (i < in.size() && !blank(in[i])) ++i;
    } else if (blank(in[i])) {
      ++i;
    } else if (in[i] == '#') {
      while (i < in.size() && in[i] != '\n') ++i;
    } else {
      break;
    }
  }
  if (i >= in.size()) return false;
  if (in[i] == '\'') {
    for (size_t j = i + 1; j < in.size(); ++j) {
      if (in[j] != '\'') continue;
      if (j + 1 < in.size() && in[j + 1] == '\'') {
        ++j;
        continue;
      }
      return false;
    }
    return true;
  }
  if (in[i] == '"') {
    for (size_t j = i + 1; j < in.size(); ++j) {
      if (in[j] == '\\') {
        ++j;
      } else if (in[j] == '"') {
        return false;
      }
    }
    return true;
  }
  return false;
}

std::string Where(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return absl::StrCat("line ", mark.line + 1, ", column ", mark.column + 1, ": ");
}

enum class Origin { kScalar, kAlias, kMapping, kSequence };

struct Member {
  uint32_t index;        // in the object's members
  bool explicit_key;     // written in this mapping (not merged in)
  int line;              // 1-based
  int column;
};

struct Frame {
  bool is_map = false;
  rapidjson::Value value;
  YAML::Mark mark;
  YAML::anchor_t anchor = YAML::NullAnchor;
  int height = 1;  // levels of collections in this subtree, itself included
  size_t nodes = 1;
  size_t bytes = 0;
  bool merge_list = false;  // the sequence value of a `<<` key
  // Mappings: the state of the entry being read.
  enum class Next { kKey, kValue, kMergeValue } next = Next::kKey;
  std::string key;
  YAML::Mark key_mark;
  absl::flat_hash_map<std::string, Member> members;
};

struct Anchor {
  std::string name;
  bool complete = false;
  bool is_scalar = false;  // an anchored scalar or null: aliases used as keys re-resolve it
  std::string tag;         // yaml-cpp's tag of the scalar ("" for a null event)
  std::string text;
  rapidjson::Value value;  // a collection's JSON value, in the builder's anchor allocator
  int height = 0;
  size_t nodes = 1;
  size_t bytes = 0;
};

class DocumentBuilder : public YAML::EventHandler {
 public:
  explicit DocumentBuilder(StreamState* state) : state_(*state) {}

  int line() const { return line_; }
  bool has_root() const { return has_root_; }
  rapidjson::Document& doc() { return doc_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    line_ = mark.line + 1;
    // yaml-cpp starts a new document wherever the previous one's top-level node ends, so that
    // "- a\nb: c" reads as two documents; YAML (and go-yaml) want `---` before every document
    // but the first.
    if (state_.document > 1 && !mark.is_null() &&
        state_.input.substr(static_cast<size_t>(mark.pos), 3) != "---") {
      Abandon(mark, "did not find expected <document start>");
    }
  }
  void OnDocumentEnd() override {
    if (poisoned_) throw Abort();
  }

  void OnAnchor(const YAML::Mark&, const std::string& name) override { anchor_name_ = name; }

  // The other events build the value; after an error in the document's meaning they only track
  // the nesting, until the document ends (or yaml-cpp finds a syntax error, which wins).
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Guarded([&] { DoNull(mark, anchor); });
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    Guarded([&] { DoScalar(mark, tag, anchor, value); });
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Guarded([&] { DoAlias(mark, anchor); });
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Nest(mark);
    Guarded([&] { Open(mark, anchor, /*is_map=*/false); });
  }
  void OnSequenceEnd() override {
    --depth_;
    Guarded([&] { Close(); });
  }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Nest(mark);
    Guarded([&] { Open(mark, anchor, /*is_map=*/true); });
  }
  void OnMapEnd() override {
    --depth_;
    Guarded([&] { Close(); });
  }

 private:
  // Thrown by Fail(); the error is in state_.error.
  struct SemanticError {};

  template <typename F>
  void Guarded(F&& f) {
    if (poisoned_) return;
    try {
      f();
    } catch (const SemanticError&) {
      poisoned_ = true;
    }
  }

  void Nest(const YAML::Mark& mark) {
    if (++depth_ > state_.limits.max_depth) {
      Abandon(mark, absl::StrCat("nesting is deeper than ", state_.limits.max_depth, " levels"),
              absl::StatusCode::kResourceExhausted);
    }
  }

  void DoNull(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) NewScalarAnchor(anchor, "", "");
    if (ExpectingKey()) Fail(mark, "null mapping keys cannot be converted to JSON");
    Charge(mark, 1, 0);
    Place(rapidjson::Value(), Origin::kScalar, mark, 0, 1, 0);
  }

  void DoScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& raw_value) {
    if (tag != kPlainTag && !mark.is_null() &&
        QuoteIsUnterminated(state_.input, static_cast<size_t>(mark.pos))) {
      Abandon(mark, "found unexpected end of stream in a quoted scalar");
    }
    std::string value = raw_value;
    RepairYamlCppEscapes(&value);
    if (anchor != YAML::NullAnchor) NewScalarAnchor(anchor, tag, value);
    if (ExpectingKey()) {
      // decode.go isMerge: a plain `<<` or one tagged !!merge.
      if (value == "<<" && (tag == kPlainTag || tag == kMergeTag)) {
        Frame& f = frames_.back();
        f.next = Frame::Next::kMergeValue;
        f.key_mark = mark;
      } else {
        SetKey(mark, tag, value);
      }
      return;
    }
    size_t bytes = 0;
    rapidjson::Value v = ScalarValue(mark, tag, value, &bytes);
    Charge(mark, 1, bytes);
    Place(std::move(v), Origin::kScalar, mark, 0, 1, bytes);
  }

  void DoAlias(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor >= anchors_.size() || !anchors_[anchor].has_value()) {
      Abandon(mark, "unknown anchor referenced");
    }
    const Anchor& a = *anchors_[anchor];
    if (!a.complete) Fail(mark, absl::StrCat("anchor '", a.name, "' value contains itself"));
    if (ExpectingKey()) {
      if (!a.is_scalar) Fail(mark, "invalid map key: a mapping or sequence cannot be a key");
      if (a.tag.empty()) Fail(mark, "null mapping keys cannot be converted to JSON");
      // An alias is never a merge key, not even of a plain `<<` (decode.go isMerge wants a
      // scalar node), and the plain `<<` resolves to the string "<<".
      SetKey(mark, a.tag, a.text);
      return;
    }
    if (a.is_scalar) {
      // Resolved again at each use: a scalar anchored as a key may not be a valid JSON value
      // (`&x .inf: 1`), and that is an error only where it is used as one.
      size_t bytes = 0;
      rapidjson::Value v;
      if (!a.tag.empty()) v = ScalarValue(mark, a.tag, a.text, &bytes);
      Charge(mark, 1, bytes);
      CheckAliasRatio(mark, 1);
      Place(std::move(v), Origin::kAlias, mark, 0, 1, bytes);
      return;
    }
    const int depth = static_cast<int>(frames_.size()) + a.height;
    if (depth > state_.limits.max_depth) {
      Abandon(mark,
              absl::StrCat("nesting is deeper than ", state_.limits.max_depth,
                           " levels after alias expansion"),
              absl::StatusCode::kResourceExhausted);
    }
    Charge(mark, a.nodes, a.bytes);
    CheckAliasRatio(mark, a.nodes);
    rapidjson::Value v(a.value, doc_.GetAllocator());
    Place(std::move(v), Origin::kAlias, mark, a.height, a.nodes, a.bytes);
  }

  std::string Message(const YAML::Mark& mark, std::string_view message) const {
    return absl::StrCat("yaml: ", Where(mark), AV(message), " (document ", state_.document, ")");
  }

  // Syntax errors (what go-yaml's parser rejects) and exceeded limits end the parse at once (and
  // are what is reported: the parse stops because of them).
  [[noreturn]] void Abandon(const YAML::Mark& mark, std::string_view message,
                            absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
    state_.error = absl::Status(code, Message(mark, message));
    throw Abort();
  }

  // An error in the meaning of a well-formed document (go-yaml's decoder, which runs after the
  // parser): reported at the end of the document, unless yaml-cpp finds a syntax error first.
  [[noreturn]] void Fail(const YAML::Mark& mark, std::string_view message) {
    FailWith(Message(mark, message));
  }
  [[noreturn]] void FailWith(std::string message) {
    state_.error = absl::InvalidArgumentError(std::move(message));
    throw SemanticError();
  }

  void Charge(const YAML::Mark& mark, size_t nodes, size_t bytes) {
    decoded_ += nodes;
    state_.nodes += nodes;
    state_.bytes += bytes;
    if (state_.nodes > state_.limits.max_nodes) {
      Abandon(mark,
           absl::StrCat("the stream expands to more than ", state_.limits.max_nodes,
                        " values (excessive aliasing?)"),
           absl::StatusCode::kResourceExhausted);
    }
    if (state_.bytes > state_.limits.max_string_bytes) {
      Abandon(mark,
           absl::StrCat("the stream expands to more than ", state_.limits.max_string_bytes,
                        " bytes of strings (excessive aliasing?)"),
           absl::StatusCode::kResourceExhausted);
    }
  }

  // decode.go's guard against alias bombs, so that what Kubernetes rejects is rejected here too
  // (and long before max_nodes): past 1000 values with more than 100 from aliases, the share of
  // values that come from alias expansion may be 99% for documents up to 400,000 values, falling
  // to 10% at 4,000,000.
  void CheckAliasRatio(const YAML::Mark& mark, size_t expanded) {
    decoded_ += 1;  // the alias itself; Charge() counted the values it expands to
    aliased_ += expanded;
    if (aliased_ <= 100 || decoded_ <= 1000) return;
    double allowed = 0.99;
    if (decoded_ >= 4000000) {
      allowed = 0.10;
    } else if (decoded_ > 400000) {
      allowed = 0.99 - 0.89 * (static_cast<double>(decoded_ - 400000) / 3600000.0);
    }
    if (static_cast<double>(aliased_) / static_cast<double>(decoded_) > allowed) {
      Abandon(mark, "document contains excessive aliasing", absl::StatusCode::kResourceExhausted);
    }
  }

  bool ExpectingKey() const {
    return !frames_.empty() && frames_.back().is_map && frames_.back().next == Frame::Next::kKey;
  }

  Anchor& NewAnchor(YAML::anchor_t id) {
    if (anchors_.size() <= id) anchors_.resize(id + 1);
    anchors_[id].emplace();
    anchors_[id]->name = std::move(anchor_name_);
    anchor_name_.clear();
    return *anchors_[id];
  }

  void NewScalarAnchor(YAML::anchor_t id, std::string_view tag, std::string_view text) {
    Anchor& a = NewAnchor(id);
    a.is_scalar = true;
    a.tag = std::string(tag);
    a.text = std::string(text);
    a.complete = true;
  }

  void SetKey(const YAML::Mark& mark, const std::string& tag, const std::string& text) {
    Scalar s;
    if (auto err = DecodeScalar(tag, text, &s)) Fail(mark, *err);
    std::string error;
    std::optional<std::string> key = KeyString(s, &error);
    if (!key) Fail(mark, error);
    Frame& f = frames_.back();
    f.key = std::move(*key);
    f.key_mark = mark;
    f.next = Frame::Next::kValue;
  }

  rapidjson::Value ScalarValue(const YAML::Mark& mark, const std::string& tag,
                               const std::string& text, size_t* bytes) {
    Scalar s;
    if (auto err = DecodeScalar(tag, text, &s)) Fail(mark, *err);
    rapidjson::Value v;
    switch (s.kind) {
      case Kind::kNull:
        break;
      case Kind::kBool:
        v.SetBool(s.b);
        break;
      case Kind::kInt:
        v.SetInt64(s.i);
        break;
      case Kind::kUint:
        v.SetUint64(s.u);
        break;
      case Kind::kFloat:
        if (!std::isfinite(s.f)) {
          Fail(mark, absl::StrCat("the value ", FormatGoFloat(s.f, false),
                                  " cannot be represented in JSON"));
        }
        SetJsonNumber(s.f, &v);
        break;
      case Kind::kString:
      case Kind::kTimestamp: {
        const std::string str = ToValidUtf8(s.s);
        *bytes = str.size();
        v.SetString(str.data(), static_cast<rapidjson::SizeType>(str.size()),
                     doc_.GetAllocator());
        break;
      }
    }
    return v;
  }

  // What a JSON reader makes of the float64 f after encoding/json has written it: an integer
  // when the text has no fraction or exponent (see GoJsonIntegerText), else a double.
  static void SetJsonNumber(double f, rapidjson::Value* v) {
    if (std::optional<std::string> text = GoJsonIntegerText(f)) {
      int64_t i;
      uint64_t u;
      if (GoParseInt(*text, 10, &i)) {
        v->SetInt64(i);
        return;
      }
      if (GoParseUint(*text, 10, &u)) {
        v->SetUint64(u);
        return;
      }
    }
    v->SetDouble(f);
  }

  void Open(const YAML::Mark& mark, YAML::anchor_t anchor, bool is_map) {
    if (ExpectingKey()) Fail(mark, "invalid map key: a mapping or sequence cannot be a key");
    Charge(mark, 1, 0);
    if (anchor != YAML::NullAnchor) NewAnchor(anchor);
    const bool merge_list = !frames_.empty() && !is_map && frames_.back().is_map &&
                            frames_.back().next == Frame::Next::kMergeValue;
    Frame& f = frames_.emplace_back();
    f.is_map = is_map;
    f.mark = mark;
    f.anchor = anchor;
    f.merge_list = merge_list;
    if (is_map) {
      f.value.SetObject();
    } else {
      f.value.SetArray();
    }
  }

  void Close() {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    if (f.merge_list) {
      for (const auto& e : f.value.GetArray()) {
        if (!e.IsObject()) {
          Fail(f.mark, "map merge requires map or sequence of maps as the value");
        }
      }
    }
    if (f.anchor != YAML::NullAnchor) {
      Anchor& a = *anchors_[f.anchor];
      a.value.CopyFrom(f.value, anchor_alloc_);
      a.height = f.height;
      a.nodes = f.nodes;
      a.bytes = f.bytes;
      a.complete = true;
    }
    Place(std::move(f.value), f.is_map ? Origin::kMapping : Origin::kSequence, f.mark, f.height,
          f.nodes, f.bytes);
  }

  // Adds a finished value to the collection being built, or makes it the document's root.
  void Place(rapidjson::Value&& v, Origin origin, const YAML::Mark& mark, int height,
             size_t nodes, size_t bytes) {
    if (frames_.empty()) {
      static_cast<rapidjson::Value&>(doc_) = v;
      has_root_ = !doc_.IsNull();
      return;
    }
    Frame& f = frames_.back();
    f.height = std::max(f.height, height + 1);
    f.nodes += nodes;
    f.bytes += bytes;
    if (!f.is_map) {
      f.value.PushBack(v, doc_.GetAllocator());
      return;
    }
    if (f.next == Frame::Next::kMergeValue) {
      f.next = Frame::Next::kKey;
      Merge(f, std::move(v), origin, mark);
      return;
    }
    f.next = Frame::Next::kKey;
    auto [it, inserted] = f.members.try_emplace(f.key);
    if (!inserted) {
      if (it->second.explicit_key) {
        FailWith(absl::StrCat("yaml: duplicate key ", Quote(f.key), " at line ",
                              f.key_mark.line + 1, ", column ", f.key_mark.column + 1,
                              " (first at line ", it->second.line, ", column ", it->second.column,
                              ") (document ", state_.document, ")"));
      }
      (f.value.MemberBegin() + it->second.index)->value = v;
      it->second.explicit_key = true;
      it->second.line = f.key_mark.line + 1;
      it->second.column = f.key_mark.column + 1;
      return;
    }
    it->second = Member{f.value.MemberCount(), true, f.key_mark.line + 1, f.key_mark.column + 1};
    Charge(f.key_mark, 0, f.key.size());
    f.bytes += f.key.size();
    f.value.AddMember(rapidjson::Value(f.key.data(),
                                       static_cast<rapidjson::SizeType>(f.key.size()),
                                       doc_.GetAllocator()),
                      v, doc_.GetAllocator());
  }

  // decode.go merge(): the merged mapping's entries overwrite what is set; in a sequence of
  // mappings the earlier ones take precedence. Merged keys are never duplicates.
  void Merge(Frame& f, rapidjson::Value&& v, Origin origin, const YAML::Mark& mark) {
    if (origin == Origin::kSequence) {
      for (auto e = v.End(); e != v.Begin();) {
        --e;
        MergeObject(f, *e);
      }
      return;
    }
    if (!v.IsObject()) Fail(mark, "map merge requires map or sequence of maps as the value");
    MergeObject(f, v);
  }

  void MergeObject(Frame& f, rapidjson::Value& src) {
    for (auto& m : src.GetObject()) {
      std::string key(m.name.GetString(), m.name.GetStringLength());
      auto [it, inserted] = f.members.try_emplace(key);
      if (!inserted) {
        (f.value.MemberBegin() + it->second.index)->value = m.value;
        continue;
      }
      it->second = Member{f.value.MemberCount(), false, 0, 0};
      Charge(f.key_mark, 0, key.size());
      f.bytes += key.size();
      f.value.AddMember(m.name, m.value, doc_.GetAllocator());
    }
  }

  StreamState& state_;
  rapidjson::Document doc_;
  rapidjson::MemoryPoolAllocator<> anchor_alloc_;
  std::vector<Frame> frames_;
  std::vector<std::optional<Anchor>> anchors_;
  std::string anchor_name_;
  int line_ = 1;
  bool has_root_ = false;
  int depth_ = 0;         // open collections, also counted after an error
  bool poisoned_ = false;  // an error was found; state_.error holds it
  size_t decoded_ = 0;  // values of this document, aliases expanded, for CheckAliasRatio
  size_t aliased_ = 0;  // of which from alias expansion
};

// ---------------------------------------------------------------------------------------------
// Writer: go-yaml v2's emitter (emitterc.go) for what a JSON value can produce: block mappings
// and sequences, flow style only for empty ones, scalars in the four styles stringv() picks.

struct RuneRange {
  char32_t lo;
  char32_t hi;
};

// Generated from Go 1.26's unicode package (Unicode 15.0.0): unicode.IsLetter and
// unicode.IsDigit above U+007F, as inclusive ranges.
constexpr RuneRange kLetterRanges[] = {
    {0xAA,0xAA}, {0xB5,0xB5}, {0xBA,0xBA}, {0xC0,0xD6}, {0xD8,0xF6}, {0xF8,0x2C1}, {0x2C6,0x2D1},
    {0x2E0,0x2E4}, {0x2EC,0x2EC}, {0x2EE,0x2EE}, {0x370,0x374}, {0x376,0x377}, {0x37A,0x37D},
    {0x37F,0x37F}, {0x386,0x386}, {0x388,0x38A}, {0x38C,0x38C}, {0x38E,0x3A1}, {0x3A3,0x3F5},
    {0x3F7,0x481}, {0x48A,0x52F}, {0x531,0x556}, {0x559,0x559}, {0x560,0x588}, {0x5D0,0x5EA},
    {0x5EF,0x5F2}, {0x620,0x64A}, {0x66E,0x66F}, {0x671,0x6D3}, {0x6D5,0x6D5}, {0x6E5,0x6E6},
    {0x6EE,0x6EF}, {0x6FA,0x6FC}, {0x6FF,0x6FF}, {0x710,0x710}, {0x712,0x72F}, {0x74D,0x7A5},
    {0x7B1,0x7B1}, {0x7CA,0x7EA}, {0x7F4,0x7F5}, {0x7FA,0x7FA}, {0x800,0x815}, {0x81A,0x81A},
    {0x824,0x824}, {0x828,0x828}, {0x840,0x858}, {0x860,0x86A}, {0x870,0x887}, {0x889,0x88E},
    {0x8A0,0x8C9}, {0x904,0x939}, {0x93D,0x93D}, {0x950,0x950}, {0x958,0x961}, {0x971,0x980},
    {0x985,0x98C}, {0x98F,0x990}, {0x993,0x9A8}, {0x9AA,0x9B0}, {0x9B2,0x9B2}, {0x9B6,0x9B9},
    {0x9BD,0x9BD}, {0x9CE,0x9CE}, {0x9DC,0x9DD}, {0x9DF,0x9E1}, {0x9F0,0x9F1}, {0x9FC,0x9FC},
    {0xA05,0xA0A}, {0xA0F,0xA10}, {0xA13,0xA28}, {0xA2A,0xA30}, {0xA32,0xA33}, {0xA35,0xA36},
    {0xA38,0xA39}, {0xA59,0xA5C}, {0xA5E,0xA5E}, {0xA72,0xA74}, {0xA85,0xA8D}, {0xA8F,0xA91},
    {0xA93,0xAA8}, {0xAAA,0xAB0}, {0xAB2,0xAB3}, {0xAB5,0xAB9}, {0xABD,0xABD}, {0xAD0,0xAD0},
    {0xAE0,0xAE1}, {0xAF9,0xAF9}, {0xB05,0xB0C}, {0xB0F,0xB10}, {0xB13,0xB28}, {0xB2A,0xB30},
    {0xB32,0xB33}, {0xB35,0xB39}, {0xB3D,0xB3D}, {0xB5C,0xB5D}, {0xB5F,0xB61}, {0xB71,0xB71},
    {0xB83,0xB83}, {0xB85,0xB8A}, {0xB8E,0xB90}, {0xB92,0xB95}, {0xB99,0xB9A}, {0xB9C,0xB9C},
    {0xB9E,0xB9F}, {0xBA3,0xBA4}, {0xBA8,0xBAA}, {0xBAE,0xBB9}, {0xBD0,0xBD0}, {0xC05,0xC0C},
    {0xC0E,0xC10}, {0xC12,0xC28}, {0xC2A,0xC39}, {0xC3D,0xC3D}, {0xC58,0xC5A}, {0xC5D,0xC5D},
    {0xC60,0xC61}, {0xC80,0xC80}, {0xC85,0xC8C}, {0xC8E,0xC90}, {0xC92,0xCA8}, {0xCAA,0xCB3},
    {0xCB5,0xCB9}, {0xCBD,0xCBD}, {0xCDD,0xCDE}, {0xCE0,0xCE1}, {0xCF1,0xCF2}, {0xD04,0xD0C},
    {0xD0E,0xD10}, {0xD12,0xD3A}, {0xD3D,0xD3D}, {0xD4E,0xD4E}, {0xD54,0xD56}, {0xD5F,0xD61},
    {0xD7A,0xD7F}, {0xD85,0xD96}, {0xD9A,0xDB1}, {0xDB3,0xDBB}, {0xDBD,0xDBD}, {0xDC0,0xDC6},
    {0xE01,0xE30}, {0xE32,0xE33}, {0xE40,0xE46}, {0xE81,0xE82}, {0xE84,0xE84}, {0xE86,0xE8A},
    {0xE8C,0xEA3}, {0xEA5,0xEA5}, {0xEA7,0xEB0}, {0xEB2,0xEB3}, {0xEBD,0xEBD}, {0xEC0,0xEC4},
    {0xEC6,0xEC6}, {0xEDC,0xEDF}, {0xF00,0xF00}, {0xF40,0xF47}, {0xF49,0xF6C}, {0xF88,0xF8C},
    {0x1000,0x102A}, {0x103F,0x103F}, {0x1050,0x1055}, {0x105A,0x105D}, {0x1061,0x1061},
    {0x1065,0x1066}, {0x106E,0x1070}, {0x1075,0x1081}, {0x108E,0x108E}, {0x10A0,0x10C5},
    {0x10C7,0x10C7}, {0x10CD,0x10CD}, {0x10D0,0x10FA}, {0x10FC,0x1248}, {0x124A,0x124D},
    {0x1250,0x1256}, {0x1258,0x1258}, {0x125A,0x125D}, {0x1260,0x1288}, {0x128A,0x128D},
    {0x1290,0x12B0}, {0x12B2,0x12B5}, {0x12B8,0x12BE}, {0x12C0,0x12C0}, {0x12C2,0x12C5},
    {0x12C8,0x12D6}, {0x12D8,0x1310}, {0x1312,0x1315}, {0x1318,0x135A}, {0x1380,0x138F},
    {0x13A0,0x13F5}, {0x13F8,0x13FD}, {0x1401,0x166C}, {0x166F,0x167F}, {0x1681,0x169A},
    {0x16A0,0x16EA}, {0x16F1,0x16F8}, {0x1700,0x1711}, {0x171F,0x1731}, {0x1740,0x1751},
    {0x1760,0x176C}, {0x176E,0x1770}, {0x1780,0x17B3}, {0x17D7,0x17D7}, {0x17DC,0x17DC},
    {0x1820,0x1878}, {0x1880,0x1884}, {0x1887,0x18A8}, {0x18AA,0x18AA}, {0x18B0,0x18F5},
    {0x1900,0x191E}, {0x1950,0x196D}, {0x1970,0x1974}, {0x1980,0x19AB}, {0x19B0,0x19C9},
    {0x1A00,0x1A16}, {0x1A20,0x1A54}, {0x1AA7,0x1AA7}, {0x1B05,0x1B33}, {0x1B45,0x1B4C},
    {0x1B83,0x1BA0}, {0x1BAE,0x1BAF}, {0x1BBA,0x1BE5}, {0x1C00,0x1C23}, {0x1C4D,0x1C4F},
    {0x1C5A,0x1C7D}, {0x1C80,0x1C88}, {0x1C90,0x1CBA}, {0x1CBD,0x1CBF}, {0x1CE9,0x1CEC},
    {0x1CEE,0x1CF3}, {0x1CF5,0x1CF6}, {0x1CFA,0x1CFA}, {0x1D00,0x1DBF}, {0x1E00,0x1F15},
    {0x1F18,0x1F1D}, {0x1F20,0x1F45}, {0x1F48,0x1F4D}, {0x1F50,0x1F57}, {0x1F59,0x1F59},
    {0x1F5B,0x1F5B}, {0x1F5D,0x1F5D}, {0x1F5F,0x1F7D}, {0x1F80,0x1FB4}, {0x1FB6,0x1FBC},
    {0x1FBE,0x1FBE}, {0x1FC2,0x1FC4}, {0x1FC6,0x1FCC}, {0x1FD0,0x1FD3}, {0x1FD6,0x1FDB},
    {0x1FE0,0x1FEC}, {0x1FF2,0x1FF4}, {0x1FF6,0x1FFC}, {0x2071,0x2071}, {0x207F,0x207F},
    {0x2090,0x209C}, {0x2102,0x2102}, {0x2107,0x2107}, {0x210A,0x2113}, {0x2115,0x2115},
    {0x2119,0x211D}, {0x2124,0x2124}, {0x2126,0x2126}, {0x2128,0x2128}, {0x212A,0x212D},
    {0x212F,0x2139}, {0x213C,0x213F}, {0x2145,0x2149}, {0x214E,0x214E}, {0x2183,0x2184},
    {0x2C00,0x2CE4}, {0x2CEB,0x2CEE}, {0x2CF2,0x2CF3}, {0x2D00,0x2D25}, {0x2D27,0x2D27},
    {0x2D2D,0x2D2D}, {0x2D30,0x2D67}, {0x2D6F,0x2D6F}, {0x2D80,0x2D96}, {0x2DA0,0x2DA6},
    {0x2DA8,0x2DAE}, {0x2DB0,0x2DB6}, {0x2DB8,0x2DBE}, {0x2DC0,0x2DC6}, {0x2DC8,0x2DCE},
    {0x2DD0,0x2DD6}, {0x2DD8,0x2DDE}, {0x2E2F,0x2E2F}, {0x3005,0x3006}, {0x3031,0x3035},
    {0x303B,0x303C}, {0x3041,0x3096}, {0x309D,0x309F}, {0x30A1,0x30FA}, {0x30FC,0x30FF},
    {0x3105,0x312F}, {0x3131,0x318E}, {0x31A0,0x31BF}, {0x31F0,0x31FF}, {0x3400,0x4DBF},
    {0x4E00,0xA48C}, {0xA4D0,0xA4FD}, {0xA500,0xA60C}, {0xA610,0xA61F}, {0xA62A,0xA62B},
    {0xA640,0xA66E}, {0xA67F,0xA69D}, {0xA6A0,0xA6E5}, {0xA717,0xA71F}, {0xA722,0xA788},
    {0xA78B,0xA7CA}, {0xA7D0,0xA7D1}, {0xA7D3,0xA7D3}, {0xA7D5,0xA7D9}, {0xA7F2,0xA801},
    {0xA803,0xA805}, {0xA807,0xA80A}, {0xA80C,0xA822}, {0xA840,0xA873}, {0xA882,0xA8B3},
    {0xA8F2,0xA8F7}, {0xA8FB,0xA8FB}, {0xA8FD,0xA8FE}, {0xA90A,0xA925}, {0xA930,0xA946},
    {0xA960,0xA97C}, {0xA984,0xA9B2}, {0xA9CF,0xA9CF}, {0xA9E0,0xA9E4}, {0xA9E6,0xA9EF},
    {0xA9FA,0xA9FE}, {0xAA00,0xAA28}, {0xAA40,0xAA42}, {0xAA44,0xAA4B}, {0xAA60,0xAA76},
    {0xAA7A,0xAA7A}, {0xAA7E,0xAAAF}, {0xAAB1,0xAAB1}, {0xAAB5,0xAAB6}, {0xAAB9,0xAABD},
    {0xAAC0,0xAAC0}, {0xAAC2,0xAAC2}, {0xAADB,0xAADD}, {0xAAE0,0xAAEA}, {0xAAF2,0xAAF4},
    {0xAB01,0xAB06}, {0xAB09,0xAB0E}, {0xAB11,0xAB16}, {0xAB20,0xAB26}, {0xAB28,0xAB2E},
    {0xAB30,0xAB5A}, {0xAB5C,0xAB69}, {0xAB70,0xABE2}, {0xAC00,0xD7A3}, {0xD7B0,0xD7C6},
    {0xD7CB,0xD7FB}, {0xF900,0xFA6D}, {0xFA70,0xFAD9}, {0xFB00,0xFB06}, {0xFB13,0xFB17},
    {0xFB1D,0xFB1D}, {0xFB1F,0xFB28}, {0xFB2A,0xFB36}, {0xFB38,0xFB3C}, {0xFB3E,0xFB3E},
    {0xFB40,0xFB41}, {0xFB43,0xFB44}, {0xFB46,0xFBB1}, {0xFBD3,0xFD3D}, {0xFD50,0xFD8F},
    {0xFD92,0xFDC7}, {0xFDF0,0xFDFB}, {0xFE70,0xFE74}, {0xFE76,0xFEFC}, {0xFF21,0xFF3A},
    {0xFF41,0xFF5A}, {0xFF66,0xFFBE}, {0xFFC2,0xFFC7}, {0xFFCA,0xFFCF}, {0xFFD2,0xFFD7},
    {0xFFDA,0xFFDC}, {0x10000,0x1000B}, {0x1000D,0x10026}, {0x10028,0x1003A}, {0x1003C,0x1003D},
    {0x1003F,0x1004D}, {0x10050,0x1005D}, {0x10080,0x100FA}, {0x10280,0x1029C}, {0x102A0,0x102D0},
    {0x10300,0x1031F}, {0x1032D,0x10340}, {0x10342,0x10349}, {0x10350,0x10375}, {0x10380,0x1039D},
    {0x103A0,0x103C3}, {0x103C8,0x103CF}, {0x10400,0x1049D}, {0x104B0,0x104D3}, {0x104D8,0x104FB},
    {0x10500,0x10527}, {0x10530,0x10563}, {0x10570,0x1057A}, {0x1057C,0x1058A}, {0x1058C,0x10592},
    {0x10594,0x10595}, {0x10597,0x105A1}, {0x105A3,0x105B1}, {0x105B3,0x105B9}, {0x105BB,0x105BC},
    {0x10600,0x10736}, {0x10740,0x10755}, {0x10760,0x10767}, {0x10780,0x10785}, {0x10787,0x107B0},
    {0x107B2,0x107BA}, {0x10800,0x10805}, {0x10808,0x10808}, {0x1080A,0x10835}, {0x10837,0x10838},
    {0x1083C,0x1083C}, {0x1083F,0x10855}, {0x10860,0x10876}, {0x10880,0x1089E}, {0x108E0,0x108F2},
    {0x108F4,0x108F5}, {0x10900,0x10915}, {0x10920,0x10939}, {0x10980,0x109B7}, {0x109BE,0x109BF},
    {0x10A00,0x10A00}, {0x10A10,0x10A13}, {0x10A15,0x10A17}, {0x10A19,0x10A35}, {0x10A60,0x10A7C},
    {0x10A80,0x10A9C}, {0x10AC0,0x10AC7}, {0x10AC9,0x10AE4}, {0x10B00,0x10B35}, {0x10B40,0x10B55},
    {0x10B60,0x10B72}, {0x10B80,0x10B91}, {0x10C00,0x10C48}, {0x10C80,0x10CB2}, {0x10CC0,0x10CF2},
    {0x10D00,0x10D23}, {0x10E80,0x10EA9}, {0x10EB0,0x10EB1}, {0x10F00,0x10F1C}, {0x10F27,0x10F27},
    {0x10F30,0x10F45}, {0x10F70,0x10F81}, {0x10FB0,0x10FC4}, {0x10FE0,0x10FF6}, {0x11003,0x11037},
    {0x11071,0x11072}, {0x11075,0x11075}, {0x11083,0x110AF}, {0x110D0,0x110E8}, {0x11103,0x11126},
    {0x11144,0x11144}, {0x11147,0x11147}, {0x11150,0x11172}, {0x11176,0x11176}, {0x11183,0x111B2},
    {0x111C1,0x111C4}, {0x111DA,0x111DA}, {0x111DC,0x111DC}, {0x11200,0x11211}, {0x11213,0x1122B},
    {0x1123F,0x11240}, {0x11280,0x11286}, {0x11288,0x11288}, {0x1128A,0x1128D}, {0x1128F,0x1129D},
    {0x1129F,0x112A8}, {0x112B0,0x112DE}, {0x11305,0x1130C}, {0x1130F,0x11310}, {0x11313,0x11328},
    {0x1132A,0x11330}, {0x11332,0x11333}, {0x11335,0x11339}, {0x1133D,0x1133D}, {0x11350,0x11350},
    {0x1135D,0x11361}, {0x11400,0x11434}, {0x11447,0x1144A}, {0x1145F,0x11461}, {0x11480,0x114AF},
    {0x114C4,0x114C5}, {0x114C7,0x114C7}, {0x11580,0x115AE}, {0x115D8,0x115DB}, {0x11600,0x1162F},
    {0x11644,0x11644}, {0x11680,0x116AA}, {0x116B8,0x116B8}, {0x11700,0x1171A}, {0x11740,0x11746},
    {0x11800,0x1182B}, {0x118A0,0x118DF}, {0x118FF,0x11906}, {0x11909,0x11909}, {0x1190C,0x11913},
    {0x11915,0x11916}, {0x11918,0x1192F}, {0x1193F,0x1193F}, {0x11941,0x11941}, {0x119A0,0x119A7},
    {0x119AA,0x119D0}, {0x119E1,0x119E1}, {0x119E3,0x119E3}, {0x11A00,0x11A00}, {0x11A0B,0x11A32},
    {0x11A3A,0x11A3A}, {0x11A50,0x11A50}, {0x11A5C,0x11A89}, {0x11A9D,0x11A9D}, {0x11AB0,0x11AF8},
    {0x11C00,0x11C08}, {0x11C0A,0x11C2E}, {0x11C40,0x11C40}, {0x11C72,0x11C8F}, {0x11D00,0x11D06},
    {0x11D08,0x11D09}, {0x11D0B,0x11D30}, {0x11D46,0x11D46}, {0x11D60,0x11D65}, {0x11D67,0x11D68},
    {0x11D6A,0x11D89}, {0x11D98,0x11D98}, {0x11EE0,0x11EF2}, {0x11F02,0x11F02}, {0x11F04,0x11F10},
    {0x11F12,0x11F33}, {0x11FB0,0x11FB0}, {0x12000,0x12399}, {0x12480,0x12543}, {0x12F90,0x12FF0},
    {0x13000,0x1342F}, {0x13441,0x13446}, {0x14400,0x14646}, {0x16800,0x16A38}, {0x16A40,0x16A5E},
    {0x16A70,0x16ABE}, {0x16AD0,0x16AED}, {0x16B00,0x16B2F}, {0x16B40,0x16B43}, {0x16B63,0x16B77},
    {0x16B7D,0x16B8F}, {0x16E40,0x16E7F}, {0x16F00,0x16F4A}, {0x16F50,0x16F50}, {0x16F93,0x16F9F},
    {0x16FE0,0x16FE1}, {0x16FE3,0x16FE3}, {0x17000,0x187F7}, {0x18800,0x18CD5}, {0x18D00,0x18D08},
    {0x1AFF0,0x1AFF3}, {0x1AFF5,0x1AFFB}, {0x1AFFD,0x1AFFE}, {0x1B000,0x1B122}, {0x1B132,0x1B132},
    {0x1B150,0x1B152}, {0x1B155,0x1B155}, {0x1B164,0x1B167}, {0x1B170,0x1B2FB}, {0x1BC00,0x1BC6A},
    {0x1BC70,0x1BC7C}, {0x1BC80,0x1BC88}, {0x1BC90,0x1BC99}, {0x1D400,0x1D454}, {0x1D456,0x1D49C},
    {0x1D49E,0x1D49F}, {0x1D4A2,0x1D4A2}, {0x1D4A5,0x1D4A6}, {0x1D4A9,0x1D4AC}, {0x1D4AE,0x1D4B9},
    {0x1D4BB,0x1D4BB}, {0x1D4BD,0x1D4C3}, {0x1D4C5,0x1D505}, {0x1D507,0x1D50A}, {0x1D50D,0x1D514},
    {0x1D516,0x1D51C}, {0x1D51E,0x1D539}, {0x1D53B,0x1D53E}, {0x1D540,0x1D544}, {0x1D546,0x1D546},
    {0x1D54A,0x1D550}, {0x1D552,0x1D6A5}, {0x1D6A8,0x1D6C0}, {0x1D6C2,0x1D6DA}, {0x1D6DC,0x1D6FA},
    {0x1D6FC,0x1D714}, {0x1D716,0x1D734}, {0x1D736,0x1D74E}, {0x1D750,0x1D76E}, {0x1D770,0x1D788},
    {0x1D78A,0x1D7A8}, {0x1D7AA,0x1D7C2}, {0x1D7C4,0x1D7CB}, {0x1DF00,0x1DF1E}, {0x1DF25,0x1DF2A},
    {0x1E030,0x1E06D}, {0x1E100,0x1E12C}, {0x1E137,0x1E13D}, {0x1E14E,0x1E14E}, {0x1E290,0x1E2AD},
    {0x1E2C0,0x1E2EB}, {0x1E4D0,0x1E4EB}, {0x1E7E0,0x1E7E6}, {0x1E7E8,0x1E7EB}, {0x1E7ED,0x1E7EE},
    {0x1E7F0,0x1E7FE}, {0x1E800,0x1E8C4}, {0x1E900,0x1E943}, {0x1E94B,0x1E94B}, {0x1EE00,0x1EE03},
    {0x1EE05,0x1EE1F}, {0x1EE21,0x1EE22}, {0x1EE24,0x1EE24}, {0x1EE27,0x1EE27}, {0x1EE29,0x1EE32},
    {0x1EE34,0x1EE37}, {0x1EE39,0x1EE39}, {0x1EE3B,0x1EE3B}, {0x1EE42,0x1EE42}, {0x1EE47,0x1EE47},
    {0x1EE49,0x1EE49}, {0x1EE4B,0x1EE4B}, {0x1EE4D,0x1EE4F}, {0x1EE51,0x1EE52}, {0x1EE54,0x1EE54},
    {0x1EE57,0x1EE57}, {0x1EE59,0x1EE59}, {0x1EE5B,0x1EE5B}, {0x1EE5D,0x1EE5D}, {0x1EE5F,0x1EE5F},
    {0x1EE61,0x1EE62}, {0x1EE64,0x1EE64}, {0x1EE67,0x1EE6A}, {0x1EE6C,0x1EE72}, {0x1EE74,0x1EE77},
    {0x1EE79,0x1EE7C}, {0x1EE7E,0x1EE7E}, {0x1EE80,0x1EE89}, {0x1EE8B,0x1EE9B}, {0x1EEA1,0x1EEA3},
    {0x1EEA5,0x1EEA9}, {0x1EEAB,0x1EEBB}, {0x20000,0x2A6DF}, {0x2A700,0x2B739}, {0x2B740,0x2B81D},
    {0x2B820,0x2CEA1}, {0x2CEB0,0x2EBE0}, {0x2F800,0x2FA1D}, {0x30000,0x3134A}, {0x31350,0x323AF},
};
constexpr RuneRange kDigitRanges[] = {
    {0x660,0x669}, {0x6F0,0x6F9}, {0x7C0,0x7C9}, {0x966,0x96F}, {0x9E6,0x9EF}, {0xA66,0xA6F},
    {0xAE6,0xAEF}, {0xB66,0xB6F}, {0xBE6,0xBEF}, {0xC66,0xC6F}, {0xCE6,0xCEF}, {0xD66,0xD6F},
    {0xDE6,0xDEF}, {0xE50,0xE59}, {0xED0,0xED9}, {0xF20,0xF29}, {0x1040,0x1049}, {0x1090,0x1099},
    {0x17E0,0x17E9}, {0x1810,0x1819}, {0x1946,0x194F}, {0x19D0,0x19D9}, {0x1A80,0x1A89},
    {0x1A90,0x1A99}, {0x1B50,0x1B59}, {0x1BB0,0x1BB9}, {0x1C40,0x1C49}, {0x1C50,0x1C59},
    {0xA620,0xA629}, {0xA8D0,0xA8D9}, {0xA900,0xA909}, {0xA9D0,0xA9D9}, {0xA9F0,0xA9F9},
    {0xAA50,0xAA59}, {0xABF0,0xABF9}, {0xFF10,0xFF19}, {0x104A0,0x104A9}, {0x10D30,0x10D39},
    {0x11066,0x1106F}, {0x110F0,0x110F9}, {0x11136,0x1113F}, {0x111D0,0x111D9}, {0x112F0,0x112F9},
    {0x11450,0x11459}, {0x114D0,0x114D9}, {0x11650,0x11659}, {0x116C0,0x116C9}, {0x11730,0x11739},
    {0x118E0,0x118E9}, {0x11950,0x11959}, {0x11C50,0x11C59}, {0x11D50,0x11D59}, {0x11DA0,0x11DA9},
    {0x11F50,0x11F59}, {0x16A60,0x16A69}, {0x16AC0,0x16AC9}, {0x16B50,0x16B59}, {0x1D7CE,0x1D7FF},
    {0x1E140,0x1E149}, {0x1E2F0,0x1E2F9}, {0x1E4F0,0x1E4F9}, {0x1E950,0x1E959}, {0x1FBF0,0x1FBF9},
};

bool InRanges(const RuneRange* begin, const RuneRange* end, char32_t c) {
  const RuneRange* it =
      std::upper_bound(begin, end, c, [](char32_t v, const RuneRange& r) { return v < r.lo; });
  return it != begin && c <= (it - 1)->hi;
}

bool GoIsLetter(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return InRanges(std::begin(kLetterRanges), std::end(kLetterRanges), c);
}

bool GoIsDigit(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return InRanges(std::begin(kDigitRanges), std::end(kDigitRanges), c);
}

// sorter.go keyList.Less for two string keys: a "natural" order where letters sort before other
// characters and runs of digits compare by value.
bool GoKeyLess(const std::u32string& a, const std::u32string& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] == b[i]) continue;
    const bool al = GoIsLetter(a[i]);
    const bool bl = GoIsLetter(b[i]);
    if (al && bl) return a[i] < b[i];
    if (al || bl) return bl;
    // Go's int64 arithmetic wraps; do it in uint64 and compare as int64.
    uint64_t an = 0;
    uint64_t bn = 0;
    if (a[i] == '0' || b[i] == '0') {
      for (ptrdiff_t j = static_cast<ptrdiff_t>(i) - 1; j >= 0 && GoIsDigit(a[j]); --j) {
        if (a[j] != '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    size_t ai = i;
    for (; ai < a.size() && GoIsDigit(a[ai]); ++ai) {
      an = an * 10 + static_cast<uint64_t>(static_cast<int64_t>(a[ai]) - '0');
    }
    size_t bi = i;
    for (; bi < b.size() && GoIsDigit(b[bi]); ++bi) {
      bn = bn * 10 + static_cast<uint64_t>(static_cast<int64_t>(b[bi]) - '0');
    }
    if (an != bn) return static_cast<int64_t>(an) < static_cast<int64_t>(bn);
    if (ai != bi) return ai < bi;
    return a[i] < b[i];
  }
  return a.size() < b.size();
}

std::u32string ToRunes(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const Rune r = DecodeRune(s, i);
    out.push_back(r.cp);
    i += r.len;
  }
  return out;
}

// A stable merge sort: GoKeyLess is not a strict weak ordering for every input, which std::sort
// requires (it may then read out of bounds); merging never does.
template <typename T, typename Less>
void MergeSort(std::vector<T>& v, Less less) {
  std::vector<T> tmp(v.size());
  for (size_t width = 1; width < v.size(); width *= 2) {
    for (size_t lo = 0; lo < v.size(); lo += 2 * width) {
      const size_t mid = std::min(lo + width, v.size());
      const size_t hi = std::min(lo + 2 * width, v.size());
      size_t i = lo;
      size_t j = mid;
      size_t k = lo;
      while (i < mid && j < hi) tmp[k++] = less(v[j], v[i]) ? std::move(v[j++]) : std::move(v[i++]);
      while (i < mid) tmp[k++] = std::move(v[i++]);
      while (j < hi) tmp[k++] = std::move(v[j++]);
    }
    v.swap(tmp);
  }
}

// encode.go isBase60Float: ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$
bool IsBase60Float(std::string_view s) {
  if (s.empty()) return false;
  const char c = s[0];
  if (!(c == '+' || c == '-' || IsDigit(c)) || s.find(':') == std::string_view::npos) return false;
  size_t i = 0;
  if (s[i] == '+' || s[i] == '-') ++i;
  if (i >= s.size() || !IsDigit(s[i])) return false;
  ++i;
  while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  int groups = 0;
  while (i < s.size() && s[i] == ':') {
    ++i;
    // [0-5]?[0-9]: one digit, or [0-5] then a digit (a regexp backtracks to one digit if the
    // second is not there).
    if (i + 1 < s.size() && s[i] >= '0' && s[i] <= '5' && IsDigit(s[i + 1])) {
      i += 2;
    } else if (i < s.size() && IsDigit(s[i])) {
      ++i;
    } else {
      return false;
    }
    ++groups;
  }
  if (groups == 0) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  }
  return i == s.size();
}

enum class Style { kPlain, kSingleQuoted, kDoubleQuoted, kLiteral };

struct Analysis {
  bool multiline = false;
  bool flow_plain_allowed = false;
  bool block_plain_allowed = true;
  bool single_quoted_allowed = true;
  bool block_allowed = false;
};

class Emitter {
 public:
  explicit Emitter(std::string* out) : out_(*out) {}

  // encode.go marshalDoc with implicit document start and end: the node, then a final newline.
  void Document(const rapidjson::Value& v) {
    indent_ = -1;
    indents_.clear();
    column_ = 0;
    whitespace_ = true;
    indention_ = true;
    flow_level_ = 0;
    Node(v, /*root=*/true, /*sequence=*/false, /*mapping=*/false, /*simple_key=*/false);
    WriteIndent();
  }

 private:
  static constexpr int kBestIndent = 2;
  static constexpr int kBestWidth = 80;

  // Byte at i, or 0 past the end (Go's helpers index the slice directly; on valid UTF-8 they
  // never look past the end).
  static unsigned char At(std::string_view s, size_t i) {
    return i < s.size() ? static_cast<unsigned char>(s[i]) : 0;
  }
  static int Width(unsigned char b) {
    if ((b & 0x80) == 0x00) return 1;
    if ((b & 0xE0) == 0xC0) return 2;
    if ((b & 0xF0) == 0xE0) return 3;
    if ((b & 0xF8) == 0xF0) return 4;
    return 1;  // not reached for valid UTF-8
  }
  static bool IsPrintable(std::string_view s, size_t i) {
    const unsigned char b = At(s, i);
    const unsigned char b1 = At(s, i + 1);
    const unsigned char b2 = At(s, i + 2);
    return b == 0x0A || (b >= 0x20 && b <= 0x7E) || (b == 0xC2 && b1 >= 0xA0) ||
           (b > 0xC2 && b < 0xED) || (b == 0xED && b1 < 0xA0) || b == 0xEE ||
           (b == 0xEF && !(b1 == 0xBB && b2 == 0xBF) &&
            !(b1 == 0xBF && (b2 == 0xBE || b2 == 0xBF)));
  }
  static bool IsSpace(std::string_view s, size_t i) { return At(s, i) == ' '; }
  static bool IsBlank(std::string_view s, size_t i) { return At(s, i) == ' ' || At(s, i) == '\t'; }
  static bool IsBreak(std::string_view s, size_t i) {
    const unsigned char b = At(s, i);
    return b == '\r' || b == '\n' || (b == 0xC2 && At(s, i + 1) == 0x85) ||
           (b == 0xE2 && At(s, i + 1) == 0x80 && (At(s, i + 2) == 0xA8 || At(s, i + 2) == 0xA9));
  }
  static bool IsBlankz(std::string_view s, size_t i) {
    return IsBlank(s, i) || IsBreak(s, i) || i >= s.size() || At(s, i) == 0;
  }
  // is_bom looks at the start of the value whatever i is; kept as go-yaml has it.
  static bool IsBom(std::string_view s) {
    return At(s, 0) == 0xEF && At(s, 1) == 0xBB && At(s, 2) == 0xBF;
  }

  // yaml_emitter_analyze_scalar.
  static Analysis Analyze(std::string_view value) {
    Analysis a;
    if (value.empty()) return a;  // the defaults are go-yaml's for an empty scalar
    bool block_indicators = false;
    bool flow_indicators = false;
    bool line_breaks = false;
    bool special_characters = false;
    bool leading_space = false;
    bool leading_break = false;
    bool trailing_space = false;
    bool trailing_break = false;
    bool break_space = false;
    bool space_break = false;
    bool previous_space = false;
    bool previous_break = false;
    if (value.size() >= 3 && (value.substr(0, 3) == "---" || value.substr(0, 3) == "...")) {
      block_indicators = true;
      flow_indicators = true;
    }
    bool preceded_by_whitespace = true;
    for (size_t i = 0, w = 0; i < value.size(); i += w) {
      w = Width(At(value, i));
      const bool followed_by_whitespace = i + w >= value.size() || IsBlank(value, i + w);
      const char c = value[i];
      if (i == 0) {
        switch (c) {
          case '#': case ',': case '[': case ']': case '{': case '}': case '&': case '*':
          case '!': case '|': case '>': case '\'': case '"': case '%': case '@': case '`':
            flow_indicators = true;
            block_indicators = true;
            break;
          case '?': case ':':
            flow_indicators = true;
            if (followed_by_whitespace) block_indicators = true;
            break;
          case '-':
            if (followed_by_whitespace) {
              flow_indicators = true;
              block_indicators = true;
            }
            break;
          default:
            break;
        }
      } else {
        switch (c) {
          case ',': case '?': case '[': case ']': case '{': case '}':
            flow_indicators = true;
            break;
          case ':':
            flow_indicators = true;
            if (followed_by_whitespace) block_indicators = true;
            break;
          case '#':
            if (preceded_by_whitespace) {
              flow_indicators = true;
              block_indicators = true;
            }
            break;
          default:
            break;
        }
      }
      // The emitter allows unicode. Unlike go-yaml, LS and PS count as special too: go-yaml
      // writes them raw in single-quoted and literal scalars, as YAML 1.1 line breaks, which a
      // YAML 1.2 reader (yaml-cpp) keeps as content; escaped in double quotes they read back.
      if (!IsPrintable(value, i) ||
          (At(value, i) == 0xE2 && At(value, i + 1) == 0x80 &&
           (At(value, i + 2) == 0xA8 || At(value, i + 2) == 0xA9))) {
        special_characters = true;
      }
      if (IsSpace(value, i)) {
        if (i == 0) leading_space = true;
        if (i + w == value.size()) trailing_space = true;
        if (previous_break) break_space = true;
        previous_space = true;
        previous_break = false;
      } else if (IsBreak(value, i)) {
        line_breaks = true;
        if (i == 0) leading_break = true;
        if (i + w == value.size()) trailing_break = true;
        if (previous_space) space_break = true;
        previous_space = false;
        previous_break = true;
      } else {
        previous_space = false;
        previous_break = false;
      }
      preceded_by_whitespace = IsBlankz(value, i);
    }
    a.multiline = line_breaks;
    a.flow_plain_allowed = true;
    a.block_plain_allowed = true;
    a.single_quoted_allowed = true;
    a.block_allowed = true;
    if (leading_space || leading_break || trailing_space || trailing_break) {
      a.flow_plain_allowed = false;
      a.block_plain_allowed = false;
    }
    if (trailing_space) a.block_allowed = false;
    if (break_space) {
      a.flow_plain_allowed = false;
      a.block_plain_allowed = false;
      a.single_quoted_allowed = false;
    }
    if (space_break || special_characters) {
      a.flow_plain_allowed = false;
      a.block_plain_allowed = false;
      a.single_quoted_allowed = false;
      a.block_allowed = false;
    }
    if (line_breaks) {
      a.flow_plain_allowed = false;
      a.block_plain_allowed = false;
    }
    if (flow_indicators) a.flow_plain_allowed = false;
    if (block_indicators) a.block_plain_allowed = false;
    return a;
  }

  void Node(const rapidjson::Value& v, bool root, bool sequence, bool mapping, bool simple_key) {
    root_context_ = root;
    sequence_context_ = sequence;
    mapping_context_ = mapping;
    simple_key_context_ = simple_key;
    switch (v.GetType()) {
      case rapidjson::kNullType:
        EmitScalar("null", Style::kPlain);
        break;
      case rapidjson::kFalseType:
        EmitScalar("false", Style::kPlain);
        break;
      case rapidjson::kTrueType:
        EmitScalar("true", Style::kPlain);
        break;
      case rapidjson::kNumberType:
        EmitScalar(NumberText(v), Style::kPlain);
        break;
      case rapidjson::kStringType:
        String(ToValidUtf8(std::string_view(v.GetString(), v.GetStringLength())),
               /*is_key=*/false);
        break;
      case rapidjson::kArrayType:
        Sequence(v);
        break;
      case rapidjson::kObjectType:
        Mapping(v);
        break;
    }
  }

  // The number as sigs.k8s.io/yaml prints the JSON text that encoding/json writes for it: a
  // float64 with an integral value below 1e21 is written as an integer and read back as one.
  static std::string NumberText(const rapidjson::Value& v) {
    if (v.IsDouble()) {
      const double d = v.GetDouble();
      // go-yaml reads encoding/json's integer text as an int64 or uint64 and prints it as such.
      if (std::optional<std::string> text = GoJsonIntegerText(d)) {
        int64_t i;
        uint64_t u;
        if (GoParseInt(*text, 10, &i)) return std::to_string(i);
        if (GoParseUint(*text, 10, &u)) return std::to_string(u);
      }
      return FormatGoFloat(d, /*float32=*/false);
    }
    if (v.IsInt64()) return std::to_string(v.GetInt64());
    return std::to_string(v.GetUint64());
  }

  // encode.go stringv.
  void String(const std::string& s, bool is_key) {
    api::Scalar resolved;
    bool can_use_plain = Resolve("", s, &resolved) == Kind::kString && !IsBase60Float(s);
    // go-yaml writes the key "<<" plain, which reads back as a merge key; quote it so that
    // every JSON value survives a round trip.
    if (is_key && s == "<<") can_use_plain = false;
    Style style = Style::kDoubleQuoted;
    if (s.find('\n') != std::string::npos) {
      style = Style::kLiteral;
    } else if (can_use_plain) {
      style = Style::kPlain;
    }
    EmitScalar(s, style);
  }

  // yaml_emitter_emit_scalar with yaml_emitter_select_scalar_style.
  void EmitScalar(std::string_view value, Style style) {
    const Analysis a = Analyze(value);
    if (simple_key_context_ && a.multiline) style = Style::kDoubleQuoted;
    if (style == Style::kPlain) {
      if ((flow_level_ > 0 && !a.flow_plain_allowed) ||
          (flow_level_ == 0 && !a.block_plain_allowed)) {
        style = Style::kSingleQuoted;
      }
      if (value.empty() && (flow_level_ > 0 || simple_key_context_)) {
        style = Style::kSingleQuoted;
      }
    }
    if (style == Style::kSingleQuoted && !a.single_quoted_allowed) style = Style::kDoubleQuoted;
    if (style == Style::kLiteral && (!a.block_allowed || flow_level_ > 0 || simple_key_context_)) {
      style = Style::kDoubleQuoted;
    }
    IncreaseIndent(/*flow=*/true, /*indentless=*/false);
    switch (style) {
      case Style::kPlain:
        WritePlain(value, !simple_key_context_);
        break;
      case Style::kSingleQuoted:
        WriteSingleQuoted(value, !simple_key_context_);
        break;
      case Style::kDoubleQuoted:
        WriteDoubleQuoted(value, !simple_key_context_);
        break;
      case Style::kLiteral:
        WriteLiteral(value);
        break;
    }
    PopIndent();
  }

  void Sequence(const rapidjson::Value& v) {
    if (flow_level_ > 0 || v.Empty()) {
      // An empty sequence: yaml_emitter_emit_flow_sequence_item for the start and the end.
      WriteIndicator("[", true, true, false);
      IncreaseIndent(/*flow=*/true, /*indentless=*/false);
      PopIndent();
      WriteIndicator("]", false, false, false);
      return;
    }
    IncreaseIndent(/*flow=*/false, /*indentless=*/mapping_context_ && !indention_);
    for (const auto& item : v.GetArray()) {
      WriteIndent();
      WriteIndicator("-", true, false, true);
      Node(item, false, /*sequence=*/true, false, false);
    }
    PopIndent();
  }

  void Mapping(const rapidjson::Value& v) {
    if (flow_level_ > 0 || v.ObjectEmpty()) {
      WriteIndicator("{", true, true, false);
      IncreaseIndent(/*flow=*/true, /*indentless=*/false);
      PopIndent();
      WriteIndicator("}", false, false, false);
      return;
    }
    // A Go map: the last of duplicate keys wins, and keys are sorted.
    struct Entry {
      std::string key;
      std::u32string runes;
      const rapidjson::Value* value;
    };
    std::vector<Entry> entries;
    absl::flat_hash_map<std::string, size_t> index;
    for (const auto& m : v.GetObject()) {
      std::string key = ToValidUtf8(std::string_view(m.name.GetString(), m.name.GetStringLength()));
      auto [it, inserted] = index.try_emplace(key, entries.size());
      if (inserted) {
        entries.push_back(Entry{std::move(key), {}, &m.value});
      } else {
        entries[it->second].value = &m.value;
      }
    }
    for (Entry& e : entries) e.runes = ToRunes(e.key);
    // GoKeyLess is not transitive for every set of keys ("10000se" < "1e+20" < "3.1" <
    // "10000se"); Go then prints them in the random order of its map iteration. Sorting by bytes
    // first makes the result depend on the keys only.
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.key < b.key; });
    MergeSort(entries, [](const Entry& a, const Entry& b) { return GoKeyLess(a.runes, b.runes); });

    IncreaseIndent(/*flow=*/false, /*indentless=*/false);
    for (const Entry& e : entries) {
      WriteIndent();
      // yaml_emitter_check_simple_key: single-line keys of at most 128 bytes.
      if (!Analyze(e.key).multiline && e.key.size() <= 128) {
        root_context_ = false;
        sequence_context_ = false;
        mapping_context_ = true;
        simple_key_context_ = true;
        String(e.key, /*is_key=*/true);
        WriteIndicator(":", false, false, false);
      } else {
        WriteIndicator("?", true, false, true);
        root_context_ = false;
        sequence_context_ = false;
        mapping_context_ = true;
        simple_key_context_ = false;
        String(e.key, /*is_key=*/true);
        WriteIndent();
        WriteIndicator(":", true, false, true);
      }
      Node(*e.value, false, false, /*mapping=*/true, false);
    }
    PopIndent();
  }

  void IncreaseIndent(bool flow, bool indentless) {
    indents_.push_back(indent_);
    if (indent_ < 0) {
      indent_ = flow ? kBestIndent : 0;
    } else if (!indentless) {
      indent_ += kBestIndent;
    }
  }
  void PopIndent() {
    indent_ = indents_.back();
    indents_.pop_back();
  }

  void Put(char c) {
    out_.push_back(c);
    ++column_;
  }
  void PutBreak() {
    out_.push_back('\n');
    column_ = 0;
  }
  // Copies one character.
  void Write(std::string_view s, size_t* i) {
    const int w = Width(At(s, *i));
    out_.append(s.substr(*i, w));
    ++column_;
    *i += w;
  }
  void WriteBreak(std::string_view s, size_t* i) {
    if (s[*i] == '\n') {
      PutBreak();
      ++*i;
    } else {
      Write(s, i);
      column_ = 0;
    }
  }

  void WriteIndent() {
    const int indent = std::max(indent_, 0);
    if (!indention_ || column_ > indent || (column_ == indent && !whitespace_)) PutBreak();
    while (column_ < indent) Put(' ');
    whitespace_ = true;
    indention_ = true;
  }

  void WriteIndicator(std::string_view indicator, bool need_whitespace, bool is_whitespace,
                      bool is_indention) {
    if (need_whitespace && !whitespace_) Put(' ');
    for (size_t i = 0; i < indicator.size();) Write(indicator, &i);
    whitespace_ = is_whitespace;
    indention_ = indention_ && is_indention;
  }

  void WritePlain(std::string_view value, bool allow_breaks) {
    if (!whitespace_) Put(' ');
    bool spaces = false;
    bool breaks = false;
    for (size_t i = 0; i < value.size();) {
      if (IsSpace(value, i)) {
        if (allow_breaks && !spaces && column_ > kBestWidth && !IsSpace(value, i + 1)) {
          WriteIndent();
          i += Width(At(value, i));
        } else {
          Write(value, &i);
        }
        spaces = true;
      } else if (IsBreak(value, i)) {
        if (!breaks && value[i] == '\n') PutBreak();
        WriteBreak(value, &i);
        indention_ = true;
        breaks = true;
      } else {
        if (breaks) WriteIndent();
        Write(value, &i);
        indention_ = false;
        spaces = false;
        breaks = false;
      }
    }
    whitespace_ = false;
    indention_ = false;
  }

  void WriteSingleQuoted(std::string_view value, bool allow_breaks) {
    WriteIndicator("'", true, false, false);
    bool spaces = false;
    bool breaks = false;
    for (size_t i = 0; i < value.size();) {
      if (IsSpace(value, i)) {
        if (allow_breaks && !spaces && column_ > kBestWidth && i > 0 && i < value.size() - 1 &&
            !IsSpace(value, i + 1)) {
          WriteIndent();
          i += Width(At(value, i));
        } else {
          Write(value, &i);
        }
        spaces = true;
      } else if (IsBreak(value, i)) {
        if (!breaks && value[i] == '\n') PutBreak();
        WriteBreak(value, &i);
        indention_ = true;
        breaks = true;
      } else {
        if (breaks) WriteIndent();
        if (value[i] == '\'') Put('\'');
        Write(value, &i);
        indention_ = false;
        spaces = false;
        breaks = false;
      }
    }
    WriteIndicator("'", false, false, false);
    whitespace_ = false;
    indention_ = false;
  }

  void WriteDoubleQuoted(std::string_view value, bool allow_breaks) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    bool spaces = false;
    WriteIndicator("\"", true, false, false);
    for (size_t i = 0; i < value.size();) {
      if (!IsPrintable(value, i) || IsBom(value) || IsBreak(value, i) || value[i] == '"' ||
          value[i] == '\\') {
        unsigned char octet = At(value, i);
        int w = 1;
        char32_t v = octet & 0x7F;
        if ((octet & 0xE0) == 0xC0) {
          w = 2;
          v = octet & 0x1F;
        } else if ((octet & 0xF0) == 0xE0) {
          w = 3;
          v = octet & 0x0F;
        } else if ((octet & 0xF8) == 0xF0) {
          w = 4;
          v = octet & 0x07;
        }
        for (int k = 1; k < w; ++k) {
          octet = At(value, i + k);
          v = (v << 6) + (octet & 0x3F);
        }
        i += w;
        Put('\\');
        switch (v) {
          case 0x00: Put('0'); break;
          case 0x07: Put('a'); break;
          case 0x08: Put('b'); break;
          case 0x09: Put('t'); break;
          case 0x0A: Put('n'); break;
          case 0x0B: Put('v'); break;
          case 0x0C: Put('f'); break;
          case 0x0D: Put('r'); break;
          case 0x1B: Put('e'); break;
          case 0x22: Put('"'); break;
          case 0x5C: Put('\\'); break;
          case 0x85: Put('N'); break;
          case 0xA0: Put('_'); break;
          case 0x2028: Put('L'); break;
          case 0x2029: Put('P'); break;
          default: {
            int digits = 8;
            if (v <= 0xFF) {
              Put('x');
              digits = 2;
            } else if (v <= 0xFFFF) {
              Put('u');
              digits = 4;
            } else {
              Put('U');
            }
            for (int k = (digits - 1) * 4; k >= 0; k -= 4) Put(kHex[(v >> k) & 0x0F]);
          }
        }
        spaces = false;
      } else if (IsSpace(value, i)) {
        if (allow_breaks && !spaces && column_ > kBestWidth && i > 0 && i < value.size() - 1) {
          WriteIndent();
          if (IsSpace(value, i + 1)) Put('\\');
          i += Width(At(value, i));
        } else {
          Write(value, &i);
        }
        spaces = true;
      } else {
        Write(value, &i);
        spaces = false;
      }
    }
    WriteIndicator("\"", false, false, false);
    whitespace_ = false;
    indention_ = false;
  }

  void WriteBlockScalarHints(std::string_view value) {
    if (IsSpace(value, 0) || IsBreak(value, 0)) {
      const char hint[] = {static_cast<char>('0' + kBestIndent), 0};
      WriteIndicator(hint, false, false, false);
    }
    char chomp = 0;
    if (value.empty()) {
      chomp = '-';
    } else {
      size_t i = value.size() - 1;
      while ((At(value, i) & 0xC0) == 0x80) --i;
      if (!IsBreak(value, i)) {
        chomp = '-';
      } else if (i == 0) {
        chomp = '+';
      } else {
        --i;
        while ((At(value, i) & 0xC0) == 0x80) --i;
        if (IsBreak(value, i)) chomp = '+';
      }
    }
    if (chomp != 0) {
      const char hint[] = {chomp, 0};
      WriteIndicator(hint, false, false, false);
    }
  }

  void WriteLiteral(std::string_view value) {
    WriteIndicator("|", true, false, false);
    WriteBlockScalarHints(value);
    PutBreak();
    indention_ = true;
    whitespace_ = true;
    bool breaks = true;
    for (size_t i = 0; i < value.size();) {
      if (IsBreak(value, i)) {
        WriteBreak(value, &i);
        indention_ = true;
        breaks = true;
      } else {
        if (breaks) WriteIndent();
        Write(value, &i);
        indention_ = false;
        breaks = false;
      }
    }
  }

  std::string& out_;
  int indent_ = -1;
  std::vector<int> indents_;
  int column_ = 0;
  bool whitespace_ = true;
  bool indention_ = true;
  int flow_level_ = 0;
  bool root_context_ = false;
  bool sequence_context_ = false;
  bool mapping_context_ = false;
  bool simple_key_context_ = false;
};

// A read-only streambuf over the input, so that yaml-cpp reads it without a copy.
class ViewBuf : public std::streambuf {
 public:
  explicit ViewBuf(std::string_view s) {
    char* p = const_cast<char*>(s.data());
    setg(p, p, p + s.size());
  }
};

}  // namespace

absl::StatusOr<std::vector<YamlDocument>> ParseYamlStream(std::string_view text,
                                                          const YamlLimits& limits) {
  if (text.size() > limits.max_input_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat("yaml: input of ", text.size(),
                                                     " bytes exceeds the limit of ",
                                                     limits.max_input_bytes, " bytes"));
  }
  std::string storage;
  ASSIGN_OR_RETURN(std::string_view input, PrepareInput(text, &storage));
  ViewBuf buf(input);
  std::istream in(&buf);
  StreamState state{limits, input, 0, 0, 0, absl::OkStatus()};
  std::vector<YamlDocument> docs;
  try {
    YAML::Parser parser(in);
    while (true) {
      ++state.document;
      DocumentBuilder builder(&state);
      if (!parser.HandleNextDocument(builder)) break;
      if (builder.has_root()) {
        YamlDocument& d = docs.emplace_back();
        d.json.Swap(builder.doc());
        // Swap exchanges the allocators too, so the document owns its values.
        d.line = builder.line();
      }
    }
  } catch (const Abort&) {
    return state.error;
  } catch (const YAML::DeepRecursion& e) {
    return absl::ResourceExhaustedError(
        absl::StrCat("yaml: ", Where(e.mark), "nesting is too deep for the parser (document ",
                     state.document, ")"));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("yaml: ", Where(e.mark), e.msg, " (document ", state.document, ")"));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("yaml: out of memory");
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("yaml: ", e.what()));
  }
  return docs;
}

std::string WriteYaml(const rapidjson::Value& value) {
  std::string out;
  Emitter(&out).Document(value);
  return out;
}

std::string WriteYamlStream(const std::vector<const rapidjson::Value*>& values) {
  std::string out;
  bool first = true;
  for (const rapidjson::Value* v : values) {
    if (v == nullptr) continue;
    if (!first) out += "---\n";
    first = false;
    Emitter(&out).Document(*v);
  }
  return out;
}

}  // namespace draforge::api
