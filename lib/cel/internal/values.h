// Helpers shared by the library implementations.
#ifndef DRAFORGE_CEL_INTERNAL_VALUES_H_
#define DRAFORGE_CEL_INTERNAL_VALUES_H_

#include <string>
#include <string_view>

#include "cel/functions.h"
#include "cel/internal/utf8.h"
#include "cel/value.h"

namespace draforge::cel::internal {

Value Err(EvalContext& ctx, std::string_view msg);
// Go's strconv.FormatFloat(d, 'g', -1, 64).
std::string FormatGoDouble(double d);
size_t CodePointCount(std::string_view s);
// RFC 3339 with the shortest fractional seconds ("2020-01-01T04:30:00.5Z"), as Go's
// time.RFC3339Nano: in the timestamp's zone ("2020-01-01T05:30:00.5+01:00"), or in UTC with
// `in_utc`; and a duration as seconds ("-3723.5s"), as cel-go prints them.
std::string FormatTimestamp(const Value& v, bool in_utc = false);
std::string FormatDuration(const Value& v);
// What cel-go's timestamp and duration literal validators accept (a constant argument).
bool IsValidTimestampLiteral(const Value& v);
bool IsValidDurationLiteral(const Value& v);
// The compiled regex for `pattern` (precompiled constant or compiled now); null and *error set when
// the pattern is invalid.
const re2::RE2* GetRegex(EvalContext& ctx, std::string_view pattern, Value* error);

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_VALUES_H_
