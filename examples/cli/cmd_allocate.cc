// draforge allocate: runs the allocator (lib/alloc) on files, as kube-scheduler would for one node.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "alloc/features.h"
#include "api/codec.h"
#include "commands.h"
#include "output.h"
#include "common/json_string.h"

namespace draforge::cli {
namespace {

constexpr int kExitUnschedulable = 1;

// The claims to allocate: --claim NS/NAME (NAME alone: namespace "default"), or every claim of the
// input without status.allocation, in input order. Prints and returns false when one is missing.
bool SelectClaims(const Flags& flags, const std::vector<InputObject>& inputs, const store::Snapshot& snapshot, Io io,
                  std::vector<const api::ResourceClaim*>& out) {
  if (!flags.All("--claim").empty()) {
    for (const std::string& ref : flags.All("--claim")) {
      const size_t slash = ref.find('/');
      const std::string ns = slash == std::string::npos ? "default" : ref.substr(0, slash);
      const std::string name = slash == std::string::npos ? ref : ref.substr(slash + 1);
      const api::ResourceClaim* c = snapshot.GetResourceClaim(ns, name);
      if (c == nullptr) {
        io.err << "error: --claim: resourceclaim " << ns << "/" << name << " not found in the input\n";
        return false;
      }
      out.push_back(c);
    }
    return true;
  }
  for (const InputObject& in : inputs) {
    if (!in.object.ok() || in.object->kind() != api::Kind::kResourceClaim) continue;
    const auto& meta = in.object->metadata();
    const api::ResourceClaim* c = snapshot.GetResourceClaim(meta.namespace_.value_or("default"), meta.name.value_or(""));
    if (c == nullptr || (c->status && c->status->allocation)) continue;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return true;
}

std::string ClaimKey(const api::ResourceClaim& c) {
  return absl::StrCat(c.metadata.namespace_.value_or("default"), "/", c.metadata.name.value_or(""));
}

}  // namespace

int RunAllocate(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--node"}, true, "the node to allocate for (its labels come from a Node in the input, if any)"});
  specs.push_back({{"--claim"}, true, "NAMESPACE/NAME of a claim to allocate; repeatable; default: every claim "
                                      "without status.allocation, allocated together"});
  specs.push_back({{"--feature-gates"}, true, "A=true,B=false on top of the Kubernetes 1.37 defaults"});
  specs.push_back({{"-o", "--output"}, true, "json (default), yaml or text"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args,
                            specs,
                            "draforge allocate --node NODE [--claim NS/NAME]... [--feature-gates A=true,B=false] "
                            "(-f FILE... | --kubeconfig FILE [--context NAME]) [-o json|yaml|text]",
                            io, code);
  if (!flags) return code;
  const auto format_or = OutputFormat(*flags, "json", {"json", "yaml", "text"}, io);
  if (!format_or) return kExitBadInput;
  const std::string& format = *format_or;
  const std::string node_name = flags->GetOr("--node", "");
  if (node_name.empty()) {
    io.err << "error: --node is required\n";
    return kExitBadInput;
  }
  if (!flags->positional().empty()) {
    io.err << "error: unexpected argument \"" << flags->positional().front() << "\"\n";
    return kExitBadInput;
  }
  auto features = alloc::ParseFeatureGates(flags->GetOr("--feature-gates", ""));
  if (!features.ok()) {
    io.err << "error: --feature-gates: " << features.status().message() << "\n";
    return kExitBadInput;
  }
  store::Cluster cluster;
  auto inputs = LoadIntoCluster(*flags, io, cluster);
  if (!inputs) return kExitBadInput;
  auto snapshot = cluster.snapshot();
  std::vector<const api::ResourceClaim*> claims;
  if (!SelectClaims(*flags, *inputs, *snapshot, io, claims)) return kExitBadInput;
  alloc::NodeInfo node{node_name, {}};
  if (const api::Node* n = snapshot->GetNode(node_name)) node = alloc::NodeInfo::FromNode(*n);

  alloc::AllocateOptions options;
  options.features = *features;
  alloc::AllocateResult result = alloc::Allocate(*snapshot, claims, node, options);
  const int exit = result.outcome == alloc::Outcome::kAllocated       ? kExitOk
                   : result.outcome == alloc::Outcome::kUnschedulable ? kExitUnschedulable
                                                                      : kExitError;
  if (format == "text") {
    io.out << "outcome: " << alloc::OutcomeName(result.outcome) << " (node " << node_name << ", " << claims.size()
           << " claims, " << result.search_steps << " search steps)\n";
    for (size_t i = 0; i < result.allocations.size(); ++i) {
      io.out << ClaimKey(*claims[i]) << ":\n";
      const auto& devices = result.allocations[i].devices;
      if (devices) {
        for (const auto& r : devices->results) {
          io.out << "  " << r.request.value_or("") << " -> " << alloc::ResultDeviceID(r).String()
                 << (r.admin_access.value_or(false) ? " (admin access)" : "")
                 << (r.share_id ? " share " + *r.share_id : "") << "\n";
        }
      }
    }
    for (const auto& r : result.reasons) io.out << "reason: " << r << "\n";
    if (!result.error.ok()) io.out << "error: " << result.error.message() << "\n";
    return exit;
  }
  std::vector<rapidjson::Document> docs(1);
  rapidjson::Document& doc = docs.front();
  doc.SetObject();
  auto& a = doc.GetAllocator();
  const std::string_view outcome = alloc::OutcomeName(result.outcome);
  doc.AddMember("outcome", JsonString(outcome, a), a);
  if (result.outcome == alloc::Outcome::kAllocated) {
    rapidjson::Value allocations(rapidjson::kObjectType);
    for (size_t i = 0; i < result.allocations.size(); ++i) {
      auto encoded = alloc::EncodeAllocationResult(result.allocations[i]);
      if (!encoded.ok()) {
        io.err << "error: " << encoded.status().message() << "\n";
        return kExitError;
      }
      allocations.AddMember(rapidjson::Value(ClaimKey(*claims[i]).c_str(), a), rapidjson::Value(*encoded, a), a);
    }
    doc.AddMember("allocations", allocations, a);
  }
  if (result.outcome == alloc::Outcome::kUnschedulable) {
    rapidjson::Value reasons(rapidjson::kArrayType);
    for (const auto& r : result.reasons) reasons.PushBack(rapidjson::Value(r.c_str(), a), a);
    doc.AddMember("reasons", reasons, a);
  }
  if (result.outcome == alloc::Outcome::kError) {
    const std::string message(result.error.message());
    doc.AddMember("error", rapidjson::Value(message.c_str(), a), a);
  }
  if (absl::Status s = WriteDocuments(docs, format, io.out); !s.ok()) {
    io.err << "error: " << s.message() << "\n";
    return kExitBadInput;
  }
  return exit;
}

}  // namespace draforge::cli
