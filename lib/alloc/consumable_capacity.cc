#include "alloc/internal/consumable_capacity.h"

namespace draforge::alloc::internal {
namespace {

api::Quantity Value(const api::DeviceCapacity& c) { return c.value.value_or(api::Quantity()); }

api::Quantity RoundUpRange(const api::Quantity& requested, const api::CapacityRequestPolicyRange& range,
                           bool fractional) {
  const api::Quantity& min = *range.min;
  if (requested.Compare(min) < 0) return min;
  if (!range.step) return requested;
  if (fractional) return api::Quantity::RoundUpToStep(requested, min, *range.step);
  // Upstream (before DRAFractionalCapacityRange): integer arithmetic on Value().
  const int64_t step = range.step->Value();
  if (step <= 0) return requested;
  const int64_t added = requested.Value() - min.Value();
  int64_t n = added / step;
  if (added % step != 0) ++n;
  // Upstream: resource.NewQuantity(min + n*step, validRange.Step.Format).
  return api::Quantity::FromInt64(min.Value() + step * n, range.step->format());
}

}  // namespace

api::Quantity ConsumedAmount(const api::Quantity* requested, const api::DeviceCapacity& capacity, bool fractional) {
  const auto& policy = capacity.request_policy;
  if (requested == nullptr) {
    if (policy && policy->default_) return *policy->default_;
    return Value(capacity);
  }
  if (!policy) return *requested;
  if (policy->valid_range && policy->valid_range->min) return RoundUpRange(*requested, *policy->valid_range, fractional);
  if (!policy->valid_values.empty()) {
    for (const api::Quantity& v : policy->valid_values) {
      if (requested->Compare(v) <= 0) return v;
    }
  }
  return *requested;
}

bool ViolatesPolicy(const api::Quantity& amount, const api::CapacityRequestPolicy* policy, bool fractional) {
  if (policy == nullptr) return false;
  if (policy->default_ && amount.Compare(*policy->default_) == 0) return false;
  if (policy->valid_range) {
    const auto& r = *policy->valid_range;
    if (r.max && amount.Compare(*r.max) > 0) return true;
    if (r.step) {
      const api::Quantity min = r.min.value_or(api::Quantity());
      if (fractional) {
        auto mod = amount.Sub(min).Mod(*r.step);
        return mod && !mod->IsZero();
      }
      const int64_t step = r.step->Value();
      if (step == 0) return false;
      return (amount.Value() - min.Value()) % step != 0;
    }
    return false;
  }
  if (!policy->valid_values.empty()) {
    for (const api::Quantity& v : policy->valid_values) {
      if (amount.Compare(v) == 0) return false;
    }
    return true;
  }
  return false;
}

CapacityCheck CheckCapacity(const api::Map<api::Quantity>* consumed, const api::CapacityRequirements* request,
                            const api::Map<api::DeviceCapacity>& capacity, const api::Map<api::Quantity>* allocating,
                            bool fractional) {
  if (request != nullptr) {
    for (const auto& [name, unused] : request->requests) {
      if (!capacity.Contains(name)) return CapacityCheck::kUnknownCapacity;
    }
  }
  for (const auto& [name, cap] : capacity) {
    const api::Quantity* requested = request != nullptr ? request->requests.Find(name) : nullptr;
    api::Quantity amount = ConsumedAmount(requested, cap, fractional);
    if (ViolatesPolicy(amount, cap.request_policy ? &*cap.request_policy : nullptr, fractional)) {
      return CapacityCheck::kInsufficient;
    }
    api::Quantity total = amount;
    if (consumed != nullptr) {
      if (const api::Quantity* c = consumed->Find(name)) total = c->Add(total);
    }
    if (allocating != nullptr) {
      if (const api::Quantity* a = allocating->Find(name)) total = total.Add(*a);
    }
    if (total.Compare(Value(cap)) > 0) return CapacityCheck::kInsufficient;
  }
  return CapacityCheck::kFits;
}

api::Map<api::Quantity> ConsumedCapacity(const api::CapacityRequirements* request,
                                         const api::Map<api::DeviceCapacity>& capacity, bool fractional) {
  api::Map<api::Quantity> out;
  for (const auto& [name, cap] : capacity) {
    const api::Quantity* requested = request != nullptr ? request->requests.Find(name) : nullptr;
    out.Set(name, ConsumedAmount(requested, cap, fractional));
  }
  return out;
}

void AddCapacity(api::Map<api::Quantity>& a, const api::Map<api::Quantity>& b) {
  for (const auto& [k, v] : b) {
    if (api::Quantity* q = a.Find(k)) {
      *q = q->Add(v);
    } else {
      a.Set(k, v);
    }
  }
}

void SubCapacity(api::Map<api::Quantity>& a, const api::Map<api::Quantity>& b) {
  for (const auto& [k, v] : b) {
    if (api::Quantity* q = a.Find(k)) {
      *q = q->Sub(v);
    } else {
      a.Set(k, v.Neg());
    }
  }
}

}  // namespace draforge::alloc::internal
