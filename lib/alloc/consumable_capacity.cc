#include "alloc/internal/consumable_capacity.h"

#include <cstdint>
#include <limits>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace draforge::alloc::internal {
namespace {

api::Quantity Value(const api::DeviceCapacity& c) { return c.value.value_or(api::Quantity()); }

constexpr std::string_view kNotRepresentable =
    "capacity request cannot be represented in the device's range arithmetic";

absl::StatusOr<api::Quantity> RoundUpRange(const api::Quantity& requested, const api::CapacityRequestPolicyRange& range,
                                           RangeArithmetic arithmetic) {
  const api::Quantity& min = *range.min;
  if (requested.Compare(min) < 0) return min;
  if (!range.step) return requested;
  if (arithmetic == RangeArithmetic::kFractional) return api::Quantity::RoundUpToStep(requested, min, *range.step);
  // Upstream (before DRAFractionalCapacityRange): integer arithmetic on Value(). Value() of a
  // request above MaxInt64 would wrap, so upstream refuses it instead of rounding garbage.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (requested.Compare(api::Quantity::FromInt64(kMax, api::Quantity::Format::kDecimalSI)) > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(AV(kNotRepresentable), ": request ", requested.String(), " exceeds MaxInt64"));
  }
  const int64_t step = range.step->Value();
  if (step <= 0) return requested;
  const int64_t min_value = min.Value();
  const int64_t added = requested.Value() - min_value;
  int64_t n = added / step;
  if (added % step != 0) ++n;
  // min + n*step would overflow; upstream guards only a non-negative min (a negative one is
  // outside the API contract and keeps the plain arithmetic).
  if (min_value >= 0 && n > (kMax - min_value) / step) {
    return absl::InvalidArgumentError(absl::StrCat(AV(kNotRepresentable), ": rounding request ", requested.String(),
                                                   " up to the next step passes MaxInt64"));
  }
  // Upstream: resource.NewQuantity(min + n*step, validRange.Step.Format); before 1.37 BinarySI.
  return api::Quantity::FromInt64(min.Value() + step * n, arithmetic == RangeArithmetic::kIntegerBinarySI
                                                              ? api::Quantity::Format::kBinarySI
                                                              : range.step->format());
}

}  // namespace

RangeArithmetic CapacityRangeArithmetic(const Features& features) {
  if (features.fractional_capacity_range) return RangeArithmetic::kFractional;
  if (features.version < api::KubernetesVersion::k1_37) return RangeArithmetic::kIntegerBinarySI;
  return RangeArithmetic::kInteger;
}

absl::StatusOr<api::Quantity> ConsumedAmount(const api::Quantity* requested, const api::DeviceCapacity& capacity,
                                             RangeArithmetic arithmetic) {
  const auto& policy = capacity.request_policy;
  if (requested == nullptr) {
    if (policy && policy->default_) return *policy->default_;
    return Value(capacity);
  }
  if (!policy) return *requested;
  if (policy->valid_range && policy->valid_range->min) return RoundUpRange(*requested, *policy->valid_range, arithmetic);
  if (!policy->valid_values.empty()) {
    for (const api::Quantity& v : policy->valid_values) {
      if (requested->Compare(v) <= 0) return v;
    }
  }
  return *requested;
}

bool ViolatesPolicy(const api::Quantity& amount, const api::CapacityRequestPolicy* policy, RangeArithmetic arithmetic) {
  if (policy == nullptr) return false;
  if (policy->default_ && amount.Compare(*policy->default_) == 0) return false;
  if (policy->valid_range) {
    const auto& r = *policy->valid_range;
    if (r.max && amount.Compare(*r.max) > 0) return true;
    if (r.step) {
      const api::Quantity min = r.min.value_or(api::Quantity());
      if (arithmetic == RangeArithmetic::kFractional) {
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

absl::StatusOr<CapacityCheck> CheckCapacity(const api::Map<api::Quantity>* consumed,
                                            const api::CapacityRequirements* request,
                                            const api::Map<api::DeviceCapacity>& capacity,
                                            const api::Map<api::Quantity>* allocating, RangeArithmetic arithmetic) {
  if (request != nullptr) {
    for (const auto& [name, unused] : request->requests) {
      if (!capacity.Contains(name)) return CapacityCheck::kUnknownCapacity;
    }
  }
  // Resolve every capacity first: an unrepresentable or negative amount aborts, and must do so
  // whatever capacity a soft "does not fit" would have been found on first.
  api::Map<api::Quantity> amounts;
  for (const auto& [name, cap] : capacity) {
    const api::Quantity* requested = request != nullptr ? request->requests.Find(name) : nullptr;
    absl::StatusOr<api::Quantity> amount = ConsumedAmount(requested, cap, arithmetic);
    if (!amount.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("capacity \"", AV(name), "\": ", amount.status().message()));
    }
    if (amount->Sign() < 0) {
      return absl::InvalidArgumentError(absl::StrCat("capacity \"", AV(name), "\": capacity value is negative"));
    }
    amounts.Set(name, *std::move(amount));
  }
  for (const auto& [name, cap] : capacity) {
    const api::Quantity& amount = *amounts.Find(name);
    if (ViolatesPolicy(amount, cap.request_policy ? &*cap.request_policy : nullptr, arithmetic)) {
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

absl::StatusOr<api::Map<api::Quantity>> ConsumedCapacity(const api::CapacityRequirements* request,
                                                         const api::Map<api::DeviceCapacity>& capacity,
                                                         RangeArithmetic arithmetic) {
  api::Map<api::Quantity> out;
  for (const auto& [name, cap] : capacity) {
    const api::Quantity* requested = request != nullptr ? request->requests.Find(name) : nullptr;
    ASSIGN_OR_RETURN(api::Quantity amount, ConsumedAmount(requested, cap, arithmetic));
    out.Set(name, std::move(amount));
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
