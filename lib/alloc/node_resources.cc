#include "alloc/node_resources.h"

#include <algorithm>
#include <map>
#include <string>
#include <variant>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/quantity.h"
#include "common/status.h"

namespace draforge::alloc {
namespace {

// An amount in the scheduler's unit, written as a quantity a user reads ("500m", "40Gi", "3").
std::string Amount(const std::string& resource, int64_t amount) {
  if (resource == "cpu") return api::Quantity::FromMilli(amount, api::Quantity::Format::kDecimalSI).CanonicalForm();
  const bool bytes = resource == "memory" || resource == "ephemeral-storage" || resource.starts_with("hugepages-");
  return api::Quantity::FromInt64(amount, bytes ? api::Quantity::Format::kBinarySI : api::Quantity::Format::kDecimalSI)
      .CanonicalForm();
}

}  // namespace

SchedulerResources ToSchedulerResources(const api::ResourceList& list) {
  SchedulerResources out;
  for (const auto& [name, q] : list) {
    if (const int64_t v = api::SchedulerAmount(name, q); v != 0) out[name] = v;
  }
  return out;
}

absl::StatusOr<std::vector<NodeResources>> NodeResources::Of(const store::Snapshot& snapshot,
                                                             const std::vector<const api::Node*>& nodes) {
  std::vector<NodeResources> out(nodes.size());
  std::map<std::string, size_t, std::less<>> index;
  for (size_t i = 0; i < nodes.size(); ++i) {
    ASSIGN_OR_RETURN(api::ResourceList allocatable, api::NodeAllocatable(*nodes[i]));
    for (const auto& [name, q] : allocatable) out[i].allocatable_[name] = api::SchedulerAmount(name, q);
    index.emplace(nodes[i]->metadata.name.value_or(""), i);
  }
  for (const api::Object* o : snapshot.List(api::Kind::kPod)) {
    const auto& pod = std::get<api::Pod>(o->value);
    if (!api::OccupiesNode(pod)) continue;
    auto it = index.find(*pod.spec->node_name);
    if (it == index.end()) continue;
    ASSIGN_OR_RETURN(api::ResourceList requests, api::PodRequests(pod));
    out[it->second].Take(ToSchedulerResources(requests));
  }
  return out;
}

std::optional<ResourceShortfall> NodeResources::Check(const SchedulerResources& requests) const {
  const auto allocatable = [&](const std::string& r) {
    auto it = allocatable_.find(r);
    return it == allocatable_.end() ? int64_t{0} : it->second;
  };
  if (pods_ + 1 > allocatable("pods")) {
    return ResourceShortfall{"pods", "Too many pods",
                             absl::StrCat("pods: 1 requested, ", std::max<int64_t>(0, allocatable("pods") - pods_),
                                          " free (allocatable ", allocatable("pods"), ")")};
  }
  for (const auto& [r, want] : requests) {
    if (want <= 0) continue;
    auto used = requested_.find(r);
    const int64_t free = allocatable(r) - (used == requested_.end() ? 0 : used->second);
    if (want > free) {
      return ResourceShortfall{r, absl::StrCat("Insufficient ", r),
                               absl::StrCat(r, ": ", Amount(r, want), " requested, ",
                                            Amount(r, std::max<int64_t>(0, free)), " free (allocatable ",
                                            Amount(r, allocatable(r)), ")")};
    }
  }
  return std::nullopt;
}

void NodeResources::Take(const SchedulerResources& requests) {
  ++pods_;
  for (const auto& [r, v] : requests) requested_[r] += v;
}

}  // namespace draforge::alloc
