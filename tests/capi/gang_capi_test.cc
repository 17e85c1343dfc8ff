// draforge_gang_json (draforge/place.h) and draforge::GangJson as a caller sees them, on
// tests/cli/data/whatif/gang-small.yaml: a gang that fits, one that does not (a result, not an
// error), a Workload template, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "draforge/draforge.hpp"
#include "fixtures.h"

namespace {

using ::testing::HasSubstr;
using draforge_test::Take;

std::string Scenario() {
  const char* root = std::getenv("DRAFORGE_SOURCE_ROOT");
  std::ifstream in(std::string(root != nullptr ? root : "..") + "/tests/cli/data/whatif/gang-small.yaml");
  std::ostringstream out;
  out << in.rdbuf();
  return out.str() + R"(
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: job, namespace: team-a}
spec:
  podGroupTemplates: [{name: workers, schedulingPolicy: {gang: {minCount: 1}}}]
)";
}

class GangCApi : public draforge_test::ClusterFixture {
 protected:
  GangCApi() : ClusterFixture(Scenario()) {}
};

TEST_F(GangCApi, FitsAndBlockedAreResults) {
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_gang_json(&b, snapshot_, "team-a/train", nullptr, nullptr, nullptr, &error_), DRAFORGE_OK)
      << draforge_error_message(error_);
  const std::string fits = Take(b);
  EXPECT_THAT(fits, HasSubstr("\"group\":\"team-a/train\",\"policy\":\"gang\",\"minCount\":2,\"fits\":true,"));
  EXPECT_THAT(fits, HasSubstr("{\"pod\":\"team-a/train-0\",\"node\":\"node-a\","));
  ASSERT_EQ(draforge_gang_json(&b, snapshot_, "team-a/shared", nullptr, nullptr, nullptr, &error_), DRAFORGE_OK);
  const std::string blocked = Take(b);
  EXPECT_THAT(blocked, HasSubstr("\"fits\":false,\"status\":\"minCount (3) cannot be satisfied: 2 scheduled, 0 "
                                 "remaining\",\"blocking\":\"team-a/shared-2\""));
  EXPECT_THAT(blocked, HasSubstr("\"groupClaims\":[{\"name\":\"fabric\",\"claim\":\"team-a/shared-fabric-"));
  EXPECT_THAT(blocked, HasSubstr("\"allocatedBy\":\"team-a/shared-0\",\"members\":[\"team-a/shared-0\","
                                 "\"team-a/shared-1\"]"));
}

TEST_F(GangCApi, WorkloadTemplateStandsInForAMissingPodGroup) {
  draforge_buffer b = {nullptr, 0};
  // No pod names group "solo": with minCount 1 and no member, PreEnqueue never lets a cycle start.
  ASSERT_EQ(draforge_gang_json(&b, snapshot_, "team-a/solo", "job/workers", nullptr, nullptr, &error_), DRAFORGE_OK)
      << draforge_error_message(error_);
  EXPECT_THAT(Take(b), HasSubstr("\"minCount\":1,\"fits\":false,\"status\":\"waiting for minCount pods"));
}

TEST_F(GangCApi, BadArgumentsAndMissingObjectsAreErrors) {
  draforge_buffer b = {nullptr, 0};
  EXPECT_EQ(draforge_gang_json(&b, snapshot_, "team-a/nope", nullptr, nullptr, nullptr, &error_), DRAFORGE_ENOTFOUND);
  EXPECT_THAT(draforge_error_message(error_), HasSubstr("podgroup team-a/nope not found"));
  EXPECT_EQ(b.ptr, nullptr);
  EXPECT_EQ(draforge_gang_json(&b, snapshot_, "team-a/nope", "job/nope", nullptr, nullptr, nullptr),
            DRAFORGE_ENOTFOUND);
  EXPECT_EQ(draforge_gang_json(&b, snapshot_, "team-a/nope", "job", nullptr, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_gang_json(&b, snapshot_, "a/b/c", nullptr, nullptr, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_gang_json(&b, nullptr, "team-a/train", nullptr, nullptr, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_gang_json(&b, snapshot_, nullptr, nullptr, nullptr, nullptr, nullptr), DRAFORGE_EINVALID);
  draforge_replay_options ro = DRAFORGE_REPLAY_OPTIONS_INIT;
  ro.policy = "best-fit";
  EXPECT_EQ(draforge_gang_json(&b, snapshot_, "team-a/train", nullptr, &ro, nullptr, nullptr), DRAFORGE_EINVALID);
  ro = DRAFORGE_REPLAY_OPTIONS_INIT;
  ro.version = 99;
  EXPECT_EQ(draforge_gang_json(&b, snapshot_, "team-a/train", nullptr, &ro, nullptr, nullptr), DRAFORGE_EINVALID);
}

TEST(GangCpp, WrapperReturnsTheSameJson) {
  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  ASSERT_TRUE(cluster->Apply(Scenario()).ok());
  auto snap = cluster->snapshot();
  ASSERT_TRUE(snap.ok());
  auto json = draforge::GangJson(*snap, "team-a/big", "least-allocated");
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_THAT(*json, HasSubstr("\"blocking\":\"team-a/big-3\""));
  auto missing = draforge::GangJson(*snap, "team-a/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, DRAFORGE_ENOTFOUND);
}

}  // namespace
