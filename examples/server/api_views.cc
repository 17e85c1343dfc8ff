#include "api_views.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/allocator.h"
#include "analysis/anomalies.h"
#include "analysis/claim_state.h"
#include "analysis/diagnostics.h"
#include "analysis/inventory.h"
#include "api/codec.h"
#include "common/status.h"
#include "graph/graph.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::server {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr int64_t kDefaultDeviceLimit = 1000;
constexpr int64_t kMaxDeviceLimit = 10000;

void Str(Writer& w, std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }
void Key(Writer& w, std::string_view s) { w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size())); }
void KeyStr(Writer& w, std::string_view k, std::string_view v) {
  Key(w, k);
  Str(w, v);
}
void KeyBool(Writer& w, std::string_view k, bool v) {
  Key(w, k);
  w.Bool(v);
}
void KeyInt(Writer& w, std::string_view k, int64_t v) {
  Key(w, k);
  w.Int64(v);
}

void WriteSnapshot(Writer& w, const store::Snapshot& snapshot) {
  Key(w, "snapshot");
  w.StartObject();
  KeyInt(w, "generation", static_cast<int64_t>(snapshot.generation()));
  KeyStr(w, "resourceVersion", snapshot.resource_version());
  w.EndObject();
}

// The parameters an endpoint accepts; anything else is a 400 so that a typo is not silently ignored.
class Params {
 public:
  static absl::StatusOr<Params> Parse(const Query& query, std::initializer_list<std::string_view> allowed) {
    Params p;
    for (const auto& [name, value] : query) {
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        std::vector<std::string> names(allowed.begin(), allowed.end());
        return absl::InvalidArgumentError(absl::StrCat(
            "unknown query parameter \"", name, "\"",
            names.empty() ? " (this endpoint takes none)" : absl::StrCat(" (allowed: ", absl::StrJoin(names, ", "), ")")));
      }
      if (!p.values_.emplace(name, value).second) {
        return absl::InvalidArgumentError(absl::StrCat("query parameter \"", name, "\" is given more than once"));
      }
    }
    return p;
  }
  std::string Get(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? std::string() : it->second;
  }
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  absl::StatusOr<std::optional<bool>> Bool(const std::string& name) const {
    if (!Has(name)) return std::optional<bool>();
    const std::string v = Get(name);
    if (v == "true") return std::optional<bool>(true);
    if (v == "false") return std::optional<bool>(false);
    return absl::InvalidArgumentError(
        absl::StrCat("query parameter \"", name, "\" must be true or false, not \"", v, "\""));
  }
  absl::StatusOr<int64_t> Int(const std::string& name, int64_t fallback, int64_t min, int64_t max) const {
    if (!Has(name)) return fallback;
    const std::string v = Get(name);
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n < min || n > max) {
      return absl::InvalidArgumentError(absl::StrCat("query parameter \"", name, "\" must be an integer from ", min,
                                                     " to ", max, ", not \"", v, "\""));
    }
    return n;
  }

 private:
  std::map<std::string, std::string> values_;
};

void WriteQuantities(Writer& w, const std::map<std::string, api::Quantity>& m) {
  w.StartObject();
  for (const auto& [k, q] : m) KeyStr(w, k, q.String());
  w.EndObject();
}

