#include "alloc/internal/search.h"

#include <utility>

#include "alloc/internal/optional_node_operations.h"

namespace draforge::alloc::internal {
namespace {

std::string ClaimKey(const api::ResourceClaim& c) {
  return absl::StrCat(c.metadata.namespace_.value_or(""), "/", c.metadata.name.value_or(""));
}

}  // namespace

Search::Search(const store::Snapshot& snapshot, const std::vector<const api::ResourceClaim*>& claims,
               const NodeInfo& node, const AllocateOptions& options, const AllocatedState& state,
               SelectorCache& cache, const NodeIndependentSlices* node_independent)
    : snapshot_(snapshot),
      node_(node),
      options_(options),
      f_(options.features),
      state_(state),
      cache_(cache),
      node_independent_(node_independent),
      compatibility_(state),
      counters_(pools_, state) {
  prune_ = options_.prune_search && !(f_.consumable_capacity && f_.CapacityRecheckedAtRequestIndex());
  for (const api::ResourceClaim* c : claims) {
    ClaimData cd;
    cd.claim = c;
    cd.key = ClaimKey(*c);
    claims_.push_back(std::move(cd));
  }
}

AllocateResult Search::Run() {
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
      out.reasons.insert(out.reasons.begin(), out.invalid_pools && !f_.NodeRelevantPools()
                                                  ? "invalid resource pools were encountered"
                                                  : "cannot allocate all claims");
      return out;
    }
  }
  out.search_steps = steps_;
  out.outcome = Outcome::kError;
  out.error = s;
  return out;
}

absl::Status Search::Prepare() {
  auto pools = node_independent_ != nullptr ? GatherPools(snapshot_, *node_independent_, node_, f_)
                                            : GatherPools(snapshot_.ResourceSlices(), node_, f_);
  if (!pools.ok()) {
    return absl::Status(pools.status().code(), absl::StrCat("gather pool information: ", pools.status().message()));
  }
  pools_ = *std::move(pools);
  BuildDevices();
  // One match-cache row per request or subrequest, sized once.
  size_t slots = 0;
  for (const ClaimData& cd : claims_) {
    for (const api::DeviceRequest& r : ClaimDevices(*cd.claim).requests) {
      slots += std::max<size_t>(1, r.first_available.size());
    }
  }
  match_.reserve(slots * devs_.size());
  for (size_t ci = 0; ci < claims_.size(); ++ci) RETURN_IF_ERROR(PrepareClaim(static_cast<int>(ci)));
  return absl::OkStatus();
}

