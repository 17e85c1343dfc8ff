#include "cdi/audit.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cdi/internal/file_io.h"
#include "cdi/spec_codec.h"
#include "common/status.h"

namespace draforge::cdi {
namespace {

constexpr size_t kMaxSpecBytes = size_t{16} << 20;

std::string Q(std::string_view s) { return absl::StrCat("\"", AV(s), "\""); }

// The names of the edit fields that differ ("env, mounts"), so an operator sees what changed.
std::string EditDifferences(const ContainerEdits& have, const ContainerEdits& want) {
  std::vector<std::string> out;
  if (have.env != want.env) out.push_back("env");
  if (have.device_nodes != want.device_nodes) out.push_back("deviceNodes");
  if (have.hooks != want.hooks) out.push_back("hooks");
  if (have.mounts != want.mounts) out.push_back("mounts");
  if (have.intel_rdt != want.intel_rdt) out.push_back("intelRdt");
  if (have.additional_gids != want.additional_gids) out.push_back("additionalGids");
  if (have.net_devices != want.net_devices) out.push_back("netDevices");
  return absl::StrJoin(out, ", ");
}

// Every way `have` (the file) differs from `want` (what the allocation requires), in spec order.
std::vector<std::string> SpecDifferences(const Spec& have, const Spec& want) {
  std::vector<std::string> out;
  if (have.kind != want.kind) out.push_back(absl::StrCat("kind is ", Q(have.kind), ", want ", Q(want.kind)));
  if (have.version != want.version) {
    out.push_back(absl::StrCat("cdiVersion is ", Q(have.version), ", want ", Q(want.version)));
  }
  if (have.annotations != want.annotations) out.push_back("annotations differ");
  if (have.container_edits != want.container_edits) {
    out.push_back(absl::StrCat("containerEdits differ (", EditDifferences(have.container_edits, want.container_edits),
                               ")"));
  }
  std::map<std::string_view, const Device*> present;
  for (const Device& d : have.devices) present.emplace(d.name, &d);
  std::set<std::string_view> wanted;
  for (const Device& d : want.devices) {
    wanted.insert(d.name);
    auto it = present.find(d.name);
    if (it == present.end()) {
      out.push_back(absl::StrCat("device ", Q(d.name), " is missing"));
      continue;
    }
    if (it->second->annotations != d.annotations) out.push_back(absl::StrCat("device ", Q(d.name), ": annotations differ"));
    if (it->second->container_edits != d.container_edits) {
      out.push_back(absl::StrCat("device ", Q(d.name), ": containerEdits differ (",
                                 EditDifferences(it->second->container_edits, d.container_edits), ")"));
    }
  }
  for (const Device& d : have.devices) {
    if (!wanted.contains(d.name)) out.push_back(absl::StrCat("device ", Q(d.name), " is not in the allocation"));
  }
  return out;
}

std::string ClaimRef(std::string_view ns, std::string_view name) {
  return absl::StrCat("ResourceClaim ", AV(ns), "/", AV(name));
}

// Why the claim of a stale file is not on the node, naming it when the snapshot has it.
AuditFinding StaleFinding(const std::string& file, std::string_view uid, const store::Snapshot& snapshot,
                          std::string_view node) {
  AuditFinding f;
  f.status = AuditStatus::kStale;
  f.file = file;
  f.claim_uid = std::string(uid);
  for (const api::ResourceClaim* c : snapshot.ResourceClaims()) {
    if (c->metadata.uid.value_or("") != uid) continue;
    f.claim_namespace = c->metadata.namespace_.value_or("");
    f.claim_name = c->metadata.name.value_or("");
    const bool allocated = c->status && c->status->allocation;
    f.message = absl::StrCat("spec of ", ClaimRef(f.claim_namespace, f.claim_name), " (UID ", AV(uid), "), which ",
                             allocated ? "is no longer allocated on node " : "is not allocated (on node ",
                             allocated ? Q(node) : absl::StrCat(Q(node), " or any other)"));
    return f;
  }
  f.message = absl::StrCat("spec of claim UID ", Q(uid), ", which no ResourceClaim has any more (node ", Q(node),
                           ")");
  return f;
}

}  // namespace

std::string_view AuditStatusName(AuditStatus status) {
  switch (status) {
    case AuditStatus::kStale:
      return "stale";
    case AuditStatus::kMissing:
      return "missing";
    case AuditStatus::kOutOfDate:
      return "out of date";
    case AuditStatus::kFailed:
      return "failed";
  }
  return "unknown";
}

size_t AuditReport::Count(AuditStatus status) const {
  return static_cast<size_t>(
      std::count_if(findings.begin(), findings.end(), [&](const AuditFinding& f) { return f.status == status; }));
}

absl::StatusOr<AuditReport> AuditDirectory(const std::string& dir, const store::Snapshot& snapshot,
                                           std::string_view node, const BuildOptions& options) {
  ASSIGN_OR_RETURN(NodeSpecs built, BuildSpecsForNode(snapshot, node, options));
  ASSIGN_OR_RETURN(std::vector<internal::DirEntry> entries, internal::ListDirectory(dir));
  AuditReport report;
  report.node = std::string(node);

  std::map<std::string, const ClaimSpec*> wanted;
  for (const ClaimSpec& c : built.specs) wanted.emplace(c.file.file_name, &c);
  std::set<std::string> kept;  // files of claims whose spec failed: the last good document stays
  for (const ClaimFailure& f : built.failed) {
    if (!f.file_name.empty()) kept.insert(f.file_name);
    report.findings.push_back({AuditStatus::kFailed, f.file_name, f.claim_namespace, f.claim_name, f.claim_uid,
                               f.driver, f.message});
  }

  std::set<std::string> present;
  for (const internal::DirEntry& e : entries) {
    if (!e.regular || !internal::HasSuffix(e.name, ".json")) continue;
    present.insert(e.name);
    if (auto it = wanted.find(e.name); it != wanted.end()) {
      const ClaimSpec& c = *it->second;
      AuditFinding f{AuditStatus::kOutOfDate, e.name, c.claim_namespace, c.claim_name, c.claim_uid, c.driver, ""};
      const std::string where = absl::StrCat("spec of ", ClaimRef(c.claim_namespace, c.claim_name), " (driver ",
                                             c.driver, ") on node ", Q(node));
      absl::StatusOr<std::string> text = internal::ReadFile(dir + "/" + e.name, kMaxSpecBytes);
      if (!text.ok()) {
        f.message = absl::StrCat(where, ": cannot be read: ", text.status().message());
        report.findings.push_back(std::move(f));
        continue;
      }
      DecodeOptions decode;
      decode.format = FormatForFileName(e.name);
      Spec have;
      if (std::vector<Problem> problems = DecodeSpec(*text, decode, &have); !problems.empty()) {
        f.message = absl::StrCat(where, ": does not decode: ", FormatProblems(problems));
        report.findings.push_back(std::move(f));
        continue;
      }
      std::vector<std::string> diffs = SpecDifferences(have, c.file.spec);
      if (diffs.empty()) {
        report.in_sync.push_back(e.name);
        continue;
      }
      f.message = absl::StrCat(where, ": ", absl::StrJoin(diffs, "; "));
      report.findings.push_back(std::move(f));
      continue;
    }
    if (kept.contains(e.name)) continue;
    for (const std::string& prefix : built.owned_prefixes) {
      if (e.name.size() <= prefix.size() + 5 || e.name.compare(0, prefix.size(), prefix) != 0) continue;
      std::string_view uid = std::string_view(e.name).substr(prefix.size(), e.name.size() - prefix.size() - 5);
      report.findings.push_back(StaleFinding(e.name, uid, snapshot, node));
      break;
    }
  }
  for (const ClaimSpec& c : built.specs) {
    if (present.contains(c.file.file_name)) continue;
    report.findings.push_back({AuditStatus::kMissing, c.file.file_name, c.claim_namespace, c.claim_name, c.claim_uid,
                               c.driver,
                               absl::StrCat(ClaimRef(c.claim_namespace, c.claim_name), " is allocated on node ",
                                            Q(node), " but its spec file (driver ", c.driver, ") is absent")});
  }
  std::stable_sort(report.findings.begin(), report.findings.end(), [](const AuditFinding& a, const AuditFinding& b) {
    return std::tie(a.file, a.claim_namespace, a.claim_name) < std::tie(b.file, b.claim_namespace, b.claim_name);
  });
  return report;
}

}  // namespace draforge::cdi
