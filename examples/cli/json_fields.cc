#include "json_fields.h"

namespace draforge::cli {

std::string JsonStr(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return {};
  const auto m = v.FindMember(key);
  return m != v.MemberEnd() && m->value.IsString() ? std::string(m->value.GetString(), m->value.GetStringLength())
                                                    : std::string();
}

bool JsonBool(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return false;
  const auto m = v.FindMember(key);
  return m != v.MemberEnd() && m->value.IsBool() && m->value.GetBool();
}

int64_t JsonInt(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return 0;
  const auto m = v.FindMember(key);
  return m != v.MemberEnd() && m->value.IsInt64() ? m->value.GetInt64() : 0;
}

std::vector<std::string> JsonStrings(const rapidjson::Value& v, const char* key) {
  std::vector<std::string> out;
  for (const auto& s : JsonArray(v, key).GetArray()) {
    if (s.IsString()) out.emplace_back(s.GetString(), s.GetStringLength());
  }
  return out;
}

const rapidjson::Value& JsonArray(const rapidjson::Value& v, const char* key) {
  static const rapidjson::Value kEmpty(rapidjson::kArrayType);
  if (!v.IsObject()) return kEmpty;
  const auto m = v.FindMember(key);
  return m != v.MemberEnd() && m->value.IsArray() ? m->value : kEmpty;
}

const rapidjson::Value& JsonObject(const rapidjson::Value& v, const char* key) {
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* m = JsonMember(v, key);
  return m != nullptr && m->IsObject() ? *m : kEmpty;
}

const rapidjson::Value* JsonMember(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return nullptr;
  const auto m = v.FindMember(key);
  return m != v.MemberEnd() ? &m->value : nullptr;
}

draforge::Result<rapidjson::Document> ParseAbiJson(std::string_view text, std::string_view what) {
  rapidjson::Document doc;
  if (doc.Parse(text.data(), text.size()).HasParseError()) {
    return draforge::Error{DRAFORGE_EINTERNAL, std::string(what) + ": unreadable JSON from the library", "", ""};
  }
  return doc;
}

std::string Join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace draforge::cli
