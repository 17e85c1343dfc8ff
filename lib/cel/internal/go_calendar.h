// The calendar of a CEL timestamp as cel-go sees it: cel-go keeps a timestamp as a Go time.Time
// built by time.Unix(seconds, nanos), and Go derives every calendar field (Year, YearDay, Hour, the
// RFC 3339 text) from the seconds since its absolute epoch, March 1 of year -292277022400, computed
// in wrapping 64-bit arithmetic; it orders times by the seconds since year 1, also wrapped.
//
// For the timestamps CEL itself creates (years 1..9999) both give the proleptic Gregorian calendar.
// They matter for a google.protobuf.Timestamp message whose seconds lie within 62135596800 of the
// int64 limits, which cel-go accepts unchecked: Go wraps it around (seconds -9223372036854775808 is
// 292277026596-12-04T15:30:08Z, after every timestamp of year 9999), and a selector that reads it
// must see what kube-scheduler sees.
#ifndef DRAFORGE_CEL_INTERNAL_GO_CALENDAR_H_
#define DRAFORGE_CEL_INTERNAL_GO_CALENDAR_H_

#include <cstdint>

namespace draforge::cel::internal {

// A time of day on a date, as Go's Time.Date, YearDay, Weekday and Clock give it.
struct GoCivilTime {
  int64_t year;      // Go's Year(): may be far outside 1..9999 for a wrapped timestamp
  int month;         // 1..12
  int day;           // 1..31
  int year_day;      // 0-based day of the year (Go's YearDay() - 1)
  int weekday;       // 0 = Sunday
  int hour, minute, second;
};

// The calendar fields of time.Unix(unix_seconds, 0) in a zone `offset_seconds` east of UTC.
GoCivilTime GoCivil(int64_t unix_seconds, int64_t offset_seconds);

// Go's Time.sec(): the seconds since 0001-01-01T00:00:00Z, wrapped into an int64. Go's Before, After
// and Compare order times by it (then by nanoseconds), so it is the order of CEL's `<` on timestamps.
int64_t GoInternalSeconds(int64_t unix_seconds);

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_GO_CALENDAR_H_
