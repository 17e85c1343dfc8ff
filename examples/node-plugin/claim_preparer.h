// The seam between the node plugin's gRPC front (kubelet's DRAPlugin service, grpc_*.cc) and the
// work it asks for (node_preparer.cc): NodePrepareResources / NodeUnprepareResources name claims,
// the preparer makes their CDI specs exist (or not) and answers per claim.
//
// Threading: kubelet may call Prepare and Unprepare concurrently from several gRPC threads; an
// implementation serializes what must be serialized (the checkpoint, the CDI directory).
#ifndef DRAFORGE_EXAMPLES_NODE_PLUGIN_CLAIM_PREPARER_H_
#define DRAFORGE_EXAMPLES_NODE_PLUGIN_CLAIM_PREPARER_H_

#include <map>
#include <string>
#include <vector>

namespace draforge::node_plugin {

// One claim as kubelet names it (k8s.io/kubelet/pkg/apis/dra/v1 Claim).
struct ClaimRef {
  std::string namespace_;
  std::string uid;
  std::string name;
};

// One prepared device (dra/v1 Device): which requests of the claim it serves and its CDI device
// IDs ("<vendor>/<class>=<name>"), as a runtime resolves them.
struct PreparedDevice {
  std::vector<std::string> request_names;
  std::string pool_name;
  std::string device_name;
  std::vector<std::string> cdi_device_ids;
};

// The answer for one claim: its devices, or an error (non-empty) that names the claim and what
// failed. An error for one claim never fails the others.
struct PrepareResult {
  std::vector<PreparedDevice> devices;
  std::string error;
};

class ClaimPreparer {
 public:
  virtual ~ClaimPreparer() = default;
  // Keyed by claim UID, one entry for every claim asked for.
  virtual std::map<std::string, PrepareResult> Prepare(const std::vector<ClaimRef>& claims) = 0;
  // Keyed by claim UID: "" when unprepared (also for a claim that no longer exists), else the error.
  virtual std::map<std::string, std::string> Unprepare(const std::vector<ClaimRef>& claims) = 0;
};

}  // namespace draforge::node_plugin

#endif  // DRAFORGE_EXAMPLES_NODE_PLUGIN_CLAIM_PREPARER_H_
