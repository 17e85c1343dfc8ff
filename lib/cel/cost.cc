// The static cost estimate: cel-go's checker.Cost (checker/cost.go, v0.29) with the estimators the
// DRA environment installs: the Kubernetes CostEstimator (apiserver pkg/cel/library/cost.go), the
// sets extension's overload estimators and the DRA size estimator
// (k8s.io/dynamic-resource-allocation/cel sizeEstimator). The estimate decides whether a selector
// is accepted, so it follows upstream's arithmetic exactly, including its saturation and the
// places where Go's unsigned arithmetic wraps.
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cel/program.h"

namespace draforge::cel {

namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
constexpr double kTwoTo64 = 18446744073709551616.0;
constexpr double kStringTraversal = 0.1;  // common.StringTraversalCostFactor
constexpr double kRegexLength = 0.25;     // common.RegexStringLengthCostFactor

uint64_t SatAdd(uint64_t a, uint64_t b) { return (b > 0 && a > kMax - b) ? kMax : a + b; }
uint64_t SatMul(uint64_t a, uint64_t b) { return (b != 0 && a > kMax / b) ? kMax : a * b; }
// cel-go's multiplyByCostFactor: rounds up, saturates.
uint64_t Factor(uint64_t v, double f) {
  double x = static_cast<double>(v);
  if (x > 0 && f > 0 && x > static_cast<double>(kMax) / f) return kMax;
  double r = std::ceil(x * f);
  return r >= kTwoTo64 ? kMax : static_cast<uint64_t>(r);
}
// Go's uint64(float64) on amd64 for a non-negative value: values of 2^63 and above take the
// subtract-and-or path, whose int64 conversion overflows to the "integer indefinite" 1<<63.
uint64_t GoFloatToUint(double r) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (r < kTwoTo63) return static_cast<uint64_t>(r);
  double y = r - kTwoTo63;
  uint64_t z = y < kTwoTo63 ? static_cast<uint64_t>(static_cast<int64_t>(y)) : (uint64_t{1} << 63);
  return z | (uint64_t{1} << 63);
}

// A size or cost range (cel-go's SizeEstimate and CostEstimate share the arithmetic).
struct Est {
  uint64_t min = 0, max = 0;
  Est Add(Est o) const { return {SatAdd(min, o.min), SatAdd(max, o.max)}; }
  Est Mul(Est o) const { return {SatMul(min, o.min), SatMul(max, o.max)}; }
  Est By(double f) const { return {Factor(min, f), Factor(max, f)}; }
  Est Union(Est o) const { return {std::min(min, o.min), std::max(max, o.max)}; }
};
constexpr Est kUnknown{0, kMax};
constexpr Est kOne{1, 1};

struct EntrySize {
  bool is_list = false;  // the container: list or map
  Est key, val;
};

std::optional<EntrySize> UnionEntries(const std::optional<EntrySize>& a, const std::optional<EntrySize>& b) {
  if (!a || !b) return std::nullopt;
  return EntrySize{a->is_list, a->key.Union(b->key), a->val.Union(b->val)};
}

// The declared DRA types with their maximum sizes (DeclType.MaxElements).
enum class Node { kNone, kDevice, kDriver, kMultiAlloc, kOuterAttr, kInnerAttr, kAttr, kOuterCap, kInnerCap,
                  kQuantity, kDomain, kId };

uint64_t NodeMax(Node n) {
  switch (n) {
    case Node::kDriver: return 63;
    case Node::kMultiAlloc: return 1;
    case Node::kOuterAttr: case Node::kInnerAttr: case Node::kOuterCap: case Node::kInnerCap: return 32;
    case Node::kAttr: return 64;
    case Node::kDomain: return 63;
    case Node::kId: return 32;
    default: return 0;
  }
}

