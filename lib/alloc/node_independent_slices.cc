#include "alloc/internal/node_independent_slices.h"

#include <algorithm>
#include <string_view>

namespace draforge::alloc::internal {
namespace {

constexpr std::string_view kIn = "In";
constexpr std::string_view kMetadataName = "metadata.name";

// The requirement of `term` that admits only nodes with given values: the first `In` over a label
// (matchExpressions) or over metadata.name (matchFields). Null: the term has none.
const api::NodeSelectorRequirement* IndexableRequirement(const api::NodeSelectorTerm& term, bool* is_name) {
  for (const auto& r : term.match_expressions) {
    if (r.key && r.operator_.value_or("") == kIn) {
      *is_name = false;
      return &r;
    }
  }
  for (const auto& r : term.match_fields) {
    if (r.key.value_or("") == kMetadataName && r.operator_.value_or("") == kIn) {
      *is_name = true;
      return &r;
    }
  }
  return nullptr;
}

}  // namespace

NodeIndependentSlices::NodeIndependentSlices(const store::Snapshot& snapshot) {
  for (const api::ResourceSlice* s : snapshot.ResourceSlices()) {
    if (!s->spec) {
      slices_.push_back({s, std::nullopt});
      continue;
    }
    const api::ResourceSliceSpec& spec = *s->spec;
    if (spec.node_name && !spec.node_name->empty()) continue;
    NodeIndependentSlice entry{s, std::nullopt};
    if (!spec.all_nodes.value_or(false) && spec.node_selector) entry.selector = api::CompileNodeSelector(*spec.node_selector);
    slices_.push_back(std::move(entry));
  }
  for (uint32_t i = 0; i < slices_.size(); ++i) Index(i);
}

void NodeIndependentSlices::Index(uint32_t i) {
  const NodeIndependentSlice& entry = slices_[i];
  // Only a selector that parsed can be indexed: a parse error must reach every node, in order.
  if (!entry.selector || !entry.selector->ok()) {
    always_.push_back(i);
    return;
  }
  const api::NodeSelector& selector = *entry.slice->spec->node_selector;
  std::vector<std::pair<const api::NodeSelectorRequirement*, bool>> requirements;
  for (const api::NodeSelectorTerm& term : selector.node_selector_terms) {
    // A term without requirements selects no node (it is dropped when compiled).
    if (term.match_expressions.empty() && term.match_fields.empty()) continue;
    bool is_name = false;
    const api::NodeSelectorRequirement* r = IndexableRequirement(term, &is_name);
    if (r == nullptr) {
      always_.push_back(i);
      return;
    }
    requirements.emplace_back(r, is_name);
  }
  for (const auto& [r, is_name] : requirements) {
    for (const std::string& value : r->values) {
      std::vector<uint32_t>& list = is_name ? by_name_[value] : by_label_[*r->key][value];
      if (list.empty() || list.back() != i) list.push_back(i);
    }
  }
}

std::vector<const NodeIndependentSlice*> NodeIndependentSlices::For(const NodeInfo& node) const {
  std::vector<uint32_t> ids = always_;
  for (const auto& [key, values] : by_label_) {
    const std::string* value = node.labels.Find(key);
    if (value == nullptr) continue;
    auto it = values.find(*value);
    if (it != values.end()) ids.insert(ids.end(), it->second.begin(), it->second.end());
  }
  if (auto it = by_name_.find(node.name); it != by_name_.end()) ids.insert(ids.end(), it->second.begin(), it->second.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<const NodeIndependentSlice*> out;
  out.reserve(ids.size());
  for (uint32_t i : ids) out.push_back(&slices_[i]);
  return out;
}

}  // namespace draforge::alloc::internal
