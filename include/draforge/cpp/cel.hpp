// DRAForge C++ API: CEL device selectors.
#ifndef DRAFORGE_CPP_CEL_HPP
#define DRAFORGE_CPP_CEL_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "draforge/cel.h"
#include "draforge/cpp/result.hpp"

namespace draforge {

struct CelOptions {
  std::string feature_gates;  // "": the 1.37 defaults
  bool check_estimated_cost = false;
  int64_t cost_limit = 0;  // 0: Kubernetes' 1000000
};

namespace detail {
inline draforge_cel_options CCelOptions(const CelOptions& o) {
  draforge_cel_options c = DRAFORGE_CEL_OPTIONS_INIT;
  c.feature_gates = o.feature_gates.empty() ? nullptr : o.feature_gates.c_str();
  c.check_estimated_cost = o.check_estimated_cost ? 1 : 0;
  c.cost_limit = o.cost_limit;
  return c;
}
}  // namespace detail

// The outcome of evaluating a selector on one device.
struct CelMatch {
  bool matches = false;
  int64_t cost = 0;
};

// A compiled selector; immutable, usable from several threads at once.
class CelSelector {
 public:
  static Result<CelSelector> Compile(std::string_view expression, const CelOptions& options = {}) {
    detail::CString x(expression);
    const draforge_cel_options c = detail::CCelOptions(options);
    draforge_cel_selector* raw = nullptr;
    draforge_error* e = nullptr;
    const int rc = draforge_cel_selector_compile(&raw, x.get(), &c, &e);
    if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
    return CelSelector(raw);
  }
  int64_t estimated_cost() const noexcept { return draforge_cel_selector_estimated_cost(p_.get()); }
  // The estimate without saturation at INT64_MAX (cel-go's uint64).
  uint64_t estimated_cost_uint64() const noexcept { return draforge_cel_selector_estimated_cost_uint64(p_.get()); }
  // Evaluates on one device (resource.k8s.io/v1 Device JSON plus its driver; see cel.h).
  Result<CelMatch> Evaluate(std::string_view device_json) const {
    int matches = 0;
    int64_t cost = 0;
    draforge_error* e = nullptr;
    const int rc =
        draforge_cel_selector_evaluate(p_.get(), device_json.data(), device_json.size(), &matches, &cost, &e);
    if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
    return CelMatch{matches != 0, cost};
  }
  // {"matches","cost"} or {"runtimeError"} for one device (a runtime error is a result here).
  Result<std::string> EvaluateJson(std::string_view device_json) const {
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_cel_selector_evaluate_json(out, p_.get(), device_json.data(), device_json.size(), e);
    });
  }
  // {"driver","pool","devices":[{"name","matches"|"runtimeError","cost","references"}]} for a slice.
  Result<std::string> EvaluateSlice(std::string_view slice_json) const {
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_cel_selector_evaluate_slice(out, p_.get(), slice_json.data(), slice_json.size(), e);
    });
  }
  // [{"kind","domain","name","qualifiedName"}]: the attributes and capacities read by name.
  Result<std::string> ReferencesJson() const {
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_cel_selector_references_json(out, p_.get(), e);
    });
  }

 private:
  explicit CelSelector(draforge_cel_selector* p) : p_(p, draforge_cel_selector_destroy) {}
  std::shared_ptr<draforge_cel_selector> p_;
};

// Compiles and evaluates an expression of any type with `device` unbound; the result as JSON.
inline Result<std::string> CelEvaluate(std::string_view expression, const CelOptions& options = {}) {
  detail::CString x(expression);
  const draforge_cel_options c = detail::CCelOptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_cel_evaluate(out, x.get(), &c, e);
  });
}

// Like CelEvaluate, with compile and runtime errors as results: {"value","type","cost",
// "estimatedCost"}, {"compileError"} or {"runtimeError"}.
inline Result<std::string> CelEvaluateJson(std::string_view expression, const CelOptions& options = {}) {
  detail::CString x(expression);
  const draforge_cel_options c = detail::CCelOptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_cel_evaluate_json(out, x.get(), &c, e);
  });
}

// One standalone device from JSON or YAML text, as JSON for CelSelector::Evaluate.
inline Result<std::string> CelParseDevice(std::string_view text) {
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_cel_device_parse(out, text.data(), text.size(), e);
  });
}

// The estimated worst-case cost of an expression of any result type.
inline Result<uint64_t> CelEstimateCost(std::string_view expression, const CelOptions& options = {}) {
  detail::CString x(expression);
  const draforge_cel_options c = detail::CCelOptions(options);
  uint64_t cost = 0;
  draforge_error* e = nullptr;
  const int rc = draforge_cel_estimate_cost(&cost, x.get(), &c, &e);
  if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
  return cost;
}

}  // namespace draforge

#endif  // DRAFORGE_CPP_CEL_HPP
