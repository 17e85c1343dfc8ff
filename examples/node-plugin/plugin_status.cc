#include "plugin_status.h"

#include <cstdio>
#include <iterator>

namespace draforge::node_plugin {
namespace {

// Upper bounds (seconds) of draforge_node_plugin_cdi_write_seconds; the last bucket of
// write_buckets_ is +Inf. A CDI write is a small file with two fsyncs: milliseconds on a healthy
// disk, seconds when the disk is in trouble.
constexpr double kWriteBounds[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 10};
constexpr size_t kWriteBucketCount = std::size(kWriteBounds) + 1;

// Prometheus text for a double ("0.001", "10", "+Inf").
std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

void Counter(std::string& out, const char* name, const char* help, uint64_t value) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " counter\n" + name + " " +
         std::to_string(value) + "\n";
}

}  // namespace

void PluginStatus::SetCondition(const std::string& name, bool ok, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  conditions_[name] = {ok, ok ? std::string() : reason};
}

std::pair<bool, std::string> PluginStatus::Readiness() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string reasons;
  for (const auto& [name, condition] : conditions_) {
    if (!condition.first) reasons += name + ": " + condition.second + "\n";
  }
  return {reasons.empty(), reasons};
}

void PluginStatus::CountPrepare(bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  ++prepares_;
  if (!ok) ++prepare_failures_;
}

void PluginStatus::CountUnprepare(bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  ++unprepares_;
  if (!ok) ++unprepare_failures_;
}

void PluginStatus::ObserveWrite(double seconds, bool ok) {
  static_assert(kWriteBucketCount == std::size(decltype(write_buckets_){}),
                "plugin_status.h's write_buckets_ has one slot per bound and +Inf");
  std::lock_guard<std::mutex> lock(mu_);
  ++writes_;
  if (!ok) ++write_failures_;
  write_seconds_sum_ += seconds;
  size_t i = 0;
  while (i < std::size(kWriteBounds) && seconds > kWriteBounds[i]) ++i;
  ++write_buckets_[i];
}

std::string PluginStatus::Metrics() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  Counter(out, "draforge_node_plugin_prepares_total", "Claims kubelet asked to prepare (NodePrepareResources).",
          prepares_);
  Counter(out, "draforge_node_plugin_prepare_failures_total", "Claims whose prepare answered an error.",
          prepare_failures_);
  Counter(out, "draforge_node_plugin_unprepares_total",
          "Claims kubelet asked to unprepare (NodeUnprepareResources).", unprepares_);
  Counter(out, "draforge_node_plugin_unprepare_failures_total", "Claims whose unprepare answered an error.",
          unprepare_failures_);
  const char* h = "draforge_node_plugin_cdi_write_seconds";
  out += std::string("# HELP ") + h + " Time to write (or remove) one CDI spec, fsync and rename included.\n";
  out += std::string("# TYPE ") + h + " histogram\n";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < kWriteBucketCount; ++i) {
    cumulative += write_buckets_[i];
    const std::string le = i < std::size(kWriteBounds) ? Number(kWriteBounds[i]) : "+Inf";
    out += std::string(h) + "_bucket{le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
  }
  out += std::string(h) + "_sum " + Number(write_seconds_sum_) + "\n";
  out += std::string(h) + "_count " + std::to_string(writes_) + "\n";
  Counter(out, "draforge_node_plugin_cdi_write_failures_total", "CDI spec writes or removals that failed.",
          write_failures_);
  std::string ready = "1";
  for (const auto& [name, condition] : conditions_) {
    if (!condition.first) ready = "0";
  }
  out += "# HELP draforge_node_plugin_ready 1 when /readyz answers 200.\n# TYPE draforge_node_plugin_ready gauge\n";
  out += "draforge_node_plugin_ready " + ready + "\n";
  return out;
}

}  // namespace draforge::node_plugin
