// Which objects changed between two snapshots of one store, by kind: what a live view (the
// server's event stream, a dashboard, a notebook) needs to refresh.
#ifndef DRAFORGE_ANALYSIS_SNAPSHOT_CHANGES_H_
#define DRAFORGE_ANALYSIS_SNAPSHOT_CHANGES_H_

#include <string>
#include <string_view>
#include <vector>

#include "store/cluster.h"

namespace draforge::analysis {

struct ObjectChange {
  std::string_view type;  // "ADDED", "MODIFIED" or "DELETED" (watch event types)
  std::string_view kind;  // api::KindName: "ResourceSlice", "Pod", ...
  std::string namespace_;
  std::string name;
};

// Every object of the kinds the store models (DeviceClass, ResourceClaim, ResourceClaimTemplate,
// ResourceSlice, DeviceTaintRule, ResourcePoolStatusRequest, Pod, Node) that was added, deleted or
// whose stored content differs from `before` to `after`, sorted by (kind in that order, namespace,
// name). Snapshots of one store share unchanged objects, so an unchanged object costs a pointer
// comparison; snapshots of different stores are compared by content.
std::vector<ObjectChange> ChangesBetween(const store::Snapshot& before, const store::Snapshot& after);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_SNAPSHOT_CHANGES_H_
