#include "analysis/summary_json.h"

#include <utility>

#include "analysis/anomalies.h"
#include "analysis/internal/json_writer.h"
#include "analysis/inventory.h"

namespace draforge::analysis {

std::string SummaryJson(const store::Snapshot& snapshot) {
  const Summary s = Summarize(snapshot);
  const size_t anomalies = FindAnomalies(snapshot).size();
  rapidjson::StringBuffer buf;
  internal::JsonWriter w(buf);
  w.StartObject();
  internal::WriteSnapshotMember(w, snapshot);
  internal::Key(w, "counts");
  w.StartObject();
  const auto& c = s.counts;
  const std::pair<const char*, size_t> counts[] = {
      {"nodes", c.nodes},
      {"pods", c.pods},
      {"deviceClasses", c.device_classes},
      {"deviceTaintRules", c.device_taint_rules},
      {"resourceSlices", c.resource_slices},
      {"pools", c.pools},
      {"drivers", c.drivers},
      {"devices", c.devices},
      {"claims", c.claims},
      {"allocatedClaims", c.allocated_claims},
      {"reservedClaims", c.reserved_claims},
      {"pendingClaims", c.pending_claims},
      {"allocatedDevices", c.allocated_devices},
      {"claimTemplates", c.claim_templates},
      {"anomalies", anomalies},
  };
  for (const auto& [k, v] : counts) internal::KeyInt(w, k, static_cast<int64_t>(v));
  w.EndObject();
  internal::Key(w, "drivers");
  w.StartArray();
  for (const auto& d : s.drivers) {
    w.StartObject();
    internal::KeyStr(w, "driver", d.driver);
    internal::KeyInt(w, "pools", static_cast<int64_t>(d.pools));
    internal::KeyInt(w, "resourceSlices", static_cast<int64_t>(d.resource_slices));
    internal::KeyInt(w, "devices", static_cast<int64_t>(d.devices));
    internal::KeyInt(w, "allocatedDevices", static_cast<int64_t>(d.allocated_devices));
    internal::Key(w, "utilisation");
    w.Double(d.utilisation);
    w.EndObject();
  }
  w.EndArray();
  internal::Key(w, "pools");
  w.StartArray();
  for (const auto& p : s.pools) {
    w.StartObject();
    internal::KeyStr(w, "driver", p.driver);
    internal::KeyStr(w, "pool", p.pool);
    internal::KeyStr(w, "node", p.node);
    internal::KeyInt(w, "devices", static_cast<int64_t>(p.devices));
    internal::KeyInt(w, "allocatedDevices", static_cast<int64_t>(p.allocated_devices));
    internal::Key(w, "utilisation");
    w.Double(p.utilisation);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

}  // namespace draforge::analysis
