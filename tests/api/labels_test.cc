// Tests for lib/api/labels.h. Matching results and error messages were compared with
// k8s.io/component-helpers/scheduling/corev1/nodeaffinity v0.37.2 on the same inputs.
#include "api/labels.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draforge::api {
namespace {

NodeSelectorRequirement Req(std::string key, std::string op, std::vector<std::string> values = {}) {
  return NodeSelectorRequirement{std::move(key), std::move(op), std::move(values)};
}

NodeSelectorTerm Expr(std::vector<NodeSelectorRequirement> exprs) {
  NodeSelectorTerm t;
  t.match_expressions = std::move(exprs);
  return t;
}

NodeSelectorTerm Fields(std::vector<NodeSelectorRequirement> fields) {
  NodeSelectorTerm t;
  t.match_fields = std::move(fields);
  return t;
}

NodeSelector Sel(std::vector<NodeSelectorTerm> terms) { return NodeSelector{std::move(terms)}; }

const Map<std::string>& Labels() {
  static const Map<std::string> kLabels = {{"zone", "a"}, {"gen", "5"},  {"neg", "-3"}, {"plus", "+7"},
                                           {"txt", "x"},  {"empty", ""}, {"big", "9223372036854775807"}};
  return kLabels;
}

bool Matches(const NodeSelector& s, std::string_view node = "node-1") { return MatchesNodeSelector(s, Labels(), node); }

// ---- ParseGoInt64 ------------------------------------------------------------------------------------

TEST(ParseGoInt64Test, Accepts) {
  EXPECT_EQ(ParseGoInt64("0"), 0);
  EXPECT_EQ(ParseGoInt64("42"), 42);
  EXPECT_EQ(ParseGoInt64("+7"), 7);
  EXPECT_EQ(ParseGoInt64("-3"), -3);
  EXPECT_EQ(ParseGoInt64("007"), 7);
  EXPECT_EQ(ParseGoInt64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseGoInt64("-9223372036854775808"), INT64_MIN);
}

TEST(ParseGoInt64Test, Rejects) {
  for (const char* v : {"", "+", "-", " 1", "1 ", "1_000", "4.0", "0x10", "9223372036854775808", "-9223372036854775809",
                        "99999999999999999999"}) {
    EXPECT_FALSE(ParseGoInt64(v).has_value()) << v;
  }
}

// ---- Requirements -----------------------------------------------------------------------------------------

TEST(LabelRequirementTest, InAndNotIn) {
  auto in = ParseLabelRequirement(Req("zone", "In", {"a", "b"}));
  ASSERT_TRUE(in.ok());
  EXPECT_TRUE(in->Matches(Labels()));
  auto in_missing = ParseLabelRequirement(Req("missing", "In", {"a"}));
  ASSERT_TRUE(in_missing.ok());
  EXPECT_FALSE(in_missing->Matches(Labels()));
  auto not_in = ParseLabelRequirement(Req("zone", "NotIn", {"a"}));
  ASSERT_TRUE(not_in.ok());
  EXPECT_FALSE(not_in->Matches(Labels()));
  auto not_in_missing = ParseLabelRequirement(Req("missing", "NotIn", {"a"}));
  ASSERT_TRUE(not_in_missing.ok());
  EXPECT_TRUE(not_in_missing->Matches(Labels()));  // a missing label is "not in"
}

TEST(LabelRequirementTest, ExistsAndDoesNotExist) {
  EXPECT_TRUE(ParseLabelRequirement(Req("empty", "Exists"))->Matches(Labels()));
  EXPECT_FALSE(ParseLabelRequirement(Req("missing", "Exists"))->Matches(Labels()));
  EXPECT_TRUE(ParseLabelRequirement(Req("missing", "DoesNotExist"))->Matches(Labels()));
  EXPECT_FALSE(ParseLabelRequirement(Req("zone", "DoesNotExist"))->Matches(Labels()));
}

TEST(LabelRequirementTest, GtAndLtAreIntegerComparisons) {
  EXPECT_TRUE(ParseLabelRequirement(Req("gen", "Gt", {"4"}))->Matches(Labels()));
  EXPECT_FALSE(ParseLabelRequirement(Req("gen", "Gt", {"5"}))->Matches(Labels()));
  EXPECT_TRUE(ParseLabelRequirement(Req("gen", "Lt", {"6"}))->Matches(Labels()));
  EXPECT_TRUE(ParseLabelRequirement(Req("neg", "Lt", {"0"}))->Matches(Labels()));  // node label "-3"
  EXPECT_TRUE(ParseLabelRequirement(Req("plus", "Gt", {"6"}))->Matches(Labels()));
  EXPECT_TRUE(ParseLabelRequirement(Req("big", "Gt", {"9223372036854775806"}))->Matches(Labels()));
}

TEST(LabelRequirementTest, SignedBoundsAreNotValidLabelValues) {
  // ParseInt accepts them, but every value must also be a valid label value.
  EXPECT_FALSE(ParseLabelRequirement(Req("neg", "Lt", {"-2"})).ok());
  EXPECT_FALSE(ParseLabelRequirement(Req("gen", "Gt", {"+4"})).ok());
}

TEST(LabelRequirementTest, GtOnNonNumericOrMissingLabelDoesNotMatch) {
  EXPECT_FALSE(ParseLabelRequirement(Req("txt", "Gt", {"1"}))->Matches(Labels()));
  EXPECT_FALSE(ParseLabelRequirement(Req("missing", "Lt", {"1"}))->Matches(Labels()));
}

TEST(LabelRequirementTest, OperatorNames) {
  EXPECT_EQ(ParseLabelRequirement(Req("zone", "DoesNotExist"))->op, LabelOperator::kDoesNotExist);
  EXPECT_EQ(LabelOperatorName(LabelOperator::kGt), "Gt");
  EXPECT_EQ(LabelOperatorName(LabelOperator::kNotIn), "NotIn");
}

TEST(ParseLabelRequirementTest, UnsupportedOperator) {
  auto r = ParseLabelRequirement(Req("zone", "Bogus", {"a"}), "nodeSelectorTerms[0].matchExpressions[0]");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: \"Bogus\": supported values: \"In\", "
            "\"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"");
}

TEST(ParseLabelRequirementTest, ValueCountErrors) {
  EXPECT_EQ(ParseLabelRequirement(Req("zone", "In")).status().message(),
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty");
  EXPECT_EQ(ParseLabelRequirement(Req("zone", "Exists", {"a"})).status().message(),
            "values: Invalid value: [\"a\"]: values set must be empty for exists and does not exist");
  EXPECT_EQ(ParseLabelRequirement(Req("gen", "Gt", {"1", "2"})).status().message(),
            "values: Invalid value: [\"1\",\"2\"]: for 'Gt', 'Lt' operators, exactly one value is required");
}

TEST(ParseLabelRequirementTest, GtValueMustBeInteger) {
  EXPECT_EQ(ParseLabelRequirement(Req("gen", "Gt", {"4.0"})).status().message(),
            "values[0]: Invalid value: \"4.0\": for 'Gt', 'Lt' operators, the value must be an integer");
}

TEST(ParseLabelRequirementTest, BadKeyAndValues) {
  auto r = ParseLabelRequirement(Req("a/b/c", "In", {"bad value", std::string(64, 'x')}));
  ASSERT_FALSE(r.ok());
  const std::string msg(r.status().message());
  EXPECT_THAT(msg, ::testing::StartsWith("[key: Invalid value: \"a/b/c\": a valid label key must consist of"));
  EXPECT_THAT(msg, ::testing::HasSubstr(", values[0][a/b/c]: Invalid value: \"bad value\": a valid label must be"));
  EXPECT_THAT(msg, ::testing::EndsWith("values[1][a/b/c]: Invalid value: \"" + std::string(64, 'x') +
                                       "\": must be no more than 63 bytes]"));
}

// ---- Node selectors ---------------------------------------------------------------------------------------------

TEST(NodeSelectorTest, NoTermsMatchesNothing) { EXPECT_FALSE(Matches(Sel({}))); }

TEST(NodeSelectorTest, EmptyTermMatchesNothing) {
  EXPECT_FALSE(Matches(Sel({NodeSelectorTerm{}})));
  // An empty term is skipped, not a match-all, so another term still decides.
  EXPECT_TRUE(Matches(Sel({NodeSelectorTerm{}, Expr({Req("zone", "In", {"a"})})})));
}

TEST(NodeSelectorTest, TermsAreOred) {
  EXPECT_TRUE(Matches(Sel({Expr({Req("zone", "In", {"b"})}), Expr({Req("gen", "In", {"5"})})})));
  EXPECT_FALSE(Matches(Sel({Expr({Req("zone", "In", {"b"})}), Expr({Req("gen", "In", {"6"})})})));
}

TEST(NodeSelectorTest, RequirementsAreAnded) {
  EXPECT_TRUE(Matches(Sel({Expr({Req("zone", "In", {"a"}), Req("gen", "Gt", {"1"})})})));
  EXPECT_FALSE(Matches(Sel({Expr({Req("zone", "In", {"a"}), Req("gen", "Gt", {"10"})})})));
}

TEST(NodeSelectorTest, MatchFieldsOnNodeName) {
  EXPECT_TRUE(Matches(Sel({Fields({Req("metadata.name", "In", {"node-1"})})})));
  EXPECT_FALSE(Matches(Sel({Fields({Req("metadata.name", "In", {"other"})})})));
  EXPECT_FALSE(Matches(Sel({Fields({Req("metadata.name", "NotIn", {"node-1"})})})));
  EXPECT_TRUE(Matches(Sel({Fields({Req("metadata.name", "NotIn", {"other"})})})));
}

TEST(NodeSelectorTest, UnknownFieldComparesAgainstEmpty) {
  EXPECT_TRUE(Matches(Sel({Fields({Req("metadata.uid", "In", {""})})})));
  EXPECT_TRUE(Matches(Sel({Fields({Req("metadata.uid", "NotIn", {"x"})})})));
  EXPECT_FALSE(Matches(Sel({Fields({Req("metadata.uid", "In", {"x"})})})));
}

TEST(NodeSelectorTest, FieldsIgnoredForNodeWithoutName) {
  EXPECT_TRUE(Matches(Sel({Fields({Req("metadata.name", "In", {"other"})})}), ""));
}

TEST(NodeSelectorTest, LabelsAndFieldsInOneTerm) {
  NodeSelectorTerm t = Expr({Req("zone", "In", {"a"})});
  t.match_fields.push_back(Req("metadata.name", "In", {"other"}));
  EXPECT_FALSE(Matches(Sel({t})));
  t.match_fields[0].values = {"node-1"};
  EXPECT_TRUE(Matches(Sel({t})));
}

TEST(NodeSelectorTest, UnparsableTermIsSkippedLazily) {
  NodeSelector s = Sel({Expr({Req("zone", "Bogus", {"a"})}), Expr({Req("zone", "In", {"a"})})});
  EXPECT_TRUE(Matches(s));
  auto lazy = MatchNodeSelectorLazily(s, Labels(), "node-1");
  ASSERT_TRUE(lazy.ok());
  EXPECT_TRUE(*lazy);
}

TEST(NodeSelectorTest, LazyMatchReportsErrorsWhenNothingMatches) {
  NodeSelector s = Sel({Expr({Req("zone", "Bogus", {"a"})}), Expr({Req("zone", "In", {"z"})})});
  EXPECT_FALSE(Matches(s));
  auto lazy = MatchNodeSelectorLazily(s, Labels(), "node-1");
  ASSERT_FALSE(lazy.ok());
  EXPECT_THAT(std::string(lazy.status().message()),
              ::testing::StartsWith("nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: \"Bogus\""));
}

TEST(CompileNodeSelectorTest, MatchesLikeMatchesNodeSelector) {
  NodeSelector s = Sel({Expr({Req("zone", "In", {"a"})}), Fields({Req("metadata.name", "In", {"n2"})})});
  auto compiled = CompileNodeSelector(s);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ(compiled->term_count(), 2u);
  EXPECT_TRUE(compiled->Matches(Labels(), "n1"));
  EXPECT_TRUE(compiled->Matches({}, "n2"));
  EXPECT_FALSE(compiled->Matches({}, "n3"));
}

TEST(CompileNodeSelectorTest, EmptyTermsAreDropped) {
  auto compiled = CompileNodeSelector(Sel({NodeSelectorTerm{}, NodeSelectorTerm{}}));
  ASSERT_TRUE(compiled.ok());
  EXPECT_EQ(compiled->term_count(), 0u);
  EXPECT_FALSE(compiled->Matches(Labels(), "n"));
}

TEST(CompileNodeSelectorTest, StrictParsingReportsAllErrors) {
  NodeSelector s = Sel({Expr({Req("zone", "Bogus", {"a"}), Req("bad key", "In", {})}), Expr({Req("zone", "In", {"a"})})});
  auto compiled = CompileNodeSelector(s);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().message(),
            "[nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: \"Bogus\": supported values: "
            "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\", nodeSelectorTerms[0].matchExpressions[1]"
            ".key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', "
            "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
            "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), nodeSelectorTerms[0]."
            "matchExpressions[1].values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty]");
}

TEST(CompileNodeSelectorTest, FieldSelectorErrors) {
  auto two = CompileNodeSelector(Sel({Fields({Req("metadata.name", "In", {"a", "b"})})}));
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().message(),
            "nodeSelectorTerms[0].matchFields[0].values: Invalid value: [\"a\",\"b\"]: must have one element");
  auto op = CompileNodeSelector(Sel({Fields({Req("metadata.name", "Exists")})}));
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().message(),
            "nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: \"Exists\": supported values: \"In\", "
            "\"NotIn\"");
}

TEST(CompileNodeSelectorTest, EmptyKeyIsAnError) {
  auto compiled = CompileNodeSelector(Sel({Expr({Req("", "In", {"a"})})}));
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(std::string(compiled.status().message()),
              ::testing::StartsWith("nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: \"\": name part must "
                                    "be non-empty; name part must consist of"));
}

TEST(CompileNodeSelectorTest, EmptyLabelValueIsAllowed) {
  auto compiled = CompileNodeSelector(Sel({Expr({Req("empty", "In", {""})})}));
  ASSERT_TRUE(compiled.ok());
  EXPECT_TRUE(compiled->Matches(Labels(), "n"));
}

}  // namespace
}  // namespace draforge::api
