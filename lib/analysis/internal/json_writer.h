// The RapidJSON writer the public JSON views (*_json.cc) share: the helpers spell keys and values
// once, and every view opens with the same "snapshot" member (openapi.json's SnapshotRef).
#ifndef DRAFORGE_ANALYSIS_INTERNAL_JSON_WRITER_H_
#define DRAFORGE_ANALYSIS_INTERNAL_JSON_WRITER_H_

#include <cstdint>
#include <string_view>

#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "store/cluster.h"

namespace draforge::analysis::internal {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// RapidJSON 1.1 asserts on a null pointer even for length 0 (see common/json_string.h): "" instead.
inline void Str(JsonWriter& w, std::string_view s) {
  w.String(s.empty() ? "" : s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
inline void Key(JsonWriter& w, std::string_view s) {
  w.Key(s.empty() ? "" : s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
inline void KeyStr(JsonWriter& w, std::string_view k, std::string_view v) {
  Key(w, k);
  Str(w, v);
}
inline void KeyBool(JsonWriter& w, std::string_view k, bool v) {
  Key(w, k);
  w.Bool(v);
}
inline void KeyInt(JsonWriter& w, std::string_view k, int64_t v) {
  Key(w, k);
  w.Int64(v);
}

// {"generation":N,"resourceVersion":"..."} (SnapshotRef).
inline void WriteSnapshotRef(JsonWriter& w, const store::Snapshot& snapshot) {
  w.StartObject();
  KeyInt(w, "generation", static_cast<int64_t>(snapshot.generation()));
  KeyStr(w, "resourceVersion", snapshot.resource_version());
  w.EndObject();
}

// The "snapshot" member every list view starts with.
inline void WriteSnapshotMember(JsonWriter& w, const store::Snapshot& snapshot) {
  Key(w, "snapshot");
  WriteSnapshotRef(w, snapshot);
}

}  // namespace draforge::analysis::internal

#endif  // DRAFORGE_ANALYSIS_INTERNAL_JSON_WRITER_H_
