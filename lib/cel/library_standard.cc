// cel-go's standard library (checker/decls, interpreter/functions): operators, size, conversions,
// string predicates, optionals.
#include <cerrno>
#include <cmath>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "cel/functions.h"
#include "cel/internal/str.h"
#include "cel/internal/values.h"
#include "re2/re2.h"

namespace draforge::cel {

using internal::Cat;

const Function* FunctionRegistry::Find(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

int RuntimeKind(const Type& t) {
  switch (t.kind) {
    case TypeKind::kNull: return static_cast<int>(ValueKind::kNull);
    case TypeKind::kBool: return static_cast<int>(ValueKind::kBool);
    case TypeKind::kInt: return static_cast<int>(ValueKind::kInt);
    case TypeKind::kUint: return static_cast<int>(ValueKind::kUint);
    case TypeKind::kDouble: return static_cast<int>(ValueKind::kDouble);
    case TypeKind::kString: return static_cast<int>(ValueKind::kString);
    case TypeKind::kBytes: return static_cast<int>(ValueKind::kBytes);
    case TypeKind::kList: return static_cast<int>(ValueKind::kList);
    case TypeKind::kMap: return static_cast<int>(ValueKind::kMap);
    case TypeKind::kType: return static_cast<int>(ValueKind::kType);
    case TypeKind::kOptional: return static_cast<int>(ValueKind::kOptional);
    case TypeKind::kOpaque:
      if (t.name == "kubernetes.Quantity") return static_cast<int>(ValueKind::kQuantity);
      if (t.name == "kubernetes.Semver") return static_cast<int>(ValueKind::kSemver);
      if (t.name == "net.IP") return static_cast<int>(ValueKind::kIP);
      if (t.name == "net.CIDR") return static_cast<int>(ValueKind::kCIDR);
      return -1;
    case TypeKind::kObject:
      if (t.name == "kubernetes.NamedFormat") return static_cast<int>(ValueKind::kFormat);
      if (t.name == "kubernetes.URL") return static_cast<int>(ValueKind::kURL);
      return -1;
    case TypeKind::kTimestamp: return static_cast<int>(ValueKind::kTimestamp);
    case TypeKind::kDuration: return static_cast<int>(ValueKind::kDuration);
    default: return -1;
  }
}

void FunctionRegistry::Add(std::string_view function, std::string id, std::vector<Type> params, Type result,
                           bool member, FunctionImpl impl) {
  auto it = functions_.find(function);
  if (it == functions_.end()) {
    it = functions_.emplace(std::string(function), Function{std::string(function), {}}).first;
  }
  Overload o;
  o.id = std::move(id);
  o.params = std::move(params);
  o.result = std::move(result);
  o.member = member;
  o.impl = impl;
  for (const Type& p : o.params) o.kinds.push_back(RuntimeKind(p));
  it->second.overloads.push_back(std::move(o));
}

namespace internal {

Value Err(EvalContext& ctx, std::string_view msg) { return MakeError(*ctx.arena, msg); }

std::string FormatGoDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  // Shortest round-trip digits.
  char buf[64];
  int prec = 1;
  for (; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  // buf: [-]d.ddde[+-]xx
  std::string s(buf);
  bool neg = s[0] == '-';
  if (neg) s = s.substr(1);
  size_t epos = s.find('e');
  int exp = std::atoi(s.c_str() + epos + 1);
  std::string digits;
  for (size_t i = 0; i < epos; ++i) {
    if (s[i] != '.') digits += s[i];
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= 6) {  // strconv g format, shortest precision
    out += digits[0];
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += eb;
    return out;
  }
  int nd = static_cast<int>(digits.size());
  int dp = exp + 1;  // position of the decimal point
  if (dp <= 0) {
    out += "0." + std::string(-dp, '0') + digits;
  } else if (dp >= nd) {
    out += digits + std::string(dp - nd, '0');
  } else {
    out += digits.substr(0, dp) + "." + digits.substr(dp);
  }
  return out;
}

size_t CodePointCount(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace internal

namespace {

using internal::Err;

// ---- arithmetic ----
Value AddInt(EvalContext& ctx, const Value* a) {
  int64_t r;
  if (__builtin_add_overflow(a[0].int_value(), a[1].int_value(), &r)) return Err(ctx, "integer overflow");
  return Value::Int(r);
}
Value SubInt(EvalContext& ctx, const Value* a) {
  int64_t r;
  if (__builtin_sub_overflow(a[0].int_value(), a[1].int_value(), &r)) return Err(ctx, "integer overflow");
  return Value::Int(r);
}
Value MulInt(EvalContext& ctx, const Value* a) {
  int64_t r;
  if (__builtin_mul_overflow(a[0].int_value(), a[1].int_value(), &r)) return Err(ctx, "integer overflow");
  return Value::Int(r);
}
Value DivInt(EvalContext& ctx, const Value* a) {
  if (a[1].int_value() == 0) return Err(ctx, "division by zero");
  if (a[1].int_value() == -1 && a[0].int_value() == std::numeric_limits<int64_t>::min()) {
    return Err(ctx, "integer overflow");
  }
  return Value::Int(a[0].int_value() / a[1].int_value());
}
Value ModInt(EvalContext& ctx, const Value* a) {
  if (a[1].int_value() == 0) return Err(ctx, "modulus by zero");
  if (a[1].int_value() == -1 && a[0].int_value() == std::numeric_limits<int64_t>::min()) {
    return Err(ctx, "integer overflow");
  }
  return Value::Int(a[0].int_value() % a[1].int_value());
}
Value NegInt(EvalContext& ctx, const Value* a) {
  if (a[0].int_value() == std::numeric_limits<int64_t>::min()) return Err(ctx, "integer overflow");
  return Value::Int(-a[0].int_value());
}
Value AddUint(EvalContext& ctx, const Value* a) {
  uint64_t r;
  if (__builtin_add_overflow(a[0].uint_value(), a[1].uint_value(), &r)) {
    return Err(ctx, "unsigned integer overflow");
  }
  return Value::Uint(r);
}
Value SubUint(EvalContext& ctx, const Value* a) {
  uint64_t r;
  if (__builtin_sub_overflow(a[0].uint_value(), a[1].uint_value(), &r)) {
    return Err(ctx, "unsigned integer overflow");
  }
  return Value::Uint(r);
}
Value MulUint(EvalContext& ctx, const Value* a) {
  uint64_t r;
  if (__builtin_mul_overflow(a[0].uint_value(), a[1].uint_value(), &r)) {
    return Err(ctx, "unsigned integer overflow");
  }
  return Value::Uint(r);
}
Value DivUint(EvalContext& ctx, const Value* a) {
  if (a[1].uint_value() == 0) return Err(ctx, "division by zero");
  return Value::Uint(a[0].uint_value() / a[1].uint_value());
}
Value ModUint(EvalContext& ctx, const Value* a) {
  if (a[1].uint_value() == 0) return Err(ctx, "modulus by zero");
  return Value::Uint(a[0].uint_value() % a[1].uint_value());
}
Value AddDouble(EvalContext&, const Value* a) { return Value::Double(a[0].double_value() + a[1].double_value()); }
Value SubDouble(EvalContext&, const Value* a) { return Value::Double(a[0].double_value() - a[1].double_value()); }
Value MulDouble(EvalContext&, const Value* a) { return Value::Double(a[0].double_value() * a[1].double_value()); }
Value DivDouble(EvalContext&, const Value* a) { return Value::Double(a[0].double_value() / a[1].double_value()); }
Value NegDouble(EvalContext&, const Value* a) { return Value::Double(-a[0].double_value()); }
Value AddString(EvalContext& ctx, const Value* a) {
  std::string_view x = a[0].str(), y = a[1].str();
  if (x.empty()) return a[1];
  if (y.empty()) return a[0];
  char* p = static_cast<char*>(ctx.arena->Allocate(x.size() + y.size(), 1));
  std::memcpy(p, x.data(), x.size());
  std::memcpy(p + x.size(), y.data(), y.size());
  std::string_view s(p, x.size() + y.size());
  return a[0].kind() == ValueKind::kBytes ? Value::Bytes(s) : Value::String(s);
}
Value AddList(EvalContext& ctx, const Value* a) {
  const ListValue* x = a[0].list();
  const ListValue* y = a[1].list();
  if (x->size() == 0) return a[1];
  if (y->size() == 0) return a[0];
  size_t n = x->size() + y->size();
  Value* items = ctx.arena->NewArray<Value>(n);
  for (size_t i = 0; i < x->size(); ++i) items[i] = x->Get(i);
  for (size_t i = 0; i < y->size(); ++i) items[x->size() + i] = y->Get(i);
  return Value::ConcatList(ctx.arena->New<ArrayList>(items, n));
}

// ---- comparisons ----
template <int kOp>  // 0 <, 1 <=, 2 >, 3 >=
Value Compare(EvalContext& ctx, const Value* a) {
  int c = CompareValues(a[0], a[1]);
  if (c == 2) {
    // cel-go's Double/Int/Uint Compare: a NaN operand is an error, not false.
    if (a[0].IsNumber() && a[1].IsNumber()) return Err(ctx, "NaN values cannot be ordered");
    return Err(ctx, "no such overload");
  }
  switch (kOp) {
    case 0: return Value::Bool(c < 0);
    case 1: return Value::Bool(c <= 0);
    case 2: return Value::Bool(c > 0);
    default: return Value::Bool(c >= 0);
  }
}
Value Equals(EvalContext& ctx, const Value* a) {
  // cel-go asks the left operand: the Kubernetes Quantity and Semver types answer "no such
  // overload" for an operand of another type (so do IP and CIDR) (types.MaybeNoSuchOverloadErr) where the built-in
  // types answer false. `!=` negates "is equal" and stays false/true.
  const ValueKind k = a[0].kind();
  if ((k == ValueKind::kQuantity || k == ValueKind::kSemver || k == ValueKind::kIP || k == ValueKind::kCIDR ||
       k == ValueKind::kFormat || k == ValueKind::kURL) &&
      (a[1].kind() != k || a[1].is_quantity_pointer())) {
    return internal::Err(ctx, "no such overload");
  }
  return Value::Bool(ValueEquals(a[0], a[1]));
}
Value NotEquals(EvalContext&, const Value* a) { return Value::Bool(!ValueEquals(a[0], a[1])); }
Value LogicalNot(EvalContext&, const Value* a) { return Value::Bool(!a[0].bool_value()); }
Value NotStrictlyFalse(EvalContext&, const Value* a) {
  if (a[0].kind() == ValueKind::kBool) return a[0];
  return Value::Bool(true);
}

// ---- size ----
Value SizeString(EvalContext&, const Value* a) {
  return Value::Int(static_cast<int64_t>(internal::CodePointCount(a[0].str())));
}
Value SizeBytes(EvalContext&, const Value* a) { return Value::Int(static_cast<int64_t>(a[0].str().size())); }
Value SizeList(EvalContext&, const Value* a) { return Value::Int(static_cast<int64_t>(a[0].list()->size())); }
Value SizeMap(EvalContext&, const Value* a) { return Value::Int(static_cast<int64_t>(a[0].map()->size())); }

// ---- in ----
Value InList(EvalContext&, const Value* a) {
  const ListValue* l = a[1].list();
  for (size_t i = 0, n = l->size(); i < n; ++i) {
    if (ValueEquals(a[0], l->Get(i))) return Value::Bool(true);
  }
  return Value::Bool(false);
}
Value InMap(EvalContext& ctx, const Value* a) {
  const MapValue& m = *a[1].map();
  // An empty Go map is not hashed into.
  if (m.KeyedByGoValue() && m.size() > 0) {
    if (std::string_view panic = UnhashableKeyPanic(a[0]); !panic.empty()) {
      ctx.panic = panic;
      return Err(ctx, panic);
    }
  }
  return Value::Bool(m.Has(a[0]));
}

// ---- conversions ----
Value Identity(EvalContext&, const Value* a) { return a[0]; }
Value DoubleToInt(EvalContext& ctx, const Value* a) {
  double d = a[0].double_value();
  if (!(d > -9223372036854775809.0 && d < 9223372036854775808.0)) return Err(ctx, "integer overflow");
  return Value::Int(static_cast<int64_t>(d));
}
Value UintToInt(EvalContext& ctx, const Value* a) {
  if (a[0].uint_value() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Err(ctx, "integer overflow");
  }
  return Value::Int(static_cast<int64_t>(a[0].uint_value()));
}
// Parses a decimal digit string into a uint64; false on a non-digit, *overflow on overflow.
bool ParseDigits(std::string_view s, uint64_t* out, bool* overflow) {
  *overflow = false;
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, static_cast<uint64_t>(c - '0'), &v)) {
      *overflow = true;
    }
  }
  *out = v;
  return true;
}
bool ParseGoInt(std::string_view s, int64_t* out, bool* range) {
  *range = false;
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  uint64_t v;
  bool overflow;
  if (!ParseDigits(s, &v, &overflow)) return false;
  const uint64_t limit = neg ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
  if (overflow || v > limit) {
    *range = true;
    return false;
  }
  *out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}
Value StringToInt(EvalContext& ctx, const Value* a) {
  int64_t v;
  bool range;
  // cel-go reports any strconv failure (syntax or range) with one text.
  if (!ParseGoInt(a[0].str(), &v, &range)) return Err(ctx, "type conversion error from 'string' to 'int'");
  return Value::Int(v);
}
Value IntToUint(EvalContext& ctx, const Value* a) {
  if (a[0].int_value() < 0) return Err(ctx, "unsigned integer overflow");
  return Value::Uint(static_cast<uint64_t>(a[0].int_value()));
}
Value DoubleToUint(EvalContext& ctx, const Value* a) {
  double d = a[0].double_value();
  // cel-go doubleToUint64Checked: any negative value overflows (-0.0 does not).
  if (!(d >= 0.0 && d < 18446744073709551616.0)) return Err(ctx, "unsigned integer overflow");
  return Value::Uint(static_cast<uint64_t>(d));
}
Value StringToUint(EvalContext& ctx, const Value* a) {
  std::string_view s = a[0].str();
  uint64_t v;
  bool overflow;
  bool ok = ParseDigits(s, &v, &overflow);
  if (!ok || overflow) return Err(ctx, "type conversion error from 'string' to 'uint'");
  return Value::Uint(v);
}
Value IntToDouble(EvalContext&, const Value* a) { return Value::Double(static_cast<double>(a[0].int_value())); }
Value UintToDouble(EvalContext&, const Value* a) { return Value::Double(static_cast<double>(a[0].uint_value())); }
bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }

// Go's strconv.ParseFloat(s, 64) syntax check, for what strtod would read differently: no
// whitespace; "inf", "infinity" and "nan" in any case (with a sign except for nan), nothing like
// "nan(...)"; a hexadecimal mantissa needs a 'p' exponent; underscores only between digits (or after
// the 0x prefix), as in a Go literal. Returns the text without underscores, or nothing.
std::optional<std::string> GoFloatText(std::string_view s) {
  std::string lower;
  for (char c : s) lower.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
  std::string_view body = lower;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) body.remove_prefix(1);
  if (body == "inf" || body == "infinity") return std::string(s);
  if (lower == "nan") return std::string(s);
  if (body.empty() || !(IsDigitChar(body[0]) || body[0] == '.')) return std::nullopt;
  const bool hex = body.size() > 1 && body[0] == '0' && body[1] == 'x';
  if (hex && body.find('p') == std::string_view::npos) return std::nullopt;
  std::string out;
  const auto digit = [hex](char c) { return IsDigitChar(c) || (hex && ((c >= 'a' && c <= 'f'))); };
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = lower[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') return std::nullopt;
    if (c != '_') {
      out.push_back(s[i]);
      continue;
    }
    const bool after_prefix = i >= 2 && lower[i - 1] == 'x' && lower[i - 2] == '0';
    if (!(i > 0 && (digit(lower[i - 1]) || after_prefix) && i + 1 < s.size() && digit(lower[i + 1]))) {
      return std::nullopt;
    }
  }
  return out;
}
Value StringToDouble(EvalContext& ctx, const Value* a) {
  std::optional<std::string> s = GoFloatText(a[0].str());
  char* end = nullptr;
  errno = 0;
  const double d = s ? std::strtod(s->c_str(), &end) : 0;
  // ParseFloat fails on syntax, and on overflow (it would return +-Inf with ErrRange); underflow
  // to zero or a subnormal is no error. cel-go reports either failure with one text.
  const bool overflow = errno == ERANGE && std::isinf(d);
  if (!s || s->empty() || end != s->c_str() + s->size() || overflow) {
    return Err(ctx, "type conversion error from 'string' to 'double'");
  }
  return Value::Double(d);
}
Value IntToString(EvalContext& ctx, const Value* a) { return MakeString(*ctx.arena, std::to_string(a[0].int_value())); }
Value UintToString(EvalContext& ctx, const Value* a) {
  return MakeString(*ctx.arena, std::to_string(a[0].uint_value()));
}
Value DoubleToString(EvalContext& ctx, const Value* a) {
  return MakeString(*ctx.arena, internal::FormatGoDouble(a[0].double_value()));
}
Value BoolToString(EvalContext&, const Value* a) { return Value::String(a[0].bool_value() ? "true" : "false"); }
Value BytesToString(EvalContext& ctx, const Value* a) {
  if (!internal::ValidUtf8(a[0].str())) return Err(ctx, "invalid UTF-8 in bytes, cannot convert to string");
  return Value::String(a[0].str());
}
Value StringToBytes(EvalContext&, const Value* a) { return Value::Bytes(a[0].str()); }
Value StringToBool(EvalContext& ctx, const Value* a) {
  std::string_view s = a[0].str();
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return Value::Bool(true);
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") return Value::Bool(false);
  return Err(ctx, "type conversion error from 'string' to 'bool'");
}
Value TypeOf(EvalContext&, const Value* a) { return Value::Type(TypeName(a[0])); }

