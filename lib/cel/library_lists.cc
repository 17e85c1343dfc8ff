// cel-go's list extension (ext/lists.go) as Kubernetes 1.37 configures it (ext.Lists version 3):
// slice, flatten, lists.range, reverse, distinct, sort, and the helper of the sortBy macro.
#include <algorithm>
#include <string>
#include <vector>

#include "cel/functions.h"
#include "cel/internal/str.h"
#include "cel/internal/values.h"

namespace draforge::cel {

using internal::Cat;
using internal::Err;

namespace {

Value Slice(EvalContext& ctx, const Value* a) {
  const ListValue* l = a[0].list();
  const int64_t start = a[1].int_value(), end = a[2].int_value();
  if (start < 0 || end < 0) return Err(ctx, Cat("cannot slice(", start, ", ", end, "), negative indexes not supported"));
  if (start > end) {
    return Err(ctx, Cat("cannot slice(", start, ", ", end, "), start index must be less than or equal to end index"));
  }
  if (static_cast<int64_t>(l->size()) < end) {
    return Err(ctx, Cat("cannot slice(", start, ", ", end, "), list is length ", l->size()));
  }
  MutableList* out = ctx.arena->New<MutableList>();
  for (int64_t i = start; i < end; ++i) out->Append(*ctx.arena, l->Get(static_cast<size_t>(i)));
  return Value::List(out);
}

void FlattenInto(EvalContext& ctx, const ListValue& l, int64_t depth, MutableList* out) {
  for (size_t i = 0; i < l.size(); ++i) {
    Value v = l.Get(i);
    if (v.kind() != ValueKind::kList || depth == 0) {
      out->Append(*ctx.arena, v);
    } else {
      FlattenInto(ctx, *v.list(), depth - 1, out);
    }
  }
}
Value FlattenN(EvalContext& ctx, const Value& list, int64_t depth) {
  if (list.kind() != ValueKind::kList) return Err(ctx, "no such overload");
  if (depth < 0) return Err(ctx, "level must be non-negative");
  MutableList* out = ctx.arena->New<MutableList>();
  FlattenInto(ctx, *list.list(), depth, out);
  return Value::List(out);
}
Value Flatten(EvalContext& ctx, const Value* a) { return FlattenN(ctx, a[0], 1); }
Value FlattenDepth(EvalContext& ctx, const Value* a) { return FlattenN(ctx, a[0], a[1].int_value()); }

Value Range(EvalContext& ctx, const Value* a) {
  const int64_t n = a[0].int_value();
  if (n < 0) return Err(ctx, Cat("lists.range: size must be non-negative, got ", n));
  MutableList* out = ctx.arena->New<MutableList>();
  // The cost limit bounds what a selector can ask for; the loop itself checks nothing else, as
  // upstream (Kubernetes sets no maximum range size).
  for (int64_t i = 0; i < n; ++i) out->Append(*ctx.arena, Value::Int(i));
  return Value::List(out);
}

Value Reverse(EvalContext& ctx, const Value* a) {
  const ListValue* l = a[0].list();
  MutableList* out = ctx.arena->New<MutableList>();
  for (size_t i = l->size(); i-- > 0;) out->Append(*ctx.arena, l->Get(i));
  return Value::List(out);
}

Value Distinct(EvalContext& ctx, const Value* a) {
  const ListValue* l = a[0].list();
  if (l->size() == 0) return a[0];
  MutableList* out = ctx.arena->New<MutableList>();
  for (size_t i = 0; i < l->size(); ++i) {
    Value v = l->Get(i);
    bool seen = false;
    for (size_t j = 0; j < out->size() && !seen; ++j) seen = ValueEquals(v, out->Get(j));
    if (!seen) out->Append(*ctx.arena, v);
  }
  return Value::List(out);
}

// Values cel-go's traits.Comparer covers among the sortable element types.
bool IsComparable(ValueKind k) {
  switch (k) {
    case ValueKind::kInt: case ValueKind::kUint: case ValueKind::kDouble: case ValueKind::kBool:
    case ValueKind::kString: case ValueKind::kBytes: case ValueKind::kTimestamp: case ValueKind::kDuration:
      return true;
    default:
      return false;
  }
}

// sortListByAssociatedKeys: `list` ordered by `keys` (the list itself for sort()).
Value SortByKeys(EvalContext& ctx, const Value& list_value, const ListValue& keys) {
  const ListValue* l = list_value.list();
  if (l->size() != keys.size()) {
    return Err(ctx, Cat("@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ",
                        l->size(), " and ", keys.size(), " elements respectively"));
  }
  if (l->size() == 0) return list_value;
  const ValueKind k = keys.Get(0).kind();
  if (!IsComparable(k)) return Err(ctx, "list elements must be comparable");
  std::vector<size_t> order(l->size());
  for (size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
    // Upstream compares every key with another, so one of another type always fails.
    if (keys.Get(i).kind() != k) return Err(ctx, "list elements must have the same type");
  }
  // Stable, where Go's sort.Slice is stable only below 13 elements (its insertion sort).
  std::stable_sort(order.begin(), order.end(),
                   [&keys](size_t x, size_t y) { return CompareValues(keys.Get(x), keys.Get(y)) < 0; });
  MutableList* out = ctx.arena->New<MutableList>();
  for (size_t i : order) out->Append(*ctx.arena, l->Get(i));
  return Value::List(out);
}
Value Sort(EvalContext& ctx, const Value* a) { return SortByKeys(ctx, a[0], *a[0].list()); }
Value SortByAssociatedKeys(EvalContext& ctx, const Value* a) { return SortByKeys(ctx, a[0], *a[1].list()); }

}  // namespace

void RegisterListsExtension(FunctionRegistry& r) {
  const Type T = Type::Param("T"), I = Type::Int();
  r.Add("slice", "list_slice", {Type::List(T), I, I}, Type::List(T), true, Slice);
  r.Add("flatten", "list_flatten", {Type::List(Type::List(T))}, Type::List(T), true, Flatten);
  r.Add("flatten", "list_flatten_int", {Type::List(Type::Dyn()), I}, Type::List(Type::Dyn()), true, FlattenDepth);
  r.Add("lists.range", "lists_range", {I}, Type::List(I), false, Range);
  r.Add("reverse", "list_reverse", {Type::List(T)}, Type::List(T), true, Reverse);
  r.Add("distinct", "list_distinct", {Type::List(T)}, Type::List(T), true, Distinct);
  for (const Type& t : {Type::Int(), Type::Uint(), Type::Double(), Type::Bool(), Type::Duration(), Type::Timestamp(),
                        Type::String(), Type::Bytes()}) {
    r.Add("sort", "list_" + FormatType(t) + "_sort", {Type::List(t)}, Type::List(t), true, Sort);
    r.Add("@sortByAssociatedKeys", "list_" + FormatType(t) + "_sortByAssociatedKeys", {Type::List(T), Type::List(t)},
          Type::List(T), true, SortByAssociatedKeys);
  }
}

}  // namespace draforge::cel
