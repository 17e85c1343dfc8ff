// The CEL tree-walking evaluator with cel-go's runtime cost tracking (interpreter/runtimecost.go and
// the Kubernetes CostEstimator.CallCost).
#include <cmath>
#include <cstring>

#include "cel/internal/str.h"
#include "cel/internal/values.h"
#include "cel/program.h"

namespace draforge::cel {

using internal::Cat;

namespace {

const std::string kNoOverloadId;
constexpr std::string_view kCostExceeded = "operation cancelled: actual cost limit exceeded";

uint64_t ActualSize(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kString: return internal::CodePointCount(v.str());
    case ValueKind::kBytes: return v.str().size();
    case ValueKind::kList: return v.list()->size();
    case ValueKind::kMap: return v.map()->size();
    default: return 1;
  }
}

uint64_t SatMulU(uint64_t a, uint64_t b) { return (a != 0 && b > UINT64_MAX / a) ? UINT64_MAX - 1 : a * b; }
uint64_t CeilTenth(uint64_t n) { return (n + 9) / 10; }

// The Kubernetes traversalCost (truncating, as upstream).
uint64_t TraversalCost(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kString: return static_cast<uint64_t>(static_cast<double>(v.str().size()) * 0.1);
    case ValueKind::kBytes: return static_cast<uint64_t>(static_cast<double>(v.str().size()) * 0.1);
    case ValueKind::kList: {
      uint64_t c = 0;
      for (size_t i = 0; i < v.list()->size(); ++i) c += TraversalCost(v.list()->Get(i));
      return c;
    }
    case ValueKind::kMap: {
      uint64_t c = 0;
      for (size_t i = 0; i < v.map()->size(); ++i) c += TraversalCost(v.map()->KeyAt(i)) + TraversalCost(v.map()->ValueAt(i));
      return c;
    }
    default: return 1;
  }
}

// Runtime cost of one function call: the Kubernetes estimator first, then cel-go's defaults.
uint64_t CallCost(const std::string& fn, const std::string& id, const Value* args, size_t n, const Value& result) {
  if (fn == "isSorted" || fn == "sum" || fn == "max" || fn == "min" || fn == "indexOf" || fn == "lastIndexOf" ||
      fn == "includes") {
    if (fn == "indexOf" || fn == "lastIndexOf") {
      if (args[0].kind() != ValueKind::kList) {
        // The strings extension's indexOf: not a Kubernetes list function, but the Kubernetes
        // estimator matches by function name.
      }
    }
    return n > 0 ? TraversalCost(args[0]) : 0;
  }
  if (fn == "lowerAscii" || fn == "upperAscii" || fn == "substring" || fn == "trim") {
    return CeilTenth(ActualSize(args[0]));
  }
  if (fn == "replace" || fn == "split") {
    return static_cast<uint64_t>(std::ceil(static_cast<double>(ActualSize(args[0])) * 2 * 0.1));
  }
  if (fn == "join") return static_cast<uint64_t>(std::ceil(static_cast<double>(ActualSize(result)) * 2 * 0.1));
  if (fn == "find" || fn == "findAll") {
    uint64_t str = static_cast<uint64_t>(std::ceil((1.0 + ActualSize(args[0])) * 0.1));
    uint64_t re = static_cast<uint64_t>(std::ceil(ActualSize(args[1]) * 0.25));
    return str * re;
  }
  if (fn == "quantity" || fn == "isQuantity" || fn == "semver" || fn == "isSemver") {
    return static_cast<uint64_t>(std::ceil(static_cast<double>(ActualSize(args[0])) * 0.1));
  }
  if (fn == "sign" || fn == "asInteger" || fn == "isInteger" || fn == "asApproximateFloat" ||
      fn == "isGreaterThan" || fn == "isLessThan" || fn == "compareTo" || fn == "add" || fn == "sub" ||
      fn == "major" || fn == "minor" || fn == "patch") {
    return 1;
  }
  if (fn == "_==_" && n == 2 && (args[0].kind() == ValueKind::kQuantity || args[0].kind() == ValueKind::kSemver)) {
    return 1;
  }
  if (fn == "sets.contains" || fn == "sets.equivalent" || fn == "sets.intersects") {
    return SatMulU(ActualSize(args[0]), ActualSize(args[1])) + 1;
  }
  if (id == "starts_with_string" || id == "ends_with_string") return CeilTenth(ActualSize(args[1]));
  if (id == "string_to_bytes" || id == "bytes_to_string" || id == "strings_quote") {
    return CeilTenth(ActualSize(args[0]));
  }
  if (id == "in_list") return ActualSize(args[1]);
  if (fn == "_==_" || fn == "_!=_" || id == "less_string" || id == "greater_string" ||
      id == "less_equals_string" || id == "greater_equals_string" || id == "less_bytes" ||
      id == "greater_bytes" || id == "less_equals_bytes" || id == "greater_equals_bytes") {
    return CeilTenth(std::min(ActualSize(args[0]), ActualSize(args[1])));
  }
  if (id == "add_string" || id == "add_bytes") return CeilTenth(ActualSize(args[0]) + ActualSize(args[1]));
  if (id == "matches" || id == "matches_string") {
    uint64_t str = static_cast<uint64_t>(std::ceil((1.0 + ActualSize(args[0])) * 0.1));
    uint64_t re = static_cast<uint64_t>(std::ceil(ActualSize(args[1]) * 0.25));
    return str * re;
  }
  if (id == "contains_string") return CeilTenth(ActualSize(args[0])) * CeilTenth(ActualSize(args[1]));
  return 1;
}

