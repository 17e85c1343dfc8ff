// DRADeviceCompatibilityGroups across the claim: the search places the devices of all requests on
// the shared counter sets together, so a device whose groups rule out every device left for another
// request (or, with count > 1, too many of those left for the rest of its own request) is in no
// allocation the search can find. Without this, explain checked groups only against
// already-allocated devices and called such a claim satisfiable. Pairs only: a necessary condition,
// as the other steps are. A request with too few devices whatever the groups is left to its own
// funnel; it does not make its partners "incompatible". Repeated until nothing changes, as a
// removal can strand a partner.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "alloc/internal/funnel.h"

namespace draforge::alloc::internal {
namespace {

// "[groups: mig, mps]" or "[no groups]": what `device` declares on counter set `set`.
std::string GroupsOn(const api::Device& device, const std::string& set) {
  for (const api::DeviceCounterConsumption& c : device.consumes_counters) {
    if (c.counter_set.value_or("") != set || c.compatibility_groups.empty()) continue;
    return absl::StrCat("[groups: ", absl::StrJoin(CompatibilityGroupSet(c.compatibility_groups), ", "), "]");
  }
  return "[no groups]";
}

}  // namespace

class Funnel::ClaimCompatibilityCheck {
 public:
  ClaimCompatibilityCheck(Funnel& funnel, std::vector<Pending>& pending)
      : funnel_(funnel),
        pending_(pending),
        in_list_(pending.size(), std::vector<char>(funnel.all_.size(), 0)),
        reachable_(funnel.all_.size(), 0) {
    for (size_t i = 0; i < pending_.size(); ++i) {
      before_.push_back(pending_[i].cur);
      for (const Candidate* c : pending_[i].cur) {
        in_list_[i][Index(c)] = 1;
        reachable_[Index(c)] = funnel_.ReachOf(c) == Reach::kYes;
      }
    }
  }

