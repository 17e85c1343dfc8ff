#include "cdi/node_specs.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cdi/internal/names.h"
#include "cdi/spec_validation.h"
#include "common/status.h"

namespace draforge::cdi {

std::string SelectedNode(const api::NodeSelector* selector) {
  if (selector == nullptr || selector->node_selector_terms.size() != 1) return "";
  const api::NodeSelectorTerm& term = selector->node_selector_terms[0];
  const std::vector<api::NodeSelectorRequirement>* reqs = nullptr;
  std::string_view key;
  if (term.match_expressions.empty() && term.match_fields.size() == 1) {
    reqs = &term.match_fields;
    key = "metadata.name";
  } else if (term.match_fields.empty() && term.match_expressions.size() == 1) {
    reqs = &term.match_expressions;
    key = "kubernetes.io/hostname";
  } else {
    return "";
  }
  const api::NodeSelectorRequirement& r = (*reqs)[0];
  if (r.key.value_or("") != key || r.operator_.value_or("") != "In" || r.values.size() != 1) return "";
  return r.values[0];
}

namespace {

// Claims by namespace/name, viewing into the claims.
using ClaimsByName = std::map<std::pair<std::string_view, std::string_view>, const api::ResourceClaim*>;

std::string Q(std::string_view s) { return absl::StrCat("\"", AV(s), "\""); }

// "DRA_<CLAIM_UID>_<DEVICE>[_<SHARE_ID>]_": unique per claim and device on the node, so a container
// that gets several claims' devices keeps every variable (a runtime applies one device's edits after
// another, and a repeated name overwrites the earlier value). A claim UID has a fixed shape, so the
// claim and device parts cannot run into each other.
std::string EnvPrefix(std::string_view claim_uid, std::string_view device, std::string_view share_id) {
  std::string p = absl::StrCat("DRA_", internal::EnvToken(claim_uid), "_", internal::EnvToken(device), "_");
  if (!share_id.empty()) absl::StrAppend(&p, internal::EnvToken(share_id), "_");
  return p;
}

bool NamesExactlyNode(const api::NodeSelector* selector, std::string_view node) {
  const std::string selected = SelectedNode(selector);
  return !selected.empty() && selected == node;
}

// The driver's resolved rule. `error` is set when the driver's name makes no valid vendor (input
// the API server would have refused): its claims fail, the others are unaffected.
struct Rule {
  const DriverRule* rule;
  std::string kind;
  std::string error;
};

absl::StatusOr<std::map<std::string, Rule>> ResolveRules(const BuildOptions& options, const DriverRule& fallback,
                                                         const std::set<std::string>& drivers) {
  std::map<std::string, const DriverRule*> by_driver;
  const DriverRule* default_rule = &fallback;
  bool have_default = false;
  for (const DriverRule& r : options.rules) {
    if (r.driver.empty()) {
      if (have_default) return absl::InvalidArgumentError("CDI driver rules: two default rules (driver \"\")");
      have_default = true;
      default_rule = &r;
    } else if (!by_driver.emplace(r.driver, &r).second) {
      return absl::InvalidArgumentError(absl::StrCat("CDI driver rules: two rules for driver ", Q(r.driver)));
    }
  }
  std::map<std::string, Rule> out;
  for (const std::string& driver : drivers) {
    auto it = by_driver.find(driver);
    const DriverRule* r = it != by_driver.end() ? it->second : default_rule;
    const std::string vendor = r->vendor.empty() ? "k8s." + driver : r->vendor;
    if (std::string e = internal::StrictClassError(r->cdi_class); !e.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("CDI driver rule for ", Q(driver), ": ", e));
    }
    Rule rule{r, vendor + "/" + r->cdi_class, {}};
    if (std::string e = internal::StrictVendorError(vendor); !e.empty()) {
      if (!r->vendor.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("CDI driver rule for ", Q(driver), ": ", e));
      }
      rule.error = absl::StrCat("driver name ", Q(driver), " does not make a valid CDI vendor: ", e);
    }
    out.emplace(driver, std::move(rule));
  }
  return out;
}

}  // namespace

std::vector<SpecFile> NodeSpecs::Files() const {
  std::vector<SpecFile> out;
  out.reserve(specs.size());
  for (const ClaimSpec& c : specs) out.push_back(c.file);
  return out;
}