bool KindMatches(const Overload& o, const Value* args, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    int k = o.kinds[i];
    if (k >= 0 && static_cast<int>(args[i].kind()) != k) return false;
  }
  return true;
}

// True when `e` is an ident/select/constant-index chain: cel-go plans it as one attribute whose
// evaluation costs 1 plus 1 per qualifier.
bool IsAttributeChain(const Expr& e) {
  if (e.kind == ExprKind::kIdent) return true;
  if (e.kind == ExprKind::kSelect && !e.test_only) return IsAttributeChain(*e.args[0]);
  if (e.kind == ExprKind::kCall && e.name == "_[_]") return IsAttributeChain(*e.args[0]);
  return false;
}

}  // namespace

class Interpreter {
 public:
  Interpreter(const Program& p, const Activation& act, Arena& arena, uint64_t limit)
      : p_(p), act_(act), arena_(arena), limit_(limit) {
    ctx_.arena = &arena;
    ctx_.regexes = &p.regexes_;
    slots_ = arena.NewArray<Value>(p.max_slots_ + 1);
  }

  EvalResult Run() {
    EvalResult r;
    r.value = Eval(*p_.parsed_.root);
    r.cost = cost_;
    r.cost_exceeded = cancelled_;
    if (cancelled_) r.value = MakeError(arena_, kCostExceeded);
    return r;
  }

 private:
  void AddCost(uint64_t c) {
    cost_ += c;
    if (cost_ > limit_) cancelled_ = true;
  }
  Value Error(std::string_view msg) { return MakeError(arena_, msg); }

