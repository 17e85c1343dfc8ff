// lib/analysis on the demo scenario and on small hand-made clusters: the numbers an operator reads
// on the dashboard (utilisation, holders, counters) and the anomalies it flags.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "analysis/anomalies.h"
#include "analysis/claim_state.h"
#include "analysis/diagnostics.h"
#include "analysis/inventory.h"
#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/cluster.h"

namespace draforge::analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

void Load(std::string_view yaml, store::Cluster& cluster) {
  auto decoded = api::DecodeStream(yaml, {});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  for (auto& d : *decoded) {
    ASSERT_TRUE(d.object.ok()) << d.object.status();
    ASSERT_TRUE(cluster.Apply(*std::move(d.object)).ok());
  }
}

std::string DemoYaml() {
  const char* root = std::getenv("DRAFORGE_SOURCE_ROOT");
  std::ifstream in(std::string(root ? root : ".") + "/examples/scenarios/demo.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class DemoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string yaml = DemoYaml();
    ASSERT_FALSE(yaml.empty()) << "demo.yaml not found (DRAFORGE_SOURCE_ROOT)";
    Load(yaml, cluster_);
    snap_ = cluster_.snapshot();
  }
  store::Cluster cluster_;
  std::shared_ptr<const store::Snapshot> snap_;
};

TEST_F(DemoTest, SummaryCountsTheInventory) {
  const Summary s = Summarize(*snap_);
  EXPECT_EQ(s.counts.nodes, 3u);
  EXPECT_EQ(s.counts.resource_slices, 6u);
  EXPECT_EQ(s.counts.devices, 17u);  // 3 x 4 GPUs, 3 MIG devices, 2 NICs
  EXPECT_EQ(s.counts.allocated_devices, 5u);
  EXPECT_EQ(s.counts.claims, 5u);
  EXPECT_EQ(s.counts.pending_claims, 1u);
  EXPECT_EQ(s.counts.allocated_claims + s.counts.pending_claims, s.counts.claims);
  EXPECT_EQ(s.counts.drivers, 3u);
  EXPECT_EQ(s.counts.pools, 5u);
  ASSERT_THAT(s.drivers, SizeIs(3));
  EXPECT_EQ(s.drivers[0].driver, "gpu.example.com");
  EXPECT_EQ(s.drivers[0].devices, 12u);
  EXPECT_EQ(s.drivers[0].allocated_devices, 3u);
  EXPECT_DOUBLE_EQ(s.drivers[0].utilisation, 0.25);
}

TEST_F(DemoTest, PoolUsageAndSharedCounters) {
  const auto pools = ListPools(*snap_, {.driver = "mig.example.com"});
  ASSERT_THAT(pools, SizeIs(1));
  const PoolUsage& p = pools[0];
  EXPECT_EQ(p.pool, "node-3-mig");
  EXPECT_EQ(p.node, "node-3");
  EXPECT_TRUE(p.complete);
  EXPECT_THAT(p.slices, SizeIs(2));
  EXPECT_EQ(p.devices, 3u);
  EXPECT_EQ(p.allocated_devices, 1u);
  ASSERT_THAT(p.shared_counters, SizeIs(1));
  const CounterSetUsage& cs = p.shared_counters[0];
  EXPECT_EQ(cs.name, "gpu-4-counters");
  EXPECT_EQ(cs.capacity.at("memory").String(), "80Gi");
  // One 4g.40gb partition is allocated: it consumes 40Gi and 4 slices of the 8.
  EXPECT_EQ(cs.consumed.at("memory").String(), "40Gi");
  EXPECT_EQ(cs.consumed.at("slices").String(), "4");
}

TEST_F(DemoTest, PoolFilterByNode) {
  const auto pools = ListPools(*snap_, {.node = "node-3"});
  ASSERT_THAT(pools, SizeIs(2));
  EXPECT_EQ(pools[0].pool, "node-3");
  EXPECT_EQ(pools[1].pool, "node-3-mig");
  EXPECT_THAT(ListPools(*snap_, {.node = "no-such-node"}), IsEmpty());
}

