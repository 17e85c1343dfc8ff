// The C ABI's behaviour as a C or C++ caller sees it: the error model, ownership, options structs,
// the store, the graph, allocation, explain and CEL. Only draforge/draforge.h is used.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "draforge/draforge.h"
#include "fixtures.h"

namespace {

using ::testing::HasSubstr;

// node-1's two GPUs and two claims for them: team-a/two (fits) and team-a/three (does not).
const std::string kCluster = std::string(draforge_test::kNode1Gpus) + "---" + draforge_test::kClaimTwo + R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: three, namespace: team-a}
spec:
  devices:
    requests:
    - name: gpus
      exactly: {deviceClassName: gpu.example.com, count: 3}
)";

using draforge_test::Take;

// A cluster loaded with kCluster.
class CApi : public draforge_test::ClusterFixture {
 protected:
  CApi() : ClusterFixture(kCluster) {}
  void SetUp() override {
    ClusterFixture::SetUp();
    EXPECT_EQ(applied_, 4u);
  }
};

TEST(CApiVersion, MatchesHeader) {
  EXPECT_STREQ(draforge_version(), DRAFORGE_VERSION_STRING);
  int major = -1, minor = -1, micro = -1;
  draforge_version_numbers(&major, &minor, &micro);
  EXPECT_EQ(major, DRAFORGE_VERSION_MAJOR);
  EXPECT_EQ(minor, DRAFORGE_VERSION_MINOR);
  EXPECT_EQ(micro, DRAFORGE_VERSION_MICRO);
  draforge_version_numbers(nullptr, nullptr, nullptr);  // any pointer may be NULL
  EXPECT_STREQ(draforge_kubernetes_version(), "1.37");
}

TEST(CApiOptions, InitMacroAndInitFunctionAgree) {
  const draforge_allocate_options by_macro = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  draforge_allocate_options by_call;
  std::memset(&by_call, 0xAB, sizeof by_call);
  ASSERT_EQ(draforge_allocate_options_init(&by_call, DRAFORGE_ALLOCATE_OPTIONS_VERSION), DRAFORGE_OK);
  EXPECT_EQ(by_call.version, by_macro.version);
  EXPECT_EQ(by_call.feature_gates, by_macro.feature_gates);
  EXPECT_EQ(by_call.unlock_locked_gates, by_macro.unlock_locked_gates);
  EXPECT_EQ(by_call.node_labels_json, by_macro.node_labels_json);
  EXPECT_EQ(by_call.max_steps, by_macro.max_steps);
  EXPECT_EQ(by_call.prune_search, by_macro.prune_search);
  EXPECT_EQ(by_macro.prune_search, 1);  // pruning on unless asked otherwise, as for version 1 callers

  const draforge_cel_options cel_macro = DRAFORGE_CEL_OPTIONS_INIT;
  draforge_cel_options cel_call;
  std::memset(&cel_call, 0xAB, sizeof cel_call);
  ASSERT_EQ(draforge_cel_options_init(&cel_call, DRAFORGE_CEL_OPTIONS_VERSION), DRAFORGE_OK);
  EXPECT_EQ(cel_call.version, cel_macro.version);
  EXPECT_EQ(cel_call.feature_gates, cel_macro.feature_gates);
  EXPECT_EQ(cel_call.check_estimated_cost, cel_macro.check_estimated_cost);
  EXPECT_EQ(cel_call.cost_limit, cel_macro.cost_limit);
}

TEST(CApiOptions, UnknownVersionsAreRejected) {
  draforge_allocate_options o;
  EXPECT_EQ(draforge_allocate_options_init(&o, 0), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_allocate_options_init(&o, DRAFORGE_ALLOCATE_OPTIONS_VERSION + 1), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_allocate_options_init(nullptr, DRAFORGE_ALLOCATE_OPTIONS_VERSION), DRAFORGE_EINVALID);
  draforge_cel_options c;
  EXPECT_EQ(draforge_cel_options_init(&c, 99), DRAFORGE_EINVALID);
}

TEST(CApiOptions, DefaultFeatureGatesAreKubernetes137s) {
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_feature_gates_json(&b, nullptr, 0, nullptr), DRAFORGE_OK);
  const std::string json = Take(b);
  // GA/beta-on gates are on, alpha gates off: never all-off.
  EXPECT_THAT(json, HasSubstr("\"DRAPrioritizedList\":true"));
  EXPECT_THAT(json, HasSubstr("\"DRAConsumableCapacity\":true"));
  EXPECT_THAT(json, HasSubstr("\"DRAPartitionableDevices\":true"));
  EXPECT_THAT(json, HasSubstr("\"DRAListTypeAttributes\":false"));
  ASSERT_EQ(draforge_feature_gates_json(&b, "DRAListTypeAttributes=true", 0, nullptr), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("\"DRAListTypeAttributes\":true"));
}

