#include "cel/url.h"

#include "cel/internal/str.h"
#include "cel/net.h"

namespace draforge::cel {

using internal::Cat;

namespace {

// net/url's encoding modes.
enum class Mode { kPath, kPathSegment, kHost, kZone, kUserPassword, kQueryComponent, kFragment };

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
unsigned char Unhex(char c) {
  const auto u = static_cast<unsigned char>(c);
  return static_cast<unsigned char>(9 * (u >> 6) + (u & 15));
}

// shouldEscape in net/url (gen_encoding_table.go).
bool ShouldEscape(unsigned char c, Mode mode) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return false;
  if (mode == Mode::kHost || mode == Mode::kZone) {
    switch (c) {
      case '!': case '$': case '&': case '\'': case '(': case ')': case '*': case '+': case ',': case ';':
      case '=': case ':': case '[': case ']': case '<': case '>': case '"':
        return false;
      default: break;
    }
  }
  switch (c) {
    case '-': case '_': case '.': case '~': return false;
    case '$': case '&': case '+': case ',': case '/': case ':': case ';': case '=': case '?': case '@':
      switch (mode) {
        case Mode::kPath: return c == '?';
        case Mode::kPathSegment: return c == '/' || c == ';' || c == ',' || c == '?';
        case Mode::kUserPassword: return c == '@' || c == '/' || c == '?' || c == ':';
        case Mode::kQueryComponent: return true;
        case Mode::kFragment: return false;
        default: break;
      }
      break;
    default: break;
  }
  if (mode == Mode::kFragment && (c == '!' || c == '(' || c == ')' || c == '*')) return false;
  return true;
}

// unescape in net/url: false with the error text.
bool Unescape(std::string_view s, Mode mode, std::string* out, std::string* error) {
  size_t n = 0;
  bool has_plus = false;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '%') {
      ++n;
      if (i + 2 >= s.size() || !IsHex(s[i + 1]) || !IsHex(s[i + 2])) {
        *error = "invalid URL escape " + GoQuoted(s.substr(i, 3));
        return false;
      }
      if (mode == Mode::kHost && Unhex(s[i + 1]) < 8 && s.substr(i, 3) != "%25") {
        *error = "invalid URL escape " + GoQuoted(s.substr(i, 3));
        return false;
      }
      if (mode == Mode::kZone) {
        const unsigned char v = static_cast<unsigned char>(Unhex(s[i + 1]) << 4 | Unhex(s[i + 2]));
        if (s.substr(i, 3) != "%25" && v != ' ' && ShouldEscape(v, Mode::kHost)) {
          *error = "invalid URL escape " + GoQuoted(s.substr(i, 3));
          return false;
        }
      }
      i += 3;
    } else if (c == '+') {
      has_plus = mode == Mode::kQueryComponent;
      ++i;
    } else {
      if ((mode == Mode::kHost || mode == Mode::kZone) && static_cast<unsigned char>(c) < 0x80 &&
          ShouldEscape(static_cast<unsigned char>(c), mode)) {
        *error = "invalid character " + GoQuoted(s.substr(i, 1)) + " in host name";
        return false;
      }
      ++i;
    }
  }
  if (n == 0 && !has_plus) {
    out->assign(s);
    return true;
  }
  std::string t;
  t.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      t.push_back(static_cast<char>(Unhex(s[i + 1]) << 4 | Unhex(s[i + 2])));
      i += 2;
    } else if (s[i] == '+') {
      t.push_back(mode == Mode::kQueryComponent ? ' ' : '+');
    } else {
      t.push_back(s[i]);
    }
  }
  *out = std::move(t);
  return true;
}

// escape in net/url.
std::string Escape(std::string_view s, Mode mode) {
  static constexpr char kUpperHex[] = "0123456789ABCDEF";
  std::string t;
  t.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' && mode == Mode::kQueryComponent) {
      t.push_back('+');
    } else if (ShouldEscape(c, mode)) {
      t.push_back('%');
      t.push_back(kUpperHex[c >> 4]);
      t.push_back(kUpperHex[c & 15]);
    } else {
      t.push_back(ch);
    }
  }
  return t;
}

