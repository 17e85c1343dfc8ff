#include "analysis/snapshot_changes.h"

#include <utility>

namespace draforge::analysis {
namespace {

constexpr api::Kind kWatchedKinds[] = {
    api::Kind::kDeviceClass, api::Kind::kResourceClaim, api::Kind::kResourceClaimTemplate,
    api::Kind::kResourceSlice, api::Kind::kDeviceTaintRule, api::Kind::kResourcePoolStatusRequest,
    api::Kind::kPod, api::Kind::kNode,
};

std::pair<std::string, std::string> NameOf(const api::Object* o) {
  return {o->metadata().namespace_.value_or(""), o->metadata().name.value_or("")};
}

}  // namespace

std::vector<ObjectChange> ChangesBetween(const store::Snapshot& before, const store::Snapshot& after) {
  std::vector<ObjectChange> changes;
  for (api::Kind kind : kWatchedKinds) {
    const auto a = before.List(kind);
    const auto b = after.List(kind);
    const std::string_view kind_name = api::KindName(kind);
    size_t i = 0, j = 0;
    // Both lists are sorted by (namespace, name): a merge finds additions, deletions and, for the
    // same name, a different stored object.
    while (i < a.size() || j < b.size()) {
      if (j == b.size() || (i < a.size() && NameOf(a[i]) < NameOf(b[j]))) {
        auto [ns, name] = NameOf(a[i++]);
        changes.push_back({"DELETED", kind_name, std::move(ns), std::move(name)});
      } else if (i == a.size() || NameOf(b[j]) < NameOf(a[i])) {
        auto [ns, name] = NameOf(b[j++]);
        changes.push_back({"ADDED", kind_name, std::move(ns), std::move(name)});
      } else {
        if (a[i] != b[j] && !(*a[i] == *b[j])) {
          auto [ns, name] = NameOf(b[j]);
          changes.push_back({"MODIFIED", kind_name, std::move(ns), std::move(name)});
        }
        ++i;
        ++j;
      }
    }
  }
  return changes;
}

}  // namespace draforge::analysis
