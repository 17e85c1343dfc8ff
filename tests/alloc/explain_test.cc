// Explain (why pending): every step of the funnel has a fixture under fixtures/explain/ whose
// expect.explain names the claim, the request, the first step that leaves too few devices and a
// part of the sentence.
#include <gtest/gtest.h>

#include <map>

#include "absl/strings/match.h"
#include "alloc/explain.h"
#include "fixture.h"

namespace draforge::alloc::testing {
namespace {

namespace fs = std::filesystem;

class ExplainFixture : public ::testing::TestWithParam<fs::path> {};

TEST_P(ExplainFixture, Funnel) {
  auto loaded = LoadFixture(GetParam());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Fixture& fx = **loaded;
  const rapidjson::Value* e = fx.Expect("explain");
  ASSERT_NE(e, nullptr);
  const std::string claim = Str((*e)["claim"]);
  const size_t slash = claim.find('/');
  auto ex = Explain(*fx.snapshot, claim.substr(0, slash), claim.substr(slash + 1), &fx.node, fx.features);
  ASSERT_TRUE(ex.ok()) << ex.status();
  EXPECT_NE(ex->outcome, Outcome::kAllocated);
  const RequestFunnel* f = nullptr;
  for (const auto& r : ex->requests) {
    if (r.request == Str((*e)["request"])) f = &r;
  }
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->first_short.has_value()) << ex->summary;
  EXPECT_EQ(FunnelStepName(*f->first_short), Str((*e)["firstShort"])) << f->sentence;
  EXPECT_TRUE(absl::StrContains(f->sentence, Str((*e)["sentenceContains"])))
      << "sentence: " << f->sentence << "\nwant part: " << Str((*e)["sentenceContains"]);
  EXPECT_TRUE(absl::StrContains(ex->summary, f->sentence));
  // Counts never grow along the funnel.
  for (size_t i = 1; i < f->steps.size(); ++i) EXPECT_LE(f->steps[i].remaining, f->steps[i - 1].remaining);
}

std::string Name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string n = info.param.stem().string();
  for (char& c : n) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ExplainFixture, ::testing::ValuesIn(FixtureFiles("explain")), Name);

TEST(Explain, FitsOnNode) {
  auto loaded = LoadFixture(FixtureFiles("basic").front().parent_path() / "simple.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto ex = Explain(*(*loaded)->snapshot, "default", "claim-0", &(*loaded)->node);
  ASSERT_TRUE(ex.ok());
  EXPECT_EQ(ex->outcome, Outcome::kAllocated);
  EXPECT_EQ(ex->summary, "claim default/claim-0 fits on node node-1");
}

// Explain agrees with the allocator on the fixtures of `folder` that allocate one claim (and, with
// `one_request`, a claim of one request): a claim that does not fit has a request whose funnel
// falls short, and a claim that fits has, for every request, an alternative that does not. Returns
// how many fixtures were checked and how many of them do not fit.
std::pair<int, int> ExpectExplainAgrees(const std::string& folder, bool one_request) {
  int checked = 0, unschedulable = 0;
  for (const fs::path& path : FixtureFiles(folder)) {
    auto loaded = LoadFixture(path);
    EXPECT_TRUE(loaded.ok()) << path << ": " << loaded.status();
    if (!loaded.ok()) continue;
    Fixture& fx = **loaded;
    if (fx.claims.size() != 1) continue;  // explain looks at one claim; these fixtures allocate a pod
    const api::ResourceClaim& claim = *fx.claims.front();
    if (one_request && claim.spec->devices->requests.size() != 1) continue;
    const std::string want = Str(*fx.Expect("outcome"));
    if (want != "unschedulable" && want != "allocated") continue;
    auto ex = Explain(*fx.snapshot, claim.metadata.namespace_.value_or("default"), claim.metadata.name.value_or(""),
                      &fx.node, fx.features);
    EXPECT_TRUE(ex.ok()) << path << ": " << ex.status();
    if (!ex.ok()) continue;
    ++checked;
    if (want == "unschedulable") {
      ++unschedulable;
      EXPECT_EQ(ex->outcome, Outcome::kUnschedulable) << path;
      bool short_somewhere = false;
      for (const auto& r : ex->requests) short_somewhere = short_somewhere || r.first_short.has_value();
      EXPECT_TRUE(short_somewhere) << path << ": the claim does not fit, but explain says: " << ex->summary;
    } else {
      EXPECT_EQ(ex->outcome, Outcome::kAllocated) << path;
      std::map<std::string, bool> usable;  // base request -> some alternative is not short
      for (const auto& r : ex->requests) {
        const std::string base = r.request.substr(0, r.request.find('/'));
        usable[base] = usable[base] || !r.first_short.has_value();
      }
      for (const auto& [base, ok] : usable) {
        EXPECT_TRUE(ok) << path << ": the claim fits, but explain rules out request " << base << ": "
                        << ex->summary;
      }
    }
  }
  return {checked, unschedulable};
}

// Compatibility groups are checked across the claim's requests, not only against allocated devices.
TEST(Explain, AgreesWithAllocatorOnCompatibilityGroups) {
  const auto [checked, unschedulable] = ExpectExplainAgrees("compatibility-groups", /*one_request=*/false);
  EXPECT_GE(checked, 10);
  EXPECT_GE(unschedulable, 3);
}

// matchAttribute / distinctAttribute within one request, list-typed attributes (an empty list is no
// value) and DRAListTypeAttributes off included.
TEST(Explain, AgreesWithAllocatorOnConstraintsOfOneRequest) {
  const auto [checked, unschedulable] = ExpectExplainAgrees("constraints", /*one_request=*/true);
  EXPECT_GE(checked, 20);
  EXPECT_GE(unschedulable, 5);
}

TEST(Explain, UnknownClaim) {
  auto loaded = LoadFixture(FixtureFiles("basic").front().parent_path() / "simple.yaml");
  ASSERT_TRUE(loaded.ok());
  auto ex = Explain(*(*loaded)->snapshot, "default", "nope", nullptr);
  EXPECT_EQ(ex.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace draforge::alloc::testing
