#include "api/qualified_name.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/status.h"

namespace draforge::api {
namespace {

// Splits on every `sep` like Go's strings.Split (empty parts kept).
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}


// The regular expressions of apimachinery, matched by hand (Go's regexp `^...$` anchors to the whole
// text, so there is no trailing-newline leniency to reproduce).
constexpr std::string_view kDNS1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDNS1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDNS1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character";
constexpr std::string_view kDNS1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character";
constexpr std::string_view kDNS1123SubdomainCaselessErrMsg =
    "an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and "
    "end with an alphanumeric character";
constexpr std::string_view kLabelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelKeyErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character";
constexpr std::string_view kCIdentifierFmt = "[A-Za-z_][A-Za-z0-9_]*";
constexpr std::string_view kCIdentifierErrMsg =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_'";

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])? (or the caseless variant).
bool MatchesLabel(std::string_view s, bool caseless) {
  if (s.empty()) return false;
  auto end_ok = [&](char c) { return caseless ? IsAlnum(c) : IsLowerAlnum(c); };
  if (!end_ok(s.front()) || !end_ok(s.back())) return false;
  for (char c : s) {
    if (!end_ok(c) && c != '-') return false;
  }
  return true;
}

bool MatchesSubdomain(std::string_view s, bool caseless) {
  for (std::string_view part : Split(s, '.')) {
    if (!MatchesLabel(part, caseless)) return false;
  }
  return true;
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesLabelKeyName(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool MatchesCIdentifier(std::string_view s) {
  if (s.empty()) return false;
  if (!absl::ascii_isalpha(static_cast<unsigned char>(s.front())) && s.front() != '_') return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '_') return false;
  }
  return true;
}

std::vector<std::string> PrefixEach(std::vector<std::string> msgs, std::string_view prefix) {
  for (auto& m : msgs) m = absl::StrCat(AV(prefix), m);
  return msgs;
}

void Append(std::vector<std::string>& to, std::vector<std::string> from) {
  for (auto& m : from) to.push_back(std::move(m));
}

std::vector<std::string> SplitAll(std::string_view s, char sep) {
  std::vector<std::string> parts;
  for (std::string_view p : Split(s, sep)) parts.emplace_back(p);
  return parts;
}

}  // namespace

std::string MaxLenError(size_t length, LengthUnit unit) {
  return absl::StrCat("must be no more than ", length, unit == LengthUnit::kBytes ? " bytes" : " characters");
}

std::string RegexError(std::string_view msg, std::string_view regex, const std::vector<std::string_view>& examples) {
  std::string out(msg);
  if (examples.empty()) return absl::StrCat(out, " (regex used for validation is '", AV(regex), "')");
  out += " (e.g. ";
  for (size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    absl::StrAppend(&out, "'", AV(examples[i]), "', ");
  }
  absl::StrAppend(&out, "regex used for validation is '", AV(regex), "')");
  return out;
}

std::vector<std::string> IsDNS1123Label(std::string_view value, LengthUnit unit) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1123LabelMaxLength) errs.push_back(MaxLenError(kDNS1123LabelMaxLength, unit));
  if (!MatchesLabel(value, false)) {
    if (MatchesSubdomain(value, false)) {
      errs.push_back("must not contain dots");
    } else {
      errs.push_back(RegexError(kDNS1123LabelErrMsg, kDNS1123LabelFmt, {"my-name", "123-abc"}));
    }
  }
  return errs;
}

