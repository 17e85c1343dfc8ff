// Timestamps and durations of cel-go's standard library (the DRA environment declares them: they are
// part of cel.StdLib). Semantics follow cel-go v0.29: timestamps span 0001-01-01T00:00:00Z ..
// 9999-12-31T23:59:59.999999999Z, durations are Go time.Durations (int64 nanoseconds), strings are
// RFC 3339 and Go duration syntax. Time zones: fixed offsets ("+05:30", "-01:00") and IANA zone
// names, looked up in the system time zone database as Go's time.LoadLocation does
// (internal/time_zone.h).
#include <charconv>
#include <cstdint>
#include <string>

#include "absl/numeric/int128.h"
#include "cel/functions.h"
#include "cel/internal/go_calendar.h"
#include "cel/internal/str.h"
#include "cel/internal/time_zone.h"
#include "cel/net.h"
#include "cel/internal/values.h"

namespace draforge::cel {

using internal::Cat;
using internal::Err;

namespace {

constexpr int64_t kMinSeconds = -62135596800;  // 0001-01-01T00:00:00Z
constexpr int64_t kMaxSeconds = 253402300799;  // 9999-12-31T23:59:59Z
constexpr int64_t kNanosPerSecond = 1000000000;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool Digits(std::string_view s, size_t pos, size_t n, int64_t* out) {
  if (pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

// Go's time.Parse(time.RFC3339, s).
bool ParseRfc3339(std::string_view s, int64_t* seconds, uint32_t* nanos, TimestampZone* zone = nullptr,
                  int16_t* offset_minutes = nullptr) {
  int64_t y, mo, d, h, mi, se;
  if (!Digits(s, 0, 4, &y) || s.size() < 20 || s[4] != '-' || !Digits(s, 5, 2, &mo) || s[7] != '-' ||
      !Digits(s, 8, 2, &d) || (s[10] != 'T' && s[10] != 't') || !Digits(s, 11, 2, &h) || s[13] != ':' ||
      !Digits(s, 14, 2, &mi) || s[16] != ':' || !Digits(s, 17, 2, &se)) {
    return false;
  }
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59) return false;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > kDays[mo - 1] + (mo == 2 && leap ? 1 : 0)) return false;
  size_t i = 19;
  int64_t frac = 0;
  if (i < s.size() && s[i] == '.') {
    size_t start = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    size_t n = i - start;
    if (n == 0) return false;
    for (size_t k = 0; k < 9; ++k) frac = frac * 10 + (k < n ? s[start + k] - '0' : 0);
  }
  if (i >= s.size()) return false;
  int64_t offset = 0;
  TimestampZone z = TimestampZone::kUTC;
  if (s[i] == 'Z' || s[i] == 'z') {
    ++i;
  } else if (s[i] == '+' || s[i] == '-') {
    int64_t oh, om;
    if (!Digits(s, i + 1, 2, &oh) || i + 3 >= s.size() || s[i + 3] != ':' || !Digits(s, i + 4, 2, &om)) return false;
    if (oh > 23 || om > 59) return false;
    offset = (oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
    // Go's time.Parse: the local zone's offset (UTC here) gives Local, another a fixed zone.
    z = offset == 0 ? TimestampZone::kLocal : om == 0 ? TimestampZone::kFixedHours : TimestampZone::kFixedOther;
    i += 6;
  } else {
    return false;
  }
  if (i != s.size()) return false;
  if (zone != nullptr) *zone = z;
  if (offset_minutes != nullptr) *offset_minutes = static_cast<int16_t>(offset / 60);
  *seconds = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 + mi * 60 + se - offset;
  *nanos = static_cast<uint32_t>(frac);
  return true;
}

// Go's time.ParseDuration.
bool ParseGoDuration(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  bool neg = false;
  size_t i = 0;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    ++i;
  }
  if (s.substr(i) == "0") {
    *out = 0;
    return true;
  }
  if (i == s.size()) return false;
  absl::uint128 total = 0;
  while (i < s.size()) {
    absl::uint128 whole = 0;
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      whole = whole * 10 + static_cast<unsigned>(s[i] - '0');
      if (whole > (static_cast<absl::uint128>(1) << 63)) return false;
      ++i;
    }
    bool had_whole = i > start;
    absl::uint128 frac = 0, scale = 1;
    bool had_frac = false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      size_t fs = i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (scale < static_cast<absl::uint128>(1000000000000000000ull)) {
          frac = frac * 10 + static_cast<unsigned>(s[i] - '0');
          scale *= 10;
        }
        ++i;
      }
      had_frac = i > fs;
    }
    if (!had_whole && !had_frac) return false;
    size_t us = i;
    while (i < s.size() && !(s[i] == '.' || (s[i] >= '0' && s[i] <= '9'))) ++i;
    std::string_view unit = s.substr(us, i - us);
    uint64_t mult;
    if (unit == "ns") mult = 1;
    else if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs") mult = 1000;
    else if (unit == "ms") mult = 1000000;
    else if (unit == "s") mult = 1000000000ull;
    else if (unit == "m") mult = 60000000000ull;
    else if (unit == "h") mult = 3600000000000ull;
    else return false;
    absl::uint128 v = whole * mult + (frac * mult) / scale;
    total += v;
    if (total > (static_cast<absl::uint128>(1) << 63)) return false;
  }
  if (!neg && total > static_cast<absl::uint128>(INT64_MAX)) return false;
  *out = neg ? static_cast<int64_t>(0 - static_cast<uint64_t>(total)) : static_cast<int64_t>(total);
  return true;
}

