// `<string>.format(<list>)` of cel-go's strings extension (version 1, as the Kubernetes base
// environment's ext.Strings(StringsVersion(2)) declares it; ext/formatting.go). The numeric clauses
// use the en_US message printer of golang.org/x/text as cel-go does: `%f` groups thousands with
// commas and prints infinities as "∞", `%e` prints "2.718280×10⁰⁰".
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cel/functions.h"
#include "cel/internal/format.h"
#include "cel/internal/str.h"
#include "cel/internal/values.h"

namespace draforge::cel {

namespace internal {

namespace {

// Precision beyond this is refused rather than allocating an arbitrarily long string (cel-go
// accepts any precision in this version; its later versions cap it at 100).
constexpr int kMaxPrecision = 1000;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

FormatResult InterpolateFormat(std::string_view format, FormatArgs& args) {
  FormatResult r;
  size_t i = 0;
  size_t arg = 0;
  while (i < format.size()) {
    if (format[i] != '%') {
      r.text.push_back(format[i++]);
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      r.text.push_back('%');
      i += 2;
      continue;
    }
    ++r.args_used;
    if (arg >= args.size()) {
      r.error = Cat("index ", arg, " out of range");
      return r;
    }
    if (i + 1 >= format.size()) {
      r.error = "unexpected end of string";
      return r;
    }
    size_t j = i + 1;
    int precision = -1;
    if (format[j] == '.') {
      ++j;
      size_t start = j;
      while (j < format.size() && IsDigit(format[j])) ++j;
      if (j >= format.size()) {
        r.error = "could not parse formatting clause: error while parsing precision: could not find end of precision specifier";
        return r;
      }
      std::string_view digits = format.substr(start, j - start);
      if (digits.empty()) {
        r.error = "could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax";
        return r;
      }
      long p = 0;
      for (char c : digits) {
        p = p * 10 + (c - '0');
        if (p > kMaxPrecision) break;
      }
      if (p > kMaxPrecision) {
        r.error = Cat("could not parse formatting clause: error while parsing precision: precision ", std::string(digits),
                      " exceeds maximum allowed precision ", kMaxPrecision);
        return r;
      }
      precision = static_cast<int>(p);
    }
    char verb = format[j];
    switch (verb) {
      case 's': case 'd': case 'f': case 'e': case 'b': case 'x': case 'X': case 'o': break;
      default: {
        // The clause letter is one code point (Go's %c of a byte-as-rune).
        unsigned char b = static_cast<unsigned char>(verb);
        std::string shown;
        if (b < 0x80) {
          shown.push_back(verb);
        } else {
          shown.push_back(static_cast<char>(0xC0 | (b >> 6)));
          shown.push_back(static_cast<char>(0x80 | (b & 0x3F)));
        }
        r.error = Cat("could not parse formatting clause: unrecognized formatting clause \"", shown, "\"");
        return r;
      }
    }
    std::string piece;
    std::string err = args.Apply(arg, verb, precision, &piece);
    if (!err.empty()) {
      r.error = Cat("error during formatting: ", err);
      r.error_arg = static_cast<long>(arg);
      return r;
    }
    r.text += piece;
    i = j + 1;
    ++arg;
  }
  return r;
}

}  // namespace internal

namespace {

using internal::Cat;

// Go's strconv.Quote for the strings of list and map members (`%q`).
std::string GoQuote(std::string_view s, bool bytes) {
  std::string out = bytes ? "b\"" : "\"";
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '\a': out += "\\a"; ++i; continue;
      case '\b': out += "\\b"; ++i; continue;
      case '\f': out += "\\f"; ++i; continue;
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      case '\v': out += "\\v"; ++i; continue;
      case '"': out += "\\\""; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      default: break;
    }
    char buf[16];
    if (c < 0x20 || c == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
      continue;
    }
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (n == 1 || i + n > s.size() || !internal::ValidUtf8(s.substr(i, n))) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
      continue;
    }
    uint32_t cp = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    // Format and separator characters are not printable for Go (unicode.IsPrint).
    bool printable = !(cp == 0xAD || (cp >= 0x80 && cp < 0xA0) || (cp >= 0x200B && cp <= 0x200F) ||
                       (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF ||
                       (cp >= 0xFFF9 && cp <= 0xFFFB) || cp == 0xA0 || cp == 0x2007 || cp == 0x202F);
    if (printable) {
      out.append(s.substr(i, n));
    } else if (cp < 0x10000) {
      std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      out += buf;
    } else {
      std::snprintf(buf, sizeof buf, "\\U%08x", cp);
      out += buf;
    }
    i += n;
  }
  out.push_back('"');
  return out;
}

std::string Integer(const Value& v, int base, bool upper) {
  bool negative = v.kind() == ValueKind::kInt && v.int_value() < 0;
  uint64_t u = v.kind() == ValueKind::kInt
                   ? (negative ? 0 - static_cast<uint64_t>(v.int_value()) : static_cast<uint64_t>(v.int_value()))
                   : v.uint_value();
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), digits[u % static_cast<uint64_t>(base)]);
    u /= static_cast<uint64_t>(base);
  } while (u != 0);
  if (negative) out.insert(out.begin(), '-');
  return out;
}