// The devices of the node's pools in search order (upstream's pools/slices/devices loops), with
// what the search asks of each again and again resolved once.
void Search::BuildDevices() {
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
        dev.allocated = state_.IsAllocatedExclusively(dev.id, f_);
        auto agg = state_.aggregated_capacity.find(dev.id);
        if (agg != state_.aggregated_capacity.end()) dev.aggregated = &agg->second;
        if (f_.device_taints) {
          dev.taints = d.taints;
          if (rules) {
            for (const api::DeviceTaintRule* rule : snapshot_.TaintRulesFor(dev.driver, dev.pool, dev.name,
                                                                                 f_.TaintRuleWithoutSelectorMatchesAll())) {
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
  counters_.Resize(pools_.size(), devs_.size());
  twin_reps_.resize(pools_.size());
  in_all_mode_.assign(devs_.size(), false);
}

// upstream allocateOne: device `di` of subrequest `si` of request `ri` of claim `ci`, searching
// from `start` on; allocate_sub: a subrequest was chosen for request `ri`.
R Search::AllocateOne(int ci, int ri, int si, int di, bool allocate_sub, Loc start) {
  ++steps_;
  if (options_.max_steps > 0 && steps_ > options_.max_steps) {
    return Fail(absl::DeadlineExceededError(
        absl::StrCat("filter operation aborted: search step limit of ", options_.max_steps, " exceeded")));
  }
  if (ci >= static_cast<int>(claims_.size())) return R::kTrue;
  ClaimData& cd = claims_[ci];
  if (ri >= static_cast<int>(cd.requests.size())) {
    R r = AllocateOne(ci + 1, 0, 0, 0, false, {});
    return r == R::kMaxExceeded ? R::kFalse : r;
  }
  if (!allocate_sub && cd.has_subs[ri]) return AllocateSubrequests(ci, ri, di);
  const RequestData& rd = cd.requests[ri][si];
  if (rd.all_mode && rd.all_devices.empty()) return R::kFalse;
  if (di >= rd.num_devices) return AllocateOne(ci, ri + 1, 0, 0, false, {});
  if (static_cast<int>(cd.results.size()) + rd.num_devices - di > kMaxResults) return R::kMaxExceeded;
  if (prune_ && !rd.all_mode && !EnoughCandidates(ci, ri, si, rd, start, rd.num_devices - di)) {
    return R::kFalse;
  }
  if (rd.all_mode) return AllocateAllDevice(ci, ri, si, di, allocate_sub);
  return AllocateFromPools(ci, ri, si, di, allocate_sub, start);
}

// firstAvailable: the subrequests in order, the first that can be allocated wins.
R Search::AllocateSubrequests(int ci, int ri, int di) {
  ClaimData& cd = claims_[ci];
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

// allocationMode All: the next device of the request's fixed list, which must fit.
R Search::AllocateAllDevice(int ci, int ri, int si, int di, bool allocate_sub) {
  const RequestData& rd = claims_[ci].requests[ri][si];
  auto ok = AllocateDevice(ci, ri, si, di, rd.all_devices[di], true);
  if (!ok.ok()) return Fail(ok.status());
  if (!*ok) return R::kFalse;
  R r = AllocateOne(ci, ri, f_.AllSubrequestLosesIndex() ? 0 : si, di + 1, allocate_sub, {});
  if (r != R::kTrue) Deallocate();
  return r;
}

// ExactCount: every device from `start` on in pool, slice and device order; a device that fits is
// followed by the rest of the search, and undone when that fails.
R Search::AllocateFromPools(int ci, int ri, int si, int di, bool allocate_sub, Loc start) {
  const RequestData& rd = claims_[ci].requests[ri][si];
  // Devices tried at this position whose whole subtree failed, for skipping their twins; the
  // entries above `failed_base` belong to this call.
  const size_t failed_base = failed_.size();
  struct PopFailed {
    std::vector<int>& v;
    size_t n;
    ~PopFailed() { v.resize(n); }
  } pop_failed{failed_, failed_base};

  for (int pi = start.pool; pi < static_cast<int>(pools_.size()); ++pi) {
    const Pool& pool = pools_[pi];
    if (f_.NodeRelevantPools() && pool.invalid) {
      return Fail(absl::InvalidArgumentError(absl::StrCat("pool ", AV(pool.pool), " is invalid: ", pool.invalid_reason)));
    }
    if (!f_.NodeRelevantPools() && (pool.incomplete || pool.invalid)) continue;
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
          if (*check != CapacityCheck::kFits) continue;
        }
        // After the cheap checks, so that twins are looked for only among devices worth trying.
        if (failed_.size() > failed_base && TwinFailed(d, failed_base)) continue;
        auto ok = AllocateDevice(ci, ri, si, di, d, false);
        if (!ok.ok()) return Fail(ok.status());
        if (!*ok) {
          MarkFailed(d);
          continue;
        }
        R r = AllocateOne(ci, ri, si, di + 1, allocate_sub, f_.NextDeviceSearchedFromStart() ? Loc{} : Loc{pi, sli, k + 1});
        if (r == R::kTrue) return r;
        Deallocate();
        if (r != R::kFalse) return r;
        MarkFailed(d);
      }
    }
  }
  return R::kFalse;
}

// upstream allocateDevice; on success pushes a result and an undo record. must: allocationMode All,
// where a constraint the device breaks is an error rather than a reason to try another device.
absl::StatusOr<bool> Search::AllocateDevice(int ci, int ri, int si, int di, int d, bool must) {
  ClaimData& cd = claims_[ci];
  const RequestData& rd = cd.requests[ri][si];
  const Dev& dev = devs_[d];
  const bool multi = dev.multi;
  if (!multi && rd.admin_access && AllocatingForClaim(d, ci)) return false;
  if (!rd.admin_access && InUse(d)) return false;
  if (!dev.slice->spec->skip_node_operations.empty() &&
      !SkipNodeOperationsAllowed(*dev.slice, NodeDeclaresOptionalNodeOperations(), f_)) {
    return false;
  }
  CounterReservation reservation;
  if (!ReserveCounters(d, reservation)) return false;
  if (f_.device_taints && TaintPreventsAllocation(dev.taints, *rd.tolerations, f_.EveryTaintEffectPrevents())) {
    ReleaseCounters(d, reservation);
    return false;
  }
  absl::StatusOr<bool> added = AddToConstraints(cd, rd, d, must);
  if (!added.ok() || !*added) {
    ReleaseCounters(d, reservation);
    return added;
  }
  DeviceResult result;
  result.dev = d;
  result.request = ri;
  result.sub = si;
  result.admin = rd.admin_access;
  result.shared = multi;
  if (f_.consumable_capacity) {
    if (f_.CapacityRecheckedAtRequestIndex()) return AllocateDeviceAt134(ci, ri, si, di, d, reservation, result);
    absl::StatusOr<CapacityCheck> check = CheckCapacity(cd, rd, d);
    if (!check.ok() || *check != CapacityCheck::kFits) {
      for (auto& c : cd.constraints) c->Remove(rd.BaseName(), rd.SubName());
      ReleaseCounters(d, reservation);
      if (!check.ok()) return check.status();
      return false;
    }
    if (multi) RETURN_IF_ERROR(AddShare(rd, d, result.consumed));
  }
  if (!multi) allocating_[d].push_back(ci);
  cd.results.push_back(std::move(result));
  undo_.push_back(Undo{ci, d, multi, rd.BaseName(), rd.SubName(), std::move(reservation)});
  return true;
}

// The end of AllocateDevice as Kubernetes 1.34's experimental allocator has it, which re-checks the
// consumable capacity of the device at the request's device index `di` in the chosen device's slice
// (slice.Spec.Devices[r.deviceIndex]) instead of the chosen device `d`: past the slice's devices
// that panics; when that other device fails the check, the constraints keep `d` and `d` stays
// marked as being allocated for the claim (no rollback), for the rest of this allocation.
absl::StatusOr<bool> Search::AllocateDeviceAt134(int ci, int ri, int si, int di, int d,
                                                 CounterReservation& reservation, DeviceResult& result) {
  ClaimData& cd = claims_[ci];
  const RequestData& rd = cd.requests[ri][si];
  const Dev& dev = devs_[d];
  if (!dev.multi) allocating_[d].push_back(ci);
  const int n = static_cast<int>(SliceDevices(*dev.slice).size());
  if (di >= n) {
    return absl::InternalError(absl::StrCat("Kubernetes 1.34's allocator panics here: index out of range [", di,
                                            "] with length ", n, " (it re-checks the capacity of device #", di,
                                            " of the slice of ", dev.id.String(), ")"));
  }
  absl::StatusOr<CapacityCheck> check = CheckCapacity(cd, rd, slice_first_[dev.pool_index][dev.slice_index] + di);
  if (!check.ok() || *check != CapacityCheck::kFits) {
    ReleaseCounters(d, reservation);
    if (!check.ok()) return check.status();
    return false;
  }
  if (dev.multi) RETURN_IF_ERROR(AddShare(rd, d, result.consumed));
  cd.results.push_back(std::move(result));
  undo_.push_back(Undo{ci, d, dev.multi, rd.BaseName(), rd.SubName(), std::move(reservation)});
  return true;
}

// upstream checkAvailableCounters, and the compatibility groups of the counter sets the device
// consumes (DRADeviceCompatibilityGroups). A further share of a shared device in use was checked
// (groups and counters) with its first share. false: the device does not fit, nothing is held.
bool Search::ReserveCounters(int d, CounterReservation& reservation) {
  const Dev& dev = devs_[d];
  const bool has_counters = !dev.device->consumes_counters.empty();
  if (!f_.partitionable_devices && has_counters) return false;
  if (!has_counters || (dev.multi && CapacityInUse(d))) return true;
  if (f_.device_compatibility_groups &&
      !compatibility_.CheckAndConsume(dev.pool_index, pools_[dev.pool_index], *dev.device, reservation.compatibility)) {
    return false;
  }
  if (!counters_.Reserve(d, dev.pool_index, *dev.device)) {
    compatibility_.Restore(dev.pool_index, reservation.compatibility);
    return false;
  }
  reservation.counters = true;
  return true;
}

// Gives back what ReserveCounters took. Upstream leaks the counters when a later check rejects the
// device (notes Q6); we do not.
void Search::ReleaseCounters(int d, CounterReservation& reservation) {
  const Dev& dev = devs_[d];
  if (reservation.counters) counters_.Release(d, dev.pool_index, *dev.device);
  compatibility_.Restore(dev.pool_index, reservation.compatibility);
}

// Adds device `d` to every constraint of the claim (each sees it only if it applies to the
// request). false, or an error when `must`: one constraint does not hold; the constraints added
// before it are undone then, as on a derived attribute's error.
absl::StatusOr<bool> Search::AddToConstraints(ClaimData& cd, const RequestData& rd, int d, bool must) {
  for (size_t i = 0; i < cd.constraints.size(); ++i) {
    Constraint& constraint = *cd.constraints[i];
    const api::DeviceAttribute* attribute = nullptr;
    if (constraint.AppliesTo(rd.BaseName(), rd.SubName())) {
      absl::StatusOr<const api::DeviceAttribute*> looked_up = ConstraintAttribute(rd, d, constraint.attribute());
      if (!looked_up.ok()) {
        for (size_t e = 0; e < i; ++e) cd.constraints[e]->Remove(rd.BaseName(), rd.SubName());
        return looked_up.status();
      }
      attribute = *looked_up;
    }
    if (!constraint.AddAttribute(rd.BaseName(), rd.SubName(), attribute)) {
      for (size_t e = 0; e < i; ++e) cd.constraints[e]->Remove(rd.BaseName(), rd.SubName());
      if (must) {
        return absl::FailedPreconditionError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                          ": cannot add device ", devs_[d].id.String(),
                                                          " because a claim constraint would not be satisfied"));
      }
      return false;
    }
  }
  return true;
}

