// apimachinery's internal representation of a resource.Quantity. A Go Quantity holds an
// int64Amount {value, scale} when it can and an inf.Dec {unscaled, scale} otherwise, and its AsInt64
// and AsApproximateFloat64 answer from that representation, not from the value: "1.0" is 10 at
// scale -1, so AsInt64 fails although the value is whole. api::Quantity keeps the value only; these
// functions rebuild the representation where Kubernetes' behaviour depends on it (its CEL quantity
// library's isInteger(), asInteger(), asApproximateFloat(), and the arithmetic in
// lib/cel/internal/quantity_amount.h). Defined in quantity.cc, next to the parser they mirror.
#ifndef DRAFORGE_API_QUANTITY_GO_REPRESENTATION_H_
#define DRAFORGE_API_QUANTITY_GO_REPRESENTATION_H_

#include <cstdint>
#include <optional>

#include "api/quantity.h"

namespace draforge::api {

// Either way the value is unscaled * 10^exponent, with an int64 `unscaled` for an int64Amount.
struct QuantityGoRepresentation {
  bool dec = false;      // inf.Dec; else int64Amount
  int64_t exponent = 0;  // int64Amount.scale, or -inf.Dec.Scale()
};

// The representation apimachinery's ParseQuantity builds from q.String(): its int64 fast path (at
// most 18 significant digits, fewer for binary suffixes and no fraction there, a scale of at least
// -9, no int64 overflow) keeps the digits as written ("1.500" is 1500 at scale -3, "1k" 1 at scale
// 3); its inf.Dec fallback holds a non-zero value at inf scale 9 (2^63-1 at scale 0 when a binary
// value was capped) and zero at the scale of the text. An arithmetic result is treated as its
// canonical text.
QuantityGoRepresentation ParsedGoRepresentation(const Quantity& q);

// q / 10^exponent when that is an integer that fits an int64 (an int64Amount's value).
std::optional<int64_t> UnscaledInt64(const Quantity& q, int64_t exponent);

// Go's AsApproximateFloat64 on a representation of q with this exponent: float64(unscaled),
// rounded to nearest even, times math.Pow10(exponent) unless the exponent is 0 (so zero times an
// exponent beyond the double range is NaN, as in Go). q / 10^exponent must be an integer.
double GoApproximateFloat64(const Quantity& q, int64_t exponent);

}  // namespace draforge::api

#endif  // DRAFORGE_API_QUANTITY_GO_REPRESENTATION_H_