// x/text's en_US printer for %.Nf: thousands grouped with commas, infinities as "∞".
std::string Fixed(double d, int precision) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "∞" : "-∞";
  std::vector<char> buf(static_cast<size_t>(precision) + 400);
  std::snprintf(buf.data(), buf.size(), "%.*f", precision, d);
  std::string s(buf.data());
  size_t start = s[0] == '-' ? 1 : 0;
  size_t dot = s.find('.');
  size_t int_end = dot == std::string::npos ? s.size() : dot;
  std::string out = s.substr(0, start);
  for (size_t k = start; k < int_end; ++k) {
    out.push_back(s[k]);
    size_t left = int_end - k - 1;
    if (left > 0 && left % 3 == 0) out.push_back(',');
  }
  out += s.substr(int_end);
  return out;
}

// x/text's en_US printer for cel-go's "%<N>e": "2.718280×10⁰⁰", "-1.230000×10⁻⁰⁴". cel-go builds
// the verb as "%%%de", so the clause's precision is a width and the precision stays 6.
std::string Scientific(double d, int width) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "∞" : "-∞";
  std::vector<char> buf(static_cast<size_t>(width) + 64);
  std::snprintf(buf.data(), buf.size(), "%*.6e", width, d);
  std::string s(buf.data());
  size_t e = s.find('e');
  std::string out = s.substr(0, e) + "×10";
  std::string exp = s.substr(e + 1);
  static const char* const kSuper[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  for (char c : exp) {
    if (c == '-') out += "⁻";
    else if (c >= '0' && c <= '9') out += kSuper[c - '0'];
  }
  return out;
}

class ValueArgs final : public internal::FormatArgs {
 public:
  explicit ValueArgs(const ListValue& list) : list_(list) {}
  size_t size() const override { return list_.size(); }

  std::string Apply(size_t index, char verb, int precision, std::string* out) override {
    Value v = list_.Get(index);
    const ValueKind k = v.kind();
    const std::string given(TypeName(v));
    switch (verb) {
      case 's': return FormatString(v, out);
      case 'd':
        if (k != ValueKind::kInt && k != ValueKind::kUint) {
          return Cat("decimal clause can only be used on integers, was given ", given);
        }
        *out = Integer(v, 10, false);
        return "";
      case 'f':
      case 'e': {
        double d;
        if (k == ValueKind::kDouble) {
          d = v.double_value();
        } else if (k == ValueKind::kString && (v.str() == "NaN" || v.str() == "Infinity" || v.str() == "-Infinity")) {
          d = v.str() == "NaN" ? std::nan("") : (v.str() == "Infinity" ? HUGE_VAL : -HUGE_VAL);
        } else {
          return Cat(verb == 'f' ? "fixed-point" : "scientific", " clause can only be used on doubles, was given ", given);
        }
        *out = verb == 'f' ? Fixed(d, precision < 0 ? 6 : precision) : Scientific(d, precision < 0 ? 6 : precision);
        return "";
      }
      case 'b':
        if (k == ValueKind::kBool) {
          *out = v.bool_value() ? "1" : "0";
          return "";
        }
        if (k != ValueKind::kInt && k != ValueKind::kUint) {
          return Cat("only integers and bools can be formatted as binary, was given ", given);
        }
        *out = Integer(v, 2, false);
        return "";
      case 'x':
      case 'X':
        if (k == ValueKind::kString || k == ValueKind::kBytes) {
          const char* digits = verb == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
          for (unsigned char c : v.str()) {
            out->push_back(digits[c >> 4]);
            out->push_back(digits[c & 15]);
          }
          return "";
        }
        if (k != ValueKind::kInt && k != ValueKind::kUint) {
          return Cat("only integers, byte buffers, and strings can be formatted as hex, was given ", given);
        }
        *out = Integer(v, 16, verb == 'X');
        return "";
      case 'o':
        if (k != ValueKind::kInt && k != ValueKind::kUint) {
          return Cat("octal clause can only be used on integers, was given ", given);
        }
        *out = Integer(v, 8, false);
        return "";
    }
    return "unsupported clause";
  }