// ---- strings ----
Value Contains(EvalContext&, const Value* a) { return Value::Bool(a[0].str().find(a[1].str()) != std::string_view::npos); }
Value StartsWith(EvalContext&, const Value* a) { return Value::Bool(a[0].str().substr(0, a[1].str().size()) == a[1].str()); }
Value EndsWith(EvalContext&, const Value* a) {
  std::string_view s = a[0].str(), x = a[1].str();
  return Value::Bool(s.size() >= x.size() && s.substr(s.size() - x.size()) == x);
}

}  // namespace

namespace internal {

const re2::RE2* GetRegex(EvalContext& ctx, std::string_view pattern, Value* error) {
  if (ctx.regexes != nullptr) {
    auto it = ctx.regexes->find(pattern);
    if (it != ctx.regexes->end()) return it->second.get();
  }
  // A dynamic pattern: compiled for this call and owned by the arena.
  re2::RE2::Options opts;
  opts.set_log_errors(false);
  auto* re = ctx.arena->New<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), opts);
  if (!re->ok()) {
    *error = Err(ctx, Cat("given regex is invalid: ", re->error()));
    return nullptr;
  }
  return re;
}

}  // namespace internal

namespace {

Value Matches(EvalContext& ctx, const Value* a) {
  Value err;
  const re2::RE2* re = internal::GetRegex(ctx, a[1].str(), &err);
  if (re == nullptr) return err;
  return Value::Bool(re2::RE2::PartialMatch(re2::StringPiece(a[0].str().data(), a[0].str().size()), *re));
}

// ---- optionals ----
Value OptionalOf(EvalContext& ctx, const Value* a) { return Value::Optional(ctx.arena->New<OptionalValue>(OptionalValue{a[0]})); }
Value OptionalNone(EvalContext&, const Value*) { return Value::Optional(nullptr); }
bool IsZeroValue(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return true;
    case ValueKind::kBool: return !v.bool_value();
    case ValueKind::kInt: return v.int_value() == 0;
    case ValueKind::kUint: return v.uint_value() == 0;
    case ValueKind::kDouble: return v.double_value() == 0;
    case ValueKind::kString:
    case ValueKind::kBytes: return v.str().empty();
    case ValueKind::kList: return v.list()->size() == 0;
    case ValueKind::kMap: return v.map()->size() == 0;
    default: return false;
  }
}
Value OptionalOfNonZero(EvalContext& ctx, const Value* a) {
  if (IsZeroValue(a[0])) return Value::Optional(nullptr);
  return OptionalOf(ctx, a);
}
Value OptionalValueFn(EvalContext& ctx, const Value* a) {
  if (a[0].optional() == nullptr) return Err(ctx, "optional.none() dereference");
  return a[0].optional()->value;
}
Value OptionalHasValue(EvalContext&, const Value* a) { return Value::Bool(a[0].optional() != nullptr); }
Value OptionalOr(EvalContext&, const Value* a) { return a[0].optional() != nullptr ? a[0] : a[1]; }
Value OptionalOrValue(EvalContext&, const Value* a) { return a[0].optional() != nullptr ? a[0].optional()->value : a[1]; }

}  // namespace

