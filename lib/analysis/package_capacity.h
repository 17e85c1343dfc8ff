// Sellable capacity per package: how many more units of each package of a catalog fit now, per node
// and cluster-wide. One unit is the package's expansion (analysis/package_catalog.h): a Pod with
// the package's cpu and memory and its ResourceClaim. The count is alloc::HowManyMore on that pod
// prototype, the same engine as `draforge place --count`: devices through the allocator (selectors,
// counters, taints, constraints), cpu/memory/pods against each Node's allocatable minus the pods
// bound there, and, for a namespace, within its ResourceQuotas.
//
// Nodes are filled in name order: a device usable from several nodes (a network-attached pool) is
// counted once, for the first node that takes it, so the per-node figures always add up to the
// total. Where every pool a package uses is node-local, a node's figure is what that node takes on
// its own.
#ifndef DRAFORGE_ANALYSIS_PACKAGE_CAPACITY_H_
#define DRAFORGE_ANALYSIS_PACKAGE_CAPACITY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/placement.h"
#include "analysis/package_catalog.h"
#include "store/cluster.h"

namespace draforge::analysis {

struct PackageCapacity {
  const Package* package = nullptr;  // into the catalog
  alloc::HowManyMoreResult result;   // prototype "package <id>"
};

struct PackageCapacityOptions {
  alloc::HowManyMoreOptions more;  // cap, features, explain; keep_allocations is honoured
  // The namespace the units would be created in ("" = "default"); with more.quota its quotas count.
  std::string ns;
  // Only this package ("" = every package of the catalog).
  std::string id;
};

// The capacity of every package (or options.id), in catalog order. Errors: NotFound for an unknown
// options.id; the errors of alloc::HowManyMore.
absl::StatusOr<std::vector<PackageCapacity>> PackageCapacities(const store::Snapshot& snapshot,
                                                               const PackageCatalog& catalog,
                                                               const PackageCapacityOptions& options = {});

// {"namespace","quota","packages":[{"id","specName","cpu","memory","gpu","deviceClassName",
// "capacity":<alloc::HowManyMoreJson>}]}, compact.
absl::StatusOr<std::string> PackageCapacitiesJson(const std::vector<PackageCapacity>& capacities,
                                                  const PackageCapacityOptions& options);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_PACKAGE_CAPACITY_H_
