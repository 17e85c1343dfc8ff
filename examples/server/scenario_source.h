// Where the demo/scenario mode's objects come from: the embedded scenario or a file, plus an
// optional directory of files that are re-applied when they change (live changes without a cluster).
#ifndef DRAFORGE_EXAMPLES_SERVER_SCENARIO_SOURCE_H_
#define DRAFORGE_EXAMPLES_SERVER_SCENARIO_SOURCE_H_

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "api/object.h"
#include "store/cluster.h"

namespace draforge::server {

// Decodes a YAML/JSON stream and applies every object to `cluster`. Errors name `source` and the
// object (index) that did not decode or that the store refused; objects before it stay applied.
absl::Status LoadText(std::string_view text, std::string_view source, store::Cluster& cluster);

// Reads `path` and LoadText()s it. Errors: NotFound/InvalidArgument naming the file.
absl::Status LoadFile(const std::string& path, store::Cluster& cluster);

// Applies the .yaml/.yml/.json files of a directory on top of the store, and keeps doing so:
// Poll() re-reads the files when any of them changed (name, size or modification time), applies
// their objects and deletes the objects a previous poll applied that no file holds any more.
class WatchDir {
 public:
  WatchDir(std::string dir, store::Cluster& cluster);
  // True when something was applied or deleted. A file that does not decode is reported through
  // `on_error` and its previous objects are kept.
  bool Poll(const std::function<void(const std::string&)>& on_error);

 private:
  using Identity = std::tuple<int, std::string, std::string, std::string>;  // kind, kind name, ns, name
  std::string dir_;
  store::Cluster& cluster_;
  std::map<std::string, std::pair<uintmax_t, std::filesystem::file_time_type>> seen_;
  std::map<std::string, std::map<Identity, api::Object>> applied_;  // by file
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_SCENARIO_SOURCE_H_
