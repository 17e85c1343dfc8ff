#include "api_views.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::server {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// An error of the library's view of a parameter the caller gave: named as a query parameter.
Result<std::string> AsQueryError(Result<std::string> r) {
  if (!r.ok() && r.error().code == DRAFORGE_EINVALID) return BadQuery("query parameter " + r.error().message);
  return r;
}

}  // namespace

std::string RenderSnapshotRef(uint64_t generation, std::string_view resource_version) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("generation");
  w.Uint64(generation);
  w.Key("resourceVersion");
  w.String(resource_version.empty() ? "" : resource_version.data(),
           static_cast<rapidjson::SizeType>(resource_version.size()));
  w.EndObject();
  return buf.GetString();
}

std::string RenderError(int code, std::string_view message) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("error");
  w.StartObject();
  w.Key("code");
  w.Int(code);
  w.Key("message");
  w.String(message.empty() ? "" : message.data(), static_cast<rapidjson::SizeType>(message.size()));
  w.EndObject();
  w.EndObject();
  return buf.GetString();
}

Result<std::string> RenderSummary(const Snapshot& snapshot, const Query& query) {
  if (auto p = QueryParams::Parse(query, {}); !p.ok()) return std::move(p).error();
  return inventory::SummaryJson(snapshot);
}

Result<std::string> RenderPools(const Snapshot& snapshot, const Query& query) {
  auto p = QueryParams::Parse(query, {"driver", "node"});
  if (!p.ok()) return std::move(p).error();
  return inventory::PoolsJson(snapshot, p->Get("driver"), p->Get("node"));
}

Result<std::string> RenderPoolStatus(const Snapshot& snapshot, const Query& query) {
  auto p = QueryParams::Parse(query, {"driver", "pool", "limit", "partitionAttribute"});
  if (!p.ok()) return std::move(p).error();
  if (p->Get("driver").empty()) return BadQuery("query parameter \"driver\" is required");
  auto limit = p->Int("limit", 0, 0, 1000);
  if (!limit.ok()) return std::move(limit).error();
  inventory::PoolStatusQuery q;
  q.driver = p->Get("driver");
  q.pool_name = p->Get("pool");
  q.limit = *limit;
  q.default_partition_type_attribute = p->Get("partitionAttribute");
  return AsQueryError(inventory::PoolStatusJson(snapshot, q));
}

