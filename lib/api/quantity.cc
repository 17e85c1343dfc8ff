#include "api/quantity.h"
#include "api/quantity_go_representation.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace draforge::api {

// The heap part of a Quantity: a mantissa too wide for int64, and/or the text Parse was given.
// Immutable once shared (refs > 1).
struct Quantity::Rep {
  std::atomic<int32_t> refs{1};
  bool big = false;       // the mantissa is `digits` (with `negative`), not `small`
  bool negative = false;  // sign of a big mantissa
  int64_t small = 0;      // the mantissa when !big
  std::string digits;     // |mantissa| when big: decimal, most significant first
  std::string text;       // the parsed text; empty when it equals CanonicalForm()
  bool kept = false;      // apimachinery's ParseQuantity keeps `text` too (as Quantity.s)
};

namespace quantity_internal {

// Working form for the general (wide) arithmetic: sign, magnitude digits and a decimal exponent.
// `mag` is most significant digit first; "" is zero. Not necessarily normalised.
struct Dec {
  bool negative = false;
  std::string mag;
  int64_t exp = 0;
};

}  // namespace quantity_internal

namespace {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 Uint128;

using Format = Quantity::Format;

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric = "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";
constexpr std::string_view kErrExponentRange = "quantity's exponent is out of range";
constexpr std::string_view kErrTooLarge = "quantity is too large";

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr std::string_view kInt64MaxDigits = "9223372036854775807";

// Binary suffixes by the number of factors of 1024, decimal ones by (exponent + 9) / 3.
constexpr std::string_view kBinarySuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
constexpr std::string_view kDecimalSuffixes[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};

absl::Status Invalid(std::string_view message) { return absl::InvalidArgumentError(AV(message)); }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

constexpr auto kPow10 = [] {
  std::array<Uint128, 39> table{};
  Uint128 p = 1;
  for (auto& entry : table) {
    entry = p;
    p *= 10;
  }
  return table;
}();

// 10^n for 0 <= n <= 38.
Uint128 Pow10(int n) { return kPow10[static_cast<size_t>(n)]; }

std::string U128ToString(Uint128 v) {
  if (v <= std::numeric_limits<uint64_t>::max()) return absl::StrCat(static_cast<uint64_t>(v));
  char buf[40];
  int i = sizeof(buf);
  while (v != 0) {
    buf[--i] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  return std::string(buf + i, sizeof(buf) - i);
}

// Parses up to 38 decimal digits ("" is zero).
Uint128 DigitsToU128(std::string_view digits) {
  Uint128 v = 0;
  for (char c : digits) v = v * 10 + static_cast<unsigned>(c - '0');
  return v;
}

// --- Magnitudes: decimal digit strings, most significant first, without leading zeros ("" = 0).

void StripLeadingZeros(std::string& s) {
  const size_t i = s.find_first_not_of('0');
  if (i == std::string::npos) {
    s.clear();
  } else if (i > 0) {
    s.erase(0, i);
  }
}

int CompareMag(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string AddMag(std::string_view a, std::string_view b) {
  std::string out(std::max(a.size(), b.size()) + 1, '0');
  int carry = 0;
  size_t ia = a.size(), ib = b.size(), io = out.size();
  while (io > 0) {
    int sum = carry;
    if (ia > 0) sum += a[--ia] - '0';
    if (ib > 0) sum += b[--ib] - '0';
    out[--io] = static_cast<char>('0' + sum % 10);
    carry = sum / 10;
  }
  StripLeadingZeros(out);
  return out;
}

// a - b for a >= b.
std::string SubMag(std::string_view a, std::string_view b) {
  std::string out(a);
  int borrow = 0;
  size_t ib = b.size();
  for (size_t io = out.size(); io > 0;) {
    --io;
    int d = out[io] - '0' - borrow;
    if (ib > 0) d -= b[--ib] - '0';
    borrow = d < 0 ? 1 : 0;
    out[io] = static_cast<char>('0' + d + 10 * borrow);
    if (ib == 0 && borrow == 0) break;
  }
  StripLeadingZeros(out);
  return out;
}

// a *= factor.
void MulMagSmall(std::string& a, uint64_t factor) {
  if (a.empty()) return;
  if (factor == 0) {
    a.clear();
    return;
  }
  Uint128 carry = 0;
  for (size_t i = a.size(); i > 0;) {
    --i;
    const Uint128 cur = static_cast<Uint128>(static_cast<unsigned>(a[i] - '0')) * factor + carry;
    a[i] = static_cast<char>('0' + static_cast<int>(cur % 10));
    carry = cur / 10;
  }
  if (carry != 0) a.insert(0, U128ToString(carry));
}

// a /= divisor; returns the remainder.
uint32_t DivMagSmall(std::string& a, uint32_t divisor) {
  uint64_t rem = 0;
  for (char& c : a) {
    const uint64_t cur = rem * 10 + static_cast<unsigned>(c - '0');
    c = static_cast<char>('0' + cur / divisor);
    rem = cur % divisor;
  }
  StripLeadingZeros(a);
  return static_cast<uint32_t>(rem);
}

// a mod 1024: since 1024 divides 10^10, the last ten digits decide.
uint32_t Mod1024(std::string_view a) {
  const std::string_view tail = a.size() > 10 ? a.substr(a.size() - 10) : a;
  return static_cast<uint32_t>(DigitsToU128(tail) % 1024);
}

// Schoolbook long division of magnitudes; `b` is non-zero.
void DivModMag(std::string_view a, std::string_view b, std::string* quotient, std::string* rem) {
  if (a.size() <= 38 && b.size() <= 38) {
    const Uint128 x = DigitsToU128(a), y = DigitsToU128(b);
    *quotient = x / y == 0 ? "" : U128ToString(x / y);
    *rem = x % y == 0 ? "" : U128ToString(x % y);
    return;
  }
  quotient->clear();
  rem->clear();
  for (char c : a) {
    if (!rem->empty() || c != '0') rem->push_back(c);
    char digit = '0';
    while (CompareMag(*rem, b) >= 0) {
      *rem = SubMag(*rem, b);
      ++digit;
    }
    if (!quotient->empty() || digit != '0') quotient->push_back(digit);
  }
}

// --- The Go scanner (parseQuantityString), reproduced so that the same inputs fail the same way.

struct Scanned {
  bool positive = true;
  std::string_view num;     // integer digits without leading zeros; "0" when there are none
  std::string_view denom;   // fraction digits
  std::string_view suffix;  // everything after the number
  bool has_digits = false;  // whether the number part (Go's `value`) contains a digit
};

bool Scan(std::string_view str, Scanned& out) {
  const size_t end = str.size();
  size_t pos = 0;
  if (pos < end) {
    if (str[0] == '-') {
      out.positive = false;
      ++pos;
    } else if (str[0] == '+') {
      ++pos;
    }
  }
  const size_t digits_start = pos;
  // Leading zeros; a string of only zeros (or only a sign) is zero.
  while (true) {
    if (pos >= end) {
      out.num = "0";
      out.has_digits = true;  // Go's value is "0" here, even for "-" or "+".
      return true;
    }
    if (str[pos] != '0') break;
    ++pos;
  }
  // The integer part.
  size_t i = pos;
  while (i < end && IsDigit(str[i])) ++i;
  out.num = str.substr(pos, i - pos);
  if (i >= end) {
    out.has_digits = true;
    return true;
  }
  if (out.num.empty()) out.num = "0";
  pos = i;
  // The fraction.
  if (pos < end && str[pos] == '.') {
    ++pos;
    i = pos;
    while (i < end && IsDigit(str[i])) ++i;
    out.denom = str.substr(pos, i - pos);
    pos = i;
  }
  for (size_t j = digits_start; j < pos; ++j) {
    if (IsDigit(str[j])) {
      out.has_digits = true;
      break;
    }
  }
  if (pos >= end) return true;
  // The suffix: letters, then an optional sign, then digits, and nothing else.
  const size_t suffix_start = pos;
  i = pos;
  while (i < end && std::string_view("eEinumkKMGTP").find(str[i]) != std::string_view::npos) ++i;
  if (i < end && (str[i] == '-' || str[i] == '+')) ++i;
  while (i < end && IsDigit(str[i])) ++i;
  if (i < end) return false;
  out.suffix = str.substr(suffix_start);
  return true;
}

// strconv.ParseInt(s, 10, 64).
bool ParseGoInt64(std::string_view s, int64_t& out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  uint64_t magnitude = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    if (magnitude > (std::numeric_limits<uint64_t>::max() - 9) / 10) return false;
    magnitude = magnitude * 10 + static_cast<unsigned>(c - '0');
  }
  const uint64_t limit = negative ? uint64_t{1} << 63 : static_cast<uint64_t>(kInt64Max);
  if (magnitude > limit) return false;
  out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

struct Suffix {
  int base = 10;
  int64_t exponent = 0;
  Format format = Format::kDecimalSI;
};

// quantitySuffixer.interpret.
bool InterpretSuffix(std::string_view s, Suffix& out) {
  static constexpr struct {
    std::string_view text;
    int base;
    int exponent;
  } kTable[] = {
      {"", 10, 0},   {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"k", 10, 3},
      {"M", 10, 6},  {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18},
      {"Ki", 2, 10}, {"Mi", 2, 20}, {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
  };
  for (const auto& entry : kTable) {
    if (entry.text == s) {
      out.base = entry.base;
      out.exponent = entry.exponent;
      out.format = entry.base == 2 ? Format::kBinarySI : Format::kDecimalSI;
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    if (!ParseGoInt64(s.substr(1), out.exponent)) return false;
    out.base = 10;
    out.format = Format::kDecimalExponent;
    return true;
  }
  return false;
}

}  // namespace

// --- Dec helpers that need no access to Quantity internals.

namespace {

using quantity_internal::Dec;

// Strips leading zeros and moves trailing zeros into the exponent; zero gets exponent 0.
void Normalize(Dec& d) {
  StripLeadingZeros(d.mag);
  if (d.mag.empty()) {
    d.negative = false;
    d.exp = 0;
    return;
  }
  const size_t last = d.mag.find_last_not_of('0');
  d.exp += static_cast<int64_t>(d.mag.size() - 1 - last);
  d.mag.resize(last + 1);
}

// Compares normalised values.
int CompareDec(const Dec& a, const Dec& b) {
  const int sa = a.mag.empty() ? 0 : (a.negative ? -1 : 1);
  const int sb = b.mag.empty() ? 0 : (b.negative ? -1 : 1);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  int magnitude = 0;
  const int64_t pa = static_cast<int64_t>(a.mag.size()) + a.exp;
  const int64_t pb = static_cast<int64_t>(b.mag.size()) + b.exp;
  if (pa != pb) {
    magnitude = pa < pb ? -1 : 1;
  } else {
    // Same leading digit position: compare digit by digit, a missing digit being 0.
    const size_t n = std::max(a.mag.size(), b.mag.size());
    for (size_t i = 0; i < n && magnitude == 0; ++i) {
      const char da = i < a.mag.size() ? a.mag[i] : '0';
      const char db = i < b.mag.size() ? b.mag[i] : '0';
      if (da != db) magnitude = da < db ? -1 : 1;
    }
  }
  return sa > 0 ? magnitude : -magnitude;
}

// Rewrites both to the smaller exponent (appending zeros to the mantissa of the other).
void Align(Dec& a, Dec& b) {
  if (a.mag.empty()) a.exp = b.exp;
  if (b.mag.empty()) b.exp = a.exp;
  if (a.exp > b.exp) {
    a.mag.append(static_cast<size_t>(a.exp - b.exp), '0');
    a.exp = b.exp;
  } else if (b.exp > a.exp) {
    b.mag.append(static_cast<size_t>(b.exp - a.exp), '0');
    b.exp = a.exp;
  }
}

Dec AddDec(Dec a, Dec b) {
  Align(a, b);
  Dec out;
  out.exp = a.exp;
  if (a.negative == b.negative) {
    out.negative = a.negative;
    out.mag = AddMag(a.mag, b.mag);
  } else if (CompareMag(a.mag, b.mag) >= 0) {
    out.negative = a.negative;
    out.mag = SubMag(a.mag, b.mag);
  } else {
    out.negative = b.negative;
    out.mag = SubMag(b.mag, a.mag);
  }
  Normalize(out);
  return out;
}

// Floor division of values: a = b * q + r with q an integer and r zero or of b's sign. b != 0.
void DivModDec(Dec a, Dec b, Dec& q, Dec& r) {
  Align(a, b);
  std::string quotient, rem;
  DivModMag(a.mag, b.mag, &quotient, &rem);
  q = Dec{a.negative != b.negative, std::move(quotient), 0};
  r = Dec{b.negative, std::move(rem), a.exp};
  if (a.negative != b.negative && !r.mag.empty()) {
    // Truncation went toward zero; floor goes one further and the remainder flips to b's side.
    q.mag = AddMag(q.mag, "1");
    r.mag = SubMag(b.mag, r.mag);
  }
  Normalize(q);
  Normalize(r);
}

}  // namespace

// --- Representation.

Quantity::Quantity(const Quantity& other)
    : small_(0), exp_(other.exp_), format_(other.format_), heap_(other.heap_) {
  if (heap_) {
    rep_ = other.rep_;
    rep_->refs.fetch_add(1, std::memory_order_relaxed);
  } else {
    small_ = other.small_;
  }
}

Quantity::Quantity(Quantity&& other) noexcept
    : small_(0), exp_(other.exp_), format_(other.format_), heap_(other.heap_) {
  if (heap_) {
    rep_ = other.rep_;
  } else {
    small_ = other.small_;
  }
  other.heap_ = false;
  other.small_ = 0;
  other.exp_ = 0;
}

Quantity& Quantity::operator=(const Quantity& other) {
  if (this != &other) {
    Quantity copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Quantity& Quantity::operator=(Quantity&& other) noexcept {
  if (this != &other) {
    Release();
    exp_ = other.exp_;
    format_ = other.format_;
    heap_ = other.heap_;
    if (heap_) {
      rep_ = other.rep_;
    } else {
      small_ = other.small_;
    }
    other.heap_ = false;
    other.small_ = 0;
    other.exp_ = 0;
  }
  return *this;
}

Quantity::~Quantity() { Release(); }

void Quantity::Release() {
  if (heap_ && rep_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete rep_;
  heap_ = false;
  small_ = 0;
}

bool Quantity::IsBig() const { return heap_ && rep_->big; }

int64_t Quantity::SmallMantissa() const { return heap_ ? rep_->small : small_; }

quantity_internal::Dec Quantity::ToDec() const {
  Dec d;
  d.exp = exp_;
  if (IsBig()) {
    d.negative = rep_->negative;
    d.mag = rep_->digits;
    return d;
  }
  const int64_t m = SmallMantissa();
  if (m != 0) {
    d.negative = m < 0;
    // The inline form excludes INT64_MIN, so the negation cannot overflow.
    d.mag = absl::StrCat(m < 0 ? -m : m);
  }
  return d;
}

Quantity Quantity::FromDec(Dec d, Format format) {
  Normalize(d);
  // Exponents stay far inside int32: Parse bounds them, and arithmetic moves them by at most the
  // number of digits it adds.
  const auto exponent = static_cast<int32_t>(d.exp);
  if (d.mag.empty()) return Quantity(0, 0, format);
  if (d.mag.size() < kInt64MaxDigits.size() ||
      (d.mag.size() == kInt64MaxDigits.size() && d.mag <= kInt64MaxDigits)) {
    const auto m = static_cast<int64_t>(DigitsToU128(d.mag));
    return Quantity(d.negative ? -m : m, exponent, format);
  }
  Quantity q(0, exponent, format);
  q.rep_ = new Rep;
  q.heap_ = true;
  q.rep_->big = true;
  q.rep_->negative = d.negative;
  q.rep_->digits = std::move(d.mag);
  return q;
}

namespace {

// A normalised Dec from an Int128 mantissa.
Dec DecFromInt128(Int128 v, int64_t exp) {
  Dec d;
  if (v != 0) {
    d.negative = v < 0;
    d.mag = U128ToString(v < 0 ? static_cast<Uint128>(0) - static_cast<Uint128>(v) : static_cast<Uint128>(v));
    d.exp = exp;
  }
  return d;
}

}  // namespace

// Private access for the helpers below that work on Int128, which the header cannot name.
struct quantity_internal::Access {
  // mantissa * 10^exp, normalised; the fast path of every arithmetic operation.
  static Quantity FromInt128(Int128 mantissa, int64_t exp, Format format) {
    if (mantissa == 0) return Quantity(0, 0, format);
    while ((mantissa < -kInt64Max || mantissa > kInt64Max) && mantissa % 10 == 0) {
      mantissa /= 10;
      ++exp;
    }
    if (mantissa < -kInt64Max || mantissa > kInt64Max) {
      return Quantity::FromDec(DecFromInt128(mantissa, exp), format);
    }
    auto m = static_cast<int64_t>(mantissa);
    while (m % 10 == 0) {
      m /= 10;
      ++exp;
    }
    return Quantity(m, static_cast<int32_t>(exp), format);
  }

  static absl::StatusOr<Quantity> ParseWide(const Scanned& scanned, const Suffix& suffix);

  static Dec ToDec(const Quantity& q) { return q.ToDec(); }
};

using quantity_internal::Access;

std::tuple<int64_t, std::string_view, int32_t> Quantity::HashKey() const {
  if (IsBig()) return {rep_->negative ? -1 : 1, rep_->digits, exp_};
  return {SmallMantissa(), std::string_view(), exp_};
}

// --- Construction.

Quantity Quantity::FromInt64(int64_t value, Format format) {
  return Access::FromInt128(value, 0, format);
}

Quantity Quantity::FromMilli(int64_t milli, Format format) {
  return Access::FromInt128(milli, -3, format);
}

namespace {

// Whether apimachinery's ParseQuantity keeps the input text (its Quantity.s, which String() and
// MarshalJSON then write verbatim): only on its int64 fast path, and only when the text "looks
// canonical" by its test ("if the number is in canonical form, reuse the string"): for decimal and
// exponent suffixes a scale that is a multiple of 3 and digits that neither end in "000" nor start
// with "0"; for binary suffixes a value that is not a multiple of 8. So "+1", "010", "1.500", "1E3"
// and "07Mi" are kept, while "1.5", "1.000", "1000k" and "1024Mi" are re-formatted.
bool GoKeepsText(const Scanned& scanned, const Suffix& suffix) {
  const auto num_len = static_cast<int64_t>(scanned.num.size());
  const auto denom_len = static_cast<int64_t>(scanned.denom.size());
  if (suffix.base == 2) {
    // BinarySI: the fast path needs no fraction and enough precision for the shifted value.
    if (denom_len != 0) return false;
    const auto shift_digits = static_cast<int64_t>(static_cast<float>(suffix.exponent) * 3 / 10);
    if (15 - num_len - shift_digits - 1 < 0) return false;
    int64_t value = 0;
    if (!absl::SimpleAtoi(AV(scanned.num), &value)) return false;
    // int64Multiply(value, 1 << exponent) must not overflow.
    if (value != 0 && value > (kInt64Max >> suffix.exponent)) return false;
    return suffix.exponent % 10 == 0 && (value & 0x07) != 0;
  }
  if (18 - num_len - denom_len < 0) return false;
  const int64_t scale = suffix.exponent - denom_len;
  if (scale < -9) return false;
  const std::string shifted = absl::StrCat(AV(scanned.num), AV(scanned.denom));
  return scale % 3 == 0 && !absl::EndsWith(shifted, "000") && shifted[0] != '0';
}

}  // namespace

absl::StatusOr<Quantity> Quantity::Parse(std::string_view text) {
  if (text.empty()) return Invalid(kErrFormatWrong);
  Scanned scanned;
  if (!Scan(text, scanned)) return Invalid(kErrFormatWrong);
  Suffix suffix;
  if (!InterpretSuffix(scanned.suffix, suffix)) return Invalid(kErrSuffix);
  // apimachinery keeps the exponent in an int32 and silently truncates a wider one.
  if (suffix.exponent < std::numeric_limits<int32_t>::min() ||
      suffix.exponent > std::numeric_limits<int32_t>::max()) {
    return Invalid(kErrExponentRange);
  }
  // Without digits apimachinery's fast path yields zero, but the inf.Dec fallback (taken for a
  // decimal exponent below -9, and for Pi and Ei) cannot parse the number.
  if (!scanned.has_digits && ((suffix.base == 10 && suffix.exponent < -9) ||
                              (suffix.base == 2 && suffix.exponent >= 50))) {
    return Invalid(kErrNumeric);
  }

  const int64_t scale =
      (suffix.base == 10 ? suffix.exponent : 0) - static_cast<int64_t>(scanned.denom.size());
  Format format = suffix.format;

  // Fast path (close to apimachinery's int64 one): up to 18 digits that need no rounding, no bound
  // check and, for a binary suffix, no cap, in Uint128 arithmetic.
  bool fast = false;
  Uint128 magnitude = 0;
  if (scanned.num.size() + scanned.denom.size() <= 18 && scale >= -9 && scale <= 18) {
    magnitude = DigitsToU128(scanned.num) * Pow10(static_cast<int>(scanned.denom.size())) +
                DigitsToU128(scanned.denom);
    fast = true;
    if (suffix.base == 2) {
      magnitude <<= suffix.exponent;  // below 10^18 * 2^60
      fast = magnitude <= static_cast<Uint128>(kInt64Max);
      // A binary value below 1 is spelled as decimal.
      if (magnitude != 0 && scale < 0 && magnitude < Pow10(static_cast<int>(-scale))) {
        format = Format::kDecimalSI;
      }
    }
  }
  Quantity q;
  if (fast) {
    const auto signed_magnitude = static_cast<Int128>(magnitude);
    q = Access::FromInt128(scanned.positive ? signed_magnitude : -signed_magnitude, scale, format);
  } else {
    ASSIGN_OR_RETURN(q, Access::ParseWide(scanned, suffix));
  }
  if (q.CanonicalForm() != text) {
    if (!q.heap_) {
      const int64_t m = q.small_;
      q.rep_ = new Rep;
      q.heap_ = true;
      q.rep_->small = m;
    }
    q.rep_->text.assign(text.data(), text.size());
    q.rep_->kept = GoKeepsText(scanned, suffix);
  }
  return q;
}

// The general path: any number of digits, rounding to nano, the bound and the binary cap.
absl::StatusOr<Quantity> Access::ParseWide(const Scanned& scanned, const Suffix& suffix) {
  Dec d;
  d.negative = !scanned.positive;
  d.mag.reserve(scanned.num.size() + scanned.denom.size());
  d.mag.append(scanned.num);
  d.mag.append(scanned.denom);
  StripLeadingZeros(d.mag);
  d.exp = (suffix.base == 10 ? suffix.exponent : 0) - static_cast<int64_t>(scanned.denom.size());
  if (suffix.base == 2) MulMagSmall(d.mag, uint64_t{1} << suffix.exponent);
  // Round away from zero to a multiple of 10^-9 (inf.RoundUp at nano scale).
  if (!d.mag.empty() && d.exp < -9) {
    const int64_t drop = -9 - d.exp;
    if (drop >= static_cast<int64_t>(d.mag.size())) {
      d.mag = "1";
    } else {
      const size_t keep = d.mag.size() - static_cast<size_t>(drop);
      const bool inexact = d.mag.find_first_not_of('0', keep) != std::string::npos;
      d.mag.resize(keep);
      StripLeadingZeros(d.mag);
      if (inexact) d.mag = AddMag(d.mag, "1");
    }
    d.exp = -9;
  }
  Normalize(d);
  if (!d.mag.empty() && static_cast<int64_t>(d.mag.size()) + d.exp > Quantity::kMaxIntegerDigits) {
    return Invalid(kErrTooLarge);
  }

  Format format = suffix.format;
  if (format == Format::kBinarySI && !d.mag.empty()) {
    // apimachinery caps binary quantities at 2^63-1 in magnitude ...
    Dec max_allowed{d.negative, std::string(kInt64MaxDigits), 0};
    if (CompareDec(d, max_allowed) == (d.negative ? -1 : 1)) d = std::move(max_allowed);
    // ... and spells a non-zero one below 1 in magnitude as decimal.
    if (static_cast<int64_t>(d.mag.size()) + d.exp <= 0) format = Format::kDecimalSI;
  }

  return Quantity::FromDec(std::move(d), format);
}

// --- Text.

std::string Quantity::String() const { return heap_ && !rep_->text.empty() ? rep_->text : CanonicalForm(); }

bool Quantity::HasOriginalText() const { return heap_ && !rep_->text.empty() && !rep_->kept; }

std::string Quantity::Canonical() const {
  return heap_ && !rep_->text.empty() && rep_->kept ? rep_->text : CanonicalForm();
}

std::string Quantity::CanonicalForm() const {
  const int sign = Sign();
  if (sign == 0) return "0";
  Format format = format_;
  if (format != Format::kBinarySI && format != Format::kDecimalSI) {
    format = Format::kDecimalExponent;
  }
  if (!IsBig() && exp_ <= 18) {
    // Fast path: the mantissa times 10^exp_ (or the few zeros the spelling needs) fits an Uint128.
    const int64_t m = SmallMantissa();
    const Uint128 magnitude = static_cast<uint64_t>(m < 0 ? -m : m);
    const std::string_view minus = sign < 0 ? "-" : "";
    if (format == Format::kBinarySI && exp_ >= 0) {
      Uint128 v = magnitude * Pow10(exp_);
      if (v >= 1024) {
        size_t times = 0;
        while (times + 1 < std::size(kBinarySuffixes) && v % 1024 == 0) {
          v /= 1024;
          ++times;
        }
        return absl::StrCat(AV(minus), U128ToString(v), AV(kBinarySuffixes[times]));
      }
    }
    if (format == Format::kBinarySI) format = Format::kDecimalSI;
    const int32_t r = ((exp_ % 3) + 3) % 3;
    const int32_t e = exp_ - r;
    const std::string digits = U128ToString(magnitude * Pow10(r));
    if (format == Format::kDecimalSI && e >= -9) {
      return absl::StrCat(AV(minus), digits, AV(kDecimalSuffixes[(e + 9) / 3]));
    }
    if (e == 0) return absl::StrCat(AV(minus), digits);
    return absl::StrCat(AV(minus), digits, "e", e);
  }
  Dec d = ToDec();
  if (format == Format::kBinarySI) {
    // Below 1024 in magnitude, or with a fraction, a binary quantity is spelled as decimal.
    const int64_t position = static_cast<int64_t>(d.mag.size()) + d.exp;
    if (d.exp < 0 || position < 4 ||
        (position == 4 && DigitsToU128(d.mag) * static_cast<Uint128>(Pow10(static_cast<int>(d.exp))) < 1024)) {
      format = Format::kDecimalSI;
    }
  }
  std::string out = sign < 0 ? "-" : "";
  if (format == Format::kBinarySI) {
    std::string m = std::move(d.mag);
    m.append(static_cast<size_t>(d.exp), '0');
    size_t times = 0;
    // Ei is the largest binary suffix; a larger value keeps it rather than lose the magnitude.
    while (times + 1 < std::size(kBinarySuffixes) && Mod1024(m) == 0) {
      DivMagSmall(m, 1024);
      ++times;
    }
    absl::StrAppend(&out, m, AV(kBinarySuffixes[times]));
    return out;
  }
  // The exponent goes down to a multiple of three, the mantissa taking the zeros.
  int64_t e = d.exp;
  const int64_t r = ((e % 3) + 3) % 3;
  d.mag.append(static_cast<size_t>(r), '0');
  e -= r;
  out += d.mag;
  if (format == Format::kDecimalSI && e >= -9 && e <= 18) {
    out += kDecimalSuffixes[(e + 9) / 3];
  } else if (e != 0) {
    // Also the fallback for a decimal SI exponent past E (10^18), which has no suffix.
    absl::StrAppend(&out, "e", e);
  }
  return out;
}

std::string_view FormatName(Quantity::Format format) {
  switch (format) {
    case Quantity::Format::kDecimalExponent:
      return "DecimalExponent";
    case Quantity::Format::kBinarySI:
      return "BinarySI";
    case Quantity::Format::kDecimalSI:
      return "DecimalSI";
  }
  return "DecimalExponent";
}

// --- Value queries.

int Quantity::Sign() const {
  if (IsBig()) return rep_->negative ? -1 : 1;
  const int64_t m = SmallMantissa();
  return m < 0 ? -1 : (m > 0 ? 1 : 0);
}

bool Quantity::IsInteger() const { return exp_ >= 0; }

int Quantity::Compare(const Quantity& other) const {
  if (!IsBig() && !other.IsBig()) {
    const int64_t a = SmallMantissa();
    const int64_t b = other.SmallMantissa();
    const int sa = a < 0 ? -1 : (a > 0 ? 1 : 0);
    const int sb = b < 0 ? -1 : (b > 0 ? 1 : 0);
    if (sa != sb) return sa < sb ? -1 : 1;
    if (sa == 0) return 0;
    const int64_t shift = static_cast<int64_t>(exp_) - other.exp_;
    if (shift >= -19 && shift <= 19) {
      // Both mantissas are below 10^19, so the aligned values fit an Int128.
      const Int128 x = shift > 0 ? static_cast<Int128>(a) * static_cast<Int128>(Pow10(static_cast<int>(shift))) : a;
      const Int128 y = shift < 0 ? static_cast<Int128>(b) * static_cast<Int128>(Pow10(static_cast<int>(-shift))) : b;
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    // Mantissas have at most 19 digits, so an exponent ahead by more than 19 decides.
    const int magnitude = shift > 0 ? 1 : -1;
    return sa > 0 ? magnitude : -magnitude;
  }
  return CompareDec(ToDec(), other.ToDec());
}

namespace {

// ceil(|m| * 10^shift) with m's sign, saturated to int64.
int64_t ScaleSaturated(const Dec& d, int64_t shift) {
  if (d.mag.empty()) return 0;
  const int64_t e = d.exp + shift;
  const int64_t saturated = d.negative ? kInt64Min : kInt64Max;
  Uint128 magnitude = 0;
  if (e >= 0) {
    if (static_cast<int64_t>(d.mag.size()) + e > 19) return saturated;
    magnitude = DigitsToU128(d.mag) * Pow10(static_cast<int>(e));
  } else {
    // A normalised mantissa ends in a non-zero digit, so a negative exponent means a fraction.
    const int64_t integer_digits = static_cast<int64_t>(d.mag.size()) + e;
    if (integer_digits > 19) return saturated;
    if (integer_digits > 0) {
      magnitude = DigitsToU128(std::string_view(d.mag).substr(0, static_cast<size_t>(integer_digits)));
    }
    magnitude += 1;
  }
  const Uint128 limit = d.negative ? Uint128{1} << 63 : static_cast<Uint128>(kInt64Max);
  if (magnitude > limit) return saturated;
  return d.negative ? static_cast<int64_t>(0 - static_cast<uint64_t>(magnitude))
                    : static_cast<int64_t>(magnitude);
}

// The same for an int64 mantissa m * 10^e.
int64_t ScaleSmallSaturated(int64_t m, int64_t e) {
  if (m == 0 || e == 0) return m;
  if (e > 0) {
    if (e > 18) return m < 0 ? kInt64Min : kInt64Max;
    const Int128 v = static_cast<Int128>(m) * static_cast<Int128>(Pow10(static_cast<int>(e)));
    if (v > kInt64Max) return kInt64Max;
    if (v < kInt64Min) return kInt64Min;
    return static_cast<int64_t>(v);
  }
  // |m| < 10^19, so past 18 fractional digits only the rounding is left.
  if (e < -18) return m < 0 ? -1 : 1;
  const auto p = static_cast<int64_t>(Pow10(static_cast<int>(-e)));
  return m / p + (m % p == 0 ? 0 : (m < 0 ? -1 : 1));
}

}  // namespace

int64_t Quantity::Value() const {
  if (!IsBig()) return ScaleSmallSaturated(SmallMantissa(), exp_);
  return ScaleSaturated(ToDec(), 0);
}

int64_t Quantity::MilliValue() const {
  if (!IsBig()) return ScaleSmallSaturated(SmallMantissa(), static_cast<int64_t>(exp_) + 3);
  return ScaleSaturated(ToDec(), 3);
}

std::optional<int64_t> Quantity::AsInt64() const {
  if (exp_ < 0) return std::nullopt;
  if (!IsBig()) {
    const int64_t m = SmallMantissa();
    if (exp_ == 0) return m;
    if (exp_ > 18) return m == 0 ? std::optional<int64_t>(0) : std::nullopt;
    const Int128 v = static_cast<Int128>(m) * static_cast<Int128>(Pow10(exp_));
    if (v < kInt64Min || v > kInt64Max) return std::nullopt;
    return static_cast<int64_t>(v);
  }
  const Dec d = ToDec();
  if (static_cast<int64_t>(d.mag.size()) + d.exp > 19) return std::nullopt;
  const Uint128 magnitude = DigitsToU128(d.mag) * Pow10(static_cast<int>(d.exp));
  const Uint128 limit = d.negative ? Uint128{1} << 63 : static_cast<Uint128>(kInt64Max);
  if (magnitude > limit) return std::nullopt;
  return d.negative ? static_cast<int64_t>(0 - static_cast<uint64_t>(magnitude))
                    : static_cast<int64_t>(magnitude);
}

namespace {

// Go's math.Pow10, whose table products decide the last bit of AsApproximateFloat64.
double GoPow10(int64_t n) {
  static constexpr double kTab[] = {1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09, 1e10,
                                    1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
                                    1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31};
  static constexpr double kPos32[] = {1e00,  1e32,  1e64,  1e96,  1e128,
                                      1e160, 1e192, 1e224, 1e256, 1e288};
  static constexpr double kNeg32[] = {1e-00,  1e-32,  1e-64,  1e-96,  1e-128, 1e-160,
                                      1e-192, 1e-224, 1e-256, 1e-288, 1e-320};
  if (n >= 0 && n <= 308) return kPos32[n / 32] * kTab[n % 32];
  if (n < 0 && n >= -323) return kNeg32[-n / 32] / kTab[-n % 32];
  return n > 0 ? HUGE_VAL : 0.0;
}

// The nearest double to a decimal integer (ties to even, as Go's big.Float.Float64).
double NearestDouble(std::string_view digits) {
  double value = 0;
  const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (result.ec == std::errc::result_out_of_range) value = HUGE_VAL;
  return value;
}

}  // namespace

QuantityGoRepresentation ParsedGoRepresentation(const Quantity& q) {
  const std::string text = q.String();
  Scanned scanned;
  Suffix suffix;
  // String() is valid quantity text: Parse accepted it, or it is the canonical form.
  if (!Scan(text, scanned) || !InterpretSuffix(scanned.suffix, suffix)) return {true, -9};
  const auto digits = static_cast<int64_t>(scanned.num.size() + scanned.denom.size());
  const auto denom_len = static_cast<int64_t>(scanned.denom.size());
  int64_t precision = -1;
  if (suffix.base == 10) {
    precision = 18 - digits;
  } else if (scanned.denom.empty()) {
    precision = 15 - static_cast<int64_t>(scanned.num.size()) - suffix.exponent * 3 / 10 - 1;
  }
  const int64_t fast_scale = (suffix.base == 10 ? suffix.exponent : 0) - denom_len;
  if (precision >= 0 && fast_scale >= -9) {
    // The fast path also needs digits * 2^exponent to fit an int64.
    Uint128 unscaled = DigitsToU128(scanned.num) * Pow10(static_cast<int>(denom_len)) +
                       DigitsToU128(scanned.denom);
    if (suffix.base == 2) unscaled <<= suffix.exponent;
    if (unscaled <= static_cast<Uint128>(kInt64Max)) return {false, fast_scale};
  }
  // inf.Dec: SetString gives the scale of the fraction, a decimal suffix adds its exponent; a
  // non-zero value is then rounded to scale 9, and a binary one beyond 2^63-1 capped at scale 0.
  if (q.IsZero()) return {true, suffix.base == 10 ? fast_scale : -denom_len};
  const Dec d = Access::ToDec(q);
  if (q.format() == Format::kBinarySI && d.exp == 0 && d.mag == kInt64MaxDigits) return {true, 0};
  return {true, -9};
}

std::optional<int64_t> UnscaledInt64(const Quantity& q, int64_t exponent) {
  if (q.IsZero()) return 0;
  Dec d = Access::ToDec(q);
  if (d.exp < exponent) return std::nullopt;
  // At most 19 digits can fit; the check also bounds the zeros appended below.
  if (static_cast<int64_t>(d.mag.size()) + d.exp - exponent > 19) return std::nullopt;
  d.mag.append(static_cast<size_t>(d.exp - exponent), '0');
  int64_t out = 0;
  if (!ParseGoInt64(absl::StrCat(d.negative ? "-" : "", d.mag), out)) return std::nullopt;
  return out;
}

double GoApproximateFloat64(const Quantity& q, int64_t exponent) {
  double base = 0;
  const Dec d = Access::ToDec(q);
  if (!d.mag.empty() && d.exp >= exponent) {
    std::string unscaled = d.mag;
    unscaled.append(static_cast<size_t>(d.exp - exponent), '0');
    base = NearestDouble(unscaled);
    if (d.negative) base = -base;
  }
  if (exponent == 0) return base;
  return base * GoPow10(exponent);
}

double Quantity::AsApproximateFloat64() const {
  // apimachinery computes float64(unscaled) * math.Pow10(exponent) on its own representation of the
  // value, which depends on the text; rebuilding that representation from String() reproduces its
  // result bit for bit for parsed quantities.
  return GoApproximateFloat64(*this, ParsedGoRepresentation(*this).exponent);
}

// --- Arithmetic.

Quantity Quantity::Add(const Quantity& other) const {
  const Format format = IsZero() ? other.format_ : format_;
  if (!IsBig() && !other.IsBig()) {
    const int64_t a = SmallMantissa();
    const int64_t b = other.SmallMantissa();
    if (b == 0) return Quantity(a, exp_, format);
    if (a == 0) return Quantity(b, other.exp_, format);
    const int64_t shift = static_cast<int64_t>(exp_) - other.exp_;
    if (shift >= -18 && shift <= 18) {
      // Each aligned term is below 10^37, so the sum fits an Int128.
      const Int128 x = shift > 0 ? static_cast<Int128>(a) * static_cast<Int128>(Pow10(static_cast<int>(shift))) : a;
      const Int128 y = shift < 0 ? static_cast<Int128>(b) * static_cast<Int128>(Pow10(static_cast<int>(-shift))) : b;
      return Access::FromInt128(x + y, std::min(exp_, other.exp_), format);
    }
  }
  return FromDec(AddDec(ToDec(), other.ToDec()), format);
}

Quantity Quantity::Neg() const {
  // The inline form excludes INT64_MIN, so negating it stays inline.
  if (!IsBig()) return Quantity(-SmallMantissa(), exp_, format_);
  Dec d = ToDec();
  d.negative = !d.negative;
  return FromDec(std::move(d), format_);
}

Quantity Quantity::Sub(const Quantity& other) const {
  // Add picks the format from the zero-ness of *this, which negating `other` does not change.
  return Add(other.Neg());
}

Quantity Quantity::Mul(int64_t factor) const {
  if (!IsBig()) {
    // |mantissa| < 2^63 and |factor| <= 2^63, so the product fits an Int128.
    return Access::FromInt128(static_cast<Int128>(SmallMantissa()) * factor, exp_, format_);
  }
  Dec d = ToDec();
  if (factor < 0) d.negative = !d.negative;
  MulMagSmall(d.mag, factor < 0 ? 0 - static_cast<uint64_t>(factor) : static_cast<uint64_t>(factor));
  return FromDec(std::move(d), format_);
}

std::optional<Quantity> Quantity::FloorDiv(const Quantity& divisor) const {
  if (divisor.IsZero()) return std::nullopt;
  Dec q, r;
  DivModDec(ToDec(), divisor.ToDec(), q, r);
  return FromDec(std::move(q), Format::kDecimalSI);
}

std::optional<Quantity> Quantity::Mod(const Quantity& divisor) const {
  if (divisor.IsZero()) return std::nullopt;
  Dec q, r;
  DivModDec(ToDec(), divisor.ToDec(), q, r);
  return FromDec(std::move(r), format_);
}

Quantity Quantity::RoundUpToStep(const Quantity& value, const Quantity& min, const Quantity& step) {
  if (value.Compare(min) < 0) return min;
  if (step.Sign() <= 0) return value;
  // min + ceil((value - min) / step) * step == value + (step - (value - min) mod step), or value
  // itself when the remainder is zero; this needs no multiplication by a possibly huge count.
  Dec q, r;
  DivModDec(AddDec(value.ToDec(), min.Neg().ToDec()), step.ToDec(), q, r);
  Dec result = value.ToDec();
  if (!r.mag.empty()) {
    r.negative = true;
    result = AddDec(AddDec(std::move(result), step.ToDec()), std::move(r));
  }
  return FromDec(std::move(result), step.format_);
}

}  // namespace draforge::api
