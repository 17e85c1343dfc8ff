// draforge_fragmentation_json (draforge/place.h) as a caller sees it, through the C ABI and the C++
// API: the options' macro and init agree, bad arguments are errors, and the JSON carries the
// fragmentation and the advice for tests/cli/data/whatif/fragmentation-partitions.yaml.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "draforge/draforge.hpp"
#include "rapidjson/document.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::filesystem::path Data() {
  const char* root = std::getenv("DRAFORGE_SOURCE_ROOT");
  const std::filesystem::path base =
      root != nullptr ? std::filesystem::path(root) : std::filesystem::path(__FILE__).parent_path() / ".." / "..";
  return base / "tests" / "cli" / "data" / "whatif";
}

draforge::Snapshot Load(const char* file) {
  auto c = draforge::Cluster::Create();
  EXPECT_TRUE(c.ok());
  EXPECT_TRUE(c->ApplyFile((Data() / file).string()).ok());
  auto s = c->snapshot();
  EXPECT_TRUE(s.ok());
  return *s;
}

TEST(FragmentationCapi, MacroEqualsInit) {
  draforge_defrag_options by_macro = DRAFORGE_DEFRAG_OPTIONS_INIT;
  draforge_defrag_options by_init;
  std::memset(&by_init, 0xff, sizeof by_init);
  ASSERT_EQ(draforge_defrag_options_init(&by_init, DRAFORGE_DEFRAG_OPTIONS_VERSION), DRAFORGE_OK);
  EXPECT_EQ(by_macro.version, by_init.version);
  EXPECT_EQ(by_macro.shape, by_init.shape);
  EXPECT_EQ(by_macro.shape_pod, by_init.shape_pod);
  EXPECT_EQ(by_macro.max_moves, by_init.max_moves);
  EXPECT_EQ(by_macro.max_candidates, by_init.max_candidates);
  EXPECT_EQ(by_macro.max_trials, by_init.max_trials);
  EXPECT_EQ(draforge_defrag_options_init(&by_init, DRAFORGE_DEFRAG_OPTIONS_VERSION + 1), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_defrag_options_init(nullptr, DRAFORGE_DEFRAG_OPTIONS_VERSION), DRAFORGE_EINVALID);
}

TEST(FragmentationCapi, BadArgumentsAreErrors) {
  draforge::Snapshot s = Load("fragmentation-partitions.yaml");
  draforge_buffer out{nullptr, 0};
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_fragmentation_json(nullptr, s.c_handle(), nullptr, nullptr, &e), DRAFORGE_EINVALID);
  draforge_error_destroy(e);
  e = nullptr;
  draforge_defrag_options o = DRAFORGE_DEFRAG_OPTIONS_INIT;
  o.version = 99;
  EXPECT_EQ(draforge_fragmentation_json(&out, s.c_handle(), &o, nullptr, &e), DRAFORGE_EINVALID);
  draforge_error_destroy(e);
  e = nullptr;
  o = DRAFORGE_DEFRAG_OPTIONS_INIT;
  o.shape_pod = "team-a/nope";
  EXPECT_EQ(draforge_fragmentation_json(&out, s.c_handle(), &o, nullptr, &e), DRAFORGE_ENOTFOUND);
  draforge_error_destroy(e);
  e = nullptr;
  o = DRAFORGE_DEFRAG_OPTIONS_INIT;
  o.shape = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n";
  EXPECT_EQ(draforge_fragmentation_json(&out, s.c_handle(), &o, nullptr, &e), DRAFORGE_EINVALID);
  draforge_error_destroy(e);
}

TEST(FragmentationCapi, FragmentationAndAdviceAsJson) {
  draforge::Snapshot s = Load("fragmentation-partitions.yaml");
  auto plain = draforge::FragmentationJson(s);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_THAT(*plain, Not(HasSubstr("\"advice\"")));
  draforge::DefragRequest req;
  req.shape = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: w, namespace: team-a}\n"
              "spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu-whole}}]}}\n";
  auto json = draforge::FragmentationJson(s, req);
  ASSERT_TRUE(json.ok()) << json.error().message;
  rapidjson::Document d;
  d.Parse(json->c_str());
  ASSERT_TRUE(d.IsObject());
  const auto& kinds = d["nodes"][0]["kinds"];
  ASSERT_EQ(kinds.Size(), 2u);
  EXPECT_STREQ(kinds[0]["size"].GetString(), "memory=80Gi");
  EXPECT_EQ(kinds[0]["fit"].GetInt64(), 0);
  EXPECT_EQ(kinds[0]["ideal"].GetInt64(), 1);
  EXPECT_DOUBLE_EQ(kinds[0]["score"].GetDouble(), 1.0);
  const auto& a = d["advice"];
  EXPECT_TRUE(a["found"].GetBool());
  ASSERT_EQ(a["moves"].Size(), 1u);
  EXPECT_STREQ(a["moves"][0]["pods"][0].GetString(), "team-a/user-b");
  EXPECT_STREQ(a["moves"][0]["toDevices"][0].GetString(), "gpu.example.com/node-a/gpu-0-half-0");
  // A bound of one move set too few: the budget is reported, not an error.
  req.max_trials = 1;
  auto bounded = draforge::FragmentationJson(s, req);
  ASSERT_TRUE(bounded.ok());
  EXPECT_THAT(*bounded, HasSubstr("\"budgetExhausted\":true"));
}

}  // namespace
