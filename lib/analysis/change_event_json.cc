#include "analysis/change_event_json.h"

#include "analysis/internal/json_writer.h"

namespace draforge::analysis {

std::string ChangeEventJson(const store::Snapshot& before, const store::Snapshot& after,
                            const std::vector<ObjectChange>& changes) {
  rapidjson::StringBuffer buf;
  internal::JsonWriter w(buf);
  w.StartObject();
  internal::Key(w, "generation");
  w.Uint64(after.generation());
  internal::KeyStr(w, "resourceVersion", after.resource_version());
  internal::Key(w, "previousGeneration");
  w.Uint64(before.generation());
  internal::Key(w, "changes");
  w.StartArray();
  for (const auto& c : changes) {
    w.StartObject();
    internal::KeyStr(w, "type", c.type);
    internal::KeyStr(w, "kind", c.kind);
    internal::KeyStr(w, "namespace", c.namespace_);
    internal::KeyStr(w, "name", c.name);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

}  // namespace draforge::analysis
