// The C ABI over lib/cel: compiling and evaluating DRA device selectors (include/draforge/cel.h).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "api/standalone_device.h"
#include "capi/internal.h"
#include "cel/eval.h"
#include "cel/selector.h"
#include "common/status.h"
#include "draforge/cel.h"
#include "rapidjson/document.h"

struct draforge_cel_selector {
  std::shared_ptr<const draforge::cel::DeviceSelector> selector;
  draforge::cel::CompileOptions options;
};

namespace draforge::capi {
namespace {

const draforge_cel_options kDefaultCelOptions = DRAFORGE_CEL_OPTIONS_INIT;

absl::StatusOr<cel::CompileOptions> CompileOptionsOf(const draforge_cel_options* options) {
  const draforge_cel_options& o = options ? *options : kDefaultCelOptions;
  RETURN_IF_ERROR(CheckVersion("draforge_cel_options", o.version, DRAFORGE_CEL_OPTIONS_VERSION));
  if (o.cost_limit < 0) return absl::InvalidArgumentError("draforge_cel_options: cost_limit must not be negative");
  // Locked gates cannot change the CEL environment, so they are never an error here.
  ASSIGN_OR_RETURN(alloc::Features features, FeaturesOf(o.feature_gates, /*unlock_locked=*/true));
  cel::CompileOptions out;
  out.check_estimated_cost = o.check_estimated_cost != 0;
  out.consumable_capacity = features.consumable_capacity;
  out.list_type_attributes = features.list_type_attributes;
  if (o.cost_limit > 0) out.runtime_cost_limit = o.cost_limit;
  return out;
}

// Decodes {"driver", <v1 Device fields>} as the API server checks a device in a slice.
absl::StatusOr<api::StandaloneDevice> DecodeDevice(std::string_view json) {
  ASSIGN_OR_RETURN(rapidjson::Document v, api::ParseJson(json));
  if (!v.IsObject()) return absl::InvalidArgumentError("device: must be a JSON object");
  auto device = api::DecodeStandaloneDevice(v);
  if (!device.ok()) return absl::InvalidArgumentError(absl::StrCat("device: ", device.status().message()));
  return device;
}

std::string Quoted(std::string_view s) {
  rapidjson::Document d;
  d.SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), d.GetAllocator());
  return api::WriteJson(d, false);
}

}  // namespace
}  // namespace draforge::capi

extern "C" {

int draforge_cel_options_init(draforge_cel_options* options, unsigned int version) {
  using namespace draforge;
  if (options == nullptr) return DRAFORGE_EINVALID;
  if (!capi::CheckVersion("draforge_cel_options", version, DRAFORGE_CEL_OPTIONS_VERSION).ok()) return DRAFORGE_EINVALID;
  *options = capi::kDefaultCelOptions;
  options->version = version;
  return DRAFORGE_OK;
}

int draforge_cel_selector_compile(draforge_cel_selector** out, const char* expression,
                                  const draforge_cel_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || expression == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cel_selector_compile: out and expression must not be NULL"),
                        error);
    }
    *out = nullptr;
    auto co = capi::CompileOptionsOf(options);
    if (!co.ok()) return capi::Fail(co.status(), error);
    auto selector = cel::DeviceSelector::Compile(expression, *co);
    if (!selector.ok()) return capi::Fail(selector.status(), error);
    *out = new draforge_cel_selector{*std::move(selector), *co};
    return DRAFORGE_OK;
  });
}

void draforge_cel_selector_destroy(draforge_cel_selector* selector) { delete selector; }

int64_t draforge_cel_selector_estimated_cost(const draforge_cel_selector* selector) {
  return selector ? selector->selector->estimated_cost() : 0;
}

int draforge_cel_selector_evaluate(const draforge_cel_selector* selector, const char* device_json,
                                   size_t device_json_size, int* matches, int64_t* cost, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (selector == nullptr || device_json == nullptr || matches == nullptr) {
      return capi::Fail(absl::InvalidArgumentError(
                            "draforge_cel_selector_evaluate: selector, device_json and matches must not be NULL"),
                        error);
    }
    *matches = 0;
    if (cost) *cost = 0;
    auto device = capi::DecodeDevice(std::string_view(device_json, device_json_size));
    if (!device.ok()) return capi::Fail(device.status(), error);
    cel::DeviceInput in;
    in.driver = device->driver;
    in.attributes = &device->device.attributes;
    in.capacity = &device->device.capacity;
    in.allow_multiple_allocations =
        selector->options.consumable_capacity && device->device.allow_multiple_allocations.value_or(false);
    cel::SelectorResult r = selector->selector->Evaluate(in);
    if (!r.error.ok()) {
      return capi::Fail(absl::Status(r.error.code() == absl::StatusCode::kResourceExhausted
                                         ? absl::StatusCode::kResourceExhausted
                                         : absl::StatusCode::kInvalidArgument,
                                     absl::StrCat("runtime error: ", r.error.message())),
                        error);
    }
    *matches = r.matches ? 1 : 0;
    if (cost) *cost = r.actual_cost;
    return DRAFORGE_OK;
  });
}

int draforge_cel_evaluate(draforge_buffer* out, const char* expression, const draforge_cel_options* options,
                          draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || expression == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cel_evaluate: out and expression must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto co = capi::CompileOptionsOf(options);
    if (!co.ok()) return capi::Fail(co.status(), error);
    cel::ExpressionResult r = cel::EvaluateExpression(expression, *co);
    switch (r.outcome) {
      case cel::ExpressionResult::Outcome::kCompileError:
        return capi::Fail(absl::InvalidArgumentError(r.error), error);
      case cel::ExpressionResult::Outcome::kRuntimeError:
        return capi::Fail(absl::InvalidArgumentError(absl::StrCat("runtime error: ", r.error)), error);
      case cel::ExpressionResult::Outcome::kValue: break;
    }
    return capi::ToBuffer(absl::StrCat("{\"value\":", capi::Quoted(r.value), ",\"type\":", capi::Quoted(r.type),
                                       ",\"cost\":", r.cost, ",\"estimatedCost\":", r.estimated_cost, "}"),
                          out, error);
  });
}

}  // extern "C"
