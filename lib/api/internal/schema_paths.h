// The JSON field paths that the field tables (internal/schema.h) describe, for the test that
// compares them with the paths of upstream's Go types (tests/api/goref, api-field-paths). Internal
// to lib/api and its tests.
#ifndef DRAFORGE_API_INTERNAL_SCHEMA_PATHS_H_
#define DRAFORGE_API_INTERNAL_SCHEMA_PATHS_H_

#include <string>
#include <tuple>
#include <vector>

#include "api/internal/json_decode.h"
#include "api/internal/schema.h"

namespace draforge::api::internal {

template <typename T>
struct MapValue;
template <typename V>
struct MapValue<Map<V>> {
  using type = V;
};

// Appends the paths of a value of type T found at `prefix`, in api-field-paths' notation: JSON
// names joined by ".", "[]" for list items, "[*]" for map values; scalars, Quantity and RawJson
// are leaves. Types that keep unknown fields (Pod, Node) list only what they model.
template <typename T>
void AppendFieldPaths(const std::string& prefix, std::vector<std::string>& out) {
  if constexpr (IsOptional<T>::value) {
    AppendFieldPaths<typename T::value_type>(prefix, out);
  } else if constexpr (IsVector<T>::value) {
    AppendFieldPaths<typename T::value_type>(prefix + "[]", out);
  } else if constexpr (IsMap<T>::value) {
    AppendFieldPaths<typename MapValue<T>::type>(prefix + "[*]", out);
  } else if constexpr (std::is_same_v<T, DeviceAttribute>) {
    AppendFieldPaths<DeviceAttribute::Fields>(prefix, out);
  } else if constexpr (IsStruct<T>::value) {
    std::apply(
        [&](const auto&... field) {
          (AppendFieldPaths<typename std::decay_t<decltype(field)>::Member>(
               prefix.empty() ? std::string(field.name) : prefix + "." + std::string(field.name), out),
           ...);
        },
        Schema<T>::Fields());
  } else {
    out.push_back(prefix);
  }
}

// Every field path of the kind T (its top-level fields and everything below them).
template <typename T>
std::vector<std::string> FieldPaths() {
  std::vector<std::string> out;
  AppendFieldPaths<T>("", out);
  return out;
}

}  // namespace draforge::api::internal

#endif  // DRAFORGE_API_INTERNAL_SCHEMA_PATHS_H_
