// The inventory views (draforge/inventory.h) as a caller sees them: the server's schemas with the
// server's filters, paging and errors, one claim's diagnosis, and what changed between snapshots.
// Through the C++ API (draforge.hpp) and, for NULL handling, the C calls.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "draforge/draforge.hpp"
#include "fixtures.h"
#include "rapidjson/document.h"

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kObjects = std::string(draforge_test::kNode1Gpus) + R"(---
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-2-nics}
spec:
  driver: nic.example.com
  nodeName: node-2
  pool: {name: node-2, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: nic-0}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: held, namespace: team-a}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: three, namespace: team-b}
spec:
  devices:
    requests:
    - name: gpus
      exactly: {deviceClassName: gpu.example.com, count: 3}
)";

class Inventory : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cluster.Apply(kObjects).ok()); }
  draforge::Snapshot snapshot() const { return cluster.snapshot().value(); }

  static rapidjson::Document Parse(const draforge::Result<std::string>& json) {
    rapidjson::Document doc;
    EXPECT_TRUE(json.ok()) << json.error().message;
    if (json.ok()) doc.Parse(json->c_str());
    EXPECT_FALSE(doc.HasParseError());
    return doc;
  }
  // The values of member `key` of every item of `list`.
  static std::vector<std::string> Column(const rapidjson::Value& list, const char* key) {
    std::vector<std::string> out;
    for (const auto& item : list.GetArray()) out.push_back(item[key].GetString());
    return out;
  }

  draforge::Cluster cluster = draforge::Cluster::Create().value();
};

TEST_F(Inventory, SummaryCountsAndUtilisation) {
  auto doc = Parse(draforge::inventory::SummaryJson(snapshot()));
  EXPECT_EQ(doc["counts"]["devices"].GetInt(), 3);
  EXPECT_EQ(doc["counts"]["pendingClaims"].GetInt(), 1);
  EXPECT_EQ(doc["counts"]["allocatedDevices"].GetInt(), 1);
  EXPECT_THAT(Column(doc["drivers"], "driver"), ElementsAre("gpu.example.com", "nic.example.com"));
  EXPECT_DOUBLE_EQ(doc["drivers"][0]["utilisation"].GetDouble(), 0.5);
  EXPECT_EQ(doc["snapshot"]["generation"].GetUint64(), snapshot().generation());
}

TEST_F(Inventory, PoolsFilterByDriverAndNode) {
  auto all = Parse(draforge::inventory::PoolsJson(snapshot()));
  EXPECT_THAT(Column(all["items"], "pool"), ElementsAre("node-1", "node-2"));
  EXPECT_EQ(all["items"][0]["allocatedDevices"].GetInt(), 1);
  EXPECT_THAT(Column(all["items"], "node"), ElementsAre("node-1", "node-2"));
  auto nics = Parse(draforge::inventory::PoolsJson(snapshot(), "nic.example.com"));
  EXPECT_THAT(Column(nics["items"], "driver"), ElementsAre("nic.example.com"));
  auto node1 = Parse(draforge::inventory::PoolsJson(snapshot(), "", "node-1"));
  EXPECT_THAT(Column(node1["items"], "pool"), ElementsAre("node-1"));
  auto none = Parse(draforge::inventory::PoolsJson(snapshot(), "nic.example.com", "node-1"));
  EXPECT_EQ(none["items"].Size(), 0u);
}