TEST_F(DemoTest, DevicesNameTheirHolders) {
  const auto devices = ListDevices(*snap_, {.driver = "gpu.example.com", .pool = "node-1"});
  ASSERT_THAT(devices, SizeIs(4));
  EXPECT_EQ(devices[0].device->name, "gpu-0");
  EXPECT_TRUE(devices[0].in_use);
  ASSERT_THAT(devices[0].held_by, SizeIs(1));
  EXPECT_EQ(devices[0].held_by[0].claim_name, "train-0");
  EXPECT_EQ(devices[0].node, "node-1");
  EXPECT_FALSE(devices[2].in_use);
  EXPECT_THAT(devices[2].held_by, IsEmpty());
}

TEST_F(DemoTest, DeviceFilters) {
  EXPECT_THAT(ListDevices(*snap_), SizeIs(17));
  EXPECT_THAT(ListDevices(*snap_, {.allocated = true}), SizeIs(5));
  EXPECT_THAT(ListDevices(*snap_, {.allocated = false}), SizeIs(12));
  EXPECT_THAT(ListDevices(*snap_, {.node = "node-2"}), SizeIs(4));
}

TEST_F(DemoTest, SliceTaintsAreReportedWithTheirSource) {
  const auto nics = ListDevices(*snap_, {.driver = "nic.example.com"});
  ASSERT_THAT(nics, SizeIs(2));
  EXPECT_THAT(nics[0].taints, IsEmpty());
  ASSERT_THAT(nics[1].taints, SizeIs(1));
  EXPECT_EQ(nics[1].taints[0].source, "ResourceSlice");
  EXPECT_EQ(nics[1].taints[0].taint.effect, "NoSchedule");
  EXPECT_EQ(ListPools(*snap_, {.driver = "nic.example.com"})[0].tainted_devices, 1u);
}

TEST_F(DemoTest, PendingClaimIsExplained) {
  const auto pending = DiagnosePendingClaims(*snap_);
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].name, "big-h100");
  ASSERT_TRUE(pending[0].explanation.has_value()) << pending[0].error;
  EXPECT_EQ(pending[0].explanation->outcome, alloc::Outcome::kUnschedulable);
  EXPECT_FALSE(pending[0].explanation->summary.empty());
  // Pod finetune-0 (not bound to a node) uses it. Eight H100s are nowhere, but the claim's second
  // choice (four) fits on node-3: the scheduler will allocate it there, so it is allocatable, and the
  // summary says where before the cluster-wide funnel.
  EXPECT_EQ(pending[0].outcome, PendingOutcome::kAllocatable);
  EXPECT_THAT(pending[0].consumers, ElementsAre("team-a/finetune-0"));
  EXPECT_EQ(pending[0].summary, "claim team-a/big-h100 fits on 1 of 3 nodes: node-3. " + pending[0].explanation->summary);
  EXPECT_THAT(pending[0].fits_on, IsEmpty());
  EXPECT_THAT(DiagnosePendingClaims(*snap_, "no-such-namespace"), IsEmpty());
}

TEST(ClaimStateTest, NamesRoundTrip) {
  for (ClaimState s : {ClaimState::kPending, ClaimState::kAllocated, ClaimState::kReserved}) {
    EXPECT_EQ(ParseClaimState(ClaimStateName(s)), s);
  }
  EXPECT_EQ(ParseClaimState("Pending"), std::nullopt);
}

constexpr char kSlice[] = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: d.example.com
  nodeName: n1
  pool: {name: p1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: dev-0
  - name: dev-1
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: c}
spec: {}
)";

std::string Claim(const std::string& name, const std::string& device, bool reserved, const std::string& cls = "c",
                  int count = 1) {
  std::string y = absl::StrCat(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: )", name, R"(, namespace: ns}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: )", cls, count == 1 ? "" : absl::StrCat(", count: ", count), "}\n");
  if (!device.empty()) {
    absl::StrAppend(&y, "status:\n  allocation:\n    devices:\n      results:\n      - {request: r, driver: d.example.com, "
                        "pool: p1, device: ",
                    device, "}\n");
    if (reserved) absl::StrAppend(&y, "  reservedFor:\n  - {resource: pods, name: pod-", name, "}\n");
  }
  return y;
}