  Value Eval(const Expr& e) {
    if (cancelled_) return Value::Error(&cancel_error_);
    switch (e.kind) {
      case ExprKind::kConst:
        return e.constant;
      case ExprKind::kIdent:
        AddCost(1);
        if (e.slot >= 0) return slots_[e.slot];
        return act_.globals[-2 - e.slot];
      case ExprKind::kSelect:
        return EvalSelect(e);
      case ExprKind::kCall:
        return EvalCall(e);
      case ExprKind::kList: {
        auto folded = p_.folded_.find(&e);
        if (folded != p_.folded_.end()) return folded->second;
        size_t n = e.args.size();
        Value* items = arena_.NewArray<Value>(n);
        size_t out = 0;
        for (size_t i = 0; i < n; ++i) {
          Value v = Eval(*e.args[i]);
          if (v.IsError()) return v;
          if (IsOptionalIndex(e, i)) {
            if (v.kind() != ValueKind::kOptional) return Error("no such overload");
            if (v.optional() == nullptr) continue;
            v = v.optional()->value;
          }
          items[out++] = v;
        }
        AddCost(10);
        return Value::List(arena_.New<ArrayList>(items, out));
      }
      case ExprKind::kMap: {
        auto folded = p_.folded_.find(&e);
        if (folded != p_.folded_.end()) return folded->second;
        ArrayMap* m = arena_.New<ArrayMap>();
        m->Reserve(arena_, e.args.size() / 2);
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
          Value k = Eval(*e.args[i]);
          if (k.IsError()) return k;
          Value v = Eval(*e.args[i + 1]);
          if (v.IsError()) return v;
          if (k.kind() != ValueKind::kString && k.kind() != ValueKind::kInt && k.kind() != ValueKind::kUint &&
              k.kind() != ValueKind::kBool) {
            return Error(Cat("unsupported key type: ", TypeName(k)));
          }
          if (IsOptionalIndex(e, i / 2)) {
            if (v.kind() != ValueKind::kOptional) return Error("no such overload");
            if (v.optional() == nullptr) continue;
            v = v.optional()->value;
          }
          if (!m->Insert(arena_, k, v)) return Error(Cat("insert failed: key ", DebugString(k), " already exists"));
        }
        AddCost(30);
        return Value::Map(m);
      }
      case ExprKind::kComprehension:
        return EvalComprehension(e);
    }
    return Value();
  }

  static bool IsOptionalIndex(const Expr& e, size_t i) {
    for (int32_t x : e.optional_indices) {
      if (static_cast<size_t>(x) == i) return true;
    }
    return false;
  }

  // Field or key access on `v`; `found` reports presence (for has() and optional selection).
  Value Access(const Value& v, const Value& key, bool* found) {
    *found = false;
    switch (v.kind()) {
      case ValueKind::kMap: {
        Value out;
        if (v.map()->Find(key, &out)) {
          *found = true;
          return out;
        }
        if (key.kind() == ValueKind::kDouble) {
          // Heterogeneous lookups are handled by Find; a non-integral double never matches.
        }
        return Error(Cat("no such key: ", key.kind() == ValueKind::kString ? std::string(key.str()) : DebugString(key)));
      }
      case ValueKind::kList: {
        int64_t i;
        if (key.kind() == ValueKind::kInt) {
          i = key.int_value();
        } else if (key.kind() == ValueKind::kUint) {
          i = key.uint_value() > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(key.uint_value());
        } else if (key.kind() == ValueKind::kDouble) {
          double d = key.double_value();
          if (d != std::trunc(d) || !(d > -9.3e18 && d < 9.3e18)) return Error(Cat("unsupported index value: ", DebugString(key)));
          i = static_cast<int64_t>(d);
        } else {
          return Error("no such overload");
        }
        if (i < 0 || static_cast<uint64_t>(i) >= v.list()->size()) return Error(Cat("index out of bounds: ", i));
        *found = true;
        return v.list()->Get(static_cast<size_t>(i));
      }
      case ValueKind::kError:
        return v;
      default:
        if (key.kind() == ValueKind::kString) return Error(Cat("no such key: ", key.str()));
        return Error("no such overload");
    }
  }

  Value EvalSelect(const Expr& e) {
    const Expr& operand = *e.args[0];
    Value v = Eval(operand);
    if (v.IsError()) return v;
    // A presence test has no cost of its own (PresenceTestHasCost(false) in Kubernetes).
    if (!e.test_only) {
      if (!IsAttributeChain(operand)) AddCost(1);
      AddCost(1);
    }
    if (cancelled_) return Value::Error(&cancel_error_);
    Value key = Value::String(e.name);
    if (e.test_only) {
      if (v.kind() == ValueKind::kMap) return Value::Bool(v.map()->Has(key));
      return Error(Cat("invalid type for field selection."));
    }
    if (v.kind() != ValueKind::kMap) {
      return Error(Cat("no such key: ", e.name));
    }
    bool found;
    return Access(v, key, &found);
  }

  Value EvalCall(const Expr& e) {
    const std::string& fn = e.name;
    const size_t n = e.args.size();
    // Non-strict logical operators: commutative error absorption.
    if (fn == "_&&_" || fn == "_||_") {
      const bool is_and = fn == "_&&_";
      Value l = Eval(*e.args[0]);
      if (l.kind() == ValueKind::kBool && l.bool_value() != is_and) return l;
      Value r = Eval(*e.args[1]);
      if (cancelled_) return Value::Error(&cancel_error_);
      if (r.kind() == ValueKind::kBool && r.bool_value() != is_and) return r;
      if (l.kind() == ValueKind::kBool && r.kind() == ValueKind::kBool) return r;
      if (l.IsError()) return l;
      if (r.IsError()) return r;
      return Error("no such overload");
    }
    if (fn == "_?_:_") {
      Value c = Eval(*e.args[0]);
      if (c.IsError()) return c;
      if (c.kind() != ValueKind::kBool) return Error("no such overload");
      const Expr& branch = *e.args[c.bool_value() ? 1 : 2];
      // cel-go resolves an identifier branch inside the conditional without observing it.
      if (branch.kind == ExprKind::kIdent) {
        return branch.slot >= 0 ? slots_[branch.slot] : act_.globals[-2 - branch.slot];
      }
      return Eval(branch);
    }
    if (fn == "_[_]" || fn == "_[?_]") {
      const Expr& operand = *e.args[0];
      Value v = Eval(operand);
      if (v.IsError()) return v;
      Value k = Eval(*e.args[1]);
      if (k.IsError()) return k;
      if (!IsAttributeChain(operand)) AddCost(1);
      // Only constant qualifiers are charged; a computed key is charged through its own evaluation.
      if (e.args[1]->kind == ExprKind::kConst) AddCost(1);
      if (cancelled_) return Value::Error(&cancel_error_);
      bool optional_index = fn == "_[?_]";
      if (v.kind() == ValueKind::kOptional) {
        if (v.optional() == nullptr) return v;
        v = v.optional()->value;
        optional_index = true;
      }
      bool found;
      Value out = Access(v, k, &found);
      if (optional_index) {
        if (!found) {
          if (v.kind() == ValueKind::kMap || v.kind() == ValueKind::kList) return Value::Optional(nullptr);
          return out;
        }
        return Value::Optional(arena_.New<OptionalValue>(OptionalValue{out}));
      }
      return out;
    }
    if (fn == "_?._") {
      Value v = Eval(*e.args[0]);
      if (v.IsError()) return v;
      AddCost(1);
      if (cancelled_) return Value::Error(&cancel_error_);
      if (v.kind() == ValueKind::kOptional) {
        if (v.optional() == nullptr) return v;
        v = v.optional()->value;
      }
      if (v.kind() != ValueKind::kMap) return Error(Cat("no such key: ", e.args[1]->constant.str()));
      Value out;
      if (!v.map()->Find(e.args[1]->constant, &out)) return Value::Optional(nullptr);
      return Value::Optional(arena_.New<OptionalValue>(OptionalValue{out}));
    }
    // Strict functions: evaluate all arguments, then propagate the first error.
    Value stack_args[4];
    Value* args = n <= 4 ? stack_args : arena_.NewArray<Value>(n);
    for (size_t i = 0; i < n; ++i) args[i] = Eval(*e.args[i]);
    if (cancelled_) return Value::Error(&cancel_error_);
    const Function* f = static_cast<const Function*>(e.function);
    if (fn == "@not_strictly_false") {
      AddCost(1);
      if (cancelled_) return Value::Error(&cancel_error_);
      return args[0].kind() == ValueKind::kBool ? args[0] : Value::Bool(true);
    }
    // cel-go charges a call even when an argument is an error; with several candidate overloads the
    // overload id is not known statically and the default cost applies.
    const std::string& static_id =
        e.overloads.size() == 1 ? f->overloads[e.overloads[0]].id : kNoOverloadId;
    for (size_t i = 0; i < n; ++i) {
      if (args[i].IsError()) {
        AddCost(CallCost(fn, static_id, args, n, args[i]));
        return cancelled_ ? Value::Error(&cancel_error_) : args[i];
      }
    }
    if (e.accumulates) return Accumulate(e, args);
    const Overload* chosen = nullptr;
    for (int idx : e.overloads) {
      const Overload& o = f->overloads[idx];
      if (KindMatches(o, args, n)) {
        chosen = &o;
        break;
      }
    }
    if (chosen == nullptr || chosen->impl == nullptr) {
      AddCost(CallCost(fn, static_id, args, n, Value()));
      return Error("no such overload");
    }
    Value result = chosen->impl(ctx_, args);
    AddCost(CallCost(fn, static_id, args, n, result));
    if (cancelled_) return Value::Error(&cancel_error_);
    return result;
  }

  // `@result + [x]` and `cel.@mapInsert(...)` in macro loops: in-place updates of the accumulator.
  Value Accumulate(const Expr& e, const Value* args) {
    AddCost(1);
    if (e.name == "_+_") {
      if (args[0].kind() != ValueKind::kList || args[1].kind() != ValueKind::kList) return Error("no such overload");
      MutableList* acc = nullptr;
      if (args[0].list() == current_accu_list_) {
        acc = current_accu_list_;
      } else {
        acc = arena_.New<MutableList>();
        acc->AppendAll(arena_, *args[0].list());
        current_accu_list_ = acc;
      }
      acc->AppendAll(arena_, *args[1].list());
      return Value::List(acc);
    }
    // cel.@mapInsert(map, key, value) or (map, entryMap).
    if (args[0].kind() != ValueKind::kMap) return Error("no such overload");
    ArrayMap* acc;
    if (args[0].map() == current_accu_map_) {
      acc = current_accu_map_;
    } else {
      acc = arena_.New<ArrayMap>();
      for (size_t i = 0; i < args[0].map()->size(); ++i) {
        acc->Insert(arena_, args[0].map()->KeyAt(i), args[0].map()->ValueAt(i));
      }
      current_accu_map_ = acc;
    }
    const size_t n = e.args.size();
    if (n == 3) {
      if (!acc->Insert(arena_, args[1], args[2])) {
        return Error(Cat("insert failed: key ", DebugString(args[1]), " already exists"));
      }
    } else {
      if (args[1].kind() != ValueKind::kMap) return Error("no such overload");
      for (size_t i = 0; i < args[1].map()->size(); ++i) {
        if (!acc->Insert(arena_, args[1].map()->KeyAt(i), args[1].map()->ValueAt(i))) {
          return Error(Cat("insert failed: key ", DebugString(args[1].map()->KeyAt(i)), " already exists"));
        }
      }
    }
    return Value::Map(acc);
  }

  Value EvalComprehension(const Expr& e) {
    Value range = Eval(*e.args[kIterRange]);
    if (range.IsError()) return range;
    if (range.kind() != ValueKind::kList && range.kind() != ValueKind::kMap) {
      return Error(Cat("got '", GoTypeName(range), "', expected iterable type"));
    }
    Value accu = Eval(*e.args[kAccuInit]);
    if (cancelled_) return Value::Error(&cancel_error_);
    const int accu_slot = e.slot, v1 = e.slot + 1, v2 = e.slot + 2;
    const bool two = !e.iter_var2.empty();
    MutableList* saved_list = current_accu_list_;
    ArrayMap* saved_map = current_accu_map_;
    current_accu_list_ = nullptr;
    current_accu_map_ = nullptr;
    slots_[accu_slot] = accu;
    const size_t n = range.kind() == ValueKind::kList ? range.list()->size() : range.map()->size();
    for (size_t i = 0; i < n; ++i) {
      if (range.kind() == ValueKind::kList) {
        if (two) {
          slots_[v1] = Value::Int(static_cast<int64_t>(i));
          slots_[v2] = range.list()->Get(i);
        } else {
          slots_[v1] = range.list()->Get(i);
        }
      } else {
        slots_[v1] = range.map()->KeyAt(i);
        if (two) slots_[v2] = range.map()->ValueAt(i);
      }
      Value cond = Eval(*e.args[kLoopCondition]);
      if (cancelled_) break;
      if (cond.kind() == ValueKind::kBool && !cond.bool_value()) break;
      if (cond.kind() != ValueKind::kBool) break;
      slots_[accu_slot] = Eval(*e.args[kLoopStep]);
      if (cancelled_) break;
    }
    current_accu_list_ = saved_list;
    current_accu_map_ = saved_map;
    if (cancelled_) return Value::Error(&cancel_error_);
    return Eval(*e.args[kResult]);
  }

  const Program& p_;
  const Activation& act_;
  Arena& arena_;
  uint64_t limit_;
  uint64_t cost_ = 0;
  bool cancelled_ = false;
  ErrorValue cancel_error_{kCostExceeded};
  EvalContext ctx_;
  Value* slots_;
  MutableList* current_accu_list_ = nullptr;
  ArrayMap* current_accu_map_ = nullptr;
};

EvalResult Program::Eval(const Activation& activation, Arena& arena, uint64_t cost_limit) const {
  Interpreter in(*this, activation, arena, cost_limit);
  return in.Run();
}

}  // namespace draforge::cel
