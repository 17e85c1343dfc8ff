// The Kubernetes format CEL library (k8s.io/apiserver/pkg/cel/library/format.go): named formats
// and their validators, with the error texts of apimachinery (util/validation) and kube-openapi
// (strfmt) that upstream returns.
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "api/qualified_name.h"
#include "cel/functions.h"
#include "cel/internal/str.h"
#include "cel/internal/values.h"
#include "cel/named_format.h"
#include "cel/url.h"

namespace draforge::cel {

using internal::Cat;
using internal::Err;

namespace {

// apimachinery's maskTrailingDash (api/validation/generic.go): a prefix for generateName may end
// in '-'; upstream replaces the last TWO characters by "a" before checking.
std::string MaskTrailingDash(std::string_view s) {
  if (s.size() > 1 && s.back() == '-') return Cat(s.substr(0, s.size() - 2), "a");
  return std::string(s);
}

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// util/validation.IsDNS1035Label: [a-z]([-a-z0-9]*[a-z0-9])?, at most 63.
std::vector<std::string> IsDNS1035Label(std::string_view s) {
  std::vector<std::string> errs;
  if (s.size() > 63) errs.push_back("must be no more than 63 characters");
  bool ok = !s.empty() && IsLower(s.front()) && (IsLower(s.back()) || IsDigit(s.back()));
  for (char c : s) ok = ok && (IsLower(c) || IsDigit(c) || c == '-');
  if (!ok) {
    errs.push_back(api::RegexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character",
        "[a-z]([-a-z0-9]*[a-z0-9])?", {"my-name", "abc-123"}));
  }
  return errs;
}

std::vector<std::string> Label(std::string_view s) { return api::IsDNS1123Label(s); }
std::vector<std::string> LabelPrefix(std::string_view s) { return api::IsDNS1123Label(MaskTrailingDash(s)); }
std::vector<std::string> Subdomain(std::string_view s) { return api::IsDNS1123Subdomain(s); }
std::vector<std::string> SubdomainPrefix(std::string_view s) { return api::IsDNS1123Subdomain(MaskTrailingDash(s)); }
std::vector<std::string> Dns1035(std::string_view s) { return IsDNS1035Label(s); }
std::vector<std::string> Dns1035Prefix(std::string_view s) { return IsDNS1035Label(MaskTrailingDash(s)); }
std::vector<std::string> QualifiedName(std::string_view s) { return api::IsQualifiedName(s); }
std::vector<std::string> LabelValue(std::string_view s) { return api::IsValidLabelValue(s); }

std::vector<std::string> Uri(std::string_view s) {
  Url u;
  std::string error;
  if (!ParseRequestURI(s, &u, &error)) return {error};
  return {};
}

bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// strfmt's UUIDPattern: (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$.
std::vector<std::string> Uuid(std::string_view s) {
  size_t i = 0;
  for (int group : {8, 4, 4, 4, 12}) {
    if (group != 8 && i < s.size() && s[i] == '-') ++i;
    for (int k = 0; k < group; ++k, ++i) {
      if (i >= s.size() || !IsHexDigit(s[i])) return {"does not match the UUID format"};
    }
  }
  if (i != s.size()) return {"does not match the UUID format"};
  return {};
}

// govalidator's Base64 pattern: groups of four of [A-Za-z0-9+/], the last one possibly padded
// ("xx==" or "xxx="); the empty string does not match.
std::vector<std::string> Base64(std::string_view s) {
  const auto b64 = [](char c) { return IsLower(c) || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '+' || c == '/'; };
  bool ok = !s.empty() && s.size() % 4 == 0;
  for (size_t i = 0; ok && i < s.size(); ++i) {
    const bool last_group = i >= s.size() - 4;
    if (b64(s[i])) continue;
    // '=' only as padding at the end of the last group: "xx==" or "xxx=".
    ok = last_group && s[i] == '=' &&
         (i == s.size() - 1 || (i == s.size() - 2 && s[s.size() - 1] == '='));
  }
  if (!ok) return {"invalid base64"};
  return {};
}

bool LeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// time.Parse("2006-01-02", s) succeeds: four digits, two-digit month 1-12, two-digit day valid in
// that month, nothing else.
bool IsDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(s[i])) return false;
  }
  const int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
  const int month = (s[5] - '0') * 10 + (s[6] - '0');
  const int day = (s[8] - '0') * 10 + (s[9] - '0');
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return false;
  const int max_day = kDays[month - 1] + (month == 2 && LeapYear(year) ? 1 : 0);
  return day >= 1 && day <= max_day;
}

std::vector<std::string> Date(std::string_view s) {
  if (!IsDate(s)) return {"invalid date"};
  return {};
}

