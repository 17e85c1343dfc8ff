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

std::optional<rapidjson::Document> ParseResultObject(const std::string& json, const char* what, std::ostream& err) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    err << "error: the " << what << " is not a JSON object\n";
    return std::nullopt;
  }
  return doc;
}

bool PrintDocument(rapidjson::Document doc, const std::string& format, std::ostream& out, std::ostream& err) {
  std::vector<rapidjson::Document> docs;
  docs.push_back(std::move(doc));
  if (auto printed = PrintDocuments(docs, format, out); !printed.ok()) {
    err << "error: " << printed.error().message << "\n";
    return false;
  }
  return true;
}

}  // namespace draforge::cli
