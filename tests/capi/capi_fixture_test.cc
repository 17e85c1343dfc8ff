// The allocator fixture suite (tests/alloc/fixtures/) through the C ABI: every case is loaded with
// draforge_cluster_apply_file, allocated with draforge_allocate (explain/ cases explained with
// draforge_explain), and must give the same answer as the C++ API (alloc::Allocate, alloc::Explain)
// on the same file, and the answer the fixture expects.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "../alloc/fixture.h"
#include "absl/strings/match.h"
#include "alloc/explain.h"
#include "draforge/draforge.h"

namespace draforge::capi::testing {
namespace {

namespace fs = std::filesystem;
using alloc::testing::Fixture;
using alloc::testing::FixtureFiles;
using alloc::testing::LoadFixture;
using alloc::testing::Str;

struct ErrorDeleter {
  void operator()(draforge_error* e) const { draforge_error_destroy(e); }
};
struct ClusterDeleter {
  void operator()(draforge_cluster* c) const { draforge_cluster_destroy(c); }
};
struct SnapshotDeleter {
  void operator()(draforge_snapshot* s) const { draforge_snapshot_destroy(s); }
};
struct ResultDeleter {
  void operator()(draforge_allocation_result* r) const { draforge_allocation_result_destroy(r); }
};
struct ExplanationDeleter {
  void operator()(draforge_explanation* e) const { draforge_explanation_destroy(e); }
};

std::string TakeBuffer(draforge_buffer& b) {
  std::string s(b.ptr ? b.ptr : "", b.size);
  draforge_buffer_dispose(&b);
  return s;
}

// The snapshot of `path` loaded through the C ABI.
std::unique_ptr<draforge_snapshot, SnapshotDeleter> LoadThroughCAbi(const fs::path& path) {
  draforge_cluster* cluster = nullptr;
  draforge_error* error = nullptr;
  EXPECT_EQ(draforge_cluster_create(&cluster, nullptr, &error), DRAFORGE_OK);
  std::unique_ptr<draforge_cluster, ClusterDeleter> owned(cluster);
  size_t applied = 0;
  const int rc = draforge_cluster_apply_file(cluster, path.c_str(), &applied, &error);
  std::unique_ptr<draforge_error, ErrorDeleter> owned_error(error);
  EXPECT_EQ(rc, DRAFORGE_OK) << draforge_error_message(error);
  EXPECT_GT(applied, 0u);
  draforge_snapshot* snapshot = nullptr;
  EXPECT_EQ(draforge_cluster_snapshot(&snapshot, cluster, nullptr), DRAFORGE_OK);
  return std::unique_ptr<draforge_snapshot, SnapshotDeleter>(snapshot);
}

// The options a fixture asks for: its feature gates (locks not enforced, as the C++ runner) and
// the node labels of its header, at its kubernetesVersion.
struct CaseOptions {
  std::string gates;
  std::string version;  // the fixture's kubernetesVersion ("" : 1.37)
  std::string labels;
  draforge_allocate_options options = DRAFORGE_ALLOCATE_OPTIONS_INIT;
};

void FillOptions(const Fixture& fx, CaseOptions& o) {
  if (const auto* g = fx.Get("featureGates")) o.gates = Str(*g);
  if (const auto* v = fx.Get("kubernetesVersion")) o.version = Str(*v);
  rapidjson::Document labels(rapidjson::kObjectType);
  if (const auto* n = fx.Get("node"); n && n->IsObject()) {
    if (auto it = n->FindMember("labels"); it != n->MemberEnd() && it->value.IsObject()) {
      labels.CopyFrom(it->value, labels.GetAllocator());
    }
  }
  o.labels = api::WriteJson(labels, false);
  o.options.feature_gates = o.gates.c_str();
  if (!o.version.empty()) o.options.kubernetes_version = o.version.c_str();
  o.options.unlock_locked_gates = 1;
  o.options.node_labels_json = o.labels.c_str();
}

std::string ClaimKey(const api::ResourceClaim& c) {
  return c.metadata.namespace_.value_or("default") + "/" + c.metadata.name.value_or("");
}

std::vector<fs::path> AllocateCases() {
  std::vector<fs::path> out;
  for (const fs::path& p : FixtureFiles()) {
    if (p.parent_path().filename() != "explain") out.push_back(p);
  }
  return out;
}

class CAbiAllocatorFixture : public ::testing::TestWithParam<fs::path> {};

// The fixture through the C ABI with draforge_allocate_options.prune_search `prune` gives what
// the C++ API gives with AllocateOptions::prune_search `prune`: outcome, reasons, devices, error
// message and the search step count.
void ExpectSameAnswerAsCppApi(const fs::path& path, bool prune) {
  auto loaded = LoadFixture(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Fixture& fx = **loaded;
  ASSERT_FALSE(fx.claims.empty()) << "fixture selects no claim";

  // The C++ API's answer.
  alloc::AllocateOptions cpp_options;
  cpp_options.features = fx.features;
  cpp_options.prune_search = prune;
  const alloc::AllocateResult want = alloc::Allocate(*fx.snapshot, fx.claims, fx.node, cpp_options);

  // The C ABI's answer.
  auto snapshot = LoadThroughCAbi(fx.path);
  ASSERT_NE(snapshot, nullptr);
  CaseOptions o;
  FillOptions(fx, o);
  o.options.prune_search = prune ? 1 : 0;
  std::vector<std::string> keys;
  for (const auto* c : fx.claims) keys.push_back(ClaimKey(*c));
  std::vector<const char*> claim_ptrs;
  for (const auto& k : keys) claim_ptrs.push_back(k.c_str());
  draforge_allocation_result* raw = nullptr;
  draforge_error* raw_error = nullptr;
  const int rc = draforge_allocate(&raw, snapshot.get(), claim_ptrs.data(), claim_ptrs.size(), fx.node.name.c_str(),
                                   &o.options, &raw_error);
  std::unique_ptr<draforge_allocation_result, ResultDeleter> result(raw);
  std::unique_ptr<draforge_error, ErrorDeleter> error(raw_error);

  const std::string expected_outcome = Str(*fx.Expect("outcome"));
  if (want.outcome == alloc::Outcome::kError) {
    // Bad input is an error code with the C++ API's message.
    EXPECT_EQ(expected_outcome, "error");
    ASSERT_NE(rc, DRAFORGE_OK);
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(draforge_error_message(error.get()), std::string(want.error.message()));
    EXPECT_EQ(result, nullptr);
    return;
  }
  ASSERT_EQ(rc, DRAFORGE_OK) << draforge_error_message(error.get());
  ASSERT_NE(result, nullptr);
  const bool allocated = want.outcome == alloc::Outcome::kAllocated;
  EXPECT_EQ(expected_outcome, allocated ? "allocated" : "unschedulable");
  EXPECT_EQ(draforge_allocation_result_outcome(result.get()),
            allocated ? DRAFORGE_OUTCOME_ALLOCATED : DRAFORGE_OUTCOME_UNSCHEDULABLE);
  EXPECT_EQ(draforge_allocation_result_search_steps(result.get()), want.search_steps);
  std::vector<std::string> reasons;
  for (size_t i = 0; i < draforge_allocation_result_reason_count(result.get()); ++i) {
    reasons.push_back(draforge_allocation_result_reason(result.get(), i));
  }
  EXPECT_EQ(reasons, want.reasons);
  EXPECT_EQ(draforge_allocation_result_reason(result.get(), reasons.size()), nullptr);
  if (!allocated) {
    EXPECT_EQ(draforge_allocation_result_claim_count(result.get()), 0u);
    return;
  }
  ASSERT_EQ(draforge_allocation_result_claim_count(result.get()), fx.claims.size());
  for (size_t i = 0; i < fx.claims.size(); ++i) {
    EXPECT_EQ(draforge_allocation_result_claim(result.get(), i), keys[i]);
    draforge_buffer buf = {nullptr, 0};
    ASSERT_EQ(draforge_allocation_result_allocation_json(&buf, result.get(), i, nullptr), DRAFORGE_OK);
    auto got = api::ParseJson(TakeBuffer(buf));
    ASSERT_TRUE(got.ok()) << got.status();
    auto cpp = alloc::EncodeAllocationResult(want.allocations[i]);
    ASSERT_TRUE(cpp.ok());
    // Identical, shareIDs included: both sides generate them deterministically.
    EXPECT_TRUE(*got == *cpp) << keys[i] << "\n  C ABI: " << api::WriteJson(*got, false)
                              << "\n  C++:   " << api::WriteJson(*cpp, false);
  }
  draforge_buffer past_end = {nullptr, 0};
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_allocation_result_allocation_json(&past_end, result.get(), fx.claims.size(), &e),
            DRAFORGE_ENOTFOUND);
  draforge_error_destroy(e);
}

TEST_P(CAbiAllocatorFixture, SameAnswerAsCppApi) { ExpectSameAnswerAsCppApi(GetParam(), /*prune=*/true); }

// prune_search = 0 reaches the C++ API's unpruned search (upstream's, step for step: tests/alloc
// checks those counts against upstream's), not the default one.
TEST_P(CAbiAllocatorFixture, SameAnswerAsCppApiWithoutPruning) {
  ExpectSameAnswerAsCppApi(GetParam(), /*prune=*/false);
}

std::string Name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string n = info.param.parent_path().filename().string() + "_" + info.param.stem().string();
  for (char& c : n) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CAbiAllocatorFixture, ::testing::ValuesIn(AllocateCases()), Name);

class CAbiExplainFixture : public ::testing::TestWithParam<fs::path> {};

TEST_P(CAbiExplainFixture, SameFunnelAsCppApi) {
  auto loaded = LoadFixture(GetParam());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Fixture& fx = **loaded;
  const rapidjson::Value* e = fx.Expect("explain");
  ASSERT_NE(e, nullptr);
  const std::string claim = Str((*e)["claim"]);
  const size_t slash = claim.find('/');
  auto want = alloc::Explain(*fx.snapshot, claim.substr(0, slash), claim.substr(slash + 1), &fx.node, fx.features);
  ASSERT_TRUE(want.ok()) << want.status();

  auto snapshot = LoadThroughCAbi(fx.path);
  CaseOptions o;
  FillOptions(fx, o);
  draforge_explanation* raw = nullptr;
  draforge_error* raw_error = nullptr;
  const int rc = draforge_explain(&raw, snapshot.get(), claim.c_str(), fx.node.name.c_str(), &o.options, &raw_error);
  std::unique_ptr<draforge_explanation, ExplanationDeleter> ex(raw);
  std::unique_ptr<draforge_error, ErrorDeleter> error(raw_error);
  ASSERT_EQ(rc, DRAFORGE_OK) << draforge_error_message(error.get());
  EXPECT_EQ(draforge_explanation_summary(ex.get()), want->summary);
  draforge_buffer buf = {nullptr, 0};
  ASSERT_EQ(draforge_explanation_json(&buf, ex.get(), nullptr), DRAFORGE_OK);
  auto json = api::ParseJson(TakeBuffer(buf));
  ASSERT_TRUE(json.ok()) << json.status();
  const rapidjson::Value& requests = (*json)["requests"];
  ASSERT_EQ(requests.Size(), want->requests.size());
  bool found = false;
  for (rapidjson::SizeType i = 0; i < requests.Size(); ++i) {
    const auto& r = requests[i];
    const alloc::RequestFunnel& w = want->requests[i];
    EXPECT_EQ(Str(r["request"]), w.request);
    EXPECT_EQ(Str(r["sentence"]), w.sentence);
    ASSERT_EQ(r["steps"].Size(), w.steps.size());
    for (rapidjson::SizeType s = 0; s < r["steps"].Size(); ++s) {
      EXPECT_EQ(Str(r["steps"][s]["step"]), alloc::FunnelStepName(w.steps[s].step));
      EXPECT_EQ(r["steps"][s]["remaining"].GetInt64(), w.steps[s].remaining);
    }
    if (w.request == Str((*e)["request"])) {
      found = true;
      ASSERT_TRUE(r.HasMember("firstShortStep"));
      EXPECT_EQ(Str(r["firstShortStep"]), Str((*e)["firstShort"]));
      EXPECT_TRUE(absl::StrContains(Str(r["sentence"]), Str((*e)["sentenceContains"]))) << Str(r["sentence"]);
    }
  }
  EXPECT_TRUE(found) << "no request " << Str((*e)["request"]);
}

std::string StemName(const ::testing::TestParamInfo<fs::path>& info) {
  std::string n = info.param.stem().string();
  for (char& c : n) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CAbiExplainFixture, ::testing::ValuesIn(FixtureFiles("explain")), StemName);

TEST(CAbiFixtures, EveryCategoryRuns) { EXPECT_GE(AllocateCases().size(), 40u); }

}  // namespace
}  // namespace draforge::capi::testing