// strfmt.IsDateTime: lower-cased, split at every 't'; the first part a date, the second matching
// ^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$ with hours <= 23 and
// minutes, seconds <= 59 (further parts are ignored, as upstream does).
bool IsDateTime(std::string_view str) {
  if (str.size() < 4) return false;
  std::string lower(str);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const size_t t = lower.find('t');
  if (t == std::string::npos) return false;
  if (!IsDate(std::string_view(lower).substr(0, t))) return false;
  std::string_view s = std::string_view(lower).substr(t + 1);
  s = s.substr(0, s.find('t'));
  const auto two = [&](size_t i) { return i + 1 < s.size() && IsDigit(s[i]) && IsDigit(s[i + 1]); };
  if (!two(0) || s.size() < 8 || s[2] != ':' || !two(3) || s[5] != ':' || !two(6)) return false;
  if (s.substr(0, 2) > "23" || s.substr(3, 2) > "59" || s.substr(6, 2) > "59") return false;
  std::string_view rest = s.substr(8);
  // Optional fraction: any one character (one UTF-8 rune), then one or more digits. RE2 backtracks
  // over the fraction, so try the zone right away first.
  const auto zone_ok = [](std::string_view z) {
    if (z == "z") return true;
    return z.size() == 6 && (z[0] == '+' || z[0] == '-') && IsDigit(z[1]) && IsDigit(z[2]) && z[3] == ':' &&
           IsDigit(z[4]) && IsDigit(z[5]);
  };
  if (zone_ok(rest)) return true;
  if (rest.empty() || rest[0] == '\n') return false;
  size_t rune = 1;
  const auto lead = static_cast<unsigned char>(rest[0]);
  if (lead >= 0xF0) rune = 4;
  else if (lead >= 0xE0) rune = 3;
  else if (lead >= 0xC0) rune = 2;
  if (rest.size() < rune) return false;
  rest = rest.substr(rune);
  size_t digits = 0;
  while (digits < rest.size() && IsDigit(rest[digits])) ++digits;
  if (digits == 0) return false;
  // The digits are greedy but may give back the start of a zone ("+05:00" starts with no digit).
  return zone_ok(rest.substr(digits));
}

std::vector<std::string> DateTime(std::string_view s) {
  if (!IsDateTime(s)) return {"invalid datetime"};
  return {};
}

// ConstantFormats in format.go (MaxRegexSize: the size upstream charges for the validation).
constexpr NamedFormat kFormats[] = {
    {"dns1123Label", "DNS1123Label", Label, 30},
    {"dns1123Subdomain", "DNS1123Subdomain", Subdomain, 60},
    {"dns1035Label", "DNS1035Label", Dns1035, 30},
    {"qualifiedName", "QualifiedName", QualifiedName, 60},
    {"dns1123LabelPrefix", "DNS1123LabelPrefix", LabelPrefix, 30},
    {"dns1123SubdomainPrefix", "DNS1123SubdomainPrefix", SubdomainPrefix, 60},
    {"dns1035LabelPrefix", "DNS1035LabelPrefix", Dns1035Prefix, 30},
    {"labelValue", "LabelValue", LabelValue, 40},
    {"uri", "URI", Uri, 1103},
    {"uuid", "uuid", Uuid, 70},        // len(strfmt.UUIDPattern)
    {"byte", "byte", Base64, 84},
    {"date", "date", Date, 71},        // len(strfmt.DateTimePattern)
    {"datetime", "datetime", DateTime, 71},
};

Value Named(EvalContext& ctx, const Value* a) {
  const NamedFormat* f = FindNamedFormat(a[0].str());
  if (f == nullptr) return Value::Optional(nullptr);
  return Value::Optional(ctx.arena->New<OptionalValue>(OptionalValue{Value::Format(f)}));
}

Value Validate(EvalContext& ctx, const Value* a) {
  const std::vector<std::string> errs = a[0].format()->validate(a[1].str());
  if (errs.empty()) return Value::Optional(nullptr);
  Value* items = ctx.arena->NewArray<Value>(errs.size());
  for (size_t i = 0; i < errs.size(); ++i) items[i] = MakeString(*ctx.arena, errs[i]);
  const Value list = Value::List(ctx.arena->New<ArrayList>(items, errs.size()));
  return Value::Optional(ctx.arena->New<OptionalValue>(OptionalValue{list}));
}

template <size_t kIndex>
Value Constant(EvalContext&, const Value*) {
  return Value::Format(&kFormats[kIndex]);
}

template <size_t... kI>
void AddConstants(FunctionRegistry& r, std::index_sequence<kI...>) {
  const Type f = Type::Object("kubernetes.NamedFormat");
  (r.Add(Cat("format.", kFormats[kI].key), Cat("format.", kFormats[kI].key), {}, f, false, Constant<kI>), ...);
}

}  // namespace

const NamedFormat* FindNamedFormat(std::string_view key) {
  for (const NamedFormat& f : kFormats) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

std::string FormatValueString(const NamedFormat& f) {
  return Cat("{", f.go_name, " %!s(func(string) []string=0x0) %!s(int=", f.max_regex_size, ")}");
}

void RegisterFormatLibrary(FunctionRegistry& r) {
  const Type f = Type::Object("kubernetes.NamedFormat"), S = Type::String();
  r.Add("validate", "format-validate", {f, S}, Type::Optional(Type::List(S)), true, Validate);
  r.Add("format.named", "format-named", {S}, Type::Optional(f), false, Named);
  AddConstants(r, std::make_index_sequence<std::size(kFormats)>());
}

}  // namespace draforge::cel
