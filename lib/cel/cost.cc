// cel-go's static cost estimator (checker/cost.go) with the Kubernetes CostEstimator and the DRA
// size estimator (k8s.io/dynamic-resource-allocation/cel sizeEstimator).
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

uint64_t SatAdd(uint64_t a, uint64_t b) { return a > kMax - b ? kMax : a + b; }
uint64_t SatMul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kMax / b ? kMax : a * b;
}
uint64_t Factor(uint64_t v, double f) {
  if (v == kMax) return kMax;
  double r = std::ceil(static_cast<double>(v) * f);
  return r >= 1.8446744073709552e19 ? kMax : static_cast<uint64_t>(r);
}

struct Est {
  uint64_t min = 0, max = 0;
  Est Add(Est o) const { return {SatAdd(min, o.min), SatAdd(max, o.max)}; }
  Est Mul(Est o) const { return {SatMul(min, o.min), SatMul(max, o.max)}; }
  Est By(double f) const { return {Factor(min, f), Factor(max, f)}; }
  Est Union(Est o) const { return {std::min(min, o.min), std::max(max, o.max)}; }
};

// The declared DRA types with their maximum sizes (DeclType.MaxElements).
enum class Node { kNone, kDevice, kDriver, kMultiAlloc, kOuterAttr, kInnerAttr, kAttr, kOuterCap, kInnerCap,
                  kQuantity, kDomain, kId };

class Estimator {
 public:
  explicit Estimator(const Program& p) : p_(p) {}

  uint64_t Run() { return Cost(p_.root()).max; }

 private:
  struct Local {
    std::string name;
    std::vector<std::string> path;
    std::optional<Est> size;
  };