bool InRange(int64_t seconds) { return seconds >= kMinSeconds && seconds <= kMaxSeconds; }

// cel-go's addTimeDurationChecked: the whole seconds are added first and the nanoseconds carried
// after, each step in int64 ("integer overflow" when one wraps), and only the result is held to years
// 1..9999 ("timestamp overflow"). A google.protobuf.Timestamp near the int64 limits overflows at the
// first step.
Value AddDuration(EvalContext& ctx, const Value& t, int64_t d) {
  int64_t secs;
  if (__builtin_add_overflow(t.seconds(), d / kNanosPerSecond, &secs)) return Err(ctx, "integer overflow");
  int64_t nanos = static_cast<int64_t>(t.nanos()) + d % kNanosPerSecond;  // -999999999 .. 1999999998
  if (nanos >= kNanosPerSecond && __builtin_add_overflow(secs, int64_t{1}, &secs)) return Err(ctx, "integer overflow");
  if (nanos < 0 && __builtin_sub_overflow(secs, int64_t{1}, &secs)) return Err(ctx, "integer overflow");
  nanos = (nanos + kNanosPerSecond) % kNanosPerSecond;
  if (!InRange(secs)) return Err(ctx, "timestamp overflow");
  return Value::Timestamp(secs, static_cast<uint32_t>(nanos), t.zone(), t.offset_minutes());  // Go's Add keeps the zone
}

// cel-go's subtractTimeChecked: seconds subtracted, scaled to nanoseconds, then the nanosecond
// difference added, each step in int64. A difference that fits a duration only thanks to the
// nanoseconds (seconds -9223372037, nanoseconds +999999999) is still an overflow there.
bool SubtractTimes(const Value& a, const Value& b, int64_t* out) {
  int64_t secs, nanos;
  return !__builtin_sub_overflow(a.seconds(), b.seconds(), &secs) &&
         !__builtin_mul_overflow(secs, kNanosPerSecond, &nanos) &&
         !__builtin_add_overflow(nanos, static_cast<int64_t>(a.nanos()) - static_cast<int64_t>(b.nanos()), out);
}

