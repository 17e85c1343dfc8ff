#include <string>
#include <string_view>

#include "commands.h"
#include "output.h"

namespace draforge::cli {

int RunConvert(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"-o", "--output"}, true, "yaml (default) or json"});
  specs.push_back({{"--to", "--output-version"}, true,
                   "resource.k8s.io version to write DRA objects in: v1, v1beta2, v1beta1, v1alpha3 "
                   "(default: the version each was read in)"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, "draforge convert -f FILE... [-o json|yaml] [--to VERSION]", io, code);
  if (!flags) return code;
  std::string to = flags->GetOr("--to", "");
  if (!to.empty() && to.find('/') == std::string::npos) to = "resource.k8s.io/" + to;
  const auto format_or = OutputFormat(*flags, "yaml", {"json", "yaml"}, io);
  if (!format_or) return kExitBadInput;
  const std::string& format = *format_or;
  auto inputs = LoadObjects(*flags, io, /*strict=*/false);
  if (!inputs) return kExitBadInput;
  const draforge::Objects& objects = inputs->objects;
  std::vector<rapidjson::Document> docs;
  for (size_t i = 0; i < objects.size(); ++i) {
    // Only DRA objects change version; everything else is written as it was read, as kubectl
    // convert leaves kinds of other groups alone.
    const bool dra = objects.api_version(i).substr(0, 16) == "resource.k8s.io/";
    auto json = objects.Encode(i, dra ? std::string_view(to) : std::string_view());
    if (!json.ok()) {
      io.err << "error: " << inputs->Where(i) << objects.kind(i) << " \"" << objects.key(i)
             << "\": " << json.error().message << "\n";
      return kExitBadInput;
    }
    rapidjson::Document doc;
    doc.Parse(json->data(), json->size());
    docs.push_back(std::move(doc));
  }
  if (docs.empty()) {
    io.err << "error: no objects in the input\n";
    return kExitBadInput;
  }
  (void)PrintDocuments(docs, format, io.out);
  return kExitOk;
}

}  // namespace draforge::cli
