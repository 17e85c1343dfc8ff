// EvaluateExpression, EstimateCost and FormatLiteral (eval.h).
#include "cel/eval.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

#include "cel/internal/dra_compile.h"
#include "cel/internal/str.h"
#include "cel/internal/utf8.h"
#include "cel/internal/values.h"
#include "cel/named_format.h"
#include "cel/program.h"
#include "cel/url.h"
#include "common/status.h"

namespace draforge::cel {

using internal::Cat;

namespace {

// Go's unicode.IsPrint, approximated: letters, marks, numbers, punctuation, symbols and ' ' are
// printable; controls, format characters, other separators, surrogates, private use, noncharacters
// and the unassigned planes are not. (Unassigned code points inside assigned blocks are treated as
// printable.)
bool IsPrint(char32_t r) {
  if (r < 0x20 || (r >= 0x7F && r <= 0x9F)) return false;
  if (r < 0xA0) return true;
  struct Range {
    char32_t lo, hi;
  };
  static constexpr Range kNotPrint[] = {
      {0x00A0, 0x00A0},   {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},
      {0x070F, 0x070F},   {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x1680, 0x1680},   {0x180E, 0x180E},
      {0x2000, 0x200F},   {0x2028, 0x202F},   {0x205F, 0x2064},   {0x2066, 0x206F},   {0x3000, 0x3000},
      {0xD800, 0xF8FF},   {0xFDD0, 0xFDEF},   {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD},
      {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0x323B0, 0xE00FF},
      {0xE01F0, 0x10FFFF},
  };
  if ((r & 0xFFFE) == 0xFFFE) return false;  // U+xxFFFE, U+xxFFFF
  for (const Range& g : kNotPrint) {
    if (r >= g.lo && r <= g.hi) return false;
  }
  return true;
}

void AppendHex(std::string& out, const char* prefix, uint32_t v, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += prefix;
  for (int i = digits - 1; i >= 0; --i) out += kHex[(v >> (4 * i)) & 0xF];
}

void QuoteString(std::string& out, std::string_view s) {
  out += '\'';
  for (size_t i = 0; i < s.size();) {
    auto [r, len] = internal::DecodeRune(s, i);
    if (len == 0) {
      AppendHex(out, "\\x", static_cast<unsigned char>(s[i]), 2);
      ++i;
      continue;
    }
    switch (r) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      default:
        if (IsPrint(r)) {
          out.append(s.data() + i, len);
        } else if (r <= 0xFFFF) {
          AppendHex(out, "\\u", r, 4);
        } else {
          AppendHex(out, "\\U", r, 8);
        }
    }
    i += len;
  }
  out += '\'';
}

// Go's strconv.Quote for the ASCII text of quantities and versions.
void GoQuote(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

// strconv.FormatFloat(d, 'f', -1, 64) with ".0" appended when there is no point: the shortest digits
// that read back as d, written without an exponent (1e308 is a 1 and 308 zeros; std::to_chars' fixed
// format would print the exact binary value instead).
std::string FormatFixed(double d) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(res.ptr - buf));  // [-]d[.ddd]e[+-]xx
  std::string out;
  if (!s.empty() && s.front() == '-') {
    out += '-';
    s.remove_prefix(1);
  }
  const size_t e = s.find('e');
  std::string digits;
  for (char c : s.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exp = 0;
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+' ? 1 : 0), s.data() + s.size(), exp);
  // The value is 0.digits * 10^(exp + 1).
  const int point = exp + 1;
  if (point <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-point), '0');
    out += digits;
  } else if (static_cast<size_t>(point) >= digits.size()) {
    out += digits;
    out.append(static_cast<size_t>(point) - digits.size(), '0');
    out += ".0";
  } else {
    out += digits.substr(0, static_cast<size_t>(point));
    out += '.';
    out += digits.substr(static_cast<size_t>(point));
  }
  return out;
}