void WritePool(Writer& w, const analysis::PoolUsage& p) {
  w.StartObject();
  KeyStr(w, "driver", p.driver);
  KeyStr(w, "pool", p.pool);
  KeyStr(w, "node", p.node);
  KeyInt(w, "generation", p.generation);
  KeyInt(w, "resourceSliceCount", p.resource_slice_count);
  Key(w, "resourceSlices");
  w.StartArray();
  for (const auto& s : p.slices) Str(w, s);
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

// Copies member `name` of `object` (a JSON object) into the writer, or writes `fallback`.
void WriteMember(Writer& w, const rapidjson::Value* object, const char* name, bool array_fallback) {
  if (object != nullptr && object->IsObject()) {
    auto it = object->FindMember(name);
    if (it != object->MemberEnd()) {
      it->value.Accept(w);
      return;
    }
  }
  if (array_fallback) {
    w.StartArray();
    w.EndArray();
  } else {
    w.StartObject();
    w.EndObject();
  }
}

void WriteTaint(Writer& w, const analysis::DeviceTaintSource& t) {
  w.StartObject();
  KeyStr(w, "key", t.taint.key.value_or(""));
  KeyStr(w, "value", t.taint.value.value_or(""));
  KeyStr(w, "effect", t.taint.effect.value_or(""));
  KeyStr(w, "timeAdded", t.taint.time_added.value_or(""));
  KeyStr(w, "source", t.source);
  w.EndObject();
}

void WriteClaimRequestFields(Writer& w, std::string_view name, const std::optional<std::string>& cls,
                             const std::optional<std::string>& mode, const std::optional<int64_t>& count,
                             bool admin, const std::vector<api::DeviceSelector>& selectors) {
  KeyStr(w, "name", name);
  KeyStr(w, "deviceClassName", cls.value_or(""));
  const std::string m = mode.value_or(api::kAllocationModeExactCount);
  KeyStr(w, "allocationMode", m);
  // As the API server defaults it: ExactCount without a count means one device; All has no count.
  KeyInt(w, "count", count.value_or(m == api::kAllocationModeExactCount ? 1 : 0));
  KeyBool(w, "adminAccess", admin);
  Key(w, "selectors");
  w.StartArray();
  for (const auto& s : selectors) {
    if (s.cel && s.cel->expression) Str(w, *s.cel->expression);
  }
  w.EndArray();
}

void WriteClaim(Writer& w, const store::Snapshot& snapshot, const api::Object& object, const api::ResourceClaim& c) {
  const std::string ns = c.metadata.namespace_.value_or(""), name = c.metadata.name.value_or("");
  w.StartObject();
  KeyStr(w, "namespace", ns);
  KeyStr(w, "name", name);
  KeyStr(w, "uid", c.metadata.uid.value_or(""));
  KeyStr(w, "creationTimestamp", c.metadata.creation_timestamp.value_or(""));
  KeyStr(w, "state", analysis::ClaimStateName(analysis::StateOf(c)));
  KeyBool(w, "deleting", c.metadata.deletion_timestamp.has_value());
  Key(w, "requests");
  w.StartArray();
  if (c.spec && c.spec->devices) {
    for (const auto& r : c.spec->devices->requests) {
      w.StartObject();
      if (r.exactly) {
        WriteClaimRequestFields(w, r.name.value_or(""), r.exactly->device_class_name, r.exactly->allocation_mode,
                                r.exactly->count, r.exactly->admin_access.value_or(false), r.exactly->selectors);
      } else {
        WriteClaimRequestFields(w, r.name.value_or(""), std::nullopt, std::nullopt, std::nullopt, false, {});
      }
      Key(w, "firstAvailable");
      w.StartArray();
      for (const auto& sub : r.first_available) {
        w.StartObject();
        WriteClaimRequestFields(w, sub.name.value_or(""), sub.device_class_name, sub.allocation_mode, sub.count,
                                false, sub.selectors);
        Key(w, "firstAvailable");
        w.StartArray();
        w.EndArray();
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
  }
  w.EndArray();
  Key(w, "allocation");
  if (c.status && c.status->allocation) {
    const auto& a = *c.status->allocation;
    w.StartObject();
    KeyStr(w, "node", graph::SingleNodeName(a.node_selector ? &*a.node_selector : nullptr).value_or(""));
    Key(w, "results");
    w.StartArray();
    if (a.devices) {
      for (const auto& r : a.devices->results) {
        w.StartObject();
        KeyStr(w, "request", r.request.value_or(""));
        KeyStr(w, "driver", r.driver.value_or(""));
        KeyStr(w, "pool", r.pool.value_or(""));
        KeyStr(w, "device", r.device.value_or(""));
        KeyStr(w, "shareID", r.share_id.value_or(""));
        KeyBool(w, "adminAccess", r.admin_access.value_or(false));
        KeyBool(w, "deviceKnown", snapshot.FindDevice(r.driver.value_or(""), r.pool.value_or(""),
                                                       r.device.value_or(""))
                                          .device != nullptr);
        w.EndObject();
      }
    }
    w.EndArray();
    w.EndObject();
  } else {
    w.Null();
  }
  Key(w, "reservedFor");
  w.StartArray();
  if (c.status) {
    for (const auto& r : c.status->reserved_for) {
      w.StartObject();
      KeyStr(w, "apiGroup", r.api_group.value_or(""));
      KeyStr(w, "resource", r.resource.value_or(""));
      KeyStr(w, "name", r.name.value_or(""));
      KeyStr(w, "uid", r.uid.value_or(""));
      w.EndObject();
    }
  }
  w.EndArray();
  Key(w, "pods");
  w.StartArray();
  for (const auto* pod : snapshot.PodsForClaim(ns, name)) {
    Str(w, absl::StrCat(pod->metadata.namespace_.value_or(""), "/", pod->metadata.name.value_or("")));
  }
  w.EndArray();
  Key(w, "status");
  auto encoded = api::EncodeObject(object);
  WriteMember(w, encoded.ok() ? &*encoded : nullptr, "status", false);
  w.EndObject();
}

}  // namespace

std::string RenderSnapshotRef(const store::Snapshot& snapshot) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  KeyInt(w, "generation", static_cast<int64_t>(snapshot.generation()));
  KeyStr(w, "resourceVersion", snapshot.resource_version());
  w.EndObject();
  return buf.GetString();
}

std::string RenderError(int code, std::string_view message) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  Key(w, "error");
  w.StartObject();
  KeyInt(w, "code", code);
  KeyStr(w, "message", message);
  w.EndObject();
  w.EndObject();
  return buf.GetString();
}