bool ValidEncoded(std::string_view s, Mode mode) {
  for (char ch : s) {
    switch (ch) {
      case '!': case '$': case '&': case '\'': case '(': case ')': case '*': case '+': case ',': case ';':
      case '=': case ':': case '@': case '[': case ']': case '%':
        continue;
      default:
        if (ShouldEscape(static_cast<unsigned char>(ch), mode)) return false;
    }
  }
  return true;
}

bool ValidOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  for (char c : port.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool ValidUserinfo(std::string_view s) {
  for (char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) continue;
    switch (c) {
      case '-': case '.': case '_': case ':': case '~': case '!': case '$': case '&': case '\'': case '(':
      case ')': case '*': case '+': case ',': case ';': case '=': case '%': case '@':
        continue;
      default:
        // Go ranges over runes: any non-ASCII rune is invalid too.
        return false;
    }
  }
  return true;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// getScheme: false with the error.
bool GetScheme(std::string_view raw, std::string_view* scheme, std::string_view* rest, std::string* error) {
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) break;
      continue;
    }
    if (c == ':') {
      if (i == 0) {
        *error = "missing protocol scheme";
        return false;
      }
      *scheme = raw.substr(0, i);
      *rest = raw.substr(i + 1);
      return true;
    }
    break;
  }
  *scheme = {};
  *rest = raw;
  return true;
}

bool ParseHost(std::string_view scheme, std::string_view host, std::string* out, std::string* error) {
  const size_t open = host.rfind('[');
  if (open != std::string_view::npos && open > 0) {
    *error = "invalid IP-literal";
    return false;
  }
  if (open == 0) {
    const size_t close = host.rfind(']');
    if (close == std::string_view::npos) {
      *error = "missing ']' in host";
      return false;
    }
    const std::string_view colon_port = host.substr(close + 1);
    if (!ValidOptionalPort(colon_port)) {
      *error = "invalid port " + GoQuoted(colon_port) + " after host";
      return false;
    }
    std::string port;
    if (!Unescape(colon_port, Mode::kHost, &port, error)) return false;
    const std::string_view hostname = host.substr(1, close - 1);
    std::string unescaped;
    const size_t zone = hostname.find("%25");
    if (zone != std::string_view::npos) {
      std::string h, z;
      if (!Unescape(hostname.substr(0, zone), Mode::kHost, &h, error)) return false;
      if (!Unescape(hostname.substr(zone), Mode::kZone, &z, error)) return false;
      unescaped = h + z;
    } else if (!Unescape(hostname, Mode::kHost, &unescaped, error)) {
      return false;
    }
    NetAddr addr;
    bool has_zone = false;
    std::string addr_error;
    if (!ParseNetAddr(unescaped, &addr, &has_zone, &addr_error)) {
      *error = "invalid host: " + addr_error;
      return false;
    }
    if (addr.is4) {
      *error = "invalid IP-literal";
      return false;
    }
    *out = "[" + unescaped + "]" + port;
    return true;
  }
  const size_t first = host.find(':');
  if (first != std::string_view::npos) {
    size_t i = first;
    const size_t last = host.rfind(':');
    // Go 1.26 (urlstrictcolons=1): http and https keep the first colon, so "a:b:80" has an invalid
    // port; other schemes take the last one.
    if (last != first && scheme != "http" && scheme != "https") i = last;
    const std::string_view colon_port = host.substr(i);
    if (!ValidOptionalPort(colon_port)) {
      *error = "invalid port " + GoQuoted(colon_port) + " after host";
      return false;
    }
  }
  return Unescape(host, Mode::kHost, out, error);
}

