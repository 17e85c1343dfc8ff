// Writing objects as kubectl does: JSON (indented) or YAML; several objects as one `List`.
#ifndef DRAFORGE_EXAMPLES_CLI_OUTPUT_H_
#define DRAFORGE_EXAMPLES_CLI_OUTPUT_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "draforge/draforge.hpp"
#include "rapidjson/document.h"

namespace draforge::cli {

// Writes `docs` in `format` ("json" or "yaml", through draforge_json_reformat): one document as
// itself, several wrapped in a `{"apiVersion":"v1","kind":"List","items":[...]}` as kubectl prints
// them (also one, with always_list). Errors: an unknown format.
draforge::Result<void> PrintDocuments(const std::vector<rapidjson::Document>& docs, const std::string& format,
                                      std::ostream& out, bool always_list = false);

// A library result that must be one JSON object (the *_json calls), or nullopt after printing
// "error: the <what> is not a JSON object" to `err`.
std::optional<rapidjson::Document> ParseResultObject(const std::string& json, const char* what, std::ostream& err);

// PrintDocuments of one document; false after printing "error: <why>" to `err` (an unknown format).
bool PrintDocument(rapidjson::Document doc, const std::string& format, std::ostream& out, std::ostream& err);

}  // namespace draforge::cli

#endif  // DRAFORGE_EXAMPLES_CLI_OUTPUT_H_
