// ReferencedNames (references.h): a walk over the checked AST.
#include "cel/references.h"

#include <map>
#include <optional>
#include <utility>

#include "cel/internal/str.h"
#include "cel/program.h"

namespace draforge::cel {

namespace {

using Domain = std::pair<DeviceReference::Kind, std::string>;

class Walker {
 public:
  std::vector<DeviceReference> refs;

  void Walk(const Expr& e, std::map<std::string, Domain>& scope) {
    Record(e, scope);
    if (e.kind != ExprKind::kComprehension) {
      for (const auto& a : e.args) Walk(*a, scope);
      return;
    }
    // The range and the accumulator's initial value are outside the comprehension's scope.
    Walk(*e.args[kIterRange], scope);
    Walk(*e.args[kAccuInit], scope);
    std::map<std::string, Domain> inner = scope;
    inner.erase(e.iter_var);
    if (!e.iter_var2.empty()) inner.erase(e.iter_var2);
    inner.erase(e.accu_var);
    // cel.bind(x, device.attributes["D"], body): x stands for the domain's map in the body.
    if (auto d = DomainOf(*e.args[kAccuInit], scope)) inner[e.accu_var] = *d;
    Walk(*e.args[kLoopCondition], inner);
    Walk(*e.args[kLoopStep], inner);
    Walk(*e.args[kResult], inner);
  }

 private:
  static bool IsDevice(const Expr& e) {
    // Global variables have slots -2, -3, ...; comprehension variables 0, 1, ...
    return e.kind == ExprKind::kIdent && e.name == "device" && e.slot <= -2;
  }
  static std::optional<std::string_view> ConstString(const Expr& e) {
    if (e.kind != ExprKind::kConst || e.constant.kind() != ValueKind::kString) return std::nullopt;
    return e.constant.str();
  }

  // device.attributes["D"] / device.capacity["D"], or a bound variable standing for one.
  static std::optional<Domain> DomainOf(const Expr& e, const std::map<std::string, Domain>& scope) {
    if (e.kind == ExprKind::kIdent && e.slot >= 0) {
      auto it = scope.find(e.name);
      if (it != scope.end()) return it->second;
      return std::nullopt;
    }
    if (e.kind != ExprKind::kCall || e.name != "_[_]" || e.args.size() != 2) return std::nullopt;
    const Expr& outer = *e.args[0];
    if (outer.kind != ExprKind::kSelect || outer.test_only || !IsDevice(*outer.args[0])) return std::nullopt;
    auto domain = ConstString(*e.args[1]);
    if (!domain) return std::nullopt;
    if (outer.name == "attributes") return Domain{DeviceReference::Kind::kAttribute, std::string(*domain)};
    if (outer.name == "capacity") return Domain{DeviceReference::Kind::kCapacity, std::string(*domain)};
    return std::nullopt;
  }

  void Add(const Domain& d, std::string_view name) {
    DeviceReference r{d.first, d.second, std::string(name)};
    for (const auto& x : refs) {
      if (x == r) return;
    }
    refs.push_back(std::move(r));
  }

  void Record(const Expr& e, const std::map<std::string, Domain>& scope) {
    if (e.kind == ExprKind::kSelect) {
      if (auto d = DomainOf(*e.args[0], scope)) Add(*d, e.name);
      return;
    }
    if (e.kind != ExprKind::kCall || e.args.size() != 2) return;
    if (e.name == "_[_]" || e.name == "_[?_]" || e.name == "_?._") {
      auto d = DomainOf(*e.args[0], scope);
      auto name = ConstString(*e.args[1]);
      if (d && name) Add(*d, *name);
    } else if (e.name == "@in") {
      auto d = DomainOf(*e.args[1], scope);
      auto name = ConstString(*e.args[0]);
      if (d && name) Add(*d, *name);
    }
  }
};

}  // namespace

bool DeviceReference::ExistsOn(std::string_view driver, const api::Map<api::DeviceAttribute>& attributes,
                                const api::Map<api::DeviceCapacity>& capacity) const {
  const std::string qualified = QualifiedName();
  if (kind == Kind::kAttribute) {
    return attributes.Contains(qualified) || (domain == driver && attributes.Contains(name));
  }
  return capacity.Contains(qualified) || (domain == driver && capacity.Contains(name));
}

absl::StatusOr<std::vector<DeviceReference>> ReferencedNames(std::string_view expression,
                                                             const CompileOptions& options) {
  EnvOptions env_options;
  env_options.consumable_capacity = options.consumable_capacity;
  env_options.list_type_attributes = options.list_type_attributes;
  env_options.stored_expressions = options.stored_expressions;
  auto program = Program::Compile(expression, Env::Dra(env_options));
  if (!program.ok()) {
    std::string msg(program.status().message());
    if (msg.rfind("program instantiation failed", 0) == 0) return absl::InvalidArgumentError(msg);
    return absl::InvalidArgumentError(internal::Cat("compilation failed: ", msg));
  }
  Walker w;
  std::map<std::string, Domain> scope;
  w.Walk((*program)->root(), scope);
  return std::move(w.refs);
}

}  // namespace draforge::cel