void RegisterStandardLibrary(FunctionRegistry& r) {
  const Type A = Type::Param("A"), B = Type::Param("B"), K = Type::Param("K"), V = Type::Param("V");
  const Type I = Type::Int(), U = Type::Uint(), D = Type::Double(), S = Type::String(), By = Type::Bytes(),
             Bo = Type::Bool(), Dy = Type::Dyn();
  auto LA = Type::List(A);
  auto MKV = Type::Map(K, V);
  // Logical operators and the conditional are evaluated by the interpreter (non-strict).
  r.Add("_&&_", "logical_and", {Bo, Bo}, Bo, false, nullptr);
  r.Add("_||_", "logical_or", {Bo, Bo}, Bo, false, nullptr);
  r.Add("_?_:_", "conditional", {Bo, A, A}, A, false, nullptr);
  r.Add("!_", "logical_not", {Bo}, Bo, false, LogicalNot);
  r.Add("@not_strictly_false", "not_strictly_false", {Bo}, Bo, false, NotStrictlyFalse);
  r.Add("_==_", "equals", {A, A}, Bo, false, Equals);
  r.Add("_!=_", "not_equals", {A, A}, Bo, false, NotEquals);
  // Arithmetic in cel-go's declaration order (common/stdlib/standard.go, by overload id): the
  // first overload an argument of unknown type fits binds that type, so `[].map(x, x * attr)` is a
  // list(double) and `[].map(x, x + attr)` a list(bytes) upstream. The timestamp and duration
  // overloads (library_time.cc) come later here; an unbound argument never reaches them first.
  r.Add("-_", "negate_double", {D}, D, false, NegDouble);
  r.Add("-_", "negate_int64", {I}, I, false, NegInt);
  r.Add("_+_", "add_bytes", {By, By}, By, false, AddString);
  r.Add("_+_", "add_double", {D, D}, D, false, AddDouble);
  r.Add("_+_", "add_int64", {I, I}, I, false, AddInt);
  r.Add("_+_", "add_list", {LA, LA}, LA, false, AddList);
  r.Add("_+_", "add_string", {S, S}, S, false, AddString);
  r.Add("_+_", "add_uint64", {U, U}, U, false, AddUint);
  r.Add("_-_", "subtract_double", {D, D}, D, false, SubDouble);
  r.Add("_-_", "subtract_int64", {I, I}, I, false, SubInt);
  r.Add("_-_", "subtract_uint64", {U, U}, U, false, SubUint);
  r.Add("_*_", "multiply_double", {D, D}, D, false, MulDouble);
  r.Add("_*_", "multiply_int64", {I, I}, I, false, MulInt);
  r.Add("_*_", "multiply_uint64", {U, U}, U, false, MulUint);
  r.Add("_/_", "divide_double", {D, D}, D, false, DivDouble);
  r.Add("_/_", "divide_int64", {I, I}, I, false, DivInt);
  r.Add("_/_", "divide_uint64", {U, U}, U, false, DivUint);
  r.Add("_%_", "modulo_int64", {I, I}, I, false, ModInt);
  r.Add("_%_", "modulo_uint64", {U, U}, U, false, ModUint);
  struct Cmp {
    const char* fn;
    const char* id;
    FunctionImpl impl;
  };
  const Cmp cmps[] = {{"_<_", "less", Compare<0>},
                      {"_<=_", "less_equals", Compare<1>},
                      {"_>_", "greater", Compare<2>},
                      {"_>=_", "greater_equals", Compare<3>}};
  for (const Cmp& c : cmps) {
    std::string id = c.id;
    // cel-go's declaration order, the cross-type numeric comparisons after their left type's own.
    r.Add(c.fn, id + "_bool", {Bo, Bo}, Bo, false, c.impl);
    r.Add(c.fn, id + "_int64", {I, I}, Bo, false, c.impl);
    r.Add(c.fn, id + "_int64_double", {I, D}, Bo, false, c.impl);
    r.Add(c.fn, id + "_int64_uint64", {I, U}, Bo, false, c.impl);
    r.Add(c.fn, id + "_uint64", {U, U}, Bo, false, c.impl);
    r.Add(c.fn, id + "_uint64_double", {U, D}, Bo, false, c.impl);
    r.Add(c.fn, id + "_uint64_int64", {U, I}, Bo, false, c.impl);
    r.Add(c.fn, id + "_double", {D, D}, Bo, false, c.impl);
    r.Add(c.fn, id + "_double_int64", {D, I}, Bo, false, c.impl);
    r.Add(c.fn, id + "_double_uint64", {D, U}, Bo, false, c.impl);
    r.Add(c.fn, id + "_string", {S, S}, Bo, false, c.impl);
    r.Add(c.fn, id + "_bytes", {By, By}, Bo, false, c.impl);
  }
  // Index, membership and optional access are evaluated by the interpreter.
  r.Add("_[_]", "index_list", {LA, I}, A, false, nullptr);
  r.Add("_[_]", "index_map", {MKV, K}, V, false, nullptr);
  r.Add("@in", "in_list", {A, LA}, Bo, false, InList);
  r.Add("@in", "in_map", {A, Type::Map(A, B)}, Bo, false, InMap);
  // In cel-go's declaration order, which the checker follows: the first overload an argument of
  // unknown type fits binds that type, so `[].filter(x, x.size() > 1)` is a list(bytes) upstream.
  r.Add("size", "size_bytes", {By}, I, false, SizeBytes);
  r.Add("size", "bytes_size", {By}, I, true, SizeBytes);
  r.Add("size", "size_list", {LA}, I, false, SizeList);
  r.Add("size", "list_size", {LA}, I, true, SizeList);
  r.Add("size", "size_map", {MKV}, I, false, SizeMap);
  r.Add("size", "map_size", {MKV}, I, true, SizeMap);
  r.Add("size", "size_string", {S}, I, false, SizeString);
  r.Add("size", "string_size", {S}, I, true, SizeString);
  r.Add("int", "int64_to_int64", {I}, I, false, Identity);
  r.Add("int", "uint64_to_int64", {U}, I, false, UintToInt);
  r.Add("int", "double_to_int64", {D}, I, false, DoubleToInt);
  r.Add("int", "string_to_int64", {S}, I, false, StringToInt);
  r.Add("uint", "uint64_to_uint64", {U}, U, false, Identity);
  r.Add("uint", "int64_to_uint64", {I}, U, false, IntToUint);
  r.Add("uint", "double_to_uint64", {D}, U, false, DoubleToUint);
  r.Add("uint", "string_to_uint64", {S}, U, false, StringToUint);
  r.Add("double", "double_to_double", {D}, D, false, Identity);
  r.Add("double", "int64_to_double", {I}, D, false, IntToDouble);
  r.Add("double", "uint64_to_double", {U}, D, false, UintToDouble);
  r.Add("double", "string_to_double", {S}, D, false, StringToDouble);
  r.Add("string", "string_to_string", {S}, S, false, Identity);
  r.Add("string", "bool_to_string", {Bo}, S, false, BoolToString);
  r.Add("string", "int64_to_string", {I}, S, false, IntToString);
  r.Add("string", "uint64_to_string", {U}, S, false, UintToString);
  r.Add("string", "double_to_string", {D}, S, false, DoubleToString);
  r.Add("string", "bytes_to_string", {By}, S, false, BytesToString);
  r.Add("bytes", "bytes_to_bytes", {By}, By, false, Identity);
  r.Add("bytes", "string_to_bytes", {S}, By, false, StringToBytes);
  r.Add("bool", "bool_to_bool", {Bo}, Bo, false, Identity);
  r.Add("bool", "string_to_bool", {S}, Bo, false, StringToBool);
  r.Add("dyn", "to_dyn", {A}, Dy, false, Identity);
  r.Add("type", "type", {A}, Type::TypeOf(A), false, TypeOf);
  r.Add("contains", "contains_string", {S, S}, Bo, true, Contains);
  r.Add("startsWith", "starts_with_string", {S, S}, Bo, true, StartsWith);
  r.Add("endsWith", "ends_with_string", {S, S}, Bo, true, EndsWith);
  r.Add("matches", "matches", {S, S}, Bo, false, Matches);
  r.Add("matches", "matches_string", {S, S}, Bo, true, Matches);
  // Optionals (cel.OptionalTypes).
  auto OA = Type::Optional(A);
  r.Add("optional.of", "optional_of", {A}, OA, false, OptionalOf);
  r.Add("optional.ofNonZeroValue", "optional_ofNonZeroValue", {A}, OA, false, OptionalOfNonZero);
  r.Add("optional.none", "optional_none", {}, Type::Optional(Type::Param("T")), false, OptionalNone);
  r.Add("value", "optional_value", {OA}, A, true, OptionalValueFn);
  r.Add("hasValue", "optional_hasValue", {OA}, Bo, true, OptionalHasValue);
  r.Add("or", "optional_or_optional", {OA, OA}, OA, true, OptionalOr);
  r.Add("orValue", "optional_orValue_value", {OA, A}, A, true, OptionalOrValue);
  r.Add("_?._", "select_optional_field", {Dy, S}, Type::Optional(Dy), false, nullptr);
  r.Add("_[?_]", "list_optindex_optional_int", {LA, I}, OA, false, nullptr);
  r.Add("_[?_]", "map_optindex_optional_value", {MKV, K}, Type::Optional(V), false, nullptr);
  // Optional chaining on optional lists and maps (cel-go's optional library).
  r.Add("_[_]", "optional_list_index_int", {Type::Optional(LA), I}, OA, false, nullptr);
  r.Add("_[_]", "optional_map_index_value", {Type::Optional(MKV), K}, Type::Optional(V), false, nullptr);
  r.Add("_[?_]", "optional_list_optindex_optional_int", {Type::Optional(LA), I}, OA, false, nullptr);
  r.Add("_[?_]", "optional_map_optindex_optional_value", {Type::Optional(MKV), K}, Type::Optional(V), false, nullptr);
  // Two-variable comprehension helper (ext.TwoVarComprehensions).
  r.Add("cel.@mapInsert", "@mapInsert_map_key_value", {MKV, K, V}, MKV, false, nullptr);
  r.Add("cel.@mapInsert", "@mapInsert_map_map", {MKV, MKV}, MKV, false, nullptr);
}

const FunctionRegistry& FunctionRegistry::Dra(const EnvOptions& options) {
  // Stored expressions declare `includes` whatever DRAListTypeAttributes says (see Env::Dra).
  static const FunctionRegistry* const kRegistries[2] = {
      [] {
        auto* r = new FunctionRegistry;
        RegisterStandardLibrary(*r);
        RegisterTimeLibrary(*r);
        RegisterStringsLibrary(*r);
        RegisterKubernetesLibraries(*r, EnvOptions{false, true, false});
        return r;
      }(),
      [] {
        auto* r = new FunctionRegistry;
        RegisterStandardLibrary(*r);
        RegisterTimeLibrary(*r);
        RegisterStringsLibrary(*r);
        RegisterKubernetesLibraries(*r, EnvOptions{true, true, true});
        return r;
      }(),
  };
  return *kRegistries[options.stored_expressions || options.list_type_attributes ? 1 : 0];
}

}  // namespace draforge::cel
