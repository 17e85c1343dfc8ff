#include "analysis/anomalies.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "analysis/claim_state.h"
#include "common/status.h"
#include "graph/graph.h"

namespace draforge::analysis {
namespace {

std::string ClaimKey(const api::ResourceClaim& claim) {
  return absl::StrCat(AV(claim.metadata.namespace_.value_or("")), "/", AV(claim.metadata.name.value_or("")));
}

void ClaimAnomalies(const store::Snapshot& snapshot, const api::ResourceClaim& claim, std::vector<Anomaly>& out) {
  const std::string id = graph::NodeId(graph::NodeKind::kResourceClaim, claim.metadata.namespace_.value_or(""),
                                       claim.metadata.name.value_or(""));
  const std::string key = ClaimKey(claim);
  const bool allocated = claim.status && claim.status->allocation;
  const bool reserved = claim.status && !claim.status->reserved_for.empty();
  if (allocated && !reserved && !claim.metadata.deletion_timestamp) {
    out.push_back({AnomalyKind::kAllocatedNotReserved, Severity::kWarning, id,
                   absl::StrCat("ResourceClaim ", key,
                                " is allocated (status.allocation) but reserved for no consumer (status.reservedFor "
                                "is empty): its devices are held and unused")});
  }
  if (reserved && !allocated) {
    out.push_back({AnomalyKind::kReservedNotAllocated, Severity::kError, id,
                   absl::StrCat("ResourceClaim ", key, " has status.reservedFor but no status.allocation")});
  }
  if (allocated && claim.status->allocation->devices) {
    const auto& results = claim.status->allocation->devices->results;
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      const std::string driver = r.driver.value_or(""), pool = r.pool.value_or(""), device = r.device.value_or("");
      if (snapshot.FindDevice(driver, pool, device).device == nullptr) {
        out.push_back({AnomalyKind::kUnknownDevice, Severity::kError, id,
                       absl::StrCat("ResourceClaim ", key, " status.allocation.devices.results[", i, "] (request ",
                                    AV(r.request.value_or("")), ") names device ", AV(driver), "/", AV(pool), "/",
                                    AV(device), ", which no current ResourceSlice of pool ", AV(pool),
                                    " publishes")});
      }
    }
  }
  if (!allocated && claim.spec && claim.spec->devices) {
    const auto& requests = claim.spec->devices->requests;
    for (size_t i = 0; i < requests.size(); ++i) {
      const auto& req = requests[i];
      auto check = [&](const std::optional<std::string>& cls, const std::string& field) {
        if (cls && !cls->empty() && snapshot.GetDeviceClass(*cls) == nullptr) {
          out.push_back({AnomalyKind::kMissingDeviceClass, Severity::kError, id,
                         absl::StrCat("ResourceClaim ", key, " ", field, " names DeviceClass ", AV(*cls),
                                      ", which does not exist")});
        }
      };
      const std::string base = absl::StrCat("spec.devices.requests[", i, "]");
      if (req.exactly) check(req.exactly->device_class_name, base + ".exactly.deviceClassName");
      for (size_t j = 0; j < req.first_available.size(); ++j) {
        check(req.first_available[j].device_class_name,
              absl::StrCat(base, ".firstAvailable[", j, "].deviceClassName"));
      }
    }
  }
}

void PodAnomalies(const store::Snapshot& snapshot, const api::Pod& pod, std::vector<Anomaly>& out) {
  const std::string ns = pod.metadata.namespace_.value_or(""), name = pod.metadata.name.value_or("");
  for (const auto& ref : store::ResolvePodClaims(pod)) {
    if (ref.claim_name.empty()) continue;  // template claim not created yet, or none needed
    if (snapshot.GetResourceClaim(ns, ref.claim_name) != nullptr) continue;
    out.push_back({AnomalyKind::kMissingClaim, Severity::kWarning, graph::NodeId(graph::NodeKind::kPod, ns, name),
                   absl::StrCat("Pod ", AV(ns), "/", AV(name), " spec.resourceClaims[", AV(ref.name),
                                "] references ResourceClaim ", AV(ref.claim_name), ", which does not exist")});
  }
}

void PoolAnomalies(const store::Snapshot& snapshot, std::vector<Anomaly>& out) {
  for (const auto& pool : snapshot.Pools()) {
    const std::string id = graph::PoolId(pool.driver, pool.pool);
    if (!pool.complete) {
      out.push_back({AnomalyKind::kIncompletePool, Severity::kWarning, id,
                     absl::StrCat("pool ", AV(pool.pool), " of driver ", AV(pool.driver), " has ",
                                  pool.slices.size(), " of ", pool.resource_slice_count,
                                  " ResourceSlices (spec.pool.resourceSliceCount) at generation ", pool.generation,
                                  ": the allocator does not use it until it is complete")});
    }
    if (pool.invalid) {
      out.push_back({AnomalyKind::kInvalidPool, Severity::kError, id,
                     absl::StrCat("pool ", AV(pool.pool), " of driver ", AV(pool.driver),
                                  " is invalid: ", pool.invalid_reason)});
    }
  }
  // Exclusive holders per device: results without shareID and without adminAccess.
  const auto all = snapshot.AllAllocations();
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    std::set<std::string> holders;
    while (j < all.size() && all[j].driver == all[i].driver && all[j].pool == all[i].pool &&
           all[j].device == all[i].device) {
      if (all[j].share_id.empty() && !all[j].admin_access) {
        holders.insert(absl::StrCat(AV(all[j].claim_namespace), "/", AV(all[j].claim_name)));
      }
      ++j;
    }
    if (holders.size() > 1) {
      std::string names;
      for (const auto& h : holders) absl::StrAppend(&names, names.empty() ? "" : ", ", h);
      out.push_back({AnomalyKind::kDeviceOverallocated, Severity::kError,
                     graph::DeviceId(all[i].driver, all[i].pool, all[i].device),
                     absl::StrCat("device ", AV(all[i].driver), "/", AV(all[i].pool), "/", AV(all[i].device),
                                  " is allocated to ", holders.size(), " claims at once: ", names)});
    }
    i = j;
  }
}

}  // namespace