TEST(CApiOptions, BadFeatureGatesAreErrors) {
  draforge_buffer b = {nullptr, 0};
  draforge_error* e = nullptr;
  ASSERT_EQ(draforge_feature_gates_json(&b, "DRANoSuchGate=true", 0, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("unrecognized feature gate: DRANoSuchGate"));
  EXPECT_EQ(b.ptr, nullptr);
  draforge_error_destroy(e);
  e = nullptr;
  // Locked gates: an error unless unlocked, as kube-scheduler.
  ASSERT_EQ(draforge_feature_gates_json(&b, "DRAPrioritizedList=false", 0, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("locked"));
  draforge_error_destroy(e);
  ASSERT_EQ(draforge_feature_gates_json(&b, "DRAPrioritizedList=false", 1, nullptr), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("\"DRAPrioritizedList\":false"));
}

// Another Kubernetes version's gates: 1.34 has no DRADeviceTaintRules and consumable capacity off.
TEST(CApiOptions, KubernetesVersionGates) {
  draforge_buffer b = {nullptr, 0};
  draforge_error* e = nullptr;
  ASSERT_EQ(draforge_kubernetes_feature_gates_json(&b, "1.34", nullptr, 0, nullptr), DRAFORGE_OK);
  const std::string json = Take(b);
  EXPECT_THAT(json, HasSubstr("\"DRAConsumableCapacity\":false"));
  EXPECT_THAT(json, ::testing::Not(HasSubstr("DRADeviceTaintRules")));
  ASSERT_EQ(draforge_kubernetes_feature_gates_json(&b, "1.34", "DRADeviceTaintRules=true", 0, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("unrecognized feature gate: DRADeviceTaintRules"));
  draforge_error_destroy(e);
  e = nullptr;
  ASSERT_EQ(draforge_kubernetes_feature_gates_json(&b, "1.33", nullptr, 0, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("kubernetes_version: unsupported Kubernetes version 1.33"));
  draforge_error_destroy(e);
  ASSERT_EQ(draforge_kubernetes_versions_json(&b, nullptr), DRAFORGE_OK);
  const std::string versions = Take(b);
  EXPECT_THAT(versions, HasSubstr("{\"version\":\"1.34\",\"latest\":false,\"allocatorVariant\":\"experimental\""));
  EXPECT_THAT(versions, HasSubstr("\"DeviceTaintRule\":[\"v1beta2\",\"v1alpha3\"]"));
  // A version 2 caller's struct ends before kubernetes_version: the library must not read it.
  draforge_allocate_options o;
  ASSERT_EQ(draforge_allocate_options_init(&o, 2), DRAFORGE_OK);
  ASSERT_EQ(draforge_allocate_options_init(&o, 3), DRAFORGE_OK);
  EXPECT_EQ(o.kubernetes_version, nullptr);
}

TEST(CApiErrors, DestroyNullIsANoOp) {
  draforge_error_destroy(nullptr);
  draforge_objects_destroy(nullptr);
  draforge_cluster_destroy(nullptr);
  draforge_snapshot_destroy(nullptr);
  draforge_allocation_result_destroy(nullptr);
  draforge_explanation_destroy(nullptr);
  draforge_cel_selector_destroy(nullptr);
  draforge_cdi_specs_destroy(nullptr);
  draforge_buffer_dispose(nullptr);
  draforge_buffer zero = {nullptr, 0};
  draforge_buffer_dispose(&zero);
}

TEST(CApiErrors, ErrorNamesTheObjectAndField) {
  draforge_cluster* c = nullptr;
  ASSERT_EQ(draforge_cluster_create(&c, nullptr, nullptr), DRAFORGE_OK);
  const char bad[] = "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"x\"},"
                     "\"spec\":{\"driver\":7}}";
  draforge_error* e = nullptr;
  size_t applied = 99;
  EXPECT_EQ(draforge_cluster_apply(c, bad, sizeof bad - 1, &applied, &e), DRAFORGE_EINVALID);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(draforge_error_code_of(e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("spec.driver"));
  EXPECT_STREQ(draforge_error_object(e), "ResourceSlice/x");
  EXPECT_STREQ(draforge_error_field(e), "spec.driver");
  EXPECT_EQ(applied, 0u);
  draforge_error_destroy(e);
  draforge_cluster_destroy(c);
}

TEST(CApiErrors, ErrorsWithoutAnObjectHaveEmptyObjectAndField) {
  draforge_cel_selector* s = nullptr;
  draforge_error* e = nullptr;
  ASSERT_EQ(draforge_cel_selector_compile(&s, "device.driver ==", nullptr, &e), DRAFORGE_EINVALID);
  EXPECT_EQ(s, nullptr);
  EXPECT_STREQ(draforge_error_object(e), "");
  EXPECT_STREQ(draforge_error_field(e), "");
  draforge_error_destroy(e);
  // A NULL error pointer is allowed: the code alone comes back.
  EXPECT_EQ(draforge_cel_selector_compile(&s, "device.driver ==", nullptr, nullptr), DRAFORGE_EINVALID);
}

TEST(CApiErrors, NullArgumentsAreInvalidNotCrashes) {
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_cluster_create(nullptr, nullptr, &e), DRAFORGE_EINVALID);
  draforge_error_destroy(e);
  EXPECT_EQ(draforge_cluster_apply(nullptr, "x", 1, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_cluster_snapshot(nullptr, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_allocate(nullptr, nullptr, nullptr, 0, nullptr, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_explain(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_cel_evaluate(nullptr, nullptr, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_snapshot_generation(nullptr), 0u);
  EXPECT_EQ(draforge_allocation_result_claim(nullptr, 0), nullptr);
}

TEST(CApiCluster, ApplyIsAllOrNothing) {
  draforge_cluster* c = nullptr;
  ASSERT_EQ(draforge_cluster_create(&c, nullptr, nullptr), DRAFORGE_OK);
  const char two[] =
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: good}\n---\n"
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: bad}\nspec: {selectors: 3}\n";
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_cluster_apply(c, two, sizeof two - 1, nullptr, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("object 2"));
  EXPECT_STREQ(draforge_error_object(e), "DeviceClass/bad");
  draforge_error_destroy(e);
  draforge_snapshot* s = nullptr;
  ASSERT_EQ(draforge_cluster_snapshot(&s, c, nullptr), DRAFORGE_OK);
  EXPECT_EQ(draforge_snapshot_count(s, "DeviceClass"), 0u) << "the good class must not be applied alone";
  EXPECT_EQ(draforge_snapshot_generation(s), 0u);
  draforge_snapshot_destroy(s);
  draforge_cluster_destroy(c);
}

// What applying `text` (or, with `file`, the file at that path) to a new cluster answers: the code
// and the error's message ("" on success).
struct Applied {
  int code;
  std::string message;
};
Applied ApplyToNewCluster(const std::string& text, bool file = false) {
  draforge_cluster* c = nullptr;
  if (draforge_cluster_create(&c, nullptr, nullptr) != DRAFORGE_OK) return {DRAFORGE_EINTERNAL, "create failed"};
  draforge_error* e = nullptr;
  const int code = file ? draforge_cluster_apply_file(c, text.c_str(), nullptr, &e)
                        : draforge_cluster_apply(c, text.data(), text.size(), nullptr, &e);
  Applied out{code, e != nullptr ? draforge_error_message(e) : ""};
  draforge_error_destroy(e);
  draforge_cluster_destroy(c);
  return out;
}

TEST(CApiCluster, ObjectsWithoutANameAreRejected) {
  const Applied r = ApplyToNewCluster("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {}\n");
  EXPECT_EQ(r.code, DRAFORGE_EINVALID);
  EXPECT_THAT(r.message, HasSubstr("metadata.name"));
}

TEST(CApiCluster, UnsupportedVersionIsUnsupported) {
  const Applied r = ApplyToNewCluster("apiVersion: resource.k8s.io/v1alpha1\nkind: DeviceClass\nmetadata: {name: x}\n");
  EXPECT_EQ(r.code, DRAFORGE_EUNSUPPORTED);
  EXPECT_THAT(r.message, HasSubstr("unsupported apiVersion"));
}

TEST(CApiCluster, MissingFileIsNotFound) {
  const Applied r = ApplyToNewCluster("/nonexistent/x.yaml", /*file=*/true);
  EXPECT_EQ(r.code, DRAFORGE_ENOTFOUND);
  EXPECT_THAT(r.message, HasSubstr("/nonexistent/x.yaml"));
}

TEST_F(CApi, SnapshotsAreImmutableAndOutliveTheirCluster) {
  EXPECT_EQ(draforge_snapshot_count(snapshot_, "ResourceClaim"), 2u);
  EXPECT_EQ(draforge_snapshot_count(snapshot_, "resourceslices"), 1u);
  EXPECT_EQ(draforge_snapshot_count(snapshot_, "NoSuchKind"), 0u);
  int deleted = -1;
  ASSERT_EQ(draforge_cluster_delete(cluster_, "ResourceClaim", "team-a", "three", &deleted, nullptr), DRAFORGE_OK);
  EXPECT_EQ(deleted, 1);
  ASSERT_EQ(draforge_cluster_delete(cluster_, "ResourceClaim", "team-a", "three", &deleted, nullptr), DRAFORGE_OK);
  EXPECT_EQ(deleted, 0) << "deleting what is not stored is not an error";
  EXPECT_EQ(draforge_snapshot_count(snapshot_, "ResourceClaim"), 2u) << "old snapshot unchanged";
  draforge_snapshot* later = nullptr;
  ASSERT_EQ(draforge_cluster_snapshot(&later, cluster_, nullptr), DRAFORGE_OK);
  draforge_cluster_destroy(cluster_);
  cluster_ = nullptr;
  EXPECT_EQ(draforge_snapshot_count(later, "ResourceClaim"), 1u);
  EXPECT_GT(draforge_snapshot_generation(later), draforge_snapshot_generation(snapshot_));
  draforge_snapshot_destroy(later);
}

TEST_F(CApi, DeleteOfAnUnknownKindIsUnsupported) {
  EXPECT_EQ(draforge_cluster_delete(cluster_, "Deployment", "default", "x", nullptr, &error_), DRAFORGE_EUNSUPPORTED);
  EXPECT_THAT(draforge_error_message(error_), HasSubstr("unsupported kind \"Deployment\""));
}

TEST_F(CApi, GetJsonAndObjectsJson) {
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_snapshot_get_json(&b, snapshot_, "ResourceClaim", "team-a", "two", nullptr), DRAFORGE_OK);
  const std::string claim = Take(b);
  EXPECT_THAT(claim, HasSubstr("\"apiVersion\":\"resource.k8s.io/v1\""));
  EXPECT_THAT(claim, HasSubstr("\"count\":2"));
  EXPECT_EQ(draforge_snapshot_get_json(&b, snapshot_, "ResourceClaim", "team-a", "nope", &error_), DRAFORGE_ENOTFOUND);
  EXPECT_THAT(draforge_error_message(error_), HasSubstr("ResourceClaim \"team-a/nope\" not found"));
  ASSERT_EQ(draforge_snapshot_objects_json(&b, snapshot_, "DeviceClass", nullptr), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("\"name\":\"gpu.example.com\""));
  ASSERT_EQ(draforge_snapshot_objects_json(&b, snapshot_, nullptr, nullptr), DRAFORGE_OK);
  const std::string all = Take(b);
  EXPECT_THAT(all, HasSubstr("\"kind\":\"ResourceSlice\""));
  EXPECT_THAT(all, HasSubstr("\"kind\":\"ResourceClaim\""));
}

TEST_F(CApi, GraphAndPools) {
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_snapshot_graph_json(&b, snapshot_, 1, nullptr), DRAFORGE_OK);
  const std::string graph = Take(b);
  EXPECT_THAT(graph, HasSubstr("\"id\":\"Device/gpu.example.com/node-1/gpu-0\""));
  EXPECT_THAT(graph, HasSubstr("\"id\":\"ResourceClaim/team-a/two\""));
  ASSERT_EQ(draforge_snapshot_pools_json(&b, snapshot_, nullptr), DRAFORGE_OK);
  const std::string pools = Take(b);
  EXPECT_THAT(pools, HasSubstr("\"driver\":\"gpu.example.com\",\"pool\":\"node-1\""));
  EXPECT_THAT(pools, HasSubstr("\"devices\":2,\"allocated\":0"));
}

TEST(CApiCluster, PoolsOfNetworkAttachedDevicesHaveNoNode) {
  // A pool without spec.nodeName: its node is "", which once tripped a rapidjson assertion (abort).
  const char slice[] = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: net}\n"
                       "spec: {driver: d.example.com, allNodes: true, pool: {name: p, resourceSliceCount: 1},"
                       " devices: [{name: a}]}\n";
  draforge_cluster* c = nullptr;
  ASSERT_EQ(draforge_cluster_create(&c, nullptr, nullptr), DRAFORGE_OK);
  ASSERT_EQ(draforge_cluster_apply(c, slice, sizeof slice - 1, nullptr, nullptr), DRAFORGE_OK);
  draforge_snapshot* s = nullptr;
  ASSERT_EQ(draforge_cluster_snapshot(&s, c, nullptr), DRAFORGE_OK);
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_snapshot_pools_json(&b, s, nullptr), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("\"node\":\"\",\"devices\":1,\"allocated\":0"));
  draforge_snapshot_destroy(s);
  draforge_cluster_destroy(c);
}

TEST_F(CApi, AllocateFitsAndResultIsTheCallers) {
  const char* claims[] = {"team-a/two"};
  draforge_allocation_result* r = nullptr;
  ASSERT_EQ(draforge_allocate(&r, snapshot_, claims, 1, "node-1", nullptr, &error_), DRAFORGE_OK)
      << draforge_error_message(error_);
  EXPECT_EQ(draforge_allocation_result_outcome(r), DRAFORGE_OUTCOME_ALLOCATED);
  ASSERT_EQ(draforge_allocation_result_claim_count(r), 1u);
  EXPECT_STREQ(draforge_allocation_result_claim(r, 0), "team-a/two");
  EXPECT_EQ(draforge_allocation_result_claim(r, 1), nullptr);
  EXPECT_GT(draforge_allocation_result_search_steps(r), 0);
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_allocation_result_allocation_json(&b, r, 0, nullptr), DRAFORGE_OK);
  const std::string allocation = Take(b);
  EXPECT_THAT(allocation, HasSubstr("\"device\":\"gpu-0\""));
  EXPECT_THAT(allocation, HasSubstr("\"device\":\"gpu-1\""));
  EXPECT_THAT(allocation, HasSubstr("\"nodeSelector\""));
  ASSERT_EQ(draforge_allocation_result_json(&b, r, nullptr), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("\"outcome\":\"allocated\",\"node\":\"node-1\""));
  draforge_allocation_result_destroy(r);
}

TEST_F(CApi, DoesNotFitIsAResultNotAnError) {
  const char* claims[] = {"team-a/three"};
  draforge_allocation_result* r = nullptr;
  ASSERT_EQ(draforge_allocate(&r, snapshot_, claims, 1, "node-1", nullptr, &error_), DRAFORGE_OK);
  EXPECT_EQ(error_, nullptr);
  EXPECT_EQ(draforge_allocation_result_outcome(r), DRAFORGE_OUTCOME_UNSCHEDULABLE);
  EXPECT_EQ(draforge_allocation_result_claim_count(r), 0u);
  ASSERT_GE(draforge_allocation_result_reason_count(r), 1u);
  EXPECT_STREQ(draforge_allocation_result_reason(r, 0), "cannot allocate all claims");
  draforge_allocation_result_destroy(r);
  // Other node: nothing is there either.
  const char* two[] = {"team-a/two"};
  ASSERT_EQ(draforge_allocate(&r, snapshot_, two, 1, "node-2", nullptr, nullptr), DRAFORGE_OK);
  EXPECT_EQ(draforge_allocation_result_outcome(r), DRAFORGE_OUTCOME_UNSCHEDULABLE);
  draforge_allocation_result_destroy(r);
}

TEST_F(CApi, AllocateBadInput) {
  draforge_allocation_result* r = nullptr;
  const char* missing[] = {"team-a/missing"};
  EXPECT_EQ(draforge_allocate(&r, snapshot_, missing, 1, "node-1", nullptr, &error_), DRAFORGE_ENOTFOUND);
  EXPECT_EQ(r, nullptr);
  EXPECT_STREQ(draforge_error_object(error_), "ResourceClaim/team-a/missing");
  draforge_error_destroy(error_);
  error_ = nullptr;
  const char* two[] = {"team-a/two"};
  EXPECT_EQ(draforge_allocate(&r, snapshot_, two, 0, "node-1", nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_allocate(&r, snapshot_, two, 1, "", nullptr, nullptr), DRAFORGE_EINVALID);
  draforge_allocate_options o = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  o.version = 7;
  EXPECT_EQ(draforge_allocate(&r, snapshot_, two, 1, "node-1", &o, &error_), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(error_), HasSubstr("unsupported version 7"));
  draforge_error_destroy(error_);
  error_ = nullptr;
  o = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  o.node_labels_json = "[1]";
  EXPECT_EQ(draforge_allocate(&r, snapshot_, two, 1, "node-1", &o, &error_), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(error_), HasSubstr("node_labels_json"));
  draforge_error_destroy(error_);
  error_ = nullptr;
  o = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  o.feature_gates = "DRAAdminAccess=maybe";
  EXPECT_EQ(draforge_allocate(&r, snapshot_, two, 1, "node-1", &o, &error_), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(error_), HasSubstr("feature_gates"));
}

TEST_F(CApi, MaxStepsIsALimit) {
  draforge_allocate_options o = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  o.max_steps = 1;
  // A claim that fits: its search needs more than one step (an impossible one, such as "three",
  // is refused at the first step by the allocator's bound, before any limit).
  const char* claims[] = {"team-a/two"};
  draforge_allocation_result* r = nullptr;
  EXPECT_EQ(draforge_allocate(&r, snapshot_, claims, 1, "node-1", &o, &error_), DRAFORGE_ELIMIT);
  EXPECT_THAT(draforge_error_message(error_), HasSubstr("aborted"));
  EXPECT_EQ(r, nullptr);
}

// Eight interchangeable GPUs on one PCIe root and a claim for four of them plus a NIC on the same
// root, whose only NIC is in use: unsatisfiable. kube-scheduler tries every placement of the four
// GPUs first; dra-allocate (k8s.io/dynamic-resource-allocation v0.37.2, tests/oracle) reports
// num_allocate_one_invocations 233 for "job" and 7 for "fits" on this input.
// Read from tests/capi/data/prune-twins.yaml (also used by the Python tests).
std::string Twins() {
  const char* root = std::getenv("DRAFORGE_SOURCE_ROOT");
  std::ifstream in(std::string(root != nullptr ? root : ".") + "/tests/capi/data/prune-twins.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What a caller sees of one allocation: the return code and, on success, the result JSON (outcome,
// allocations, reasons) without the step counter, plus the step counter.
struct Seen {
  int rc = DRAFORGE_OK;
  std::string json;  // searchSteps removed
  int64_t steps = -1;
  std::string error;
};

Seen AllocateWith(const draforge_snapshot* snapshot, const char* claim, const draforge_allocate_options* o) {
  Seen seen;
  const char* claims[] = {claim};
  draforge_allocation_result* r = nullptr;
  draforge_error* e = nullptr;
  seen.rc = draforge_allocate(&r, snapshot, claims, 1, "node-1", o, &e);
  if (seen.rc != DRAFORGE_OK) {
    seen.error = draforge_error_message(e);
    draforge_error_destroy(e);
    return seen;
  }
  seen.steps = draforge_allocation_result_search_steps(r);
  draforge_buffer b = {nullptr, 0};
  EXPECT_EQ(draforge_allocation_result_json(&b, r, nullptr), DRAFORGE_OK);
  seen.json = Take(b);
  const size_t at = seen.json.find(",\"searchSteps\":");
  EXPECT_NE(at, std::string::npos) << seen.json;
  seen.json = seen.json.substr(0, at);
  draforge_allocation_result_destroy(r);
  return seen;
}

class CApiPruning : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(draforge_cluster_create(&cluster_, nullptr, nullptr), DRAFORGE_OK);
    draforge_error* e = nullptr;
    const std::string twins = Twins();
    ASSERT_FALSE(twins.empty()) << "tests/capi/data/prune-twins.yaml not found (DRAFORGE_SOURCE_ROOT)";
    ASSERT_EQ(draforge_cluster_apply(cluster_, twins.data(), twins.size(), nullptr, &e), DRAFORGE_OK)
        << draforge_error_message(e);
    ASSERT_EQ(draforge_cluster_snapshot(&snapshot_, cluster_, nullptr), DRAFORGE_OK);
    unpruned_.prune_search = 0;
  }
  void TearDown() override {
    draforge_snapshot_destroy(snapshot_);
    draforge_cluster_destroy(cluster_);
  }
  draforge_cluster* cluster_ = nullptr;
  draforge_snapshot* snapshot_ = nullptr;
  draforge_allocate_options pruned_ = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  draforge_allocate_options unpruned_ = DRAFORGE_ALLOCATE_OPTIONS_INIT;
};

TEST_F(CApiPruning, OffIsUpstreamsSearchStepForStepWithTheSameAnswer) {
  const Seen pruned = AllocateWith(snapshot_, "default/job", &pruned_);
  const Seen unpruned = AllocateWith(snapshot_, "default/job", &unpruned_);
  ASSERT_EQ(pruned.rc, DRAFORGE_OK) << pruned.error;
  ASSERT_EQ(unpruned.rc, DRAFORGE_OK) << unpruned.error;
  EXPECT_THAT(pruned.json, HasSubstr("\"outcome\":\"unschedulable\""));
  EXPECT_THAT(pruned.json, HasSubstr("\"reasons\":[\"cannot allocate all claims\"]"));
  EXPECT_EQ(pruned.json, unpruned.json);  // same outcome, same reasons
  EXPECT_EQ(unpruned.steps, 233);         // upstream's count (see Twins())
  EXPECT_LE(pruned.steps * 10, unpruned.steps) << pruned.steps;
  // NULL options are the defaults: pruning on.
  EXPECT_EQ(AllocateWith(snapshot_, "default/job", nullptr).steps, pruned.steps);
}

TEST_F(CApiPruning, SameDevicesEitherWay) {
  const Seen pruned = AllocateWith(snapshot_, "default/fits", &pruned_);
  const Seen unpruned = AllocateWith(snapshot_, "default/fits", &unpruned_);
  ASSERT_EQ(pruned.rc, DRAFORGE_OK) << pruned.error;
  EXPECT_THAT(pruned.json, HasSubstr("\"device\":\"gpu-3\""));
  EXPECT_EQ(pruned.json, unpruned.json);
  EXPECT_EQ(unpruned.steps, 7);  // upstream's count (see Twins())
  EXPECT_LE(pruned.steps, unpruned.steps);
}

TEST_F(CApiPruning, MaxStepsCountsTheStepsOfTheChosenSearch) {
  // A budget the pruned search stays within and kube-scheduler's search does not.
  pruned_.max_steps = unpruned_.max_steps = 100;
  const Seen pruned = AllocateWith(snapshot_, "default/job", &pruned_);
  EXPECT_EQ(pruned.rc, DRAFORGE_OK) << pruned.error;
  EXPECT_THAT(pruned.json, HasSubstr("\"outcome\":\"unschedulable\""));
  const Seen unpruned = AllocateWith(snapshot_, "default/job", &unpruned_);
  EXPECT_EQ(unpruned.rc, DRAFORGE_ELIMIT);
  EXPECT_THAT(unpruned.error, HasSubstr("aborted"));
}

// The options struct as a program built against the version 1 header declared it: the same
// fields, without prune_search.
struct AllocateOptionsV1 {
  unsigned int version;
  const char* feature_gates;
  int unlock_locked_gates;
  const char* node_labels_json;
  int64_t max_steps;
};
static_assert(sizeof(AllocateOptionsV1) == offsetof(draforge_allocate_options, prune_search),
              "version 2 only appends to version 1");

TEST_F(CApiPruning, Version1CallersKeepWorkingWithPruningOn) {
  // _init(1) writes a version 1 struct and nothing past it.
  unsigned char bytes[sizeof(draforge_allocate_options)];
  std::memset(bytes, 0xAB, sizeof bytes);
  ASSERT_EQ(draforge_allocate_options_init(reinterpret_cast<draforge_allocate_options*>(bytes), 1), DRAFORGE_OK);
  AllocateOptionsV1 v1;
  std::memcpy(&v1, bytes, sizeof v1);
  EXPECT_EQ(v1.version, 1u);
  EXPECT_EQ(v1.feature_gates, nullptr);
  EXPECT_EQ(v1.max_steps, 0);
  for (size_t i = sizeof(AllocateOptionsV1); i < sizeof bytes; ++i) EXPECT_EQ(bytes[i], 0xAB) << "byte " << i;

  // A version 1 struct on the heap, exactly as large as such a caller allocates it (valgrind, in
  // the capi-valgrind suite, reports any read past it), gets the version 1 behaviour: pruning on.
  auto* old = new AllocateOptionsV1{1, nullptr, 0, nullptr, 0};
  const Seen seen = AllocateWith(snapshot_, "default/job", reinterpret_cast<const draforge_allocate_options*>(old));
  delete old;
  ASSERT_EQ(seen.rc, DRAFORGE_OK) << seen.error;
  EXPECT_EQ(seen.steps, AllocateWith(snapshot_, "default/job", &pruned_).steps);
  EXPECT_LT(seen.steps, AllocateWith(snapshot_, "default/job", &unpruned_).steps);
}

TEST_F(CApi, AllocateConcurrentlyOnOneSnapshot) {
  std::vector<std::thread> threads;
  std::vector<int> outcomes(4, -1);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const char* claims[] = {"team-a/two"};
      draforge_allocation_result* r = nullptr;
      if (draforge_allocate(&r, snapshot_, claims, 1, "node-1", nullptr, nullptr) == DRAFORGE_OK) {
        outcomes[t] = draforge_allocation_result_outcome(r);
      }
      draforge_allocation_result_destroy(r);
    });
  }
  for (auto& th : threads) th.join();
  for (int o : outcomes) EXPECT_EQ(o, DRAFORGE_OUTCOME_ALLOCATED);
}

