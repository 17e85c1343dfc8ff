// Label requirements and node selectors, matched exactly as Kubernetes matches them
// (k8s.io/apimachinery/pkg/labels and k8s.io/component-helpers/scheduling/corev1/nodeaffinity,
// which the DRA allocator uses for ResourceSlice and device node selectors).
//
// Semantics implemented (nodeaffinity.NodeSelector):
//   * The terms of a NodeSelector are ORed; the requirements of one term (matchExpressions and
//     matchFields) are ANDed.
//   * A NodeSelector with no terms matches no node. A term with neither matchExpressions nor
//     matchFields is skipped, i.e. it matches no node (it does not match every node).
//   * matchExpressions operators: In, NotIn, Exists, DoesNotExist, Gt, Lt. NotIn and DoesNotExist
//     match a node that lacks the label. Gt/Lt parse the node's label value and the single
//     requirement value as base-10 int64 with Go's strconv.ParseInt rules (optional sign, digits
//     only, no overflow); a node whose value does not parse does not match.
//   * matchFields supports In and NotIn with exactly one value. The only field a node has is
//     metadata.name: a requirement on any other key compares against "" (so `In [""]` matches and
//     `NotIn ["x"]` matches). Upstream quirk kept: when the node name is empty, matchFields are not
//     evaluated at all.
//   * Parsing (CompileNodeSelector) fails for an unsupported operator, a bad label key, a wrong
//     number of values, a non-integer Gt/Lt value or an invalid label value, with the messages of
//     labels.NewRequirement / nodeaffinity. The DRA allocator parses selectors strictly (an error
//     aborts scheduling); the scheduler's lazy form skips unparsable terms. MatchesNodeSelector
//     uses the lazy form and returns false for a selector none of whose parsable terms match.
#ifndef DRAFORGE_API_LABELS_H_
#define DRAFORGE_API_LABELS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/map.h"
#include "api/node_selector.h"

namespace draforge::api {

enum class LabelOperator { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

// Kubernetes' spelling of `op` in node selectors ("In", ..., "Gt", "Lt").
std::string_view LabelOperatorName(LabelOperator op);

// Parses `text` as Go's strconv.ParseInt(text, 10, 64) does; nullopt for anything it rejects
// ("", "+", "1_000", " 1", "9223372036854775808").
std::optional<int64_t> ParseGoInt64(std::string_view text);

// One parsed label requirement (labels.Requirement).
struct LabelRequirement {
  std::string key;
  LabelOperator op = LabelOperator::kIn;
  std::vector<std::string> values;
  std::optional<int64_t> bound;  // the parsed value for Gt / Lt

  // Whether `labels` satisfy the requirement.
  bool Matches(const Map<std::string>& labels) const;
};

// Parses a matchExpressions entry (labels.NewRequirement after nodeaffinity's operator mapping).
// `path` prefixes the field paths of the error ("nodeSelectorTerms[0].matchExpressions[1]").
// Errors (kInvalidArgument) carry Kubernetes' aggregated field errors, e.g.
// `key: Invalid value: "a b": name part must consist of ...` or
// `operator: Unsupported value: "Foo": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`.
absl::StatusOr<LabelRequirement> ParseLabelRequirement(const NodeSelectorRequirement& requirement,
                                                       std::string_view path = {});

// One parsed node field requirement: metadata.name In/NotIn one value.
struct FieldRequirement {
  std::string key;
  bool negate = false;  // NotIn
  std::string value;
};

// A node selector parsed once and matched many times (nodeaffinity.NodeSelector). Copyable.
class CompiledNodeSelector {
 public:
  // True when at least one term matches the node. `node_name` is metadata.name.
  bool Matches(const Map<std::string>& node_labels, std::string_view node_name) const;
  // Number of terms that take part in matching (empty terms are dropped).
  size_t term_count() const { return terms_.size(); }

 private:
  friend absl::StatusOr<CompiledNodeSelector> CompileNodeSelector(const NodeSelector& selector);
  friend CompiledNodeSelector CompileNodeSelectorLazily(const NodeSelector& selector);
  friend absl::StatusOr<bool> MatchNodeSelectorLazily(const NodeSelector& selector,
                                                      const Map<std::string>& node_labels, std::string_view node_name);
  struct Term {
    bool has_labels = false;
    std::vector<LabelRequirement> labels;
    bool has_fields = false;
    std::vector<FieldRequirement> fields;
    std::vector<std::string> parse_errors;  // empty in a selector returned by CompileNodeSelector
  };
  static bool TermMatches(const Term& term, const Map<std::string>& node_labels, std::string_view node_name);
  // Parses the non-empty terms, keeping each term's parse errors (NewLazyErrorNodeSelector).
  static std::vector<Term> ParseTerms(const NodeSelector& selector);
  std::vector<Term> terms_;
};

// Parses every term strictly (nodeaffinity.NewNodeSelector): any unparsable requirement is an error
// (kInvalidArgument) listing all problems as Kubernetes does
// ("[nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: ..., ...]").
absl::StatusOr<CompiledNodeSelector> CompileNodeSelector(const NodeSelector& selector);

// Parses the terms lazily (nodeaffinity.NewLazyErrorNodeSelector, as kube-scheduler's NodeAffinity
// filter reads a pod's required affinity): a term that does not parse never matches, the others are
// matched normally. Never fails; parse once, match many nodes.
CompiledNodeSelector CompileNodeSelectorLazily(const NodeSelector& selector);

// Lazy evaluation (nodeaffinity.LazyErrorNodeSelector): terms that do not parse never match, the
// others are evaluated normally. Returns true if a term matches; otherwise false, or the parse
// errors of the skipped terms when there were any.
absl::StatusOr<bool> MatchNodeSelectorLazily(const NodeSelector& selector, const Map<std::string>& node_labels,
                                             std::string_view node_name);

// Whether a node with these labels and this name is selected. Terms that do not parse count as not
// matching (the lazy semantics above, ignoring the error). Use CompileNodeSelector to match many
// nodes or to see parse errors.
bool MatchesNodeSelector(const NodeSelector& selector, const Map<std::string>& node_labels,
                         std::string_view node_name);

}  // namespace draforge::api

#endif  // DRAFORGE_API_LABELS_H_
