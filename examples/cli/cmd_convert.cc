#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "commands.h"
#include "common/status.h"
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
  if (!to.empty() && !absl::StrContains(to, "/")) to = absl::StrCat("resource.k8s.io/", to);
  const auto format_or = OutputFormat(*flags, "yaml", {"json", "yaml"}, io);
  if (!format_or) return kExitBadInput;
  const std::string& format = *format_or;
  auto inputs = LoadInputs(*flags, io, /*strict=*/false);
  if (!inputs) return kExitBadInput;
  std::vector<rapidjson::Document> docs;
  for (const InputObject& in : *inputs) {
    const api::Object& obj = *in.object;
    // Only DRA objects change version; everything else is written as it was read, as kubectl
    // convert leaves kinds of other groups alone.
    const bool dra = absl::StartsWith(obj.api_version, "resource.k8s.io/");
    auto doc = api::EncodeObject(obj, dra ? std::string_view(to) : std::string_view());
    if (!doc.ok()) {
      io.err << "error: " << in.Where() << obj.kind_name() << " \"" << obj.Key() << "\": " << doc.status().message()
             << "\n";
      return kExitBadInput;
    }
    docs.push_back(*std::move(doc));
  }
  if (docs.empty()) {
    io.err << "error: no objects in the input\n";
    return kExitBadInput;
  }
  (void)WriteDocuments(docs, format, io.out);
  return kExitOk;
}

}  // namespace draforge::cli
