// DeviceSelector: the DRA selector environment of k8s.io/dynamic-resource-allocation/cel, with the
// device exposed through the lazy map views of internal/device_view.h.
#include "cel/selector.h"

#include <algorithm>

#include "absl/status/status.h"
#include "cel/internal/device_view.h"
#include "cel/internal/dra_compile.h"
#include "cel/internal/native_conversion.h"
#include "cel/internal/str.h"
#include "cel/program.h"

namespace draforge::cel {

using internal::Cat;

namespace {

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
    absl::StatusOr<Value> device_value = internal::DeviceValue(device, arena, options_.list_attribute_values);
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
    Value result;
    std::string why;
    if (!internal::ConvertToNative(r.value, internal::NativeType::kBool, arena, &result, &why)) {
      out.error = absl::InvalidArgumentError(Cat("CEL result of type ", TypeName(r.value),
                                                 " could not be converted to bool: ", why));
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