// Go's strconv.Atoi on a 64-bit platform: the value, or its error text in *error.
bool GoAtoi(std::string_view s, int64_t* out, std::string* error) {
  const std::string_view s0 = s;
  const auto fail = [&](const char* why) {
    *error = Cat("strconv.Atoi: parsing ", GoQuoted(s0), ": ", why);
    return false;
  };
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return fail("invalid syntax");
  uint64_t n = 0;
  for (char c : s) {
    // ParseUint reports the first problem it meets: a non-digit, or the overflow.
    if (c < '0' || c > '9') return fail("invalid syntax");
    if (n >= UINT64_MAX / 10 + 1) return fail("value out of range");
    n *= 10;
    const uint64_t n1 = n + static_cast<uint64_t>(c - '0');
    if (n1 < n) return fail("value out of range");
    n = n1;
  }
  const uint64_t limit = uint64_t{1} << 63;
  if ((!neg && n >= limit) || (neg && n > limit)) return fail("value out of range");
  *out = neg ? static_cast<int64_t>(0 - n) : static_cast<int64_t>(n);
  return true;
}

// The UTC offset in seconds of timestamp `t` in time zone `tz` as cel-go's inTimeZone computes it
// (common/stdlib/standard.go): a name without ':' is an IANA zone (time.LoadLocation), anything
// else is "[+-]H:M" parsed with strconv.Atoi, minutes not range-checked. False with cel-go's error
// text in *error.
bool ZoneOffset(const Value& t, std::string_view tz, int64_t* offset, std::string* error) {
  const size_t colon = tz.find(':');
  if (colon == std::string_view::npos) {
    if (tz.empty() || tz == "UTC") {
      *offset = 0;
      return true;
    }
    return internal::ZoneOffsetAt(tz, t.seconds(), offset, error);
  }
  int64_t hr, min;
  if (!GoAtoi(tz.substr(0, colon), &hr, error) || !GoAtoi(tz.substr(colon + 1), &min, error)) return false;
  // Go's int arithmetic wraps; time.Duration(offset) * time.Minute wraps too, and Seconds()
  // goes through float64 before the int conversion.
  const uint64_t minutes = tz[0] == '-' ? static_cast<uint64_t>(hr) * 60 - static_cast<uint64_t>(min)
                                        : static_cast<uint64_t>(hr) * 60 + static_cast<uint64_t>(min);
  const int64_t nanos = static_cast<int64_t>(minutes * 60000000000ULL);
  const double seconds = static_cast<double>(nanos) / 1e9;
  *offset = static_cast<int64_t>(seconds);
  return true;
}

// --- conversions ---

Value StringToTimestamp(EvalContext& ctx, const Value* a) {
  int64_t s;
  uint32_t n;
  TimestampZone zone;
  int16_t offset;
  if (!ParseRfc3339(a[0].str(), &s, &n, &zone, &offset) || !InRange(s)) {
    return Err(ctx, "type conversion error from 'string' to 'google.protobuf.Timestamp'");
  }
  return Value::Timestamp(s, n, zone, offset);
}
Value IntToTimestamp(EvalContext& ctx, const Value* a) {
  if (!InRange(a[0].int_value())) return Err(ctx, "timestamp overflow");
  return Value::Timestamp(a[0].int_value(), 0);
}
Value Identity(EvalContext&, const Value* a) { return a[0]; }
Value StringToDuration(EvalContext& ctx, const Value* a) {
  int64_t n;
  if (!ParseGoDuration(a[0].str(), &n)) {
    return Err(ctx, "type conversion error from 'string' to 'google.protobuf.Duration'");
  }
  return Value::Duration(n);
}
Value TimestampToString(EvalContext& ctx, const Value* a) { return MakeString(*ctx.arena, internal::FormatTimestamp(a[0])); }
Value DurationToString(EvalContext& ctx, const Value* a) { return MakeString(*ctx.arena, internal::FormatDuration(a[0])); }
Value TimestampToInt(EvalContext&, const Value* a) { return Value::Int(a[0].seconds()); }
Value DurationToInt(EvalContext&, const Value* a) { return Value::Int(a[0].duration_nanos()); }

