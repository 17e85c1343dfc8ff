#include "output.h"

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "api/yaml.h"

namespace draforge::cli {

absl::Status WriteDocuments(std::vector<rapidjson::Document>& docs, const std::string& format, std::ostream& out,
                            bool always_list) {
  if (format != "json" && format != "yaml") {
    return absl::InvalidArgumentError(absl::StrCat("--output: unknown format \"", format, "\" (json, yaml)"));
  }
  rapidjson::Document list;
  const rapidjson::Value* value = nullptr;
  if (docs.size() == 1 && !always_list) {
    value = &docs.front();
  } else {
    list.SetObject();
    auto& a = list.GetAllocator();
    list.AddMember("apiVersion", "v1", a);
    list.AddMember("kind", "List", a);
    rapidjson::Value items(rapidjson::kArrayType);
    for (auto& d : docs) items.PushBack(rapidjson::Value(d, a), a);
    list.AddMember("items", items, a);
    list.AddMember("metadata", rapidjson::Value(rapidjson::kObjectType), a);
    value = &list;
  }
  if (format == "json") {
    out << api::WriteJson(*value, /*pretty=*/true) << "\n";
  } else {
    out << api::WriteYaml(*value);
  }
  return absl::OkStatus();
}

}  // namespace draforge::cli
