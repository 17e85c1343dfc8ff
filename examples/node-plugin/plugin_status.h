// What the node plugin tells its operators over HTTP (/readyz, /metrics): readiness with a reason,
// and counters of kubelet's calls. Written by the gRPC front, the preparer and the node-mode sync;
// read by the HTTP handlers. Thread-safe.
#ifndef DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_STATUS_H_
#define DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_STATUS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace draforge::node_plugin {

class PluginStatus {
 public:
  // Readiness is the conjunction of named conditions ("registration", "api", "cdi", ...): each
  // writer sets its own; /readyz is 200 when every condition set so far holds, else 503 with the
  // reasons of those that do not.
  void SetCondition(const std::string& name, bool ok, const std::string& reason = "");
  // {ready, reasons ("name: reason" lines, empty when ready)}.
  std::pair<bool, std::string> Readiness() const;

  // Counters of kubelet's calls, one per claim.
  void CountPrepare(bool ok);
  void CountUnprepare(bool ok);
  // How long one CDI spec write (or removal) took, with fsync and rename.
  void ObserveWrite(double seconds, bool ok);

  // Prometheus text exposition of everything above (draforge_node_plugin_* families).
  std::string Metrics() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::pair<bool, std::string>> conditions_;
  uint64_t prepares_ = 0, prepare_failures_ = 0, unprepares_ = 0, unprepare_failures_ = 0;
  uint64_t writes_ = 0, write_failures_ = 0;
  double write_seconds_sum_ = 0;
  uint64_t write_buckets_[12] = {};  // le 0.001 .. 10 s and +Inf, see plugin_status.cc
};

}  // namespace draforge::node_plugin

#endif  // DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_STATUS_H_
