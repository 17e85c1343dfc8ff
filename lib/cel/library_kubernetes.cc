// The Kubernetes CEL libraries of the DRA environment (k8s.io/apiserver/pkg/cel/library): quantity,
// semver, lists, regex, the DRA `includes` function, and cel-go's ext.Sets.
#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <utility>

#include "cel/functions.h"
#include "cel/internal/quantity_amount.h"
#include "cel/internal/str.h"
#include "cel/internal/values.h"
#include "re2/re2.h"

namespace draforge::cel {

using internal::Cat;
using internal::Err;

namespace {

Value StatusErr(EvalContext& ctx, const absl::Status& s) {
  return Err(ctx, std::string_view(s.message().data(), s.message().size()));
}

// ---- quantity ----
Value QuantityParse(EvalContext& ctx, const Value* a) {
  auto q = api::Quantity::Parse(a[0].str());
  if (!q.ok()) return StatusErr(ctx, q.status());
  return Value::Quantity(ctx.arena->New<api::Quantity>(*std::move(q)));
}
Value IsQuantity(EvalContext&, const Value* a) { return Value::Bool(api::Quantity::Parse(a[0].str()).ok()); }
Value QSign(EvalContext&, const Value* a) { return Value::Int(a[0].quantity()->Sign()); }

// isInteger(), asInteger() and asApproximateFloat() answer from apimachinery's representation of
// the quantity (QuantityAmount), which add() and sub() carry forward: quantity("1.0").isInteger()
// and quantity("1.5").add(quantity("0.5")).isInteger() are false.
Value QIsInteger(EvalContext&, const Value* a) {
  return Value::Bool(internal::QuantityAmount::Of(a[0]).AsInt64().has_value());
}
Value QAsInteger(EvalContext& ctx, const Value* a) {
  auto v = internal::QuantityAmount::Of(a[0]).AsInt64();
  if (!v) return Err(ctx, "cannot convert value to integer");
  return Value::Int(*v);
}
Value QAsFloat(EvalContext&, const Value* a) {
  return Value::Double(internal::QuantityAmount::Of(a[0]).AsApproximateFloat64());
}
Value QCompare(EvalContext&, const Value* a) { return Value::Int(a[0].quantity()->Compare(*a[1].quantity())); }
Value QGreater(EvalContext&, const Value* a) { return Value::Bool(a[0].quantity()->Compare(*a[1].quantity()) > 0); }
Value QLess(EvalContext&, const Value* a) { return Value::Bool(a[0].quantity()->Compare(*a[1].quantity()) < 0); }
Value QAdd(EvalContext& ctx, const Value* a) {
  using internal::QuantityAmount;
  return QuantityAmount::Of(a[0]).Add(QuantityAmount::Of(a[1])).ToValue(*ctx.arena);
}
Value QSub(EvalContext& ctx, const Value* a) {
  using internal::QuantityAmount;
  return QuantityAmount::Of(a[0]).Sub(QuantityAmount::Of(a[1])).ToValue(*ctx.arena);
}
Value QAddInt(EvalContext& ctx, const Value* a) {
  using internal::QuantityAmount;
  return QuantityAmount::Of(a[0]).Add(QuantityAmount::OfInt64(a[1].int_value())).ToValue(*ctx.arena);
}
Value QSubInt(EvalContext& ctx, const Value* a) {
  using internal::QuantityAmount;
  return QuantityAmount::Of(a[0]).Sub(QuantityAmount::OfInt64(a[1].int_value())).ToValue(*ctx.arena);
}

// ---- semver ----
Value SemverParse(EvalContext& ctx, const Value* a) {
  auto v = api::Semver::Parse(a[0].str());
  if (!v.ok()) return StatusErr(ctx, v.status());
  return Value::Semver(ctx.arena->New<api::Semver>(*std::move(v)));
}
Value SemverParseNorm(EvalContext& ctx, const Value* a) {
  auto v = a[1].bool_value() ? api::Semver::ParseNormalized(a[0].str()) : api::Semver::Parse(a[0].str());
  if (!v.ok()) return StatusErr(ctx, v.status());
  return Value::Semver(ctx.arena->New<api::Semver>(*std::move(v)));
}
Value IsSemver(EvalContext&, const Value* a) { return Value::Bool(api::Semver::Parse(a[0].str()).ok()); }
Value IsSemverNorm(EvalContext&, const Value* a) {
  return Value::Bool((a[1].bool_value() ? api::Semver::ParseNormalized(a[0].str()) : api::Semver::Parse(a[0].str())).ok());
}
Value SMajor(EvalContext&, const Value* a) { return Value::Int(static_cast<int64_t>(a[0].semver()->major())); }
Value SMinor(EvalContext&, const Value* a) { return Value::Int(static_cast<int64_t>(a[0].semver()->minor())); }
Value SPatch(EvalContext&, const Value* a) { return Value::Int(static_cast<int64_t>(a[0].semver()->patch())); }
Value SCompare(EvalContext&, const Value* a) { return Value::Int(a[0].semver()->Compare(*a[1].semver())); }
Value SGreater(EvalContext&, const Value* a) { return Value::Bool(a[0].semver()->Compare(*a[1].semver()) > 0); }
Value SLess(EvalContext&, const Value* a) { return Value::Bool(a[0].semver()->Compare(*a[1].semver()) < 0); }

// ---- lists ----
// cel-go picks a list overload at run time by the list's first element (Type.IsAssignableRuntimeType):
// a dyn list whose first element has no overload is "no such overload: isSorted(list)". The
// functions themselves (k8s.io/apiserver library/lists.go) need each element to be a Comparer
// (an Adder for sum), and ignore a comparison that fails (other types, NaN).
bool IsComparable(ValueKind k) {
  switch (k) {
    case ValueKind::kInt: case ValueKind::kUint: case ValueKind::kDouble: case ValueKind::kBool:
    case ValueKind::kDuration: case ValueKind::kTimestamp: case ValueKind::kString: case ValueKind::kBytes:
      return true;
    default: return false;
  }
}
bool IsSummable(ValueKind k) {
  return k == ValueKind::kInt || k == ValueKind::kUint || k == ValueKind::kDouble || k == ValueKind::kDuration;
}
Value NoOverloadForFirst(EvalContext& ctx, const ListValue& l, bool (*ok)(ValueKind), std::string_view fn,
                         bool* failed) {
  *failed = l.size() > 0 && !ok(l.Get(0).kind());
  return *failed ? Err(ctx, Cat("no such overload: ", fn, "(list)")) : Value();
}
Value IsSorted(EvalContext& ctx, const Value* a) {
  const ListValue* l = a[0].list();
  bool failed;
  Value e = NoOverloadForFirst(ctx, *l, IsComparable, "isSorted", &failed);
  if (failed) return e;
  for (size_t i = 0; i < l->size(); ++i) {
    if (!IsComparable(l->Get(i).kind())) return Err(ctx, "no such overload");
    if (i > 0 && CompareValues(l->Get(i - 1), l->Get(i)) == 1) return Value::Bool(false);
  }
  return Value::Bool(true);
}
// The sum of an empty list is the zero of the overload's element type (0, 0u, 0.0).
Value Sum(EvalContext& ctx, const Value* a);
template <ValueKind kZero>
Value SumOf(EvalContext& ctx, const Value* a) {
  bool failed;
  Value e = NoOverloadForFirst(ctx, *a[0].list(), IsSummable, "sum", &failed);
  if (failed) return e;
  if (a[0].list()->size() == 0) {
    if constexpr (kZero == ValueKind::kUint) return Value::Uint(0);
    if constexpr (kZero == ValueKind::kDouble) return Value::Double(0);
    if constexpr (kZero == ValueKind::kDuration) return Value::Duration(0);
    return Value::Int(0);
  }
  return Sum(ctx, a);
}
Value Sum(EvalContext& ctx, const Value* a) {
  const ListValue* l = a[0].list();
  if (l->size() == 0) return Value::Int(0);
  Value acc = l->Get(0);
  // Upstream starts from the zero value: 0.0 + -0.0 is 0.0.
  if (acc.kind() == ValueKind::kDouble) acc = Value::Double(0.0 + acc.double_value());
  for (size_t i = 1; i < l->size(); ++i) {
    Value x = l->Get(i);
    if (acc.kind() != x.kind()) return Err(ctx, "no such overload");
    switch (acc.kind()) {
      case ValueKind::kInt: {
        int64_t r;
        if (__builtin_add_overflow(acc.int_value(), x.int_value(), &r)) return Err(ctx, "integer overflow");
        acc = Value::Int(r);
        break;
      }
      case ValueKind::kUint: {
        uint64_t r;
        if (__builtin_add_overflow(acc.uint_value(), x.uint_value(), &r)) return Err(ctx, "unsigned integer overflow");
        acc = Value::Uint(r);
        break;
      }
      case ValueKind::kDouble: acc = Value::Double(acc.double_value() + x.double_value()); break;
      case ValueKind::kDuration: {
        int64_t r;
        if (__builtin_add_overflow(acc.duration_nanos(), x.duration_nanos(), &r)) return Err(ctx, "integer overflow");
        acc = Value::Duration(r);
        break;
      }
      default: return Err(ctx, "no such overload");
    }
  }
  return acc;
}
template <bool kMin>
Value MinMax(EvalContext& ctx, const Value* a) {
  const ListValue* l = a[0].list();
  bool failed;
  Value e = NoOverloadForFirst(ctx, *l, IsComparable, kMin ? "min" : "max", &failed);
  if (failed) return e;
  if (l->size() == 0) return Err(ctx, kMin ? "min called on empty list" : "max called on empty list");
  Value best = l->Get(0);
  for (size_t i = 1; i < l->size(); ++i) {
    Value x = l->Get(i);
    if (!IsComparable(x.kind())) return Err(ctx, "no such overload");
    // cmp(): the current best compared with the next; only a definite preference replaces it.
    if (CompareValues(best, x) == (kMin ? 1 : -1)) best = x;
  }
  return best;
}
Value ListIndexOf(EvalContext&, const Value* a) {
  const ListValue* l = a[0].list();
  for (size_t i = 0; i < l->size(); ++i) {
    if (ValueEquals(l->Get(i), a[1])) return Value::Int(static_cast<int64_t>(i));
  }
  return Value::Int(-1);
}
Value ListLastIndexOf(EvalContext&, const Value* a) {
  const ListValue* l = a[0].list();
  for (size_t i = l->size(); i-- > 0;) {
    if (ValueEquals(l->Get(i), a[1])) return Value::Int(static_cast<int64_t>(i));
  }
  return Value::Int(-1);
}
Value Includes(EvalContext&, const Value* a) {
  if (a[0].kind() == ValueKind::kList) {
    const ListValue* l = a[0].list();
    for (size_t i = 0; i < l->size(); ++i) {
      if (ValueEquals(l->Get(i), a[1])) return Value::Bool(true);
    }
    return Value::Bool(false);
  }
  return Value::Bool(ValueEquals(a[0], a[1]));
}

// ---- regex ----
const re2::RE2* Regex(EvalContext& ctx, std::string_view pattern, Value* err) {
  const re2::RE2* re = internal::GetRegex(ctx, pattern, err);
  if (re == nullptr) *err = Err(ctx, Cat("Illegal regex: ", DebugString(*err).substr(0)));
  return re;
}
Value Find(EvalContext& ctx, const Value* a) {
  Value err;
  const re2::RE2* re = internal::GetRegex(ctx, a[1].str(), &err);
  if (re == nullptr) return err;
  re2::StringPiece in(a[0].str().data(), a[0].str().size());
  re2::StringPiece m;
  if (!re->Match(in, 0, in.size(), re2::RE2::UNANCHORED, &m, 1)) return Value::String("");
  return Value::String(std::string_view(m.data(), m.size()));
}
Value FindAllN(EvalContext& ctx, const Value* a, int64_t limit) {
  Value err;
  const re2::RE2* re = internal::GetRegex(ctx, a[1].str(), &err);
  if (re == nullptr) return err;
  std::string_view s = a[0].str();
  re2::StringPiece in(s.data(), s.size());
  MutableList* out = ctx.arena->New<MutableList>();
  size_t pos = 0;
  size_t prev_end = std::string_view::npos;
  while (pos <= s.size() && (limit < 0 || static_cast<int64_t>(out->size()) < limit)) {
    re2::StringPiece m;
    if (!re->Match(in, pos, s.size(), re2::RE2::UNANCHORED, &m, 1)) break;
    size_t start = m.data() - s.data();
    size_t end = start + m.size();
    // Go's FindAllString skips an empty match right after the previous match.
    if (!(m.size() == 0 && start == prev_end)) {
      out->Append(*ctx.arena, Value::String(std::string_view(m.data(), m.size())));
    }
    prev_end = end;
    pos = end > start ? end : start + 1;
  }
  return Value::List(out);
}
Value FindAll(EvalContext& ctx, const Value* a) { return FindAllN(ctx, a, -1); }
Value FindAllLimit(EvalContext& ctx, const Value* a) { return FindAllN(ctx, a, a[2].int_value()); }

// ---- sets ----
bool ListContains(const ListValue* l, const Value& v) {
  for (size_t i = 0; i < l->size(); ++i) {
    if (ValueEquals(l->Get(i), v)) return true;
  }
  return false;
}
Value SetsContains(EvalContext&, const Value* a) {
  const ListValue* b = a[1].list();
  for (size_t i = 0; i < b->size(); ++i) {
    if (!ListContains(a[0].list(), b->Get(i))) return Value::Bool(false);
  }
  return Value::Bool(true);
}
Value SetsEquivalent(EvalContext& ctx, const Value* a) {
  Value rev[2] = {a[1], a[0]};
  return Value::Bool(SetsContains(ctx, a).bool_value() && SetsContains(ctx, rev).bool_value());
}
Value SetsIntersects(EvalContext&, const Value* a) {
  const ListValue* b = a[1].list();
  for (size_t i = 0; i < b->size(); ++i) {
    if (ListContains(a[0].list(), b->Get(i))) return Value::Bool(true);
  }
  return Value::Bool(false);
}

}  // namespace

void RegisterKubernetesLibraries(FunctionRegistry& r, const EnvOptions& options) {
  const Type Q = Type::Quantity(), Sv = Type::Semver(), I = Type::Int(), S = Type::String(), Bo = Type::Bool(),
             D = Type::Double(), A = Type::Param("A");
  r.Add("quantity", "string_to_quantity", {S}, Q, false, QuantityParse);
  r.Add("isQuantity", "is_quantity_string", {S}, Bo, false, IsQuantity);
  // Upstream declares sign as a global function: sign(q), not q.sign().
  r.Add("sign", "quantity_sign", {Q}, I, false, QSign);
  r.Add("isInteger", "quantity_is_integer", {Q}, Bo, true, QIsInteger);
  r.Add("asInteger", "quantity_get_int", {Q}, I, true, QAsInteger);
  r.Add("asApproximateFloat", "quantity_get_float", {Q}, D, true, QAsFloat);
  r.Add("add", "quantity_add", {Q, Q}, Q, true, QAdd);
  r.Add("add", "quantity_add_int", {Q, I}, Q, true, QAddInt);
  r.Add("sub", "quantity_sub", {Q, Q}, Q, true, QSub);
  r.Add("sub", "quantity_sub_int", {Q, I}, Q, true, QSubInt);
  r.Add("isLessThan", "quantity_less", {Q, Q}, Bo, true, QLess);
  r.Add("isGreaterThan", "quantity_greater", {Q, Q}, Bo, true, QGreater);
  r.Add("compareTo", "quantity_compare", {Q, Q}, I, true, QCompare);

  r.Add("semver", "string_to_semver", {S}, Sv, false, SemverParse);
  r.Add("semver", "string_bool_to_semver", {S, Bo}, Sv, false, SemverParseNorm);
  r.Add("isSemver", "is_semver_string", {S}, Bo, false, IsSemver);
  r.Add("isSemver", "is_semver_string_bool", {S, Bo}, Bo, false, IsSemverNorm);
  r.Add("isLessThan", "semver_less", {Sv, Sv}, Bo, true, SLess);
  r.Add("isGreaterThan", "semver_greater", {Sv, Sv}, Bo, true, SGreater);
  r.Add("compareTo", "semver_compare", {Sv, Sv}, I, true, SCompare);
  r.Add("major", "semver_major", {Sv}, I, true, SMajor);
  r.Add("minor", "semver_minor", {Sv}, I, true, SMinor);
  r.Add("patch", "semver_patch", {Sv}, I, true, SPatch);

  // Lists: comparable / summable element types.
  // k8s.io/apiserver's comparableTypes (quantities and semvers are not among them).
  for (const Type& t : {Type::Int(), Type::Uint(), Type::Double(), Type::Bool(), Type::Duration(), Type::Timestamp(),
                        Type::String(), Type::Bytes()}) {
    // Upstream's overload ids name durations and timestamps in short.
    std::string n = t.kind == TypeKind::kDuration ? "duration" : t.kind == TypeKind::kTimestamp ? "timestamp" : FormatType(t);
    r.Add("isSorted", "list_" + n + "_is_sorted_bool", {Type::List(t)}, Bo, true, IsSorted);
    r.Add("min", "list_" + n + "_min", {Type::List(t)}, t, true, MinMax<true>);
    r.Add("max", "list_" + n + "_max", {Type::List(t)}, t, true, MinMax<false>);
  }
  r.Add("sum", "list_int_sum", {Type::List(Type::Int())}, Type::Int(), true, SumOf<ValueKind::kInt>);
  r.Add("sum", "list_uint_sum", {Type::List(Type::Uint())}, Type::Uint(), true, SumOf<ValueKind::kUint>);
  r.Add("sum", "list_double_sum", {Type::List(Type::Double())}, Type::Double(), true, SumOf<ValueKind::kDouble>);
  r.Add("sum", "list_duration_sum", {Type::List(Type::Duration())}, Type::Duration(), true, SumOf<ValueKind::kDuration>);
  r.Add("indexOf", "list_a_index_of_int", {Type::List(A), A}, I, true, ListIndexOf);
  r.Add("lastIndexOf", "list_a_last_index_of_int", {Type::List(A), A}, I, true, ListLastIndexOf);
  if (options.list_type_attributes) {
    r.Add("includes", "list_includes_dyn_dyn", {Type::Dyn(), Type::Dyn()}, Bo, true, Includes);
  }

  r.Add("find", "string_find_string", {S, S}, S, true, Find);
  r.Add("findAll", "string_find_all_string", {S, S}, Type::List(S), true, FindAll);
  r.Add("findAll", "string_find_all_string_int", {S, S, I}, Type::List(S), true, FindAllLimit);

  r.Add("sets.contains", "list_sets_contains_list", {Type::List(A), Type::List(A)}, Bo, false, SetsContains);
  r.Add("sets.equivalent", "list_sets_equivalent_list", {Type::List(A), Type::List(A)}, Bo, false, SetsEquivalent);
  r.Add("sets.intersects", "list_sets_intersects_list", {Type::List(A), Type::List(A)}, Bo, false, SetsIntersects);
  (void)Regex;
  RegisterNetLibraries(r);
  RegisterListsExtension(r);
  RegisterFormatLibrary(r);
  RegisterUrlLibrary(r);
}

}  // namespace draforge::cel
