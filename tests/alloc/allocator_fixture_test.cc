// Runs every fixture under tests/alloc/fixtures/ (except explain/) through alloc::Allocate and
// compares outcome, allocations (modulo shareID where the fixture says "*"), reasons and errors.
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "fixture.h"

namespace draforge::alloc::testing {
namespace {

namespace fs = std::filesystem;

// Replaces actual shareIDs by "*" where the expected allocation has "*".
void MaskShareIds(rapidjson::Value& actual, const rapidjson::Value& expected) {
  if (actual.IsObject() && expected.IsObject()) {
    for (auto& m : actual.GetObject()) {
      auto e = expected.FindMember(m.name);
      if (e == expected.MemberEnd()) continue;
      if (std::string(m.name.GetString()) == "shareID" && e->value.IsString() && Str(e->value) == "*") {
        m.value.SetString("*");
      } else {
        MaskShareIds(m.value, e->value);
      }
    }
  } else if (actual.IsArray() && expected.IsArray()) {
    for (rapidjson::SizeType i = 0; i < actual.Size() && i < expected.Size(); ++i) MaskShareIds(actual[i], expected[i]);
  }
}

std::vector<fs::path> Cases() {
  std::vector<fs::path> out;
  for (const fs::path& p : FixtureFiles()) {
    if (p.parent_path().filename() != "explain") out.push_back(p);
  }
  return out;
}

class AllocatorFixture : public ::testing::TestWithParam<fs::path> {};

TEST_P(AllocatorFixture, Allocate) {
  auto loaded = LoadFixture(GetParam());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Fixture& fx = **loaded;
  AllocateOptions options;
  options.features = fx.features;
  AllocateResult result = Allocate(*fx.snapshot, fx.claims, fx.node, options);
  const auto* outcome = fx.Expect("outcome");
  ASSERT_NE(outcome, nullptr) << "fixture has no expect.outcome";
  EXPECT_EQ(OutcomeName(result.outcome), Str(*outcome)) << result.error << " reasons: " << result.reasons.size();
  if (const auto* err = fx.Expect("error")) {
    EXPECT_TRUE(absl::StrContains(result.error.message(), Str(*err)))
        << "error \"" << result.error.message() << "\" does not contain \"" << Str(*err) << "\"";
  }
  if (const auto* reasons = fx.Expect("reasons"); reasons && reasons->IsArray()) {
    std::vector<std::string> want;
    for (auto& r : reasons->GetArray()) want.push_back(Str(r));
    EXPECT_EQ(result.reasons, want);
  }
  if (const auto* steps = fx.Expect("maxSearchSteps"); steps && steps->IsInt64()) {
    EXPECT_LE(result.search_steps, steps->GetInt64());
  }
  if (const auto* allocs = fx.Expect("allocations"); allocs && allocs->IsObject()) {
    ASSERT_EQ(result.outcome, Outcome::kAllocated);
    ASSERT_EQ(result.allocations.size(), fx.claims.size());
    ASSERT_EQ(allocs->MemberCount(), fx.claims.size()) << "expect.allocations must name every claim";
    for (size_t i = 0; i < fx.claims.size(); ++i) {
      const std::string key =
          fx.claims[i]->metadata.namespace_.value_or("default") + "/" + fx.claims[i]->metadata.name.value_or("");
      auto want = allocs->FindMember(key.c_str());
      ASSERT_NE(want, allocs->MemberEnd()) << "no expected allocation for " << key;
      auto got = EncodeAllocationResult(result.allocations[i]);
      ASSERT_TRUE(got.ok()) << got.status();
      MaskShareIds(*got, want->value);
      EXPECT_TRUE(*got == want->value) << key << ":\n  got:  " << api::WriteJson(*got, false)
                                       << "\n  want: " << api::WriteJson(want->value, false);
    }
  }
}

// Pruning (AllocateOptions::prune_search) may only save work: the same outcome, the same
// allocations byte for byte (shareIDs included: they are deterministic), the same reasons and
// error, and never more search steps than upstream's unpruned search.
TEST_P(AllocatorFixture, PruningChangesNothing) {
  auto loaded = LoadFixture(GetParam());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Fixture& fx = **loaded;
  AllocateOptions pruned;
  pruned.features = fx.features;
  AllocateOptions upstream_order = pruned;
  upstream_order.prune_search = false;
  const AllocateResult a = Allocate(*fx.snapshot, fx.claims, fx.node, pruned);
  const AllocateResult b = Allocate(*fx.snapshot, fx.claims, fx.node, upstream_order);
  EXPECT_EQ(OutcomeName(a.outcome), OutcomeName(b.outcome));
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.reasons, b.reasons);
  EXPECT_LE(a.search_steps, b.search_steps);
  ASSERT_EQ(a.allocations.size(), b.allocations.size());
  for (size_t i = 0; i < a.allocations.size(); ++i) {
    auto x = EncodeAllocationResult(a.allocations[i]);
    auto y = EncodeAllocationResult(b.allocations[i]);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_TRUE(*x == *y) << "claim #" << i << " pruned:   " << api::WriteJson(*x, false)
                          << "\n  unpruned: " << api::WriteJson(*y, false);
  }
}

std::string Name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string n = info.param.parent_path().filename().string() + "_" + info.param.stem().string();
  for (char& c : n) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AllocatorFixture, ::testing::ValuesIn(Cases()), Name);

TEST(AllocatorFixtures, EveryCategoryHasCases) {
  EXPECT_GE(Cases().size(), 20u);
}

}  // namespace
}  // namespace draforge::alloc::testing
