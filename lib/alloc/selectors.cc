#include <mutex>
#include <shared_mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "alloc/internal/selectors.h"
#include "common/status.h"

namespace draforge::alloc::internal {

SelectorCache::SelectorCache(const Features& features, const store::Snapshot* snapshot) {
  options_.check_estimated_cost = false;  // the scheduler compiles without the cost estimate
  // kube-scheduler compiles selectors with the "stored expressions" environment, which declares every
  // library and field whatever the feature gates say (device.allowMultipleAllocations, `includes`,
  // dyn attribute values); the gates only decide what the API server accepts in new objects, and
  // before 1.37 whether evaluation sees list values (Features::ListAttributeValues).
  options_.consumable_capacity = true;
  options_.list_type_attributes = true;
  options_.list_attribute_values = features.ListAttributeValues();
  if (snapshot != nullptr) {
    for (const api::ResourceSlice* slice : snapshot->ResourceSlices()) {
      if (!slice->spec) continue;
      first_ordinals_.emplace(slice, static_cast<int>(num_devices_));
      num_devices_ += slice->spec->devices.size();
    }
  }
}

const SelectorCache::Entry& SelectorCache::GetEntry(const std::string& expression) {
  {
    std::shared_lock lock(mu_);
    auto it = compiled_.find(expression);
    if (it != compiled_.end()) return *it->second;
  }
  auto entry = std::make_unique<Entry>();
  entry->program = cel::DeviceSelector::Compile(expression, options_);
  if (entry->program.ok() && num_devices_ > 0) {
    entry->results.reset(new std::atomic<uint8_t>[num_devices_]());
  }
  std::unique_lock lock(mu_);
  return *compiled_.emplace(expression, std::move(entry)).first->second;
}

absl::StatusOr<std::shared_ptr<const cel::DeviceSelector>> SelectorCache::Get(const std::string& expression) {
  return GetEntry(expression).program;
}

int SelectorCache::FirstDeviceOrdinal(const api::ResourceSlice& slice) const {
  auto it = first_ordinals_.find(&slice);
  return it == first_ordinals_.end() ? -1 : it->second;
}

cel::SelectorResult SelectorCache::Evaluate(const cel::DeviceSelector& selector, const api::Device& device,
                                            std::string_view driver, bool allow_multiple_allocations) {
  const auto key = std::make_pair(&selector, &device);
  {
    std::shared_lock lock(mu_);
    auto it = results_.find(key);
    if (it != results_.end()) {
      cel::SelectorResult r;
      r.matches = it->second;
      return r;
    }
    auto e = errors_.find(key);
    if (e != errors_.end()) {
      cel::SelectorResult r;
      r.error = e->second;
      return r;
    }
  }
  cel::SelectorResult r = selector.Evaluate(DeviceInputFor(device, driver, allow_multiple_allocations));
  std::unique_lock lock(mu_);
  if (r.error.ok()) {
    results_.emplace(key, r.matches);
  } else {
    errors_.emplace(key, r.error);
  }
  return r;
}

cel::SelectorResult SelectorCache::Evaluate(const Entry& entry, const api::Device& device, int ordinal,
                                            std::string_view driver, bool allow_multiple_allocations) {
  if (ordinal < 0 || !entry.results) return Evaluate(**entry.program, device, driver, allow_multiple_allocations);
  std::atomic<uint8_t>& slot = entry.results[ordinal];
  const uint8_t known = slot.load(std::memory_order_acquire);
  if (known == 1 || known == 2) {
    cel::SelectorResult r;
    r.matches = known == 2;
    return r;
  }
  const auto key = std::make_pair(&**entry.program, &device);
  if (known == 3) {
    std::shared_lock lock(mu_);
    cel::SelectorResult r;
    r.error = errors_.at(key);
    return r;
  }
  // Two threads may both evaluate a device first: the result is the same.
  cel::SelectorResult r = (*entry.program)->Evaluate(DeviceInputFor(device, driver, allow_multiple_allocations));
  if (!r.error.ok()) {
    std::unique_lock lock(mu_);  // the error's text lives in the map, before the flag says so
    errors_.emplace(key, r.error);
  }
  slot.store(!r.error.ok() ? 3 : r.matches ? 2 : 1, std::memory_order_release);
  return r;
}

CompiledSelectors CompileSelectors(SelectorCache& cache, const std::vector<api::DeviceSelector>& selectors) {
  CompiledSelectors out;
  out.reserve(selectors.size());
  for (const api::DeviceSelector& s : selectors) out.push_back(&cache.GetEntry(*s.cel->expression));
  return out;
}

namespace {

// What CEL sees as `device.allowMultipleAllocations`: the incubating and experimental allocators
// pass the device's field whatever DRAConsumableCapacity says (the gate only decides whether the
// device is shared); the stable allocator does not pass it at all.
bool CelAllowMultipleAllocations(const api::Device& device, const Features& features) {
  return !features.StableAllocator() && device.allow_multiple_allocations.value_or(false);
}

// Selector #i of `owner` on `device`: its compile error, its runtime error (worded as upstream), or
// whether it matches.
template <typename Eval, typename DeviceId>
absl::StatusOr<bool> MatchOne(const SelectorOwner& owner, size_t i,
                              const absl::StatusOr<std::shared_ptr<const cel::DeviceSelector>>& compiled,
                              const Eval& eval, const DeviceId& device_id) {
  if (!compiled.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(AV(owner.kind), " ", AV(owner.name), ": selector #", i,
                                                   ": CEL compile error: ", compiled.status().message()));
  }
  cel::SelectorResult r = eval();
  if (r.error.ok()) return r.matches;
  std::string message(r.error.message());
  if (absl::StrContains(message, "no such key:")) {
    absl::StrAppend(&message,
                    ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
                    "with has() for optional fields");
  }
  return absl::InvalidArgumentError(absl::StrCat(AV(owner.kind), " ", AV(owner.name), ": selector #", i, " on device ",
                                                 device_id(), ": CEL runtime error: ", message));
}

}  // namespace

