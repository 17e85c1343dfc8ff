// The manifest loader (draforge_objects_load), validation (draforge_objects_validate_json) and the
// atomic file writer (draforge_file_write_atomic), through the C ABI and the C++ API only.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "draforge/draforge.hpp"
#include "fixtures.h"

namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kClass[] = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
)";
constexpr char kTwoClaims[] = R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one, namespace: team-a}
spec: {}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two, namespace: team-a}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, count: "x"}}]}}
)";

using draforge_test::TempDir;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(CApiLoad, DirectoryContributesItsManifestsSortedAndNothingElse) {
  TempDir dir;
  dir.Write("b.yaml", kTwoClaims);
  dir.Write("a.json", R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"fpga"}})");
  dir.Write("notes.txt", "not a manifest");
  fs::create_directory(dir.path() + "/nested");
  dir.Write("nested/c.yaml", kClass);
  auto objects = draforge::Objects::Load({dir.path()});
  ASSERT_TRUE(objects.ok()) << objects.error().message;
  ASSERT_EQ(objects->size(), 3u);
  EXPECT_EQ(objects->source(0), dir.path() + "/a.json");
  EXPECT_EQ(objects->key(0), "fpga");
  EXPECT_EQ(objects->source(1), dir.path() + "/b.yaml");
  EXPECT_EQ(objects->position(2), 1u);
  EXPECT_EQ(objects->line(2), 5u);
}

TEST(CApiLoad, AnObjectThatDoesNotDecodeIsKeptWithItsError) {
  TempDir dir;
  const std::string file = dir.Write("claims.yaml", kTwoClaims);
  auto objects = draforge::Objects::Load({file});
  ASSERT_TRUE(objects.ok()) << objects.error().message;
  ASSERT_EQ(objects->size(), 2u);
  EXPECT_TRUE(objects->decoded(0));
  EXPECT_EQ(objects->error(0), "");
  EXPECT_FALSE(objects->decoded(1));
  EXPECT_EQ(objects->kind(1), "ResourceClaim");
  EXPECT_THAT(std::string(objects->error(1)), HasSubstr("count"));
  // Such an entry can be neither encoded nor validated nor applied.
  EXPECT_EQ(objects->Encode(1).error().code, DRAFORGE_EINVALID);
  EXPECT_EQ(objects->ValidateJson(1).error().code, DRAFORGE_EINVALID);
  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_cluster_apply_objects(cluster->c_handle(), objects->c_handle(), &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("object 2: "));
  draforge_error_destroy(e);
}

TEST(CApiLoad, StandardInputComesFromTheCaller) {
  const std::string text = kClass;
  draforge::LoadOptions options;
  options.stdin_text = &text;
  auto objects = draforge::Objects::Load({"-"}, options);
  ASSERT_TRUE(objects.ok()) << objects.error().message;
  ASSERT_EQ(objects->size(), 1u);
  EXPECT_EQ(objects->source(0), "<stdin>");
  // Without the caller's text, "-" is an error: the library never reads standard input itself.
  auto none = draforge::Objects::Load({"-"});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, DRAFORGE_EINVALID);
}

TEST(CApiLoad, UnknownFieldsAreWarningsOrStrictErrors) {
  TempDir dir;
  const std::string file = dir.Write("c.yaml", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                                               "metadata: {name: gpu}\nspec: {colour: red}\n");
  auto lenient = draforge::Objects::Load({file});
  ASSERT_TRUE(lenient.ok());
  EXPECT_TRUE(lenient->decoded(0));
  ASSERT_EQ(lenient->warnings(0).size(), 1u);
  EXPECT_THAT(std::string(lenient->warnings(0)[0]), HasSubstr("spec.colour"));
  draforge::LoadOptions strict;
  strict.strict = true;
  auto strict_load = draforge::Objects::Load({file}, strict);
  ASSERT_TRUE(strict_load.ok());
  EXPECT_FALSE(strict_load->decoded(0));
  EXPECT_THAT(std::string(strict_load->error(0)), HasSubstr("spec.colour"));
}