  static uint64_t NodeMax(Node n) {
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

  std::optional<Est> PathSize(const std::vector<std::string>& path) const {
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
        next = Node::kAttr;
      }
      if (next == Node::kNone) return std::nullopt;
      n = next;
    }
    return Est{0, NodeMax(n)};
  }

  static bool IsScalar(const Type& t) {
    switch (t.kind) {
      case TypeKind::kBool: case TypeKind::kInt: case TypeKind::kUint: case TypeKind::kDouble:
      case TypeKind::kDuration: case TypeKind::kTimestamp: case TypeKind::kNull: return true;
      default: return false;
    }
  }

  Est SizeOrUnknown(const Expr& e) {
    if (e.kind == ExprKind::kCall && e.name == "dyn" && e.args.size() == 1) return SizeOrUnknown(*e.args[0]);
    auto it = sizes_.find(&e);
    if (it != sizes_.end()) return it->second;
    auto pit = paths_.find(&e);
    if (pit != paths_.end()) {
      if (auto s = PathSize(pit->second)) return *s;
    }
    if (IsScalar(e.type)) return {1, 1};
    return {0, kMax};
  }

  std::vector<std::string> PathOf(const Expr& e) {
    auto it = paths_.find(&e);
    return it == paths_.end() ? std::vector<std::string>{} : it->second;
  }

  Est Cost(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst:
        if (e.constant.kind() == ValueKind::kString) {
          uint64_t n = 0;
          for (unsigned char c : e.text) n += (c & 0xC0) != 0x80;
          sizes_[&e] = {n, n};
        } else if (e.constant.kind() == ValueKind::kBytes) {
          sizes_[&e] = {e.text.size(), e.text.size()};
        }
        return {0, 0};
      case ExprKind::kIdent: {
        for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
          if (it->name == e.name) {
            paths_[&e] = it->path;
            if (it->size) sizes_[&e] = *it->size;
            return {1, 1};
          }
        }
        paths_[&e] = {e.name};
        return {1, 1};
      }
      case ExprKind::kSelect: {
        Est sum = Cost(*e.args[0]);
        if (e.test_only) return sum;  // PresenceTestHasCost(false)
        TypeKind k = e.args[0]->type.kind;
        if (k == TypeKind::kMap || k == TypeKind::kObject || k == TypeKind::kTypeParam) sum = sum.Add({1, 1});
        auto path = PathOf(*e.args[0]);
        if (!path.empty()) {
          path.push_back(e.name);
          paths_[&e] = path;
        }
        return sum;
      }
      case ExprKind::kCall: return CostCall(e);
      case ExprKind::kList: {
        Est sum;
        for (auto& a : e.args) sum = sum.Add(Cost(*a));
        sizes_[&e] = {e.args.size(), e.args.size()};
        return sum.Add({10, 10});
      }
      case ExprKind::kMap: {
        Est sum;
        for (auto& a : e.args) sum = sum.Add(Cost(*a));
        sizes_[&e] = {e.args.size() / 2, e.args.size() / 2};
        return sum.Add({30, 30});
      }
      case ExprKind::kComprehension: return CostComprehension(e);
    }
    return {};
  }

  Est CostComprehension(const Expr& e) {
    const Expr& range = *e.args[kIterRange];
    const Expr& init = *e.args[kAccuInit];
    const Expr& cond = *e.args[kLoopCondition];
    bool bind = range.kind == ExprKind::kList && range.args.empty() && cond.kind == ExprKind::kConst &&
                cond.constant.kind() == ValueKind::kBool && !cond.constant.bool_value() &&
                e.accu_var != kAccumulatorName;
    Est sum = Cost(range).Add(Cost(init));
    Local accu{e.accu_var, PathOf(init), std::nullopt};
    auto is = sizes_.find(&init);
    if (is != sizes_.end()) accu.size = is->second;
    locals_.push_back(accu);
    if (bind) {
      sum = sum.Add(Cost(*e.args[kResult]));
      locals_.pop_back();
      return sum;
    }
    auto rpath = PathOf(range);
    bool is_list = range.type.kind == TypeKind::kList;
    std::optional<Est> elem_size;
    if (range.kind == ExprKind::kList) {
      Est u{kMax, 0};
      if (range.args.empty()) u.min = 0;
      for (auto& a : range.args) u = u.Union(SizeOrUnknown(*a));
      elem_size = u;
    }
    auto with = [&](std::string sub) {
      auto p = rpath;
      if (!p.empty()) p.push_back(std::move(sub));
      return p;
    };
    size_t pushed = 1;
    if (!e.iter_var2.empty()) {
      locals_.push_back({e.iter_var, with(is_list ? "@indices" : "@keys"), std::nullopt});
      locals_.push_back({e.iter_var2, with(is_list ? "@items" : "@values"), is_list ? elem_size : std::nullopt});
      pushed += 2;
    } else {
      locals_.push_back({e.iter_var, with(is_list ? "@items" : "@keys"), is_list ? elem_size : std::nullopt});
      pushed += 1;
    }
    Est loop = Cost(cond);
    Est step = Cost(*e.args[kLoopStep]);
    locals_.resize(locals_.size() - (pushed - 1));
    sum = sum.Add(Cost(*e.args[kResult]));
    locals_.pop_back();
    Est cnt = SizeOrUnknown(range);
    sum = sum.Add(cnt.Mul(step.Add(loop)));
    if (init.kind == ExprKind::kList || init.kind == ExprKind::kMap) sizes_[&e] = cnt;
    return sum;
  }

  Est CostCall(const Expr& e) {
    const std::string& fn = e.name;
    if (fn == "dyn" && e.args.size() == 1) {
      Est c = Cost(*e.args[0]).Add({1, 1});
      auto it = sizes_.find(e.args[0].get());
      if (it != sizes_.end()) sizes_[&e] = it->second;
      auto pit = paths_.find(e.args[0].get());
      if (pit != paths_.end()) paths_[&e] = pit->second;
      return c;
    }
    std::vector<Est> arg_costs;
    Est arg_sum;
    size_t first = e.receiver_style ? 1 : 0;
    for (size_t i = 0; i < e.args.size(); ++i) {
      Est c = Cost(*e.args[i]);
      arg_costs.push_back(c);
      arg_sum = arg_sum.Add(c);
    }
    const Function* f = static_cast<const Function*>(e.function);
    if (f == nullptr) return {};
    Est fn_cost{kMax, 0};
    bool any = false;
    std::vector<int> ids = e.overloads;
    if (fn == "_?._") ids = {0};
    for (int idx : ids) {
      const Overload& o = f->overloads[idx];
      Est c = FunctionCost(e, fn, o.id, first, arg_costs, arg_sum);
      fn_cost = any ? fn_cost.Union(c) : c;
      any = true;
      if (o.id == "index_list") {
        auto p = PathOf(*e.args[0]);
        if (!p.empty()) { p.push_back("@items"); paths_[&e] = p; }
      } else if (o.id == "index_map") {
        auto p = PathOf(*e.args[0]);
        if (!p.empty()) { p.push_back("@values"); paths_[&e] = p; }
      }
    }
    if (!any) return {};
    return fn_cost;
  }

  Est FunctionCost(const Expr& e, const std::string& fn, const std::string& id, size_t first,
                   const std::vector<Est>& ac, Est arg_sum) {
    const Expr* target = first == 1 ? e.args[0].get() : nullptr;
    // Kubernetes estimator.
    if (fn == "isSorted" || fn == "sum" || fn == "max" || fn == "min" || fn == "indexOf" || fn == "lastIndexOf" ||
        fn == "includes") {
      if (target != nullptr) {
        Est c;
        if (target->type.kind == TypeKind::kList) {
          Est el{1, 1};
          const Type& et = target->type.params[0];
          if (et.kind == TypeKind::kString || et.kind == TypeKind::kBytes) {
            auto p = PathOf(*target);
            std::optional<Est> s;
            if (!p.empty()) {
              p.push_back("@items");
              s = PathSize(p);
            }
            el = el.Add(s.value_or(Est{0, kMax}).By(0.1));
          }
          c = SizeOrUnknown(*target).Mul(el);
        } else if (fn == "includes") {
          c = SizeOrUnknown(*target).Mul({1, 1});
        } else {
          c = SizeOrUnknown(*target).By(0.1);
        }
        return c.Add(arg_sum);
      }
    }
    if ((fn == "lowerAscii" || fn == "upperAscii" || fn == "substring" || fn == "trim") && target) {
      Est sz = SizeOrUnknown(*target);
      sizes_[&e] = sz;
      return sz.By(0.1).Add(arg_sum);
    }
    if ((fn == "replace" || fn == "split") && target) {
      Est sz = SizeOrUnknown(*target);
      if (fn == "split") {
        uint64_t max = sz.max;
        if (e.args.size() > 2 && e.args[2]->kind == ExprKind::kConst && e.args[2]->constant.kind() == ValueKind::kInt) {
          max = static_cast<uint64_t>(e.args[2]->constant.int_value());
        }
        sizes_[&e] = {0, max};
      }
      return sz.By(0.2).Add(arg_sum);
    }
    if ((fn == "find" || fn == "findAll") && target && e.args.size() >= 2) {
      Est sz = SizeOrUnknown(*target);
      Est str = sz.Add({1, 1}).By(0.1);
      Est re = SizeOrUnknown(*e.args[1]).By(0.25);
      sizes_[&e] = {0, sz.max};
      return str.Mul(re).Add(arg_sum);
    }
    if ((fn == "quantity" || fn == "isQuantity" || fn == "semver" || fn == "isSemver") && !e.args.empty()) {
      return SizeOrUnknown(*e.args[0]).By(0.1).Add(arg_sum);
    }
    if (fn == "sign" || fn == "asInteger" || fn == "isInteger" || fn == "asApproximateFloat" ||
        fn == "isGreaterThan" || fn == "isLessThan" || fn == "compareTo" || fn == "add" || fn == "sub" ||
        fn == "major" || fn == "minor" || fn == "patch") {
      return Est{1, 1}.Add(arg_sum);
    }
    if (fn == "_==_" && e.args[0]->type == e.args[1]->type && e.args[0]->type.kind == TypeKind::kOpaque) {
      return Est{1, 1}.Add(arg_sum);
    }
    if (fn == "sets.contains" || fn == "sets.equivalent" || fn == "sets.intersects") {
      return SizeOrUnknown(*e.args[0]).Mul(SizeOrUnknown(*e.args[1])).Add({1, 1}).Add(arg_sum);
    }
    // cel-go defaults.
    if (id == "starts_with_string" || id == "ends_with_string") return SizeOrUnknown(*e.args[1]).By(0.1).Add(arg_sum);
    if (id == "string_to_bytes" || id == "bytes_to_string" || id == "strings_quote") {
      return SizeOrUnknown(*e.args[0]).By(0.1).Add(arg_sum);
    }
    if (id == "in_list") return SizeOrUnknown(*e.args[1]).Add(arg_sum);
    if (id == "matches_string" || id == "matches") {
      Est str = SizeOrUnknown(*e.args[0]).Add({1, 1}).By(0.1);
      Est re = SizeOrUnknown(*e.args[1]).By(0.25);
      return str.Mul(re).Add(arg_sum);
    }
    if (id == "contains_string") {
      return SizeOrUnknown(*e.args[0]).By(0.1).Mul(SizeOrUnknown(*e.args[1]).By(0.1)).Add(arg_sum);
    }
    if (id == "logical_and" || id == "logical_or") return {ac[0].min, SatAdd(ac[0].max, ac[1].max)};
    if (id == "conditional") {
      Est u = SizeOrUnknown(*e.args[1]).Union(SizeOrUnknown(*e.args[2]));
      sizes_[&e] = u;
      return ac[0].Add(ac[1].Union(ac[2]));
    }
    if (id == "add_string" || id == "add_bytes" || id == "add_list") {
      Est size = SizeOrUnknown(*e.args[0]).Add(SizeOrUnknown(*e.args[1]));
      sizes_[&e] = size;
      if (id == "add_list") return Est{1, 1}.Add(arg_sum);
      return size.By(0.1).Add(arg_sum);
    }
    if (fn == "_==_" || fn == "_!=_" || id == "less_string" || id == "greater_string" ||
        id == "less_equals_string" || id == "greater_equals_string" || id == "less_bytes" ||
        id == "greater_bytes" || id == "less_equals_bytes" || id == "greater_equals_bytes") {
      Est l = SizeOrUnknown(*e.args[0]), r = SizeOrUnknown(*e.args[1]);
      uint64_t smallest = std::min(l.max, r.max);
      return Est{smallest > 0 ? 1u : 0u, smallest}.By(0.1).Add(arg_sum);
    }
    return Est{1, 1}.Add(arg_sum);
  }

  const Program& p_;
  std::map<const Expr*, Est> sizes_;
  std::map<const Expr*, std::vector<std::string>> paths_;
  std::vector<Local> locals_;
};

}  // namespace

uint64_t Program::ComputeEstimatedCost() const {
  Estimator est(*this);
  return est.Run();
}

}  // namespace draforge::cel