std::vector<std::string> IsDNS1123Subdomain(std::string_view value, LengthUnit unit) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1123SubdomainMaxLength) errs.push_back(MaxLenError(kDNS1123SubdomainMaxLength, unit));
  if (!MatchesSubdomain(value, false)) {
    errs.push_back(RegexError(kDNS1123SubdomainErrMsg, kDNS1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsDNS1123SubdomainCaseless(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1123SubdomainMaxLength) {
    errs.push_back(MaxLenError(kDNS1123SubdomainMaxLength, LengthUnit::kBytes));
  }
  if (!MatchesSubdomain(value, true)) {
    // Upstream shows the case-sensitive expression even for the caseless check.
    errs.push_back(RegexError(kDNS1123SubdomainCaselessErrMsg, kDNS1123SubdomainFmt, {"Example.com"}));
  }
  return errs;
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  const std::vector<std::string> parts = SplitAll(value, '/');
  std::string_view name;
  switch (parts.size()) {
    case 1:
      name = value;
      break;
    case 2: {
      const std::string& prefix = parts[0];
      name = value.substr(prefix.size() + 1);
      if (prefix.empty()) {
        errs.push_back("prefix part must be non-empty");
      } else {
        Append(errs, PrefixEach(IsDNS1123Subdomain(prefix, LengthUnit::kBytes), "prefix part "));
      }
      break;
    }
    default:
      errs.push_back(absl::StrCat(
          "a valid label key ",
          RegexError(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"}),
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"));
      return errs;
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > kLabelKeyNameMaxLength) {
    errs.push_back(absl::StrCat("name part ", MaxLenError(kLabelKeyNameMaxLength, LengthUnit::kBytes)));
  }
  if (!MatchesLabelKeyName(name)) {
    errs.push_back(absl::StrCat("name part ", RegexError(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"})));
  }
  return errs;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(MaxLenError(kLabelValueMaxLength, LengthUnit::kBytes));
  if (!value.empty() && !MatchesLabelKeyName(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<std::string> IsCIdentifier(std::string_view value) {
  if (MatchesCIdentifier(value)) return {};
  return {RegexError(kCIdentifierErrMsg, kCIdentifierFmt, {"my_name", "MY_NAME", "MyName"})};
}

bool IsExtendedResourceName(std::string_view name) {
  // Native resources: no '/', or a *kubernetes.io/ domain.
  if (name.find('/') == std::string_view::npos) return false;
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;
  if (name.substr(0, 9) == "requests.") return false;
  return IsQualifiedName(absl::StrCat("requests.", AV(name))).empty();
}

std::vector<std::string> ExtendedResourceNameErrors(std::string_view name) {
  std::vector<std::string> errs;
  if (name.find('/') == std::string_view::npos) {
    errs.push_back("a name must be a domain-prefixed path, such as 'example.com/my-prop'");
  } else if (name.find("kubernetes.io/") != std::string_view::npos) {
    errs.push_back("must not have \"kubernetes.io/\" domain");
  }
  if (name.substr(0, 9) == "requests.") errs.push_back("must not have \"requests.\" prefix");
  Append(errs, IsQualifiedName(absl::StrCat("requests.", AV(name))));
  return errs;
}

std::vector<std::string> IsDriverName(std::string_view name) {
  if (name.empty()) return {"must be non-empty"};
  std::vector<std::string> errs;
  if (name.size() > kDriverNameMaxLength) errs.push_back(MaxLenError(kDriverNameMaxLength, LengthUnit::kBytes));
  Append(errs, IsDNS1123Subdomain(absl::AsciiStrToLower(AV(name))));
  return errs;
}

std::vector<std::string> IsPoolName(std::string_view name) {
  if (name.empty()) return {"must be non-empty"};
  std::vector<std::string> errs;
  if (name.size() > kPoolNameMaxLength) errs.push_back(MaxLenError(kPoolNameMaxLength, LengthUnit::kBytes));
  for (const std::string& part : SplitAll(name, '/')) Append(errs, IsDNS1123Subdomain(part));
  return errs;
}

QualifiedName SplitQualifiedName(std::string_view name) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {std::string_view(), name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

namespace {

void AppendCIdentifierErrors(std::vector<std::string>& errs, std::string_view id) {
  if (id.size() > kDeviceMaxIDLength) errs.push_back(MaxLenError(kDeviceMaxIDLength, LengthUnit::kBytes));
  Append(errs, IsCIdentifier(id));
}

}  // namespace

std::vector<std::string> QualifiedNameErrors(std::string_view name) {
  std::vector<std::string> errs;
  const std::vector<std::string> parts = SplitAll(name, '/');
  if (parts.size() == 1) {
    AppendCIdentifierErrors(errs, name);
  } else if (parts.size() == 2) {
    if (parts[0].empty()) {
      errs.push_back("the domain must not be empty");
    } else {
      Append(errs, IsDriverName(parts[0]));
    }
    if (parts[1].empty()) {
      errs.push_back("the name must not be empty");
    } else {
      AppendCIdentifierErrors(errs, parts[1]);
    }
  }
  return errs;
}

std::vector<std::string> FullyQualifiedNameErrors(std::string_view name) {
  std::vector<std::string> errs = QualifiedNameErrors(name);
  if (name.find('/') == std::string_view::npos) {
    errs.push_back("a fully qualified name must be a domain and a name separated by a slash");
  }
  return errs;
}

namespace {

absl::StatusOr<QualifiedName> ParseChecked(std::string_view name, bool fully) {
  std::vector<std::string> errs = fully ? FullyQualifiedNameErrors(name) : QualifiedNameErrors(name);
  if (name.find('/') != name.rfind('/')) errs.push_back("must not contain more than one slash");
  if (!errs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("invalid ", fully ? "fully " : "", "qualified name \"",
                                                   AV(name), "\": ", absl::StrJoin(errs, "; ")));
  }
  return SplitQualifiedName(name);
}

}  // namespace

absl::StatusOr<QualifiedName> ParseQualifiedName(std::string_view name) { return ParseChecked(name, false); }

absl::StatusOr<QualifiedName> ParseFullyQualifiedName(std::string_view name) { return ParseChecked(name, true); }

std::string FullyQualified(std::string_view name, std::string_view driver) {
  if (name.find('/') != std::string_view::npos) return std::string(name);
  return absl::StrCat(AV(driver), "/", AV(name));
}

}  // namespace draforge::api
