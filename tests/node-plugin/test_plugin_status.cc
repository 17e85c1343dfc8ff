// PluginStatus for the preparer's tests while the daemon's examples/node-plugin/plugin_status.cc is
// not in the tree (meson.build links that one when it is): conditions and readiness as
// plugin_status.h specifies them, and the counters (without the write-latency histogram, which no test reads).
#include "plugin_status.h"

namespace draforge::node_plugin {
void PluginStatus::SetCondition(const std::string& name, bool ok, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  conditions_[name] = {ok, reason};
}
std::pair<bool, std::string> PluginStatus::Readiness() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string reasons;
  for (const auto& [name, c] : conditions_) {
    if (!c.first) reasons += name + ": " + c.second + "\n";
  }
  return {reasons.empty(), reasons};
}
void PluginStatus::CountPrepare(bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  ++(ok ? prepares_ : prepare_failures_);
}
void PluginStatus::CountUnprepare(bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  ++(ok ? unprepares_ : unprepare_failures_);
}
void PluginStatus::ObserveWrite(double seconds, bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  ++writes_;
  if (!ok) ++write_failures_;
  write_seconds_sum_ += seconds;
}
std::string PluginStatus::Metrics() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const auto& [name, value] : {std::pair<const char*, uint64_t>{"prepares_total", prepares_},
                                    {"prepare_failures_total", prepare_failures_},
                                    {"unprepares_total", unprepares_},
                                    {"unprepare_failures_total", unprepare_failures_},
                                    {"cdi_write_failures_total", write_failures_}}) {
    out += std::string("draforge_node_plugin_") + name + " " + std::to_string(value) + "\n";
  }
  return out;
}
}  // namespace draforge::node_plugin
