#include "alloc/allocator.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>
#include <optional>
#include <set>
#include <utility>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/internal/consumable_capacity.h"
#include "alloc/internal/compatibility_groups.h"
#include "alloc/internal/constraints.h"
#include "alloc/internal/derived_attributes.h"
#include "alloc/internal/optional_node_operations.h"
#include "alloc/internal/pools.h"
#include "alloc/internal/selectors.h"
#include "api/codec.h"
#include "api/object.h"
#include "common/status.h"

namespace draforge::alloc {

using internal::Pool;

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

constexpr int kMaxResults = api::kAllocationResultsMaxSize;

std::string ClaimKey(const api::ResourceClaim& c) {
  return absl::StrCat(c.metadata.namespace_.value_or(""), "/", c.metadata.name.value_or(""));
}

const api::DeviceClaim& Devices(const api::ResourceClaim& c) {
  static const api::DeviceClaim kEmpty;
  return c.spec && c.spec->devices ? *c.spec->devices : kEmpty;
}

const std::vector<api::Device>& SliceDevices(const api::ResourceSlice& s) {
  static const std::vector<api::Device> kEmpty;
  return s.spec ? s.spec->devices : kEmpty;
}

// One device that targets the node, in search order.
struct Dev {
  int pool_index = 0;
  int slice_index = 0;
  const api::ResourceSlice* slice = nullptr;
  const api::Device* device = nullptr;
  std::string_view driver, pool, name;
  DeviceID id;
  bool allocated = false;                       // AllocatedDevices
  const api::Map<api::Quantity>* aggregated = nullptr;  // AggregatedCapacity
  std::vector<api::DeviceTaint> taints;         // slice taints + DeviceTaintRules
  bool multi = false;                           // allowMultipleAllocations (with the gate)
  // consumesCounters as (index into the pool's flat counter arrays, amount); resolved on first use.
  int ordinal = -1;  // SelectorCache::FirstDeviceOrdinal of its slice + its index
  bool counters_resolved = false;
  std::vector<std::pair<int, api::Quantity>> counter_uses;
};

struct RequestData {
  std::string_view name;         // request, or subrequest name
  std::string_view parent_name;  // for subrequests
  const api::DeviceClass* klass = nullptr;
  std::string class_name;
  const std::vector<api::DeviceSelector>* selectors = nullptr;
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  const api::CapacityRequirements* capacity = nullptr;
  const std::vector<api::DeviceDerivedAttribute>* derived = nullptr;  // DRADerivedAttributes
  bool admin_access = false;
  bool all_mode = false;
  int num_devices = 0;
  // The count as written (All: the number of matching devices), unclamped: what the 32-results
  // check and its error message use, as upstream's int does.
  int64_t wanted = 0;
  std::vector<int> all_devices;
  // The class's and the request's selectors, compiled once per search (errors reported lazily).
  internal::CompiledSelectors class_selectors, claim_selectors;
  // Row of this request in the search's match cache.
  int slot = 0;

  std::string FullName() const {
    return parent_name.empty() ? std::string(name) : absl::StrCat(AV(parent_name), "/", AV(name));
  }
  std::string_view BaseName() const { return parent_name.empty() ? name : parent_name; }
  std::string_view SubName() const { return parent_name.empty() ? std::string_view() : name; }
};

struct DeviceResult {
  int dev = 0;
  int request = 0;
  int sub = 0;
  bool admin = false;
  bool shared = false;
  api::Map<api::Quantity> consumed;
};

struct ClaimData {
  const api::ResourceClaim* claim = nullptr;
  std::string key;
  std::vector<std::vector<RequestData>> requests;  // [request][sub]; one entry for plain requests
  std::vector<bool> has_subs;
  std::vector<int> selected_sub;
  std::vector<std::unique_ptr<internal::Constraint>> constraints;
  std::vector<DeviceResult> results;
};

enum class R { kFalse, kTrue, kMaxExceeded, kError };

struct Undo {
  int claim = 0;
  int dev = 0;
  bool multi = false;
  bool counters = false;
  std::string_view base, sub;
  std::vector<internal::SavedCompatibilityGroup> compatibility;  // DRADeviceCompatibilityGroups
};

// The shared counters of one pool as flat arrays: one entry per (counter set, counter).
struct PoolCounters {
  bool ready = false;
  // Some counter is already over-consumed by allocated devices: upstream's check of every counter
  // then fails every device of the pool that consumes counters.
  bool overcommitted = false;
  std::map<std::pair<std::string, std::string>, int, std::less<>> index;
  std::vector<api::Quantity> available;
  std::vector<api::Quantity> consumed;
};

class Search {
 public:
  Search(const store::Snapshot& snapshot, const std::vector<const api::ResourceClaim*>& claims, const NodeInfo& node,
         const AllocateOptions& options, const AllocatedState& state, internal::SelectorCache& cache,
         const std::vector<const api::ResourceSlice*>* node_independent)
      : snapshot_(snapshot),
        node_(node),
        options_(options),
        f_(options.features),
        state_(state),
        cache_(cache),
        node_independent_(node_independent),
        compatibility_(state) {
    for (const api::ResourceClaim* c : claims) {
      ClaimData cd;
      cd.claim = c;
      cd.key = ClaimKey(*c);
      claims_.push_back(std::move(cd));
    }
  }

  AllocateResult Run() {
    AllocateResult out;
    absl::Status s = Prepare();
    if (s.ok()) {
      R r = AllocateOne(0, 0, 0, 0, false, {});
      out.search_steps = steps_;
      if (r == R::kError) {
        s = error_;
      } else if (r == R::kTrue) {
        auto built = Build();
        if (!built.ok()) {
          s = built.status();
        } else {
          out.outcome = Outcome::kAllocated;
          out.allocations = *std::move(built);
          return out;
        }
      } else {
        out.outcome = Outcome::kUnschedulable;
        for (const Pool& p : pools_) {
          if (p.invalid) {
            out.invalid_pools = true;
            out.reasons.push_back(absl::StrCat("pool ", p.Id(), ": ", p.invalid_reason));
          }
        }
        out.reasons.insert(out.reasons.begin(), out.invalid_pools ? "invalid resource pools were encountered"
                                                                   : "cannot allocate all claims");
        return out;
      }
    }
    out.search_steps = steps_;
    out.outcome = Outcome::kError;
    out.error = s;
    return out;
  }

