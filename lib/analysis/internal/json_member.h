// Copying a member of an encoded object into a view, so that attributes, capacity and status are
// written exactly as the API spells them.
#ifndef DRAFORGE_ANALYSIS_INTERNAL_JSON_MEMBER_H_
#define DRAFORGE_ANALYSIS_INTERNAL_JSON_MEMBER_H_

#include "analysis/internal/json_writer.h"
#include "rapidjson/document.h"

namespace draforge::analysis::internal {

// Writes member `name` of `object` (a JSON object, may be null), or an empty array or object
// (`array_fallback`) when it has none.
inline void WriteMember(JsonWriter& w, const rapidjson::Value* object, const char* name, bool array_fallback) {
  if (object != nullptr && object->IsObject()) {
    auto it = object->FindMember(name);
    if (it != object->MemberEnd()) {
      it->value.Accept(w);
      return;
    }
  }
  if (array_fallback) {
    w.StartArray();
    w.EndArray();
  } else {
    w.StartObject();
    w.EndObject();
  }
}

}  // namespace draforge::analysis::internal

#endif  // DRAFORGE_ANALYSIS_INTERNAL_JSON_MEMBER_H_
