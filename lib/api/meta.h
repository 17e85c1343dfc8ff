// Object metadata shared by every kind (k8s.io/apimachinery/pkg/apis/meta/v1).
//
// Conventions for every api type: a field the input did not set is std::nullopt (scalars, structs)
// or empty (lists, maps), and encoding writes exactly the fields that are set, so that decoding and
// encoding loses nothing and adds nothing. Empty lists and maps are omitted on encoding, as the API
// server does, except for the few fields Go writes without omitempty, whose null or [] is kept (see
// api/empty_spelling.h). Defaults (count 1, allocationMode ExactCount, ...) are applied by the code that reads a
// field, never written into the object.
#ifndef DRAFORGE_API_META_H_
#define DRAFORGE_API_META_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/empty_spelling.h"
#include "api/map.h"
#include "api/raw_json.h"

namespace draforge::api {

// metav1.Time / MicroTime: RFC 3339 text, kept as written.
using Time = std::string;

struct OwnerReference {
  std::optional<std::string> api_version;
  std::optional<std::string> kind;
  std::optional<std::string> name;
  std::optional<std::string> uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

struct ManagedFieldsEntry {
  std::optional<std::string> manager;
  std::optional<std::string> operation;
  std::optional<std::string> api_version;
  std::optional<Time> time;
  std::optional<std::string> fields_type;
  std::optional<RawJson> fields_v1;
  std::optional<std::string> subresource;
  friend bool operator==(const ManagedFieldsEntry&, const ManagedFieldsEntry&) = default;
};

struct ObjectMeta {
  std::optional<std::string> name;
  std::optional<std::string> generate_name;
  std::optional<std::string> namespace_;
  std::optional<std::string> self_link;
  std::optional<std::string> uid;
  std::optional<std::string> resource_version;
  std::optional<int64_t> generation;
  std::optional<Time> creation_timestamp;
  std::optional<Time> deletion_timestamp;
  std::optional<int64_t> deletion_grace_period_seconds;
  Map<std::string> labels;
  Map<std::string> annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  std::vector<ManagedFieldsEntry> managed_fields;
  // metav1.Time is a struct, which omitempty does not omit: Go writes an unset creationTimestamp as
  // null (`kubectl create --dry-run=client -o yaml` shows `creationTimestamp: null`).
  EmptySpelling creation_timestamp_spelling = EmptySpelling::kAbsent;
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

// metav1.Condition.
struct Condition {
  std::optional<std::string> type;
  std::optional<std::string> status;
  std::optional<int64_t> observed_generation;
  std::optional<Time> last_transition_time;
  std::optional<std::string> reason;
  std::optional<std::string> message;
  EmptySpelling last_transition_time_spelling = EmptySpelling::kAbsent;  // no omitempty
  friend bool operator==(const Condition&, const Condition&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_META_H_
