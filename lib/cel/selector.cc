// DeviceSelector: the DRA selector environment of k8s.io/dynamic-resource-allocation/cel, with the
// device exposed through the lazy map views of internal/device_view.h.
#include "cel/selector.h"

#include <algorithm>

#include "absl/status/status.h"
#include "cel/internal/device_view.h"
#include "cel/internal/dra_compile.h"
#include "cel/internal/str.h"
#include "cel/program.h"

namespace draforge::cel {

using internal::Cat;

namespace {

// Why a non-bool selector result does not convert: the text of each cel-go type's ConvertToNative.
std::string BoolConversionError(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInt: return "unsupported type conversion from 'int' to bool";
    case ValueKind::kUint: return "unsupported type conversion from 'uint' to bool";
    case ValueKind::kDouble: return "type conversion error from Double to 'bool'";
    case ValueKind::kBytes: return "type conversion error from Bytes to 'bool'";
    case ValueKind::kNull: return "type conversion error from 'null_type' to 'bool'";
    case ValueKind::kList: return "type conversion error from list to 'bool'";
    case ValueKind::kMap: return "type conversion error from map to 'bool'";
    case ValueKind::kTimestamp: return "type conversion error from 'Timestamp' to 'bool'";
    case ValueKind::kDuration: return "type conversion error from 'Duration' to 'bool'";
    case ValueKind::kQuantity: return "type conversion error from 'Quantity' to 'bool'";
    case ValueKind::kSemver: return "type conversion error from 'Semver' to 'bool'";
    case ValueKind::kIP: return "type conversion error from 'IP' to 'bool'";
    case ValueKind::kCIDR: return "type conversion error from 'CIDR' to 'bool'";
    case ValueKind::kFormat: return "type conversion error from 'Format' to 'bool'";
    case ValueKind::kURL: return "type conversion error from 'URL' to 'bool'";
    case ValueKind::kType: return "type conversion not supported for 'type'";
    case ValueKind::kOptional: return "optional.none() dereference";
    default: return Cat("unsupported native conversion from ", TypeName(v), " to 'bool'");
  }
}


class CompiledSelector final : public DeviceSelector {
 public:
  CompiledSelector(std::string expr, std::unique_ptr<Program> program, CompileOptions options, int64_t cost)
      : expression_(std::move(expr)), program_(std::move(program)), options_(options), estimated_cost_(cost) {}

  SelectorResult Evaluate(const DeviceInput& device) const override {
    thread_local Arena arena;
    SelectorResult out = EvaluateIn(device, arena);
    arena.Reset();
    return out;
  }
  const std::string& expression() const override { return expression_; }
  int64_t estimated_cost() const override { return estimated_cost_; }

 private:
  SelectorResult EvaluateIn(const DeviceInput& device, Arena& arena) const {
    SelectorResult out;
    absl::StatusOr<Value> device_value = internal::DeviceValue(device, arena);
    if (!device_value.ok()) {
      out.error = device_value.status();
      return out;
    }
    Activation act;
    act.globals = &*device_value;
    EvalResult r = program_->Eval(act, arena, static_cast<uint64_t>(std::max<int64_t>(0, options_.runtime_cost_limit)));
    out.actual_cost = static_cast<int64_t>(r.cost);
    if (r.value.IsError()) {
      out.error = absl::InvalidArgumentError(std::string(r.value.error()->message));
      return out;
    }
    // cel-go converts the result with ConvertToNative(bool), which unwraps a present optional.
    Value result = r.value;
    if (result.kind() == ValueKind::kOptional && result.optional() != nullptr) result = result.optional()->value;
    if (result.kind() != ValueKind::kBool) {
      out.error = absl::InvalidArgumentError(Cat("CEL result of type ", TypeName(r.value),
                                                 " could not be converted to bool: ", BoolConversionError(result)));
      return out;
    }
    out.matches = result.bool_value();
    return out;
  }

  std::string expression_;
  std::unique_ptr<Program> program_;
  CompileOptions options_;
  int64_t estimated_cost_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<const DeviceSelector>> DeviceSelector::Compile(std::string_view expression,
                                                                               const CompileOptions& options) {
  const Env env = internal::DraEnv(options);
  auto program = internal::CompileDra(expression, env);
  if (!program.ok()) return program.status();
  const Type& t = (*program)->result_type();
  if (!(t.kind == TypeKind::kBool || t == env.AttributeType())) {
    return absl::InvalidArgumentError(Cat("must evaluate to bool or the unknown type, not ", FormatType(t)));
  }
  uint64_t est = (*program)->EstimateCost();
  int64_t cost = est > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(est);
  if (options.check_estimated_cost && cost > kSelectorMaxCost) {
    return absl::ResourceExhaustedError(
        Cat("cost limit exceeded: estimated cost ", cost, " exceeds the limit of ", kSelectorMaxCost));
  }
  return std::shared_ptr<const DeviceSelector>(
      new CompiledSelector(std::string(expression), *std::move(program), options, cost));
}

}  // namespace draforge::cel
