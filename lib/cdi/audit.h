// Auditing a node's CDI directory against the claims allocated on the node: which of our spec files
// belong to claims no longer on the node (stale), which allocated claims have no file (missing),
// and which files no longer match what the allocation requires (out of date). ValidateDirectory
// checks each file on its own; only the claim list can tell that a valid file is wrong.
#ifndef DRAFORGE_CDI_AUDIT_H_
#define DRAFORGE_CDI_AUDIT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cdi/node_specs.h"
#include "store/cluster.h"

namespace draforge::cdi {

enum class AuditStatus {
  // A ".json" file with one of our prefixes (NodeSpecs::owned_prefixes) whose claim is not
  // allocated on the node: a runtime can still inject its devices. SyncDirectory would remove it.
  kStale,
  // A claim allocated on the node, with a spec built for it, whose file is absent: its containers
  // cannot start. SyncDirectory would write it.
  kMissing,
  // The file exists but differs from the spec the allocation requires (other devices, edits,
  // kind, cdiVersion), or cannot be read or decoded. SyncDirectory would rewrite it.
  kOutOfDate,
  // The claim is on the node but its spec cannot be built (NodeSpecs::failed); its file, if any,
  // is kept as the last good document and is neither stale nor checked.
  kFailed,
};

// "stale", "missing", "out of date", "failed".
std::string_view AuditStatusName(AuditStatus status);

struct AuditFinding {
  AuditStatus status = AuditStatus::kStale;
  std::string file;  // the file name within the directory ("" for a failed claim with no known file)
  // The claim, when known: for a stale file, the ResourceClaim in the snapshot whose UID the file
  // name carries, if any (else only claim_uid is set).
  std::string claim_namespace;
  std::string claim_name;
  std::string claim_uid;
  std::string driver;  // "" for stale files
  // Says why, naming the claim, the node and, for kOutOfDate, each difference
  // ("device \"<name>\" is missing", "device \"<name>\": containerEdits differ", ...).
  std::string message;
};

struct AuditReport {
  std::string node;
  // Our files that are exactly what the allocation requires, sorted.
  std::vector<std::string> in_sync;
  // Sorted by file name (failed claims without a file first), then claim.
  std::vector<AuditFinding> findings;
  // Whether the directory holds exactly what the node's allocations require.
  bool ok() const { return findings.empty(); }
  // How many findings have `status`.
  size_t Count(AuditStatus status) const;
};

// Compares directory `dir` with BuildSpecsForNode(snapshot, node, options): the same options as the
// writer (drivers, rules, max_version) must be given, or its files will read as out of date.
// Only our files are judged: ".json" files whose name starts with an owned prefix; other drivers'
// files, node-level specs and temporary files are ignored (ValidateDirectory reports those).
// Files are compared as decoded specs, so formatting does not matter.
// Errors: those of BuildSpecsForNode (kInvalidArgument), and kNotFound / kPermissionDenied /
// kUnavailable when `dir` cannot be listed. A file that cannot be read is a kOutOfDate finding.
absl::StatusOr<AuditReport> AuditDirectory(const std::string& dir, const store::Snapshot& snapshot,
                                           std::string_view node, const BuildOptions& options = {});

}  // namespace draforge::cdi

#endif  // DRAFORGE_CDI_AUDIT_H_