SyncOptions NodeSpecs::MakeSyncOptions(const WriteOptions& write) const {
  SyncOptions out;
  out.write = write;
  out.owned_prefixes = owned_prefixes;
  for (const ClaimFailure& f : failed) {
    if (!f.file_name.empty()) out.keep.push_back(f.file_name);
  }
  return out;
}

namespace {

// The specs of `claims` (allocated ones). `known_drivers` (those with slices) are owned too.
absl::StatusOr<NodeSpecs> BuildSpecs(const ClaimsByName& claims, const std::vector<std::string_view>& known_drivers,
                                     const BuildOptions& options) {
  if (!IsKnownVersion(options.max_version)) {
    return absl::InvalidArgumentError(absl::StrCat("CDI specs: the maximum version ", Q(options.max_version),
                                                   " is not a known CDI version"));
  }
  const std::set<std::string> filter(options.drivers.begin(), options.drivers.end());
  auto wanted_driver = [&](std::string_view d) { return filter.empty() || filter.count(std::string(d)) > 0; };

  // Every driver this writer speaks for: their prefixes are owned.
  std::set<std::string> drivers(options.drivers.begin(), options.drivers.end());
  for (const DriverRule& r : options.rules) {
    if (!r.driver.empty() && wanted_driver(r.driver)) drivers.insert(r.driver);
  }
  for (std::string_view d : known_drivers) {
    if (wanted_driver(d)) drivers.insert(std::string(d));
  }
  for (const auto& [key, claim] : claims) {
    if (!claim->status->allocation->devices) continue;
    for (const api::DeviceRequestAllocationResult& r : claim->status->allocation->devices->results) {
      if (r.driver && !r.driver->empty() && wanted_driver(*r.driver)) drivers.insert(*r.driver);
    }
  }
  const DriverRule fallback;
  ASSIGN_OR_RETURN(auto rules, ResolveRules(options, fallback, drivers));

  NodeSpecs out;
  for (const auto& [driver, rule] : rules) {
    if (rule.error.empty()) out.owned_prefixes.push_back(SpecFileNamePrefix(rule.kind));
  }

  ValidateOptions validate;
  validate.strictness = Strictness::kStrict;
  validate.max_version = options.max_version;

  for (const auto& [key, claim] : claims) {
    const std::string ns = claim->metadata.namespace_.value_or("");
    const std::string name = claim->metadata.name.value_or("");
    const std::string uid = claim->metadata.uid.value_or("");
    const std::string what = absl::StrCat("ResourceClaim ", ns, "/", name);
    const auto& alloc = *claim->status->allocation;
    if (!alloc.devices) continue;
    const std::vector<api::DeviceRequestAllocationResult>& results = alloc.devices->results;

    // Group the results of wanted drivers by driver, keeping result indexes.
    std::map<std::string, std::vector<size_t>> by_driver;
    std::string broken;  // the first incomplete result
    for (size_t i = 0; i < results.size(); ++i) {
      const api::DeviceRequestAllocationResult& r = results[i];
      const std::string driver = r.driver.value_or("");
      if (!driver.empty() && !wanted_driver(driver)) continue;
      std::string missing;
      if (driver.empty()) missing = "driver";
      else if (r.pool.value_or("").empty()) missing = "pool";
      else if (r.device.value_or("").empty()) missing = "device";
      else if (r.request.value_or("").empty()) missing = "request";
      if (!missing.empty() && broken.empty()) {
        broken = absl::StrCat(what, ": status.allocation.devices.results[", i, "].", missing, " is empty");
      }
      if (!driver.empty()) by_driver[driver].push_back(i);
    }
    if (!broken.empty()) {
      // The claim's specs cannot be trusted: fail each of them, so that their last good files stay.
      if (by_driver.empty()) out.failed.push_back({ns, name, uid, "", "", broken});
      for (const auto& [driver, indexes] : by_driver) {
        const Rule& rule = rules.at(driver);
        out.failed.push_back({ns, name, uid, driver,
                              uid.empty() || !rule.error.empty() ? std::string() : TransientSpecFileName(rule.kind, uid),
                              broken});
      }
      continue;
    }
    for (const auto& [driver, indexes] : by_driver) {
      const Rule& rule = rules.at(driver);
      const std::string file_name =
          uid.empty() || !rule.error.empty() ? std::string() : TransientSpecFileName(rule.kind, uid);
      auto fail = [&](std::string message) {
        out.failed.push_back({ns, name, uid, driver, file_name, std::move(message)});
      };
      if (!rule.error.empty()) {
        fail(absl::StrCat(what, ": ", rule.error));
        continue;
      }
      if (uid.empty()) {
        fail(absl::StrCat(what, ": metadata.uid is empty (the CDI spec and device names are built from it)"));
        continue;
      }
      ClaimSpec cs;
      cs.claim_namespace = ns;
      cs.claim_name = name;
      cs.claim_uid = uid;
      cs.driver = driver;
      cs.file.file_name = file_name;
      Spec& spec = cs.file.spec;
      spec.kind = rule.kind;
      std::map<std::string, size_t> device_index;  // CDI device name -> index in spec.devices
      for (size_t i : indexes) {
        const api::DeviceRequestAllocationResult& r = results[i];
        std::string device_name = absl::StrCat(uid, "-", *r.device);
        if (r.share_id && !r.share_id->empty()) absl::StrAppend(&device_name, "-", *r.share_id);
        const std::string id = QualifiedDeviceName(rule.kind, device_name);
        auto req = std::find_if(cs.requests.begin(), cs.requests.end(),
                                [&](const RequestDevices& rd) { return rd.request == *r.request; });
        if (req == cs.requests.end()) {
          cs.requests.push_back({*r.request, {}});
          req = cs.requests.end() - 1;
        }
        req->cdi_device_ids.push_back(id);
        cs.devices.push_back({*r.request, *r.pool, *r.device, r.share_id.value_or(""), id});
        if (!device_index.emplace(device_name, spec.devices.size()).second) continue;  // one device, two requests
        Device d;
        d.name = device_name;
        if (rule.rule->device_env) {
          const std::string p = EnvPrefix(uid, *r.device, r.share_id ? *r.share_id : std::string());
          ContainerEdits& e = d.container_edits;
          e.env.push_back(absl::StrCat(p, "DRIVER=", driver));
          e.env.push_back(absl::StrCat(p, "POOL=", *r.pool));
          e.env.push_back(absl::StrCat(p, "DEVICE=", *r.device));
          e.env.push_back(absl::StrCat(p, "REQUEST=", *r.request));
          e.env.push_back(absl::StrCat(p, "CLAIM=", ns, "/", name));
          e.env.push_back(absl::StrCat(p, "CLAIM_UID=", uid));
          if (r.share_id && !r.share_id->empty()) e.env.push_back(absl::StrCat(p, "SHARE_ID=", *r.share_id));
          if (r.admin_access.value_or(false)) e.env.push_back(absl::StrCat(p, "ADMIN_ACCESS=true"));
        }
        if (!rule.rule->metadata_host_dir.empty()) {
          Mount m;
          m.host_path = absl::StrCat(rule.rule->metadata_host_dir, "/", device_name, ".json");
          m.container_path = absl::StrCat(rule.rule->metadata_container_dir, "/", *r.request, "/", *r.device, ".json");
          m.options = {"ro", "bind"};
          d.container_edits.mounts.push_back(std::move(m));
        }
        spec.devices.push_back(std::move(d));
      }
      spec.version = MinimumVersion(spec);
      std::vector<Problem> problems = Validate(spec, validate);
      if (!problems.empty()) {
        fail(absl::StrCat(what, ": its CDI spec for driver ", Q(driver), " is not valid: ", FormatProblems(problems)));
        continue;
      }
      out.specs.push_back(std::move(cs));
    }
  }
  std::sort(out.specs.begin(), out.specs.end(), [](const ClaimSpec& a, const ClaimSpec& b) {
    return std::tie(a.claim_namespace, a.claim_name, a.driver) < std::tie(b.claim_namespace, b.claim_name, b.driver);
  });
  return out;
}

}  // namespace

