#include "analysis/pools_json.h"

#include <map>

#include "analysis/internal/json_writer.h"

namespace draforge::analysis {
namespace {

using internal::JsonWriter;
using internal::Key;
using internal::KeyBool;
using internal::KeyInt;
using internal::KeyStr;

void WriteQuantities(JsonWriter& w, const std::map<std::string, api::Quantity>& m) {
  w.StartObject();
  for (const auto& [k, q] : m) KeyStr(w, k, q.String());
  w.EndObject();
}

void WritePool(JsonWriter& w, const PoolUsage& p) {
  w.StartObject();
  KeyStr(w, "driver", p.driver);
  KeyStr(w, "pool", p.pool);
  KeyStr(w, "node", p.node);
  KeyInt(w, "generation", p.generation);
  KeyInt(w, "resourceSliceCount", p.resource_slice_count);
  Key(w, "resourceSlices");
  w.StartArray();
  for (const auto& s : p.slices) internal::Str(w, s);
  w.EndArray();
  KeyInt(w, "staleSlices", static_cast<int64_t>(p.stale_slices));
  KeyBool(w, "complete", p.complete);
  KeyBool(w, "invalid", p.invalid);
  KeyStr(w, "invalidReason", p.invalid_reason);
  KeyInt(w, "devices", static_cast<int64_t>(p.devices));
  KeyInt(w, "allocatedDevices", static_cast<int64_t>(p.allocated_devices));
  KeyInt(w, "taintedDevices", static_cast<int64_t>(p.tainted_devices));
  Key(w, "utilisation");
  w.Double(p.utilisation);
  Key(w, "sharedCounters");
  w.StartArray();
  for (const auto& cs : p.shared_counters) {
    w.StartObject();
    KeyStr(w, "name", cs.name);
    Key(w, "counters");
    WriteQuantities(w, cs.capacity);
    Key(w, "consumed");
    WriteQuantities(w, cs.consumed);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string PoolsJson(const store::Snapshot& snapshot, const PoolFilter& filter) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  internal::WriteSnapshotMember(w, snapshot);
  Key(w, "items");
  w.StartArray();
  for (const auto& pool : ListPools(snapshot, filter)) WritePool(w, pool);
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

}  // namespace draforge::analysis
