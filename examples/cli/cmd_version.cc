#include "commands.h"
#include "draforge/version.h"
#include "json_fields.h"

namespace draforge::cli {
namespace {

// `version --kubernetes`: draforge_kubernetes_versions_json as is (json), or one line per version
// with its allocator variant and gates (text).
int PrintKubernetesVersions(const std::string& format, Io io) {
  auto versions = draforge::KubernetesVersionsJson();
  if (!versions.ok()) {
    io.err << "error: " << versions.error().message << "\n";
    return kExitBadInput;
  }
  if (format == "json") {
    io.out << *versions << "\n";
    return kExitOk;
  }
  auto doc = ParseAbiJson(*versions, "draforge_kubernetes_versions_json");
  if (!doc.ok()) {
    io.err << "error: " << doc.error().message << "\n";
    return kExitBadInput;
  }
  for (const auto& v : doc->GetArray()) {
    io.out << "Kubernetes " << v["version"].GetString() << (v["latest"].GetBool() ? " (default)" : "")
           << ": default allocator " << v["allocatorVariant"].GetString() << "\n  gates:";
    for (const auto& g : v["featureGates"].GetArray()) {
      io.out << " " << g["name"].GetString() << "=" << (g["default"].GetBool() ? "true" : "false")
             << (g["locked"].GetBool() ? "(locked)" : "");
    }
    io.out << "\n  resource.k8s.io:";
    for (const auto& k : v["servedVersions"].GetObject()) {
      io.out << " " << k.name.GetString() << "[";
      const char* sep = "";
      for (const auto& gv : k.value.GetArray()) {
        io.out << sep << gv.GetString();
        sep = ",";
      }
      io.out << "]";
    }
    io.out << "\n";
  }
  return kExitOk;
}

}  // namespace

int RunVersion(const Args& args, Io io) {
  int code = kExitOk;
  auto flags = ParseOrUsage(args,
                            {{{"-o", "--output"}, true, "text (default) or json"},
                             {{"--kubernetes"}, false, "list the supported Kubernetes versions (--kubernetes-version)"}},
                            "draforge version [--kubernetes] [-o json]", io, code);
  if (!flags) return code;
  const std::string format = flags->GetOr("-o", "text");
  if (flags->Has("--kubernetes") && (format == "json" || format == "text")) return PrintKubernetesVersions(format, io);
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