namespace {

// `member` of the JSON object `json` (a library answer), written to `w`; [] when absent.
void WriteMember(Writer& w, const rapidjson::Document& json, const char* member) {
  if (json.IsObject()) {
    if (auto it = json.FindMember(member); it != json.MemberEnd()) {
      it->value.Accept(w);
      return;
    }
  }
  w.StartArray();
  w.EndArray();
}

void WriteString(Writer& w, std::string_view s) {
  w.String(s.empty() ? "" : s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

}  // namespace

Result<std::string> RenderPackages(const Snapshot& snapshot, const Query& query, const PackageCatalog& catalog) {
  auto p = QueryParams::Parse(query, {"namespace", "quota", "id", "cap"});
  if (!p.ok()) return std::move(p).error();
  auto quota = p->Bool("quota");
  if (!quota.ok()) return std::move(quota).error();
  auto cap = p->Int("cap", 1000, 1, 100000);
  if (!cap.ok()) return std::move(cap).error();
  const std::string ns = p->Has("namespace") ? p->Get("namespace") : "default";
  if (ns.empty()) return BadQuery("query parameter \"namespace\" must not be empty");
  const bool loaded = !catalog.text.empty();
  if (!loaded && p->Has("id")) return BadQuery("query parameter \"id\": no package catalog is loaded");

  rapidjson::Document problems, capacity, inventory;
  std::string error;
  if (loaded) {
    auto validated = PackageValidateJson(catalog.text, &snapshot);
    if (!validated.ok()) return validated.error();  // the server validated it at start: not reached
    problems.Parse(validated->c_str(), validated->size());
    auto counted = PackageCapacityJson(snapshot, catalog.text, p->Get("id"), ns, quota->value_or(false), *cap);
    if (!counted.ok() && counted.error().code == DRAFORGE_ENOTFOUND) {
      return BadQuery("query parameter \"id\": " + counted.error().message);
    }
    if (counted.ok()) {
      capacity.Parse(counted->c_str(), counted->size());
    } else {
      error = counted.error().message;
    }
  }
  auto inv = PackageInventoryJson(snapshot);
  if (!inv.ok()) return inv.error();
  inventory.Parse(inv->c_str(), inv->size());

  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("snapshot");
  const std::string ref = RenderSnapshotRef(snapshot.generation(), snapshot.resource_version());
  w.RawValue(ref.c_str(), ref.size(), rapidjson::kObjectType);
  w.Key("catalog");
  w.StartObject();
  w.Key("loaded");
  w.Bool(loaded);
  w.Key("source");
  WriteString(w, catalog.source);
  w.EndObject();
  w.Key("problems");
  WriteMember(w, problems, "problems");
  w.Key("namespace");
  WriteString(w, ns);
  w.Key("quota");
  w.Bool(quota->value_or(false));
  w.Key("packages");
  WriteMember(w, capacity, "packages");
  if (!error.empty()) {
    w.Key("error");
    WriteString(w, error);
  }
  w.Key("inventory");
  inventory.Accept(w);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

Result<std::string> RenderDevices(const Snapshot& snapshot, const Query& query) {
  auto p = QueryParams::Parse(query, {"driver", "pool", "node", "allocated", "offset", "limit"});
  if (!p.ok()) return std::move(p).error();
  auto allocated = p->Bool("allocated");
  if (!allocated.ok()) return std::move(allocated).error();
  auto offset = p->Int("offset", 0, 0, INT32_MAX);
  if (!offset.ok()) return std::move(offset).error();
  auto limit = p->Int("limit", DRAFORGE_INVENTORY_DEFAULT_DEVICE_LIMIT, 1, DRAFORGE_INVENTORY_MAX_DEVICE_LIMIT);
  if (!limit.ok()) return std::move(limit).error();
  inventory::DeviceQuery q;
  q.driver = p->Get("driver");
  q.pool = p->Get("pool");
  q.node = p->Get("node");
  q.allocated = *allocated;
  q.offset = static_cast<size_t>(*offset);
  q.limit = static_cast<size_t>(*limit);
  return inventory::DevicesJson(snapshot, q);
}

Result<std::string> RenderClaims(const Snapshot& snapshot, const Query& query) {
  auto p = QueryParams::Parse(query, {"namespace", "state"});
  if (!p.ok()) return std::move(p).error();
  std::optional<std::string> state;
  if (p->Has("state")) state = p->Get("state");
  return AsQueryError(inventory::ClaimsJson(snapshot, p->Get("namespace"),
                                            state ? std::optional<std::string_view>(*state) : std::nullopt));
}

Result<std::string> RenderGraph(const Snapshot& snapshot, const Query& query) {
  auto p = QueryParams::Parse(query, {"namespace", "node", "driver", "allDevices"});
  if (!p.ok()) return std::move(p).error();
  auto all_devices = p->Bool("allDevices");
  if (!all_devices.ok()) return std::move(all_devices).error();
  inventory::GraphQuery q;
  q.namespace_ = p->Get("namespace");
  q.node = p->Get("node");
  q.driver = p->Get("driver");
  q.all_devices = all_devices->value_or(true);
  return inventory::GraphJson(snapshot, q);
}

Result<std::string> RenderDiagnostics(const Snapshot& snapshot, const Query& query) {
  auto p = QueryParams::Parse(query, {"namespace"});
  if (!p.ok()) return std::move(p).error();
  return inventory::DiagnosticsJson(snapshot, p->Get("namespace"));
}

}  // namespace draforge::server