 private:
  // FormatString (%s).
  static std::string FormatString(const Value& v, std::string* out) {
    switch (v.kind()) {
      case ValueKind::kList: return FormatList(v, out);
      case ValueKind::kMap: return FormatMap(v, out);
      case ValueKind::kInt: case ValueKind::kUint: *out = Integer(v, 10, false); return "";
      case ValueKind::kDouble: *out = internal::FormatGoDouble(v.double_value()); return "";
      case ValueKind::kBool: *out = v.bool_value() ? "true" : "false"; return "";
      case ValueKind::kString: *out = std::string(v.str()); return "";
      case ValueKind::kBytes:
        if (!internal::ValidUtf8(v.str())) return Cat("could not convert argument \"invalid UTF-8\" to string");
        *out = std::string(v.str());
        return "";
      case ValueKind::kType: *out = std::string(v.str()); return "";
      case ValueKind::kNull: *out = "null"; return "";
      default:
        return Cat("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
                   "durations, and timestamps, was given ", TypeName(v));
    }
  }
  // clauseForType + quoteForCEL: how a list or map member is written.
  static std::string Member(const Value& v, std::string* out) {
    switch (v.kind()) {
      case ValueKind::kInt: case ValueKind::kUint: *out = Integer(v, 10, false); return "";
      case ValueKind::kString: *out = GoQuote(v.str(), false); return "";
      case ValueKind::kBytes:
        if (!internal::ValidUtf8(v.str())) return "could not convert argument \"invalid UTF-8\" to string";
        *out = GoQuote(v.str(), true);
        return "";
      case ValueKind::kBool: *out = v.bool_value() ? "true" : "false"; return "";
      case ValueKind::kNull: *out = "null"; return "";
      case ValueKind::kType: *out = std::string(v.str()); return "";
      case ValueKind::kList: return FormatList(v, out);
      case ValueKind::kMap: return FormatMap(v, out);
      case ValueKind::kDouble: {
        double d = v.double_value();
        char buf[400];
        std::snprintf(buf, sizeof buf, "%.6f", d);
        if (std::isnan(d)) *out = "\"NaN\"";
        else if (std::isinf(d)) *out = d > 0 ? "\"+Inf\"" : "\"-Inf\"";
        else *out = buf;
        return "";
      }
      default: return Cat("no formatting function for ", TypeName(v));
    }
  }
  static std::string FormatList(const Value& v, std::string* out) {
    const ListValue* l = v.list();
    *out = "[";
    for (size_t i = 0; i < l->size(); ++i) {
      std::string m;
      std::string err = Member(l->Get(i), &m);
      if (!err.empty()) return err;
      if (i > 0) *out += ", ";
      *out += m;
    }
    *out += "]";
    return "";
  }
  static std::string FormatMap(const Value& v, std::string* out) {
    const MapValue* m = v.map();
    std::vector<std::pair<std::string, std::string>> pairs;
    for (size_t i = 0; i < m->size(); ++i) {
      Value key = m->KeyAt(i);
      std::string ks;
      switch (key.kind()) {
        case ValueKind::kString: ks = GoQuote(key.str(), false); break;
        case ValueKind::kBool: ks = key.bool_value() ? "true" : "false"; break;
        case ValueKind::kInt: case ValueKind::kUint: ks = Integer(key, 10, false); break;
        default: return Cat("no formatting function for map key of type ", TypeName(key));
      }
      std::string vs;
      std::string err = Member(m->ValueAt(i), &vs);
      if (!err.empty()) return err;
      pairs.emplace_back(std::move(ks), std::move(vs));
    }
    std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    *out = "{";
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (i > 0) *out += ", ";
      *out += pairs[i].first + ":" + pairs[i].second;
    }
    *out += "}";
    return "";
  }

  const ListValue& list_;
};

Value Format(EvalContext& ctx, const Value* a) {
  ValueArgs args(*a[1].list());
  internal::FormatResult r = internal::InterpolateFormat(a[0].str(), args);
  if (!r.error.empty()) return internal::Err(ctx, r.error);
  return MakeString(*ctx.arena, r.text);
}

}  // namespace

void RegisterStringsFormat(FunctionRegistry& r) {
  r.Add("format", "string_format", {Type::String(), Type::List(Type::Dyn())}, Type::String(), true, Format);
}

}  // namespace draforge::cel
