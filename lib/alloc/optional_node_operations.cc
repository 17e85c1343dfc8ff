#include "alloc/internal/optional_node_operations.h"

#include <algorithm>

#include "api/codec.h"

namespace draforge::alloc::internal {

std::vector<std::string> DeclaredFeatures(const api::Node& node) {
  std::vector<std::string> out;
  if (!node.status) return out;
  auto doc = api::ParseJson(node.status->json, /*check_duplicate_keys=*/false);
  if (!doc.ok() || !doc->IsObject()) return out;
  auto it = doc->FindMember("declaredFeatures");
  if (it == doc->MemberEnd() || !it->value.IsArray()) return out;
  for (const auto& v : it->value.GetArray()) {
    if (!v.IsString()) return {};
    out.emplace_back(v.GetString(), v.GetStringLength());
  }
  return out;
}

bool SkipNodeOperationsAllowed(const api::ResourceSlice& slice, bool node_declares, const Features& features) {
  if (!slice.spec || slice.spec->skip_node_operations.empty()) return true;
  if (!features.ExperimentalAllocator()) return true;  // see Features::ExperimentalAllocator
  // Gate off: the scheduler cannot promise the kubelet's cooperation, so the devices are not used
  // (rather than allocated with the operations silently performed).
  if (!features.optional_node_operations) return false;
  return node_declares;
}

bool DeclaresOptionalNodeOperations(const NodeInfo& node, const store::Snapshot& snapshot) {
  std::vector<std::string> from_snapshot;
  const std::vector<std::string>* declared = node.declared_features ? &*node.declared_features : nullptr;
  if (declared == nullptr) {
    if (const api::Node* n = snapshot.GetNode(node.name)) from_snapshot = DeclaredFeatures(*n);
    declared = &from_snapshot;
  }
  return std::find(declared->begin(), declared->end(), kOptionalNodeOperationsFeature) != declared->end();
}

bool RequiresOptionalNodeOperations(const api::AllocationResult& allocation) {
  if (!allocation.devices) return false;
  for (const auto& r : allocation.devices->results) {
    if (!r.skip_node_operations.empty()) return true;
  }
  return false;
}

}  // namespace draforge::alloc::internal