TEST_F(Inventory, DevicesArePagedAndFiltered) {
  auto all = Parse(draforge::inventory::DevicesJson(snapshot()));
  EXPECT_EQ(all["total"].GetInt(), 3);
  EXPECT_EQ(all["limit"].GetInt(), DRAFORGE_INVENTORY_DEFAULT_DEVICE_LIMIT);
  EXPECT_THAT(Column(all["items"], "name"), ElementsAre("gpu-0", "gpu-1", "nic-0"));
  // Attributes as the ResourceSlice spells them.
  EXPECT_STREQ(all["items"][0]["attributes"]["model"]["string"].GetString(), "a100");

  auto page = Parse(draforge::inventory::DevicesJson(snapshot(), {.offset = 1, .limit = 1}));
  EXPECT_EQ(page["total"].GetInt(), 3);  // every match, not the page
  EXPECT_THAT(Column(page["items"], "name"), ElementsAre("gpu-1"));
  auto past = Parse(draforge::inventory::DevicesJson(snapshot(), {.offset = 10}));
  EXPECT_EQ(past["items"].Size(), 0u);

  auto free_gpus =
      Parse(draforge::inventory::DevicesJson(snapshot(), {.driver = "gpu.example.com", .allocated = false}));
  EXPECT_THAT(Column(free_gpus["items"], "name"), ElementsAre("gpu-1"));
  auto held = Parse(draforge::inventory::DevicesJson(snapshot(), {.allocated = true}));
  EXPECT_THAT(Column(held["items"], "id"), ElementsAre("Device/gpu.example.com/node-1/gpu-0"));
  EXPECT_STREQ(held["items"][0]["heldBy"][0]["name"].GetString(), "held");
}

TEST_F(Inventory, DeviceLimitAndAllocatedAreChecked) {
  auto over = draforge::inventory::DevicesJson(snapshot(), {.limit = DRAFORGE_INVENTORY_MAX_DEVICE_LIMIT + 1});
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code, DRAFORGE_EINVALID);
  EXPECT_THAT(over.error().message, HasSubstr("\"limit\" must be at most 10000"));
  draforge_buffer out{nullptr, 0};
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_inventory_devices_json(&out, snapshot().c_handle(), nullptr, nullptr, nullptr, 2, 0, 0, &e),
            DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("\"allocated\""));
  draforge_error_destroy(e);
  // limit 0 is the default page.
  ASSERT_EQ(draforge_inventory_devices_json(&out, snapshot().c_handle(), nullptr, nullptr, nullptr,
                                            DRAFORGE_INVENTORY_ANY, 0, 0, nullptr),
            DRAFORGE_OK);
  EXPECT_THAT(std::string(out.ptr, out.size), HasSubstr("\"limit\":1000"));
  draforge_buffer_dispose(&out);
}

TEST_F(Inventory, ClaimsByNamespaceAndState) {
  auto all = Parse(draforge::inventory::ClaimsJson(snapshot()));
  EXPECT_THAT(Column(all["items"], "name"), ElementsAre("held", "three"));
  EXPECT_THAT(Column(all["items"], "state"), ElementsAre("allocated", "pending"));
  auto pending = Parse(draforge::inventory::ClaimsJson(snapshot(), "", "pending"));
  EXPECT_THAT(Column(pending["items"], "name"), ElementsAre("three"));
  auto team_a = Parse(draforge::inventory::ClaimsJson(snapshot(), "team-a"));
  EXPECT_THAT(Column(team_a["items"], "name"), ElementsAre("held"));
  for (const char* bad : {"done", ""}) {  // "" is a filter given empty, not "any"
    auto r = draforge::inventory::ClaimsJson(snapshot(), "", std::string_view(bad));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, DRAFORGE_EINVALID);
    EXPECT_THAT(r.error().message, HasSubstr("\"state\" must be pending, allocated or reserved, not \"" +
                                             std::string(bad) + "\""));
  }
}

TEST_F(Inventory, GraphIsFilteredByNode) {
  auto whole = Parse(draforge::inventory::GraphJson(snapshot()));
  auto node2 = Parse(draforge::inventory::GraphJson(snapshot(), {.node = "node-2"}));
  EXPECT_LT(node2["nodes"].Size(), whole["nodes"].Size());
  for (const auto& n : node2["nodes"].GetArray()) {
    EXPECT_THAT(std::string(n["id"].GetString()), ::testing::Not(HasSubstr("gpu-0")));
  }
}

