#include "analysis/platform_inventory.h"

#include <variant>

#include "analysis/inventory.h"
#include "api/codec.h"
#include "common/json_string.h"

namespace draforge::analysis {
namespace {

void AddFields(rapidjson::Value& o, const PlatformInventoryFields& f, bool cluster,
               rapidjson::Document::AllocatorType& a) {
  if (cluster) o.AddMember("totalGpuAllocatable", rapidjson::Value(static_cast<int64_t>(f.total_gpu_allocatable)), a);
  o.AddMember("draClaimCount", rapidjson::Value(static_cast<int64_t>(f.dra_claim_count)), a);
  o.AddMember("draAllocatedClaims", rapidjson::Value(static_cast<int64_t>(f.dra_allocated_claims)), a);
  o.AddMember("draAllocatedDevices", rapidjson::Value(static_cast<int64_t>(f.dra_allocated_devices)), a);
  if (cluster) {
    o.AddMember("draResourceSlices", rapidjson::Value(static_cast<int64_t>(f.dra_resource_slices)), a);
    o.AddMember("draDevices", rapidjson::Value(static_cast<int64_t>(f.dra_devices)), a);
  }
}

}  // namespace

PlatformInventory ReadPlatformInventory(const store::Snapshot& snapshot) {
  PlatformInventory out;
  const Summary summary = Summarize(snapshot);
  out.cluster.dra_resource_slices = static_cast<int64_t>(summary.counts.resource_slices);
  out.cluster.dra_devices = static_cast<int64_t>(summary.counts.devices);
  out.cluster.dra_allocated_devices = static_cast<int64_t>(summary.counts.allocated_devices);
  for (const PoolUsage& p : summary.pools) {
    if (p.complete && !p.invalid) out.cluster.total_gpu_allocatable += static_cast<int64_t>(p.devices - p.tainted_devices);
  }
  for (const api::Object* o : snapshot.List(api::Kind::kResourceClaim)) {
    const auto& claim = std::get<api::ResourceClaim>(o->value);
    PlatformInventoryFields& ns = out.namespaces[claim.metadata.namespace_.value_or("default")];
    ++ns.dra_claim_count;
    ++out.cluster.dra_claim_count;
    if (!claim.status || !claim.status->allocation) continue;
    ++ns.dra_allocated_claims;
    ++out.cluster.dra_allocated_claims;
    if (!claim.status->allocation->devices) continue;
    for (const auto& r : claim.status->allocation->devices->results) {
      if (!r.admin_access.value_or(false)) ++ns.dra_allocated_devices;
    }
  }
  return out;
}

std::string PlatformInventoryJson(const PlatformInventory& inventory) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  AddFields(d, inventory.cluster, true, a);
  rapidjson::Value namespaces(rapidjson::kObjectType);
  for (const auto& [name, f] : inventory.namespaces) {
    rapidjson::Value o(rapidjson::kObjectType);
    AddFields(o, f, false, a);
    namespaces.AddMember(JsonString(name, a), o, a);
  }
  d.AddMember("namespaces", namespaces, a);
  return api::WriteJson(d, false);
}

}  // namespace draforge::analysis
