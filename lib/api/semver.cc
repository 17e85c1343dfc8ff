#include "api/semver.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status.h"

namespace draforge::api {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsAlphanumeric(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

bool OnlyDigits(std::string_view s) {
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

bool OnlyAlphanumeric(std::string_view s) {
  for (char c : s) {
    if (!IsAlphanumeric(c)) return false;
  }
  return true;
}

bool HasLeadingZeroes(std::string_view s) { return s.size() > 1 && s[0] == '0'; }

// The length of the UTF-8 sequence starting at s[i], or 0 when it is not valid UTF-8.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  uint32_t min = 0;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
    min = 0x80;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    min = 0x800;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  uint32_t rune = b & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    rune = (rune << 6) | (c & 0x3F);
  }
  if (rune < min || rune > 0x10FFFF || (rune >= 0xD800 && rune <= 0xDFFF)) return 0;
  return n;
}

// Go's %q (strconv.Quote), which blang uses in its messages. ASCII is escaped exactly as Go does;
// valid multi-byte UTF-8 is kept (Go also escapes the few non-printable code points among them).
std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t n = Utf8Length(s, i);
      if (n == 0) {
        absl::StrAppendFormat(&out, "\\x%02x", c);
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          absl::StrAppendFormat(&out, "\\x%02x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
  return out;
}

absl::Status Invalid(std::string_view message) { return absl::InvalidArgumentError(AV(message)); }

// strconv.ParseUint(s, 10, 64), with its error text; `s` is known to hold only digits.
absl::StatusOr<uint64_t> ParseUint(std::string_view s) {
  if (s.empty()) {
    return Invalid(absl::StrCat("strconv.ParseUint: parsing ", GoQuote(s), ": invalid syntax"));
  }
  uint64_t value = 0;
  for (char c : s) {
    const auto digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      return Invalid(absl::StrCat("strconv.ParseUint: parsing ", GoQuote(s), ": value out of range"));
    }
    value = value * 10 + digit;
  }
  return value;
}

// strings.SplitN(s, sep, n) for n > 0.
std::vector<std::string_view> SplitN(std::string_view s, char sep, size_t n) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < n) {
    const size_t i = s.find(sep);
    if (i == std::string_view::npos) break;
    parts.push_back(s.substr(0, i));
    s.remove_prefix(i + 1);
  }
  parts.push_back(s);
  return parts;
}

// A MAJOR, MINOR or PATCH number.
absl::StatusOr<uint64_t> ParseNumber(std::string_view s, std::string_view lower, std::string_view upper) {
  if (!OnlyDigits(s)) {
    return Invalid(absl::StrCat("Invalid character(s) found in ", AV(lower), " number ", GoQuote(s)));
  }
  if (HasLeadingZeroes(s)) {
    return Invalid(absl::StrCat(AV(upper), " number must not contain leading zeroes ", GoQuote(s)));
  }
  return ParseUint(s);
}

absl::StatusOr<Semver::PrereleaseIdentifier> ParsePrerelease(std::string_view s) {
  if (s.empty()) return Invalid("Prerelease is empty");
  Semver::PrereleaseIdentifier id;
  id.text.assign(s.data(), s.size());
  if (OnlyDigits(s)) {
    if (HasLeadingZeroes(s)) {
      return Invalid(absl::StrCat("Numeric PreRelease version must not contain leading zeroes ", GoQuote(s)));
    }
    ASSIGN_OR_RETURN(id.number, ParseUint(s));
    id.numeric = true;
  } else if (!OnlyAlphanumeric(s)) {
    return Invalid(absl::StrCat("Invalid character(s) found in prerelease ", GoQuote(s)));
  }
  return id;
}

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

template <typename T>
int CompareNumbers(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

int ComparePrerelease(const Semver::PrereleaseIdentifier& a, const Semver::PrereleaseIdentifier& b) {
  if (a.numeric != b.numeric) return a.numeric ? -1 : 1;
  if (a.numeric) return CompareNumbers(a.number, b.number);
  return Sign(a.text.compare(b.text));
}

}  // namespace