void Format(std::string& out, const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: out += "null"; return;
    case ValueKind::kBool: out += v.bool_value() ? "true" : "false"; return;
    case ValueKind::kInt: out += std::to_string(v.int_value()); return;
    case ValueKind::kUint: out += std::to_string(v.uint_value()); out += 'u'; return;
    case ValueKind::kDouble: {
      double d = v.double_value();
      if (std::isnan(d)) { out += "double(\"NaN\")"; return; }
      if (std::isinf(d)) { out += d > 0 ? "double(\"Infinity\")" : "double(\"-Infinity\")"; return; }
      out += FormatFixed(d);
      return;
    }
    case ValueKind::kString: QuoteString(out, v.str()); return;
    case ValueKind::kBytes:
      out += "b'";
      for (char ch : v.str()) {
        auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c < 0x7F && c != '\'' && c != '\\') out += ch;
        else AppendHex(out, "\\x", c, 2);
      }
      out += '\'';
      return;
    case ValueKind::kList: {
      out += '[';
      const ListValue* l = v.list();
      for (size_t i = 0; i < l->size(); ++i) {
        if (i) out += ", ";
        Format(out, l->Get(i));
      }
      out += ']';
      return;
    }
    case ValueKind::kMap: {
      const MapValue* m = v.map();
      std::vector<std::pair<std::string, std::string>> entries;
      entries.reserve(m->size());
      for (size_t i = 0; i < m->size(); ++i) {
        entries.emplace_back(FormatLiteral(m->KeyAt(i)), FormatLiteral(m->ValueAt(i)));
      }
      std::stable_sort(entries.begin(), entries.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      out += '{';
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i) out += ", ";
        out += entries[i].first;
        out += ": ";
        out += entries[i].second;
      }
      out += '}';
      return;
    }
    case ValueKind::kType: out += v.str(); return;
    case ValueKind::kOptional:
      if (v.optional() == nullptr) {
        out += "optional.none()";
      } else {
        out += "optional.of(";
        Format(out, v.optional()->value);
        out += ')';
      }
      return;
    case ValueKind::kQuantity:
      out += "quantity(";
      GoQuote(out, v.quantity()->Canonical());
      out += ')';
      return;
    case ValueKind::kSemver:
      out += "semver(";
      GoQuote(out, v.semver()->String());
      out += ')';
      return;
    case ValueKind::kIP:
      out += "ip(";
      GoQuote(out, v.ip()->String());
      out += ')';
      return;
    case ValueKind::kCIDR:
      out += "cidr(";
      GoQuote(out, v.cidr()->String());
      out += ')';
      return;
    case ValueKind::kFormat: out += FormatValueString(*v.format()); return;
    case ValueKind::kMessage:
      out += v.str();
      out += "{}";
      return;
    case ValueKind::kURL:
      out += "url(";
      GoQuote(out, v.url()->String());
      out += ')';
      return;
    case ValueKind::kTimestamp:
      out += "timestamp(\"" + internal::FormatTimestamp(v, /*in_utc=*/true) + "\")";
      return;
    case ValueKind::kDuration:
      out += "duration(\"" + internal::FormatDuration(v) + "\")";
      return;
    case ValueKind::kError: out += v.error()->message; return;
  }
}

}  // namespace

std::string FormatLiteral(const Value& v) {
  std::string out;
  Format(out, v);
  return out;
}

ExpressionResult EvaluateExpression(std::string_view expression, const CompileOptions& options) {
  ExpressionResult out;
  auto program = internal::CompileDra(expression, internal::DraEnv(options));
  if (!program.ok()) {
    out.outcome = ExpressionResult::Outcome::kCompileError;
    out.error = std::string(program.status().message());
    return out;
  }
  out.type = FormatType((*program)->result_type());
  out.estimated_cost = (*program)->EstimateCost();
  // `device` is the only declared variable; unbound, every read of it fails as in cel-go.
  static const ErrorValue kUnbound{"no such attribute(s): device"};
  const Value device = Value::Error(&kUnbound);
  Activation act;
  act.globals = &device;
  Arena arena;
  EvalResult r = (*program)->Eval(act, arena, static_cast<uint64_t>(std::max<int64_t>(0, options.runtime_cost_limit)));
  if (r.value.IsError()) {
    out.outcome = ExpressionResult::Outcome::kRuntimeError;
    out.error = std::string(r.value.error()->message);
    return out;
  }
  out.value = FormatLiteral(r.value);
  out.cost = static_cast<int64_t>(r.cost);
  return out;
}

absl::StatusOr<uint64_t> EstimateCost(std::string_view expression, const CompileOptions& options) {
  ASSIGN_OR_RETURN(auto program, internal::CompileDra(expression, internal::DraEnv(options)));
  return program->EstimateCost();
}

}  // namespace draforge::cel