absl::StatusOr<std::string> RenderSummary(const store::Snapshot& snapshot, const Query& query) {
  RETURN_IF_ERROR(Params::Parse(query, {}).status());
  const analysis::Summary s = analysis::Summarize(snapshot);
  const size_t anomalies = analysis::FindAnomalies(snapshot).size();
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  WriteSnapshot(w, snapshot);
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
  return std::string(buf.GetString());
}

absl::StatusOr<std::string> RenderPools(const store::Snapshot& snapshot, const Query& query) {
  ASSIGN_OR_RETURN(Params p, Params::Parse(query, {"driver", "node"}));
  const auto pools = analysis::ListPools(snapshot, {.driver = p.Get("driver"), .node = p.Get("node")});
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  WriteSnapshot(w, snapshot);
  Key(w, "items");
  w.StartArray();
  for (const auto& pool : pools) WritePool(w, pool);
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString());
}

absl::StatusOr<std::string> RenderDevices(const store::Snapshot& snapshot, const Query& query) {
  ASSIGN_OR_RETURN(Params p, Params::Parse(query, {"driver", "pool", "node", "allocated", "offset", "limit"}));
  analysis::DeviceFilter filter{.driver = p.Get("driver"), .pool = p.Get("pool"), .node = p.Get("node")};
  ASSIGN_OR_RETURN(filter.allocated, p.Bool("allocated"));
  ASSIGN_OR_RETURN(int64_t offset, p.Int("offset", 0, 0, INT32_MAX));
  ASSIGN_OR_RETURN(int64_t limit, p.Int("limit", kDefaultDeviceLimit, 1, kMaxDeviceLimit));
  const auto devices = analysis::ListDevices(snapshot, filter);
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  WriteSnapshot(w, snapshot);
  KeyInt(w, "total", static_cast<int64_t>(devices.size()));
  KeyInt(w, "offset", offset);
  KeyInt(w, "limit", limit);
  Key(w, "items");
  w.StartArray();
  // Attributes, capacity and counters are written exactly as the API spells them: encode each slice
  // once and copy its devices' members.
  const api::ResourceSlice* encoded_slice = nullptr;
  std::optional<rapidjson::Document> encoded;
  const size_t end = std::min(devices.size(), static_cast<size_t>(offset + limit));
  for (size_t i = static_cast<size_t>(offset); i < end; ++i) {
    const auto& d = devices[i];
    if (d.slice != encoded_slice) {
      encoded_slice = d.slice;
      encoded.reset();
      if (const api::Object* obj = snapshot.Get(api::Kind::kResourceSlice, "", d.slice->metadata.name.value_or(""))) {
        auto e = api::EncodeObject(*obj);
        if (e.ok()) encoded = *std::move(e);
      }
    }
    const rapidjson::Value* dev_json = nullptr;
    if (encoded && encoded->IsObject()) {
      auto spec = encoded->FindMember("spec");
      if (spec != encoded->MemberEnd() && spec->value.IsObject()) {
        auto devs = spec->value.FindMember("devices");
        if (devs != spec->value.MemberEnd() && devs->value.IsArray() && d.device_index < devs->value.Size()) {
          dev_json = &devs->value[static_cast<rapidjson::SizeType>(d.device_index)];
        }
      }
    }
    const std::string name = d.device->name.value_or("");
    w.StartObject();
    KeyStr(w, "id", graph::DeviceId(d.driver, d.pool, name));
    KeyStr(w, "driver", d.driver);
    KeyStr(w, "pool", d.pool);
    KeyStr(w, "name", name);
    KeyStr(w, "resourceSlice", d.slice->metadata.name.value_or(""));
    KeyStr(w, "node", d.node);
    Key(w, "attributes");
    WriteMember(w, dev_json, "attributes", false);
    Key(w, "capacity");
    WriteMember(w, dev_json, "capacity", false);
    Key(w, "consumesCounters");
    w.StartArray();
    for (const auto& cc : d.device->consumes_counters) {
      w.StartObject();
      KeyStr(w, "counterSet", cc.counter_set.value_or(""));
      Key(w, "counters");
      w.StartObject();
      for (const auto& [k, v] : cc.counters) KeyStr(w, k, v.value ? v.value->String() : "");
      w.EndObject();
      w.EndObject();
    }
    w.EndArray();
    Key(w, "taints");
    w.StartArray();
    for (const auto& t : d.taints) WriteTaint(w, t);
    w.EndArray();
    Key(w, "heldBy");
    w.StartArray();
    for (const auto& h : d.held_by) {
      w.StartObject();
      KeyStr(w, "namespace", h.claim_namespace);
      KeyStr(w, "name", h.claim_name);
      KeyStr(w, "request", h.result && h.result->request ? *h.result->request : "");
      KeyStr(w, "shareID", h.share_id);
      KeyBool(w, "adminAccess", h.admin_access);
      w.EndObject();
    }
    w.EndArray();
    KeyBool(w, "inUse", d.in_use);
    KeyBool(w, "allocated", !d.held_by.empty());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString());
}

