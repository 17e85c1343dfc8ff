#include "input.h"

#include <iostream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace draforge::cli {

std::string Inputs::Where(size_t i) const {
  const std::string source = cluster.empty() ? std::string(objects.source(i)) : cluster;
  const size_t position = cluster.empty() ? objects.position(i) : i;
  const size_t line = cluster.empty() ? objects.line(i) : 1;
  if (position == 0 && line <= 1) return source + ": ";
  return source + " (object " + std::to_string(position + 1) + ", line " + std::to_string(line) + "): ";
}

draforge::Result<draforge::Objects> ReadObjects(const std::vector<std::string>& sources, bool strict,
                                                size_t max_bytes) {
  draforge::LoadOptions options;
  options.strict = strict;
  options.max_bytes = max_bytes;
  std::string stdin_text;
  for (const std::string& s : sources) {
    if (s != "-") continue;
    stdin_text.assign(std::istreambuf_iterator<char>(std::cin), {});
    options.stdin_text = &stdin_text;
    break;
  }
  auto objects = draforge::Objects::Load(sources, options);
  if (!objects.ok() && objects.error().code == DRAFORGE_ELIMIT) {
    draforge::Error e = objects.error();
    e.message += " (--max-input-size)";
    return e;
  }
  return objects;
}

absl::StatusOr<std::vector<InputObject>> ReadInputs(const std::vector<std::string>& sources,
                                                    const InputOptions& options) {
  api::ManifestOptions manifest;
  manifest.decode = options.decode;
  // lib/ never reads standard input: the CLI reads it, once, when "-" is among the sources.
  std::string stdin_text;
  for (const std::string& s : sources) {
    if (s != "-") continue;
    stdin_text.assign(std::istreambuf_iterator<char>(std::cin), {});
    manifest.stdin_text = stdin_text;
    break;
  }
  auto loaded = api::LoadManifests(sources, manifest);
  if (!loaded.ok() && loaded.status().code() == absl::StatusCode::kResourceExhausted) {
    return absl::ResourceExhaustedError(absl::StrCat(loaded.status().message(), " (--max-input-size)"));
  }
  return loaded;
}

absl::Status ApplyAll(const std::vector<InputObject>& inputs, store::Cluster& cluster) {
  for (const InputObject& in : inputs) {
    if (!in.object.ok()) continue;
    absl::Status s = cluster.Apply(*in.object);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(in.Where(), s.message()));
  }
  return absl::OkStatus();
}

}  // namespace draforge::cli
