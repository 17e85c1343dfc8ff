#include "api/labels.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/qualified_name.h"
#include "api/validation.h"
#include "common/status.h"

namespace draforge::api {
namespace {

std::string Join(std::string_view path, std::string_view child) {
  if (path.empty()) return std::string(child);
  return absl::StrCat(AV(path), ".", AV(child));
}

std::string JsonStringList(const std::vector<std::string>& values) {
  if (values.empty()) return "null";
  std::vector<std::string> quoted;
  for (const auto& v : values) quoted.push_back(GoJsonQuote(v));
  return absl::StrCat("[", absl::StrJoin(quoted, ","), "]");
}

// errors.Flatten(NewAggregate(errs)).Error(): one message as is, several in brackets, repeats once.
absl::Status AggregateError(const std::vector<std::string>& errs) {
  std::vector<std::string> unique;
  for (const auto& e : errs) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) unique.push_back(e);
  }
  if (unique.size() == 1) return absl::InvalidArgumentError(unique[0]);
  return absl::InvalidArgumentError(absl::StrCat("[", absl::StrJoin(unique, ", "), "]"));
}

std::optional<LabelOperator> OperatorFromName(std::string_view op) {
  if (op == "In") return LabelOperator::kIn;
  if (op == "NotIn") return LabelOperator::kNotIn;
  if (op == "Exists") return LabelOperator::kExists;
  if (op == "DoesNotExist") return LabelOperator::kDoesNotExist;
  if (op == "Gt") return LabelOperator::kGt;
  if (op == "Lt") return LabelOperator::kLt;
  return std::nullopt;
}

