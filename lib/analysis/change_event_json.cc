#include "analysis/change_event_json.h"

#include "analysis/internal/json_writer.h"

namespace draforge::analysis {

using internal::Key;
using internal::KeyStr;

std::string ChangeEventJson(const store::Snapshot& before, const store::Snapshot& after,
                            const std::vector<ObjectChange>& changes) {
  rapidjson::StringBuffer buf;
  internal::JsonWriter w(buf);
  w.StartObject();
  Key(w, "generation");
  w.Uint64(after.generation());
  KeyStr(w, "resourceVersion", after.resource_version());
  Key(w, "previousGeneration");
  w.Uint64(before.generation());
  Key(w, "changes");
  w.StartArray();
  for (const auto& c : changes) {
    w.StartObject();
    KeyStr(w, "type", c.type);
    KeyStr(w, "kind", c.kind);
    KeyStr(w, "namespace", c.namespace_);
    KeyStr(w, "name", c.name);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

}  // namespace draforge::analysis
