#include "analysis/pools_json.h"

#include <map>

#include "analysis/internal/json_writer.h"

namespace draforge::analysis {
namespace {

void WriteQuantities(internal::JsonWriter& w, const std::map<std::string, api::Quantity>& m) {
  w.StartObject();
  for (const auto& [k, q] : m) internal::KeyStr(w, k, q.String());
  w.EndObject();
}

void WritePool(internal::JsonWriter& w, const PoolUsage& p) {
  w.StartObject();
  internal::KeyStr(w, "driver", p.driver);
  internal::KeyStr(w, "pool", p.pool);
  internal::KeyStr(w, "node", p.node);
  internal::KeyInt(w, "generation", p.generation);
  internal::KeyInt(w, "resourceSliceCount", p.resource_slice_count);
  internal::Key(w, "resourceSlices");
  w.StartArray();
  for (const auto& s : p.slices) internal::Str(w, s);
  w.EndArray();
  internal::KeyInt(w, "staleSlices", static_cast<int64_t>(p.stale_slices));
  internal::KeyBool(w, "complete", p.complete);
  internal::KeyBool(w, "invalid", p.invalid);
  internal::KeyStr(w, "invalidReason", p.invalid_reason);
  internal::KeyInt(w, "devices", static_cast<int64_t>(p.devices));
  internal::KeyInt(w, "allocatedDevices", static_cast<int64_t>(p.allocated_devices));
  internal::KeyInt(w, "taintedDevices", static_cast<int64_t>(p.tainted_devices));
  internal::Key(w, "utilisation");
  w.Double(p.utilisation);
  internal::Key(w, "sharedCounters");
  w.StartArray();
  for (const auto& cs : p.shared_counters) {
    w.StartObject();
    internal::KeyStr(w, "name", cs.name);
    internal::Key(w, "counters");
    WriteQuantities(w, cs.capacity);
    internal::Key(w, "consumed");
    WriteQuantities(w, cs.consumed);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string PoolsJson(const store::Snapshot& snapshot, const PoolFilter& filter) {
  return internal::ItemsView(snapshot, [&](internal::JsonWriter& w) {
    for (const auto& pool : ListPools(snapshot, filter)) WritePool(w, pool);
  });
}

}  // namespace draforge::analysis
