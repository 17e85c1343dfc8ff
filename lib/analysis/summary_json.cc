#include "analysis/summary_json.h"

#include <utility>

#include "analysis/anomalies.h"
#include "analysis/internal/json_writer.h"
#include "analysis/inventory.h"

namespace draforge::analysis {

using internal::Key;
using internal::KeyInt;
using internal::KeyStr;

std::string SummaryJson(const store::Snapshot& snapshot) {
  const Summary s = Summarize(snapshot);
  const size_t anomalies = FindAnomalies(snapshot).size();
  rapidjson::StringBuffer buf;
  internal::JsonWriter w(buf);
  w.StartObject();
  internal::WriteSnapshotMember(w, snapshot);
  Key(w, "counts");
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
  for (const auto& [k, v] : counts) KeyInt(w, k, static_cast<int64_t>(v));
  w.EndObject();
  Key(w, "drivers");
  w.StartArray();
  for (const auto& d : s.drivers) {
    w.StartObject();
    KeyStr(w, "driver", d.driver);
    KeyInt(w, "pools", static_cast<int64_t>(d.pools));
    KeyInt(w, "resourceSlices", static_cast<int64_t>(d.resource_slices));
    KeyInt(w, "devices", static_cast<int64_t>(d.devices));
    KeyInt(w, "allocatedDevices", static_cast<int64_t>(d.allocated_devices));
    Key(w, "utilisation");
    w.Double(d.utilisation);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "pools");
  w.StartArray();
  for (const auto& p : s.pools) {
    w.StartObject();
    KeyStr(w, "driver", p.driver);
    KeyStr(w, "pool", p.pool);
    KeyStr(w, "node", p.node);
    KeyInt(w, "devices", static_cast<int64_t>(p.devices));
    KeyInt(w, "allocatedDevices", static_cast<int64_t>(p.allocated_devices));
    Key(w, "utilisation");
    w.Double(p.utilisation);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

}  // namespace draforge::analysis
