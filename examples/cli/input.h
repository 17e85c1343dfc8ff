// Reading objects for the CLI: files, directories and standard input (`-f`).
#ifndef DRAFORGE_EXAMPLES_CLI_INPUT_H_
#define DRAFORGE_EXAMPLES_CLI_INPUT_H_

#include <string>
#include <vector>

#include "draforge/draforge.hpp"

namespace draforge::cli {

// Objects a command read through the C ABI: from files (-f) or from a live cluster.
struct Inputs {
  draforge::Objects objects;
  std::string cluster;  // "cluster <server>" when read from a cluster; "" when read from files
  std::string server_git_version;  // the cluster's /version gitVersion ("v1.36.3"); "" for files
  // Why the cluster's ResourceQuotas could not be read (the identity may not list them); "" when
  // they were, or for files.
  std::string resource_quotas_unread;

  // "file.yaml: " for the first object of a source, else "file.yaml (object 3, line 40): " (a
  // cluster is one source).
  std::string Where(size_t i) const;
};

// Reads the -f sources `sources` (draforge_objects_load; "-" reads standard input here, the library
// never does). The error's message ends in " (--max-input-size)" when a file was too large.
draforge::Result<draforge::Objects> ReadObjects(const std::vector<std::string>& sources, bool strict,
                                                size_t max_bytes);

}  // namespace draforge::cli

#endif  // DRAFORGE_EXAMPLES_CLI_INPUT_H_