 private:
  absl::Status Prepare() {
    auto pools = node_independent_ != nullptr ? internal::GatherPools(snapshot_, *node_independent_, node_, f_)
                                              : internal::GatherPools(snapshot_.ResourceSlices(), node_, f_);
    if (!pools.ok()) return absl::Status(pools.status().code(), absl::StrCat("gather pool information: ", pools.status().message()));
    pools_ = *std::move(pools);
    BuildDevices();
    // One match-cache row per request or subrequest, sized once.
    size_t slots = 0;
    for (const ClaimData& cd : claims_) {
      for (const api::DeviceRequest& r : Devices(*cd.claim).requests) slots += std::max<size_t>(1, r.first_available.size());
    }
    match_.reserve(slots * devs_.size());
    for (size_t ci = 0; ci < claims_.size(); ++ci) RETURN_IF_ERROR(PrepareClaim(static_cast<int>(ci)));
    return absl::OkStatus();
  }

  void BuildDevices() {
    const bool rules = f_.device_taints && f_.device_taint_rules;
    for (size_t pi = 0; pi < pools_.size(); ++pi) {
      const Pool& p = pools_[pi];
      std::vector<int> firsts;
      for (size_t si = 0; si < p.device_slices.size(); ++si) {
        firsts.push_back(static_cast<int>(devs_.size()));
        const api::ResourceSlice* slice = p.device_slices[si];
        int ordinal = cache_.FirstDeviceOrdinal(*slice);
        for (const api::Device& d : SliceDevices(*slice)) {
          Dev dev;
          dev.pool_index = static_cast<int>(pi);
          dev.slice_index = static_cast<int>(si);
          dev.slice = slice;
          dev.device = &d;
          dev.driver = p.driver;
          dev.pool = p.pool;
          dev.name = d.name ? std::string_view(*d.name) : std::string_view();
          dev.id = DeviceID{std::string(p.driver), std::string(p.pool), std::string(dev.name)};
          dev.allocated = state_.allocated_devices.contains(dev.id);
          auto agg = state_.aggregated_capacity.find(dev.id);
          if (agg != state_.aggregated_capacity.end()) dev.aggregated = &agg->second;
          if (f_.device_taints) {
            dev.taints = d.taints;
            if (rules) {
              for (const api::DeviceTaintRule* rule : snapshot_.TaintRulesFor(dev.driver, dev.pool, dev.name)) {
                if (rule->spec && rule->spec->taint) dev.taints.push_back(*rule->spec->taint);
              }
            }
          }
          dev.multi = f_.consumable_capacity && d.allow_multiple_allocations.value_or(false);
          dev.ordinal = ordinal >= 0 ? ordinal++ : -1;
          devs_.push_back(std::move(dev));
        }
      }
      slice_first_.push_back(std::move(firsts));
    }
    allocating_.resize(devs_.size());
    allocating_capacity_.resize(devs_.size());
    allocating_shares_.assign(devs_.size(), 0);
    capacity_alone_.assign(devs_.size(), -1);
    pool_counters_.resize(pools_.size());
    twin_reps_.resize(pools_.size());
    in_all_mode_.assign(devs_.size(), false);
  }

