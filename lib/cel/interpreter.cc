// The CEL tree-walking evaluator with cel-go's runtime cost tracking (interpreter/runtimecost.go and
// the Kubernetes CostEstimator.CallCost).
#include <cmath>
#include <cstring>

#include "cel/internal/str.h"
#include "cel/internal/values.h"
#include "cel/named_format.h"
#include "cel/program.h"
#include "cel/well_known_types.h"

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
    // IP.Size and CIDR.Size in k8s.io/apiserver/pkg/cel: address bytes, prefix bytes.
    case ValueKind::kIP: return static_cast<uint64_t>(v.ip()->BitLen() / 8);
    case ValueKind::kCIDR: return static_cast<uint64_t>((v.cidr()->bits + 7) / 8);
    default: return 1;
  }
}

uint64_t SatMulU(uint64_t a, uint64_t b) { return (a != 0 && b > UINT64_MAX / a) ? UINT64_MAX - 1 : a * b; }
uint64_t SatAddU(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
// Go's uint64(float64) for the values cost trackers produce (non-negative; saturated above).
uint64_t GoFloatToUint(double d) { return d >= 18446744073709551615.0 ? UINT64_MAX : static_cast<uint64_t>(d); }
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

// How a call's runtime cost is computed: the Kubernetes estimator (CostEstimator.CallCost, by
// function name) first, then cel-go's defaults (by overload id). Resolved at plan time.
enum class CostClass : uint8_t {
  kDefault,       // 1
  kTraversal,     // Kubernetes list functions: traversal cost of the receiver
  kTenth,         // ceil(size(args[0]) * 0.1)
  kTwoTenths,     // ceil(size(args[0]) * 0.2): replace, split
  kJoin,          // ceil(size(result) * 0.2)
  kFind,          // find/findAll, matches: string x regex
  kOne,           // quantity/semver accessors and arithmetic
  kEquals,        // _==_: 1 for Quantity/Semver operands, else the min-size rule
  kSets,          // sets.contains/intersects
  kSetsEquivalent,
  kTenthOfSecond,  // startsWith/endsWith: ceil(size(args[1]) * 0.1)
  kInList,        // size(args[1])
  kMinSize,       // ceil(min(size(a), size(b)) * 0.1)
  kAddStrings,    // ceil((size(a) + size(b)) * 0.1)
  kContains,      // ceil(size(a) * 0.1) * ceil(size(b) * 0.1)
  kContainsIP,    // ceil(2 * size(cidr) * 0.1)
  kContainsIPString,    // kContainsIP + ceil(size(string) * 0.1)
  kContainsCIDR,        // kContainsIP + ceil(size(cidr) * 0.1) + 1
  kContainsCIDRString,  // kContainsCIDR + ceil(size(string) * 0.1)
  kListOutput,    // ext.Lists: size(result) + 1 + 10 (list creation)
  kListFlatten,   // ext.Lists: trunc(size(args[0]) * depth) + 11
  kListDistinct,  // ext.Lists: trunc(size^2 * (2 or 2.1 for strings/bytes)) + 11
  kListSortBy,    // kListDistinct on the keys (args[1])
  kValidate,      // format validate: ceil((1 + size(string)) * 0.1) * ceil(MaxRegexSize * 0.25)
};

CostClass ClassifyCall(const std::string& fn, const std::string& id) {
  if (fn == "isSorted" || fn == "sum" || fn == "max" || fn == "min" || fn == "indexOf" || fn == "lastIndexOf" ||
      fn == "includes") {
    // Includes the strings extension's indexOf: the Kubernetes estimator matches by name.
    return CostClass::kTraversal;
  }
  if (fn == "lowerAscii" || fn == "upperAscii" || fn == "substring" || fn == "trim") return CostClass::kTenth;
  if (fn == "replace" || fn == "split") return CostClass::kTwoTenths;
  if (fn == "join") return CostClass::kJoin;
  if (fn == "find" || fn == "findAll") return CostClass::kFind;
  if (fn == "quantity" || fn == "isQuantity" || fn == "semver" || fn == "isSemver") return CostClass::kTenth;
  if (fn == "sign" || fn == "asInteger" || fn == "isInteger" || fn == "asApproximateFloat" ||
      fn == "isGreaterThan" || fn == "isLessThan" || fn == "compareTo" || fn == "add" || fn == "sub" ||
      fn == "major" || fn == "minor" || fn == "patch") {
    return CostClass::kOne;
  }
  if (fn == "cidr" || fn == "isIP" || fn == "isCIDR" || id == "string_to_ip") return CostClass::kTenth;
  if (fn == "url") return CostClass::kTenth;
  if (fn == "validate") return CostClass::kValidate;
  if (fn == "format.named" || fn == "getScheme" || fn == "getHostname" || fn == "getHost" || fn == "getPort" ||
      fn == "getEscapedPath" || fn == "getQuery") {
    return CostClass::kOne;
  }
  if (fn == "ip.isCanonical") return CostClass::kTwoTenths;
  if (fn == "masked" || fn == "prefixLength" || fn == "family" || fn == "isUnspecified" || fn == "isLoopback" ||
      fn == "isLinkLocalMulticast" || fn == "isLinkLocalUnicast" || fn == "isGlobalUnicast" || id == "cidr_ip") {
    return CostClass::kOne;
  }
  // Upstream charges the string parse by overload id, which a call dispatched at runtime (dyn
  // arguments) does not have.
  if (fn == "containsIP") return id == "cidr_contains_ip_string" ? CostClass::kContainsIPString : CostClass::kContainsIP;
  if (fn == "containsCIDR") {
    return id == "cidr_contains_cidr_string" ? CostClass::kContainsCIDRString : CostClass::kContainsCIDR;
  }
  if (id == "list_slice" || id == "lists_range" || id == "list_reverse") return CostClass::kListOutput;
  if (id == "list_flatten" || id == "list_flatten_int") return CostClass::kListFlatten;
  if (id == "list_distinct" || (fn == "sort" && id.size() > 5 && id.compare(id.size() - 5, 5, "_sort") == 0)) {
    return CostClass::kListDistinct;
  }
  if (fn == "@sortByAssociatedKeys" && id != kNoOverloadId) return CostClass::kListSortBy;
  if (fn == "_==_") return CostClass::kEquals;
  if (fn == "sets.contains" || fn == "sets.intersects") return CostClass::kSets;
  if (fn == "sets.equivalent") return CostClass::kSetsEquivalent;
  if (id == "starts_with_string" || id == "ends_with_string") return CostClass::kTenthOfSecond;
  if (id == "string_to_bytes" || id == "bytes_to_string" || id == "strings_quote" || id == "string_format") {
    return CostClass::kTenth;
  }
  if (id == "in_list") return CostClass::kInList;
  if (fn == "_!=_" || id == "less_string" || id == "greater_string" || id == "less_equals_string" ||
      id == "greater_equals_string" || id == "less_bytes" || id == "greater_bytes" || id == "less_equals_bytes" ||
      id == "greater_equals_bytes") {
    return CostClass::kMinSize;
  }
  if (id == "add_string" || id == "add_bytes") return CostClass::kAddStrings;
  if (id == "matches" || id == "matches_string") return CostClass::kFind;
  if (id == "contains_string") return CostClass::kContains;
  return CostClass::kDefault;
}

uint64_t CallCost(CostClass c, const Value* args, size_t n, const Value& result) {
  switch (c) {
    case CostClass::kDefault: return 1;
    case CostClass::kTraversal: return n > 0 ? TraversalCost(args[0]) : 0;
    case CostClass::kTenth: return CeilTenth(ActualSize(args[0]));
    case CostClass::kTwoTenths:
      return static_cast<uint64_t>(std::ceil(static_cast<double>(ActualSize(args[0])) * 2 * 0.1));
    case CostClass::kJoin: return static_cast<uint64_t>(std::ceil(static_cast<double>(ActualSize(result)) * 2 * 0.1));
    case CostClass::kFind: {
      uint64_t str = static_cast<uint64_t>(std::ceil((1.0 + ActualSize(args[0])) * 0.1));
      uint64_t re = static_cast<uint64_t>(std::ceil(ActualSize(args[1]) * 0.25));
      return str * re;
    }
    case CostClass::kOne: return 1;
    case CostClass::kEquals:
      if (n == 2 && (args[0].kind() == ValueKind::kQuantity || args[0].kind() == ValueKind::kSemver ||
                     args[0].kind() == ValueKind::kIP || args[0].kind() == ValueKind::kCIDR ||
                     args[0].kind() == ValueKind::kFormat || args[0].kind() == ValueKind::kURL)) {
        return 1;
      }
      return CeilTenth(std::min(ActualSize(args[0]), ActualSize(args[1])));
    case CostClass::kSets:
    case CostClass::kSetsEquivalent: {
      // ext.Sets trackSetsCost: equivalent checks containment both ways.
      uint64_t product = SatMulU(ActualSize(args[0]), ActualSize(args[1]));
      double factor = c == CostClass::kSetsEquivalent ? 2.0 : 1.0;
      return 1 + static_cast<uint64_t>(static_cast<double>(product) * factor);
    }
    case CostClass::kTenthOfSecond: return CeilTenth(ActualSize(args[1]));
    case CostClass::kInList: return ActualSize(args[1]);
    case CostClass::kMinSize: return CeilTenth(std::min(ActualSize(args[0]), ActualSize(args[1])));
    case CostClass::kAddStrings: return CeilTenth(ActualSize(args[0]) + ActualSize(args[1]));
    case CostClass::kContains: return CeilTenth(ActualSize(args[0])) * CeilTenth(ActualSize(args[1]));
    case CostClass::kListOutput: return SatAddU(ActualSize(result), 11);
    case CostClass::kListFlatten: {
      double depth = n == 2 && args[1].kind() == ValueKind::kInt ? static_cast<double>(args[1].int_value()) : 1.0;
      if (depth < 0) depth = 1.0;
      return SatAddU(GoFloatToUint(static_cast<double>(ActualSize(args[0])) * depth), 11);
    }
    case CostClass::kListDistinct:
    case CostClass::kListSortBy: {
      const Value& l = c == CostClass::kListSortBy && n == 2 ? args[1] : args[0];
      const uint64_t sz = ActualSize(l);
      double factor = 2.0;
      if (sz > 0 && l.kind() == ValueKind::kList) {
        ValueKind k = l.list()->Get(0).kind();
        if (k == ValueKind::kString || k == ValueKind::kBytes) factor += 0.1;
      }
      return SatAddU(GoFloatToUint(static_cast<double>(SatMulU(sz, sz)) * factor), 11);
    }
    case CostClass::kValidate: {
      if (n != 2 || args[0].kind() != ValueKind::kFormat) return 1;
      const uint64_t str = static_cast<uint64_t>(std::ceil((1.0 + static_cast<double>(ActualSize(args[1]))) * 0.1));
      const uint64_t re = static_cast<uint64_t>(std::ceil(args[0].format()->max_regex_size * 0.25));
      return str * re;
    }
    case CostClass::kContainsIP:
    case CostClass::kContainsIPString:
    case CostClass::kContainsCIDR:
    case CostClass::kContainsCIDRString: {
      const uint64_t cidr = ActualSize(args[0]);
      uint64_t cost = CeilTenth(2 * cidr);
      if (c == CostClass::kContainsCIDR || c == CostClass::kContainsCIDRString) cost += CeilTenth(cidr) + 1;
      if (c == CostClass::kContainsIPString || c == CostClass::kContainsCIDRString) cost += CeilTenth(ActualSize(args[1]));
      return cost;
    }
  }
  return 1;
}

// How the interpreter evaluates a call: special forms (non-strict or with their own access rules)
// or a strict call. Resolved at plan time.
enum class CallKind : uint8_t {
  kStrict,
  kAnd,
  kOr,
  kConditional,
  kIndex,        // _[_]
  kOptIndex,     // _[?_]
  kOptSelect,    // _?._
  kIn,           // @in
  kOptOrValue,   // opt.orValue(x): lazy alternative
  kOptOr,        // opt.or(o): lazy alternative
  kNotStrictlyFalse,
};

CallKind ClassifyKind(const Expr& e) {
  const std::string& fn = e.name;
  if (fn == "_&&_") return CallKind::kAnd;
  if (fn == "_||_") return CallKind::kOr;
  if (fn == "_?_:_") return CallKind::kConditional;
  if (fn == "_[_]") return CallKind::kIndex;
  if (fn == "_[?_]") return CallKind::kOptIndex;
  if (fn == "_?._") return CallKind::kOptSelect;
  if (fn == "@in") return CallKind::kIn;
  if (fn == "orValue" && e.receiver_style && e.args.size() == 2) return CallKind::kOptOrValue;
  if (fn == "or" && e.receiver_style && e.args.size() == 2) return CallKind::kOptOr;
  if (fn == "@not_strictly_false") return CallKind::kNotStrictlyFalse;
  return CallKind::kStrict;
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
bool IsQualified(const Expr& e);
bool IsAttributeChain(const Expr& e) {
  if (e.kind == ExprKind::kIdent) return true;
  if (IsQualified(e)) return IsAttributeChain(*e.args[0]);
  return false;
}

// True when `e` is a select, an index or their optional forms: a qualifier of an attribute. A
// chain of qualifiers on a computed operand is one relative attribute in cel-go, charged once (by
// its first qualifier), and a failure inside it was charged to its attribute already.
bool IsQualified(const Expr& e) {
  return (e.kind == ExprKind::kSelect && !e.test_only) ||
         (e.kind == ExprKind::kCall && (e.name == "_[_]" || e.name == "_[?_]" || e.name == "_?._"));
}

// The cost of starting a relative attribute: a qualifier applied to a computed operand that is
// not itself a qualifier (cel-go: SelectAndIdentCost for the attribute, once per chain).
uint64_t RelativeAttributeCost(const Expr& operand) {
  return IsAttributeChain(operand) || IsQualified(operand) ? 0 : 1;
}

}  // namespace

class Interpreter {
 public:
  Interpreter(const Program& p, const Activation& act, Arena& arena, uint64_t limit)
      : p_(p), act_(act), arena_(arena), limit_(limit) {
    ctx_.arena = &arena;
    ctx_.regexes = &p.regexes_;
    slots_ = arena.NewArray<Value>(p.max_slots_ + 1);
    lazy_ = arena.NewArray<const Expr*>(p.max_slots_ + 1);
    for (int i = 0; i <= p.max_slots_; ++i) lazy_[i] = nullptr;
  }

  EvalResult Run() {
    EvalResult r;
    r.value = Eval(*p_.parsed_.root);
    r.cost = cost_;
    r.cost_exceeded = cancelled_ && !panicked_;
    if (r.cost_exceeded) r.value = MakeError(arena_, kCostExceeded);
    if (panicked_) r.value = Value::Error(&cancel_error_);
    return r;
  }

 private:
  void AddCost(uint64_t c) {
    cost_ += c;
    if (cost_ > limit_) cancelled_ = true;
  }
  Value Error(std::string_view msg) { return MakeError(arena_, msg); }
  // What cel-go meets as a Go panic: its Program recovers it and the whole evaluation fails with
  // `msg` (a literal), unabsorbed by && and ||; the cost limit's cancellation stops us the same way.
  Value Panic(std::string_view msg) {
    cancelled_ = true;
    panicked_ = true;
    cancel_error_.message = msg;
    return Value::Error(&cancel_error_);
  }
  // The root of the key attribute being resolved by an optional index (see the kOptIndex path).
  const Expr* uncharged_root_ = nullptr;

  // A variable's value. A comprehension accumulator with a computed initial value (cel.bind) is
  // initialised on its first use, as cel-go's folder does: a bound value that is never used is
  // never evaluated, and is not charged.
  Value Variable(int slot) {
    if (slot < 0) return act_.globals[-2 - slot];
    if (const Expr* init = lazy_[slot]; init != nullptr) {
      lazy_[slot] = nullptr;
      // The initialiser belongs to the enclosing scope, whose comprehensions may reuse the slots
      // above this one (the checker allocates them as siblings): keep the live ones intact.
      const int n = p_.max_slots_ + 1 - slot;
      Value* saved = arena_.NewArray<Value>(static_cast<size_t>(n));
      const Expr** saved_lazy = arena_.NewArray<const Expr*>(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) {
        saved[i] = slots_[slot + i];
        saved_lazy[i] = lazy_[slot + i];
      }
      Value v = Eval(*init);
      for (int i = 0; i < n; ++i) {
        slots_[slot + i] = saved[i];
        lazy_[slot + i] = saved_lazy[i];
      }
      slots_[slot] = v;
    }
    return slots_[slot];
  }

  Value Eval(const Expr& e) {
    if (cancelled_) return Value::Error(&cancel_error_);
    switch (e.kind) {
      case ExprKind::kConst:
        return e.constant;
      case ExprKind::kIdent:
        AddCost(&e == uncharged_root_ ? 0 : 1);
        return Variable(e.slot);
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
          if (v.IsError()) {
            // cel-go's cost observer charges the constructor whatever it returns.
            AddCost(10);
            return v;
          }
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
        m->set_keyed_by_go_value();
        m->Reserve(arena_, e.args.size() / 2);
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
          Value k = Eval(*e.args[i]);
          if (k.IsError()) {
            AddCost(30);
            return k;
          }
          Value v = Eval(*e.args[i + 1]);
          if (v.IsError()) {
            AddCost(30);
            return v;
          }
          // cel-go keeps a literal in a Go map keyed by the value: besides the CEL key types it
          // takes any value Go can hash (doubles, null, timestamps, durations, IPs, and lists or
          // quantities by pointer); a semver or bytes key is a Go panic.
          if (std::string_view panic = UnhashableKeyPanic(k); !panic.empty()) return Panic(panic);
          if (IsOptionalIndex(e, i / 2)) {
            if (v.kind() != ValueKind::kOptional) return Error("no such overload");
            if (v.optional() == nullptr) continue;
            v = v.optional()->value;
          }
          m->Put(arena_, k, v);
        }
        AddCost(30);
        return Value::Map(m);
      }
      case ExprKind::kComprehension:
        return EvalComprehension(e);
      case ExprKind::kStruct: {
        // cel-go's evalObj, charged 40 whatever it returns: the field values in order (the first
        // error wins), `?f: none` unsets f, then the registry builds the message.
        Value v = EvalStruct(e);
        AddCost(40);
        return v;
      }
    }
    return Value();
  }

  Value EvalStruct(const Expr& e) {
    const size_t n = e.args.size();
    const MessageField** fields = arena_.NewArray<const MessageField*>(n);
    Value* values = arena_.NewArray<Value>(n);
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
      Value v = Eval(*e.args[i]);
      if (v.IsError()) return v;
      const MessageField* f = e.message != nullptr ? e.message->FindField(e.field_names[i]) : nullptr;
      size_t at = 0;
      while (at < count && fields[at] != f) ++at;
      if (IsOptionalIndex(e, i)) {
        if (v.kind() != ValueKind::kOptional) {
          return Error(Cat("cannot initialize optional entry '", e.field_names[i], "' from non-optional value ",
                           v.kind() == ValueKind::kString ? std::string(v.str()) : DebugString(v)));
        }
        if (v.optional() == nullptr) {
          // Deleted from the fields set so far.
          if (at < count) {
            for (size_t k = at + 1; k < count; ++k) {
              fields[k - 1] = fields[k];
              values[k - 1] = values[k];
            }
            --count;
          }
          continue;
        }
        v = v.optional()->value;
      }
      // A field set twice keeps its last value (cel-go collects the fields in a Go map).
      fields[at] = f;
      values[at] = v;
      if (at == count) ++count;
    }
    if (e.message == nullptr) {
      // `list{}`, `null_type{}`: type-checked as well-known messages, unknown to the planner.
      std::string_view name = e.name;
      if (name[0] == '.') name.remove_prefix(1);
      return Error(Cat("unknown type '", name, "'"));
    }
    return NewMessage(*e.message, fields, values, count, arena_);
  }

  static bool IsOptionalIndex(const Expr& e, size_t i) {
    for (int32_t x : e.optional_indices) {
      if (static_cast<size_t>(x) == i) return true;
    }
    return false;
  }

  // Keys cel-go cannot make a qualifier of (interpreter/attributes.go newQualifier takes strings,
  // ints, uints, bools and doubles only): a list attribute, a semver, an IP, a dyn() map or bytes
  // can be iterated and tested with `in`, but indexing by them, optional or not, fails whatever
  // the operand. (A constant key of those types is Program::CheckConstantQualifiers' compile error.)
  static bool QualifierRejects(const Value& key) {
    switch (key.kind()) {
      case ValueKind::kString:
      case ValueKind::kInt:
      case ValueKind::kUint:
      case ValueKind::kBool:
      case ValueKind::kDouble:
      case ValueKind::kError:
        return false;
      default:
        return true;
    }
  }

  // Field or key access on `v`; `found` reports presence (for has() and optional selection).
  Value Access(const Value& v, const Value& key, bool* found) {
    *found = false;
    if (v.kind() != ValueKind::kError && QualifierRejects(key)) {
      return Error(Cat("invalid qualifier type: ", GoTypeName(key)));
    }
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
        return Error(Cat("no such key: ", MissingKeyText(key)));
      }
      case ValueKind::kList: {
        int64_t i;
        if (key.kind() == ValueKind::kInt) {
          i = key.int_value();
        } else if (key.kind() == ValueKind::kUint) {
          i = key.uint_value() > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(key.uint_value());
        } else if (key.kind() == ValueKind::kDouble) {
          double d = key.double_value();
          if (d != std::trunc(d) || !(d > -9.3e18 && d < 9.3e18)) {
            return Error(Cat("unsupported index value ", internal::FormatGoDouble(d), " in list"));
          }
          i = static_cast<int64_t>(d);
        } else {
          return Error(Cat("unsupported index type '", TypeName(key), "' in list"));
        }
        if (i < 0 || static_cast<uint64_t>(i) >= v.list()->size()) return Error(Cat("index out of bounds: ", i));
        *found = true;
        return v.list()->Get(static_cast<size_t>(i));
      }
      case ValueKind::kError:
        return v;
      case ValueKind::kMessage:
        if (key.kind() == ValueKind::kString) return Error(Cat("no such field '", key.str(), "'"));
        return Error("no such overload");
      default:
        // A scalar has no keys (cel-go's refQualify): an optional index on it is empty.
        return Error(Cat("no such key: ", MissingKeyText(key)));
    }
  }

  // A missing key as cel-go's resolution error prints it (Go's %v of the CEL value: 3 for 3u).
  static std::string MissingKeyText(const Value& key) {
    switch (key.kind()) {
      case ValueKind::kString: return std::string(key.str());
      case ValueKind::kUint: return std::to_string(key.uint_value());
      default: return DebugString(key);
    }
  }

  // has(x.f) where x is not a map at run time (cel-go's refQualify with a presence test): a list
  // cannot be indexed by a string, a message has no such field, anything else simply lacks `f`.
  Value PresenceOnNonMap(const Value& v, std::string_view field) {
    if (v.kind() == ValueKind::kList) return Error("unsupported index type 'string' in list");
    if (v.kind() == ValueKind::kMessage) return Error(Cat("no such field '", field, "'"));
    return Value::Bool(false);
  }

  // The root of a qualifier chain: the operand below its selects and indexes.
  static const Expr& ChainRoot(const Expr& e) {
    const Expr* x = &e;
    while (IsQualified(*x)) x = x->args[0].get();
    return *x;
  }
  // RelativeAttributeCost, except for the root of an attribute an optional index resolves as its key.
  uint64_t RootCost(const Expr& operand) const {
    return &operand == uncharged_root_ ? 0 : RelativeAttributeCost(operand);
  }

  Value EvalSelect(const Expr& e) {
    const Expr& operand = *e.args[0];
    Value v = Eval(operand);
    if (v.IsError()) {
      // The relative attribute of a select on a computed operand is charged even when it fails.
      if (!e.test_only && !IsAttributeChain(operand) && !IsQualified(operand)) AddCost(1);
      return cancelled_ ? Value::Error(&cancel_error_) : v;
    }
    // A presence test has no cost of its own (PresenceTestHasCost(false) in Kubernetes).
    const bool optional_chain = v.kind() == ValueKind::kOptional && !e.test_only;
    if (!e.test_only) {
      AddCost(RootCost(operand));
      // After an optional qualifier every qualifier is applied only if present, and charged then.
      if (!optional_chain) AddCost(1);
    } else if (!IsAttributeChain(operand)) {
      // cel-go plans has() on a computed operand as a relative attribute whose qualifier is
      // charged; only the attribute's own select cost is waived.
      AddCost(1);
    }
    if (cancelled_) return Value::Error(&cancel_error_);
    Value key = Value::String(e.name);
    if (v.kind() == ValueKind::kOptional) {
      // Optional chaining: none stays none; a present value yields optional.of(field) or none.
      if (v.optional() == nullptr) return e.test_only ? Value::Bool(false) : v;
      Value inner = v.optional()->value;
      if (inner.kind() != ValueKind::kMap) {
        if (e.test_only) return PresenceOnNonMap(inner, e.name);
        return Value::Optional(nullptr);
      }
      if (e.test_only) return Value::Bool(inner.map()->Has(key));
      Value out;
      if (!inner.map()->Find(key, &out)) return Value::Optional(nullptr);
      AddCost(1);
      if (cancelled_) return Value::Error(&cancel_error_);
      return Value::Optional(arena_.New<OptionalValue>(OptionalValue{out}));
    }
    if (e.test_only) {
      if (v.kind() == ValueKind::kMap) return Value::Bool(v.map()->Has(key));
      return PresenceOnNonMap(v, e.name);
    }
    if (v.kind() != ValueKind::kMap) {
      if (v.kind() == ValueKind::kMessage) return Error(Cat("no such field '", e.name, "'"));
      // cel-go qualifies a list with the field name as a string index (dyn([]).x).
      if (v.kind() == ValueKind::kList) return Error("unsupported index type 'string' in list");
      return Error(Cat("no such key: ", e.name));
    }
    bool found;
    return Access(v, key, &found);
  }

  Value EvalCall(const Expr& e) {
    const size_t n = e.args.size();
    // Non-strict logical operators: commutative error absorption.
    const CallKind kind = static_cast<CallKind>(e.call_kind);
    if (kind == CallKind::kAnd || kind == CallKind::kOr) {
      const bool is_and = kind == CallKind::kAnd;
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
    if (kind == CallKind::kConditional) {
      Value c = Eval(*e.args[0]);
      if (c.IsError()) return c;
      if (c.kind() != ValueKind::kBool) return Error("no such overload");
      const Expr& branch = *e.args[c.bool_value() ? 1 : 2];
      // cel-go plans a conditional whose branches are attributes (a variable, a field selection, an
      // index) as one conditional attribute: the attribute's own access is not observed, so the
      // chosen branch costs one unit less than on its own.
      if (branch.kind == ExprKind::kIdent) {
        return Variable(branch.slot);
      }
      const bool attribute = (branch.kind == ExprKind::kSelect && !branch.test_only) ||
                             (branch.kind == ExprKind::kCall && branch.name == "_[_]");
      const uint64_t before = cost_;
      Value v = Eval(branch);
      if (attribute && !cancelled_ && cost_ > before) --cost_;
      return v;
    }
    if (kind == CallKind::kIndex || kind == CallKind::kOptIndex) {
      const Expr& operand = *e.args[0];
      // A relative attribute (an index on a computed operand) is charged even when its operand or
      // key fails; its constant qualifier is not.
      Value v = Eval(operand);
      if (v.IsError()) {
        if (!IsAttributeChain(operand) && !IsQualified(operand)) AddCost(1);
        return cancelled_ ? Value::Error(&cancel_error_) : v;
      }
      const Expr& key = *e.args[1];
      // A computed key that is not an attribute is planned as a relative attribute of its own.
      const bool relative_key = key.kind != ExprKind::kConst && !IsAttributeChain(key) && !IsQualified(key) &&
                                p_.folded_.find(&key) == p_.folded_.end();
      bool optional_index = kind == CallKind::kOptIndex || v.kind() == ValueKind::kOptional;
      // An empty optional ends cel-go's qualification before the key: it is neither evaluated (its
      // errors do not surface) nor charged.
      if (v.kind() == ValueKind::kOptional && v.optional() == nullptr) {
        AddCost(RootCost(operand));
        return cancelled_ ? Value::Error(&cancel_error_) : v;
      }
      // An attribute key of an optional index: cel-go resolves the key's attribute inside the
      // qualifier, without charging the attribute itself, and charges the qualifier only when the
      // key is present. Its root is evaluated uncharged here and the qualifier charged below.
      const bool attribute_key = optional_index && key.kind != ExprKind::kConst && !relative_key &&
                                 p_.folded_.find(&key) == p_.folded_.end();
      const Expr* saved_root = uncharged_root_;
      if (attribute_key) uncharged_root_ = &ChainRoot(key);
      Value k = Eval(key);
      uncharged_root_ = saved_root;
      if (k.IsError()) {
        AddCost(RootCost(operand));
        if (relative_key) AddCost(1);
        return cancelled_ ? Value::Error(&cancel_error_) : k;
      }
      AddCost(RootCost(operand));
      // A constant qualifier is charged (an optional one only when present); an attribute key is
      // charged through its own evaluation, a relative one once more.
      const uint64_t qualifier_cost = key.kind == ExprKind::kConst || relative_key || attribute_key ? 1 : 0;
      if (!optional_index) AddCost(qualifier_cost);
      if (cancelled_) return Value::Error(&cancel_error_);
      if (v.kind() == ValueKind::kOptional) {
        if (v.optional() == nullptr) return v;
        v = v.optional()->value;
      }
      bool found;
      Value out = Access(v, k, &found);
      if (optional_index) {
        if (!found) {
          if (v.kind() != ValueKind::kMessage && !QualifierRejects(k)) {
            return Value::Optional(nullptr);
          }
          return out;
        }
        AddCost(qualifier_cost);
        if (cancelled_) return Value::Error(&cancel_error_);
        return Value::Optional(arena_.New<OptionalValue>(OptionalValue{out}));
      }
      return out;
    }
    if (kind == CallKind::kOptSelect) {
      const Expr& operand = *e.args[0];
      Value v = Eval(operand);
      if (v.IsError()) return v;
      // The relative attribute, then the optional qualifier only when the field is present.
      AddCost(RootCost(operand));
      if (cancelled_) return Value::Error(&cancel_error_);
      if (v.kind() == ValueKind::kOptional) {
        if (v.optional() == nullptr) return v;
        v = v.optional()->value;
      }
      // cel-go: optional selection on a value without fields finds nothing; a list rejects the key.
      if (v.kind() == ValueKind::kList) return Error("unsupported index type 'string' in list");
      if (v.kind() != ValueKind::kMap) return Value::Optional(nullptr);
      Value out;
      if (!v.map()->Find(e.args[1]->constant, &out)) return Value::Optional(nullptr);
      AddCost(1);
      if (cancelled_) return Value::Error(&cancel_error_);
      return Value::Optional(arena_.New<OptionalValue>(OptionalValue{out}));
    }
    if (kind == CallKind::kIn) {
      if (auto folded = p_.folded_.find(e.args[1].get()); folded != p_.folded_.end() &&
                                                          folded->second.kind() == ValueKind::kList) {
        return InConstantList(*e.args[0], *folded->second.list());
      }
    }
    if (kind == CallKind::kOptOrValue || kind == CallKind::kOptOr) {
      // cel-go's optional library replaces these calls with evalOptionalOr/evalOptionalOrValue,
      // which are not calls: nothing is charged for them, and the alternative is evaluated only
      // when the optional is empty.
      Value o = Eval(*e.args[0]);
      if (o.IsError()) return o;
      if (o.kind() != ValueKind::kOptional) return Error("no such overload");
      if (o.optional() != nullptr) return kind == CallKind::kOptOr ? o : o.optional()->value;
      return Eval(*e.args[1]);
    }
    // Strict functions: evaluate all arguments, then propagate the first error.
    Value stack_args[4];
    Value* args = n <= 4 ? stack_args : arena_.NewArray<Value>(n);
    for (size_t i = 0; i < n; ++i) {
      args[i] = Eval(*e.args[i]);
      // evalVarArgs returns the error before evaluating the rest; the cost tracker then finds the
      // call's arguments incomplete and charges nothing for the call.
      if (e.early_exit && i + 1 < n && args[i].IsError()) return args[i];
    }
    return CallStrict(e, args, n);
  }

  // The operators cel-go binds once per function with an operand trait: when the first operand
  // lacks the trait the interpreter reports the function ("no such overload: _+_"); otherwise the
  // operand's own method rejects the other one ("no such overload").
  static bool LacksOperandTrait(const std::string& fn, ValueKind k) {
    auto any_of = [k](std::initializer_list<ValueKind> kinds) {
      for (ValueKind x : kinds) {
        if (x == k) return true;
      }
      return false;
    };
    using VK = ValueKind;
    // Strings, durations and timestamps are receivers: the call goes to their method instead.
    if (any_of({VK::kString, VK::kDuration, VK::kTimestamp})) return false;
    if (fn == "_+_") {
      return !any_of({VK::kInt, VK::kUint, VK::kDouble, VK::kString, VK::kBytes, VK::kList, VK::kDuration,
                      VK::kTimestamp});
    }
    if (fn == "_-_") return !any_of({VK::kInt, VK::kUint, VK::kDouble, VK::kDuration, VK::kTimestamp});
    if (fn == "_*_" || fn == "_/_") return !any_of({VK::kInt, VK::kUint, VK::kDouble});
    if (fn == "_%_") return !any_of({VK::kInt, VK::kUint});
    if (fn == "-_") return !any_of({VK::kInt, VK::kDouble});
    if (fn == "_<_" || fn == "_<=_" || fn == "_>_" || fn == "_>=_") {
      return !any_of({VK::kBool, VK::kInt, VK::kUint, VK::kDouble, VK::kString, VK::kBytes, VK::kDuration,
                      VK::kTimestamp});
    }
    return false;
  }

  // The error of a call no overload accepts at runtime. cel-go's declared functions guard their
  // bindings and name the function and the argument types (decls.MaybeNoSuchOverload); the
  // operators and a few standard functions check traits instead and say less.
  Value NoSuchOverload(const std::string& fn, const Value* args, size_t n) {
    if (n > 0 && LacksOperandTrait(fn, args[0].kind())) return Error(Cat("no such overload: ", fn));
    if (fn.empty() || fn[0] == '_' || fn[0] == '!' || fn[0] == '-' || fn[0] == '@' || fn == "matches" ||
        fn == "startsWith" || fn == "endsWith" || fn == "contains" || fn == "find" || fn == "findAll" || fn == "or" ||
        fn == "orValue") {
      return Error("no such overload");
    }
    if (fn == "size" || fn == "sort") return Error(Cat("no such overload: ", fn));
    // ext.Lists' flatten names its receiver type.
    const bool receiver = fn == "flatten" && n > 0;
    std::string msg = receiver ? Cat("no such overload: ", TypeName(args[0]), ".", fn, "(") : Cat("no such overload: ", fn, "(");
    for (size_t i = receiver ? 1 : 0; i < n; ++i) {
      if (i > (receiver ? 1u : 0u)) msg += ", ";
      msg += TypeName(args[i]);
    }
    msg += ")";
    return Error(msg);
  }

  // A strict call on evaluated arguments.
  Value CallStrict(const Expr& e, Value* args, size_t n) {
    if (cancelled_) return Value::Error(&cancel_error_);
    const Function* f = static_cast<const Function*>(e.function);
    if (static_cast<CallKind>(e.call_kind) == CallKind::kNotStrictlyFalse) {
      AddCost(1);
      if (cancelled_) return Value::Error(&cancel_error_);
      return args[0].kind() == ValueKind::kBool ? args[0] : Value::Bool(true);
    }
    // cel-go charges a call even when an argument is an error; with several candidate overloads the
    // overload id is not known statically and the default cost applies (see PlanCalls).
    const CostClass cost_class = static_cast<CostClass>(e.cost_class);
    for (size_t i = 0; i < n; ++i) {
      if (args[i].IsError()) {
        AddCost(CallCost(cost_class, args, n, args[i]));
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
      AddCost(CallCost(cost_class, args, n, Value()));
      return chosen == nullptr ? NoSuchOverload(f->name, args, n) : Error("no such overload");
    }
    Value result = chosen->impl(ctx_, args);
    if (!ctx_.panic.empty()) return Panic(ctx_.panic);
    AddCost(CallCost(cost_class, args, n, result));
    if (cancelled_) return Value::Error(&cancel_error_);
    return result;
  }

  // `x in [constant list]`: cel-go's planner (interpreter/decorators.go maybeOptimizeSetMembership)
  // turns it into a Go map lookup that is not a call: an empty list is the constant false (x is
  // not evaluated), nothing is charged, and an operand Go cannot hash (a Semver, bytes) is a panic
  // that fails the whole evaluation. Lists holding null, bytes or non-primitive constants keep the
  // plain call.
  Value InConstantList(const Expr& lhs, const ListValue& list) {
    const size_t n = list.size();
    if (n == 0) return Value::Bool(false);
    for (size_t i = 0; i < n; ++i) {
      ValueKind k = list.Get(i).kind();
      if (k != ValueKind::kBool && k != ValueKind::kInt && k != ValueKind::kUint && k != ValueKind::kDouble &&
          k != ValueKind::kString) {
        return InListCall(lhs, list);
      }
    }
    Value v = Eval(lhs);
    if (v.IsError()) return v;
    if (cancelled_) return Value::Error(&cancel_error_);
    if (std::string_view panic = UnhashableKeyPanic(v); !panic.empty()) return Panic(panic);
    for (size_t i = 0; i < n; ++i) {
      if (ValueEquals(v, list.Get(i))) return Value::Bool(true);
    }
    return Value::Bool(false);
  }
  Value InListCall(const Expr& lhs, const ListValue& list) {
    Value v = Eval(lhs);
    if (v.IsError()) return v;
    AddCost(list.size());
    if (cancelled_) return Value::Error(&cancel_error_);
    for (size_t i = 0, n = list.size(); i < n; ++i) {
      if (ValueEquals(v, list.Get(i))) return Value::Bool(true);
    }
    return Value::Bool(false);
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
      acc->set_keyed_by_go_value();
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
    const int accu_slot = e.slot, v1 = e.slot + 1, v2 = e.slot + 2;
    const Expr& init = *e.args[kAccuInit];
    const bool lazy = init.kind != ExprKind::kConst && p_.folded_.find(&init) == p_.folded_.end();
    Value accu = lazy ? Value() : Eval(init);
    if (cancelled_) return Value::Error(&cancel_error_);
    const bool two = !e.iter_var2.empty();
    MutableList* saved_list = current_accu_list_;
    ArrayMap* saved_map = current_accu_map_;
    current_accu_list_ = nullptr;
    current_accu_map_ = nullptr;
    slots_[accu_slot] = accu;
    lazy_[accu_slot] = lazy ? &init : nullptr;
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
    if (cancelled_) {
      lazy_[accu_slot] = nullptr;
      return Value::Error(&cancel_error_);
    }
    Value result = Eval(*e.args[kResult]);
    lazy_[accu_slot] = nullptr;
    return result;
  }

  const Program& p_;
  const Activation& act_;
  Arena& arena_;
  uint64_t limit_;
  uint64_t cost_ = 0;
  bool cancelled_ = false;
  bool panicked_ = false;  // cancelled_ by Panic(), not by the cost limit
  ErrorValue cancel_error_{kCostExceeded};
  EvalContext ctx_;
  Value* slots_;
  const Expr** lazy_;  // per slot: the initialiser of a not yet initialised accumulator
  MutableList* current_accu_list_ = nullptr;
  ArrayMap* current_accu_map_ = nullptr;
};

namespace {

// Whether cel-go's planner makes the call an evalVarArgs (planner.planCall): three or more
// arguments; a dynamic dispatch between several overloads of a function without a singleton
// binding (its function-level binding takes varargs); or `matches`/`find`/`findAll` with a constant
// pattern, which the regex optimization rebuilds with NewCall. (With one argument it makes no
// difference.)
bool PlannedAsVarArgs(const Expr& e) {
  const size_t n = e.args.size();
  if (n < 2) return false;
  const std::string& fn = e.name;
  if ((fn == "matches" || fn == "find" || fn == "findAll") && e.args[1]->kind == ExprKind::kConst &&
      e.args[1]->constant.kind() == ValueKind::kString) {
    return true;
  }
  if (n >= 3) return true;
  // The functions cel-go and its extensions bind once (decls.Singleton*Binding).
  static constexpr std::string_view kSingletons[] = {
      "_==_", "_!=_", "_+_", "_-_", "_*_", "_/_", "_%_", "_<_", "_<=_", "_>_", "_>=_", "_[_]", "@in", "in",
      "matches", "@sortByAssociatedKeys"};
  for (std::string_view s : kSingletons) {
    if (fn == s) return false;
  }
  return e.overloads.size() > 1;
}

}  // namespace

void Program::PlanCalls(Expr& e) {
  for (auto& a : e.args) PlanCalls(*a);
  if (e.kind != ExprKind::kCall) return;
  e.call_kind = static_cast<uint8_t>(ClassifyKind(e));
  e.early_exit = static_cast<CallKind>(e.call_kind) == CallKind::kStrict && PlannedAsVarArgs(e);
  const Function* f = static_cast<const Function*>(e.function);
  const std::string& static_id =
      f != nullptr && e.overloads.size() == 1 ? f->overloads[e.overloads[0]].id : kNoOverloadId;
  e.cost_class = static_cast<uint8_t>(ClassifyCall(e.name, static_id));
}

EvalResult Program::Eval(const Activation& activation, Arena& arena, uint64_t cost_limit) const {
  Interpreter in(*this, activation, arena, cost_limit);
  return in.Run();
}

}  // namespace draforge::cel
