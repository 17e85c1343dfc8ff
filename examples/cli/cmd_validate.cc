#include "api/validation.h"
#include "commands.h"

namespace draforge::cli {

int RunValidate(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--lenient"}, false, "unknown fields are warnings instead of errors"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, "draforge validate -f FILE... [--lenient]", io, code);
  if (!flags) return code;
  // Decoding problems are reported object by object and still let the others be validated.
  auto inputs = LoadInputs(*flags, io, /*strict=*/!flags->Has("--lenient"), /*keep_failed=*/true);
  if (!inputs) return kExitBadInput;
  int invalid = 0, valid = 0;
  for (const InputObject& in : *inputs) {
    if (!in.object.ok()) {
      ++invalid;
      continue;
    }
    std::vector<api::FieldError> errors = api::Validate(*in.object);
    if (errors.empty()) {
      ++valid;
      io.out << in.Where() << in.object->kind_name() << " \"" << in.object->Key() << "\" is valid\n";
    } else {
      ++invalid;
      io.err << "error: " << in.Where() << api::FormatInvalid(*in.object, errors) << "\n";
    }
  }
  io.out << valid << " valid, " << invalid << " invalid\n";
  return invalid == 0 ? kExitOk : kExitBadInput;
}

}  // namespace draforge::cli