TEST_F(CApi, ExplainAPendingClaim) {
  draforge_explanation* ex = nullptr;
  ASSERT_EQ(draforge_explain(&ex, snapshot_, "team-a/three", "node-1", nullptr, &error_), DRAFORGE_OK)
      << draforge_error_message(error_);
  EXPECT_THAT(draforge_explanation_summary(ex), HasSubstr("gpu.example.com"));
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_explanation_json(&b, ex, nullptr), DRAFORGE_OK);
  const std::string json = Take(b);
  EXPECT_THAT(json, HasSubstr("\"claim\":\"team-a/three\""));
  EXPECT_THAT(json, HasSubstr("\"needed\":3"));
  EXPECT_THAT(json, HasSubstr("\"firstShortStep\""));
  draforge_explanation_destroy(ex);
  ex = nullptr;
  ASSERT_EQ(draforge_explain(&ex, snapshot_, "team-a/two", "node-1", nullptr, nullptr), DRAFORGE_OK);
  EXPECT_STREQ(draforge_explanation_summary(ex), "claim team-a/two fits on node node-1");
  draforge_explanation_destroy(ex);
  EXPECT_EQ(draforge_explain(&ex, snapshot_, "team-a/none", nullptr, nullptr, &error_), DRAFORGE_ENOTFOUND);
}