absl::StatusOr<std::string> RenderClaims(const store::Snapshot& snapshot, const Query& query) {
  ASSIGN_OR_RETURN(Params p, Params::Parse(query, {"namespace", "state"}));
  std::optional<analysis::ClaimState> state;
  if (p.Has("state")) {
    state = analysis::ParseClaimState(p.Get("state"));
    if (!state) {
      return absl::InvalidArgumentError(absl::StrCat("query parameter \"state\" must be pending, allocated or "
                                                     "reserved, not \"",
                                                     p.Get("state"), "\""));
    }
  }
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  WriteSnapshot(w, snapshot);
  Key(w, "items");
  w.StartArray();
  for (const auto* obj : snapshot.List(api::Kind::kResourceClaim, p.Get("namespace"))) {
    const auto& claim = std::get<api::ResourceClaim>(obj->value);
    if (state && analysis::StateOf(claim) != *state) continue;
    WriteClaim(w, snapshot, *obj, claim);
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString());
}

absl::StatusOr<std::string> RenderGraph(const store::Snapshot& snapshot, const Query& query) {
  ASSIGN_OR_RETURN(Params p, Params::Parse(query, {"namespace", "node", "driver", "allDevices"}));
  ASSIGN_OR_RETURN(std::optional<bool> all_devices, p.Bool("allDevices"));
  graph::Graph g = graph::BuildGraph(snapshot, {.all_devices = all_devices.value_or(true)});
  graph::Filter filter;
  filter.namespace_ = p.Get("namespace");
  filter.node = p.Get("node");
  filter.driver = p.Get("driver");
  if (!filter.empty()) g = graph::FilterGraph(g, filter);
  return graph::ToJson(g);
}

