// Go's net/netip address and prefix parsing and printing, with Go's error texts (the Kubernetes IP
// and CIDR CEL libraries wrap them into their runtime errors, which users see).
#include "cel/net.h"

#include <cstring>

#include "cel/internal/utf8.h"

namespace draforge::cel {
namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string AddrError(std::string_view in, std::string_view msg, std::string_view at = {}) {
  std::string out = "ParseAddr(" + GoQuoted(in) + "): ";
  out.append(msg);
  if (!at.empty()) out += " (at " + GoQuoted(at) + ")";
  return out;
}

// parseIPv4Fields over in[off, end): four decimal octets without leading zeros.
bool ParseV4Fields(std::string_view in, size_t off, size_t end, uint8_t* fields, std::string* error) {
  std::string_view s = in.substr(off, end - off);
  int val = 0, pos = 0, digits = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits == 1 && val == 0) {
        *error = AddrError(in, "IPv4 field has octet with leading zero");
        return false;
      }
      val = val * 10 + (c - '0');
      ++digits;
      if (val > 255) {
        *error = AddrError(in, "IPv4 field has value >255");
        return false;
      }
    } else if (c == '.') {
      if (i == 0 || i == s.size() - 1 || s[i - 1] == '.') {
        *error = AddrError(in, "IPv4 field must have at least one digit", s.substr(i));
        return false;
      }
      if (pos == 3) {
        *error = AddrError(in, "IPv4 address too long");
        return false;
      }
      fields[pos++] = static_cast<uint8_t>(val);
      val = 0;
      digits = 0;
    } else {
      *error = AddrError(in, "unexpected character", s.substr(i));
      return false;
    }
  }
  if (pos < 3) {
    *error = AddrError(in, "IPv4 address too short");
    return false;
  }
  fields[3] = static_cast<uint8_t>(val);
  return true;
}

bool ParseV6(std::string_view in, NetAddr* out, bool* has_zone, std::string* error) {
  std::string_view s = in;
  size_t zone_len = 0;
  if (size_t pct = s.find('%'); pct != std::string_view::npos) {
    zone_len = s.size() - pct - 1;
    s = s.substr(0, pct);
    if (zone_len == 0) {
      *error = AddrError(in, "zone must be a non-empty string");
      return false;
    }
    *has_zone = true;
  }
  uint8_t ip[16] = {};
  int ellipsis = -1;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) {
      *out = NetAddr{};
      return true;
    }
  }
  int i = 0;
  while (i < 16) {
    size_t off = 0;
    uint32_t acc = 0;
    for (; off < s.size(); ++off) {
      char c = s[off];
      if (c >= '0' && c <= '9') {
        acc = (acc << 4) + static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        acc = (acc << 4) + static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        acc = (acc << 4) + static_cast<uint32_t>(c - 'A' + 10);
      } else {
        break;
      }
      if (off > 3) {
        *error = AddrError(in, "each group must have 4 or less digits", s);
        return false;
      }
      if (acc > 0xFFFF) {
        *error = AddrError(in, "IPv6 field has value >=2^16", s);
        return false;
      }
    }
    if (off == 0) {
      *error = AddrError(in, "each colon-separated field must have at least one digit", s);
      return false;
    }
    if (off < s.size() && s[off] == '.') {
      if (ellipsis < 0 && i != 12) {
        *error = AddrError(in, "embedded IPv4 address must replace the final 2 fields of the address", s);
        return false;
      }
      if (i + 4 > 16) {
        *error = AddrError(in, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
        return false;
      }
      size_t end = in.size() - (zone_len > 0 ? zone_len + 1 : 0);
      if (!ParseV4Fields(in, end - s.size(), end, ip + i, error)) return false;
      s = {};
      i += 4;
      break;
    }
    ip[i] = static_cast<uint8_t>(acc >> 8);
    ip[i + 1] = static_cast<uint8_t>(acc);
    i += 2;
    s.remove_prefix(off);
    if (s.empty()) break;
    if (s[0] != ':') {
      *error = AddrError(in, "unexpected character, want colon", s);
      return false;
    }
    if (s.size() == 1) {
      *error = AddrError(in, "colon must be followed by more characters", s);
      return false;
    }
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) {
        *error = AddrError(in, "multiple :: in address", s);
        return false;
      }
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) {
    *error = AddrError(in, "trailing garbage after address", s);
    return false;
  }
  if (i < 16) {
    if (ellipsis < 0) {
      *error = AddrError(in, "address string too short");
      return false;
    }
    int n = 16 - i;
    for (int j = i - 1; j >= ellipsis; --j) ip[j + n] = ip[j];
    std::memset(ip + ellipsis, 0, static_cast<size_t>(n));
  } else if (ellipsis >= 0) {
    *error = AddrError(in, "the :: must expand to at least one field of zeros");
    return false;
  }
  std::memcpy(out->bytes, ip, 16);
  out->is4 = false;
  return true;
}

