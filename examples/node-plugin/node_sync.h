// Node mode's second duty: the kubelet-visible CDI directory holds exactly the DRAForge spec files
// of the claims allocated on this node for this driver, also those kubelet has not asked for yet
// and none of claims that are gone (files that are not DRAForge's are never touched).
//
// A list + watch of ResourceClaims and Pods (draforge::KubeSource) fills a store; a sync
// (draforge_cdi_generate for the node and driver, then draforge_cdi_specs_sync) runs after changes
// and every `resync`. Never before the first complete list: an empty store would remove every file.
// A file that cannot be written keeps its previous document and turns "cdi" false.
//
// Because the watch keeps the store's last state when the API server goes away, files stay as they
// were; a cheap probe (GET /version, bounded by its 2 s period whatever the client's timeout) turns
// "api" false within two periods of the API server stopping or falling silent, and true again at
// its first answer.
#ifndef DRAFORGE_EXAMPLES_NODE_PLUGIN_NODE_SYNC_H_
#define DRAFORGE_EXAMPLES_NODE_PLUGIN_NODE_SYNC_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "draforge/draforge.hpp"
#include "plugin_status.h"

namespace draforge::node_plugin {

struct NodeSyncOptions {
  std::string driver, node, cdi_dir;
  const KubeClient* client = nullptr;  // borrowed; outlives the sync
  PluginStatus* status = nullptr;      // borrowed; may be null
  std::chrono::seconds resync{30};
  std::chrono::milliseconds probe{2000};
  // Held while the CDI directory changes, shared with the preparer (borrowed).
  std::mutex* dir_mutex = nullptr;
};

class NodeSync {
 public:
  // Starts the source and the sync thread. Errors: the source cannot start (discovery failed).
  static Result<std::unique_ptr<NodeSync>> Start(NodeSyncOptions options);
  ~NodeSync();
  // Ends the watch and joins the thread. Idempotent.
  void Stop();

 private:
  explicit NodeSync(NodeSyncOptions options, Cluster cluster);
  void Run();
  void Probe();
  void SyncOnce();
  void SetCondition(const char* name, bool ok, const std::string& reason = "");

  NodeSyncOptions options_;
  Cluster cluster_;                  // before source_: the source writes into it until destroyed
  std::optional<KubeSource> source_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool changed_ = true;  // the first sync runs as soon as the store is synced
  std::thread thread_;
};

}  // namespace draforge::node_plugin

#endif  // DRAFORGE_EXAMPLES_NODE_PLUGIN_NODE_SYNC_H_
