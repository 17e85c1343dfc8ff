// The AllocationResults of a successful search, built as upstream builds them: one result per
// device in the order chosen, the class configs once per class and the claim's configs once each,
// and the node selector (upstream createNodeSelector).
#include <map>
#include <set>

#include "alloc/internal/search.h"

namespace draforge::alloc::internal {

absl::StatusOr<std::vector<api::AllocationResult>> Search::Build() {
  std::vector<api::AllocationResult> out;
  for (ClaimData& cd : claims_) {
    api::AllocationResult ar;
    ar.devices.emplace();
    ar.devices->results = DeviceResults(cd);
    AddClassConfigs(cd, ar.devices->config);
    AddClaimConfigs(cd, ar.devices->config);
    std::optional<api::NodeSelector> ns;
    ASSIGN_OR_RETURN(api::NodeSelector * unused, NodeSelectorFor(cd, ns));
    (void)unused;
    ar.node_selector = std::move(ns);
    out.push_back(std::move(ar));
  }
  return out;
}

std::vector<api::DeviceRequestAllocationResult> Search::DeviceResults(const ClaimData& cd) {
  std::vector<api::DeviceRequestAllocationResult> results;
  for (size_t i = 0; i < cd.results.size(); ++i) {
    const DeviceResult& r = cd.results[i];
    const RequestData& rd = cd.requests[r.request][r.sub];
    const Dev& dev = devs_[r.dev];
    api::DeviceRequestAllocationResult x;
    x.request = rd.FullName();
    x.driver = std::string(dev.driver);
    x.pool = std::string(dev.pool);
    x.device = std::string(dev.name);
    if (r.admin) x.admin_access = true;
    // The API server defaults a toleration's operator to Equal before the scheduler sees the claim,
    // so upstream's results carry it; DRAForge's objects keep what was written.
    if (f_.ResultTolerations()) x.tolerations = *rd.tolerations;
    for (api::DeviceToleration& t : x.tolerations) {
      if (!t.operator_.has_value()) t.operator_ = "Equal";
    }
    if (r.shared) {
      x.share_id = options_.share_id ? options_.share_id(*cd.claim, *x.request, dev.id, static_cast<int>(i))
                                     : ShareIdFor(*cd.claim, *x.request, dev.id, static_cast<int>(i));
    }
    // Written as Kubernetes serializes a Quantity (apimachinery's String()): canonical ("1000M" ->
    // "1G"), or the text ParseQuantity kept ("+1", "1.500").
    for (const auto& [name, q] : r.consumed) {
      auto canonical = api::Quantity::Parse(q.Canonical());
      x.consumed_capacity.Set(name, canonical.ok() ? *canonical : q);
    }
    // Only upstream's experimental variant copies it (and only it refuses such devices without
    // DRAOptionalNodeOperations, see AllocateDevice).
    if (f_.ExperimentalAllocator()) x.skip_node_operations = dev.slice->spec->skip_node_operations;
    if (f_.DeviceBindingAndStatus()) {
      x.binding_conditions = dev.device->binding_conditions;
      x.binding_failure_conditions = dev.device->binding_failure_conditions;
    }
    results.push_back(std::move(x));
  }
  return results;
}

// Class configs, once per class, listing every request that used the class.
void Search::AddClassConfigs(const ClaimData& cd, std::vector<api::DeviceAllocationConfiguration>& config) {
  std::map<std::string, std::pair<size_t, size_t>> class_ranges;
  for (size_t ri = 0; ri < cd.requests.size(); ++ri) {
    const RequestData& rd = cd.requests[ri][cd.has_subs[ri] ? cd.selected_sub[ri] : 0];
    auto it = class_ranges.find(rd.class_name);
    if (it != class_ranges.end()) {
      for (size_t i = it->second.first; i < it->second.second; ++i) config[i].requests.push_back(rd.FullName());
      continue;
    }
    const size_t start = config.size();
    if (rd.klass->spec) {
      for (const auto& c : rd.klass->spec->config) {
        api::DeviceAllocationConfiguration dac;
        dac.source = "FromClass";
        dac.requests = {rd.FullName()};
        dac.opaque = c.opaque;
        config.push_back(std::move(dac));
      }
    }
    class_ranges[rd.class_name] = {start, config.size()};
  }
}

// Claim configs: from 1.37 once each, and any config, class configs included, that covers every
// request (by name or by its chosen subrequest) applies to all (`requests` cleared); before 1.37
// once per request they name, as written (Features::CompactResultConfigs).
void Search::AddClaimConfigs(const ClaimData& cd, std::vector<api::DeviceAllocationConfiguration>& config) {
  const api::DeviceClaim& dc = ClaimDevices(*cd.claim);
  // Whether `requests` names request `ri` or the subrequest chosen for it.
  auto names = [&](const std::vector<std::string>& requests, size_t ri) {
    const std::string name = dc.requests[ri].name.value_or("");
    if (std::find(requests.begin(), requests.end(), name) != requests.end()) return true;
    if (!cd.has_subs[ri]) return false;
    const std::string sub = cd.requests[ri][cd.selected_sub[ri]].FullName();
    return std::find(requests.begin(), requests.end(), sub) != requests.end();
  };
  const bool compact = f_.CompactResultConfigs();
  for (const auto& c : dc.config) {
    size_t copies = c.requests.empty() ? 1 : 0;
    for (size_t ri = 0; ri < dc.requests.size() && (copies == 0 || !compact); ++ri) copies += names(c.requests, ri) ? 1 : 0;
    for (size_t i = 0; i < copies; ++i) {
      api::DeviceAllocationConfiguration dac;
      dac.source = "FromClaim";
      dac.requests = c.requests;
      dac.opaque = c.opaque;
      config.push_back(std::move(dac));
    }
  }
  if (!compact) return;
  for (auto& c : config) {
    if (c.requests.empty()) continue;
    bool all = true;
    for (size_t ri = 0; all && ri < dc.requests.size(); ++ri) all = names(c.requests, ri);
    if (all) c.requests.clear();
  }
}

// upstream createNodeSelector: the node itself when a device is tied to it by name (or binds to
// it), else the slices' and devices' node selectors merged into one term.
absl::StatusOr<api::NodeSelector*> Search::NodeSelectorFor(const ClaimData& cd, std::optional<api::NodeSelector>& out) {
  api::NodeSelectorTerm term;
  auto add = [](const std::vector<api::NodeSelectorRequirement>& from, std::vector<api::NodeSelectorRequirement>& to) {
    for (const auto& req : from) {
      std::set<std::string> values(req.values.begin(), req.values.end());
      bool found = false;
      for (const auto& e : to) {
        if (e.key == req.key && e.operator_ == req.operator_ &&
            std::set<std::string>(e.values.begin(), e.values.end()) == values) {
          found = true;
          break;
        }
      }
      if (!found) to.push_back(req);
    }
  };
  for (const DeviceResult& r : cd.results) {
    const Dev& dev = devs_[r.dev];
    const api::ResourceSliceSpec& spec = *dev.slice->spec;
    bool has_node_name;
    const api::NodeSelector* selector;  // null: none
    if (spec.per_device_node_selection.value_or(false)) {
      has_node_name = dev.device->node_name.has_value();
      selector = dev.device->node_selector ? &*dev.device->node_selector : nullptr;
    } else {
      has_node_name = spec.node_name.has_value();
      selector = spec.node_selector ? &*spec.node_selector : nullptr;
    }
    if (has_node_name || dev.device->binds_to_node.value_or(false)) {
      api::NodeSelector ns;
      api::NodeSelectorTerm t;
      t.match_fields.push_back(api::NodeSelectorRequirement{"metadata.name", "In", {node_.name}});
      ns.node_selector_terms.push_back(std::move(t));
      out = std::move(ns);
      return &*out;
    }
    if (selector != nullptr) {
      const auto& terms = selector->node_selector_terms;
      if (terms.size() == 1) {
        add(terms[0].match_fields, term.match_fields);
        add(terms[0].match_expressions, term.match_expressions);
      } else if (terms.size() > 1) {
        return absl::InvalidArgumentError(absl::StrCat("create NodeSelector for claim ",
                                                       cd.claim->metadata.name.value_or(""),
                                                       ": unsupported ResourceSlice.NodeSelector with ", terms.size(),
                                                       " terms"));
      }
    }
  }
  if (!term.match_fields.empty() || !term.match_expressions.empty()) {
    api::NodeSelector ns;
    ns.node_selector_terms.push_back(std::move(term));
    out = std::move(ns);
    return &*out;
  }
  return nullptr;
}
}  // namespace draforge::alloc::internal