TEST(AnomaliesTest, HealthyClusterHasNone) {
  store::Cluster c;
  Load(kSlice, c);
  Load(Claim("a", "dev-0", true), c);
  EXPECT_THAT(FindAnomalies(*c.snapshot()), IsEmpty());
}

TEST(AnomaliesTest, AllocatedButUnreservedClaim) {
  store::Cluster c;
  Load(kSlice, c);
  Load(Claim("a", "dev-0", false), c);
  const auto anomalies = FindAnomalies(*c.snapshot());
  ASSERT_THAT(anomalies, SizeIs(1));
  EXPECT_EQ(anomalies[0].kind, AnomalyKind::kAllocatedNotReserved);
  EXPECT_EQ(anomalies[0].object, "ResourceClaim/ns/a");
  EXPECT_THAT(anomalies[0].message, HasSubstr("status.reservedFor"));
}

TEST(AnomaliesTest, ResultNamingAnUnpublishedDevice) {
  store::Cluster c;
  Load(kSlice, c);
  Load(Claim("a", "dev-9", true), c);
  const auto anomalies = FindAnomalies(*c.snapshot());
  ASSERT_THAT(anomalies, SizeIs(1));
  EXPECT_EQ(anomalies[0].kind, AnomalyKind::kUnknownDevice);
  EXPECT_EQ(anomalies[0].severity, Severity::kError);
  EXPECT_THAT(anomalies[0].message, HasSubstr("d.example.com/p1/dev-9"));
  EXPECT_THAT(anomalies[0].message, HasSubstr("results[0]"));
}

TEST(AnomaliesTest, DeviceHeldByTwoClaims) {
  store::Cluster c;
  Load(kSlice, c);
  Load(Claim("a", "dev-1", true), c);
  Load(Claim("b", "dev-1", true), c);
  const auto anomalies = FindAnomalies(*c.snapshot());
  ASSERT_THAT(anomalies, SizeIs(1));
  EXPECT_EQ(anomalies[0].kind, AnomalyKind::kDeviceOverallocated);
  EXPECT_EQ(anomalies[0].object, "Device/d.example.com/p1/dev-1");
  EXPECT_THAT(anomalies[0].message, HasSubstr("ns/a, ns/b"));
}

TEST(AnomaliesTest, PendingClaimWithMissingClassAndNamespaceFilter) {
  store::Cluster c;
  Load(kSlice, c);
  Load(Claim("a", "", false, "gone"), c);
  auto anomalies = FindAnomalies(*c.snapshot());
  ASSERT_THAT(anomalies, SizeIs(1));
  EXPECT_EQ(anomalies[0].kind, AnomalyKind::kMissingDeviceClass);
  EXPECT_THAT(anomalies[0].message, HasSubstr("spec.devices.requests[0].exactly.deviceClassName"));
  EXPECT_THAT(FindAnomalies(*c.snapshot(), "other"), IsEmpty());
  EXPECT_THAT(FindAnomalies(*c.snapshot(), "ns"), SizeIs(1));
}

TEST(AnomaliesTest, IncompletePoolAndMissingClaim) {
  store::Cluster c;
  Load(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: half}
spec:
  driver: d.example.com
  allNodes: true
  pool: {name: big, generation: 3, resourceSliceCount: 2}
  devices: [{name: x}]
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  containers: [{name: c, image: i}]
  resourceClaims: [{name: gpu, resourceClaimName: nowhere}]
)",
       c);
  const auto anomalies = FindAnomalies(*c.snapshot());
  ASSERT_THAT(anomalies, SizeIs(2));  // sorted by object id: Pod/... before Pool/...
  EXPECT_EQ(anomalies[0].kind, AnomalyKind::kMissingClaim);
  EXPECT_EQ(anomalies[0].object, "Pod/ns/p");
  EXPECT_THAT(anomalies[0].message, HasSubstr("nowhere"));
  EXPECT_EQ(anomalies[1].kind, AnomalyKind::kIncompletePool);
  EXPECT_EQ(anomalies[1].object, "Pool/d.example.com/big");
  EXPECT_THAT(anomalies[1].message, HasSubstr("1 of 2"));
}

