// DRAForge C++ API: simulated device pools (profiles, expansion, faults, scenario plans). Every
// function is pure and may be called from any thread; objects go in and out as JSON text (sim.h).
#ifndef DRAFORGE_CPP_SIM_HPP
#define DRAFORGE_CPP_SIM_HPP

#include <cstdint>
#include <string>
#include <string_view>

#include "draforge/cpp/result.hpp"
#include "draforge/sim.h"

namespace draforge {

enum class ScenarioMode { kSlices = DRAFORGE_SIM_SCENARIO_SLICES, kPools = DRAFORGE_SIM_SCENARIO_POOLS };

// A pool with its faults edited: the whole object as JSON, and how many faults a clear-all removed.
struct SimPoolEdit {
  std::string pool_json;
  int64_t cleared = 0;
};

// [{"name","driver","unit","defaultDevicesPerNode","options","description"}].
inline Result<std::string> SimProfilesJson() {
  return detail::BufferCall([](draforge_buffer* out, draforge_error** e) { return draforge_sim_profiles_json(out, e); });
}

// ["taint","xid",...].
inline Result<std::string> SimFaultTypesJson() {
  return detail::BufferCall(
      [](draforge_buffer* out, draforge_error** e) { return draforge_sim_fault_types_json(out, e); });
}

// Decodes and validates one SimulatedDevicePool.
inline Result<void> SimCheckPool(std::string_view pool_json) {
  return detail::VoidCall(
      [&](draforge_error** e) { return draforge_sim_pool_check(pool_json.data(), pool_json.size(), e); });
}

// {"slices":[...],"pools":[...]} for a JSON array of pools.
inline Result<std::string> SimExpand(std::string_view pools_json, int64_t tick = 0) {
  draforge_sim_expand_options o = DRAFORGE_SIM_EXPAND_OPTIONS_INIT;
  o.tick = tick;
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_sim_expand(out, pools_json.data(), pools_json.size(), &o, e);
  });
}

// The pool with `fault_json` (one spec.faults[] item) appended.
inline Result<std::string> SimInjectFault(std::string_view pool_json, std::string_view fault_json) {
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_sim_fault_inject(out, pool_json.data(), pool_json.size(), fault_json.data(), fault_json.size(),
                                     e);
  });
}

// The pool without the fault called `name`.
inline Result<std::string> SimClearFault(std::string_view pool_json, std::string_view name) {
  detail::CString n(name);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_sim_fault_clear(out, pool_json.data(), pool_json.size(), n.get(), e);
  });
}

// The pool without faults, and how many it had.
inline Result<SimPoolEdit> SimClearAllFaults(std::string_view pool_json) {
  int64_t cleared = 0;
  auto r = detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_sim_fault_clear_all(out, &cleared, pool_json.data(), pool_json.size(), e);
  });
  if (!r.ok()) return std::move(r).error();
  return SimPoolEdit{*std::move(r), cleared};
}

// [{"name","type","description"}] of a pool's faults.
inline Result<std::string> SimFaultsJson(std::string_view pool_json) {
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_sim_faults_json(out, pool_json.data(), pool_json.size(), e);
  });
}

// [{"kind","group","version","resource","namespaced"}] in creation order.
inline Result<std::string> SimScenarioKindsJson() {
  return detail::BufferCall(
      [](draforge_buffer* out, draforge_error** e) { return draforge_sim_scenario_kinds_json(out, e); });
}

// {"writes":[...],"notes":[...]} for applying `objects` (JSON or YAML text) as `scenario`.
inline Result<std::string> SimPlanScenario(std::string_view objects, std::string_view scenario, ScenarioMode mode) {
  detail::CString s(scenario);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_sim_scenario_plan(out, objects.data(), objects.size(), s.get(),
                                      static_cast<draforge_sim_scenario_mode>(mode), e);
  });
}

// Whether `object_json` carries the scenario label with value `scenario`.
inline Result<bool> SimScenarioOwns(std::string_view object_json, std::string_view scenario) {
  detail::CString s(scenario);
  int owned = 0;
  draforge_error* e = nullptr;
  const int rc = draforge_sim_scenario_owns(&owned, object_json.data(), object_json.size(), s.get(), &e);
  if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
  return owned != 0;
}

// The scenario name a path suggests ("" when none).
inline Result<std::string> SimScenarioNameFromPath(std::string_view path) {
  detail::CString p(path);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_sim_scenario_name_from_path(out, p.get(), e);
  });
}

inline bool SimValidScenarioName(std::string_view name) {
  detail::CString n(name);
  return draforge_sim_scenario_name_valid(n.get()) != 0;
}

}  // namespace draforge

#endif  // DRAFORGE_CPP_SIM_HPP
