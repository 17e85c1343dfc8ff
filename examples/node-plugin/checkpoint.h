// The node plugin's record of the claims it prepared, <state-dir>/checkpoint.json: what a restarted
// plugin needs to answer kubelet's repeated NodePrepareResources with the same devices, and to
// rewrite the CDI files a reboot wiped (/var/run/cdi is a tmpfs) without asking the API server.
//
// The file: {"version":1,"entries":[{"namespace","name","uid","driver","fileName","document",
// "devices":[{"requests":[...],"pool","device","cdiDeviceIDs":[...]}]}]}, entries sorted by UID.
// Every change replaces the file whole (draforge_file_write_atomic: temp, fsync, rename, dir fsync).
//
// Not thread-safe: its one user (NodePreparer) serializes the calls.
#ifndef DRAFORGE_EXAMPLES_NODE_PLUGIN_CHECKPOINT_H_
#define DRAFORGE_EXAMPLES_NODE_PLUGIN_CHECKPOINT_H_

#include <map>
#include <string>
#include <vector>

#include "claim_preparer.h"
#include "draforge/draforge.hpp"

namespace draforge::node_plugin {

// One prepared claim.
struct CheckpointEntry {
  ClaimRef claim;
  std::string driver;
  std::string file_name;  // the claim's CDI spec file in the CDI directory
  std::string document;   // that file's bytes
  std::vector<PreparedDevice> devices;  // what Prepare returned
};

class Checkpoint {
 public:
  // The checkpoint at `path`; a missing file is an empty checkpoint (nothing prepared yet). Errors
  // (DRAFORGE_EINVALID, naming the file and the problem): a file that cannot be read, is not JSON,
  // has another version or a malformed entry. A damaged checkpoint is never dropped silently: the
  // claims it holds are prepared on this node.
  static Result<Checkpoint> Load(std::string path);

  const std::string& path() const { return path_; }
  // By claim UID.
  const std::map<std::string, CheckpointEntry>& entries() const { return entries_; }
  const CheckpointEntry* Find(const std::string& uid) const;

  // Records `entry` (replacing the one with its UID) and writes the file. On failure the file and
  // this object are unchanged; the error names the file.
  Result<void> Put(CheckpointEntry entry);
  // Forgets the claim `uid` and writes the file; an unknown UID is success without a write.
  Result<void> Remove(const std::string& uid);

 private:
  explicit Checkpoint(std::string path) : path_(std::move(path)) {}
  Result<void> Write(const std::map<std::string, CheckpointEntry>& entries) const;

  std::string path_;
  std::map<std::string, CheckpointEntry> entries_;
};

}  // namespace draforge::node_plugin

#endif  // DRAFORGE_EXAMPLES_NODE_PLUGIN_CHECKPOINT_H_
