// cel::Program: a parsed and checked CEL expression with its evaluator (checker.cc,
// interpreter.cc, cost.cc).
#ifndef DRAFORGE_CEL_PROGRAM_H_
#define DRAFORGE_CEL_PROGRAM_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cel/ast.h"
#include "cel/functions.h"
#include "cel/types.h"
#include "cel/value.h"
#include "re2/re2.h"

namespace draforge::cel {

// The declared environment: global variables and their types.
struct Env {
  EnvOptions options;
  std::map<std::string, Type, std::less<>> variables;
  // Fields of object types: type name -> field -> type.
  std::map<std::string, std::map<std::string, Type, std::less<>>, std::less<>> object_fields;

  // The DRA environment of k8s.io/dynamic-resource-allocation/cel (stored expressions).
  static Env Dra(const EnvOptions& options);
  // The attribute value type: dyn (stored expressions, or DRAListTypeAttributes), else
  // google.protobuf.Any.
  Type AttributeType() const {
    return options.stored_expressions || options.list_type_attributes ? Type::Dyn() : Type::Any();
  }
};

// Global variable values for one evaluation, in the order of Program::globals().
struct Activation {
  const Value* globals = nullptr;
};

struct EvalResult {
  Value value;
  uint64_t cost = 0;
  bool cost_exceeded = false;
};

class Program {
 public:
  // Parses and checks `source` in `env`. Errors are InvalidArgument with cel-go's issue text.
  static absl::StatusOr<std::unique_ptr<Program>> Compile(std::string_view source, const Env& env);

  const Type& result_type() const { return parsed_.root->type; }
  const Expr& root() const { return *parsed_.root; }
  // Global variable names referenced by the expression, indexed by Activation::globals.
  const std::vector<std::string>& globals() const { return globals_; }

  // Evaluates with a runtime cost limit (cel-go's CostLimit); `arena` holds the result's data and is
  // not reset here.
  EvalResult Eval(const Activation& activation, Arena& arena, uint64_t cost_limit) const;

  // cel-go's estimated worst-case cost (checker.Cost with the Kubernetes estimator), max end.
  uint64_t EstimateCost() const { return estimated_cost_; }

 private:
  friend class Checker;
  friend class Interpreter;
  Program() = default;
  // Folds a list or map literal whose elements are all constant (already folded) into folded_.
  bool FoldConstants(const Expr& e);
  // Resolves every call's evaluation kind and runtime cost rule once (interpreter.cc).
  static void PlanCalls(Expr& e);
  absl::Status FoldConversions(Expr& e);
  // cel-go's planner turns a constant index into an attribute qualifier, which only strings, ints,
  // uints, bools and doubles can be: any other constant key fails program instantiation.
  absl::Status CheckConstantQualifiers(const Expr& e) const;
  uint64_t ComputeEstimatedCost() const;
  uint64_t estimated_cost_ = 0;
  ParsedExpr parsed_;
  const Env* env_ = nullptr;
  Env env_copy_;
  std::vector<std::string> globals_;
  int max_slots_ = 0;
  std::map<std::string, std::unique_ptr<re2::RE2>, std::less<>> regexes_;
  // Storage for constant-folded aggregate literals.
  Arena constants_;
  std::map<const Expr*, Value> folded_;
  // The operands of conversions folded into constants (`dyn([...])`): a folded list or map they
  // produced still points into their string constants, and folded_ is keyed by them.
  std::vector<std::unique_ptr<Expr>> folded_operands_;
};

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_PROGRAM_H_