// Without a node, the explanation's JSON carries the verdict on every node (here the one node the
// slices name, as there is no Node object): additive fields next to the funnel.
TEST_F(CApi, ExplainWithoutANodeGivesTheVerdictPerNode) {
  auto json_of = [&](const char* claim, const char* node) {
    draforge_explanation* ex = nullptr;
    EXPECT_EQ(draforge_explain(&ex, snapshot_, claim, node, nullptr, &error_), DRAFORGE_OK)
        << draforge_error_message(error_);
    draforge_buffer b = {nullptr, 0};
    EXPECT_EQ(draforge_explanation_json(&b, ex, nullptr), DRAFORGE_OK);
    draforge_explanation_destroy(ex);
    return Take(b);
  };
  const std::string three = json_of("team-a/three", nullptr);
  EXPECT_THAT(three, HasSubstr("\"nodesSummary\":\"claim team-a/three fits on no node (0 of 1): node-1: request gpus: "
                               "only 2 devices match class gpu.example.com, 3 needed\""));
  EXPECT_THAT(three, HasSubstr("\"nodeSource\":\"slices\",\"nodesTotal\":1,\"nodesTruncated\":false"));
  EXPECT_THAT(three, HasSubstr("\"nodes\":[{\"node\":\"node-1\",\"fits\":false,\"outcome\":\"unschedulable\","
                               "\"reason\":\"request gpus: only 2 devices match class gpu.example.com, 3 needed\"}]"));
  EXPECT_THAT(three, HasSubstr("\"requests\":[{\"request\":\"gpus\""));  // the funnel is still there
  EXPECT_THAT(json_of("team-a/two", ""),
              HasSubstr("\"nodes\":[{\"node\":\"node-1\",\"fits\":true,\"outcome\":\"allocated\"}]"));
  // With a node: exactly as before, no verdicts.
  const std::string on_node = json_of("team-a/three", "node-1");
  EXPECT_THAT(on_node, ::testing::Not(HasSubstr("\"nodes\"")));
  EXPECT_THAT(on_node, ::testing::Not(HasSubstr("\"nodesSummary\"")));
}