// The messages of labels.NewRequirement for one requirement (empty when it parses).
std::vector<std::string> RequirementErrors(const std::string& key, LabelOperator op,
                                           const std::vector<std::string>& values, std::string_view path) {
  std::vector<std::string> errs;
  if (auto msgs = IsQualifiedName(key); !msgs.empty()) {
    errs.push_back(absl::StrCat(Join(path, "key"), ": Invalid value: ", GoQuote(key), ": ", absl::StrJoin(msgs, "; ")));
  }
  const std::string values_path = Join(path, "values");
  switch (op) {
    case LabelOperator::kIn:
    case LabelOperator::kNotIn:
      if (values.empty()) {
        errs.push_back(absl::StrCat(values_path, ": Invalid value: ", JsonStringList(values),
                                    ": for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case LabelOperator::kExists:
    case LabelOperator::kDoesNotExist:
      if (!values.empty()) {
        errs.push_back(absl::StrCat(values_path, ": Invalid value: ", JsonStringList(values),
                                    ": values set must be empty for exists and does not exist"));
      }
      break;
    case LabelOperator::kGt:
    case LabelOperator::kLt:
      if (values.size() != 1) {
        errs.push_back(absl::StrCat(values_path, ": Invalid value: ", JsonStringList(values),
                                    ": for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (size_t i = 0; i < values.size(); ++i) {
        if (!ParseGoInt64(values[i])) {
          errs.push_back(absl::StrCat(values_path, "[", i, "]: Invalid value: ", GoQuote(values[i]),
                                      ": for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (auto msgs = IsValidLabelValue(values[i]); !msgs.empty()) {
      errs.push_back(absl::StrCat(values_path, "[", i, "][", key, "]: Invalid value: ", GoQuote(values[i]), ": ",
                                  absl::StrJoin(msgs, "; ")));
    }
  }
  return errs;
}

constexpr char kSupportedOperators[] =
    "supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"";

// Parses one matchExpressions entry; appends messages to `errs` on failure.
std::optional<LabelRequirement> ParseExpression(const NodeSelectorRequirement& r, std::string_view path,
                                                std::vector<std::string>& errs) {
  const std::string op_name = r.operator_.value_or("");
  const auto op = OperatorFromName(op_name);
  if (!op) {
    errs.push_back(absl::StrCat(Join(path, "operator"), ": Unsupported value: ", GoQuote(op_name), ": ", kSupportedOperators));
    return std::nullopt;
  }
  LabelRequirement req;
  req.key = r.key.value_or("");
  req.op = *op;
  req.values = r.values;
  std::vector<std::string> msgs = RequirementErrors(req.key, req.op, req.values, path);
  if (!msgs.empty()) {
    for (auto& m : msgs) errs.push_back(std::move(m));
    return std::nullopt;
  }
  if (req.op == LabelOperator::kGt || req.op == LabelOperator::kLt) req.bound = ParseGoInt64(req.values[0]);
  return req;
}

std::optional<FieldRequirement> ParseField(const NodeSelectorRequirement& r, std::string_view path,
                                           std::vector<std::string>& errs) {
  const std::string op = r.operator_.value_or("");
  if (op != "In" && op != "NotIn") {
    errs.push_back(absl::StrCat(Join(path, "operator"), ": Unsupported value: ", GoQuote(op),
                                ": supported values: \"In\", \"NotIn\""));
    return std::nullopt;
  }
  if (r.values.size() != 1) {
    errs.push_back(absl::StrCat(Join(path, "values"), ": Invalid value: ", JsonStringList(r.values), ": must have one element"));
    return std::nullopt;
  }
  return FieldRequirement{r.key.value_or(""), op == "NotIn", r.values[0]};
}

}  // namespace

std::string_view LabelOperatorName(LabelOperator op) {
  switch (op) {
    case LabelOperator::kIn:
      return "In";
    case LabelOperator::kNotIn:
      return "NotIn";
    case LabelOperator::kExists:
      return "Exists";
    case LabelOperator::kDoesNotExist:
      return "DoesNotExist";
    case LabelOperator::kGt:
      return "Gt";
    case LabelOperator::kLt:
      return "Lt";
  }
  return "";
}

std::optional<int64_t> ParseGoInt64(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    i = 1;
  }
  if (i == text.size()) return std::nullopt;
  // Accumulate as a negative number so that INT64_MIN fits.
  int64_t value = 0;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return std::nullopt;
    const int digit = c - '0';
    if (value < (kMin + digit) / 10) return std::nullopt;
    value = value * 10 - digit;
  }
  if (!negative) {
    if (value == kMin) return std::nullopt;
    return -value;
  }
  return value;
}

bool LabelRequirement::Matches(const Map<std::string>& labels) const {
  const std::string* value = labels.Find(key);
  switch (op) {
    case LabelOperator::kIn:
      return value != nullptr && std::find(values.begin(), values.end(), *value) != values.end();
    case LabelOperator::kNotIn:
      return value == nullptr || std::find(values.begin(), values.end(), *value) == values.end();
    case LabelOperator::kExists:
      return value != nullptr;
    case LabelOperator::kDoesNotExist:
      return value == nullptr;
    case LabelOperator::kGt:
    case LabelOperator::kLt: {
      if (value == nullptr || values.size() != 1) return false;
      const auto have = ParseGoInt64(*value);
      const auto want = bound ? bound : ParseGoInt64(values[0]);
      if (!have || !want) return false;
      return op == LabelOperator::kGt ? *have > *want : *have < *want;
    }
  }
  return false;
}

absl::StatusOr<LabelRequirement> ParseLabelRequirement(const NodeSelectorRequirement& requirement,
                                                       std::string_view path) {
  std::vector<std::string> errs;
  auto req = ParseExpression(requirement, path, errs);
  if (!req) return AggregateError(errs);
  return *std::move(req);
}

bool CompiledNodeSelector::TermMatches(const Term& term, const Map<std::string>& node_labels,
                                       std::string_view node_name) {
  if (!term.parse_errors.empty()) return false;
  if (term.has_labels) {
    for (const auto& r : term.labels) {
      if (!r.Matches(node_labels)) return false;
    }
  }
  // nodeaffinity only evaluates field requirements for nodes that have a name.
  if (term.has_fields && !node_name.empty()) {
    for (const auto& f : term.fields) {
      const std::string_view have = f.key == "metadata.name" ? node_name : std::string_view();
      if ((have == f.value) == f.negate) return false;
    }
  }
  return true;
}

bool CompiledNodeSelector::Matches(const Map<std::string>& node_labels, std::string_view node_name) const {
  for (const auto& term : terms_) {
    if (TermMatches(term, node_labels, node_name)) return true;
  }
  return false;
}

std::vector<CompiledNodeSelector::Term> CompiledNodeSelector::ParseTerms(const NodeSelector& selector) {
  std::vector<Term> terms;
  for (size_t i = 0; i < selector.node_selector_terms.size(); ++i) {
    const NodeSelectorTerm& t = selector.node_selector_terms[i];
    if (t.match_expressions.empty() && t.match_fields.empty()) continue;
    const std::string path = absl::StrCat("nodeSelectorTerms[", i, "]");
    Term term;
    if (!t.match_expressions.empty()) {
      term.has_labels = true;
      for (size_t j = 0; j < t.match_expressions.size(); ++j) {
        auto r = ParseExpression(t.match_expressions[j], absl::StrCat(path, ".matchExpressions[", j, "]"), term.parse_errors);
        if (r) term.labels.push_back(*std::move(r));
      }
    }
    if (!t.match_fields.empty()) {
      term.has_fields = true;
      for (size_t j = 0; j < t.match_fields.size(); ++j) {
        auto f = ParseField(t.match_fields[j], absl::StrCat(path, ".matchFields[", j, "]"), term.parse_errors);
        if (f) term.fields.push_back(*std::move(f));
      }
    }
    terms.push_back(std::move(term));
  }
  return terms;
}

absl::StatusOr<CompiledNodeSelector> CompileNodeSelector(const NodeSelector& selector) {
  CompiledNodeSelector compiled;
  compiled.terms_ = CompiledNodeSelector::ParseTerms(selector);
  std::vector<std::string> errs;
  for (const auto& term : compiled.terms_) {
    for (const auto& e : term.parse_errors) errs.push_back(e);
  }
  if (!errs.empty()) return AggregateError(errs);
  return compiled;
}

CompiledNodeSelector CompileNodeSelectorLazily(const NodeSelector& selector) {
  CompiledNodeSelector compiled;
  compiled.terms_ = CompiledNodeSelector::ParseTerms(selector);
  return compiled;
}

absl::StatusOr<bool> MatchNodeSelectorLazily(const NodeSelector& selector, const Map<std::string>& node_labels,
                                             std::string_view node_name) {
  CompiledNodeSelector compiled;
  compiled.terms_ = CompiledNodeSelector::ParseTerms(selector);
  std::vector<std::string> errs;
  for (const auto& term : compiled.terms_) {
    if (!term.parse_errors.empty()) {
      for (const auto& e : term.parse_errors) errs.push_back(e);
      continue;
    }
    if (CompiledNodeSelector::TermMatches(term, node_labels, node_name)) return true;
  }
  if (!errs.empty()) return AggregateError(errs);
  return false;
}

bool MatchesNodeSelector(const NodeSelector& selector, const Map<std::string>& node_labels,
                         std::string_view node_name) {
  auto matched = MatchNodeSelectorLazily(selector, node_labels, node_name);
  return matched.ok() && *matched;
}

}  // namespace draforge::api