bool ParseAuthority(std::string_view scheme, std::string_view authority, Url* u, std::string* error) {
  const size_t at = authority.rfind('@');
  if (!ParseHost(scheme, at == std::string_view::npos ? authority : authority.substr(at + 1), &u->host, error)) {
    return false;
  }
  if (at == std::string_view::npos) return true;
  const std::string_view userinfo = authority.substr(0, at);
  if (!ValidUserinfo(userinfo)) {
    *error = "net/url: invalid userinfo";
    return false;
  }
  Url::User user;
  const size_t colon = userinfo.find(':');
  if (colon == std::string_view::npos) {
    if (!Unescape(userinfo, Mode::kUserPassword, &user.username, error)) return false;
  } else {
    if (!Unescape(userinfo.substr(0, colon), Mode::kUserPassword, &user.username, error)) return false;
    if (!Unescape(userinfo.substr(colon + 1), Mode::kUserPassword, &user.password, error)) return false;
    user.has_password = true;
  }
  u->user = std::move(user);
  return true;
}

bool SetPath(Url* u, std::string_view p, std::string* error) {
  if (!Unescape(p, Mode::kPath, &u->path, error)) return false;
  if (Escape(u->path, Mode::kPath) == p) {
    u->raw_path.clear();
  } else {
    u->raw_path.assign(p);
  }
  return true;
}

// parse in net/url: false with the bare error (the caller adds `parse "..."`).
bool Parse(std::string_view raw, bool via_request, Url* u, std::string* error) {
  for (char c : raw) {
    if (static_cast<unsigned char>(c) < ' ' || c == 0x7f) {
      *error = "net/url: invalid control character in URL";
      return false;
    }
  }
  if (raw.empty() && via_request) {
    *error = "empty url";
    return false;
  }
  *u = Url{};
  if (raw == "*") {
    u->path = "*";
    return true;
  }
  std::string_view scheme, rest;
  if (!GetScheme(raw, &scheme, &rest, error)) return false;
  u->scheme = AsciiLower(scheme);
  if (!rest.empty() && rest.back() == '?' && rest.find('?') == rest.size() - 1) {
    u->force_query = true;
    rest.remove_suffix(1);
  } else if (const size_t q = rest.find('?'); q != std::string_view::npos) {
    u->raw_query.assign(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  const bool slash = !rest.empty() && rest[0] == '/';
  if (!slash) {
    if (!u->scheme.empty()) {
      u->opaque.assign(rest);
      return true;
    }
    if (via_request) {
      *error = "invalid URI for request";
      return false;
    }
    if (rest.substr(0, rest.find('/')).find(':') != std::string_view::npos) {
      *error = "first path segment in URL cannot contain colon";
      return false;
    }
  }
  const bool two = rest.substr(0, 2) == "//";
  if ((!u->scheme.empty() || (!via_request && rest.substr(0, 3) != "///")) && two) {
    std::string_view authority = rest.substr(2);
    rest = {};
    if (const size_t i = authority.find('/'); i != std::string_view::npos) {
      rest = authority.substr(i);
      authority = authority.substr(0, i);
    }
    if (!ParseAuthority(u->scheme, authority, u, error)) return false;
  } else if (!u->scheme.empty() && slash) {
    u->omit_host = true;
  }
  return SetPath(u, rest, error);
}

std::pair<std::string_view, std::string_view> SplitHostPort(std::string_view host_port) {
  std::string_view host = host_port, port;
  const size_t colon = host.rfind(':');
  if (colon != std::string_view::npos && ValidOptionalPort(host.substr(colon))) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, port};
}

}  // namespace

bool ParseRequestURI(std::string_view raw, Url* out, std::string* error) {
  std::string e;
  if (!Parse(raw, true, out, &e)) {
    *error = Cat("parse ", GoQuoted(raw), ": ", e);
    return false;
  }
  return true;
}

