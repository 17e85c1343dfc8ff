// api::RawJson: a JSON value DRAForge does not interpret, kept verbatim.
#ifndef DRAFORGE_API_RAW_JSON_H_
#define DRAFORGE_API_RAW_JSON_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace draforge::api {

// Opaque JSON (runtime.RawExtension, metav1.FieldsV1, unmodelled fields of Pods and Nodes),
// stored as compact JSON text so that re-encoding reproduces it exactly.
struct RawJson {
  std::string json;  // compact JSON text of one value; never empty once decoded

  RawJson() = default;
  explicit RawJson(std::string text) : json(std::move(text)) {}
  friend bool operator==(const RawJson&, const RawJson&) = default;
};

// Fields of an object that DRAForge keeps without modelling them, in input order.
using RawFields = std::vector<std::pair<std::string, RawJson>>;

// The field `name` of `fields`, or null.
inline const RawJson* FindRaw(const RawFields& fields, std::string_view name) {
  for (const auto& [key, value] : fields) {
    if (key == name) return &value;
  }
  return nullptr;
}

}  // namespace draforge::api

#endif  // DRAFORGE_API_RAW_JSON_H_
