#include "report.h"

#include <cctype>
#include <map>
#include <vector>

#include "json_fields.h"

namespace draforge::cli {
namespace {

using rapidjson::Value;

std::string Or(std::string s, std::string_view fallback = "<none>") { return s.empty() ? std::string(fallback) : s; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

size_t Size(const Value* v) {
  if (v == nullptr) return 0;
  if (v->IsArray()) return v->Size();
  if (v->IsObject()) return v->MemberCount();
  return 0;
}

// A number as the object JSON spells it ("2"); an absent count is the API's default of one.
int64_t CountOf(const Value& request) {
  const Value* c = JsonMember(request, "count");
  return c != nullptr && c->IsInt64() ? c->GetInt64() : 1;
}

// "a100.gpu.example.com x2", "h100.gpu.example.com all".
std::string DescribeOne(const Value& request) {
  std::string s = Or(JsonStr(request, "deviceClassName"), "?");
  const std::string mode = JsonStr(request, "allocationMode");
  if (mode == "All") {
    s += " all";
  } else if (CountOf(request) != 1) {
    s += " x" + std::to_string(CountOf(request));
  }
  return s;
}

// "gpu: a100.gpu.example.com x2", "gpus: first of [eight=h100.gpu.example.com x8, four=...]", from a
// ResourceClaimSpec's JSON.
std::string DescribeRequests(const Value& claim_spec) {
  const Value* devices = JsonMember(claim_spec, "devices");
  if (devices == nullptr || !devices->IsObject()) return "<none>";
  std::vector<std::string> parts;
  for (const Value& r : JsonArray(*devices, "requests").GetArray()) {
    const std::string name = Or(JsonStr(r, "name"), "?");
    if (const Value* exactly = JsonMember(r, "exactly"); exactly != nullptr && exactly->IsObject()) {
      parts.push_back(name + ": " + DescribeOne(*exactly));
      continue;
    }
    std::vector<std::string> alts;
    for (const Value& s : JsonArray(r, "firstAvailable").GetArray()) {
      alts.push_back(Or(JsonStr(s, "name"), "?") + "=" + DescribeOne(s));
    }
    parts.push_back(name + ": first of [" + Join(alts, ", ") + "]");
  }
  return parts.empty() ? "<none>" : Join(parts, "; ");
}

std::string ClaimState(const Value& claim) {
  const Value& status = JsonObject(claim, "status");
  const Value* allocation = JsonMember(status, "allocation");
  const bool allocated = allocation != nullptr && !allocation->IsNull();
  const bool reserved = !JsonArray(status, "reservedFor").Empty();
  if (allocated && reserved) return "allocated,reserved";
  if (allocated) return "allocated";
  if (reserved) return "reserved";
  return "pending";
}

std::string AllocatedDevices(const Value& claim) {
  const Value& devices = JsonObject(JsonObject(JsonObject(claim, "status"), "allocation"), "devices");
  std::vector<std::string> out;
  for (const Value& r : JsonArray(devices, "results").GetArray()) {
    out.push_back(Or(JsonStr(r, "driver"), "?") + "/" + Or(JsonStr(r, "pool"), "?") + "/" +
                  Or(JsonStr(r, "device"), "?"));
  }
  return out.empty() ? "<none>" : Join(out, ",");
}

// Where a node-less entry of the devices view lives: "<all>" or "<selector>" from the device's or its
// slice's own fields, else "<none>".
std::string NodeOfNodeless(const Value& slice_spec, const Value* device) {
  for (const Value* v : {device, &slice_spec}) {
    if (v == nullptr) continue;
    if (!JsonStr(*v, "nodeName").empty()) return JsonStr(*v, "nodeName");
    if (JsonBool(*v, "allNodes")) return "<all>";
    if (const Value* s = JsonMember(*v, "nodeSelector"); s != nullptr && !s->IsNull()) return "<selector>";
  }
  return "<none>";
}

std::string SliceNode(const Value& spec) {
  if (!JsonStr(spec, "nodeName").empty()) return JsonStr(spec, "nodeName");
  if (JsonBool(spec, "allNodes")) return "<all>";
  if (const Value* s = JsonMember(spec, "nodeSelector"); s != nullptr && !s->IsNull()) return "<selector>";
  return "<none>";
}

draforge::Result<Table> PoolsTable(const draforge::Snapshot& snapshot) {
  auto json = draforge::inventory::PoolsJson(snapshot);
  if (!json.ok()) return json.error();
  auto doc = ParseAbiJson(*json, "pools");
  if (!doc.ok()) return doc.error();
  Table t({"DRIVER", "POOL", "NODE", "GENERATION", "SLICES", "DEVICES", "IN USE", "STATUS"});
  for (const Value& p : JsonArray(*doc, "items").GetArray()) {
    const size_t slices = JsonArray(p, "resourceSlices").Size();
    const std::string status =
        JsonBool(p, "invalid") ? "invalid: " + JsonStr(p, "invalidReason")
        : JsonBool(p, "complete")
            ? "complete"
            : "incomplete (" + std::to_string(slices) + " of " + std::to_string(JsonInt(p, "resourceSliceCount")) +
                  " slices)";
    t.AddRow({JsonStr(p, "driver"), JsonStr(p, "pool"), Or(JsonStr(p, "node")), std::to_string(JsonInt(p, "generation")),
              std::to_string(slices), std::to_string(JsonInt(p, "devices")),
              std::to_string(JsonInt(p, "allocatedDevices")), status});
  }
  return t;
}

// The slices' JSON by name, for the node of devices the devices view gives no node.
draforge::Result<std::map<std::string, rapidjson::Document>> SlicesByName(const draforge::Snapshot& snapshot) {
  auto json = snapshot.ObjectsJson("ResourceSlice");
  if (!json.ok()) return json.error();
  auto doc = ParseAbiJson(*json, "resourceslices");
  if (!doc.ok()) return doc.error();
  std::map<std::string, rapidjson::Document> out;
  if (!doc->IsArray()) return out;
  for (Value& s : doc->GetArray()) {
    rapidjson::Document d;
    d.CopyFrom(s, d.GetAllocator());
    out.emplace(JsonStr(JsonObject(s, "metadata"), "name"), std::move(d));
  }
  return out;
}

const Value* SliceDevice(const Value& slice, const std::string& name) {
  for (const Value& d : JsonArray(JsonObject(slice, "spec"), "devices").GetArray()) {
    if (JsonStr(d, "name") == name) return &d;
  }
  return nullptr;
}

std::vector<std::string> DeviceRow(const Value& d, const std::map<std::string, rapidjson::Document>& slices) {
  std::vector<std::string> caps, taints, holders;
  for (const auto& c : JsonObject(d, "capacity").GetObject()) {
    caps.push_back(std::string(c.name.GetString()) + "=" + Or(JsonStr(c.value, "value"), "?"));
  }
  // The device's own taints (the slice's), as before DeviceTaintRules were part of the view.
  for (const Value& tn : JsonArray(d, "taints").GetArray()) {
    if (JsonStr(tn, "source") == "ResourceSlice") taints.push_back(JsonStr(tn, "key") + ":" + JsonStr(tn, "effect"));
  }
  for (const Value& h : JsonArray(d, "heldBy").GetArray()) {
    holders.push_back(JsonStr(h, "namespace") + "/" + JsonStr(h, "name") + (JsonBool(h, "adminAccess") ? " (admin)" : ""));
  }
  const std::string name = JsonStr(d, "name");
  std::string node = JsonStr(d, "node");
  if (node.empty()) {
    auto slice = slices.find(JsonStr(d, "resourceSlice"));
    node = slice == slices.end() ? "<none>"
                                 : NodeOfNodeless(JsonObject(slice->second, "spec"), SliceDevice(slice->second, name));
  }
  return {JsonStr(d, "driver"), JsonStr(d, "pool"), name, node, std::to_string(Size(JsonMember(d, "attributes"))),
          caps.empty() ? "<none>" : Join(caps, ","), taints.empty() ? "<none>" : Join(taints, ","),
          holders.empty() ? "<none>" : Join(holders, ",")};
}

draforge::Result<Table> DevicesTable(const draforge::Snapshot& snapshot, const TableFilter& filter) {
  auto slices = SlicesByName(snapshot);
  if (!slices.ok()) return slices.error();
  Table t({"DRIVER", "POOL", "DEVICE", "NODE", "ATTRIBUTES", "CAPACITY", "TAINTS", "ALLOCATED TO"});
  draforge::inventory::DeviceQuery query;
  query.limit = DRAFORGE_INVENTORY_MAX_DEVICE_LIMIT;
  for (int64_t total = 1; static_cast<int64_t>(query.offset) < total; query.offset += query.limit) {
    auto json = draforge::inventory::DevicesJson(snapshot, query);
    if (!json.ok()) return json.error();
    auto doc = ParseAbiJson(*json, "devices");
    if (!doc.ok()) return doc.error();
    total = JsonInt(*doc, "total");
    for (const Value& d : JsonArray(*doc, "items").GetArray()) {
      if (!filter.name.empty() && JsonStr(d, "name") != filter.name) continue;
      t.AddRow(DeviceRow(d, *slices));
    }
  }
  return t;
}

std::vector<std::string> KindHeaders(const GetTarget& target) {
  std::vector<std::string> headers;
  if (target.namespaced) headers.push_back("NAMESPACE");
  headers.push_back("NAME");
  const std::map<std::string, std::vector<std::string>> extra = {
      {"ResourceSlice", {"NODE", "DRIVER", "POOL", "DEVICES"}},
      {"DeviceClass", {"SELECTORS", "CONFIG"}},
      {"ResourceClaim", {"STATE", "REQUESTS", "DEVICES"}},
      {"ResourceClaimTemplate", {"REQUESTS"}},
      {"DeviceTaintRule", {"DRIVER", "POOL", "DEVICE", "TAINT"}},
      {"Pod", {"NODE", "PHASE", "CLAIMS"}},
      {"Node", {"LABELS"}},
  };
  if (auto it = extra.find(target.kind); it != extra.end()) headers.insert(headers.end(), it->second.begin(), it->second.end());
  return headers;
}

// The CLAIMS column of each pod ("namespace/name" -> "a,b"), from the inventory's pod view: a claim's
// name, or "<from TEMPLATE>" while a template's claim is not created.
draforge::Result<std::map<std::string, std::string>> PodClaims(const draforge::Snapshot& snapshot,
                                                               const std::string& ns) {
  auto json = draforge::inventory::PodsJson(snapshot, ns);
  if (!json.ok()) return json.error();
  auto doc = ParseAbiJson(*json, "pods");
  if (!doc.ok()) return doc.error();
  std::map<std::string, std::string> out;
  for (const Value& p : JsonArray(*doc, "items").GetArray()) {
    std::vector<std::string> claims;
    for (const Value& c : JsonArray(p, "claims").GetArray()) {
      std::string name = JsonStr(c, "resourceClaimName");
      if (name.empty()) name = "<from " + JsonStr(c, "resourceClaimTemplateName") + ">";
      claims.push_back(std::move(name));
    }
    out[JsonStr(p, "namespace") + "/" + JsonStr(p, "name")] = claims.empty() ? "<none>" : Join(claims, ",");
  }
  return out;
}

std::vector<std::string> KindColumns(const std::string& kind, const Value& o,
                                     const std::map<std::string, std::string>& pod_claims) {
  const Value& spec = JsonObject(o, "spec");
  const Value& meta = JsonObject(o, "metadata");
  if (kind == "ResourceSlice") {
    return {SliceNode(spec), Or(JsonStr(spec, "driver")), Or(JsonStr(JsonObject(spec, "pool"), "name")),
            std::to_string(JsonArray(spec, "devices").Size())};
  }
  if (kind == "DeviceClass") {
    return {std::to_string(JsonArray(spec, "selectors").Size()), std::to_string(JsonArray(spec, "config").Size())};
  }
  if (kind == "ResourceClaim") return {ClaimState(o), DescribeRequests(spec), AllocatedDevices(o)};
  if (kind == "ResourceClaimTemplate") return {DescribeRequests(JsonObject(spec, "spec"))};
  if (kind == "DeviceTaintRule") {
    const Value* sel = JsonMember(spec, "deviceSelector");
    const Value* taint = JsonMember(spec, "taint");
    auto field = [&](const char* key) { return sel != nullptr ? Or(JsonStr(*sel, key), "*") : "*"; };
    std::string t = "<none>";
    if (taint != nullptr && taint->IsObject()) {
      const Value* value = JsonMember(*taint, "value");
      t = JsonStr(*taint, "key") + (value != nullptr && value->IsString() ? "=" + JsonStr(*taint, "value") : "") + ":" +
          JsonStr(*taint, "effect");
    }
    return {field("driver"), field("pool"), field("device"), t};
  }
  if (kind == "Pod") {
    auto claims = pod_claims.find(JsonStr(meta, "namespace") + "/" + JsonStr(meta, "name"));
    return {Or(JsonStr(spec, "nodeName")), Or(JsonStr(JsonObject(o, "status"), "phase")),
            claims == pod_claims.end() ? "<none>" : claims->second};
  }
  if (kind == "Node") {
    std::vector<std::string> labels;
    for (const auto& l : JsonObject(meta, "labels").GetObject()) {
      labels.push_back(std::string(l.name.GetString()) + "=" + (l.value.IsString() ? l.value.GetString() : ""));
    }
    return {labels.empty() ? "<none>" : Join(labels, ",")};
  }
  return {};
}

draforge::Result<Table> KindTable(const draforge::Snapshot& snapshot, const GetTarget& target,
                                  const TableFilter& filter) {
  auto json = snapshot.ObjectsJson(target.kind);
  if (!json.ok()) return json.error();
  auto doc = ParseAbiJson(*json, target.kind);
  if (!doc.ok()) return doc.error();
  std::map<std::string, std::string> pod_claims;
  if (target.kind == "Pod") {
    auto claims = PodClaims(snapshot, filter.ns);
    if (!claims.ok()) return claims.error();
    pod_claims = *std::move(claims);
  }
  Table t(KindHeaders(target));
  if (!doc->IsArray()) return t;
  for (const Value& o : doc->GetArray()) {
    const Value& meta = JsonObject(o, "metadata");
    if (!filter.ns.empty() && JsonStr(meta, "namespace") != filter.ns) continue;
    if (!filter.name.empty() && JsonStr(meta, "name") != filter.name) continue;
    std::vector<std::string> row;
    if (target.namespaced) row.push_back(JsonStr(meta, "namespace"));
    row.push_back(JsonStr(meta, "name"));
    for (std::string& c : KindColumns(target.kind, o, pod_claims)) row.push_back(std::move(c));
    t.AddRow(std::move(row));
  }
  return t;
}

}  // namespace

std::optional<GetTarget> ParseGetTarget(std::string_view name) {
  const std::string lower = Lower(name);
  if (lower == "pools" || lower == "pool") return GetTarget{"", false, "pools"};
  if (lower == "devices" || lower == "device") return GetTarget{"", false, "devices"};
  auto info = draforge::KindInfoJson(name);
  if (!info.ok()) return std::nullopt;
  auto doc = ParseAbiJson(*info, "kind");
  if (!doc.ok()) return std::nullopt;
  return GetTarget{JsonStr(*doc, "kind"), JsonBool(*doc, "namespaced"), ""};
}

draforge::Result<Table> MakeTable(const draforge::Snapshot& snapshot, const GetTarget& target,
                                  const TableFilter& filter) {
  if (target.kind.empty() && target.view == "pools") return PoolsTable(snapshot);
  if (target.kind.empty()) return DevicesTable(snapshot, filter);
  return KindTable(snapshot, target, filter);
}

Table PoolAvailabilityTable(const rapidjson::Value& status) {
  Table t({"DRIVER", "POOL", "NODE", "GENERATION", "SLICES", "TOTAL", "ALLOCATED", "AVAILABLE", "UNAVAILABLE",
           "PARTITIONS", "SHAREABLE", "VALIDATION"});
  // An unset count (an incomplete pool) prints as "-".
  const auto count = [](const Value& p, const char* key) {
    return JsonMember(p, key) != nullptr ? std::to_string(JsonInt(p, key)) : std::string("-");
  };
  for (const Value& p : JsonArray(status, "pools").GetArray()) {
    std::vector<std::string> partitions;
    for (const Value& s : JsonArray(p, "partitionSummary").GetArray()) {
      partitions.push_back(JsonStr(s, "type") + " " + std::to_string(JsonInt(s, "allocatable")) + "/" +
                           std::to_string(JsonInt(s, "total")));
    }
    std::string shareable;
    if (const Value* s = JsonMember(p, "shareableSummary"); s != nullptr && s->IsObject()) {
      shareable = std::to_string(JsonInt(*s, "fullyAvailableDevices")) + " free, " +
                  std::to_string(JsonInt(*s, "partiallyAvailableDevices")) + " shared";
      for (const Value& c : JsonArray(*s, "capacity").GetArray()) {
        shareable += "; " + JsonStr(c, "name") + " " + JsonStr(c, "available") + "/" + JsonStr(c, "total");
      }
    }
    std::string joined;
    for (const std::string& part : partitions) joined += (joined.empty() ? "" : ", ") + part;
    t.AddRow({JsonStr(p, "driver"), JsonStr(p, "poolName"), Or(JsonStr(p, "nodeName")),
              std::to_string(JsonInt(p, "generation")), count(p, "resourceSliceCount"), count(p, "totalDevices"),
              count(p, "allocatedDevices"), count(p, "availableDevices"), count(p, "unavailableDevices"), Or(joined),
              Or(shareable), Or(JsonStr(p, "validationError"))});
  }
  return t;
}

}  // namespace draforge::cli
