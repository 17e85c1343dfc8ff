// Quantity: an exact decimal number with a unit suffix, identical in meaning to
// k8s.io/apimachinery/pkg/api/resource.Quantity ("100m", "1.5Gi", "12e6", ...).
//
// The value is exact: it is kept as a decimal mantissa times a power of ten, with no floating
// point and no fixed width. A mantissa that fits an int64 is stored inline; a wider one (for
// example "100000000000000000000000" or the sum of "1E" and "1n") is kept on the heap, so the
// object stays 16 bytes for the common case.
//
// Text is lossless: Parse remembers the text it was given whenever that text differs from the
// canonical spelling, and String() returns it, so that decoding and re-encoding an object does not
// rewrite what the user wrote. Canonical() returns what apimachinery's Quantity.String() and
// MarshalJSON return, i.e. what Kubernetes writes when it copies the value into another object (a
// consumedCapacity, an error message, a CEL result): the input text when apimachinery's ParseQuantity
// keeps it (it does so for text that already "looks canonical", e.g. "+1", "010", "1.500", "1E3",
// "07Mi"), else CanonicalForm(). Arithmetic results carry no remembered text.
//
// Quantity is an immutable value type: copies share their heap part (if any) and are safe to read
// from several threads at once.
#ifndef DRAFORGE_API_QUANTITY_H_
#define DRAFORGE_API_QUANTITY_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "absl/status/statusor.h"

namespace draforge::api {

namespace quantity_internal {
struct Access;
struct Dec;
}  // namespace quantity_internal

class Quantity {
 public:
  // How the canonical text is spelled; see Canonical(). Parse picks it from the suffix, as
  // apimachinery does: none, n, u, m, k, M, G, T, P, E -> kDecimalSI; Ki .. Ei -> kBinarySI (but a
  // non-zero value below 1 in magnitude becomes kDecimalSI); e<N> / E<N> -> kDecimalExponent.
  enum class Format : uint8_t {
    kDecimalExponent,  // 12e6
    kBinarySI,         // 12Mi (12 * 2^20)
    kDecimalSI,        // 12M (12 * 10^6)
  };

  // Parse rejects a value with more integer digits than this (|value| >= 10^4096, e.g. "1e4096").
  // apimachinery has no explicit bound, but its exact arithmetic materialises 10^exponent, so such
  // values are not usable there either; the bound keeps every operation here proportional to a few
  // thousand digits.
  static constexpr int kMaxIntegerDigits = 4096;

  // Zero, kDecimalSI, canonical text "0".
  Quantity() : small_(0) {}
  Quantity(const Quantity& other);
  Quantity(Quantity&& other) noexcept;
  Quantity& operator=(const Quantity& other);
  Quantity& operator=(Quantity&& other) noexcept;
  ~Quantity();

  // Parses `text` with exactly the grammar of apimachinery's ParseQuantity:
  //   [+-] digits [. digits] suffix, with suffix one of Ki Mi Gi Ti Pi Ei, n u m "" k M G T P E,
  //   or e/E followed by a signed integer exponent.
  // Digits may be absent on either side of the point ("1.", ".5", even "." and "Ki", which, as in
  // apimachinery, mean zero). No whitespace is allowed anywhere (apimachinery's UnmarshalJSON trims
  // it before parsing; a JSON decoder should do the same). The value is rounded away from
  // zero to a multiple of 10^-9 ("0.1n" -> 1n), and a kBinarySI value beyond 2^63-1 in magnitude is
  // capped to it ("8Ei" -> 9223372036854775807), both as apimachinery does.
  // Errors (kInvalidArgument), with apimachinery's messages:
  //   "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
  //     for text outside the grammar ("", " 1", "1.5.5", "1Qi", "1KI");
  //   "unable to parse quantity's suffix" for an unknown suffix ("1K", "1mi", "1i", "1e", "1e+");
  //   "unable to parse numeric part of quantity" for a number without digits that apimachinery
  //     cannot parse ("e-10", "Pi").
  // DRAForge-specific errors: "quantity's exponent is out of range" when the e/E exponent does not
  // fit an int32 (apimachinery silently truncates it), and "quantity is too large" when the value
  // has more than kMaxIntegerDigits integer digits.
  static absl::StatusOr<Quantity> Parse(std::string_view text);

  // `value` in `format` (apimachinery's NewQuantity).
  static Quantity FromInt64(int64_t value, Format format);
  // `milli` / 1000 in `format` (apimachinery's NewMilliQuantity).
  static Quantity FromMilli(int64_t milli, Format format);

  // The text Parse was given if it differs from CanonicalForm(), else CanonicalForm(). This is
  // what the encoder writes, so that an object comes back as it was written.
  std::string String() const;
  // apimachinery's Quantity.String() / MarshalJSON: the text Parse was given when apimachinery's
  // ParseQuantity keeps it (its int64 fast path, with a scale that is a multiple of 3 and digits
  // that neither start with "0" nor end in "000"; for binary suffixes a value that is not a
  // multiple of 8), else CanonicalForm(). "+1" -> "+1", "1.500" -> "1.500", "1E3" -> "1E3",
  // "07Mi" -> "07Mi"; "1.5" -> "1500m", "1.000" -> "1", "1024Mi" -> "1Gi".
  std::string Canonical() const;
  // apimachinery's canonical spelling (CanonicalizeBytes, which ignores any kept text):
  // the largest suffix (or exponent, a multiple of 3) that needs no fractional digits.
  //   "1.5Gi" -> "1536Mi", "1000m" -> "1", "0.1" -> "100m", "1.5e3" -> "1500", "12e6" -> "12e6".
  // kBinarySI values below 1024 in magnitude or with a fractional part are spelled as kDecimalSI.
  // A kDecimalSI exponent beyond 18 has no suffix and is spelled e<N> ("1000E" -> "1e21"), as in
  // current apimachinery (older releases dropped it and wrote "1"). Difference from apimachinery,
  // reachable only through arithmetic: a kBinarySI value beyond Ei keeps the Ei suffix ("1024Ei"),
  // where apimachinery drops the suffix and so the magnitude.
  std::string CanonicalForm() const;
  // True when String() differs from Canonical(): Parse's text is remembered for round trips only
  // (apimachinery re-formats it).
  bool HasOriginalText() const;
  Format format() const { return format_; }

