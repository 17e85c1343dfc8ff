#include "analysis/claims_json.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/internal/json_member.h"
#include "analysis/internal/json_writer.h"
#include "api/codec.h"
#include "graph/graph.h"

namespace draforge::analysis {
namespace {

void WriteRequestFields(internal::JsonWriter& w, std::string_view name, const std::optional<std::string>& cls,
                        const std::optional<std::string>& mode, const std::optional<int64_t>& count, bool admin,
                        const std::vector<api::DeviceSelector>& selectors) {
  internal::KeyStr(w, "name", name);
  internal::KeyStr(w, "deviceClassName", cls.value_or(""));
  const std::string m = mode.value_or(api::kAllocationModeExactCount);
  internal::KeyStr(w, "allocationMode", m);
  // As the API server defaults it: ExactCount without a count means one device; All has no count.
  internal::KeyInt(w, "count", count.value_or(m == api::kAllocationModeExactCount ? 1 : 0));
  internal::KeyBool(w, "adminAccess", admin);
  internal::Key(w, "selectors");
  w.StartArray();
  for (const auto& s : selectors) {
    if (s.cel && s.cel->expression) internal::Str(w, *s.cel->expression);
  }
  w.EndArray();
}

void WriteRequests(internal::JsonWriter& w, const api::ResourceClaim& c) {
  w.StartArray();
  if (c.spec && c.spec->devices) {
    for (const auto& r : c.spec->devices->requests) {
      w.StartObject();
      if (r.exactly) {
        WriteRequestFields(w, r.name.value_or(""), r.exactly->device_class_name, r.exactly->allocation_mode,
                           r.exactly->count, r.exactly->admin_access.value_or(false), r.exactly->selectors);
      } else {
        WriteRequestFields(w, r.name.value_or(""), std::nullopt, std::nullopt, std::nullopt, false, {});
      }
      internal::Key(w, "firstAvailable");
      w.StartArray();
      for (const auto& sub : r.first_available) {
        w.StartObject();
        WriteRequestFields(w, sub.name.value_or(""), sub.device_class_name, sub.allocation_mode, sub.count, false,
                           sub.selectors);
        internal::Key(w, "firstAvailable");
        w.StartArray();
        w.EndArray();
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
  }
  w.EndArray();
}

void WriteAllocation(internal::JsonWriter& w, const store::Snapshot& snapshot, const api::ResourceClaim& c) {
  if (!c.status || !c.status->allocation) {
    w.Null();
    return;
  }
  const auto& a = *c.status->allocation;
  w.StartObject();
  internal::KeyStr(w, "node", graph::SingleNodeName(a.node_selector ? &*a.node_selector : nullptr).value_or(""));
  internal::Key(w, "results");
  w.StartArray();
  if (a.devices) {
    for (const auto& r : a.devices->results) {
      w.StartObject();
      internal::KeyStr(w, "request", r.request.value_or(""));
      internal::KeyStr(w, "driver", r.driver.value_or(""));
      internal::KeyStr(w, "pool", r.pool.value_or(""));
      internal::KeyStr(w, "device", r.device.value_or(""));
      internal::KeyStr(w, "shareID", r.share_id.value_or(""));
      internal::KeyBool(w, "adminAccess", r.admin_access.value_or(false));
      internal::KeyBool(w, "deviceKnown",
              snapshot.FindDevice(r.driver.value_or(""), r.pool.value_or(""), r.device.value_or("")).device !=
                  nullptr);
      w.EndObject();
    }
  }
  w.EndArray();
  w.EndObject();
}

void WriteClaim(internal::JsonWriter& w, const store::Snapshot& snapshot, const api::Object& object,
                const api::ResourceClaim& c) {
  const std::string ns = c.metadata.namespace_.value_or(""), name = c.metadata.name.value_or("");
  w.StartObject();
  internal::KeyStr(w, "namespace", ns);
  internal::KeyStr(w, "name", name);
  internal::KeyStr(w, "uid", c.metadata.uid.value_or(""));
  internal::KeyStr(w, "creationTimestamp", c.metadata.creation_timestamp.value_or(""));
  internal::KeyStr(w, "state", ClaimStateName(StateOf(c)));
  internal::KeyBool(w, "deleting", c.metadata.deletion_timestamp.has_value());
  internal::Key(w, "requests");
  WriteRequests(w, c);
  internal::Key(w, "allocation");
  WriteAllocation(w, snapshot, c);
  internal::Key(w, "reservedFor");
  w.StartArray();
  if (c.status) {
    for (const auto& r : c.status->reserved_for) {
      w.StartObject();
      internal::KeyStr(w, "apiGroup", r.api_group.value_or(""));
      internal::KeyStr(w, "resource", r.resource.value_or(""));
      internal::KeyStr(w, "name", r.name.value_or(""));
      internal::KeyStr(w, "uid", r.uid.value_or(""));
      w.EndObject();
    }
  }
  w.EndArray();
  internal::Key(w, "pods");
  w.StartArray();
  for (const auto* pod : snapshot.PodsForClaim(ns, name)) {
    internal::Str(w, absl::StrCat(pod->metadata.namespace_.value_or(""), "/", pod->metadata.name.value_or("")));
  }
  w.EndArray();
  internal::Key(w, "status");
  auto encoded = api::EncodeObject(object, "resource.k8s.io/v1");  // the schema's shape, whatever was read
  internal::WriteMember(w, encoded.ok() ? &*encoded : nullptr, "status", false);
  w.EndObject();
}

}  // namespace

std::string ClaimsJson(const store::Snapshot& snapshot, std::string_view ns, std::optional<ClaimState> state) {
  return internal::ItemsView(snapshot, [&](internal::JsonWriter& w) {
    for (const auto* obj : snapshot.List(api::Kind::kResourceClaim, ns)) {
      const auto& claim = std::get<api::ResourceClaim>(obj->value);
      if (!state || StateOf(claim) == *state) WriteClaim(w, snapshot, *obj, claim);
    }
  });
}

}  // namespace draforge::analysis