  // Narrows every request's list until nothing changes, then says why devices went.
  void Run() {
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < pending_.size(); ++i) changed = Narrow(i) || changed;
    }
    for (Pending& p : pending_) {
      if (p.incompatible_with_claim == 0) continue;
      p.capacity_parts.push_back(absl::StrCat(Devices(p.incompatible_with_claim),
                                              " whose compatibility groups rule out the devices left for ",
                                              JoinNames({p.ruled_out_by.begin(), p.ruled_out_by.end()}),
                                              p.clash.empty() ? "" : absl::StrCat(": ", p.clash)));
    }
  }

 private:
  // How request j stands next to a device: enough devices whatever the groups, enough compatible ones.
  struct Support {
    bool enough_devices = false;
    bool enough_compatible = false;
  };

  size_t Index(const Candidate* c) const { return static_cast<size_t>(c - funnel_.all_.data()); }

  bool Shareable(const Candidate* c) const {
    return funnel_.features_.consumable_capacity && c->device->allow_multiple_allocations.value_or(false);
  }

  // Only pools where some device declares groups can clash: in the others every device declares
  // none, and group-less devices all go together. This keeps the pairwise work to those pools.
  bool UsesGroups(const PoolView* pool) {
    auto [it, inserted] = pool_uses_groups_.emplace(pool, false);
    if (inserted) {
      for (const api::ResourceSlice* slice : pool->slices) {
        it->second = it->second || SliceUsesCompatibilityGroups(*slice);
      }
    }
    return it->second;
  }

  bool TakesPart(const Candidate* c) {
    if (c->device->consumes_counters.empty() || !UsesGroups(c->pool)) return false;
    // A further share of a shared device in use was checked with its first share.
    return !(Shareable(c) && funnel_.state_.aggregated_capacity.contains(c->id));
  }

  // Whether `c` and `d` may be allocated together (devices of different pools always may); if not,
  // the first such pair is described in `clash`.
  bool Compatible(const Candidate* c, const Candidate* d, std::string* clash) {
    if (c->pool != d->pool || !TakesPart(c) || !TakesPart(d)) return true;
    std::string set;
    if (CompatibleWith(funnel_.AllocatedGroupsOf(c->pool), *c->device, *d->device, &set)) return true;
    if (clash != nullptr && clash->empty()) {
      *clash = absl::StrCat(c->id.String(), " ", GroupsOn(*c->device, set), " and ", d->id.String(), " ",
                            GroupsOn(*d->device, set), " clash on counter set ", set);
    }
    return false;
  }

  // "Enough devices whatever the groups" is judged on the lists as the per-request steps left them
  // (before_), "enough compatible devices" on the lists as the check narrows them (in_list_).
  // allocationMode All takes every device of its list, so there every one must be compatible.
  Support SupportOf(const Candidate* c, size_t j, int64_t needed, std::string* clash) {
    Support s;
    int64_t devices = 0, compatible_devices = 0;
    for (const Candidate* d : before_[j]) {
      if ((d == c && !Shareable(c)) || !reachable_[Index(d)]) continue;
      ++devices;
      if (Compatible(c, d, clash) && in_list_[j][Index(d)]) ++compatible_devices;
    }
    if (funnel_.views_[j].all) {
      s.enough_devices = true;
      s.enough_compatible = compatible_devices == devices;
    } else {
      s.enough_devices = devices >= needed;
      s.enough_compatible = compatible_devices >= needed;
    }
    return s;
  }

  // What rules out device `c` of request `i` ("the rest of request R", "request R"; empty: nothing),
  // with an example clash.
  std::string Blocker(size_t i, const Candidate* c, std::string& clash) {
    const std::vector<ReqView>& views = funnel_.views_;
    const Pending& p = pending_[i];
    if (!TakesPart(c)) return "";
    if (p.f.needed > 1 || views[i].all) {
      std::string own_clash;
      const Support s = SupportOf(c, i, p.f.needed - 1, &own_clash);
      if (s.enough_devices && !s.enough_compatible) {
        clash = own_clash;
        return absl::StrCat("the rest of request ", views[i].name);
      }
    }
    // Every other request; one of its subrequests suffices (the siblings of a subrequest are its
    // alternatives, not its partners).
    for (size_t j = 0; j < views.size(); ++j) {
      const std::string& base = views[j].base;
      if (base == views[i].base) continue;
      if (std::find_if(views.begin(), views.begin() + j, [&](const ReqView& w) { return w.base == base; }) !=
          views.begin() + j) {
        continue;  // judged with its first subrequest
      }
      bool any_enough = false, any_fits = false;
      std::string first_clash;
      for (size_t k = j; k < views.size(); ++k) {
        if (views[k].base != base) continue;
        std::string alt_clash;
        const Support s = SupportOf(c, k, pending_[k].f.needed, &alt_clash);
        any_enough = any_enough || s.enough_devices;
        any_fits = any_fits || (s.enough_devices && s.enough_compatible);
        if (s.enough_devices && first_clash.empty()) first_clash = alt_clash;
      }
      if (any_enough && !any_fits) {
        clash = first_clash;
        return absl::StrCat("request ", base);
      }
    }
    return "";
  }

  // One pass over request `i`'s list; true when it removed a device.
  bool Narrow(size_t i) {
    Pending& p = pending_[i];
    bool changed = false;
    std::vector<const Candidate*> next;
    for (const Candidate* c : p.cur) {
      std::string clash;
      const std::string blocker = Blocker(i, c, clash);
      if (blocker.empty()) {
        next.push_back(c);
        continue;
      }
      changed = true;
      in_list_[i][Index(c)] = 0;
      p.reachable_ruled_out = p.reachable_ruled_out || reachable_[Index(c)];
      ++p.incompatible_with_claim;
      p.ruled_out_by.insert(blocker);
      if (p.clash.empty()) p.clash = clash;
    }
    if (funnel_.views_[i].all && p.reachable_ruled_out && !next.empty()) {
      // allocationMode All takes every device of its list the node reaches: one that cannot be
      // placed fails the request, devices without groups included.
      p.incompatible_with_claim += static_cast<int64_t>(next.size());
      p.ruled_out_by.insert(absl::StrCat("the rest of request ", funnel_.views_[i].name));
      next.clear();
      changed = true;
    }
    p.cur = std::move(next);
    return changed;
  }

  Funnel& funnel_;
  std::vector<Pending>& pending_;
  std::map<const PoolView*, bool> pool_uses_groups_;
  std::vector<std::vector<const Candidate*>> before_;
  // Per request, whether a device (by its index in all_) is still in its list; per device whether
  // the node reaches it.
  std::vector<std::vector<char>> in_list_;
  std::vector<char> reachable_;
};

void Funnel::ClaimCompatibility(std::vector<Pending>& pending) { ClaimCompatibilityCheck(*this, pending).Run(); }

}  // namespace draforge::alloc::internal
