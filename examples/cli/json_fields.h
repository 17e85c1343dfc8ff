// Reading the C ABI's JSON results in the CLI: a member's value, or an empty one when the member is
// absent or of another type (the ABI documents its schemas; absent optional members read as empty).
#ifndef DRAFORGE_EXAMPLES_CLI_JSON_FIELDS_H_
#define DRAFORGE_EXAMPLES_CLI_JSON_FIELDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "draforge/draforge.hpp"
#include "rapidjson/document.h"

namespace draforge::cli {

std::string JsonStr(const rapidjson::Value& v, const char* key);
bool JsonBool(const rapidjson::Value& v, const char* key);
int64_t JsonInt(const rapidjson::Value& v, const char* key);
std::vector<std::string> JsonStrings(const rapidjson::Value& v, const char* key);
// The array member `key`, or an empty array.
const rapidjson::Value& JsonArray(const rapidjson::Value& v, const char* key);

// The object member `key`, or an empty object.
const rapidjson::Value& JsonObject(const rapidjson::Value& v, const char* key);
// The member `key` (any type), or null when absent.
const rapidjson::Value* JsonMember(const rapidjson::Value& v, const char* key);
// Parses the ABI's JSON result `text` (the ABI's output is always valid JSON; a parse error is
// reported as an EINTERNAL error naming `what`).
draforge::Result<rapidjson::Document> ParseAbiJson(std::string_view text, std::string_view what);

// `parts` joined with `sep`.
std::string Join(const std::vector<std::string>& parts, const char* sep);

}  // namespace draforge::cli

#endif  // DRAFORGE_EXAMPLES_CLI_JSON_FIELDS_H_