// A share of consumable-capacity device `d` for request `rd`: what it consumes goes to `consumed`
// and to what the search is allocating on the device.
absl::Status Search::AddShare(const RequestData& rd, int d, api::Map<api::Quantity>& consumed) {
  ASSIGN_OR_RETURN(consumed, ConsumedCapacity(rd.capacity, devs_[d].device->capacity, CapacityRangeArithmetic(f_)));
  AddCapacity(allocating_capacity_[d], consumed);
  ++allocating_shares_[d];
  return absl::OkStatus();
}

// upstream deallocate: undoes the last AllocateDevice.
void Search::Deallocate() {
  Undo u = std::move(undo_.back());
  undo_.pop_back();
  ClaimData& cd = claims_[u.claim];
  for (auto& c : cd.constraints) c->Remove(u.base, u.sub);
  DeviceResult& r = cd.results.back();
  if (u.multi) {
    SubCapacity(allocating_capacity_[u.dev], r.consumed);
    if (--allocating_shares_[u.dev] == 0) allocating_capacity_[u.dev] = {};
  } else {
    auto& v = allocating_[u.dev];
    v.erase(std::find(v.begin(), v.end(), u.claim));
  }
  ReleaseCounters(u.dev, u.reservation);
  cd.results.pop_back();
}

R Search::Fail(absl::Status s) {
  error_ = std::move(s);
  return R::kError;
}

// Resolved once per search: it may parse the snapshot Node's status.
bool Search::NodeDeclaresOptionalNodeOperations() {
  if (!node_declares_) node_declares_ = DeclaresOptionalNodeOperations(node_, snapshot_);
  return *node_declares_;
}

}  // namespace draforge::alloc::internal