TEST(CApiLoad, UnreadableOrOversizedSourcesFailTheCallNamingThem) {
  TempDir dir;
  auto missing = draforge::Objects::Load({dir.path() + "/nope.yaml"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, DRAFORGE_ENOTFOUND);
  EXPECT_THAT(missing.error().message, HasSubstr("nope.yaml"));
  const std::string big = dir.Write("big.yaml", kClass);
  draforge::LoadOptions small;
  small.max_bytes = 10;
  auto too_big = draforge::Objects::Load({big}, small);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.error().code, DRAFORGE_ELIMIT);
  EXPECT_THAT(too_big.error().message, HasSubstr("big.yaml: file is"));
  const std::string bad = dir.Write("bad.yaml", "a: [\n");
  auto syntax = draforge::Objects::Load({bad});
  ASSERT_FALSE(syntax.ok());
  EXPECT_THAT(syntax.error().message, HasSubstr("bad.yaml: "));
}

TEST(CApiLoad, LoadOptionsInitAgreesWithTheMacro) {
  draforge_load_options macro = DRAFORGE_LOAD_OPTIONS_INIT;
  draforge_load_options fn;
  std::memset(&fn, 0xff, sizeof fn);
  ASSERT_EQ(draforge_load_options_init(&fn, DRAFORGE_LOAD_OPTIONS_VERSION), DRAFORGE_OK);
  EXPECT_EQ(fn.version, macro.version);
  EXPECT_EQ(fn.strict, macro.strict);
  EXPECT_EQ(fn.max_bytes, macro.max_bytes);
  EXPECT_EQ(fn.stdin_data, macro.stdin_data);
  EXPECT_EQ(fn.stdin_size, macro.stdin_size);
  EXPECT_EQ(draforge_load_options_init(&fn, 99), DRAFORGE_EINVALID);
  draforge_load_options bad = DRAFORGE_LOAD_OPTIONS_INIT;
  bad.version = 99;
  draforge_objects* out = nullptr;
  const char* path = "x.yaml";
  EXPECT_EQ(draforge_objects_load(&out, &path, 1, &bad, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(out, nullptr);
}

TEST(CApiLoad, ApplyFileReadsADirectoryAllOrNothing) {
  TempDir dir;
  dir.Write("a.yaml", kClass);
  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  size_t applied = 0;
  ASSERT_EQ(draforge_cluster_apply_file(cluster->c_handle(), dir.path().c_str(), &applied, nullptr), DRAFORGE_OK);
  EXPECT_EQ(applied, 1u);
  dir.Write("b.yaml", kTwoClaims);  // its second claim does not decode: nothing of b.yaml is applied
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_cluster_apply_file(cluster->c_handle(), dir.path().c_str(), &applied, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("b.yaml: object 2 (line 5): "));
  draforge_error_destroy(e);
  auto snap = cluster->snapshot();
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->count("ResourceClaim"), 0u);
}

TEST(CApiValidate, ReportsTheApiServersFieldErrors) {
  auto objects = draforge::Objects::Parse(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
      "spec: {driver: Bad_Driver, pool: {name: p, resourceSliceCount: 1}, allNodes: true}\n---\n" +
      std::string(kClass));
  ASSERT_TRUE(objects.ok()) << objects.error().message;
  auto invalid = objects->ValidateJson(0);
  ASSERT_TRUE(invalid.ok()) << invalid.error().message;
  EXPECT_THAT(*invalid, HasSubstr(R"("valid":false)"));
  EXPECT_THAT(*invalid, HasSubstr(R"(ResourceSlice.resource.k8s.io \"s\" is invalid)"));
  EXPECT_THAT(*invalid, HasSubstr(R"("field":"spec.driver","type":"Invalid value","value":"\"Bad_Driver\"")"));
  auto valid = objects->ValidateJson(1);
  ASSERT_TRUE(valid.ok());
  EXPECT_EQ(*valid, R"({"valid":true,"message":"","errors":[]})");
  EXPECT_EQ(objects->ValidateJson(2).error().code, DRAFORGE_ENOTFOUND);
}

TEST(CApiFiles, WriteAtomicReplacesTheFileWithTheModeAskedFor) {
  TempDir dir;
  const std::string path = dir.Write("state.yaml", "old");
  const mode_t old_umask = umask(077);
  auto written = draforge::WriteFileAtomic(path, "new contents", 0644);
  umask(old_umask);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(Read(path), "new contents");
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  // No temporary file is left behind.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
  EXPECT_THAT(names, ElementsAre("state.yaml"));
}

TEST(CApiFiles, WriteAtomicFailsWithoutTouchingTheOldFile) {
  TempDir dir;
  auto missing_dir = draforge::WriteFileAtomic(dir.path() + "/no/such/dir/f.yaml", "x");
  ASSERT_FALSE(missing_dir.ok());
  EXPECT_EQ(missing_dir.error().code, DRAFORGE_ENOTFOUND);
  EXPECT_THAT(missing_dir.error().message, HasSubstr("f.yaml"));
  EXPECT_EQ(draforge::WriteFileAtomic(dir.path() + "/", "x").error().code, DRAFORGE_EINVALID);
  EXPECT_EQ(draforge::WriteFileAtomic(dir.path() + "/f", "x", 010000).error().code, DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_file_write_atomic(nullptr, "x", 1, 0644, nullptr), DRAFORGE_EINVALID);
  // A directory where the file should be: the rename fails and the directory stays.
  fs::create_directory(dir.path() + "/taken");
  dir.Write("taken/keep", "kept");
  EXPECT_FALSE(draforge::WriteFileAtomic(dir.path() + "/taken", "x").ok());
  EXPECT_EQ(Read(dir.path() + "/taken/keep"), "kept");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
  EXPECT_THAT(names, ElementsAre("taken"));
}

constexpr char kTwoNodes[] = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec: {driver: gpu.example.com, nodeName: node-1, pool: {name: node-1, generation: 1, resourceSliceCount: 1},
       devices: [{name: gpu-0}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s2}
spec: {driver: nic.example.com, nodeName: node-2, pool: {name: node-2, generation: 1, resourceSliceCount: 1},
       devices: [{name: nic-0}]}
)";

TEST(CApiGraph, RenderFiltersByNodeAndDriverInEveryFormat) {
  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  ASSERT_TRUE(cluster->Apply(kTwoNodes).ok());
  auto snap = cluster->snapshot();
  ASSERT_TRUE(snap.ok());
  draforge::Snapshot::GraphQuery query;
  auto all = snap->RenderGraph(query);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_THAT(*all, HasSubstr("gpu-0"));
  EXPECT_THAT(*all, HasSubstr("nic-0"));
  // The unfiltered JSON is draforge_snapshot_graph_json's (with every device).
  EXPECT_EQ(*all, *snap->GraphJson(/*all_devices=*/true));
  query.node = "node-2";
  for (draforge_graph_format f : {DRAFORGE_GRAPH_JSON, DRAFORGE_GRAPH_DOT, DRAFORGE_GRAPH_TEXT}) {
    query.format = f;
    auto text = snap->RenderGraph(query);
    ASSERT_TRUE(text.ok()) << text.error().message;
    EXPECT_THAT(*text, Not(HasSubstr("gpu-0"))) << f;
    if (f != DRAFORGE_GRAPH_TEXT) {
      EXPECT_THAT(*text, HasSubstr("nic-0")) << f;
    }
  }
  query.format = DRAFORGE_GRAPH_DOT;
  query.node.clear();
  query.driver = "gpu.example.com";
  auto dot = snap->RenderGraph(query);
  ASSERT_TRUE(dot.ok());
  EXPECT_THAT(*dot, HasSubstr("digraph"));
  EXPECT_THAT(*dot, HasSubstr("gpu-0"));
  EXPECT_THAT(*dot, Not(HasSubstr("nic-0")));
  draforge_graph_options bad = DRAFORGE_GRAPH_OPTIONS_INIT;
  bad.format = static_cast<draforge_graph_format>(7);
  draforge_buffer out{nullptr, 0};
  EXPECT_EQ(draforge_snapshot_graph_render(&out, snap->c_handle(), &bad, nullptr), DRAFORGE_EINVALID);
  draforge_graph_options fn;
  ASSERT_EQ(draforge_graph_options_init(&fn, DRAFORGE_GRAPH_OPTIONS_VERSION), DRAFORGE_OK);
  draforge_graph_options macro = DRAFORGE_GRAPH_OPTIONS_INIT;
  EXPECT_EQ(fn.format, macro.format);
  EXPECT_EQ(fn.all_devices, macro.all_devices);
  EXPECT_EQ(draforge_graph_options_init(&fn, 2), DRAFORGE_EINVALID);
}

// draforge_inventory_graph_json and draforge_snapshot_graph_render (JSON) are one implementation:
// the same bytes for every filter a user of the server or the CLI can give.
TEST(CApiGraph, InventoryGraphEqualsRenderedJsonForEveryFilter) {
  const char* root = std::getenv("DRAFORGE_SOURCE_ROOT");
  ASSERT_NE(root, nullptr) << "DRAFORGE_SOURCE_ROOT";
  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  ASSERT_TRUE(cluster->ApplyFile(std::string(root) + "/examples/scenarios/demo.yaml").ok());
  auto snap = cluster->snapshot();
  ASSERT_TRUE(snap.ok());
  struct Case {
    std::string namespace_, node, driver;
  };
  for (const Case& c : {Case{}, Case{"team-a", "", ""}, Case{"", "node-3", ""}, Case{"", "", "gpu.example.com"},
                        Case{"team-a", "node-1", "gpu.example.com"}, Case{"nowhere", "", ""}}) {
    for (bool all_devices : {true, false}) {
      draforge::Snapshot::GraphQuery render;
      render.all_devices = all_devices;
      render.namespace_ = c.namespace_;
      render.node = c.node;
      render.driver = c.driver;
      auto rendered = snap->RenderGraph(render);
      auto inventory = draforge::inventory::GraphJson(*snap, {c.namespace_, c.node, c.driver, all_devices});
      ASSERT_TRUE(rendered.ok() && inventory.ok());
      EXPECT_EQ(*inventory, *rendered) << c.namespace_ << " " << c.node << " " << c.driver << " " << all_devices;
    }
  }
  // The filters cut: the node-3 graph has the MIG devices and not node-1's GPUs.
  auto node3 = draforge::inventory::GraphJson(*snap, {"", "node-3", "", true});
  ASSERT_TRUE(node3.ok());
  EXPECT_THAT(*node3, HasSubstr("Node/node-3"));
  EXPECT_THAT(*node3, Not(HasSubstr("Node/node-1\"")));
}

TEST(CApiJson, ReformatIndentsJsonAndWritesKubectlYaml) {
  auto json = draforge::ReformatJson(R"({"kind":"List","items":[{"a":1}]})", draforge::Format::kJson);
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_EQ(*json, "{\n  \"kind\": \"List\",\n  \"items\": [\n    {\n      \"a\": 1\n    }\n  ]\n}");
  auto yaml = draforge::ReformatJson(R"({"kind":"List","items":[{"a":1}]})", draforge::Format::kYaml);
  ASSERT_TRUE(yaml.ok());
  EXPECT_EQ(*yaml, "items:\n- a: 1\nkind: List\n");  // keys sorted, as kubectl prints them
  auto bad = draforge::ReformatJson("{nope", draforge::Format::kYaml);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, DRAFORGE_EINVALID);
}

}  // namespace
