// Named time zones for the timestamp getters (`getHours("America/Los_Angeles")`), as Go's
// time.LoadLocation resolves them for cel-go.
//
// The zone database is the system's: Abseil's cctz reads TZif files under /usr/share/zoneinfo (the
// Debian package tzdata), which is the first place Go looks too. The path is fixed here rather than
// taken from TZDIR so that lib/ reads no environment variable; loaded zones are cached by Abseil
// (thread-safe, never evicted: the set of zone names on a system is small).
#ifndef DRAFORGE_CEL_INTERNAL_TIME_ZONE_H_
#define DRAFORGE_CEL_INTERNAL_TIME_ZONE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace draforge::cel::internal {

// The offset east of UTC, in seconds, that zone `name` has at Unix time `unix_seconds`.
// `name` is a zone name without ':' (the caller handles "", "UTC" and numeric offsets). "Local" is
// UTC: lib/ does not read the process's TZ, and Kubernetes components conventionally run in UTC.
// Returns false with Go's error text in *error: "unknown time zone X", "time: invalid location
// name" (a name with ".." or a leading '/' or '\'), "is a directory", "not a directory",
// "malformed time zone information".
bool ZoneOffsetAt(std::string_view name, int64_t unix_seconds, int64_t* offset, std::string* error);

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_TIME_ZONE_H_
