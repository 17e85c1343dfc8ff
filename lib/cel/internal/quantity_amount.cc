#include "cel/internal/quantity_amount.h"

#include <limits>
#include <utility>

namespace draforge::cel::internal {

namespace {

using api::Quantity;

// What Value::QuantityPointer points at for an add()/sub() result: the quantity every other
// function reads, and the representation isInteger(), asInteger() and asApproximateFloat() need.
struct QuantityResult final : api::Quantity {
  QuantityResult(const api::Quantity& v, api::QuantityGoRepresentation r, int64_t u)
      : api::Quantity(v), rep(r), unscaled(u) {}
  api::QuantityGoRepresentation rep;
  int64_t unscaled;
};

// positiveScaleInt64: base * 10^scale, or nothing on overflow (Go's int64Multiply also refuses
// math.MinInt64 times anything but 0 and 1, which overflows here too).
std::optional<int64_t> PositiveScale(int64_t base, int64_t scale) {
  int64_t value = base;
  for (int64_t i = 0; i < scale; ++i) {
    if (__builtin_mul_overflow(value, int64_t{10}, &value)) return std::nullopt;
    if (value == 0) break;
  }
  return value;
}

// int64Amount.Add: the sum at the smaller scale, or nothing when a step overflows.
std::optional<std::pair<int64_t, int64_t>> Int64AmountAdd(int64_t av, int64_t as, int64_t bv, int64_t bs) {
  if (bv == 0) return std::pair{av, as};
  if (av == 0) return std::pair{bv, bs};
  int64_t c = 0;
  if (as == bs) {
    if (__builtin_add_overflow(av, bv, &c)) return std::nullopt;
    return std::pair{c, as};
  }
  if (as > bs) {
    auto shifted = PositiveScale(av, as - bs);
    if (!shifted || __builtin_add_overflow(*shifted, bv, &c)) return std::nullopt;
    return std::pair{c, bs};
  }
  auto shifted = PositiveScale(bv, bs - as);
  if (!shifted || __builtin_add_overflow(av, *shifted, &c)) return std::nullopt;
  return std::pair{c, as};
}

}  // namespace

QuantityAmount QuantityAmount::Parsed(const api::Quantity& q) {
  QuantityAmount a{q, api::ParsedGoRepresentation(q), 0};
  if (!a.rep.dec) a.unscaled = api::UnscaledInt64(q, a.rep.exponent).value_or(0);
  return a;
}

QuantityAmount QuantityAmount::OfInt64(int64_t v) {
  return {Quantity::FromInt64(v, Quantity::Format::kDecimalSI), {false, 0}, v};
}

QuantityAmount QuantityAmount::Of(const Value& v) {
  if (v.is_quantity_pointer()) {
    const auto* r = static_cast<const QuantityResult*>(v.quantity());
    return {*r, r->rep, r->unscaled};
  }
  return Parsed(*v.quantity());
}

QuantityAmount QuantityAmount::Add(const QuantityAmount& y) const {
  if (!rep.dec && !y.rep.dec) {
    if (auto sum = Int64AmountAdd(unscaled, rep.exponent, y.unscaled, y.rep.exponent)) {
      return {value.Add(y.value), {false, sum->second}, sum->first};
    }
  }
  return {value.Add(y.value), {true, std::min(rep.exponent, y.rep.exponent)}, 0};
}

QuantityAmount QuantityAmount::Sub(const QuantityAmount& y) const {
  if (!rep.dec && !y.rep.dec) {
    // int64Amount.Sub(b) is Add(int64Amount{-b.value, b.scale}), with Go's wrapping negation.
    const bool wraps = y.unscaled == std::numeric_limits<int64_t>::min();
    const int64_t negated = wraps ? y.unscaled : -y.unscaled;
    if (auto sum = Int64AmountAdd(unscaled, rep.exponent, negated, y.rep.exponent)) {
      return {wraps ? value.Add(y.value) : value.Sub(y.value), {false, sum->second}, sum->first};
    }
  }
  return {value.Sub(y.value), {true, std::min(rep.exponent, y.rep.exponent)}, 0};
}

std::optional<int64_t> QuantityAmount::AsInt64() const {
  if (rep.dec || rep.exponent < 0) return std::nullopt;
  return PositiveScale(unscaled, rep.exponent);
}

Value QuantityAmount::ToValue(Arena& arena) const {
  return Value::QuantityPointer(arena.New<QuantityResult>(value, rep, unscaled));
}

}  // namespace draforge::cel::internal
