#include "commands.h"
#include "rapidjson/document.h"

namespace draforge::cli {

int RunValidate(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--lenient"}, false, "unknown fields are warnings instead of errors"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, "draforge validate -f FILE... [--lenient]", io, code);
  if (!flags) return code;
  // Decoding problems are reported object by object and still let the others be validated.
  auto inputs = LoadObjects(*flags, io, /*strict=*/!flags->Has("--lenient"), /*keep_failed=*/true);
  if (!inputs) return kExitBadInput;
  const draforge::Objects& objects = inputs->objects;
  int invalid = 0, valid = 0;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (!objects.decoded(i)) {
      ++invalid;
      continue;
    }
    auto result = objects.ValidateJson(i);
    rapidjson::Document doc;
    if (!result.ok() || doc.Parse(result->data(), result->size()).HasParseError() || !doc.IsObject()) {
      io.err << "error: " << inputs->Where(i) << (result.ok() ? "unreadable validation result" : result.error().message)
             << "\n";
      return kExitError;
    }
    if (doc["valid"].GetBool()) {
      ++valid;
      io.out << inputs->Where(i) << objects.kind(i) << " \"" << objects.key(i) << "\" is valid\n";
    } else {
      ++invalid;
      io.err << "error: " << inputs->Where(i) << doc["message"].GetString() << "\n";
    }
  }
  io.out << valid << " valid, " << invalid << " invalid\n";
  return invalid == 0 ? kExitOk : kExitBadInput;
}

}  // namespace draforge::cli
