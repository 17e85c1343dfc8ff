#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "alloc/internal/selectors.h"
#include "common/status.h"

namespace draforge::alloc::internal {

SelectorCache::SelectorCache(const Features& features) {
  options_.check_estimated_cost = false;  // the scheduler compiles without the cost estimate
  // kube-scheduler compiles selectors with the "stored expressions" environment, which declares every
  // library and field whatever the feature gates say (device.allowMultipleAllocations, `includes`,
  // dyn attribute values); the gates only decide what the API server accepts in new objects.
  (void)features;
  options_.consumable_capacity = true;
  options_.list_type_attributes = true;
}

absl::StatusOr<std::shared_ptr<const cel::DeviceSelector>> SelectorCache::Get(const std::string& expression) {
  {
    absl::MutexLock lock(&mu_);
    auto it = compiled_.find(expression);
    if (it != compiled_.end()) return it->second;
  }
  auto compiled = cel::DeviceSelector::Compile(expression, options_);
  absl::MutexLock lock(&mu_);
  return compiled_.emplace(expression, std::move(compiled)).first->second;
}

absl::StatusOr<bool> SelectorsMatch(SelectorCache& cache, const SelectorOwner& owner,
                                    const std::vector<api::DeviceSelector>& selectors, const api::Device& device,
                                    std::string_view driver, std::string_view device_id, const Features& features) {
  for (size_t i = 0; i < selectors.size(); ++i) {
    const std::string& expression = *selectors[i].cel->expression;
    auto compiled = cache.Get(expression);
    if (!compiled.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(AV(owner.kind), " ", owner.name, ": selector #", i,
                                                     ": CEL compile error: ", compiled.status().message()));
    }
    cel::DeviceInput input;
    input.driver = driver;
    input.attributes = &device.attributes;
    input.capacity = &device.capacity;
    input.allow_multiple_allocations = features.consumable_capacity && device.allow_multiple_allocations.value_or(false);
    cel::SelectorResult r = (*compiled)->Evaluate(input);
    if (!r.error.ok()) {
      std::string message(r.error.message());
      if (absl::StrContains(message, "no such key:")) {
        absl::StrAppend(&message,
                        ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
                        "with has() for optional fields");
      }
      return absl::InvalidArgumentError(absl::StrCat(AV(owner.kind), " ", owner.name, ": selector #", i,
                                                     " on device ", AV(device_id), ": CEL runtime error: ", message));
    }
    if (!r.matches) return false;
  }
  return true;
}

bool ToleratesTaint(const api::DeviceToleration& t, const api::DeviceTaint& taint) {
  const std::string& effect = t.effect ? *t.effect : std::string();
  if (!effect.empty() && effect != taint.effect.value_or("")) return false;
  const std::string& key = t.key ? *t.key : std::string();
  if (!key.empty() && key != taint.key.value_or("")) return false;
  const std::string op = t.operator_.value_or("");
  if (op.empty() || op == "Equal") return t.value.value_or("") == taint.value.value_or("");
  return op == "Exists";
}

bool TaintPreventsAllocation(const std::vector<api::DeviceTaint>& taints,
                             const std::vector<api::DeviceToleration>& tolerations) {
  for (const api::DeviceTaint& taint : taints) {
    const std::string effect = taint.effect.value_or("");
    if (effect != "NoSchedule" && effect != "NoExecute") continue;
    bool tolerated = false;
    for (const api::DeviceToleration& t : tolerations) {
      if (ToleratesTaint(t, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return true;
  }
  return false;
}

}  // namespace draforge::alloc::internal
