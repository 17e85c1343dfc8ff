#include "commands.h"
#include "draforge/version.h"

namespace draforge::cli {

int RunVersion(const Args& args, Io io) {
  int code = kExitOk;
  auto flags = ParseOrUsage(args, {{{"-o", "--output"}, true, "text (default) or json"}}, "draforge version [-o json]",
                            io, code);
  if (!flags) return code;
  const std::string format = flags->GetOr("-o", "text");
  if (format == "json") {
    io.out << "{\"version\":\"" << DRAFORGE_VERSION_STRING << "\",\"kubernetes\":\"" << DRAFORGE_KUBERNETES_VERSION
           << "\"}\n";
  } else if (format == "text") {
    io.out << "draforge " << DRAFORGE_VERSION_STRING << " (resource.k8s.io as of Kubernetes "
           << DRAFORGE_KUBERNETES_VERSION << ")\n";
  } else {
    io.err << "error: --output: unknown format \"" << format << "\" (text, json)\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace draforge::cli