absl::StatusOr<std::string> RenderDiagnostics(const store::Snapshot& snapshot, const Query& query) {
  ASSIGN_OR_RETURN(Params p, Params::Parse(query, {"namespace"}));
  const std::string ns = p.Get("namespace");
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  WriteSnapshot(w, snapshot);
  Key(w, "pending");
  w.StartArray();
  for (const auto& d : analysis::DiagnosePendingClaims(snapshot, ns)) {
    w.StartObject();
    KeyStr(w, "namespace", d.namespace_);
    KeyStr(w, "name", d.name);
    KeyStr(w, "node", d.node);
    const alloc::Explanation* e = d.explanation ? &*d.explanation : nullptr;
    KeyStr(w, "outcome", analysis::PendingOutcomeName(d.outcome));
    KeyStr(w, "outcomeDetail", e ? e->outcome_detail : "");
    KeyStr(w, "summary", d.summary);
    KeyStr(w, "error", d.error);
    Key(w, "consumers");
    w.StartArray();
    for (const auto& pod : d.consumers) w.String(pod.data(), static_cast<rapidjson::SizeType>(pod.size()));
    w.EndArray();
    KeyInt(w, "nodesTried", d.nodes_tried);
    Key(w, "fitsOn");
    w.StartArray();
    for (const auto& node : d.fits_on) w.String(node.data(), static_cast<rapidjson::SizeType>(node.size()));
    w.EndArray();
    Key(w, "requests");
    w.StartArray();
    if (e) {
      for (const auto& r : e->requests) {
        w.StartObject();
        KeyStr(w, "request", r.request);
        KeyStr(w, "deviceClass", r.device_class);
        KeyInt(w, "needed", r.needed);
        KeyBool(w, "allMode", r.all_mode);
        KeyBool(w, "adminAccess", r.admin_access);
        Key(w, "steps");
        w.StartArray();
        for (const auto& s : r.steps) {
          w.StartObject();
          KeyStr(w, "step", alloc::FunnelStepName(s.step));
          KeyInt(w, "remaining", s.remaining);
          KeyStr(w, "detail", s.detail);
          w.EndObject();
        }
        w.EndArray();
        KeyStr(w, "firstEmpty", r.first_empty ? alloc::FunnelStepName(*r.first_empty) : "");
        KeyStr(w, "firstShort", r.first_short ? alloc::FunnelStepName(*r.first_short) : "");
        KeyStr(w, "firstError", r.first_error);
        KeyStr(w, "sentence", r.sentence);
        w.EndObject();
      }
    }
    w.EndArray();
    Key(w, "conflicts");
    w.StartArray();
    if (e) {
      for (const auto& c : e->conflicts) {
        w.StartObject();
        KeyStr(w, "kind", alloc::ConflictKindName(c.kind));
        Key(w, "requests");
        w.StartArray();
        for (const auto& r : c.requests) w.String(r.data(), static_cast<rapidjson::SizeType>(r.size()));
        w.EndArray();
        KeyStr(w, "subject", c.subject);
        KeyStr(w, "sentence", c.sentence);
        w.EndObject();
      }
    }
    w.EndArray();
    // Explain without a node (no consumer bound to a node): the verdict on every node.
    KeyStr(w, "nodesSummary", e ? e->nodes_summary : "");
    KeyInt(w, "nodesTotal", e ? e->nodes_total : 0);
    KeyBool(w, "nodesTruncated", e != nullptr && e->NodesTruncated());
    Key(w, "nodes");
    w.StartArray();
    if (e) {
      for (const alloc::NodeVerdict& v : e->nodes) {
        w.StartObject();
        KeyStr(w, "node", v.node);
        KeyBool(w, "fits", v.fits());
        KeyStr(w, "outcome", alloc::OutcomeName(v.outcome));
        KeyStr(w, "reason", v.reason);
        w.EndObject();
      }
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  Key(w, "anomalies");
  w.StartArray();
  for (const auto& a : analysis::FindAnomalies(snapshot, ns)) {
    w.StartObject();
    KeyStr(w, "kind", analysis::AnomalyKindName(a.kind));
    KeyStr(w, "severity", analysis::SeverityName(a.severity));
    KeyStr(w, "object", a.object);
    KeyStr(w, "message", a.message);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString());
}

}  // namespace draforge::server
