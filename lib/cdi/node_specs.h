// From allocations to CDI specs: what a DRA node plugin prepares for the claims on its node.
//
// One spec per (claim, driver), named "<vendor>-<class>_<claimUID>.json", with one CDI device per
// allocated device named "<claimUID>-<device>" ("<claimUID>-<device>-<shareID>" for a share of a
// consumable-capacity device), as DRA drivers name them (dra-example-driver, the NVIDIA GPU
// driver): the claim UID keeps names unique, so a runtime's cache never serves a stale device. The
// CDI device IDs ("<vendor>/<class>=<name>") are returned per request, as NodePrepareResources
// returns them to the kubelet.
#ifndef DRAFORGE_CDI_NODE_SPECS_H_
#define DRAFORGE_CDI_NODE_SPECS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cdi/spec.h"
#include "cdi/version.h"
#include "cdi/writer.h"
#include "store/cluster.h"

namespace draforge::cdi {

// How a driver's allocated devices become CDI devices. The rule below is the one DRAForge's
// simulated devices use; drivers without a rule of their own get the default rule.
struct DriverRule {
  // The driver this rule is for; "" makes it the default for every driver without a rule.
  std::string driver;
  // The kind's vendor; "" means "k8s.<driver>" (the DRA convention that keeps a driver's per-claim
  // kinds apart from node-level vendor specs).
  std::string vendor;
  // The kind's class: lowercase letters, digits and '-'. Not "claim", the class real drivers use
  // with the same vendor (k8s.gpu.nvidia.com/claim): two files defining the same device in one
  // directory make a runtime drop it from both, so DRAForge's kinds must never coincide with a real
  // driver's.
  std::string cdi_class = "draforge";
  // Environment variables naming the device, prefixed "DRA_<CLAIM_UID>_<DEVICE>_" (with
  // "<SHARE_ID>_" after the device for a share; upper case, '-' as '_'), so that they are unique per
  // claim and device when several claims' devices go into one container: _DRIVER, _POOL, _DEVICE,
  // _REQUEST, _CLAIM ("<namespace>/<name>"), _CLAIM_UID, and _SHARE_ID / _ADMIN_ACCESS=true when
  // those are set.
  bool device_env = true;
  // When set (an absolute host directory), each device also gets a read-only bind mount of
  // "<metadata_host_dir>/<claimUID>-<device>.json" (the CDI device name) at
  // "<metadata_container_dir>/<request>/<device>.json".
  std::string metadata_host_dir;
  std::string metadata_container_dir = "/var/run/draforge/devices";
};

struct BuildOptions {
  // Only these drivers' devices (a node plugin serves one driver); empty: every driver.
  std::vector<std::string> drivers;
  // Rules by driver; at most one per driver and one default ("").
  std::vector<DriverRule> rules;
  // The newest cdiVersion the node's runtimes accept. A spec that needs more is a failure of its
  // claim, never a silent downgrade.
  std::string max_version = kDefaultMaxVersion;
};

// The CDI device IDs of one request of a claim, in allocation-result order.
struct RequestDevices {
  std::string request;  // results[].request, "<request>/<subrequest>" for a prioritized list
  std::vector<std::string> cdi_device_ids;
};

// One allocated device of a claim as NodePrepareResources returns it to the kubelet (dra/v1
// Device): the request it serves, where it is, and its CDI device ID.
struct AllocatedDevice {
  std::string request;   // results[].request
  std::string pool;
  std::string device;
  std::string share_id;  // "" unless a share of a consumable-capacity device
  std::string cdi_device_id;
  friend bool operator==(const AllocatedDevice&, const AllocatedDevice&) = default;
};

// The spec of one claim and one driver.
struct ClaimSpec {
  std::string claim_namespace;
  std::string claim_name;
  std::string claim_uid;
  std::string driver;
  SpecFile file;  // file name and spec (cdiVersion = its minimum version); valid (kStrict)
  std::vector<RequestDevices> requests;
  // One per allocation result of the driver, in result order.
  std::vector<AllocatedDevice> devices;
};

// A claim on the node whose spec could not be built (its previous file, if any, should stay).
struct ClaimFailure {
  std::string claim_namespace;
  std::string claim_name;
  std::string claim_uid;  // may be empty (then there is no file to keep)
  std::string driver;
  std::string file_name;  // the spec file this claim would have, "" when unknown
  std::string message;    // names the claim and the field
};

struct NodeSpecs {
  // Sorted by (namespace, name, driver).
  std::vector<ClaimSpec> specs;
  std::vector<ClaimFailure> failed;
  // "<vendor>-<class>_" of every driver considered (the filter, the rules, the drivers with
  // slices or allocations in the snapshot): files with these prefixes belong to this writer, so
  // the specs of claims no longer on the node can be removed (SyncOptions::owned_prefixes).
  std::vector<std::string> owned_prefixes;

  // What SyncDirectory needs: the files, and SyncOptions::keep/owned_prefixes filled from this.
  std::vector<SpecFile> Files() const;
  SyncOptions MakeSyncOptions(const WriteOptions& write = {}) const;
};

// The specs for the claims allocated on `node` in `snapshot`. A claim is on the node when its
// status.allocation exists and either a pod with spec.nodeName == node consumes it (by reference or
// status.reservedFor), or its allocation.nodeSelector names exactly that node (one term:
// matchFields metadata.name In [node], or matchExpressions kubernetes.io/hostname In [node]).
// Errors: kInvalidArgument for an empty node, an unknown max_version, a rule with an invalid vendor
// or class, or two rules for one driver. Problems of single claims (no UID, a result without
// device, a driver name that makes no valid vendor, a spec above max_version) are listed in
// NodeSpecs::failed, not errors.
absl::StatusOr<NodeSpecs> BuildSpecsForNode(const store::Snapshot& snapshot, std::string_view node,
                                            const BuildOptions& options = {});

// The node `selector` names exactly (one term: matchFields metadata.name In [node], or
// matchExpressions kubernetes.io/hostname In [node]), as an allocation on one node has it; "" when
// it names no single node (no selector, labels, several terms or values).
std::string SelectedNode(const api::NodeSelector* selector);

// The CDI kind ("<vendor>/<class>") of `driver`'s specs under `options`' rules. Errors:
// kInvalidArgument for bad rules or a driver name that makes no valid vendor.
absl::StatusOr<std::string> KindForDriver(const BuildOptions& options, std::string_view driver);

// The spec of one claim for one driver, as a node plugin prepares it when the kubelet names the
// claim: the same file, document and IDs that BuildSpecsForNode gives the claim, and its devices.
// Errors name the claim with its UID ("ResourceClaim ns/name (uid U): ..."): kFailedPrecondition
// when it is not allocated, allocated for another node (both named), or has no result of `driver`;
// kInvalidArgument for an empty node or driver, bad options, an incomplete result, an empty UID or
// a spec that is not valid.
absl::StatusOr<ClaimSpec> BuildClaimSpec(const api::ResourceClaim& claim, std::string_view node,
                                         std::string_view driver, const BuildOptions& options = {});

}  // namespace draforge::cdi

#endif  // DRAFORGE_CDI_NODE_SPECS_H_
