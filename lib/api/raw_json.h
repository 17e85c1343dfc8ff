// api::RawJson: a JSON value DRAForge does not interpret, kept verbatim.
#ifndef DRAFORGE_API_RAW_JSON_H_
#define DRAFORGE_API_RAW_JSON_H_

#include <string>
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

}  // namespace draforge::api

#endif  // DRAFORGE_API_RAW_JSON_H_
