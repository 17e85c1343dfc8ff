// Reading objects for the CLI: files, directories and standard input (`-f`).
#ifndef DRAFORGE_EXAMPLES_CLI_INPUT_H_
#define DRAFORGE_EXAMPLES_CLI_INPUT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/codec.h"
#include "api/manifests.h"
#include "api/object.h"
#include "draforge/draforge.hpp"
#include "store/cluster.h"

namespace draforge::cli {

// Objects a command read through the C ABI: from files (-f) or from a live cluster.
struct Inputs {
  draforge::Objects objects;
  std::string cluster;  // "cluster <server>" when read from a cluster; "" when read from files

  // "file.yaml: " for the first object of a source, else "file.yaml (object 3, line 40): " (a
  // cluster is one source).
  std::string Where(size_t i) const;
};

// Reads the -f sources `sources` (draforge_objects_load; "-" reads standard input here, the library
// never does). The error's message ends in " (--max-input-size)" when a file was too large.
draforge::Result<draforge::Objects> ReadObjects(const std::vector<std::string>& sources, bool strict,
                                                size_t max_bytes);

// One object read from a source, or the reason it could not be read (lib/api's manifest loader).
// TODO(clisim): the InputObject functions below go once cmd_sim.cc and cmd_cel.cc use Inputs.
using InputObject = api::ManifestObject;

struct InputOptions {
  api::DecodeOptions decode;
};

// Expands `-f` arguments (api::LoadManifests): "-" is standard input; a directory contributes every
// .yaml, .yml and .json file in it (not recursive, sorted, as kubectl does without -R). Fails when a source cannot be read
// or has a syntax error; an object that does not decode is returned with its error.
absl::StatusOr<std::vector<InputObject>> ReadInputs(const std::vector<std::string>& sources,
                                                    const InputOptions& options);

// Applies every decoded object to `cluster` (objects that failed to decode are skipped). Errors name
// the source of the object the store refused (e.g. one without a name).
absl::Status ApplyAll(const std::vector<InputObject>& inputs, store::Cluster& cluster);

}  // namespace draforge::cli

#endif  // DRAFORGE_EXAMPLES_CLI_INPUT_H_
