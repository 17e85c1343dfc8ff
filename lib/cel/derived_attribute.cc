// DerivedAttribute: upstream's EvaluateDerivedAttribute (k8s.io/dynamic-resource-allocation/cel)
// over the device view the selectors use.
#include "cel/derived_attribute.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cel/internal/device_view.h"
#include "cel/internal/dra_compile.h"
#include "cel/program.h"
#include "cel/types.h"
#include "cel/value.h"
#include "common/status.h"

namespace draforge::cel {
namespace {

// The Go type cel-go's Value() gives, for upstream's "unsupported CEL return type: %T".
std::string_view GoNativeType(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kUint: return "uint64";
    case ValueKind::kDouble: return "float64";
    case ValueKind::kBytes: return "[]uint8";
    case ValueKind::kNull: return "structpb.NullValue";
    case ValueKind::kMap: return "map[ref.Val]ref.Val";
    case ValueKind::kQuantity: return "resource.Quantity";
    case ValueKind::kTimestamp: return "time.Time";
    case ValueKind::kDuration: return "time.Duration";
    case ValueKind::kBool: return "bool";
    case ValueKind::kInt: return "int64";
    case ValueKind::kString: return "string";
    case ValueKind::kSemver: return "semver.Version";
    default: return GoTypeName(v);
  }
}

// Upstream valToDeviceAttribute: a scalar, or a list whose first element fixes the type.
absl::StatusOr<api::DeviceAttribute> ToAttribute(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kBool: return api::DeviceAttribute::Bool(v.bool_value());
    case ValueKind::kInt: return api::DeviceAttribute::Int(v.int_value());
    case ValueKind::kString: return api::DeviceAttribute::String(std::string(v.str()));
    case ValueKind::kSemver: return api::DeviceAttribute::Version(v.semver()->String());
    case ValueKind::kList: break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("unsupported CEL return type: ", AV(GoNativeType(v))));
  }
  const ListValue& list = *v.list();
  api::DeviceAttribute::Fields fields;
  if (list.size() == 0) return api::DeviceAttribute(std::move(fields));  // upstream: an empty string list
  const ValueKind kind = list.Get(0).kind();
  switch (kind) {  // the list the loop below fills (an element of another kind is an error there)
    case ValueKind::kBool: fields.bools.emplace(); break;
    case ValueKind::kInt: fields.ints.emplace(); break;
    case ValueKind::kString: fields.strings.emplace(); break;
    case ValueKind::kSemver: fields.versions.emplace(); break;
    default: break;
  }
  auto mismatch = [&](size_t i, std::string_view want) {
    return absl::InvalidArgumentError(absl::StrCat("expected list element at index ", i, " to be ", AV(want),
                                                   ", got ", AV(GoNativeType(list.Get(i)))));
  };
  for (size_t i = 0; i < list.size(); ++i) {
    const Value e = list.Get(i);
    switch (kind) {
      case ValueKind::kBool:
        if (e.kind() != kind) return mismatch(i, "bool");
        fields.bools->push_back(e.bool_value());
        break;
      case ValueKind::kInt:
        if (e.kind() != kind) return mismatch(i, "int");
        fields.ints->push_back(e.int_value());
        break;
      case ValueKind::kString:
        if (e.kind() != kind) return mismatch(i, "string");
        fields.strings->emplace_back(e.str());
        break;
      case ValueKind::kSemver:
        if (e.kind() != kind) return mismatch(i, "semver");
        fields.versions->push_back(e.semver()->String());
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("unsupported list element type: ", AV(GoNativeType(list.Get(0)))));
    }
  }
  return api::DeviceAttribute(std::move(fields));
}

bool AllowedElementType(const Type& t) {
  switch (t.kind) {
    case TypeKind::kBool:
    case TypeKind::kInt:
    case TypeKind::kString:
    case TypeKind::kAny:
    case TypeKind::kDyn:
      return true;
    case TypeKind::kOpaque:
      return t == Type::Semver();
    default:
      return false;
  }
}

class CompiledDerivedAttribute final : public DerivedAttribute {
 public:
  CompiledDerivedAttribute(std::string expression, std::unique_ptr<Program> program, const CompileOptions& options)
      : expression_(std::move(expression)), program_(std::move(program)), options_(options) {}

  absl::StatusOr<api::DeviceAttribute> Evaluate(const DeviceInput& device) const override {
    // One arena per call: the allocator evaluates at most once per device and expression, so reuse
    // across calls (and the thread_local that would need) buys nothing.
    Arena arena;
    ASSIGN_OR_RETURN(Value device_value, internal::DeviceValue(device, arena));
    Activation activation;
    activation.globals = &device_value;
    EvalResult r =
        program_->Eval(activation, arena, static_cast<uint64_t>(std::max<int64_t>(0, options_.runtime_cost_limit)));
    if (r.value.IsError()) return absl::InvalidArgumentError(std::string(r.value.error()->message));
    // Converted while the arena still holds the result: the attribute copies what it keeps.
    return ToAttribute(r.value);
  }
  const std::string& expression() const override { return expression_; }

 private:
  std::string expression_;
  std::unique_ptr<Program> program_;
  CompileOptions options_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<const DerivedAttribute>> DerivedAttribute::Compile(std::string_view expression,
                                                                                   const CompileOptions& options) {
  auto program = internal::CompileDra(expression, internal::DraEnv(options));
  if (!program.ok()) return program.status();
  const Type& t = (*program)->result_type();
  const bool allowed =
      AllowedElementType(t) || (t.kind == TypeKind::kList && t.params.size() == 1 && AllowedElementType(t.params[0]));
  if (!allowed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "must evaluate to a primitive scalar (string, integer, boolean, semver) or a list of these scalars, not ",
        FormatType(t)));
  }
  if (options.check_estimated_cost) {
    const uint64_t est = (*program)->EstimateCost();
    if (est > static_cast<uint64_t>(kSelectorMaxCost)) {
      return absl::ResourceExhaustedError(absl::StrCat("cost limit exceeded: estimated cost ", est,
                                                       " exceeds the limit of ", kSelectorMaxCost));
    }
  }
  return std::shared_ptr<const DerivedAttribute>(
      new CompiledDerivedAttribute(std::string(expression), *std::move(program), options));
}

}  // namespace draforge::cel
