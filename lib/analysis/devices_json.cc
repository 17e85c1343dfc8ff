#include "analysis/devices_json.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "analysis/internal/json_member.h"
#include "analysis/internal/json_writer.h"
#include "api/codec.h"
#include "graph/graph.h"

namespace draforge::analysis {
namespace {

void WriteTaint(internal::JsonWriter& w, const DeviceTaintSource& t) {
  w.StartObject();
  internal::KeyStr(w, "key", t.taint.key.value_or(""));
  internal::KeyStr(w, "value", t.taint.value.value_or(""));
  internal::KeyStr(w, "effect", t.taint.effect.value_or(""));
  internal::KeyStr(w, "timeAdded", t.taint.time_added.value_or(""));
  internal::KeyStr(w, "source", t.source);
  w.EndObject();
}

// Device `index` of an encoded ResourceSlice, or null.
const rapidjson::Value* EncodedDevice(const std::optional<rapidjson::Document>& slice, size_t index) {
  if (!slice || !slice->IsObject()) return nullptr;
  auto spec = slice->FindMember("spec");
  if (spec == slice->MemberEnd() || !spec->value.IsObject()) return nullptr;
  auto devs = spec->value.FindMember("devices");
  if (devs == spec->value.MemberEnd() || !devs->value.IsArray() || index >= devs->value.Size()) return nullptr;
  return &devs->value[static_cast<rapidjson::SizeType>(index)];
}

void WriteDevice(internal::JsonWriter& w, const DeviceReport& d, const rapidjson::Value* dev_json) {
  const std::string name = d.device->name.value_or("");
  w.StartObject();
  internal::KeyStr(w, "id", graph::DeviceId(d.driver, d.pool, name));
  internal::KeyStr(w, "driver", d.driver);
  internal::KeyStr(w, "pool", d.pool);
  internal::KeyStr(w, "name", name);
  internal::KeyStr(w, "resourceSlice", d.slice->metadata.name.value_or(""));
  internal::KeyStr(w, "node", d.node);
  internal::Key(w, "attributes");
  internal::WriteMember(w, dev_json, "attributes", false);
  internal::Key(w, "capacity");
  internal::WriteMember(w, dev_json, "capacity", false);
  internal::Key(w, "consumesCounters");
  w.StartArray();
  for (const auto& cc : d.device->consumes_counters) {
    w.StartObject();
    internal::KeyStr(w, "counterSet", cc.counter_set.value_or(""));
    internal::Key(w, "counters");
    w.StartObject();
    for (const auto& [k, v] : cc.counters) internal::KeyStr(w, k, v.value ? v.value->String() : "");
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  internal::Key(w, "taints");
  w.StartArray();
  for (const auto& t : d.taints) WriteTaint(w, t);
  w.EndArray();
  internal::Key(w, "heldBy");
  w.StartArray();
  for (const auto& h : d.held_by) {
    w.StartObject();
    internal::KeyStr(w, "namespace", h.claim_namespace);
    internal::KeyStr(w, "name", h.claim_name);
    internal::KeyStr(w, "request", h.result && h.result->request ? *h.result->request : "");
    internal::KeyStr(w, "shareID", h.share_id);
    internal::KeyBool(w, "adminAccess", h.admin_access);
    w.EndObject();
  }
  w.EndArray();
  internal::KeyBool(w, "inUse", d.in_use);
  internal::KeyBool(w, "allocated", !d.held_by.empty());
  w.EndObject();
}

}  // namespace

std::string DevicesJson(const store::Snapshot& snapshot, const DeviceFilter& filter, size_t offset, size_t limit) {
  const auto devices = ListDevices(snapshot, filter);
  rapidjson::StringBuffer buf;
  internal::JsonWriter w(buf);
  w.StartObject();
  internal::WriteSnapshotMember(w, snapshot);
  internal::KeyInt(w, "total", static_cast<int64_t>(devices.size()));
  internal::KeyInt(w, "offset", static_cast<int64_t>(offset));
  internal::KeyInt(w, "limit", static_cast<int64_t>(limit));
  internal::Key(w, "items");
  w.StartArray();
  // Attributes, capacity and counters are written exactly as the API spells them: encode each slice
  // once and copy its devices' members.
  const api::ResourceSlice* encoded_slice = nullptr;
  std::optional<rapidjson::Document> encoded;
  const size_t begin = std::min(offset, devices.size());
  const size_t end = begin + std::min(limit, devices.size() - begin);
  for (size_t i = begin; i < end; ++i) {
    const auto& d = devices[i];
    if (d.slice != encoded_slice) {
      encoded_slice = d.slice;
      encoded.reset();
      if (const api::Object* obj = snapshot.Get(api::Kind::kResourceSlice, "", d.slice->metadata.name.value_or(""))) {
        // In v1, the schema's shape, whatever version the slice was read in (v1beta1 nests them in "basic").
        auto e = api::EncodeObject(*obj, "resource.k8s.io/v1");
        if (e.ok()) encoded = *std::move(e);
      }
    }
    WriteDevice(w, d, EncodedDevice(encoded, d.device_index));
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

}  // namespace draforge::analysis
