// draforge allocate: runs the allocator (draforge_allocate) on files, as kube-scheduler would for one node.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "output.h"
#include "rapidjson/document.h"

namespace draforge::cli {
namespace {

constexpr int kExitUnschedulable = 1;

// "ns/name" of a claim reference or object key; a name alone is in namespace "default".
std::string ClaimKey(std::string_view ref) {
  return ref.find('/') == std::string_view::npos ? "default/" + std::string(ref) : std::string(ref);
}

// The claim `key` as stored in `snapshot`, parsed; nullopt when it is not stored.
std::optional<rapidjson::Document> StoredClaim(const draforge::Snapshot& snapshot, const std::string& key) {
  const size_t slash = key.find('/');
  auto json = snapshot.GetJson("ResourceClaim", key.substr(0, slash), key.substr(slash + 1));
  if (!json.ok()) return std::nullopt;
  rapidjson::Document doc;
  doc.Parse(json->data(), json->size());
  return doc;
}

// The claims to allocate: --claim NS/NAME (NAME alone: namespace "default"), or every claim of the
// input without status.allocation, in input order. Prints and returns false when one is missing.
bool SelectClaims(const Flags& flags, const ClusterInputs& loaded, Io io, std::vector<std::string>& out) {
  if (!flags.All("--claim").empty()) {
    for (const std::string& ref : flags.All("--claim")) {
      const std::string key = ClaimKey(ref);
      if (!StoredClaim(loaded.snapshot, key)) {
        io.err << "error: --claim: resourceclaim " << key << " not found in the input\n";
        return false;
      }
      out.push_back(key);
    }
    return true;
  }
  const draforge::Objects& objects = loaded.inputs.objects;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (objects.kind(i) != "ResourceClaim") continue;
    const std::string key = ClaimKey(objects.key(i));
    auto claim = StoredClaim(loaded.snapshot, key);
    if (!claim) continue;
    const auto status = claim->FindMember("status");
    if (status != claim->MemberEnd() && status->value.IsObject() && status->value.HasMember("allocation")) continue;
    if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  }
  return true;
}

// "  request -> driver/pool/device (admin access) share ID" lines of a status.allocation.
void WriteResults(const rapidjson::Value& allocation, std::ostream& out) {
  if (!allocation.HasMember("devices") || !allocation["devices"].HasMember("results")) return;
  auto str = [](const rapidjson::Value& v, const char* k) {
    return v.HasMember(k) && v[k].IsString() ? std::string(v[k].GetString()) : std::string();
  };
  for (const auto& r : allocation["devices"]["results"].GetArray()) {
    const bool admin = r.HasMember("adminAccess") && r["adminAccess"].IsBool() && r["adminAccess"].GetBool();
    out << "  " << str(r, "request") << " -> " << str(r, "driver") << "/" << str(r, "pool") << "/" << str(r, "device")
        << (admin ? " (admin access)" : "") << (r.HasMember("shareID") ? " share " + str(r, "shareID") : "") << "\n";
  }
}

}  // namespace

int RunAllocate(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--node"}, true, "the node to allocate for (its labels come from a Node in the input, if any)"});
  specs.push_back({{"--claim"}, true, "NAMESPACE/NAME of a claim to allocate; repeatable; default: every claim "
                                      "without status.allocation, allocated together"});
  specs.push_back({{"--feature-gates"}, true, "A=true,B=false on top of the Kubernetes version's defaults"});
  specs.push_back(KubernetesVersionFlag());
  specs.push_back({{"-o", "--output"}, true, "json (default), yaml or text"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args,
                            specs,
                            "draforge allocate --node NODE [--claim NS/NAME]... [--feature-gates A=true,B=false] "
                            "[--kubernetes-version 1.3X] "
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
  draforge::AllocateOptions options;
  auto loaded = LoadClusterForAllocation(*flags, io, options);
  if (!loaded) return kExitBadInput;
  std::vector<std::string> claims;
  if (!SelectClaims(*flags, *loaded, io, claims)) return kExitBadInput;
  // No claim to allocate (every claim of the input already has one): nothing to search, allocated.
  std::optional<draforge::Result<draforge::AllocationResult>> result;
  if (!claims.empty()) result = draforge::Allocate(loaded->snapshot, claims, node_name, options);
  const bool failed = result && !result->ok();
  // The allocator's own failures (a CEL runtime error, a missing DeviceClass) are the "error" outcome.
  const std::string outcome = failed ? "error" : !result || (*result)->allocated() ? "allocated" : "unschedulable";
  const int exit = outcome == "allocated" ? kExitOk : outcome == "unschedulable" ? kExitUnschedulable : kExitError;
  std::vector<rapidjson::Document> allocations;
  if (result && !failed && (*result)->allocated()) {
    for (size_t i = 0; i < (*result)->claim_count(); ++i) {
      auto json = (*result)->AllocationJson(i);
      if (!json.ok()) {
        io.err << "error: " << json.error().message << "\n";
        return kExitError;
      }
      allocations.emplace_back().Parse(json->data(), json->size());
    }
  }
  const std::vector<std::string> reasons = result && !failed ? (*result)->reasons() : std::vector<std::string>();
  if (format == "text") {
    io.out << "outcome: " << outcome << " (node " << node_name << ", " << claims.size() << " claims, "
           << (result && !failed ? (*result)->search_steps() : 0) << " search steps)\n";
    for (size_t i = 0; i < allocations.size(); ++i) {
      io.out << claims[i] << ":\n";
      WriteResults(allocations[i], io.out);
    }
    for (const auto& r : reasons) io.out << "reason: " << r << "\n";
    if (failed) io.out << "error: " << result->error().message << "\n";
    return exit;
  }
  std::vector<rapidjson::Document> docs(1);
  rapidjson::Document& doc = docs.front();
  doc.SetObject();
  auto& a = doc.GetAllocator();
  doc.AddMember("outcome", rapidjson::Value(outcome.c_str(), a), a);
  if (outcome == "allocated") {
    rapidjson::Value by_claim(rapidjson::kObjectType);
    for (size_t i = 0; i < allocations.size(); ++i) {
      by_claim.AddMember(rapidjson::Value(claims[i].c_str(), a), rapidjson::Value(allocations[i], a), a);
    }
    doc.AddMember("allocations", by_claim, a);
  }
  if (outcome == "unschedulable") {
    rapidjson::Value list(rapidjson::kArrayType);
    for (const auto& r : reasons) list.PushBack(rapidjson::Value(r.c_str(), a), a);
    doc.AddMember("reasons", list, a);
  }
  if (failed) doc.AddMember("error", rapidjson::Value(result->error().message.c_str(), a), a);
  if (auto printed = PrintDocuments(docs, format, io.out); !printed.ok()) {
    io.err << "error: " << printed.error().message << "\n";
    return kExitBadInput;
  }
  return exit;
}

}  // namespace draforge::cli
