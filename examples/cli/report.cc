#include "report.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status.h"

namespace draforge::cli {
namespace {

std::string Or(const std::optional<std::string>& s, std::string_view fallback = "<none>") {
  return s.has_value() && !s->empty() ? *s : std::string(fallback);
}

bool Matches(const api::ObjectMeta& m, const TableFilter& f) {
  if (!f.ns.empty() && m.namespace_.value_or("") != f.ns) return false;
  if (!f.name.empty() && m.name.value_or("") != f.name) return false;
  return true;
}

// "gpu (a100.gpu.example.com x2)", "gpus (first of: eight h100.gpu.example.com x8, four ...)".
std::string DescribeRequests(const std::optional<api::ResourceClaimSpec>& spec) {
  if (!spec.has_value() || !spec->devices.has_value()) return "<none>";
  std::vector<std::string> parts;
  auto one = [](const std::optional<std::string>& cls, const std::optional<std::string>& mode,
                const std::optional<int64_t>& count) {
    std::string s = cls.value_or("?");
    if (mode.value_or("ExactCount") == "All") {
      absl::StrAppend(&s, " all");
    } else if (count.value_or(1) != 1) {
      absl::StrAppend(&s, " x", count.value_or(1));
    }
    return s;
  };
  for (const api::DeviceRequest& r : spec->devices->requests) {
    if (r.exactly.has_value()) {
      parts.push_back(absl::StrCat(r.name.value_or("?"), ": ",
                                   one(r.exactly->device_class_name, r.exactly->allocation_mode, r.exactly->count)));
    } else {
      std::vector<std::string> alts;
      for (const auto& s : r.first_available) {
        alts.push_back(absl::StrCat(s.name.value_or("?"), "=", one(s.device_class_name, s.allocation_mode, s.count)));
      }
      parts.push_back(absl::StrCat(r.name.value_or("?"), ": first of [", absl::StrJoin(alts, ", "), "]"));
    }
  }
  return parts.empty() ? "<none>" : absl::StrJoin(parts, "; ");
}

std::string AllocatedDevices(const api::ResourceClaim& claim) {
  if (!claim.status.has_value() || !claim.status->allocation.has_value() ||
      !claim.status->allocation->devices.has_value()) {
    return "<none>";
  }
  std::vector<std::string> out;
  for (const auto& r : claim.status->allocation->devices->results) {
    out.push_back(absl::StrCat(r.driver.value_or("?"), "/", r.pool.value_or("?"), "/", r.device.value_or("?")));
  }
  return out.empty() ? "<none>" : absl::StrJoin(out, ",");
}

std::string DeviceNode(const api::ResourceSlice& slice, const api::Device& device) {
  const auto& spec = *slice.spec;
  if (device.node_name.has_value()) return *device.node_name;
  if (device.all_nodes.value_or(false)) return "<all>";
  if (device.node_selector.has_value()) return "<selector>";
  if (spec.node_name.has_value()) return *spec.node_name;
  if (spec.all_nodes.value_or(false)) return "<all>";
  if (spec.node_selector.has_value()) return "<selector>";
  return "<none>";
}

}  // namespace

std::optional<GetTarget> ParseGetTarget(std::string_view name) {
  const std::string lower = absl::AsciiStrToLower(AV(name));
  if (lower == "pools" || lower == "pool") return GetTarget{std::nullopt, "pools"};
  if (lower == "devices" || lower == "device") return GetTarget{std::nullopt, "devices"};
  if (auto kind = api::ParseKindName(name)) return GetTarget{*kind, ""};
  return std::nullopt;
}

std::string ClaimState(const api::ResourceClaim& claim) {
  const bool allocated = claim.status.has_value() && claim.status->allocation.has_value();
  const bool reserved = claim.status.has_value() && !claim.status->reserved_for.empty();
  if (allocated && reserved) return "allocated,reserved";
  if (allocated) return "allocated";
  if (reserved) return "reserved";
  return "pending";
}

Table MakeTable(const store::Snapshot& snap, const GetTarget& target, const TableFilter& filter) {
  if (!target.kind.has_value() && target.view == "pools") {
    Table t({"DRIVER", "POOL", "NODE", "GENERATION", "SLICES", "DEVICES", "IN USE", "STATUS"});
    for (const store::PoolInfo& p : snap.Pools()) {
      size_t in_use = 0;
      for (const auto* slice : p.slices) {
        for (const auto& d : slice->spec->devices) {
          if (snap.InUse(p.driver, p.pool, d.name.value_or(""))) ++in_use;
        }
      }
      std::string status = p.invalid ? absl::StrCat("invalid: ", p.invalid_reason)
                                     : p.complete ? "complete"
                                                  : absl::StrCat("incomplete (", p.slices.size(), " of ",
                                                                 p.resource_slice_count, " slices)");
      t.AddRow({std::string(p.driver), std::string(p.pool), p.node_name.empty() ? "<none>" : std::string(p.node_name),
                absl::StrCat(p.generation), absl::StrCat(p.slices.size()), absl::StrCat(p.device_count),
                absl::StrCat(in_use), status});
    }
    return t;
  }
  if (!target.kind.has_value()) {
    Table t({"DRIVER", "POOL", "DEVICE", "NODE", "ATTRIBUTES", "CAPACITY", "TAINTS", "ALLOCATED TO"});
    for (const store::PoolInfo& p : snap.Pools()) {
      for (const auto* slice : p.slices) {
        for (const api::Device& d : slice->spec->devices) {
          const std::string name = d.name.value_or("");
          if (!filter.name.empty() && name != filter.name) continue;
          std::vector<std::string> caps, taints, holders;
          for (const auto& [k, c] : d.capacity) caps.push_back(absl::StrCat(k, "=", c.value ? c.value->String() : "?"));
          for (const auto& tn : d.taints) taints.push_back(absl::StrCat(tn.key.value_or(""), ":", tn.effect.value_or("")));
          for (const auto& a : snap.Allocations(p.driver, p.pool, name)) {
            holders.push_back(absl::StrCat(AV(a.claim_namespace), "/", AV(a.claim_name), a.admin_access ? " (admin)" : ""));
          }
          t.AddRow({std::string(p.driver), std::string(p.pool), name, DeviceNode(*slice, d),
                    absl::StrCat(d.attributes.size()), caps.empty() ? "<none>" : absl::StrJoin(caps, ","),
                    taints.empty() ? "<none>" : absl::StrJoin(taints, ","),
                    holders.empty() ? "<none>" : absl::StrJoin(holders, ",")});
        }
      }
    }
    return t;
  }
  const api::Kind kind = *target.kind;
  std::vector<std::string> headers;
  const bool namespaced = api::IsNamespaced(kind);
  if (namespaced) headers.push_back("NAMESPACE");
  headers.push_back("NAME");
  switch (kind) {
    case api::Kind::kResourceSlice: headers.insert(headers.end(), {"NODE", "DRIVER", "POOL", "DEVICES"}); break;
    case api::Kind::kDeviceClass: headers.insert(headers.end(), {"SELECTORS", "CONFIG"}); break;
    case api::Kind::kResourceClaim: headers.insert(headers.end(), {"STATE", "REQUESTS", "DEVICES"}); break;
    case api::Kind::kResourceClaimTemplate: headers.insert(headers.end(), {"REQUESTS"}); break;
    case api::Kind::kDeviceTaintRule: headers.insert(headers.end(), {"DRIVER", "POOL", "DEVICE", "TAINT"}); break;
    case api::Kind::kPod: headers.insert(headers.end(), {"NODE", "PHASE", "CLAIMS"}); break;
    case api::Kind::kNode: headers.insert(headers.end(), {"LABELS"}); break;
    default: break;
  }
  Table t(headers);
  for (const api::Object* o : snap.List(kind, filter.ns)) {
    if (!Matches(o->metadata(), filter)) continue;
    std::vector<std::string> row;
    if (namespaced) row.push_back(o->metadata().namespace_.value_or(""));
    row.push_back(o->metadata().name.value_or(""));
    if (const auto* s = std::get_if<api::ResourceSlice>(&o->value)) {
      const auto& spec = s->spec;
      std::string node = "<none>";
      if (spec && spec->node_name) node = *spec->node_name;
      else if (spec && spec->all_nodes.value_or(false)) node = "<all>";
      else if (spec && spec->node_selector) node = "<selector>";
      row.insert(row.end(), {node, spec ? Or(spec->driver) : "<none>",
                             spec && spec->pool ? Or(spec->pool->name) : "<none>",
                             absl::StrCat(spec ? spec->devices.size() : 0)});
    } else if (const auto* c = std::get_if<api::DeviceClass>(&o->value)) {
      row.push_back(absl::StrCat(c->spec ? c->spec->selectors.size() : 0));
      row.push_back(absl::StrCat(c->spec ? c->spec->config.size() : 0));
    } else if (const auto* c = std::get_if<api::ResourceClaim>(&o->value)) {
      row.insert(row.end(), {ClaimState(*c), DescribeRequests(c->spec), AllocatedDevices(*c)});
    } else if (const auto* tpl = std::get_if<api::ResourceClaimTemplate>(&o->value)) {
      row.push_back(DescribeRequests(tpl->spec ? tpl->spec->spec : std::nullopt));
    } else if (const auto* r = std::get_if<api::DeviceTaintRule>(&o->value)) {
      const auto& sel = r->spec ? r->spec->device_selector : std::nullopt;
      const auto& taint = r->spec ? r->spec->taint : std::nullopt;
      row.insert(row.end(), {sel ? Or(sel->driver, "*") : "*", sel ? Or(sel->pool, "*") : "*",
                             sel ? Or(sel->device, "*") : "*",
                             taint ? absl::StrCat(taint->key.value_or(""), taint->value ? "=" + *taint->value : "", ":",
                                                  taint->effect.value_or(""))
                                   : "<none>"});
    } else if (const auto* p = std::get_if<api::Pod>(&o->value)) {
      std::vector<std::string> claims;
      for (const auto& pc : snap.ClaimsForPod(o->metadata().namespace_.value_or(""), o->metadata().name.value_or(""))) {
        std::string claim_name(pc.ref.claim_name);
        if (claim_name.empty() && pc.claim != nullptr) claim_name = pc.claim->metadata.name.value_or("");
        if (claim_name.empty()) claim_name = absl::StrCat("<from ", AV(pc.ref.template_name), ">");
        claims.push_back(claim_name);
      }
      row.insert(row.end(), {p->spec ? Or(p->spec->node_name) : "<none>", p->status ? Or(p->status->phase) : "<none>",
                             claims.empty() ? "<none>" : absl::StrJoin(claims, ",")});
    } else if (std::holds_alternative<api::Node>(o->value)) {
      std::vector<std::string> labels;
      for (const auto& [k, v] : o->metadata().labels) labels.push_back(absl::StrCat(k, "=", v));
      row.push_back(labels.empty() ? "<none>" : absl::StrJoin(labels, ","));
    }
    t.AddRow(std::move(row));
  }
  return t;
}

}  // namespace draforge::cli
