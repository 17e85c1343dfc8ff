// Strict reading of the SimulatedDevicePool's own JSON fields: type checks and unknown-field checks
// with errors that name the object and the field path.
#ifndef DRAFORGE_SIM_INTERNAL_JSON_FIELDS_H_
#define DRAFORGE_SIM_INTERNAL_JSON_FIELDS_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "rapidjson/document.h"

namespace draforge::sim::internal {

// Reads the fields of one JSON object. `who` is `SimulatedDevicePool "name"`, `path` the object's
// field path ("spec.faults[2]").
class FieldReader {
 public:
  FieldReader(const rapidjson::Value& object, std::string who, std::string path)
      : object_(object), who_(std::move(who)), path_(std::move(path)) {}

  // kInvalidArgument `<who>: <path>: expected object, got <type>` unless the value is an object.
  absl::Status CheckObject() const;
  // Every member must be one of `known`; the first other is `<who>: <path>.<key>: unknown field`.
  absl::Status CheckKnown(std::initializer_list<std::string_view> known) const;

  // A member, or nullptr when absent or JSON null (Kubernetes treats null as unset).
  const rapidjson::Value* Find(std::string_view key) const;
  std::string Path(std::string_view key) const;
  const std::string& who() const { return who_; }

  absl::Status String(std::string_view key, std::optional<std::string>& out) const;
  absl::Status Int(std::string_view key, std::optional<int64_t>& out) const;
  absl::Status Bool(std::string_view key, std::optional<bool>& out) const;
  absl::Status StringList(std::string_view key, std::vector<std::string>& out) const;

  // `<who>: <path>: <message>` as kInvalidArgument.
  absl::Status Error(std::string_view key, std::string_view message) const;

 private:
  const rapidjson::Value& object_;
  std::string who_;
  std::string path_;
};

// "string", "integer", "object", ... as the API server's decoder names JSON types.
std::string_view JsonKind(const rapidjson::Value& v);

}  // namespace draforge::sim::internal

#endif  // DRAFORGE_SIM_INTERNAL_JSON_FIELDS_H_
