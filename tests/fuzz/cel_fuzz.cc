// Fuzz target: parse, check and evaluate an arbitrary expression as a DRA selector against a fixed
// device. Must never crash, hang past the cost limit, or leak.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/quantity.h"
#include "cel/selector.h"

namespace {

const draforge::cel::DeviceInput& FixedDevice() {
  using namespace draforge;
  static const auto* attrs = [] {
    auto* m = new api::Map<api::DeviceAttribute>();
    api::DeviceAttribute a;
    a.set_string_value("a100");
    m->Set("model", a);
    a = {};
    a.set_int_value(40);
    m->Set("memory", a);
    a = {};
    a.set_version_value("1.2.3");
    m->Set("driverVersion", a);
    a = {};
    a.set_ints(std::vector<int64_t>{1, 2, 3});
    m->Set("numa", a);
    a = {};
    a.set_bool_value(true);
    m->Set("other.example.com/flag", a);
    return m;
  }();
  static const auto* cap = [] {
    auto* m = new api::Map<api::DeviceCapacity>();
    api::DeviceCapacity c;
    c.value = *api::Quantity::Parse("80Gi");
    m->Set("memory", c);
    return m;
  }();
  static const cel::DeviceInput input{"gpu.example.com", attrs, cap, true};
  return input;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16 * 1024) return 0;
  std::string_view expr(reinterpret_cast<const char*>(data), size);
  auto selector = draforge::cel::DeviceSelector::Compile(expr);
  if (!selector.ok()) return 0;
  (void)(*selector)->estimated_cost();
  (void)(*selector)->Evaluate(FixedDevice());
  return 0;
}
