// draforge_whatif_preempt_json as a caller sees it (draforge/place.h), through the C ABI and the C++
// wrapper, on tests/cli/data/whatif/preempt-small.yaml.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "draforge/draforge.hpp"
#include "fixtures.h"

namespace {

using ::testing::HasSubstr;

std::string Scenario() {
  const char* root = std::getenv("DRAFORGE_SOURCE_ROOT");
  std::ifstream in(std::string(root != nullptr ? root : ".") + "/tests/cli/data/whatif/preempt-small.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using draforge_test::Take;

class PreemptCApi : public draforge_test::ClusterFixture {
 protected:
  PreemptCApi() : ClusterFixture(Scenario()) {}
};

TEST(PreemptOptions, InitMacroEqualsInitFunction) {
  draforge_whatif_preempt_options by_macro = DRAFORGE_WHATIF_PREEMPT_OPTIONS_INIT;
  draforge_whatif_preempt_options by_call;
  std::memset(&by_call, 0xff, sizeof by_call);
  ASSERT_EQ(draforge_whatif_preempt_options_init(&by_call, DRAFORGE_WHATIF_PREEMPT_OPTIONS_VERSION), DRAFORGE_OK);
  EXPECT_EQ(std::memcmp(&by_macro, &by_call, sizeof by_call), 0);
  EXPECT_EQ(draforge_whatif_preempt_options_init(&by_call, 99), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_whatif_preempt_options_init(nullptr, DRAFORGE_WHATIF_PREEMPT_OPTIONS_VERSION), DRAFORGE_EINVALID);
}

TEST_F(PreemptCApi, VictimsOnTheChosenNode) {
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_whatif_preempt_json(&b, snapshot_, "team-a/trainer", nullptr, nullptr, &error_), DRAFORGE_OK)
      << draforge_error_message(error_);
  const std::string json = Take(b);
  EXPECT_THAT(json, HasSubstr(R"("outcome":"preempt","draAware":true)"));
  EXPECT_THAT(json, HasSubstr(R"("node":"node-b","decidedBy":"fewest PDB violations","pdbViolations":0)"));
  EXPECT_THAT(json, HasSubstr(R"({"pod":"team-a/render-1","priority":50,"startTime":"2026-01-01T10:00:00Z","claimsFreed":["team-a/shared-gpu"])"));
}

TEST_F(PreemptCApi, ReleasedModeAndErrors) {
  draforge_whatif_preempt_options o = DRAFORGE_WHATIF_PREEMPT_OPTIONS_INIT;
  o.dra_aware = 0;
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_whatif_preempt_json(&b, snapshot_, "team-a/trainer", &o, nullptr, &error_), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr(R"("outcome":"no-candidate","draAware":false)"));
  EXPECT_EQ(draforge_whatif_preempt_json(&b, snapshot_, "team-a/nope", nullptr, nullptr, nullptr), DRAFORGE_ENOTFOUND);
  EXPECT_EQ(draforge_whatif_preempt_json(&b, snapshot_, "team-a/batch-1", nullptr, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_whatif_preempt_json(&b, snapshot_, "", nullptr, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_whatif_preempt_json(nullptr, snapshot_, "team-a/trainer", nullptr, nullptr, nullptr),
            DRAFORGE_EINVALID);
  o.version = 7;
  EXPECT_EQ(draforge_whatif_preempt_json(&b, snapshot_, "team-a/trainer", &o, nullptr, nullptr), DRAFORGE_EINVALID);
}

TEST(PreemptCpp, WrapperReturnsTheSameJson) {
  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  ASSERT_TRUE(cluster->Apply(Scenario()).ok());
  auto snap = cluster->snapshot();
  ASSERT_TRUE(snap.ok());
  auto json = draforge::WhatifPreemptJson(*snap, "team-a/trainer");
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_THAT(*json, HasSubstr(R"("node":"node-b")"));
  auto released = draforge::WhatifPreemptJson(*snap, "team-a/trainer", false);
  ASSERT_TRUE(released.ok());
  EXPECT_THAT(*released, HasSubstr(R"("outcome":"no-candidate")"));
}

}  // namespace
