#include "cel/internal/go_calendar.h"

namespace draforge::cel::internal {

namespace {

constexpr uint64_t kSecondsPerDay = 86400;
constexpr uint64_t kDaysPer400Years = 146097;
// Go's absolute epoch is March 1 of year -kAbsoluteYears, a multiple of 400 years before year 0, so
// its days fall into 400-year cycles exactly as days counted from 0000-03-01 do.
constexpr int64_t kAbsoluteYears = 292277022400;
constexpr uint64_t kUnixToInternal = 62135596800;  // 0001-01-01 .. 1970-01-01
// 0001-01-01 lies kAbsoluteYears / 400 cycles plus March..December (306 days) after the epoch.
constexpr uint64_t kInternalToAbsolute = (kAbsoluteYears / 400 * kDaysPer400Years + 306) * kSecondsPerDay;
static_assert(kInternalToAbsolute == 9223371966606163200u);

bool IsLeap(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

}  // namespace

int64_t GoInternalSeconds(int64_t unix_seconds) {
  return static_cast<int64_t>(static_cast<uint64_t>(unix_seconds) + kUnixToInternal);
}

GoCivilTime GoCivil(int64_t unix_seconds, int64_t offset_seconds) {
  // Go adds the offset and the epoch distance in int64, which wraps; the sum is then read unsigned.
  const uint64_t abs = static_cast<uint64_t>(unix_seconds) + static_cast<uint64_t>(offset_seconds) +
                       kUnixToInternal + kInternalToAbsolute;
  const uint64_t days = abs / kSecondsPerDay;
  const auto of_day = static_cast<int>(abs % kSecondsPerDay);
  GoCivilTime t{};
  t.hour = of_day / 3600;
  t.minute = of_day / 60 % 60;
  t.second = of_day % 60;
  t.weekday = static_cast<int>((days + 3) % 7);  // the epoch, a March 1 like 2000-03-01, is a Wednesday

  // Years starting on March 1 put the leap day last: cycles of 400, 100 and 4 years, then months of
  // the 153-day March..July (and August..December) pattern.
  const uint64_t cycle = days / kDaysPer400Years;
  const auto day_of_cycle = static_cast<uint32_t>(days % kDaysPer400Years);  // 0..146096
  const uint32_t year_of_cycle =
      (day_of_cycle - day_of_cycle / 1460 + day_of_cycle / 36524 - day_of_cycle / 146096) / 365;  // 0..399
  const uint32_t march_day = day_of_cycle - (365 * year_of_cycle + year_of_cycle / 4 - year_of_cycle / 100);
  const uint32_t march_month = (5 * march_day + 2) / 153;  // 0 = March .. 11 = February
  t.day = static_cast<int>(march_day - (153 * march_month + 2) / 5 + 1);
  t.month = static_cast<int>(march_month < 10 ? march_month + 3 : march_month - 9);
  const bool jan_feb = t.month <= 2;
  t.year = static_cast<int64_t>(cycle * 400 + year_of_cycle) - kAbsoluteYears + (jan_feb ? 1 : 0);
  // March 1 is day 59 of a common January-based year; January and February end the March-based one.
  t.year_day = jan_feb ? static_cast<int>(march_day) - 306 : static_cast<int>(march_day) + 59 + (IsLeap(t.year) ? 1 : 0);
  return t;
}

}  // namespace draforge::cel::internal
