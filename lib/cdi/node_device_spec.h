// The static CDI spec of a node's devices of one driver: what a node plugin in demo mode writes
// once, so that a runtime (or a person trying `--device`) can name any device of the node without
// a claim. Named "<vendor>-<class>.json" (no claim UID): the per-claim files ("<vendor>-<class>_
// <claimUID>.json") and this one never share a name, and a directory sync of the claims' specs
// never removes it (it does not carry their prefix).
#ifndef DRAFORGE_CDI_NODE_DEVICE_SPEC_H_
#define DRAFORGE_CDI_NODE_DEVICE_SPEC_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "cdi/node_specs.h"
#include "cdi/writer.h"
#include "store/cluster.h"

namespace draforge::cdi {

// The spec of the devices of `driver` in the ResourceSlices of `node` (spec.nodeName; of each pool
// only its newest generation), one CDI device per device, named as the device, in the kind the
// options' rules give the driver ("k8s.<driver>/draforge" by default). Each device's edits set
// DRAFORGE_DEVICE_<NAME>=<driver>/<pool>/<device> (NAME: the device name in upper case, '-' and
// '.' as '_'), so that several devices in one container keep apart.
// Errors: kInvalidArgument for an empty node or driver, bad options, or a device name that two
// pools of the node share (the CDI name would be ambiguous); kNotFound when the node has no device
// of the driver (a spec must list at least one).
absl::StatusOr<SpecFile> BuildNodeDeviceSpec(const store::Snapshot& snapshot, std::string_view node,
                                             std::string_view driver, const BuildOptions& options = {});

}  // namespace draforge::cdi

#endif  // DRAFORGE_CDI_NODE_DEVICE_SPEC_H_