TEST_F(Inventory, DiagnosticsAndOneClaimsDiagnosis) {
  auto all = Parse(draforge::inventory::DiagnosticsJson(snapshot()));
  ASSERT_EQ(all["pending"].Size(), 1u);
  EXPECT_STREQ(all["pending"][0]["name"].GetString(), "three");
  EXPECT_EQ(Parse(draforge::inventory::DiagnosticsJson(snapshot(), "team-a"))["pending"].Size(), 0u);

  auto one = Parse(draforge::inventory::ClaimDiagnosisJson(snapshot(), "team-b/three"));
  const auto& d = one["diagnosis"];
  // The same entry as the list's, with explain's funnel and the verdict on every node.
  EXPECT_STREQ(d["outcome"].GetString(), all["pending"][0]["outcome"].GetString());
  EXPECT_STREQ(d["outcome"].GetString(), "waiting-for-consumer");
  EXPECT_EQ(d["requests"][0]["needed"].GetInt(), 3);
  EXPECT_EQ(d["nodesTried"].GetInt(), 2);
  EXPECT_EQ(d["fitsOn"].Size(), 0u);

  auto missing = draforge::inventory::ClaimDiagnosisJson(snapshot(), "team-b/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, DRAFORGE_ENOTFOUND);
  auto allocated = draforge::inventory::ClaimDiagnosisJson(snapshot(), "team-a/held");
  ASSERT_FALSE(allocated.ok());
  EXPECT_EQ(allocated.error().code, DRAFORGE_EINVALID);
  EXPECT_THAT(allocated.error().message, HasSubstr("is allocated, not pending"));
}

TEST_F(Inventory, ChangesBetweenSnapshots) {
  const draforge::Snapshot before = snapshot();
  ASSERT_TRUE(cluster.Delete("ResourceClaim", "team-a", "held").ok());
  ASSERT_TRUE(cluster
                  .Apply("apiVersion: v1\nkind: Node\nmetadata: {name: node-1, labels: {zone: a}}\n---\n"
                         "apiVersion: v1\nkind: Node\nmetadata: {name: node-3}\n")
                  .ok());
  auto changes = draforge::inventory::ChangesJson(before, snapshot());
  ASSERT_TRUE(changes.ok());
  EXPECT_EQ(changes->count, 3u);
  rapidjson::Document doc;
  doc.Parse(changes->json.c_str());
  EXPECT_THAT(Column(doc["changes"], "type"), ElementsAre("DELETED", "MODIFIED", "ADDED"));
  EXPECT_THAT(Column(doc["changes"], "name"), ElementsAre("held", "node-1", "node-3"));
  EXPECT_EQ(doc["previousGeneration"].GetUint64(), before.generation());
  EXPECT_EQ(doc["generation"].GetUint64(), snapshot().generation());

  EXPECT_EQ(draforge::inventory::ChangesJson(before, before)->count, 0u);
  // Another store with the same objects: compared by content, nothing differs.
  auto twin = draforge::Cluster::Create().value();
  ASSERT_TRUE(twin.Apply(kObjects).ok());
  EXPECT_EQ(draforge::inventory::ChangesJson(before, twin.snapshot().value())->count, 0u);
}

TEST_F(Inventory, SnapshotResourceVersion) {
  EXPECT_EQ(snapshot().resource_version(), "");
  ASSERT_TRUE(cluster.Apply("apiVersion: v1\nkind: Node\nmetadata: {name: node-9, resourceVersion: \"42\"}\n").ok());
  EXPECT_EQ(snapshot().resource_version(), "42");
  EXPECT_STREQ(draforge_snapshot_resource_version(nullptr), "");
}

TEST_F(Inventory, NullArgumentsAreInvalid) {
  draforge_buffer out{nullptr, 0};
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_inventory_summary_json(&out, nullptr, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("draforge_inventory_summary_json"));
  draforge_error_destroy(e);
  EXPECT_EQ(draforge_inventory_pools_json(nullptr, snapshot().c_handle(), nullptr, nullptr, nullptr),
            DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_inventory_changes_json(&out, nullptr, snapshot().c_handle(), nullptr, nullptr),
            DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_inventory_claim_diagnosis_json(&out, snapshot().c_handle(), "", nullptr), DRAFORGE_EINVALID);
}

// A slice read as v1beta1 (attributes and capacity nested under "basic") is shown in the view's v1
// shape: its devices keep their attributes and capacity.
TEST_F(Inventory, DevicesOfABetaSliceKeepTheirAttributes) {
  ASSERT_TRUE(cluster.Apply(R"(
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: node-3-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-3
  pool: {name: node-3, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes: {model: {string: h100}}
      capacity: {memory: {value: 80Gi}}
)").ok());
  auto doc = Parse(draforge::inventory::DevicesJson(snapshot(), {.node = "node-3"}));
  ASSERT_EQ(doc["items"].Size(), 1u);
  EXPECT_STREQ(doc["items"][0]["attributes"]["model"]["string"].GetString(), "h100");
  EXPECT_STREQ(doc["items"][0]["capacity"]["memory"]["value"].GetString(), "80Gi");
}

// Each pod's claims in spec order, resolved as the kubelet does: a named claim, a template's claim
// by status.resourceClaimStatuses, a template whose claim is not created yet, and a claim known
// only from its reservedFor.
TEST_F(Inventory, PodsWithTheClaimsTheyUse) {
  ASSERT_TRUE(cluster.Apply(R"(
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: team-a, uid: u-1}
spec:
  nodeName: node-1
  resourceClaims:
  - {name: gpu, resourceClaimName: held}
  - {name: scratch, resourceClaimTemplateName: scratch-tpl}
  - {name: made, resourceClaimTemplateName: made-tpl}
status:
  phase: Running
  resourceClaimStatuses:
  - {name: made, resourceClaimName: trainer-made-x1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: side, namespace: team-a}
spec: {}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-1}
  reservedFor:
  - {resource: pods, name: trainer, uid: u-1}
)").ok());
  auto doc = Parse(draforge::inventory::PodsJson(snapshot(), "team-a"));
  ASSERT_EQ(doc["items"].Size(), 1u);
  const auto& pod = doc["items"][0];
  EXPECT_STREQ(pod["node"].GetString(), "node-1");
  EXPECT_STREQ(pod["phase"].GetString(), "Running");
  const auto& claims = pod["claims"];
  EXPECT_THAT(Column(claims, "name"), ElementsAre("gpu", "scratch", "made", ""));
  EXPECT_THAT(Column(claims, "resourceClaimName"), ElementsAre("held", "", "trainer-made-x1", "side"));
  EXPECT_THAT(Column(claims, "resourceClaimTemplateName"), ElementsAre("", "scratch-tpl", "made-tpl", ""));
  EXPECT_THAT(Column(claims, "state"), ElementsAre("allocated", "", "", "reserved"));
  EXPECT_TRUE(claims[0]["stored"].GetBool());
  EXPECT_FALSE(claims[2]["stored"].GetBool());  // named by the status, not stored here
  EXPECT_TRUE(claims[3]["reserved"].GetBool());
  EXPECT_EQ(Parse(draforge::inventory::PodsJson(snapshot(), "team-b"))["items"].Size(), 0u);
}

TEST(KindInfo, KindsAsKubectlNamesThem) {
  auto parse = [](std::string_view name) {
    auto json = draforge::KindInfoJson(name);
    rapidjson::Document doc;
    EXPECT_TRUE(json.ok()) << name;
    if (json.ok()) doc.Parse(json->c_str());
    return doc;
  };
  auto pod = parse("po");
  EXPECT_STREQ(pod["kind"].GetString(), "Pod");
  EXPECT_STREQ(pod["resource"].GetString(), "pods");
  EXPECT_TRUE(pod["namespaced"].GetBool());
  auto slices = parse("ResourceSlices");
  EXPECT_STREQ(slices["kind"].GetString(), "ResourceSlice");
  EXPECT_FALSE(slices["namespaced"].GetBool());
  auto unknown = draforge::KindInfoJson("widgets");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, DRAFORGE_EUNSUPPORTED);
  EXPECT_THAT(unknown.error().message, HasSubstr("unknown kind \"widgets\""));
}

}  // namespace
