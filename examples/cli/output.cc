#include "output.h"

#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::cli {

draforge::Result<void> PrintDocuments(const std::vector<rapidjson::Document>& docs, const std::string& format,
                                      std::ostream& out, bool always_list) {
  if (format != "json" && format != "yaml") {
    return draforge::Error{DRAFORGE_EINVALID, "--output: unknown format \"" + format + "\" (json, yaml)", "", ""};
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
    for (const auto& d : docs) items.PushBack(rapidjson::Value(d, a), a);
    list.AddMember("items", items, a);
    list.AddMember("metadata", rapidjson::Value(rapidjson::kObjectType), a);
    value = &list;
  }
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> writer(sb);
  value->Accept(writer);
  auto text = draforge::ReformatJson(std::string_view(sb.GetString(), sb.GetSize()),
                                     format == "json" ? draforge::Format::kJson : draforge::Format::kYaml);
  if (!text.ok()) return text.error();
  out << *text;
  if (format == "json") out << "\n";
  return {};
}

}  // namespace draforge::cli