// --- arithmetic ---

Value AddTimestampDuration(EvalContext& ctx, const Value* a) {
  const Value& t = a[0].kind() == ValueKind::kTimestamp ? a[0] : a[1];
  const Value& d = a[0].kind() == ValueKind::kTimestamp ? a[1] : a[0];
  return AddDuration(ctx, t, d.duration_nanos());
}
Value SubTimestampDuration(EvalContext& ctx, const Value* a) {
  // cel-go's subtractTimeDurationChecked negates the duration first, which overflows for the minimum.
  if (a[1].duration_nanos() == INT64_MIN) return Err(ctx, "integer overflow");
  return AddDuration(ctx, a[0], -a[1].duration_nanos());
}
Value SubTimestamps(EvalContext& ctx, const Value* a) {
  int64_t d;
  if (!SubtractTimes(a[0], a[1], &d)) return Err(ctx, "integer overflow");
  return Value::Duration(d);
}
Value AddDurations(EvalContext& ctx, const Value* a) {
  int64_t r;
  if (__builtin_add_overflow(a[0].duration_nanos(), a[1].duration_nanos(), &r)) return Err(ctx, "integer overflow");
  return Value::Duration(r);
}
Value SubDurations(EvalContext& ctx, const Value* a) {
  int64_t r;
  if (__builtin_sub_overflow(a[0].duration_nanos(), a[1].duration_nanos(), &r)) return Err(ctx, "integer overflow");
  return Value::Duration(r);
}
Value NegateDuration(EvalContext& ctx, const Value* a) {
  if (a[0].duration_nanos() == INT64_MIN) return Err(ctx, "integer overflow");
  return Value::Duration(-a[0].duration_nanos());
}

template <int kOp>
Value Compare(EvalContext&, const Value* a) {
  int c = CompareValues(a[0], a[1]);
  switch (kOp) {
    case 0: return Value::Bool(c < 0);
    case 1: return Value::Bool(c <= 0);
    case 2: return Value::Bool(c > 0);
    default: return Value::Bool(c >= 0);
  }
}

// --- accessors ---

enum class Field { kFullYear, kMonth, kDate, kDayOfMonth, kDayOfYear, kDayOfWeek, kHours, kMinutes, kSeconds, kMillis };

Value TimestampField(EvalContext& ctx, const Value& t, std::string_view tz, Field f) {
  int64_t offset;
  std::string error;
  if (!ZoneOffset(t, tz, &offset, &error)) return Err(ctx, error);
  const internal::GoCivilTime c = internal::GoCivil(t.seconds(), offset);
  switch (f) {
    case Field::kFullYear: return Value::Int(c.year);
    case Field::kMonth: return Value::Int(c.month - 1);
    case Field::kDate: return Value::Int(c.day);
    case Field::kDayOfMonth: return Value::Int(c.day - 1);
    case Field::kDayOfYear: return Value::Int(c.year_day);
    case Field::kDayOfWeek: return Value::Int(c.weekday);
    case Field::kHours: return Value::Int(c.hour);
    case Field::kMinutes: return Value::Int(c.minute);
    case Field::kSeconds: return Value::Int(c.second);
    case Field::kMillis: return Value::Int(t.nanos() / 1000000);
  }
  return Value::Int(0);
}
template <Field kField>
Value TsField(EvalContext& ctx, const Value* a) { return TimestampField(ctx, a[0], "UTC", kField); }
template <Field kField>
Value TsFieldTz(EvalContext& ctx, const Value* a) { return TimestampField(ctx, a[0], a[1].str(), kField); }