absl::StatusOr<bool> SelectorsMatch(SelectorCache& cache, const SelectorOwner& owner, const CompiledSelectors& compiled,
                                    const api::Device& device, int ordinal, std::string_view driver,
                                    std::string_view pool, std::string_view device_name, const Features& features) {
  const bool multi = CelAllowMultipleAllocations(device, features);
  const auto device_id = [&] { return absl::StrCat(AV(driver), "/", AV(pool), "/", AV(device_name)); };
  for (size_t i = 0; i < compiled.size(); ++i) {
    const SelectorCache::Entry& entry = *compiled[i];
    const auto eval = [&] { return cache.Evaluate(entry, device, ordinal, driver, multi); };
    ASSIGN_OR_RETURN(bool match, MatchOne(owner, i, entry.program, eval, device_id));
    if (!match) return false;
  }
  return true;
}

absl::StatusOr<bool> SelectorsMatch(SelectorCache& cache, const SelectorOwner& owner,
                                    const std::vector<api::DeviceSelector>& selectors, const api::Device& device,
                                    std::string_view driver, std::string_view device_id, const Features& features) {
  const bool multi = CelAllowMultipleAllocations(device, features);
  for (size_t i = 0; i < selectors.size(); ++i) {
    const SelectorCache::Entry& entry = cache.GetEntry(*selectors[i].cel->expression);
    const auto eval = [&] { return cache.Evaluate(entry, device, -1, driver, multi); };
    ASSIGN_OR_RETURN(bool match, MatchOne(owner, i, entry.program, eval, [&] { return AV(device_id); }));
    if (!match) return false;
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
                             const std::vector<api::DeviceToleration>& tolerations, bool every_effect) {
  for (const api::DeviceTaint& taint : taints) {
    const std::string effect = taint.effect.value_or("");
    if (!every_effect && effect != "NoSchedule" && effect != "NoExecute") continue;
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