absl::StatusOr<NodeSpecs> BuildSpecsForNode(const store::Snapshot& snapshot, std::string_view node,
                                            const BuildOptions& options) {
  if (node.empty()) return absl::InvalidArgumentError("CDI specs: the node name must not be empty");
  // The claims on the node, by namespace/name.
  ClaimsByName claims;
  auto add = [&](const api::ResourceClaim* c) {
    if (c == nullptr || !c->status || !c->status->allocation) return;
    // Views into the claim (which the snapshot owns), never into a temporary.
    const std::string_view ns = c->metadata.namespace_ ? std::string_view(*c->metadata.namespace_) : std::string_view();
    const std::string_view name = c->metadata.name ? std::string_view(*c->metadata.name) : std::string_view();
    claims.emplace(std::make_pair(ns, name), c);
  };
  for (const api::Pod* pod : snapshot.PodsOnNode(node)) {
    for (const store::PodClaim& pc : snapshot.ClaimsForPod(pod->metadata.namespace_.value_or(""),
                                                           pod->metadata.name.value_or(""))) {
      add(pc.claim);
    }
  }
  for (const api::ResourceClaim* c : snapshot.ResourceClaims()) {
    if (c->status && c->status->allocation &&
        NamesExactlyNode(c->status->allocation->node_selector ? &*c->status->allocation->node_selector : nullptr,
                         node)) {
      add(c);
    }
  }
  return BuildSpecs(claims, snapshot.Drivers(), options);
}