  // -1, 0 or 1.
  int Sign() const;
  bool IsZero() const { return Sign() == 0; }
  // True when the value has no fractional part.
  bool IsInteger() const;

  // Compares values: -1, 0 or 1. The format and the remembered text are not compared.
  int Compare(const Quantity& other) const;
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.Compare(b) == 0; }
  friend std::weak_ordering operator<=>(const Quantity& a, const Quantity& b) {
    const int c = a.Compare(b);
    return c < 0 ? std::weak_ordering::less
                 : (c > 0 ? std::weak_ordering::greater : std::weak_ordering::equivalent);
  }

  // Exact sum / difference. The result has this quantity's format, or `other`'s when this quantity
  // is zero (apimachinery's Add/Sub).
  Quantity Add(const Quantity& other) const;
  Quantity Sub(const Quantity& other) const;
  // Exact negation; keeps the format.
  Quantity Neg() const;
  // Exact product; keeps the format.
  Quantity Mul(int64_t factor) const;
  // floor(this / divisor) as an integral kDecimalSI quantity; nullopt when `divisor` is zero.
  std::optional<Quantity> FloorDiv(const Quantity& divisor) const;
  // this - divisor * FloorDiv(divisor): zero or of the divisor's sign, in this quantity's format;
  // nullopt when `divisor` is zero.
  std::optional<Quantity> Mod(const Quantity& divisor) const;

  // DRA consumable capacity rounding (k8s.io/dynamic-resource-allocation roundUpRange): `min` when
  // value < min; otherwise the smallest min + k*step >= value (k >= 0), exactly, in `step`'s
  // format. A non-positive `step` admits no such k; then `value` is returned unchanged.
  static Quantity RoundUpToStep(const Quantity& value, const Quantity& min, const Quantity& step);

  // The value rounded away from zero to an integer (apimachinery's Value()). apimachinery's result
  // is undefined past int64; here it saturates at INT64_MIN / INT64_MAX. (apimachinery's inf.Dec
  // path also mis-rounds some negative values, e.g. "-493.5..." from "-.48199...Ki" gives -492;
  // this follows its documented away-from-zero rule for every value.)
  int64_t Value() const;
  // The value times 1000, rounded away from zero (apimachinery's MilliValue()); saturates likewise.
  int64_t MilliValue() const;
  // The value when it is an integer that fits an int64. (apimachinery's AsInt64 also fails for some
  // such values, depending on how the text was written; this one depends only on the value.)
  std::optional<int64_t> AsInt64() const;
  // apimachinery's AsApproximateFloat64, bit for bit: float64(mantissa) * math.Pow10(exponent) on
  // the representation apimachinery would hold for String(), so a parsed quantity gets exactly the
  // double Kubernetes (and its CEL asApproximateFloat()) computes, one-ulp errors included
  // ("952378Gi" -> 1022608090857472.1), as well as +-inf past the double range and NaN for "0e400".
  // An arithmetic result is treated as its canonical text.
  double AsApproximateFloat64() const;

  // Hashes the value, consistently with operator==.
  template <typename H>
  friend H AbslHashValue(H h, const Quantity& q) {
    auto [small, digits, exponent] = q.HashKey();
    return H::combine(std::move(h), small, digits, exponent);
  }

 private:
  friend struct quantity_internal::Access;
  struct Rep;
  using Dec = quantity_internal::Dec;

  // A Quantity with a mantissa that fits an int64 (excluding INT64_MIN) and no remembered text.
  Quantity(int64_t mantissa, int32_t exponent, Format format)
      : small_(mantissa), exp_(exponent), format_(format) {}

  static Quantity FromDec(Dec dec, Format format);
  Dec ToDec() const;
  bool IsBig() const;
  // The mantissa when !IsBig().
  int64_t SmallMantissa() const;
  std::tuple<int64_t, std::string_view, int32_t> HashKey() const;
  void Release();

  // The value is mantissa * 10^exp_, where the mantissa is small_ (inline) or held by rep_ (heap_).
  // The mantissa is normalised (no trailing decimal zero; zero has exp_ 0), so every value has one
  // representation, and it fits the inline form whenever it can.
  union {
    int64_t small_;
    Rep* rep_;
  };
  int32_t exp_ = 0;
  Format format_ = Format::kDecimalSI;
  bool heap_ = false;
};

// "DecimalExponent", "BinarySI" or "DecimalSI", as apimachinery names the formats.
std::string_view FormatName(Quantity::Format format);

}  // namespace draforge::api

#endif  // DRAFORGE_API_QUANTITY_H_