// The address with all but the first `bits` bits cleared.
NetAddr MaskTo(const NetAddr& a, int bits) {
  NetAddr m = a;
  const int total = a.BitLen() / 8;
  for (int byte = 0; byte < total; ++byte) {
    int keep = bits - byte * 8;
    if (keep >= 8) continue;
    m.bytes[byte] = keep <= 0 ? 0 : static_cast<uint8_t>(m.bytes[byte] & (0xFF << (8 - keep)));
  }
  return m;
}

uint16_t V6Group(const NetAddr& a, int i) { return static_cast<uint16_t>(a.bytes[2 * i] << 8 | a.bytes[2 * i + 1]); }

}  // namespace

std::string GoQuoted(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      // A valid rune is kept; a byte that is not part of one is written \xHH, as strconv.Quote does.
      const size_t n = internal::DecodeRune(s, i).second;
      if (n == 0) {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
      } else {
        out.append(s.substr(i, n));
        i += n - 1;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

bool operator==(const NetAddr& a, const NetAddr& b) {
  return a.is4 == b.is4 && std::memcmp(a.bytes, b.bytes, a.is4 ? 4 : 16) == 0;
}

bool NetAddr::Is4In6() const {
  if (is4) return false;
  for (int i = 0; i < 10; ++i) {
    if (bytes[i] != 0) return false;
  }
  return bytes[10] == 0xFF && bytes[11] == 0xFF;
}

bool NetAddr::IsUnspecified() const {
  for (int i = 0; i < BitLen() / 8; ++i) {
    if (bytes[i] != 0) return false;
  }
  return true;
}

bool NetAddr::IsLoopback() const {
  if (is4) return bytes[0] == 127;
  for (int i = 0; i < 15; ++i) {
    if (bytes[i] != 0) return false;
  }
  return bytes[15] == 1;
}

bool NetAddr::IsLinkLocalMulticast() const {
  if (is4) return bytes[0] == 224 && bytes[1] == 0 && bytes[2] == 0;
  return (V6Group(*this, 0) & 0xFF0F) == 0xFF02;
}

bool NetAddr::IsLinkLocalUnicast() const {
  if (is4) return bytes[0] == 169 && bytes[1] == 254;
  return (V6Group(*this, 0) & 0xFFC0) == 0xFE80;
}

bool NetAddr::IsGlobalUnicast() const {
  // Addresses reaching CEL are never IPv4-mapped (the library rejects them), so no unmapping here.
  if (is4 && (IsUnspecified() || (bytes[0] == 255 && bytes[1] == 255 && bytes[2] == 255 && bytes[3] == 255))) {
    return false;
  }
  const bool multicast = is4 ? (bytes[0] & 0xF0) == 0xE0 : bytes[0] == 0xFF;
  return !IsUnspecified() && !IsLoopback() && !multicast && !IsLinkLocalUnicast();
}

std::string NetAddr::String() const {
  std::string out;
  if (is4) {
    for (int i = 0; i < 4; ++i) {
      if (i > 0) out += '.';
      out += std::to_string(bytes[i]);
    }
    return out;
  }
  int zero_start = 255, zero_end = 255;
  for (int i = 0; i < 8; ++i) {
    int j = i;
    while (j < 8 && V6Group(*this, j) == 0) ++j;
    if (int l = j - i; l >= 2 && l > zero_end - zero_start) {
      zero_start = i;
      zero_end = j;
    }
  }
  for (int i = 0; i < 8; ++i) {
    if (i == zero_start) {
      out += "::";
      i = zero_end;
      if (i >= 8) break;
    } else if (i > 0) {
      out += ':';
    }
    uint16_t g = V6Group(*this, i);
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      int d = (g >> shift) & 0xF;
      if (d != 0 || started || shift == 0) {
        out += kHex[d];
        started = true;
      }
    }
  }
  return out;
}

bool NetPrefix::Contains(const NetAddr& ip) const {
  if (ip.is4 != addr.is4) return false;
  return MaskTo(ip, bits) == MaskTo(addr, bits);
}

bool NetPrefix::Overlaps(const NetPrefix& o) const {
  if (*this == o) return true;
  if (addr.is4 != o.addr.is4) return false;
  int min_bits = bits < o.bits ? bits : o.bits;
  if (min_bits == 0) return true;
  return MaskTo(addr, min_bits) == MaskTo(o.addr, min_bits);
}

NetPrefix NetPrefix::Masked() const { return NetPrefix{MaskTo(addr, bits), bits}; }

std::string NetPrefix::String() const { return addr.String() + "/" + std::to_string(bits); }

bool ParseNetAddr(std::string_view s, NetAddr* out, bool* has_zone, std::string* error) {
  *has_zone = false;
  for (char c : s) {
    if (c == '.') {
      NetAddr a;
      a.is4 = true;
      if (!ParseV4Fields(s, 0, s.size(), a.bytes, error)) return false;
      *out = a;
      return true;
    }
    if (c == ':') return ParseV6(s, out, has_zone, error);
    if (c == '%') {
      *error = AddrError(s, "missing IPv6 address");
      return false;
    }
  }
  *error = AddrError(s, "unable to parse IP");
  return false;
}

bool ParseNetPrefix(std::string_view s, NetPrefix* out, std::string* error) {
  const std::string head = "netip.ParsePrefix(" + GoQuoted(s) + "): ";
  size_t slash = s.rfind('/');
  if (slash == std::string_view::npos) {
    *error = head + "no '/'";
    return false;
  }
  NetAddr ip;
  bool zone = false;
  std::string addr_error;
  if (!ParseNetAddr(s.substr(0, slash), &ip, &zone, &addr_error)) {
    *error = head + addr_error;
    return false;
  }
  if (zone) {
    *error = head + "IPv6 zones cannot be present in a prefix";
    return false;
  }
  std::string_view bits_str = s.substr(slash + 1);
  const std::string bad_bits = head + "bad bits after slash: " + GoQuoted(bits_str);
  if (bits_str.size() > 1 && (bits_str[0] < '1' || bits_str[0] > '9')) {
    *error = bad_bits;
    return false;
  }
  // strconv.Atoi: after the first-digit rule above only "+", "-", a lone digit or digits remain;
  // Atoi fails (bad bits) on a lone sign, an empty string and numbers beyond int64.
  bool digits = !bits_str.empty();
  for (char c : bits_str) digits = digits && c >= '0' && c <= '9';
  if (!digits || bits_str.size() > 19 || (bits_str.size() == 19 && bits_str > "9223372036854775807")) {
    *error = bad_bits;
    return false;
  }
  int bits = 0;
  for (char c : bits_str) {
    bits = bits * 10 + (c - '0');
    if (bits > 1000) break;
  }
  if (bits > ip.BitLen()) {
    *error = head + "prefix length out of range";
    return false;
  }
  out->addr = ip;
  out->bits = bits;
  return true;
}

}  // namespace draforge::cel
