// The C ABI over lib/cel: compiling and evaluating DRA device selectors (include/draforge/cel.h).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "api/standalone_device.h"
#include "api/yaml.h"
#include "capi/internal.h"
#include "common/json_string.h"
#include "cel/eval.h"
#include "cel/references.h"
#include "cel/selector.h"
#include "common/status.h"
#include "draforge/cel.h"
#include "rapidjson/document.h"

struct draforge_cel_selector {
  std::shared_ptr<const draforge::cel::DeviceSelector> selector;
  draforge::cel::CompileOptions options;
  std::string expression;  // for the unsaturated estimate and the referenced names
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

cel::DeviceInput InputOf(const draforge_cel_selector& s, std::string_view driver, const api::Device& d) {
  cel::DeviceInput in;
  in.driver = driver;
  in.attributes = &d.attributes;
  in.capacity = &d.capacity;
  in.allow_multiple_allocations = s.options.consumable_capacity && d.allow_multiple_allocations.value_or(false);
  return in;
}

// {"matches","cost"} or {"runtimeError"} into `o`.
void AddOutcome(rapidjson::Value& o, const cel::SelectorResult& r, rapidjson::Document::AllocatorType& a) {
  if (!r.error.ok()) {
    o.AddMember("runtimeError", JsonString(SV(r.error.message()), a), a);
    return;
  }
  o.AddMember("matches", rapidjson::Value(r.matches), a);
  o.AddMember("cost", rapidjson::Value(static_cast<int64_t>(r.actual_cost)), a);
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
  return draforge::capi::InitOptions(options, version, DRAFORGE_CEL_OPTIONS_VERSION,
                                     draforge::capi::kDefaultCelOptions);
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
    *out = new draforge_cel_selector{*std::move(selector), *co, expression};
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

uint64_t draforge_cel_selector_estimated_cost_uint64(const draforge_cel_selector* selector) {
  using namespace draforge;
  if (selector == nullptr) return 0;
  const int64_t saturated = selector->selector->estimated_cost();
  if (saturated != INT64_MAX) return static_cast<uint64_t>(saturated);
  try {
    auto e = cel::EstimateCost(selector->expression, selector->options);
    return e.ok() ? *e : UINT64_MAX;
  } catch (...) {
    return UINT64_MAX;
  }
}

int draforge_cel_estimate_cost(uint64_t* cost, const char* expression, const draforge_cel_options* options,
                               draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (cost == nullptr || expression == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cel_estimate_cost: cost and expression must not be NULL"),
                        error);
    }
    *cost = 0;
    auto co = capi::CompileOptionsOf(options);
    if (!co.ok()) return capi::Fail(co.status(), error);
    auto e = cel::EstimateCost(expression, *co);
    if (!e.ok()) return capi::Fail(e.status(), error);
    *cost = *e;
    return DRAFORGE_OK;
  });
}

