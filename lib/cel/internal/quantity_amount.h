// A quantity as Kubernetes' CEL quantity library holds it: a *resource.Quantity, whose value and
// whose internal representation (an int64Amount, or an inf.Dec once that cannot hold it) both
// matter, because isInteger(), asInteger() and asApproximateFloat() answer from the representation
// and add()/sub() choose it (apimachinery's Quantity.Add/Sub). quantity("1.5").add(quantity("0.5"))
// is 2 held as 20 at scale -1, so isInteger() is false upstream, and so it is here.
#ifndef DRAFORGE_CEL_INTERNAL_QUANTITY_AMOUNT_H_
#define DRAFORGE_CEL_INTERNAL_QUANTITY_AMOUNT_H_

#include <cstdint>
#include <optional>

#include "api/quantity.h"
#include "api/quantity_go_representation.h"
#include "cel/value.h"

namespace draforge::cel::internal {

struct QuantityAmount {
  api::Quantity value;                      // exact, with apimachinery's format
  api::QuantityGoRepresentation rep;      // how apimachinery holds `value`
  int64_t unscaled = 0;                     // int64Amount.value when !rep.dec

  // A parsed quantity (quantity("..."), a device capacity): ParseQuantity's representation.
  static QuantityAmount Parsed(const api::Quantity& q);
  // resource.NewQuantity(v, DecimalSI), the int operand of add()/sub().
  static QuantityAmount OfInt64(int64_t v);
  // The quantity a CEL value holds: a result of add()/sub() keeps its representation.
  static QuantityAmount Of(const Value& v);

  // Quantity.Add / Quantity.Sub: int64Amount arithmetic while the operands are int64Amounts and
  // nothing overflows (the result takes the smaller scale), else exact inf.Dec arithmetic at the
  // larger inf scale. int64Amount.Sub adds the negated value, and Go's negation of math.MinInt64 is
  // math.MinInt64: quantity("1").sub(-9223372036854775808) is 1 + math.MinInt64 upstream.
  QuantityAmount Add(const QuantityAmount& y) const;
  QuantityAmount Sub(const QuantityAmount& y) const;

  // Quantity.AsInt64: an int64Amount with a non-negative scale whose value * 10^scale fits.
  std::optional<int64_t> AsInt64() const;
  // Quantity.AsApproximateFloat64.
  double AsApproximateFloat64() const { return api::GoApproximateFloat64(value, rep.exponent); }

  // The CEL value of an add()/sub() result (a pointer quantity, Value::QuantityPointer) that keeps
  // this representation; allocated in `arena`.
  Value ToValue(Arena& arena) const;
};

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_QUANTITY_AMOUNT_H_