absl::StatusOr<std::string> KindForDriver(const BuildOptions& options, std::string_view driver) {
  const DriverRule fallback;
  ASSIGN_OR_RETURN(auto rules, ResolveRules(options, fallback, {std::string(driver)}));
  const Rule& rule = rules.at(std::string(driver));
  if (!rule.error.empty()) return absl::InvalidArgumentError(rule.error);
  return rule.kind;
}

absl::StatusOr<ClaimSpec> BuildClaimSpec(const api::ResourceClaim& claim, std::string_view node,
                                         std::string_view driver, const BuildOptions& options) {
  if (node.empty() || driver.empty()) {
    return absl::InvalidArgumentError("CDI spec of a claim: the node and driver names must not be empty");
  }
  const std::string ns = claim.metadata.namespace_.value_or("");
  const std::string name = claim.metadata.name.value_or("");
  const std::string short_what = absl::StrCat("ResourceClaim ", ns, "/", name);
  const std::string what = absl::StrCat(short_what, " (uid ", claim.metadata.uid.value_or(""), ")");
  if (!claim.status || !claim.status->allocation) {
    return absl::FailedPreconditionError(absl::StrCat(what, ": not allocated (status.allocation is empty)"));
  }
  const api::AllocationResult& alloc = *claim.status->allocation;
  // A selector that names no single node (none: network-attached devices; labels) cannot be judged
  // without the Node: the scheduler placed the pod, so kubelet only asks for claims its node may use.
  const std::string selected = SelectedNode(alloc.node_selector ? &*alloc.node_selector : nullptr);
  if (!selected.empty() && selected != node) {
    return absl::FailedPreconditionError(absl::StrCat(what, ": allocated for node ", Q(selected),
                                                      " (status.allocation.nodeSelector), not for node ", Q(node)));
  }
  const bool has_driver =
      alloc.devices && std::any_of(alloc.devices->results.begin(), alloc.devices->results.end(),
                                   [&](const api::DeviceRequestAllocationResult& r) { return r.driver == driver; });
  if (!has_driver) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": no device of driver ", Q(driver), " in status.allocation.devices.results"));
  }
  BuildOptions one = options;
  one.drivers = {std::string(driver)};
  ClaimsByName claims;
  claims.emplace(std::make_pair(std::string_view(ns), std::string_view(name)), &claim);
  ASSIGN_OR_RETURN(NodeSpecs built, BuildSpecs(claims, {}, one));
  if (!built.failed.empty()) {
    // The shared builder names the claim without its UID; kubelet's callers name claims by UID too.
    std::string message = built.failed.front().message;
    if (message.rfind(short_what, 0) == 0) message.replace(0, short_what.size(), what);
    return absl::InvalidArgumentError(message);
  }
  if (built.specs.size() != 1) {
    return absl::InternalError(absl::StrCat(what, ": ", built.specs.size(), " CDI specs for driver ", Q(driver)));
  }
  return std::move(built.specs.front());
}

}  // namespace draforge::cdi
