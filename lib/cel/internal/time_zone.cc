#include "cel/internal/time_zone.h"

#include <filesystem>
#include <system_error>

#include "absl/time/time.h"

namespace draforge::cel::internal {

namespace {

constexpr std::string_view kZoneInfoDir = "/usr/share/zoneinfo/";

// Go's time.containsDotDot: any "..", not only a path element.
bool ContainsDotDot(std::string_view s) { return s.find("..") != std::string_view::npos; }

}  // namespace

bool ZoneOffsetAt(std::string_view name, int64_t unix_seconds, int64_t* offset, std::string* error) {
  if (name == "Local") {
    *offset = 0;
    return true;
  }
  if (ContainsDotDot(name) || name[0] == '/' || name[0] == '\\') {
    *error = "time: invalid location name";
    return false;
  }
  // The "file:" form makes cctz open exactly this path: no TZDIR lookup, no special names
  // ("localtime", "libc:...", "Fixed/UTC+..."), which Go does not have either.
  const std::string path = std::string(kZoneInfoDir) + std::string(name);
  absl::TimeZone tz;
  if (absl::LoadTimeZone("file:" + path, &tz)) {
    *offset = tz.At(absl::FromUnixSeconds(unix_seconds)).offset;
    return true;
  }
  // Go reports why the file could not be used when it exists; a missing file is an unknown zone.
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec == std::errc::not_a_directory) {
    *error = "not a directory";
  } else if (ec || !std::filesystem::exists(st)) {
    *error = "unknown time zone " + std::string(name);
  } else if (std::filesystem::is_directory(st)) {
    *error = "is a directory";
  } else {
    *error = "malformed time zone information";
  }
  return false;
}

}  // namespace draforge::cel::internal