bool ParseURL(std::string_view raw, Url* out, std::string* error) {
  const size_t hash = raw.find('#');
  const std::string_view u = raw.substr(0, hash);
  std::string e;
  if (!Parse(u, false, out, &e)) {
    *error = Cat("parse ", GoQuoted(u), ": ", e);
    return false;
  }
  if (hash == std::string_view::npos) return true;
  const std::string_view frag = raw.substr(hash + 1);
  if (frag.empty()) return true;
  if (!Unescape(frag, Mode::kFragment, &out->fragment, &e)) {
    *error = Cat("parse ", GoQuoted(raw), ": ", e);
    return false;
  }
  if (Escape(out->fragment, Mode::kFragment) == frag) {
    out->raw_fragment.clear();
  } else {
    out->raw_fragment.assign(frag);
  }
  return true;
}

std::string Url::EscapedPath() const {
  if (!raw_path.empty() && ValidEncoded(raw_path, Mode::kPath)) {
    std::string p, e;
    if (Unescape(raw_path, Mode::kPath, &p, &e) && p == path) return raw_path;
  }
  if (path == "*") return "*";
  return Escape(path, Mode::kPath);
}

std::string Url::String() const {
  std::string buf;
  if (!scheme.empty()) {
    buf += scheme;
    buf += ':';
  }
  if (!opaque.empty()) {
    buf += opaque;
  } else {
    if (!scheme.empty() || !host.empty() || user) {
      if (!(omit_host && host.empty() && !user)) {
        if (!host.empty() || !path.empty() || user) buf += "//";
        if (user) {
          buf += Escape(user->username, Mode::kUserPassword);
          if (user->has_password) {
            buf += ':';
            buf += Escape(user->password, Mode::kUserPassword);
          }
          buf += '@';
        }
        if (!host.empty()) buf += Escape(host, Mode::kHost);
      }
    }
    const std::string p = EscapedPath();
    if (!p.empty() && p[0] != '/' && !host.empty()) buf += '/';
    if (buf.empty()) {
      if (std::string_view(p).substr(0, p.find('/')).find(':') != std::string_view::npos) buf += "./";
    }
    buf += p;
  }
  if (force_query || !raw_query.empty()) {
    buf += '?';
    buf += raw_query;
  }
  if (!fragment.empty()) {
    buf += '#';
    std::string f, e;
    if (!raw_fragment.empty() && ValidEncoded(raw_fragment, Mode::kFragment) &&
        Unescape(raw_fragment, Mode::kFragment, &f, &e) && f == fragment) {
      buf += raw_fragment;
    } else {
      buf += Escape(fragment, Mode::kFragment);
    }
  }
  return buf;
}

std::string Url::Hostname() const { return std::string(SplitHostPort(host).first); }
std::string Url::Port() const { return std::string(SplitHostPort(host).second); }

std::map<std::string, std::vector<std::string>> Url::Query() const {
  std::map<std::string, std::vector<std::string>> m;
  // Go's parseQuery gives up on more than 10000 parameters (Query() ignores the error).
  size_t amps = 0;
  for (char c : raw_query) amps += c == '&';
  if (amps + 1 > 10000) return m;
  std::string_view q = raw_query;
  while (!q.empty()) {
    const size_t amp = q.find('&');
    std::string_view kv = q.substr(0, amp);
    q = amp == std::string_view::npos ? std::string_view() : q.substr(amp + 1);
    if (kv.find(';') != std::string_view::npos || kv.empty()) continue;
    const size_t eq = kv.find('=');
    std::string key, value, e;
    if (!Unescape(kv.substr(0, eq), Mode::kQueryComponent, &key, &e)) continue;
    if (!Unescape(eq == std::string_view::npos ? std::string_view() : kv.substr(eq + 1), Mode::kQueryComponent,
                  &value, &e)) {
      continue;
    }
    m[key].push_back(std::move(value));
  }
  return m;
}

}  // namespace draforge::cel
