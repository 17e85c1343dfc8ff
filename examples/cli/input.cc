#include "input.h"

#include <iostream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace draforge::cli {

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