TEST(CApiCel, CompileAndEvaluateASelector) {
  draforge_cel_selector* s = nullptr;
  ASSERT_EQ(draforge_cel_selector_compile(&s, "device.attributes['gpu.example.com'].model == 'a100'", nullptr, nullptr),
            DRAFORGE_OK);
  EXPECT_GT(draforge_cel_selector_estimated_cost(s), 0);
  const std::string a100 = R"({"driver":"gpu.example.com","attributes":{"model":{"string":"a100"}}})";
  const std::string h100 = R"({"driver":"gpu.example.com","attributes":{"model":{"string":"h100"}}})";
  int matches = -1;
  int64_t cost = -1;
  ASSERT_EQ(draforge_cel_selector_evaluate(s, a100.data(), a100.size(), &matches, &cost, nullptr), DRAFORGE_OK);
  EXPECT_EQ(matches, 1);
  EXPECT_GT(cost, 0);
  ASSERT_EQ(draforge_cel_selector_evaluate(s, h100.data(), h100.size(), &matches, nullptr, nullptr), DRAFORGE_OK);
  EXPECT_EQ(matches, 0);
  // A device without the attribute: a runtime error, not "does not match".
  const std::string bare = R"({"driver":"gpu.example.com"})";
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_cel_selector_evaluate(s, bare.data(), bare.size(), &matches, nullptr, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("runtime error: "));
  draforge_error_destroy(e);
  e = nullptr;
  // A malformed device names the field.
  const std::string bad = R"({"driver":"gpu.example.com","attributes":{"model":{"string":7}}})";
  EXPECT_EQ(draforge_cel_selector_evaluate(s, bad.data(), bad.size(), &matches, nullptr, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("device: "));
  draforge_error_destroy(e);
  draforge_cel_selector_destroy(s);
}

TEST(CApiCel, CompileErrorsCarryCelGoWording) {
  draforge_cel_selector* s = nullptr;
  draforge_error* e = nullptr;
  ASSERT_EQ(draforge_cel_selector_compile(&s, "devce.driver == 'x'", nullptr, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("undeclared reference to 'devce'"));
  draforge_error_destroy(e);
  e = nullptr;
  // A non-bool selector is a compile error too.
  ASSERT_EQ(draforge_cel_selector_compile(&s, "1 + 2", nullptr, &e), DRAFORGE_EINVALID);
  draforge_error_destroy(e);
}

TEST(CApiCel, EvaluateAnyExpression) {
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_cel_evaluate(&b, "[1, 2].size() + 40", nullptr, nullptr), DRAFORGE_OK);
  const std::string out = Take(b);
  EXPECT_THAT(out, HasSubstr("\"value\":\"42\""));
  EXPECT_THAT(out, HasSubstr("\"type\":\"int\""));
  draforge_error* e = nullptr;
  ASSERT_EQ(draforge_cel_evaluate(&b, "device.driver", nullptr, &e), DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("runtime error: no such attribute"));
  draforge_error_destroy(e);
  e = nullptr;
  ASSERT_EQ(draforge_cel_evaluate(&b, "quantity('1Gi') == quantity('1024Mi')", nullptr, &e), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("\"value\":\"true\""));
}

TEST(CApiObjects, ParseAndApplyObjects) {
  draforge_objects* objs = nullptr;
  ASSERT_EQ(draforge_objects_parse(&objs, kCluster.data(), kCluster.size(), nullptr), DRAFORGE_OK);
  ASSERT_EQ(draforge_objects_count(objs), 4u);
  draforge_cluster* c = nullptr;
  ASSERT_EQ(draforge_cluster_create(&c, "other", nullptr), DRAFORGE_OK);
  ASSERT_EQ(draforge_cluster_apply_objects(c, objs, nullptr), DRAFORGE_OK);
  draforge_snapshot* s = nullptr;
  ASSERT_EQ(draforge_cluster_snapshot(&s, c, nullptr), DRAFORGE_OK);
  EXPECT_EQ(draforge_snapshot_count(s, "ResourceSlice"), 1u);
  draforge_snapshot_destroy(s);
  draforge_cluster_destroy(c);
  draforge_objects_destroy(objs);
}

class CApiCdi : public draforge_test::CdiFixture {};

TEST_F(CApiCdi, GenerateValidateAndWrite) {
  draforge_cdi_specs* specs = nullptr;
  draforge_error* e = nullptr;
  ASSERT_EQ(draforge_cdi_generate(&specs, snapshot_, "node-1", nullptr, &e), DRAFORGE_OK) << draforge_error_message(e);
  ASSERT_EQ(draforge_cdi_specs_count(specs), 1u);
  const std::string file = draforge_cdi_specs_file_name(specs, 0);
  EXPECT_THAT(file, HasSubstr("6f1c7c4e-0000-4000-8000-000000000001"));
  EXPECT_EQ(draforge_cdi_specs_file_name(specs, 1), nullptr);
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_cdi_specs_json(&b, specs, nullptr), DRAFORGE_OK);
  const std::string summary = Take(b);
  EXPECT_THAT(summary, HasSubstr("\"claim\":\"team-a/train\""));
  EXPECT_THAT(summary, HasSubstr("\"cdiDeviceIDs\":[\""));
  ASSERT_EQ(draforge_cdi_specs_document(&b, specs, 0, nullptr), DRAFORGE_OK);
  const std::string doc = Take(b);
  // What DRAForge generates passes its own strict validation.
  int valid = -1;
  ASSERT_EQ(draforge_cdi_validate(&valid, &b, doc.data(), doc.size(), DRAFORGE_FORMAT_JSON, nullptr, nullptr),
            DRAFORGE_OK);
  EXPECT_EQ(Take(b), "[]");
  EXPECT_EQ(valid, 1);
  // Written whole, then unchanged on a second write.
  ASSERT_EQ(draforge_cdi_specs_write(specs, dir_.c_str(), &b, &e), DRAFORGE_OK) << draforge_error_message(e);
  EXPECT_THAT(Take(b), HasSubstr("\"written\":[\"" + file + "\"]"));
  std::ifstream in(dir_ + "/" + file);
  std::string on_disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(on_disk, doc);
  ASSERT_EQ(draforge_cdi_specs_write(specs, dir_.c_str(), &b, nullptr), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("\"unchanged\":[\"" + file + "\"]"));
  EXPECT_EQ(draforge_cdi_specs_document(&b, specs, 1, &e), DRAFORGE_ENOTFOUND);
  draforge_error_destroy(e);
  draforge_cdi_specs_destroy(specs);
}

