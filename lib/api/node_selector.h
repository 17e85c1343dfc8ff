// core/v1 NodeSelector as DRA uses it (ResourceSlice, Device, AllocationResult).
#ifndef DRAFORGE_API_NODE_SELECTOR_H_
#define DRAFORGE_API_NODE_SELECTOR_H_

#include <optional>
#include <string>
#include <vector>

#include "api/empty_spelling.h"

namespace draforge::api {

struct NodeSelectorRequirement {
  std::optional<std::string> key;
  std::optional<std::string> operator_;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
  friend bool operator==(const NodeSelectorRequirement&, const NodeSelectorRequirement&) = default;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

// Terms are ORed; the requirements of one term are ANDed.
struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;
  EmptySpelling node_selector_terms_spelling = EmptySpelling::kAbsent;  // no omitempty
  friend bool operator==(const NodeSelector&, const NodeSelector&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_NODE_SELECTOR_H_
