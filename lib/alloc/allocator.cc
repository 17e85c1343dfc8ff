#include "alloc/allocator.h"

#include <cstdio>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "alloc/internal/consumable_capacity.h"
#include "alloc/internal/optional_node_operations.h"
#include "alloc/internal/pools.h"
#include "alloc/internal/search.h"
#include "alloc/internal/selectors.h"
#include "api/codec.h"
#include "api/object.h"
#include "common/status.h"

namespace draforge::alloc {

NodeInfo NodeInfo::FromNode(const api::Node& node) {
  NodeInfo info{node.metadata.name.value_or(""), node.metadata.labels};
  info.declared_features = internal::DeclaredFeatures(node);
  return info;
}

std::string DeviceID::String() const { return absl::StrCat(driver, "/", pool, "/", device); }

DeviceID ResultDeviceID(const api::DeviceRequestAllocationResult& r) {
  return DeviceID{r.driver.value_or(""), r.pool.value_or(""), r.device.value_or("")};
}

void AllocatedState::Add(const api::AllocationResult& allocation) {
  if (!allocation.devices) return;
  for (const auto& r : allocation.devices->results) {
    if (r.admin_access.value_or(false)) continue;
    DeviceID id = ResultDeviceID(r);
    if (r.share_id) {
      allocated_shared_devices.insert(SharedDeviceID{id, *r.share_id});
      internal::AddCapacity(aggregated_capacity[id], r.consumed_capacity);
    } else {
      allocated_devices.insert(std::move(id));
    }
  }
}

bool AllocatedState::IsDeviceAllocated(const DeviceID& id) const {
  if (allocated_devices.contains(id) || aggregated_capacity.contains(id)) return true;
  for (const auto& s : allocated_shared_devices) {
    if (s.device == id) return true;
  }
  return false;
}

AllocatedState AllocatedStateFromSnapshot(const store::Snapshot& snapshot,
                                          const std::vector<const api::ResourceClaim*>& exclude) {
  AllocatedState state;
  for (const api::ResourceClaim* claim : snapshot.ResourceClaims()) {
    if (!claim->status || !claim->status->allocation) continue;
    bool excluded = false;
    for (const api::ResourceClaim* e : exclude) {
      if (e == claim || (e->metadata.namespace_ == claim->metadata.namespace_ && e->metadata.name == claim->metadata.name)) {
        excluded = true;
        break;
      }
    }
    if (!excluded) state.Add(*claim->status->allocation);
  }
  return state;
}

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kAllocated:
      return "allocated";
    case Outcome::kUnschedulable:
      return "unschedulable";
    case Outcome::kError:
      return "error";
  }
  return "error";
}

namespace {

// 64-bit FNV-1a.
uint64_t Fnv(uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  h ^= 0xff;  // field separator
  h *= 1099511628211ull;
  return h;
}

}  // namespace

std::string ShareIdFor(const api::ResourceClaim& claim, std::string_view request, const DeviceID& device,
                       int result_index) {
  const std::string index = std::to_string(result_index);
  const std::string_view fields[] = {claim.metadata.namespace_.value_or(""), claim.metadata.name.value_or(""),
                                     claim.metadata.uid.value_or(""), request, device.driver, device.pool,
                                     device.device, index};
  uint64_t a = 14695981039346656037ull, b = 0x6c62272e07bb0142ull;
  for (std::string_view f : fields) {
    a = Fnv(a, f);
    b = Fnv(b, f);
  }
  unsigned char bytes[16];
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<unsigned char>(a >> (56 - 8 * i));
    bytes[8 + i] = static_cast<unsigned char>(b >> (56 - 8 * i));
  }
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x80);  // version 8
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);  // RFC 4122 variant
  char out[37];
  std::snprintf(out, sizeof(out), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", bytes[0],
                bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10],
                bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]);
  return out;
}

absl::StatusOr<rapidjson::Document> EncodeAllocationResult(const api::AllocationResult& allocation) {
  api::ResourceClaim claim;
  claim.metadata.name = "x";
  claim.metadata.namespace_ = "x";
  claim.status.emplace();
  claim.status->allocation = allocation;
  api::Object obj;
  obj.api_version = "resource.k8s.io/v1";
  obj.value = std::move(claim);
  ASSIGN_OR_RETURN(rapidjson::Document doc, api::EncodeObject(obj, "resource.k8s.io/v1"));
  rapidjson::Document out;
  auto status = doc.FindMember("status");
  if (status == doc.MemberEnd() || !status->value.IsObject()) return absl::InternalError("status not encoded");
  auto alloc = status->value.FindMember("allocation");
  if (alloc == status->value.MemberEnd()) return absl::InternalError("allocation not encoded");
  out.CopyFrom(alloc->value, out.GetAllocator());
  return out;
}

namespace {

// One Allocate: the search (internal/search.h) against the given or the snapshot's allocated state.
AllocateResult Run(const store::Snapshot& snapshot, const std::vector<const api::ResourceClaim*>& claims,
                   const NodeInfo& node, const AllocateOptions& options, internal::SelectorCache& cache,
                   const internal::NodeIndependentSlices* node_independent) {
  for (const api::ResourceClaim* c : claims) {
    if (c == nullptr) {
      AllocateResult r;
      r.outcome = Outcome::kError;
      r.error = absl::InvalidArgumentError("null claim");
      return r;
    }
  }
  std::optional<AllocatedState> own;
  const AllocatedState* state = options.allocated_state;
  if (state == nullptr) {
    own = AllocatedStateFromSnapshot(snapshot, claims);
    state = &*own;
  }
  internal::Search search(snapshot, claims, node, options, *state, cache, node_independent);
  return search.Run();
}

}  // namespace

AllocateResult Allocate(const store::Snapshot& snapshot, const std::vector<const api::ResourceClaim*>& claims,
                        const NodeInfo& node, const AllocateOptions& options) {
  internal::SelectorCache cache(options.features);
  return Run(snapshot, claims, node, options, cache, nullptr);
}

struct Allocator::Cache {
  Cache(const Features& f, const store::Snapshot& snapshot)
      : selectors(f, &snapshot), node_independent(snapshot) {}
  internal::SelectorCache selectors;
  // The slices without spec.nodeName, their node selectors compiled and indexed; the others come
  // from the snapshot's per-node index, so that one Allocate does not scan every slice of the cluster.
  const internal::NodeIndependentSlices node_independent;
};

Allocator::Allocator(std::shared_ptr<const store::Snapshot> snapshot, AllocateOptions options)
    : snapshot_(std::move(snapshot)),
      options_(std::move(options)),
      cache_(std::make_unique<Cache>(options_.features, *snapshot_)) {}
Allocator::~Allocator() = default;

AllocateResult Allocator::Allocate(const std::vector<const api::ResourceClaim*>& claims, const NodeInfo& node) const {
  return Run(*snapshot_, claims, node, options_, cache_->selectors, &cache_->node_independent);
}

}  // namespace draforge::alloc