TEST_F(CApiCdi, OtherNodeHasNoSpecsAndEmptyNodeIsInvalid) {
  draforge_cdi_specs* specs = nullptr;
  ASSERT_EQ(draforge_cdi_generate(&specs, snapshot_, "node-2", nullptr, nullptr), DRAFORGE_OK);
  EXPECT_EQ(draforge_cdi_specs_count(specs), 0u);
  draforge_cdi_specs_destroy(specs);
  specs = nullptr;
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_cdi_generate(&specs, snapshot_, "", nullptr, &e), DRAFORGE_EINVALID);
  EXPECT_EQ(specs, nullptr);
  draforge_error_destroy(e);
}

TEST(CApiCdiValidate, InvalidDocumentIsAResultWithProblems) {
  const char doc[] = "cdiVersion: 0.3.0\nkind: example.com/gpu\ndevices:\n- name: ''\n  containerEdits: {}\n";
  int valid = -1;
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_cdi_validate(&valid, &b, doc, sizeof doc - 1, DRAFORGE_FORMAT_YAML, nullptr, nullptr), DRAFORGE_OK);
  EXPECT_EQ(valid, 0);
  EXPECT_THAT(Take(b), HasSubstr("\"path\":\"$.devices[0]"));
  draforge_cdi_options o = DRAFORGE_CDI_OPTIONS_INIT;
  draforge_cdi_options by_call;
  ASSERT_EQ(draforge_cdi_options_init(&by_call, DRAFORGE_CDI_OPTIONS_VERSION), DRAFORGE_OK);
  EXPECT_EQ(o.version, by_call.version);
  EXPECT_EQ(o.drivers, by_call.drivers);
  EXPECT_EQ(o.max_version, by_call.max_version);
  EXPECT_EQ(o.compat, by_call.compat);
  o.version = 0;
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_cdi_validate(&valid, nullptr, doc, sizeof doc - 1, DRAFORGE_FORMAT_YAML, &o, &e),
            DRAFORGE_EINVALID);
  draforge_error_destroy(e);
}

}  // namespace
