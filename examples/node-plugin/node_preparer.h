// The node plugin's preparer: what kubelet's NodePrepareResources / NodeUnprepareResources do to
// the node (the CDI spec files of the claims, the checkpoint), and what the plugin keeps true on its
// own (demo mode's static document; node mode's sync of the CDI directory with the API server).
//
// Prepare, per claim: the checkpoint answers a claim it holds (same devices, the file rewritten
// only when missing); else the claim is read (the API server, or the scenario without a cluster),
// its UID checked, its spec built by the library for this node and driver
// (draforge_cdi_claim_spec_json: not allocated, another node, no device of the driver are errors
// naming the claim), written crash-safely, and recorded in the checkpoint. Unprepare removes the
// file and the entry; a claim the checkpoint does not hold was never prepared here: success.
//
// Last known good: a failing API server or CDI directory leaves the files as they are and turns the
// PluginStatus condition "api" or "cdi" false with the reason; the next success turns it true.
//
// Threading: Prepare and Unprepare may be called from several threads at once (kubelet's gRPC
// threads); the checkpoint and the CDI directory are changed under one mutex, which node mode's sync
// thread takes too. API reads happen outside it.
#ifndef DRAFORGE_EXAMPLES_NODE_PLUGIN_NODE_PREPARER_H_
#define DRAFORGE_EXAMPLES_NODE_PLUGIN_NODE_PREPARER_H_

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint.h"
#include "claim_preparer.h"
#include "draforge/draforge.hpp"
#include "plugin_status.h"

namespace draforge::node_plugin {

class NodeSync;

struct NodePreparerOptions {
  std::string driver;  // the DRA driver served (--driver)
  std::string node;    // this node (--node)
  bool node_mode = false;  // --mode node: also keep cdi_dir equal to the claims allocated here
  std::string cdi_dir;     // where the CDI spec files go (created when missing)
  std::string state_dir;   // where checkpoint.json lives (created when missing)
  // Demo mode without a cluster: claims and slices from this file; "": the embedded
  // examples/scenarios/demo.yaml. Ignored when `client` is set.
  std::string scenario_file;
  const draforge::KubeClient* client = nullptr;  // nullptr: no cluster; else borrowed, outlives this
  PluginStatus* status = nullptr;                // borrowed, outlives this; nullptr: not reported
  std::chrono::seconds resync{30};               // node mode: period of the full sync
};

class NodePreparer : public ClaimPreparer {
 public:
  // Checks the options and loads the scenario (demo mode without a cluster). Errors
  // (DRAFORGE_EINVALID): a missing driver, node, cdi_dir or state_dir; node mode without a
  // cluster; a scenario that does not load (naming the file).
  static Result<std::unique_ptr<NodePreparer>> Create(NodePreparerOptions options);
  ~NodePreparer() override;

  // Restores the checkpoint (a damaged one is an error naming the file), rewrites the CDI files of
  // its claims that are missing (a reboot wipes /var/run/cdi; a failure only turns "cdi" false),
  // writes demo mode's static document "<vendor>-<class>.json" with this node's devices of the
  // driver (none: an error with a scenario, no document with a cluster), and in node mode starts
  // the sync. Call once, before Prepare and Unprepare.
  Result<void> Start();
  // Ends node mode's sync (joins its thread). Idempotent; Prepare/Unprepare still work after it.
  void Stop();

  std::map<std::string, PrepareResult> Prepare(const std::vector<ClaimRef>& claims) override;
  std::map<std::string, std::string> Unprepare(const std::vector<ClaimRef>& claims) override;

 private:
  explicit NodePreparer(NodePreparerOptions options);
  PrepareResult PrepareOne(const ClaimRef& ref);
  std::string UnprepareOne(const ClaimRef& ref);
  // The claim's JSON; "" when it does not exist. Errors: the source cannot answer.
  Result<std::string> ReadClaim(const ClaimRef& ref);
  // Writes a CDI document into cdi_dir, timed and reported. Call with mu_ held.
  Result<void> WriteSpecLocked(const std::string& file_name, const std::string& document);
  Result<void> WriteStaticDocument();
  void SetCondition(const char* name, bool ok, const std::string& reason = "");

  NodePreparerOptions options_;
  std::optional<Snapshot> scenario_;  // demo mode without a cluster
  std::mutex mu_;                     // the checkpoint and the CDI directory
  std::optional<Checkpoint> checkpoint_;
  std::unique_ptr<NodeSync> sync_;
};

}  // namespace draforge::node_plugin

#endif  // DRAFORGE_EXAMPLES_NODE_PLUGIN_NODE_PREPARER_H_
