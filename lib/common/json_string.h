// A RapidJSON string value copied from a string_view. RapidJSON 1.1 (Debian 12) asserts on a null
// pointer even for length 0, and a default-constructed string_view has one: every place that turns a
// string_view into a JSON string goes through here.
#ifndef DRAFORGE_LIB_COMMON_JSON_STRING_H_
#define DRAFORGE_LIB_COMMON_JSON_STRING_H_

#include <string_view>

#include <rapidjson/document.h>

namespace draforge {

// Returns a string value owning a copy of `s`, allocated from `allocator`.
template <typename Allocator>
rapidjson::Value JsonString(std::string_view s, Allocator& allocator) {
  return rapidjson::Value(s.empty() ? "" : s.data(), static_cast<rapidjson::SizeType>(s.size()), allocator);
}

}  // namespace draforge

#endif  // DRAFORGE_LIB_COMMON_JSON_STRING_H_