int draforge_cel_selector_evaluate_json(draforge_buffer* out, const draforge_cel_selector* selector,
                                        const char* device_json, size_t device_json_size, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || selector == nullptr || device_json == nullptr) {
      return capi::Fail(absl::InvalidArgumentError(
                            "draforge_cel_selector_evaluate_json: out, selector and device_json must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto device = capi::DecodeDevice(std::string_view(device_json, device_json_size));
    if (!device.ok()) return capi::Fail(device.status(), error);
    const cel::SelectorResult r = selector->selector->Evaluate(capi::InputOf(*selector, device->driver, device->device));
    rapidjson::Document d(rapidjson::kObjectType);
    capi::AddOutcome(d, r, d.GetAllocator());
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_cel_selector_evaluate_slice(draforge_buffer* out, const draforge_cel_selector* selector,
                                         const char* slice_json, size_t slice_json_size, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || selector == nullptr || slice_json == nullptr) {
      return capi::Fail(absl::InvalidArgumentError(
                            "draforge_cel_selector_evaluate_slice: out, selector and slice_json must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto json = api::ParseJson(std::string_view(slice_json, slice_json_size));
    if (!json.ok()) return capi::Fail(json.status(), error);
    auto object = api::DecodeObject(*json, {}, nullptr);
    if (!object.ok()) return capi::Fail(object.status(), error);
    const auto* slice = std::get_if<api::ResourceSlice>(&object->value);
    if (slice == nullptr) {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat("draforge_cel_selector_evaluate_slice: expected a "
                                                                "ResourceSlice, got ", AV(object->kind_name()))),
                        error);
    }
    auto refs = cel::ReferencedNames(selector->expression, selector->options);
    if (!refs.ok()) return capi::Fail(refs.status(), error);
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    std::string driver, pool;
    if (slice->spec) {
      driver = slice->spec->driver.value_or("");
      if (slice->spec->pool && slice->spec->pool->name) pool = *slice->spec->pool->name;
    }
    d.AddMember("driver", JsonString(driver, a), a);
    d.AddMember("pool", JsonString(pool, a), a);
    rapidjson::Value devices(rapidjson::kArrayType);
    if (slice->spec) {
      for (const api::Device& device : slice->spec->devices) {
        rapidjson::Value o(rapidjson::kObjectType);
        o.AddMember("name", JsonString(device.name.value_or(""), a), a);
        capi::AddOutcome(o, selector->selector->Evaluate(capi::InputOf(*selector, driver, device)), a);
        rapidjson::Value present(rapidjson::kArrayType);
        for (const cel::DeviceReference& ref : *refs) {
          present.PushBack(rapidjson::Value(ref.ExistsOn(driver, device.attributes, device.capacity)), a);
        }
        o.AddMember("references", present, a);
        devices.PushBack(o, a);
      }
    }
    d.AddMember("devices", devices, a);
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_cel_selector_references_json(draforge_buffer* out, const draforge_cel_selector* selector,
                                          draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || selector == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_cel_selector_references_json: out and selector must not be NULL"),
          error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto refs = cel::ReferencedNames(selector->expression, selector->options);
    if (!refs.ok()) return capi::Fail(refs.status(), error);
    rapidjson::Document d(rapidjson::kArrayType);
    auto& a = d.GetAllocator();
    for (const cel::DeviceReference& ref : *refs) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("kind", rapidjson::StringRef(ref.kind == cel::DeviceReference::Kind::kAttribute ? "attribute"
                                                                                                  : "capacity"),
                  a);
      o.AddMember("domain", JsonString(ref.domain, a), a);
      o.AddMember("name", JsonString(ref.name, a), a);
      o.AddMember("qualifiedName", JsonString(ref.QualifiedName(), a), a);
      d.PushBack(o, a);
    }
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_cel_device_parse(draforge_buffer* out, const char* data, size_t size, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || (data == nullptr && size > 0)) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cel_device_parse: out and data must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    const std::string_view text(data ? data : "", size);
    const size_t first = text.find_first_not_of(" \t\r\n");
    rapidjson::Document doc;
    if (first != std::string_view::npos && text[first] == '{') {
      auto parsed = api::ParseJson(text);
      if (!parsed.ok()) return capi::Fail(parsed.status(), error);
      doc = *std::move(parsed);
    } else {
      auto docs = api::ParseYamlStream(text);
      if (!docs.ok()) return capi::Fail(docs.status(), error);
      if (docs->size() != 1) {
        return capi::Fail(absl::InvalidArgumentError(absl::StrCat("expected one device, found ", docs->size(),
                                                                  " documents")),
                          error);
      }
      doc = std::move(docs->front().json);
    }
    if (!doc.IsObject()) return capi::Fail(absl::InvalidArgumentError("the device must be an object"), error);
    if (!doc.HasMember("driver")) return capi::Fail(absl::InvalidArgumentError("missing \"driver\""), error);
    if (auto device = api::DecodeStandaloneDevice(doc); !device.ok()) return capi::Fail(device.status(), error);
    return capi::ToBuffer(api::WriteJson(doc, false), out, error);
  });
}

int draforge_cel_evaluate_json(draforge_buffer* out, const char* expression, const draforge_cel_options* options,
                               draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || expression == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cel_evaluate_json: out and expression must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto co = capi::CompileOptionsOf(options);
    if (!co.ok()) return capi::Fail(co.status(), error);
    const cel::ExpressionResult r = cel::EvaluateExpression(expression, *co);
    switch (r.outcome) {
      case cel::ExpressionResult::Outcome::kCompileError:
        return capi::ToBuffer(absl::StrCat("{\"compileError\":", capi::Quoted(r.error), "}"), out, error);
      case cel::ExpressionResult::Outcome::kRuntimeError:
        return capi::ToBuffer(absl::StrCat("{\"runtimeError\":", capi::Quoted(r.error), "}"), out, error);
      case cel::ExpressionResult::Outcome::kValue: break;
    }
    return capi::ToBuffer(absl::StrCat("{\"value\":", capi::Quoted(r.value), ",\"type\":", capi::Quoted(r.type),
                                       ",\"cost\":", r.cost, ",\"estimatedCost\":", r.estimated_cost, "}"),
                          out, error);
  });
}

}  // extern "C"