  absl::StatusOr<RequestData> ValidateRequest(int ci, int ri, int si, const api::DeviceRequest& request,
                                              const api::DeviceSubRequest* sub) {
    const ClaimData& cd = claims_[ci];
    RequestData rd;
    std::optional<std::string> mode;
    std::optional<int64_t> count;
    const std::string* class_name = nullptr;
    if (sub != nullptr) {
      rd.parent_name = request.name ? std::string_view(*request.name) : std::string_view();
      rd.name = sub->name ? std::string_view(*sub->name) : std::string_view();
      rd.selectors = &sub->selectors;
      rd.tolerations = &sub->tolerations;
      rd.capacity = sub->capacity ? &*sub->capacity : nullptr;
      rd.derived = &sub->derived_attributes;
      mode = sub->allocation_mode;
      count = sub->count;
      class_name = sub->device_class_name ? &*sub->device_class_name : nullptr;
    } else {
      const api::ExactDeviceRequest& e = *request.exactly;
      rd.name = request.name ? std::string_view(*request.name) : std::string_view();
      rd.selectors = &e.selectors;
      rd.tolerations = &e.tolerations;
      rd.capacity = e.capacity ? &*e.capacity : nullptr;
      rd.derived = &e.derived_attributes;
      mode = e.allocation_mode;
      count = e.count;
      class_name = e.device_class_name ? &*e.device_class_name : nullptr;
      rd.admin_access = e.admin_access.value_or(false);
    }
    // Refused rather than ignored: silently dropping the constraints they feed would allocate
    // devices the user excluded (upstream validateDeviceRequest checks this first).
    if (!rd.derived->empty() && !f_.derived_attributes) {
      return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                     ": cannot handle request with derived attributes, the feature is "
                                                     "disabled"));
    }
    if (sub == nullptr) {
      const api::ExactDeviceRequest& e = *request.exactly;
      if (!f_.admin_access && e.admin_access.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                       ": admin access is requested, but the feature is disabled"));
      }
    }
    for (size_t i = 0; i < rd.selectors->size(); ++i) {
      const auto& sel = (*rd.selectors)[i];
      if (!sel.cel || !sel.cel->expression) {
        return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name), ", selector #", i,
                                                       ": CEL expression empty (unsupported selector type?)"));
      }
    }
    if (class_name == nullptr || class_name->empty()) {
      return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                     ": missing device class name (unsupported request type?)"));
    }
    rd.class_name = *class_name;
    rd.klass = snapshot_.GetDeviceClass(*class_name);
    if (rd.klass == nullptr) {
      return absl::NotFoundError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                              ": could not retrieve device class ", *class_name,
                                              ": deviceclass.resource.k8s.io \"", *class_name, "\" not found"));
    }
    if (rd.klass->spec) {
      for (size_t i = 0; i < rd.klass->spec->selectors.size(); ++i) {
        const auto& sel = rd.klass->spec->selectors[i];
        if (!sel.cel || !sel.cel->expression) {
          return absl::InvalidArgumentError(absl::StrCat("class ", *class_name, ": selector #", i,
                                                         ": CEL expression empty (unsupported selector type?)"));
        }
      }
    }
    if (rd.klass->spec) rd.class_selectors = internal::CompileSelectors(cache_, rd.klass->spec->selectors);
    rd.claim_selectors = internal::CompileSelectors(cache_, *rd.selectors);
    rd.slot = num_slots_++;
    match_.resize(static_cast<size_t>(num_slots_) * devs_.size(), -1);
    const std::string m = mode.value_or(api::kAllocationModeExactCount);
    if (m == api::kAllocationModeExactCount || m.empty()) {
      rd.wanted = count.value_or(1);
      rd.num_devices = static_cast<int>(std::clamp<int64_t>(rd.wanted, -1, 1 << 30));
    } else if (m == api::kAllocationModeAll) {
      rd.all_mode = true;
      for (const Pool& p : pools_) {
        if (p.incomplete) {
          return absl::FailedPreconditionError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                            ": asks for all devices, but resource pool ", p.Id(),
                                                            " is currently being updated"));
        }
        if (p.invalid) {
          return absl::FailedPreconditionError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                            ": asks for all devices, but resource pool ", p.Id(),
                                                            " is currently invalid"));
        }
      }
      for (size_t d = 0; d < devs_.size(); ++d) {
        ASSIGN_OR_RETURN(bool selectable, IsSelectable(ci, ri, si, rd, static_cast<int>(d)));
        if (!selectable) continue;
        if (f_.consumable_capacity) {
          const Dev& dev = devs_[d];
          // Never fits (unknown capacity, policy): not part of "all". Static capacity only: a device
          // that fits alone but not beside what is already allocated stays in "all", and
          // AllocateDevice fails it after the in-use, taint and constraint checks, as upstream's
          // allocateDevice does (notes Q8, PR #140769); a constraint it breaks is then an error.
          auto alone = internal::CheckCapacity(nullptr, rd.capacity, dev.device->capacity, nullptr,
                                               f_.fractional_capacity_range);
          if (!alone.ok()) return CapacityError(cd, rd, dev, alone.status(), /*with_pool=*/false);
          if (*alone != internal::CapacityCheck::kFits) continue;
        }
        rd.all_devices.push_back(static_cast<int>(d));
        in_all_mode_[d] = true;
      }
      rd.num_devices = static_cast<int>(rd.all_devices.size());
      rd.wanted = rd.num_devices;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("claim ", cd.key, ", request ", AV(rd.name), ": unsupported count mode ", m));
    }
    return rd;
  }

  absl::Status PrepareClaim(int ci) {
    ClaimData& cd = claims_[ci];
    const api::DeviceClaim& dc = Devices(*cd.claim);
    // int64: each request's count is clamped to 2^30, and several of them must not wrap the sum
    // around to a small value that passes the limit check.
    int64_t min_devices = 0;
    cd.requests.resize(dc.requests.size());
    cd.has_subs.resize(dc.requests.size());
    cd.selected_sub.assign(dc.requests.size(), 0);
    for (size_t ri = 0; ri < dc.requests.size(); ++ri) {
      const api::DeviceRequest& request = dc.requests[ri];
      const std::string name = request.name.value_or("");
      const bool subs = !request.first_available.empty();
      cd.has_subs[ri] = subs;
      if (!f_.prioritized_list && subs) {
        return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", name,
                                                       ": has subrequests, but the DRAPrioritizedList feature is disabled"));
      }
      if (!f_.consumable_capacity) {
        if (request.exactly && request.exactly->capacity) {
          return absl::InvalidArgumentError(absl::StrCat(
              "claim ", cd.key, ", request ", name, ": has capacity requests, but the DRAConsumableCapacity feature is disabled"));
        }
        for (const auto& s : request.first_available) {
          if (s.capacity) {
            return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", subrequest ", s.name.value_or(""),
                                                           ": has capacity requests, but the DRAConsumableCapacity "
                                                           "feature is disabled"));
          }
        }
      }
      // A prioritized list is worth at least its smallest alternative.
      int64_t adding = 0;
      if (subs) {
        adding = std::numeric_limits<int64_t>::max();
        for (size_t si = 0; si < request.first_available.size(); ++si) {
          ASSIGN_OR_RETURN(RequestData rd, ValidateRequest(ci, static_cast<int>(ri), static_cast<int>(si), request,
                                                           &request.first_available[si]));
          adding = std::min(adding, rd.wanted);
          cd.requests[ri].push_back(std::move(rd));
        }
      } else {
        if (!request.exactly) {
          return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", name,
                                                         ": unknown request type (neither exactly nor firstAvailable)"));
        }
        ASSIGN_OR_RETURN(RequestData rd, ValidateRequest(ci, static_cast<int>(ri), 0, request, nullptr));
        adding = rd.wanted;
        cd.requests[ri].push_back(std::move(rd));
      }
      // Checked per request against what is left, so that the error names the request that crosses
      // the limit and huge counts cannot wrap a sum (upstream's wording).
      if (adding > kMaxResults - min_devices) {
        return absl::ResourceExhaustedError(absl::StrCat("claim ", cd.key, ", request ", name, ": adding ", adding,
                                                         " devices exceeds the claim limit of ", kMaxResults,
                                                         ", with ", min_devices, " already accounted for"));
      }
      min_devices += adding;
    }
    for (size_t i = 0; i < dc.constraints.size(); ++i) {
      const api::DeviceConstraint& c = dc.constraints[i];
      const bool distinct_supported = f_.consumable_capacity || f_.DeviceBindingAndStatus() || f_.list_type_attributes;
      if (c.match_attribute) {
        cd.constraints.push_back(internal::NewMatchAttribute(c.requests, *c.match_attribute, f_.list_type_attributes));
      } else if (c.distinct_attribute && distinct_supported) {
        cd.constraints.push_back(internal::NewDistinctAttribute(c.requests, *c.distinct_attribute, f_.list_type_attributes));
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("claim ", cd.key, ", constraint #", i, ": empty constraint (unsupported constraint type?)"));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<bool> IsSelectable(int ci, int ri, int si, const RequestData& rd, int d) {
    const Dev& dev = devs_[d];
    if (!f_.DeviceBindingAndStatus() && !dev.device->binding_conditions.empty()) return false;
    (void)ri;
    (void)si;
    int8_t& cached = match_[static_cast<size_t>(rd.slot) * devs_.size() + static_cast<size_t>(d)];
    if (cached >= 0) return cached == 1;
    bool match = true;
    if (!rd.class_selectors.empty()) {
      ASSIGN_OR_RETURN(match, internal::SelectorsMatch(cache_, {"class", rd.class_name}, rd.class_selectors,
                                                       *dev.device, dev.ordinal, dev.driver, dev.pool, dev.name, f_));
    }
    if (match && !rd.claim_selectors.empty()) {
      ASSIGN_OR_RETURN(match, internal::SelectorsMatch(cache_, {"claim", claims_[ci].key}, rd.claim_selectors,
                                                       *dev.device, dev.ordinal, dev.driver, dev.pool, dev.name, f_));
    }
    if (match && dev.slice->spec->per_device_node_selection.value_or(false)) {
      const api::Device& d2 = *dev.device;
      ASSIGN_OR_RETURN(match, internal::NodeMatches(node_, d2.node_name.value_or(""), d2.all_nodes.value_or(false),
                                                    d2.node_selector ? &*d2.node_selector : nullptr));
    }
    cached = match ? 1 : 0;
    return match;
  }

  // internal::CheckCapacity for request `rd` of claim `cd` on device `d`, with what is already
  // allocated and what this search is allocating. Errors name claim, request and device.
  absl::StatusOr<internal::CapacityCheck> CheckCapacity(const ClaimData& cd, const RequestData& rd, int d) {
    const Dev& dev = devs_[d];
    if (dev.device->capacity.empty() && rd.capacity == nullptr) return internal::CapacityCheck::kFits;
    // Without a capacity request and with nothing consumed yet, the answer depends on the device
    // alone: computed once per device and search.
    const bool alone = rd.capacity == nullptr && !CapacityInUse(d);
    if (alone && capacity_alone_[d] >= 0) return static_cast<internal::CapacityCheck>(capacity_alone_[d]);
    if (alone) {
      // Nothing requested, nothing consumed, no request policy: each capacity consumes exactly its
      // value, which fits unless it is negative (an error, left to internal::CheckCapacity).
      bool fits = true;
      for (const auto& [name, cap] : dev.device->capacity) {
        if (cap.request_policy || (cap.value && cap.value->Sign() < 0)) {
          fits = false;
          break;
        }
      }
      if (fits) return internal::CapacityCheck::kFits;
    }
    const api::Map<api::Quantity>* allocating = allocating_shares_[d] > 0 ? &allocating_capacity_[d] : nullptr;
    auto check = internal::CheckCapacity(dev.aggregated, rd.capacity, dev.device->capacity, allocating,
                                         f_.fractional_capacity_range);
    if (!check.ok()) return CapacityError(cd, rd, dev, check.status(), /*with_pool=*/true);
    if (alone) capacity_alone_[d] = static_cast<int8_t>(*check);
    return check;
  }

  // Upstream's wording: "claim K, request R: checking capacity for device D: capacity ...". Its
  // allocationMode All pre-scan names the device without driver and pool; so do we.
  static absl::Status CapacityError(const ClaimData& cd, const RequestData& rd, const Dev& dev,
                                    const absl::Status& cause, bool with_pool) {
    const std::string device = with_pool ? absl::StrCat(AV(dev.driver), "/", AV(dev.pool), "/", AV(dev.name))
                                         : std::string(dev.name);
    return absl::Status(cause.code(), absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                   ": checking capacity for device ", device, ": ",
                                                   cause.message()));
  }

  bool InUse(int d) const { return devs_[d].allocated || !allocating_[d].empty(); }
  bool AllocatingForClaim(int d, int ci) const {
    return std::find(allocating_[d].begin(), allocating_[d].end(), ci) != allocating_[d].end();
  }
  bool CapacityInUse(int d) const { return devs_[d].aggregated != nullptr || allocating_shares_[d] > 0; }

  // The pool's counters: counter sets indexed once per search, minus what allocated devices consume.
  PoolCounters& Available(int pi) {
    PoolCounters& pc = pool_counters_[pi];
    if (pc.ready) return pc;
    pc.ready = true;
    const Pool& p = pools_[pi];
    for (const auto& [name, set] : p.counter_sets) {
      for (const auto& [counter, value] : set->counters) {
        pc.index.emplace(std::make_pair(name, counter), static_cast<int>(pc.available.size()));
        pc.available.push_back(value.value.value_or(api::Quantity()));
      }
    }
    pc.consumed.assign(pc.available.size(), api::Quantity());
    for (const auto* list : {&p.device_slices, &p.other_device_slices}) {
      for (const api::ResourceSlice* s : *list) {
        for (const api::Device& d : SliceDevices(*s)) {
          if (d.consumes_counters.empty()) continue;
          if (!state_.IsDeviceAllocated(DeviceID{std::string(p.driver), std::string(p.pool), d.name.value_or("")})) continue;
          for (const auto& cc : d.consumes_counters) {
            const std::string set = cc.counter_set.value_or("");
            for (const auto& [counter, value] : cc.counters) {
              auto it = pc.index.find(std::make_pair(set, counter));
              if (it != pc.index.end()) {
                pc.available[it->second] = pc.available[it->second].Sub(value.value.value_or(api::Quantity()));
              }
            }
          }
        }
      }
    }
    for (const api::Quantity& q : pc.available) {
      if (q.Sign() < 0) pc.overcommitted = true;
    }
    return pc;
  }

  // The device's consumesCounters against the pool's flat arrays. Every counter a valid pool's
  // device names exists (BuildPool checks it); an unknown one, unreachable, is ignored as before.
  const std::vector<std::pair<int, api::Quantity>>& CounterUses(Dev& dev) {
    if (dev.counters_resolved) return dev.counter_uses;
    dev.counters_resolved = true;
    PoolCounters& pc = Available(dev.pool_index);
    for (const auto& cc : dev.device->consumes_counters) {
      const std::string set = cc.counter_set.value_or("");
      for (const auto& [counter, value] : cc.counters) {
        auto it = pc.index.find(std::make_pair(set, counter));
        if (it != pc.index.end()) dev.counter_uses.emplace_back(it->second, value.value.value_or(api::Quantity()));
      }
    }
    return dev.counter_uses;
  }

  void ChangeCounters(Dev& dev, bool add) {
    PoolCounters& pc = Available(dev.pool_index);
    for (const auto& [i, amount] : CounterUses(dev)) pc.consumed[i] = add ? pc.consumed[i].Add(amount) : pc.consumed[i].Sub(amount);
  }

  // Upstream checks every counter of the pool after adding the device's consumption. Before the
  // call every counter fits (a reservation that breaks one is undone), so only the counters the
  // device consumes can break, unless allocated devices already over-consume some counter.
  bool ReserveCounters(Dev& dev) {
    PoolCounters& pc = Available(dev.pool_index);
    if (pc.overcommitted) return false;
    ChangeCounters(dev, true);
    for (const auto& [i, amount] : CounterUses(dev)) {
      if (pc.available[i].Compare(pc.consumed[i]) < 0) {
        ChangeCounters(dev, false);
        return false;
      }
    }
    return true;
  }

  // The attribute a constraint reads for device `d` in request `rd`: the request's derived
  // attribute of that name if it has one (evaluated once per device and expression), else the
  // device's own. Errors: CEL compile or runtime errors of the derived attribute.
  absl::StatusOr<const api::DeviceAttribute*> ConstraintAttribute(const RequestData& rd, int d,
                                                                  std::string_view name) {
    const Dev& dev = devs_[d];
    if (!rd.derived->empty()) {
      ASSIGN_OR_RETURN(const api::DeviceAttribute* derived,
                       derived_.Lookup(*rd.derived, name, d, *dev.device, dev.driver, dev.id.String()));
      if (derived != nullptr) return derived;
    }
    return internal::LookupAttribute(*dev.device, dev.driver, name);
  }

  // Resolved once per search: it may parse the snapshot Node's status.
  bool NodeDeclaresOptionalNodeOperations() {
    if (!node_declares_) node_declares_ = internal::DeclaresOptionalNodeOperations(node_, snapshot_);
    return *node_declares_;
  }

  // upstream allocateDevice; on success pushes a result and an undo record.
  absl::StatusOr<bool> AllocateDevice(int ci, int ri, int si, int d, bool must) {
    ClaimData& cd = claims_[ci];
    const RequestData& rd = cd.requests[ri][si];
    Dev& dev = devs_[d];
    const bool multi = dev.multi;
    if (!multi && rd.admin_access && AllocatingForClaim(d, ci)) return false;
    if (!rd.admin_access && InUse(d)) return false;
    if (!dev.slice->spec->skip_node_operations.empty() &&
        !internal::SkipNodeOperationsAllowed(*dev.slice, NodeDeclaresOptionalNodeOperations(), f_)) {
      return false;
    }
    const bool has_counters = !dev.device->consumes_counters.empty();
    if (!f_.partitionable_devices && has_counters) return false;
    bool counters = false;
    // A further share of a shared device in use was checked (groups and counters) with its first.
    const bool check_counters = !(multi && CapacityInUse(d)) && has_counters;
    std::vector<internal::SavedCompatibilityGroup> compatibility;
    if (f_.device_compatibility_groups && check_counters &&
        !compatibility_.CheckAndConsume(dev.pool_index, pools_[dev.pool_index], *dev.device, compatibility)) {
      return false;
    }
    if (check_counters) {
      if (!ReserveCounters(dev)) {
        compatibility_.Restore(dev.pool_index, compatibility);
        return false;
      }
      counters = true;
    }
    auto release_counters = [&] {
      if (counters) ChangeCounters(dev, false);  // upstream leaks this reservation (notes Q6)
      compatibility_.Restore(dev.pool_index, compatibility);
    };
    if (f_.device_taints && internal::TaintPreventsAllocation(dev.taints, *rd.tolerations)) {
      release_counters();
      return false;
    }
    for (size_t i = 0; i < cd.constraints.size(); ++i) {
      internal::Constraint& constraint = *cd.constraints[i];
      const api::DeviceAttribute* attribute = nullptr;
      if (constraint.AppliesTo(rd.BaseName(), rd.SubName())) {
        absl::StatusOr<const api::DeviceAttribute*> looked_up = ConstraintAttribute(rd, d, constraint.attribute());
        if (!looked_up.ok()) {
          release_counters();
          for (size_t e = 0; e < i; ++e) cd.constraints[e]->Remove(rd.BaseName(), rd.SubName());
          return looked_up.status();
        }
        attribute = *looked_up;
      }
      if (!constraint.AddAttribute(rd.BaseName(), rd.SubName(), attribute)) {
        if (must) {
          release_counters();
          for (size_t e = 0; e < i; ++e) cd.constraints[e]->Remove(rd.BaseName(), rd.SubName());
          return absl::FailedPreconditionError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                            ": cannot add device ", dev.id.String(),
                                                            " because a claim constraint would not be satisfied"));
        }
        for (size_t e = 0; e < i; ++e) cd.constraints[e]->Remove(rd.BaseName(), rd.SubName());
        release_counters();
        return false;
      }
    }
    DeviceResult result;
    result.dev = d;
    result.request = ri;
    result.sub = si;
    result.admin = rd.admin_access;
    result.shared = multi;
    if (f_.consumable_capacity) {
      absl::StatusOr<internal::CapacityCheck> check = CheckCapacity(cd, rd, d);
      if (!check.ok() || *check != internal::CapacityCheck::kFits) {
        for (auto& c : cd.constraints) c->Remove(rd.BaseName(), rd.SubName());
        release_counters();
        if (!check.ok()) return check.status();
        return false;
      }
      if (multi) {
        ASSIGN_OR_RETURN(result.consumed, internal::ConsumedCapacity(rd.capacity, dev.device->capacity,
                                                                     f_.fractional_capacity_range));
        internal::AddCapacity(allocating_capacity_[d], result.consumed);
        ++allocating_shares_[d];
      }
    }
    if (!multi) allocating_[d].push_back(ci);
    cd.results.push_back(std::move(result));
    undo_.push_back(Undo{ci, d, multi, counters, rd.BaseName(), rd.SubName(), std::move(compatibility)});
    return true;
  }

  void Deallocate() {
    Undo u = std::move(undo_.back());
    undo_.pop_back();
    ClaimData& cd = claims_[u.claim];
    for (auto& c : cd.constraints) c->Remove(u.base, u.sub);
    DeviceResult& r = cd.results.back();
    if (u.multi) {
      internal::SubCapacity(allocating_capacity_[u.dev], r.consumed);
      if (--allocating_shares_[u.dev] == 0) allocating_capacity_[u.dev] = {};
    } else {
      auto& v = allocating_[u.dev];
      v.erase(std::find(v.begin(), v.end(), u.claim));
    }
    if (u.counters) ChangeCounters(devs_[u.dev], false);
    compatibility_.Restore(devs_[u.dev].pool_index, u.compatibility);
    cd.results.pop_back();
  }

  struct Loc {
    int pool = 0, slice = 0, device = 0;
  };

  R Fail(absl::Status s) {
    error_ = std::move(s);
    return R::kError;
  }

  // --- Pruning (AllocateOptions::prune_search) ----------------------------------------------------
  //
  // Twins. Devices X (tried first) and Y are twins when nothing the search looks at tells them
  // apart: the same pool (counters and pool order), the same answer from every request's selectors
  // (IsSelectable), the same view for every constraint, the same capacity, counter consumption,
  // taints and binding fields, neither allocated nor being allocated, and in no allocationMode All
  // list (see TwinClass). If every completion with X at a position failed, every completion with Y
  // there fails too: swapping X and Y maps the completions of Y (later devices of this request come
  // after Y, so they are neither X nor Y) onto completions of X, which were all tried, with the
  // same checks giving the same answers. So Y is skipped; which solution is found does not change,
  // because only devices whose subtree cannot succeed are skipped, and neither do errors: X's failed
  // subtree met none, and the selector and capacity checks Y's would make (per request and device,
  // whatever the state) were made there too.
  //
  // The bound. A request that still needs `needed` devices from position `start` on cannot succeed
  // if fewer devices from there on are free, selectable and fit capacity (the search's own first
  // checks; the rest only reject more). Counting evaluates selectors on devices the search would
  // evaluate anyway; if an evaluation fails the bound gives up and the search meets that error
  // itself, in its own order.

  int DevIndex(Loc start) const {
    if (start.pool >= static_cast<int>(slice_first_.size())) return static_cast<int>(devs_.size());
    const auto& firsts = slice_first_[start.pool];
    if (start.slice >= static_cast<int>(firsts.size())) {
      // Past the pool's last slice: the next device is the first of a later pool.
      for (size_t p = static_cast<size_t>(start.pool) + 1; p < slice_first_.size(); ++p) {
        if (!slice_first_[p].empty()) return slice_first_[p][0];
      }
      return static_cast<int>(devs_.size());
    }
    return firsts[start.slice] + start.device;
  }

  // Whether at least `needed` devices from `start` on could be picked for the request. "No" lets the
  // search stop early; "yes" is always safe. Any candidate whose check would end the search with an
  // error (a selector's, a capacity's, or a derived attribute a constraint of this request reads)
  // answers "yes", so that the search reaches that error in upstream's order instead of reporting
  // the claim unschedulable.
  bool EnoughCandidates(int ci, int ri, int si, const RequestData& rd, Loc start, int needed) {
    int found = 0;
    for (int d = DevIndex(start); d < static_cast<int>(devs_.size()); ++d) {
      const Pool& pool = pools_[devs_[d].pool_index];
      if (pool.incomplete || pool.invalid) continue;
      if (rd.admin_access && AllocatingForClaim(d, ci)) continue;
      if (!rd.admin_access && InUse(d)) continue;
      auto selectable = IsSelectable(ci, ri, si, rd, d);
      if (!selectable.ok()) return true;
      if (!*selectable) continue;
      if (f_.consumable_capacity) {
        auto check = CheckCapacity(claims_[ci], rd, d);
        if (!check.ok()) return true;
        if (*check != internal::CapacityCheck::kFits) continue;
      }
      if (!rd.derived->empty()) {
        for (const auto& c : claims_[ci].constraints) {
          if (c->AppliesTo(rd.BaseName(), rd.SubName()) && !ConstraintAttribute(rd, d, c->attribute()).ok()) {
            return true;
          }
        }
      }
      if (++found >= needed) return true;
    }
    return false;
  }

  void MarkFailed(int d) {
    if (options_.prune_search && !devs_[d].multi) failed_.push_back(d);
  }

  bool TwinFailed(int d, size_t failed_base) {
    if (devs_[d].multi || !allocating_[d].empty()) return false;
    for (size_t i = failed_base; i < failed_.size(); ++i) {
      const int x = failed_[i];
      if (!allocating_[x].empty()) continue;
      if (TwinClass(x) == TwinClass(d)) return true;
    }
    return false;
  }

  // The first device of the same pool that is the twin of `d` (or `d` itself), computed once per
  // device and search: everything it compares is fixed for the search.
  int TwinClass(int d) {
    if (twin_class_.empty()) {
      twin_class_.assign(devs_.size(), -1);
      twin_sig_.assign(devs_.size(), 0);
    }
    if (twin_class_[d] >= 0) return twin_class_[d];
    int cls = d;
    // A request with allocationMode All walks its devices in a fixed order and turns a constraint
    // failure into an error: with X and Y swapped it may meet the free twin first and fail loudly
    // where the original failed quietly on the one in use. Such devices have no twins.
    std::optional<uint64_t> sig = in_all_mode_[d] ? std::nullopt : TwinSignature(d);
    if (sig.has_value()) {
      twin_sig_[d] = *sig;
      for (int r : twin_reps_[devs_[d].pool_index]) {
        if (twin_sig_[r] == *sig && SameForSearch(r, d)) {
          cls = r;
          break;
        }
      }
      if (cls == d) twin_reps_[devs_[d].pool_index].push_back(d);
    }
    twin_class_[d] = cls;
    return cls;
  }

  // A hash of what SameForSearch compares (names and selector answers, not every value), so that
  // most non-twins are told apart without comparing strings. nullopt: a selector fails on the
  // device, which then has no twin.
  std::optional<uint64_t> TwinSignature(int d) {
    const Dev& dev = devs_[d];
    const api::Device& u = *dev.device;
    uint64_t h = absl::HashOf(dev.pool_index, dev.allocated, u.consumes_counters.size(), u.capacity.size(),
                              dev.taints.size(), u.binding_conditions.size());
    for (const auto& cc : u.consumes_counters) {
      h = absl::HashOf(h, cc.counter_set.value_or(""), cc.counters.size());
      for (const auto& [name, unused] : cc.counters) h = absl::HashOf(h, name);
    }
    for (const auto& [name, unused] : u.capacity) h = absl::HashOf(h, name);
    for (size_t ci = 0; ci < claims_.size(); ++ci) {
      const ClaimData& cd = claims_[ci];
      for (size_t ri = 0; ri < cd.requests.size(); ++ri) {
        for (size_t si = 0; si < cd.requests[ri].size(); ++si) {
          auto m = IsSelectable(static_cast<int>(ci), static_cast<int>(ri), static_cast<int>(si), cd.requests[ri][si], d);
          if (!m.ok()) return std::nullopt;
          h = absl::HashOf(h, *m);
        }
      }
    }
    return h;
  }

  bool SameForSearch(int a, int b) {
    const Dev& x = devs_[a];
    const Dev& y = devs_[b];
    if (x.pool_index != y.pool_index || x.multi || y.multi || x.allocated != y.allocated ||
        x.aggregated != nullptr || y.aggregated != nullptr) {
      return false;
    }
    const api::Device& u = *x.device;
    const api::Device& v = *y.device;
    if (!(u.consumes_counters == v.consumes_counters && u.capacity == v.capacity && x.taints == y.taints &&
          u.binding_conditions == v.binding_conditions &&
          u.binding_failure_conditions == v.binding_failure_conditions && u.binds_to_node == v.binds_to_node &&
          u.node_name == v.node_name && u.all_nodes == v.all_nodes && u.node_selector == v.node_selector &&
          x.slice->spec->per_device_node_selection == y.slice->spec->per_device_node_selection &&
          x.slice->spec->skip_node_operations == y.slice->spec->skip_node_operations)) {
      return false;
    }
    for (size_t ci = 0; ci < claims_.size(); ++ci) {
      const ClaimData& cd = claims_[ci];
      for (size_t ri = 0; ri < cd.requests.size(); ++ri) {
        for (size_t si = 0; si < cd.requests[ri].size(); ++si) {
          const RequestData& rd = cd.requests[ri][si];
          auto p = IsSelectable(static_cast<int>(ci), static_cast<int>(ri), static_cast<int>(si), rd, a);
          auto q = IsSelectable(static_cast<int>(ci), static_cast<int>(ri), static_cast<int>(si), rd, b);
          if (!p.ok() || !q.ok() || *p != *q) return false;
        }
      }
      for (const auto& c : cd.constraints) {
        if (!c->SameFor(u, v, x.driver)) return false;
        // With derived attributes (DRADerivedAttributes) a request may see another value than the
        // device's own: compare what each request the constraint applies to sees.
        for (const auto& subs : cd.requests) {
          for (const RequestData& rd : subs) {
            if (rd.derived->empty() || !c->AppliesTo(rd.BaseName(), rd.SubName())) continue;
            auto p = ConstraintAttribute(rd, a, c->attribute());
            auto q = ConstraintAttribute(rd, b, c->attribute());
            if (!p.ok() || !q.ok()) return false;
            if (*p == nullptr || *q == nullptr ? *p != *q : !(**p == **q)) return false;
          }
        }
      }
    }
    return true;
  }

  R AllocateOne(int ci, int ri, int si, int di, bool allocate_sub, Loc start) {
    ++steps_;
    if (options_.max_steps > 0 && steps_ > options_.max_steps) {
      return Fail(absl::DeadlineExceededError(absl::StrCat(
          "filter operation aborted: search step limit of ", options_.max_steps, " exceeded")));
    }
    if (ci >= static_cast<int>(claims_.size())) return R::kTrue;
    ClaimData& cd = claims_[ci];
    if (ri >= static_cast<int>(cd.requests.size())) {
      R r = AllocateOne(ci + 1, 0, 0, 0, false, {});
      return r == R::kMaxExceeded ? R::kFalse : r;
    }
    if (!allocate_sub && cd.has_subs[ri]) {
      bool all_exceeded = true;
      for (int sub = 0; sub < static_cast<int>(cd.requests[ri].size()); ++sub) {
        R r = AllocateOne(ci, ri, sub, di, true, {});
        if (r == R::kMaxExceeded) continue;
        all_exceeded = false;
        if (r == R::kError) return r;
        if (r == R::kTrue) {
          cd.selected_sub[ri] = sub;
          return R::kTrue;
        }
      }
      return all_exceeded ? R::kMaxExceeded : R::kFalse;
    }
    const RequestData& rd = cd.requests[ri][si];
    if (rd.all_mode && rd.all_devices.empty()) return R::kFalse;
    if (di >= rd.num_devices) return AllocateOne(ci, ri + 1, 0, 0, false, {});
    if (static_cast<int>(cd.results.size()) + rd.num_devices - di > kMaxResults) return R::kMaxExceeded;
    if (options_.prune_search && !rd.all_mode && !EnoughCandidates(ci, ri, si, rd, start, rd.num_devices - di)) {
      return R::kFalse;
    }
    // Devices tried at this position whose whole subtree failed, for skipping their twins; the
    // entries above `failed_base` belong to this call.
    const size_t failed_base = failed_.size();
    struct PopFailed {
      std::vector<int>& v;
      size_t n;
      ~PopFailed() { v.resize(n); }
    } pop_failed{failed_, failed_base};

    if (rd.all_mode) {
      auto ok = AllocateDevice(ci, ri, si, rd.all_devices[di], true);
      if (!ok.ok()) return Fail(ok.status());
      if (!*ok) return R::kFalse;
      R r = AllocateOne(ci, ri, si, di + 1, allocate_sub, {});
      if (r != R::kTrue) Deallocate();
      return r;
    }

    for (int pi = start.pool; pi < static_cast<int>(pools_.size()); ++pi) {
      const Pool& pool = pools_[pi];
      if (pool.incomplete || pool.invalid) continue;
      const int slice_start = pi == start.pool ? start.slice : 0;
      for (int sli = slice_start; sli < static_cast<int>(pool.device_slices.size()); ++sli) {
        const int first = slice_first_[pi][sli];
        const int n = static_cast<int>(SliceDevices(*pool.device_slices[sli]).size());
        const int dstart = (pi == start.pool && sli == start.slice) ? start.device : 0;
        for (int k = dstart; k < n; ++k) {
          const int d = first + k;
          if (rd.admin_access && AllocatingForClaim(d, ci)) continue;
          if (!rd.admin_access && InUse(d)) continue;
          auto selectable = IsSelectable(ci, ri, si, rd, d);
          if (!selectable.ok()) return Fail(selectable.status());
          if (!*selectable) continue;
          if (f_.consumable_capacity) {
            auto check = CheckCapacity(claims_[ci], rd, d);
            if (!check.ok()) return Fail(check.status());
            if (*check != internal::CapacityCheck::kFits) continue;
          }
          // After the cheap checks, so that twins are looked for only among devices worth trying.
          if (failed_.size() > failed_base && TwinFailed(d, failed_base)) continue;
          auto ok = AllocateDevice(ci, ri, si, d, false);
          if (!ok.ok()) return Fail(ok.status());
          if (!*ok) {
            MarkFailed(d);
            continue;
          }
          R r = AllocateOne(ci, ri, si, di + 1, allocate_sub, Loc{pi, sli, k + 1});
          if (r == R::kTrue) return r;
          Deallocate();
          if (r != R::kFalse) return r;
          MarkFailed(d);
        }
      }
    }
    return R::kFalse;
  }

  absl::StatusOr<api::NodeSelector*> NodeSelectorFor(const ClaimData& cd, std::optional<api::NodeSelector>& out) {
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

  absl::StatusOr<std::vector<api::AllocationResult>> Build() {
    std::vector<api::AllocationResult> out;
    for (ClaimData& cd : claims_) {
      const api::DeviceClaim& dc = Devices(*cd.claim);
      api::AllocationResult ar;
      ar.devices.emplace();
      auto& results = ar.devices->results;
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
        x.tolerations = *rd.tolerations;
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
      // Class configs, once per class, listing every request that used the class.
      auto& config = ar.devices->config;
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
      auto selected_name = [&](size_t ri) -> std::string {
        return cd.has_subs[ri] ? cd.requests[ri][cd.selected_sub[ri]].FullName() : std::string();
      };
      // Claim configs, once each (upstream 1.35/1.36 duplicated them per request, notes Q3).
      for (const auto& c : dc.config) {
        bool include = c.requests.empty();
        for (size_t ri = 0; !include && ri < dc.requests.size(); ++ri) {
          const std::string name = dc.requests[ri].name.value_or("");
          if (std::find(c.requests.begin(), c.requests.end(), name) != c.requests.end()) include = true;
          if (!include && cd.has_subs[ri]) {
            const std::string sub = selected_name(ri);
            if (std::find(c.requests.begin(), c.requests.end(), sub) != c.requests.end()) include = true;
          }
        }
        if (!include) continue;
        api::DeviceAllocationConfiguration dac;
        dac.source = "FromClaim";
        dac.requests = c.requests;
        dac.opaque = c.opaque;
        config.push_back(std::move(dac));
      }
      // A config covering every request (by name or by its chosen subrequest) applies to all.
      for (auto& c : config) {
        if (c.requests.empty()) continue;
        bool all = true;
        for (size_t ri = 0; all && ri < dc.requests.size(); ++ri) {
          const std::string name = dc.requests[ri].name.value_or("");
          if (std::find(c.requests.begin(), c.requests.end(), name) != c.requests.end()) continue;
          if (cd.has_subs[ri]) {
            const std::string sub = selected_name(ri);
            if (std::find(c.requests.begin(), c.requests.end(), sub) != c.requests.end()) continue;
          }
          all = false;
        }
        if (all) c.requests.clear();
      }
      std::optional<api::NodeSelector> ns;
      ASSIGN_OR_RETURN(api::NodeSelector * unused, NodeSelectorFor(cd, ns));
      (void)unused;
      ar.node_selector = std::move(ns);
      out.push_back(std::move(ar));
    }
    return out;
  }

  const store::Snapshot& snapshot_;
  const NodeInfo& node_;
  const AllocateOptions& options_;
  const Features& f_;
  const AllocatedState& state_;
  internal::SelectorCache& cache_;
  const std::vector<const api::ResourceSlice*>* node_independent_;  // null: scan every slice
  internal::CompatibilityGroupTracker compatibility_;
  internal::DerivedAttributeCache derived_;
  std::optional<bool> node_declares_;  // DRAOptionalNodeOperations, see NodeDeclaresOptionalNodeOperations

  std::vector<ClaimData> claims_;
  std::vector<Pool> pools_;
  std::vector<Dev> devs_;
  std::vector<std::vector<int>> slice_first_;
  std::vector<std::vector<int>> allocating_;  // claim indices per device
  std::vector<api::Map<api::Quantity>> allocating_capacity_;
  std::vector<int> allocating_shares_;
  std::vector<PoolCounters> pool_counters_;
  std::vector<int8_t> capacity_alone_;  // CheckCapacity of a device with nothing consumed; -1 unknown
  std::vector<Undo> undo_;
  std::vector<int> failed_;                   // pruning: failed devices, per open search position
  std::vector<int> twin_class_;               // pruning: TwinClass per device, -1 unknown
  std::vector<uint64_t> twin_sig_;            // pruning: TwinSignature of classified devices
  std::vector<std::vector<int>> twin_reps_;   // pruning: twin-class representatives per pool
  std::vector<bool> in_all_mode_;             // pruning: the device is in an allocationMode All list
  // IsSelectable per (request slot, device): -1 not evaluated yet, 0, 1.
  std::vector<int8_t> match_;
  int num_slots_ = 0;
  absl::Status error_;
  int64_t steps_ = 0;
};

AllocateResult Run(const store::Snapshot& snapshot, const std::vector<const api::ResourceClaim*>& claims,
                   const NodeInfo& node, const AllocateOptions& options, internal::SelectorCache& cache,
                   const std::vector<const api::ResourceSlice*>* node_independent) {
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
  Search search(snapshot, claims, node, options, *state, cache, node_independent);
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
      : selectors(f, &snapshot), node_independent(internal::NodeIndependentSlices(snapshot)) {}
  internal::SelectorCache selectors;
  // The slices every node has to look at (no spec.nodeName); the others come from the snapshot's
  // per-node index, so that one Allocate does not scan every slice of the cluster.
  const std::vector<const api::ResourceSlice*> node_independent;
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