TEST(InventoryTest, TaintRuleTaintsMatchingDevices) {
  store::Cluster c;
  Load(kSlice, c);
  Load(R"(
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: drain}
spec:
  deviceSelector: {driver: d.example.com, pool: p1, device: dev-1}
  taint: {key: maintenance, effect: NoExecute}
)",
       c);
  const auto devices = ListDevices(*c.snapshot());
  ASSERT_THAT(devices, SizeIs(2));
  EXPECT_THAT(devices[0].taints, IsEmpty());
  ASSERT_THAT(devices[1].taints, SizeIs(1));
  EXPECT_EQ(devices[1].taints[0].source, "DeviceTaintRule/drain");
  EXPECT_EQ(ListPools(*c.snapshot())[0].tainted_devices, 1u);
}

// --- pending claims: what each one waits for -----------------------------------------------------

constexpr char kNodes[] = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
)";

// A pending claim in namespace ns asking for `count` devices of class c.
std::string PendingClaim(const std::string& name, int count) { return Claim(name, "", false, "c", count); }

std::string PodUsing(const std::string& pod, const std::string& claim, const std::string& node = "") {
  return absl::StrCat(R"(
apiVersion: v1
kind: Pod
metadata: {name: )", pod, R"(, namespace: ns}
spec:
)", node.empty() ? "" : absl::StrCat("  nodeName: ", node, "\n"), R"(  containers: [{name: c, image: i}]
  resourceClaims: [{name: dev, resourceClaimName: )", claim, "}]\n");
}

TEST(PendingOutcomeTest, Names) {
  EXPECT_EQ(PendingOutcomeName(PendingOutcome::kAllocatable), "allocated");
  EXPECT_EQ(PendingOutcomeName(PendingOutcome::kUnschedulable), "unschedulable");
  EXPECT_EQ(PendingOutcomeName(PendingOutcome::kWaitingForConsumer), "waiting-for-consumer");
  EXPECT_EQ(PendingOutcomeName(PendingOutcome::kError), "error");
}

TEST(PendingDiagnosisTest, ClaimNoPodUsesWaitsAndSaysWhereItWouldFit) {
  store::Cluster c;
  Load(kSlice, c);  // two devices on node n1
  Load(kNodes, c);
  Load(PendingClaim("spare", 2), c);
  const auto pending = DiagnosePendingClaims(*c.snapshot());
  ASSERT_THAT(pending, SizeIs(1));
  const PendingClaimDiagnosis& d = pending[0];
  EXPECT_EQ(d.outcome, PendingOutcome::kWaitingForConsumer);
  EXPECT_THAT(d.consumers, IsEmpty());
  EXPECT_EQ(d.node, "");
  EXPECT_EQ(d.nodes_tried, 2);
  EXPECT_THAT(d.fits_on, ElementsAre("n1"));
  EXPECT_THAT(d.summary, HasSubstr("no pod uses claim ns/spare"));
  EXPECT_THAT(d.summary, HasSubstr("It would fit on 1 of 2 nodes: n1."));
  EXPECT_THAT(d.summary, Not(HasSubstr("unschedulable")));
  // The funnel is still there for the dashboard.
  ASSERT_TRUE(d.explanation.has_value());
  ASSERT_THAT(d.explanation->requests, SizeIs(1));
}

TEST(PendingDiagnosisTest, ClaimNoPodUsesThatFitsNowhereSaysWhy) {
  store::Cluster c;
  Load(kSlice, c);
  Load(kNodes, c);
  Load(PendingClaim("huge", 3), c);
  const auto pending = DiagnosePendingClaims(*c.snapshot());
  ASSERT_THAT(pending, SizeIs(1));
  const PendingClaimDiagnosis& d = pending[0];
  EXPECT_EQ(d.outcome, PendingOutcome::kWaitingForConsumer);
  EXPECT_EQ(d.nodes_tried, 2);
  EXPECT_THAT(d.fits_on, IsEmpty());
  EXPECT_THAT(d.summary, HasSubstr("no pod uses claim ns/huge"));
  EXPECT_THAT(d.summary, HasSubstr("would not fit on any of the 2 nodes: request r: only 2 devices match class c, 3 needed"));
}

