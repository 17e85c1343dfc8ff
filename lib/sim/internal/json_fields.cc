#include "sim/internal/json_fields.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace draforge::sim::internal {

std::string_view JsonKind(const rapidjson::Value& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return "boolean";
  if (v.IsObject()) return "object";
  if (v.IsArray()) return "array";
  if (v.IsString()) return "string";
  if (v.IsInt64() || v.IsUint64()) return "integer";
  return "number";
}

std::string FieldReader::Path(std::string_view key) const {
  if (path_.empty()) return std::string(key);
  return absl::StrCat(path_, ".", AV(key));
}

absl::Status FieldReader::Error(std::string_view key, std::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(who_, ": ", key.empty() ? path_ : Path(key), ": ", AV(message)));
}

absl::Status FieldReader::CheckObject() const {
  if (object_.IsObject()) return absl::OkStatus();
  return Error("", absl::StrCat("expected object, got ", AV(JsonKind(object_))));
}

absl::Status FieldReader::CheckKnown(std::initializer_list<std::string_view> known) const {
  for (auto it = object_.MemberBegin(); it != object_.MemberEnd(); ++it) {
    const std::string_view key(it->name.GetString(), it->name.GetStringLength());
    if (std::find(known.begin(), known.end(), key) == known.end()) return Error(key, "unknown field");
  }
  return absl::OkStatus();
}

const rapidjson::Value* FieldReader::Find(std::string_view key) const {
  auto it = object_.FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
  if (it == object_.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

absl::Status FieldReader::String(std::string_view key, std::optional<std::string>& out) const {
  const rapidjson::Value* v = Find(key);
  if (v == nullptr) return absl::OkStatus();
  if (!v->IsString()) return Error(key, absl::StrCat("expected string, got ", AV(JsonKind(*v))));
  out = std::string(v->GetString(), v->GetStringLength());
  return absl::OkStatus();
}

absl::Status FieldReader::Int(std::string_view key, std::optional<int64_t>& out) const {
  const rapidjson::Value* v = Find(key);
  if (v == nullptr) return absl::OkStatus();
  if (!v->IsInt64()) return Error(key, absl::StrCat("expected integer, got ", AV(JsonKind(*v))));
  out = v->GetInt64();
  return absl::OkStatus();
}

absl::Status FieldReader::Bool(std::string_view key, std::optional<bool>& out) const {
  const rapidjson::Value* v = Find(key);
  if (v == nullptr) return absl::OkStatus();
  if (!v->IsBool()) return Error(key, absl::StrCat("expected boolean, got ", AV(JsonKind(*v))));
  out = v->GetBool();
  return absl::OkStatus();
}

absl::Status FieldReader::StringList(std::string_view key, std::vector<std::string>& out) const {
  const rapidjson::Value* v = Find(key);
  if (v == nullptr) return absl::OkStatus();
  if (!v->IsArray()) return Error(key, absl::StrCat("expected array, got ", AV(JsonKind(*v))));
  for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
    const rapidjson::Value& e = (*v)[i];
    if (!e.IsString()) {
      return Error(absl::StrCat(AV(key), "[", i, "]"), absl::StrCat("expected string, got ", AV(JsonKind(e))));
    }
    out.emplace_back(e.GetString(), e.GetStringLength());
  }
  return absl::OkStatus();
}

}  // namespace draforge::sim::internal
