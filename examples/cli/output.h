// Writing objects as kubectl does: JSON (indented) or YAML; several objects as one `List`.
#ifndef DRAFORGE_EXAMPLES_CLI_OUTPUT_H_
#define DRAFORGE_EXAMPLES_CLI_OUTPUT_H_

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

}  // namespace draforge::cli

#endif  // DRAFORGE_EXAMPLES_CLI_OUTPUT_H_
