// Where the demo/scenario mode's objects come from: the embedded scenario or a file, plus an
// optional directory of files that are re-applied when they change (live changes without a cluster).
// Loading is the library's (draforge_cluster_apply, draforge_objects_load, draforge_cluster_apply_objects);
// this file only decides when and names the source in errors.
#ifndef DRAFORGE_EXAMPLES_SERVER_SCENARIO_SOURCE_H_
#define DRAFORGE_EXAMPLES_SERVER_SCENARIO_SOURCE_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "draforge/draforge.hpp"

namespace draforge::server {

// Decodes a YAML/JSON stream and applies every object to `cluster`, all or nothing. Errors start
// with `source`, then the library's message naming the object ("object 2 (line 9): ...").
Result<void> LoadText(std::string_view text, std::string_view source, Cluster& cluster);

// Reads file `path` (draforge_objects_load), refusing a file larger than `max_bytes` (0: the
// library's default, 32 MiB) with a message that names --max-input-size. Every object must decode:
// errors name the file and the object.
Result<Objects> ReadFile(const std::string& path, size_t max_bytes);

// Applies the .yaml/.yml/.json files of a directory on top of the store, and keeps doing so: each
// Poll() loads the directory afresh into a staging store (every file, sorted, all or nothing; no
// file larger than `max_bytes`, 0: the library's default) and carries what changed since the previous poll into the store (objects
// added or modified are applied, objects no file holds any more are deleted).
class WatchDir {
 public:
  WatchDir(std::string dir, Cluster& cluster, size_t max_bytes = 0);
  // True when something was applied or deleted. While the directory does not load (a file that
  // does not decode), its error is reported through `on_error` once (again only when it changes)
  // and the store keeps what the last good load gave it. A directory whose file names, sizes and
  // modification times are as at the last poll is not read again.
  bool Poll(const std::function<void(const std::string&)>& on_error);

 private:
  std::string dir_;
  Cluster& cluster_;
  size_t max_bytes_;
  std::optional<Snapshot> loaded_;  // the staging store of the last good load
  std::string last_error_;
  std::string stamp_;  // the directory's names, sizes and modification times at the last load
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_SCENARIO_SOURCE_H_