TEST(PendingDiagnosisTest, AllocatedDevicesCountAgainstWhereItWouldFit) {
  store::Cluster c;
  Load(kSlice, c);
  Load(kNodes, c);
  Load(Claim("holder", "dev-0", true), c);
  Load(PendingClaim("two", 2), c);
  Load(PendingClaim("one", 1), c);
  const auto pending = DiagnosePendingClaims(*c.snapshot());
  ASSERT_THAT(pending, SizeIs(2));  // sorted by name: one, two
  EXPECT_EQ(pending[0].name, "one");
  EXPECT_THAT(pending[0].fits_on, ElementsAre("n1"));
  EXPECT_EQ(pending[1].name, "two");
  EXPECT_THAT(pending[1].fits_on, IsEmpty());
  EXPECT_THAT(pending[1].summary, HasSubstr("allocated to"));
}

TEST(PendingDiagnosisTest, WithoutNodesThereIsNothingToTry) {
  store::Cluster c;
  Load(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: shared}
spec:
  driver: d.example.com
  allNodes: true
  pool: {name: net, generation: 1, resourceSliceCount: 1}
  devices: [{name: x}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: c}
spec: {}
)",
       c);
  Load(PendingClaim("lonely", 1), c);
  const auto pending = DiagnosePendingClaims(*c.snapshot());
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].outcome, PendingOutcome::kWaitingForConsumer);
  EXPECT_EQ(pending[0].nodes_tried, 0);
  EXPECT_THAT(pending[0].fits_on, IsEmpty());
  EXPECT_THAT(pending[0].summary, HasSubstr("no node to try it on"));
}

TEST(PendingDiagnosisTest, ClaimAPodUsesKeepsTheSchedulersView) {
  store::Cluster c;
  Load(kSlice, c);
  Load(kNodes, c);
  Load(PendingClaim("fits-here", 1), c);
  Load(PodUsing("bound", "fits-here", "n1"), c);
  Load(PendingClaim("not-there", 1), c);
  Load(PodUsing("elsewhere", "not-there", "n2"), c);
  Load(PendingClaim("too-big", 3), c);
  Load(PodUsing("waiting", "too-big"), c);
  const auto pending = DiagnosePendingClaims(*c.snapshot());
  ASSERT_THAT(pending, SizeIs(3));  // fits-here, not-there, too-big
  EXPECT_EQ(pending[0].outcome, PendingOutcome::kAllocatable);
  EXPECT_EQ(pending[0].node, "n1");
  EXPECT_THAT(pending[0].consumers, ElementsAre("ns/bound"));
  EXPECT_THAT(pending[0].summary, HasSubstr("fits on node n1"));
  EXPECT_EQ(pending[1].outcome, PendingOutcome::kUnschedulable);
  EXPECT_EQ(pending[1].node, "n2");
  EXPECT_EQ(pending[2].outcome, PendingOutcome::kUnschedulable);
  EXPECT_EQ(pending[2].node, "");
  EXPECT_THAT(pending[2].consumers, ElementsAre("ns/waiting"));
  for (const auto& d : pending) {
    EXPECT_EQ(d.nodes_tried, 0) << d.name;  // placement is only for claims nobody uses
    EXPECT_THAT(d.summary, Not(HasSubstr("no pod uses"))) << d.name;
  }
}

TEST(PendingDiagnosisTest, ExplainErrorIsAnErrorOutcome) {
  store::Cluster c;
  Load(kNodes, c);
  Load(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: empty, namespace: ns}
spec: {}
)",
       c);
  const auto pending = DiagnosePendingClaims(*c.snapshot());
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].outcome, PendingOutcome::kError);
  EXPECT_FALSE(pending[0].error.empty());
  EXPECT_EQ(pending[0].summary, pending[0].error);
  EXPECT_FALSE(pending[0].explanation.has_value());
}

TEST(InventoryTest, EmptyClusterHasZeroUtilisation) {
  store::Cluster c;
  const Summary s = Summarize(*c.snapshot());
  EXPECT_EQ(s.counts.devices, 0u);
  EXPECT_THAT(s.pools, IsEmpty());
  EXPECT_EQ(Utilisation(0, 0), 0.0);
}

}  // namespace
}  // namespace draforge::analysis