// The DRA size estimator: the maximum size of what a field path under `device` reaches.
std::optional<Est> DraPathSize(const std::vector<std::string>& path) {
  if (path.empty() || path[0] != "device") return std::nullopt;
  Node n = Node::kDevice;
  for (size_t i = 1; i < path.size(); ++i) {
    const std::string& s = path[i];
    Node next = Node::kNone;
    if (s == "@items" || s == "@values") {
      if (n == Node::kOuterAttr) next = Node::kInnerAttr;
      else if (n == Node::kInnerAttr) next = Node::kAttr;
      else if (n == Node::kOuterCap) next = Node::kInnerCap;
      else if (n == Node::kInnerCap) next = Node::kQuantity;
    } else if (s == "@keys") {
      if (n == Node::kOuterAttr || n == Node::kOuterCap) next = Node::kDomain;
      else if (n == Node::kInnerAttr || n == Node::kInnerCap) next = Node::kId;
    } else if (n == Node::kDevice) {
      if (s == "driver") next = Node::kDriver;
      else if (s == "attributes") next = Node::kOuterAttr;
      else if (s == "capacity") next = Node::kOuterCap;
      else if (s == "allowMultipleAllocations") next = Node::kMultiAlloc;
    } else if (n == Node::kInnerAttr) {
      next = Node::kAttr;  // every attribute name has the attribute type's size
    }
    if (next == Node::kNone) return std::nullopt;
    n = next;
  }
  return Est{0, NodeMax(n)};
}

// checker.isScalar: types of a constant size.
bool IsScalar(const Type& t) {
  switch (t.kind) {
    case TypeKind::kBool: case TypeKind::kInt: case TypeKind::kUint: case TypeKind::kDouble:
    case TypeKind::kDuration: case TypeKind::kTimestamp: return true;
    case TypeKind::kOptional: return !t.params.empty() && IsScalar(t.params[0]);
    default: return false;
  }
}

// What an estimator sees of an argument (cel-go's AstNode): its path (none below an accumulator),
// its type and the size computed when it was estimated.
struct ArgNode {
  const Expr* expr = nullptr;
  std::vector<std::string> path;
  const Type* type = nullptr;
  std::optional<Est> size;
};

struct CallEstimate {
  Est cost;
  std::optional<Est> result_size;
};

class Estimator {
 public:
  uint64_t Run(const Expr& root) { return Cost(root).max; }

 private:
  struct Local {
    std::vector<std::string> path;
    std::optional<Est> size;
    std::optional<EntrySize> entry;
  };

  // --- scopes and paths ---

  const Local* Peek(const std::string& name) const {
    auto it = locals_.find(name);
    if (it == locals_.end() || it->second.empty()) return nullptr;
    return &it->second.back();
  }
  void Push(const std::string& name, Local l) { locals_[name].push_back(std::move(l)); }
  void Pop(const std::string& name) { locals_[name].pop_back(); }

  std::vector<std::string> PathOf(const Expr& e) const {
    if (e.kind == ExprKind::kIdent) {
      if (const Local* l = Peek(e.name)) return l->path;
    }
    auto it = paths_.find(&e);
    return it == paths_.end() ? std::vector<std::string>{} : it->second;
  }

  static std::vector<std::string> With(std::vector<std::string> p, const char* sub) {
    p.push_back(sub);
    return p;
  }

  // --- sizes ---