absl::StatusOr<Semver> Semver::Parse(std::string_view text) {
  if (text.empty()) return Invalid("Version string empty");
  const std::vector<std::string_view> parts = SplitN(text, '.', 3);
  if (parts.size() != 3) return Invalid("No Major.Minor.Patch elements found");

  Semver v;
  ASSIGN_OR_RETURN(v.major_, ParseNumber(parts[0], "major", "Major"));
  ASSIGN_OR_RETURN(v.minor_, ParseNumber(parts[1], "minor", "Minor"));

  // The build metadata starts at the first '+', the prerelease at the first '-' before it.
  std::string_view patch = parts[2];
  std::vector<std::string_view> build;
  std::vector<std::string_view> prerelease;
  if (const size_t plus = patch.find('+'); plus != std::string_view::npos) {
    build = SplitN(patch.substr(plus + 1), '.', std::numeric_limits<size_t>::max());
    patch = patch.substr(0, plus);
  }
  if (const size_t minus = patch.find('-'); minus != std::string_view::npos) {
    prerelease = SplitN(patch.substr(minus + 1), '.', std::numeric_limits<size_t>::max());
    patch = patch.substr(0, minus);
  }
  ASSIGN_OR_RETURN(v.patch_, ParseNumber(patch, "patch", "Patch"));

  for (std::string_view identifier : prerelease) {
    ASSIGN_OR_RETURN(PrereleaseIdentifier parsed, ParsePrerelease(identifier));
    v.prerelease_.push_back(std::move(parsed));
  }
  for (std::string_view identifier : build) {
    if (identifier.empty()) return Invalid("Build meta data is empty");
    if (!OnlyAlphanumeric(identifier)) {
      return Invalid(absl::StrCat("Invalid character(s) found in build meta data ", GoQuote(identifier)));
    }
    v.build_.emplace_back(identifier);
  }
  return v;
}

absl::StatusOr<Semver> Semver::ParseNormalized(std::string_view text) {
  if (!text.empty() && text[0] == 'v') text.remove_prefix(1);
  std::vector<std::string> parts;
  for (std::string_view part : SplitN(text, '.', 3)) {
    std::string normalized(part);
    if (part.size() > 1) {
      const size_t first = part.find_first_not_of('0');
      normalized = first == std::string_view::npos ? "" : std::string(part.substr(first));
      if (normalized.empty() || !IsDigit(normalized[0])) normalized.insert(0, "0");
    }
    parts.push_back(std::move(normalized));
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      return Invalid("short version cannot contain PreRelease/Build meta data");
    }
    parts.resize(3, "0");
  }
  return Parse(absl::StrJoin(parts, "."));
}

std::string Semver::String() const {
  std::string out = absl::StrCat(major_, ".", minor_, ".", patch_);
  if (!prerelease_.empty()) {
    absl::StrAppend(&out, "-",
                    absl::StrJoin(prerelease_, ".", [](std::string* o, const PrereleaseIdentifier& id) {
                      o->append(id.numeric ? absl::StrCat(id.number) : id.text);
                    }));
  }
  if (!build_.empty()) absl::StrAppend(&out, "+", absl::StrJoin(build_, "."));
  return out;
}

int Semver::Compare(const Semver& other) const {
  if (major_ != other.major_) return CompareNumbers(major_, other.major_);
  if (minor_ != other.minor_) return CompareNumbers(minor_, other.minor_);
  if (patch_ != other.patch_) return CompareNumbers(patch_, other.patch_);
  // A release sorts after its prereleases.
  if (prerelease_.empty() != other.prerelease_.empty()) return prerelease_.empty() ? 1 : -1;
  for (size_t i = 0; i < prerelease_.size() && i < other.prerelease_.size(); ++i) {
    if (const int c = ComparePrerelease(prerelease_[i], other.prerelease_[i]); c != 0) return c;
  }
  return CompareNumbers(prerelease_.size(), other.prerelease_.size());
}

}  // namespace draforge::api