template <Field kField>
Value DurationField(EvalContext&, const Value* a) {
  const int64_t n = a[0].duration_nanos();
  // Go's Duration.Hours/Minutes/Seconds are float64 (whole units plus the fraction), which cel-go
  // truncates to an int: near a unit boundary the float rounds up (9223372035.999999993s is 9223372036s).
  auto in_units = [n](int64_t unit) {
    return Value::Int(static_cast<int64_t>(static_cast<double>(n / unit) +
                                           static_cast<double>(n % unit) / static_cast<double>(unit)));
  };
  switch (kField) {
    case Field::kHours: return in_units(3600000000000LL);
    case Field::kMinutes: return in_units(60000000000LL);
    case Field::kSeconds: return in_units(kNanosPerSecond);
    // Go's Duration.Milliseconds: the whole duration in milliseconds (not the millisecond part, as
    // a timestamp's getMilliseconds is).
    default: return Value::Int(n / 1000000);
  }
}

}  // namespace

namespace internal {

std::string FormatTimestamp(const Value& v, bool in_utc) {
  // Go's Format(time.RFC3339Nano) in the timestamp's zone: the year has at least four digits, after
  // the sign when negative (-0001, not -001); a wrapped timestamp (see internal/go_calendar.h) has
  // twelve; the zone is `Z` at offset 0, else its offset (+01:00).
  const int offset = in_utc ? 0 : v.offset_minutes();
  const GoCivilTime c = GoCivil(v.seconds(), offset * 60);
  const uint64_t year_digits = c.year < 0 ? 0 - static_cast<uint64_t>(c.year) : static_cast<uint64_t>(c.year);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%04llu-%02d-%02dT%02d:%02d:%02d", c.year < 0 ? "-" : "",
                static_cast<unsigned long long>(year_digits), c.month, c.day, c.hour, c.minute, c.second);
  std::string out = buf;
  if (v.nanos() != 0) {
    std::snprintf(buf, sizeof buf, ".%09u", v.nanos());
    std::string frac = buf;
    while (frac.back() == '0') frac.pop_back();
    out += frac;
  }
  if (offset == 0) return out + "Z";
  std::snprintf(buf, sizeof buf, "%c%02d:%02d", offset < 0 ? '-' : '+', std::abs(offset) / 60, std::abs(offset) % 60);
  return out + buf;
}

std::string FormatDuration(const Value& v) {
  // cel-go: strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s", the shortest decimal that reads back
  // as the same float64 (so nanoseconds beyond float64's precision are rounded away).
  const int64_t n = v.duration_nanos();
  const double seconds = static_cast<double>(n / 1000000000) + static_cast<double>(n % 1000000000) / 1e9;
  char buf[400];
  auto r = std::to_chars(buf, buf + sizeof buf, seconds, std::chars_format::fixed);
  return std::string(buf, r.ptr) + "s";
}

bool IsValidTimestampLiteral(const Value& v) {
  if (v.kind() == ValueKind::kInt) return InRange(v.int_value());
  int64_t s;
  uint32_t n;
  return v.kind() == ValueKind::kString && ParseRfc3339(v.str(), &s, &n) && InRange(s);
}
bool IsValidDurationLiteral(const Value& v) {
  int64_t n;
  return v.kind() == ValueKind::kString && ParseGoDuration(v.str(), &n);
}

}  // namespace internal