  static std::optional<Est> LiteralSize(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst:
        switch (e.constant.kind()) {
          case ValueKind::kString: {
            uint64_t n = 0;
            for (unsigned char c : e.text) n += (c & 0xC0) != 0x80;
            return Est{n, n};
          }
          case ValueKind::kBytes: return Est{e.text.size(), e.text.size()};
          case ValueKind::kBool: case ValueKind::kInt: case ValueKind::kUint: case ValueKind::kDouble:
          case ValueKind::kNull: return kOne;
          default: return std::nullopt;
        }
      case ExprKind::kList: {
        uint64_t n = e.args.size();
        return Est{n, n};
      }
      case ExprKind::kMap: {
        uint64_t n = e.args.size() / 2;
        return Est{n, n};
      }
      default: return std::nullopt;
    }
  }

  // coster.computeSize.
  std::optional<Est> ComputeSize(const Expr& e) {
    if (auto it = sizes_.find(&e); it != sizes_.end()) return it->second;
    if (auto s = LiteralSize(e)) return s;
    if (auto s = DraPathSize(PathOf(e))) {
      sizes_[&e] = *s;
      return s;
    }
    if (IsScalar(e.type)) return kOne;
    if (e.kind == ExprKind::kIdent) {
      if (const Local* l = Peek(e.name); l != nullptr && l->size) return l->size;
    }
    return std::nullopt;
  }
  Est SizeOrUnknown(const Expr& e) { return ComputeSize(e).value_or(kUnknown); }
  static Est SizeOrUnknown(const ArgNode& n) { return n.size.value_or(kUnknown); }
  // The Kubernetes estimator's sizeEstimate: the computed size, else the DRA size of the path.
  static Est K8sSize(const ArgNode& n) {
    if (n.size) return *n.size;
    return DraPathSize(n.path).value_or(kUnknown);
  }
  // The element of a list argument (CostEstimator.listElementNode), or nullopt for non-lists.
  static std::optional<ArgNode> ListElement(const ArgNode& list) {
    if (list.type->params.empty()) return std::nullopt;
    ArgNode el;
    el.type = &list.type->params[0];
    if (!list.path.empty()) el.path = With(list.path, "@items");
    return el;
  }

  std::optional<EntrySize> ComputeEntrySize(const Expr& e) const {
    if (auto it = entries_.find(&e); it != entries_.end()) return it->second;
    if (e.kind == ExprKind::kIdent) {
      if (const Local* l = Peek(e.name); l != nullptr && l->entry) return l->entry;
    }
    return std::nullopt;
  }
  void SetSize(const Expr& e, const std::optional<Est>& s) {
    if (s) sizes_[&e] = *s;
  }
  void SetEntry(const Expr& e, const std::optional<EntrySize>& s) {
    if (s) entries_[&e] = *s;
  }

  ArgNode NodeOf(const Expr& e) {
    ArgNode n;
    n.expr = &e;
    n.path = PathOf(e);
    if (!n.path.empty() && (n.path[0] == kAccumulatorName || n.path[0] == "__result__")) n.path.clear();
    n.type = &e.type;
    n.size = ComputeSize(e);
    return n;
  }

  // --- costs ---

  Est Cost(const Expr& e) {
    switch (e.kind) {
      // A type name (`int`, `list`) is an identifier in cel-go, which charges it; the parser turns
      // it into a constant here (so does the checker with an enum constant, which keeps its name).
      case ExprKind::kConst:
        return e.constant.kind() == ValueKind::kType || (e.constant.kind() == ValueKind::kInt && !e.text.empty())
                   ? kOne
                   : Est{};
      case ExprKind::kIdent: {
        const Local* l = Peek(e.name);
        paths_[&e] = l != nullptr ? l->path : std::vector<std::string>{e.name};
        return kOne;
      }
      case ExprKind::kSelect: {
        // PresenceTestHasCost(false): has() costs what its operand costs.
        if (e.test_only) return Cost(*e.args[0]);
        Est sum = Cost(*e.args[0]);
        TypeKind k = e.args[0]->type.kind;
        if (k == TypeKind::kMap || k == TypeKind::kObject || k == TypeKind::kTypeParam) sum = sum.Add(kOne);
        paths_[&e] = With(PathOf(*e.args[0]), e.name.c_str());
        return sum;
      }
      case ExprKind::kCall: return CostCall(e);
      case ExprKind::kList: {
        Est sum;
        Est item{kMax, 0};
        if (e.args.empty()) item.min = 0;
        for (auto& a : e.args) {
          sum = sum.Add(Cost(*a));
          item = item.Union(SizeOrUnknown(*a));
        }
        entries_[&e] = EntrySize{true, kOne, item};
        return sum.Add({10, 10});
      }
      case ExprKind::kMap: {
        Est sum;
        Est key{kMax, 0}, val{kMax, 0};
        if (e.args.empty()) key.min = val.min = 0;
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
          sum = sum.Add(Cost(*e.args[i]));
          sum = sum.Add(Cost(*e.args[i + 1]));
          key = key.Union(SizeOrUnknown(*e.args[i]));
          val = val.Union(SizeOrUnknown(*e.args[i + 1]));
        }
        entries_[&e] = EntrySize{false, key, val};
        return sum.Add({30, 30});
      }
      case ExprKind::kComprehension: return IsBind(e) ? CostBind(e) : CostComprehension(e);
      case ExprKind::kStruct: {
        // coster.costCreateStruct: the field values plus 40.
        Est sum;
        for (auto& a : e.args) sum = sum.Add(Cost(*a));
        return sum.Add({40, 40});
      }
    }
    return {};
  }

  static bool IsBind(const Expr& e) {
    const Expr& range = *e.args[kIterRange];
    const Expr& cond = *e.args[kLoopCondition];
    return range.kind == ExprKind::kList && range.args.empty() && cond.kind == ExprKind::kConst &&
           cond.constant.kind() == ValueKind::kBool && !cond.constant.bool_value() &&
           e.accu_var != "__result__";  // parser.AccumulatorName, not the hidden "@result"
  }

  void PushLocal(const std::string& name, const Expr& init) {
    Local l{PathOf(init), ComputeSize(init), ComputeEntrySize(init)};
    Push(name, std::move(l));
  }

  Est CostBind(const Expr& e) {
    Est sum = Cost(*e.args[kIterRange]).Add(Cost(*e.args[kAccuInit]));
    PushLocal(e.accu_var, *e.args[kAccuInit]);
    sum = sum.Add(Cost(*e.args[kResult]));
    Pop(e.accu_var);
    SetSize(e, ComputeSize(*e.args[kResult]));
    SetEntry(e, ComputeEntrySize(*e.args[kResult]));
    return sum;
  }

  // pushIterKey / pushIterValue / pushIterSingle.
  void PushIter(const std::string& name, const Expr& range, int which /*0 key, 1 value, 2 single*/) {
    auto entry = ComputeEntrySize(range);
    bool is_list = entry ? entry->is_list : range.type.kind == TypeKind::kList;
    std::optional<Est> size;
    const char* sub;
    if (which == 0) {
      if (entry) size = entry->key;
      sub = is_list ? "@indices" : "@keys";
    } else if (which == 1) {
      if (entry) size = entry->val;
      sub = is_list ? "@items" : "@values";
    } else {
      if (entry) size = is_list ? entry->val : entry->key;
      sub = is_list ? "@items" : "@keys";
    }
    Push(name, Local{With(PathOf(range), sub), size, std::nullopt});
  }

  Est CostComprehension(const Expr& e) {
    const Expr& range = *e.args[kIterRange];
    const Expr& init = *e.args[kAccuInit];
    Est sum = Cost(range).Add(Cost(init));
    PushLocal(e.accu_var, init);
    if (!e.iter_var2.empty()) {
      PushIter(e.iter_var, range, 0);
      PushIter(e.iter_var2, range, 1);
    } else {
      PushIter(e.iter_var, range, 2);
    }
    Est loop = Cost(*e.args[kLoopCondition]);
    Est step = Cost(*e.args[kLoopStep]);
    Pop(e.iter_var);
    if (!e.iter_var2.empty()) Pop(e.iter_var2);
    sum = sum.Add(Cost(*e.args[kResult]));
    Pop(e.accu_var);
    Est cnt = SizeOrUnknown(range);
    sum = sum.Add(cnt.Mul(step.Add(loop)));
    if (init.kind == ExprKind::kConst) {
      SetSize(e, ComputeSize(init));
    } else if (init.kind == ExprKind::kList || init.kind == ExprKind::kMap) {
      sizes_[&e] = cnt;
      SetEntry(e, ComputeEntrySize(*e.args[kLoopStep]));
    }
    return sum;
  }

  Est CostCall(const Expr& e) {
    if (e.name == "dyn" && e.args.size() == 1) {
      Est c = Cost(*e.args[0]);
      SetSize(e, ComputeSize(*e.args[0]));
      SetEntry(e, ComputeEntrySize(*e.args[0]));
      return kOne.Add(c);
    }
    size_t first = e.receiver_style ? 1 : 0;
    std::vector<Est> arg_costs;
    std::vector<ArgNode> args;
    for (size_t i = first; i < e.args.size(); ++i) {
      arg_costs.push_back(Cost(*e.args[i]));
      args.push_back(NodeOf(*e.args[i]));
    }
    const Function* f = static_cast<const Function*>(e.function);
    if (f == nullptr || e.overloads.empty()) return {};
    Est sum;
    std::optional<ArgNode> target;
    if (e.receiver_style) {
      sum = Cost(*e.args[0]);
      target = NodeOf(*e.args[0]);
    }
    Est fn_cost{kMax, 0};
    std::optional<Est> result_size;
    for (int idx : e.overloads) {
      const std::string& id = f->overloads[idx].id;
      CallEstimate c = FunctionCost(e, id, target ? &*target : nullptr, args, arg_costs);
      fn_cost = fn_cost.Union(c.cost);
      if (c.result_size) result_size = result_size ? result_size->Union(*c.result_size) : *c.result_size;
      if (id == "index_list" || id == "index_map") {
        if (!e.args.empty()) {
          auto entry = ComputeEntrySize(*e.args[0]);
          result_size = entry ? std::optional<Est>(entry->val) : std::nullopt;
          paths_[&e] = With(PathOf(*e.args[0]), id == "index_list" ? "@items" : "@values");
        }
      }
      if (!result_size) result_size = ComputeSize(e);
    }
    SetSize(e, result_size);
    return sum.Add(fn_cost);
  }

  // ext/costs.go nodeAsUintValue: a constant int argument (negative: 0), else `fallback`.
  static uint64_t ConstantUint(const ArgNode& n, uint64_t fallback) {
    if (n.expr == nullptr || n.expr->kind != ExprKind::kConst || n.expr->constant.kind() != ValueKind::kInt) {
      return fallback;
    }
    int64_t v = n.expr->constant.int_value();
    return v < 0 ? 0 : static_cast<uint64_t>(v);
  }
  // ext/lists.go estimateAllocatingListCall: size * factor + 1 + 10, result of `size`.
  static CallEstimate AllocatingListCall(double factor, Est size) {
    return CallEstimate{size.By(factor).Add(kOne).Add(Est{10, 10}), size};
  }
  static std::optional<CallEstimate> ListsCost(const std::string& id, const ArgNode* target,
                                               const std::vector<ArgNode>& args) {
    if (id == "list_slice" && target != nullptr && args.size() == 2) {
      Est sz = K8sSize(*target);
      uint64_t start = ConstantUint(args[0], 0), end = ConstantUint(args[1], sz.max);
      uint64_t n = end - start;  // Go's unsigned arithmetic wraps, as upstream's does
      return AllocatingListCall(1, Est{n, n});
    }
    if (id == "lists_range" && target == nullptr && args.size() == 1) {
      uint64_t n = ConstantUint(args[0], kMax);
      return AllocatingListCall(1, Est{n, n});
    }
    if (id == "list_reverse" && target != nullptr && args.empty()) return AllocatingListCall(1, K8sSize(*target));
    if ((id == "list_flatten" || id == "list_flatten_int") && target != nullptr && args.size() <= 1) {
      uint64_t depth = args.size() == 1 ? ConstantUint(args[0], kMax) : 1;
      return AllocatingListCall(static_cast<double>(depth), K8sSize(*target));
    }
    if (id == "list_distinct" && target != nullptr && args.empty()) {
      Est sz = K8sSize(*target);
      return AllocatingListCall(2.0, sz.Mul(sz));
    }
    if (id.size() > 10 && id.compare(0, 5, "list_") == 0 && id.compare(id.size() - 5, 5, "_sort") == 0 &&
        target != nullptr && args.empty()) {
      // estimateListSortCost: string and bytes elements cost a traversal more per comparison.
      Est sz = K8sSize(*target);
      bool text = id == "list_string_sort" || id == "list_bytes_sort";
      return AllocatingListCall(text ? 2.0 + kStringTraversal : 2.0, sz.Mul(sz));
    }
    if (id.size() > 26 && id.compare(id.size() - 21, 21, "_sortByAssociatedKeys") == 0 && target != nullptr &&
        args.size() == 1) {
      // estimateListSortBy: the keys list.
      Est sz = K8sSize(args[0]);
      bool text = id == "list_string_sortByAssociatedKeys" || id == "list_bytes_sortByAssociatedKeys";
      return AllocatingListCall(text ? 2.0 + kStringTraversal : 2.0, sz.Mul(sz));
    }
    return std::nullopt;
  }

  // functionCost: the extension estimators, then the Kubernetes estimator, then cel-go's defaults.
  CallEstimate FunctionCost(const Expr& e, const std::string& id, const ArgNode* target,
                            const std::vector<ArgNode>& args, const std::vector<Est>& arg_costs) {
    Est arg_sum;
    for (const Est& c : arg_costs) arg_sum = arg_sum.Add(c);
    const std::string& fn = e.name;
    // ext.Sets overload estimators.
    if ((id == "list_sets_contains_list" || id == "list_sets_intersects_list" ||
         id == "list_sets_equivalent_list") && args.size() == 2) {
      double factor = id == "list_sets_equivalent_list" ? 2 : 1;
      Est c = K8sSize(args[0]).Mul(K8sSize(args[1])).By(factor).Add(kOne);
      return {c.Add(arg_sum), std::nullopt};
    }
    // ext.Lists overload estimators (version 3): allocating list calls.
    if (auto l = ListsCost(id, target, args)) return {l->cost.Add(arg_sum), l->result_size};
    if (auto k = KubernetesCost(fn, id, target, args)) {
      return {k->cost.Add(arg_sum), k->result_size};
    }
    if (id == "string_format" && target != nullptr) {
      return {SizeOrUnknown(*target).By(kStringTraversal).Add(arg_sum), std::nullopt};
    }
    if (id == "string_to_bytes" && args.size() == 1) {
      Est sz = SizeOrUnknown(args[0]);
      return {sz.By(kStringTraversal).Add(arg_sum), Est{sz.min, sz.max * 4}};  // Go wraps here
    }
    if (id == "bytes_to_string" && args.size() == 1) {
      Est sz = SizeOrUnknown(args[0]);
      return {sz.By(kStringTraversal).Add(arg_sum), Est{sz.min / 4, sz.max}};
    }
    if (id == "strings_quote" && args.size() == 1) {
      Est sz = SizeOrUnknown(args[0]);
      return {sz.By(kStringTraversal).Add(arg_sum), Est{sz.min + 2, sz.max * 2 + 2}};  // Go wraps here
    }
    if ((id == "starts_with_string" || id == "ends_with_string") && args.size() == 1) {
      return {SizeOrUnknown(args[0]).By(kStringTraversal).Add(arg_sum), std::nullopt};
    }
    if (id == "in_list" && args.size() == 2) {
      return {SizeOrUnknown(args[1]).By(1).Add(arg_sum), std::nullopt};
    }
    if (id == "matches" || id == "matches_string") {
      const ArgNode* str = nullptr;
      const ArgNode* re = nullptr;
      if (id == "matches_string" && target != nullptr && args.size() == 1) {
        str = target;
        re = &args[0];
      } else if (id == "matches" && target == nullptr && args.size() == 2) {
        str = &args[0];
        re = &args[1];
      }
      if (str != nullptr) {
        Est sc = SizeOrUnknown(*str).Add(kOne).By(kStringTraversal);
        Est rc = SizeOrUnknown(*re).By(kRegexLength);
        return {sc.Mul(rc).Add(arg_sum), std::nullopt};
      }
    }
    if (id == "contains_string" && target != nullptr && args.size() == 1) {
      Est sc = SizeOrUnknown(*target).By(kStringTraversal);
      Est sub = SizeOrUnknown(args[0]).By(kStringTraversal);
      return {sc.Mul(sub).Add(arg_sum), std::nullopt};
    }
    if (id == "logical_and" || id == "logical_or") {
      return {{arg_costs[0].min, arg_costs[0].Add(arg_costs[1]).max}, std::nullopt};
    }
    if (id == "conditional") {
      Est size = SizeOrUnknown(args[1]).Union(SizeOrUnknown(args[2]));
      SetEntry(e, UnionEntries(ComputeEntrySize(*args[1].expr), ComputeEntrySize(*args[2].expr)));
      return {arg_costs[0].Add(arg_costs[1].Union(arg_costs[2])), size};
    }
    if ((id == "add_string" || id == "add_bytes" || id == "add_list") && args.size() == 2) {
      Est size = SizeOrUnknown(args[0]).Add(SizeOrUnknown(args[1]));
      SetEntry(e, UnionEntries(ComputeEntrySize(*args[0].expr), ComputeEntrySize(*args[1].expr)));
      if (id == "add_list") return {kOne.Add(arg_sum), size};
      return {size.By(kStringTraversal).Add(arg_sum), size};
    }
    if (id == "equals" || id == "not_equals" || id == "less_string" || id == "greater_string" ||
        id == "less_equals_string" || id == "greater_equals_string" || id == "less_bytes" ||
        id == "greater_bytes" || id == "less_equals_bytes" || id == "greater_equals_bytes") {
      Est l = SizeOrUnknown(args[0]), r = SizeOrUnknown(args[1]);
      uint64_t smallest = std::min(l.max, r.max);
      return {Est{smallest > 0 ? 1u : 0u, smallest}.By(kStringTraversal).Add(arg_sum), std::nullopt};
    }
    return {kOne.Add(arg_sum), std::nullopt};
  }

  // library.CostEstimator.EstimateCallCost (the functions of this environment), without the
  // argument costs.
  std::optional<CallEstimate> KubernetesCost(const std::string& fn, const std::string& id, const ArgNode* target,
                                             const std::vector<ArgNode>& args) {
    if (fn == "isSorted" || fn == "sum" || fn == "max" || fn == "min" || fn == "indexOf" || fn == "lastIndexOf" ||
        fn == "includes") {
      if (target == nullptr) return std::nullopt;
      Est el = kOne;
      if (auto node = ListElement(*target)) {
        TypeKind k = node->type->kind;
        if (k == TypeKind::kString || k == TypeKind::kBytes) el = el.Add(K8sSize(*node).By(kStringTraversal));
        return CallEstimate{K8sSize(*target).Mul(el), std::nullopt};
      }
      if (fn == "includes") return CallEstimate{K8sSize(*target).Mul(el), std::nullopt};
      return CallEstimate{K8sSize(*target).By(kStringTraversal), std::nullopt};
    }
    if (fn == "url" && args.size() == 1) {
      Est sz = K8sSize(args[0]);
      return CallEstimate{sz.By(kStringTraversal), sz};
    }
    if ((fn == "lowerAscii" || fn == "upperAscii" || fn == "substring" || fn == "trim") && target != nullptr) {
      Est sz = K8sSize(*target);
      return CallEstimate{sz.By(kStringTraversal), sz};
    }
    if (fn == "replace" && target != nullptr && args.size() >= 2) {
      Est sz = K8sSize(*target), from = K8sSize(args[0]), to = K8sSize(args[1]);
      Est count, retained;
      if (from.min == 0) {
        count.max = sz.max < kMax ? sz.max + 1 : sz.max;
        retained.max = sz.max;
      } else if (to.max <= from.min) {
        count.max = 0;
        retained.max = sz.max;
      } else {
        count.max = GoFloatToUint(std::ceil(static_cast<double>(sz.max) / static_cast<double>(from.min)));
      }
      if (from.max == 0) {
        count.min = sz.min < kMax ? sz.min + 1 : sz.min;
        retained.min = sz.min;
      } else if (from.max <= to.min) {
        count.min = 0;
        retained.min = sz.min;
      } else {
        count.min = GoFloatToUint(std::ceil(static_cast<double>(sz.min) / static_cast<double>(from.max)));
      }
      return CallEstimate{sz.By(2 * kStringTraversal), count.Mul(to).Add(retained)};
    }
    if (fn == "split" && target != nullptr) {
      Est sz = K8sSize(*target);
      uint64_t max = sz.max;
      if (args.size() > 1 && args[1].expr->kind == ExprKind::kConst &&
          args[1].expr->constant.kind() == ValueKind::kInt) {
        max = static_cast<uint64_t>(args[1].expr->constant.int_value());
      }
      return CallEstimate{sz.By(2 * kStringTraversal), Est{0, max}};
    }
    if (fn == "join" && target != nullptr) {
      Est sz;
      Est list = K8sSize(*target);
      if (auto node = ListElement(*target)) sz = list.Mul(K8sSize(*node));
      if (!args.empty()) {
        Est sep = K8sSize(args[0]);
        Est n{list.min > 0 ? list.min - 1 : 0, list.max > 0 ? list.max - 1 : 0};
        sz = sz.Add(sep.Mul(n));
      }
      return CallEstimate{sz.By(kStringTraversal), sz};
    }
    if ((fn == "find" || fn == "findAll") && target != nullptr && !args.empty()) {
      Est sz = K8sSize(*target);
      Est sc = sz.Add(kOne).By(kStringTraversal);
      Est rc = K8sSize(args[0]).By(kRegexLength);
      return CallEstimate{sc.Mul(rc), Est{0, sz.max}};
    }
    if ((fn == "quantity" || fn == "isQuantity" || fn == "semver" || fn == "isSemver") && !args.empty()) {
      return CallEstimate{K8sSize(args[0]).By(kStringTraversal), std::nullopt};
    }
    if (fn == "sign" || fn == "asInteger" || fn == "isInteger" || fn == "asApproximateFloat" ||
        fn == "isGreaterThan" || fn == "isLessThan" || fn == "compareTo" || fn == "add" || fn == "sub" ||
        fn == "major" || fn == "minor" || fn == "patch") {
      return CallEstimate{kOne, std::nullopt};
    }
    // IP and CIDR (library/cost.go): parsing is a string traversal, accessors are nominal, and
    // containment compares address bytes (4 to 16 of them) and parses a string argument.
    if ((fn == "cidr" || fn == "isIP" || fn == "isCIDR" || id == "string_to_ip") && !args.empty()) {
      return CallEstimate{K8sSize(args[0]).By(kStringTraversal), std::nullopt};
    }
    if (fn == "ip.isCanonical" && !args.empty()) {
      return CallEstimate{K8sSize(args[0]).By(2 * kStringTraversal), std::nullopt};
    }
    if (id == "cidr_ip" || fn == "masked" || fn == "prefixLength" || fn == "family" || fn == "isUnspecified" ||
        fn == "isLoopback" || fn == "isLinkLocalMulticast" || fn == "isLinkLocalUnicast" || fn == "isGlobalUnicast") {
      return CallEstimate{kOne, std::nullopt};
    }
    if ((fn == "containsIP" || fn == "containsCIDR") && !args.empty()) {
      constexpr Est kAddressBytes{4, 16};
      Est cost = kAddressBytes.Add(kAddressBytes).By(kStringTraversal);
      if (fn == "containsCIDR") cost = cost.Add(kAddressBytes.By(kStringTraversal)).Add(kOne);
      if (id == "cidr_contains_ip_string" || id == "cidr_contains_cidr_string") {
        cost = cost.Add(K8sSize(args[0]).By(kStringTraversal));
      }
      return CallEstimate{cost, std::nullopt};
    }
    if (fn == "validate" && !args.empty()) {
      // cel.MaxNameFormatRegexSize (128) * RegexStringLengthCostFactor (0.25).
      return CallEstimate{K8sSize(args[0]).By(kStringTraversal).By(128 * 0.25), std::nullopt};
    }
    if (fn == "format.named" || fn == "getScheme" || fn == "getHostname" || fn == "getHost" || fn == "getPort" ||
        fn == "getEscapedPath" || fn == "getQuery") {
      return CallEstimate{kOne, std::nullopt};
    }
    if (fn == "_==_" && args.size() == 2 && *args[0].type == *args[1].type &&
        args[0].type->kind == TypeKind::kObject && args[0].type->name == "kubernetes.NamedFormat") {
      return CallEstimate{Est{1, 64}.By(kStringTraversal), std::nullopt};  // cel.MaxFormatSize
    }
    if (fn == "_==_" && args.size() == 2 && *args[0].type == *args[1].type &&
        args[0].type->kind == TypeKind::kObject && args[0].type->name == "kubernetes.URL") {
      // Upstream takes both sizes from the right operand.
      Est size{1, 1};
      if (args[1].size) size = args[1].size->Union(*args[1].size);
      return CallEstimate{Est{1, size.max}.By(kStringTraversal), std::nullopt};
    }
    if (fn == "_==_" && args.size() == 2 && *args[0].type == *args[1].type &&
        args[0].type->kind == TypeKind::kOpaque &&
        (args[0].type->name == "kubernetes.Quantity" || args[0].type->name == "kubernetes.Semver" ||
         args[0].type->name == "net.IP" || args[0].type->name == "net.CIDR")) {
      return CallEstimate{kOne, std::nullopt};
    }
    return std::nullopt;
  }

  std::map<const Expr*, Est> sizes_;
  std::map<const Expr*, EntrySize> entries_;
  std::map<const Expr*, std::vector<std::string>> paths_;
  std::map<std::string, std::vector<Local>> locals_;
};

}  // namespace

uint64_t Program::ComputeEstimatedCost() const {
  Estimator est;
  return est.Run(*parsed_.root);
}

}  // namespace draforge::cel