std::string_view AnomalyKindName(AnomalyKind kind) {
  switch (kind) {
    case AnomalyKind::kAllocatedNotReserved:
      return "allocatedNotReserved";
    case AnomalyKind::kUnknownDevice:
      return "unknownDevice";
    case AnomalyKind::kMissingDeviceClass:
      return "missingDeviceClass";
    case AnomalyKind::kMissingClaim:
      return "missingClaim";
    case AnomalyKind::kIncompletePool:
      return "incompletePool";
    case AnomalyKind::kInvalidPool:
      return "invalidPool";
    case AnomalyKind::kDeviceOverallocated:
      return "deviceOverallocated";
    case AnomalyKind::kReservedNotAllocated:
      return "reservedNotAllocated";
  }
  return "unknownDevice";
}

std::string_view SeverityName(Severity severity) { return severity == Severity::kError ? "error" : "warning"; }

std::vector<Anomaly> FindAnomalies(const store::Snapshot& snapshot, std::string_view ns) {
  std::vector<Anomaly> out;
  for (const auto* claim : snapshot.ResourceClaims(ns)) ClaimAnomalies(snapshot, *claim, out);
  for (const auto* pod : snapshot.Pods(ns)) PodAnomalies(snapshot, *pod, out);
  if (ns.empty()) PoolAnomalies(snapshot, out);
  std::stable_sort(out.begin(), out.end(), [](const Anomaly& a, const Anomaly& b) {
    return std::tie(a.object, a.kind) < std::tie(b.object, b.kind);
  });
  return out;
}

}  // namespace draforge::analysis