void RegisterTimeLibrary(FunctionRegistry& r) {
  const Type T = Type::Timestamp(), D = Type::Duration(), S = Type::String(), I = Type::Int(), B = Type::Bool();
  // cel-go's declaration order: the checker binds an argument of unknown type to the first
  // overload it fits (`[].map(x, timestamp(x))` makes x a timestamp, not a string).
  r.Add("timestamp", "timestamp_to_timestamp", {T}, T, false, Identity);
  r.Add("timestamp", "int64_to_timestamp", {I}, T, false, IntToTimestamp);
  r.Add("timestamp", "string_to_timestamp", {S}, T, false, StringToTimestamp);
  r.Add("duration", "duration_to_duration", {D}, D, false, Identity);
  r.Add("duration", "string_to_duration", {S}, D, false, StringToDuration);
  r.Add("string", "timestamp_to_string", {T}, S, false, TimestampToString);
  r.Add("string", "duration_to_string", {D}, S, false, DurationToString);
  r.Add("int", "timestamp_to_int64", {T}, I, false, TimestampToInt);
  r.Add("int", "duration_to_int64", {D}, I, false, DurationToInt);
  r.Add("_+_", "add_timestamp_duration", {T, D}, T, false, AddTimestampDuration);
  r.Add("_+_", "add_duration_timestamp", {D, T}, T, false, AddTimestampDuration);
  r.Add("_+_", "add_duration_duration", {D, D}, D, false, AddDurations);
  r.Add("_-_", "subtract_timestamp_timestamp", {T, T}, D, false, SubTimestamps);
  r.Add("_-_", "subtract_timestamp_duration", {T, D}, T, false, SubTimestampDuration);
  r.Add("_-_", "subtract_duration_duration", {D, D}, D, false, SubDurations);
  r.Add("-_", "negate_duration", {D}, D, false, NegateDuration);
  const struct {
    const char* fn;
    const char* id;
    FunctionImpl impl;
  } cmps[] = {{"_<_", "less", Compare<0>}, {"_<=_", "less_equals", Compare<1>},
              {"_>_", "greater", Compare<2>}, {"_>=_", "greater_equals", Compare<3>}};
  for (const auto& c : cmps) {
    r.Add(c.fn, Cat(c.id, "_timestamp"), {T, T}, B, false, c.impl);
    r.Add(c.fn, Cat(c.id, "_duration"), {D, D}, B, false, c.impl);
  }
  const struct {
    const char* name;
    const char* id;
    FunctionImpl plain;
    FunctionImpl with_tz;
  } fields[] = {
      {"getFullYear", "timestamp_to_year", TsField<Field::kFullYear>, TsFieldTz<Field::kFullYear>},
      {"getMonth", "timestamp_to_month", TsField<Field::kMonth>, TsFieldTz<Field::kMonth>},
      {"getDate", "timestamp_to_day_of_month_1_based", TsField<Field::kDate>, TsFieldTz<Field::kDate>},
      {"getDayOfMonth", "timestamp_to_day_of_month", TsField<Field::kDayOfMonth>, TsFieldTz<Field::kDayOfMonth>},
      {"getDayOfYear", "timestamp_to_day_of_year", TsField<Field::kDayOfYear>, TsFieldTz<Field::kDayOfYear>},
      {"getDayOfWeek", "timestamp_to_day_of_week", TsField<Field::kDayOfWeek>, TsFieldTz<Field::kDayOfWeek>},
      {"getHours", "timestamp_to_hours", TsField<Field::kHours>, TsFieldTz<Field::kHours>},
      {"getMinutes", "timestamp_to_minutes", TsField<Field::kMinutes>, TsFieldTz<Field::kMinutes>},
      {"getSeconds", "timestamp_to_seconds", TsField<Field::kSeconds>, TsFieldTz<Field::kSeconds>},
      {"getMilliseconds", "timestamp_to_milliseconds", TsField<Field::kMillis>, TsFieldTz<Field::kMillis>},
  };
  for (const auto& f : fields) {
    r.Add(f.name, f.id, {T}, I, true, f.plain);
    r.Add(f.name, Cat(f.id, "_with_tz"), {T, S}, I, true, f.with_tz);
  }
  r.Add("getHours", "duration_to_hours", {D}, I, true, DurationField<Field::kHours>);
  r.Add("getMinutes", "duration_to_minutes", {D}, I, true, DurationField<Field::kMinutes>);
  r.Add("getSeconds", "duration_to_seconds", {D}, I, true, DurationField<Field::kSeconds>);
  r.Add("getMilliseconds", "duration_to_milliseconds", {D}, I, true, DurationField<Field::kMillis>);
}

}  // namespace draforge::cel
