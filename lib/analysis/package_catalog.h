// A package catalog: the fixed shapes in which a platform sells capacity. A package ID expands to a
// pod's CPU and memory and N devices of one DeviceClass, requested through a ResourceClaim:
//
//   packages:
//     - id: gpu-rtx3080-2x-cpu10-mem40g
//       specName: gpu.rtx3080.2x.10c.40g
//       cpu: "10"
//       memory: 40Gi
//       gpu: 2
//       allocation: {deviceClassName: nvidia-rtx-3080, claimRequestName: gpu, count: 2}
//
// The catalog is a platform concept, not a Kubernetes one; it lives in lib/ so that every front end
// (CLI, C ABI, Python, server) parses, validates and expands it the same way.
#ifndef DRAFORGE_ANALYSIS_PACKAGE_CATALOG_H_
#define DRAFORGE_ANALYSIS_PACKAGE_CATALOG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/pod.h"
#include "api/quantity.h"
#include "api/resource_claim.h"
#include "store/cluster.h"

namespace draforge::analysis {

struct PackageAllocation {
  std::string device_class_name;
  std::string claim_request_name;  // the claim's request, the pod's claim entry and the container's
  int64_t count = 0;
};

struct Package {
  std::string id;         // a label value (draforge.io/package on the pod)
  std::string spec_name;  // the platform's display name; optional
  api::Quantity cpu;
  api::Quantity memory;
  int64_t gpu = 0;  // devices per unit; 0: a CPU-only package (no allocation, no claim)
  std::optional<PackageAllocation> allocation;
};

struct PackageCatalog {
  std::vector<Package> packages;  // in file order

  // The package with `id`, or nullptr.
  const Package* Find(std::string_view id) const;
};

// Parses and validates a catalog (YAML or JSON). Errors: InvalidArgument listing every problem, one
// per line, each with its field path as the API server writes them:
//   packages[2].allocation.count: Invalid value: 3: must equal gpu (2)
//   packages[0].memory: Invalid value: "40GB": quantities must match the regular expression ...
//   packages[1].id: Duplicate value: "a"
//   packages[0].foo: Unsupported field
absl::StatusOr<PackageCatalog> ParsePackageCatalog(std::string_view text);

// Problems of a valid catalog against a cluster: DeviceClasses that do not exist
// ("packages[0].allocation.deviceClassName: Not found: \"nvidia-rtx-3080\" (no DeviceClass of that
// name in the cluster)"). Empty when none.
std::vector<std::string> ValidatePackagesAgainstCluster(const PackageCatalog& catalog, const store::Snapshot& snapshot);

struct ExpandOptions {
  std::string name;                    // the pod's name; the claim is "<name>-<claimRequestName>"
  std::string ns = "default";
  std::string image;
  std::string container_name = "main";
};

// The objects one unit of a package is made of.
struct PackageObjects {
  std::optional<api::ResourceClaim> claim;  // unset for gpu 0
  api::Pod pod;
};

// Expands `package`: a ResourceClaim with one request (claimRequestName, exactly count devices of
// deviceClassName) and a Pod that names it in spec.resourceClaims, lists it under the container's
// resources.claims, and requests and limits the package's cpu and memory (no extended resource).
// The pod carries label draforge.io/package=<id> and, when set, annotation
// draforge.io/spec-name=<specName>. Errors: InvalidArgument for a name, namespace or image that the
// API server would reject (naming the flag's field: "metadata.name").
absl::StatusOr<PackageObjects> ExpandPackage(const Package& package, const ExpandOptions& options);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_PACKAGE_CATALOG_H_
