#include "graph/graph.h"

#include <string>
#include <vector>

#include "api/codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"
#include "store/cluster.h"

namespace draforge::graph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

// --- fixtures built in C++ -------------------------------------------------------------------------------

api::ObjectMeta Meta(std::string ns, std::string name) {
  api::ObjectMeta m;
  if (!ns.empty()) m.namespace_ = std::move(ns);
  m.name = std::move(name);
  return m;
}

api::Object Wrap(auto value, std::string api_version = "resource.k8s.io/v1") {
  api::Object obj;
  obj.api_version = std::move(api_version);
  obj.value = std::move(value);
  return obj;
}

api::Object Slice(std::string name, std::string driver, std::string pool, std::string node,
                  std::vector<std::string> devices, int64_t generation = 1) {
  api::ResourceSlice slice;
  slice.metadata = Meta("", std::move(name));
  api::ResourceSliceSpec spec;
  spec.driver = std::move(driver);
  spec.pool = api::ResourcePool{std::move(pool), generation, 1};
  if (node.empty()) {
    spec.all_nodes = true;
  } else {
    spec.node_name = std::move(node);
  }
  for (std::string& d : devices) {
    api::Device dev;
    dev.name = std::move(d);
    spec.devices.push_back(dev);
  }
  slice.spec = spec;
  return Wrap(slice);
}

// A request: "name=class" for an exact request, "name=[sub1:class1,sub2:class2]" for firstAvailable.
api::DeviceRequest Req(std::string name, std::string cls, std::vector<std::pair<std::string, std::string>> subs = {}) {
  api::DeviceRequest r;
  r.name = std::move(name);
  if (subs.empty()) {
    r.exactly = api::ExactDeviceRequest{};
    r.exactly->device_class_name = std::move(cls);
  }
  for (auto& [sub, sub_class] : subs) {
    api::DeviceSubRequest s;
    s.name = sub;
    s.device_class_name = sub_class;
    r.first_available.push_back(s);
  }
  return r;
}

struct Result {
  std::string request;
  std::string driver;
  std::string pool;
  std::string device;
  bool admin = false;
  std::string share;
};

api::NodeSelector FieldSelector(std::vector<std::string> names) {
  api::NodeSelectorRequirement r;
  r.key = "metadata.name";
  r.operator_ = "In";
  r.values = std::move(names);
  api::NodeSelectorTerm t;
  t.match_fields.push_back(r);
  return api::NodeSelector{{t}};
}

api::NodeSelector LabelSelector(std::string key, std::string op, std::vector<std::string> values) {
  api::NodeSelectorRequirement r;
  r.key = std::move(key);
  r.operator_ = std::move(op);
  r.values = std::move(values);
  api::NodeSelectorTerm t;
  t.match_expressions.push_back(r);
  return api::NodeSelector{{t}};
}

api::Object Claim(std::string ns, std::string name, std::vector<api::DeviceRequest> requests,
                  std::vector<Result> results = {}, std::optional<api::NodeSelector> node_selector = std::nullopt,
                  std::vector<std::string> reserved_pods = {}) {
  api::ResourceClaim claim;
  claim.metadata = Meta(std::move(ns), std::move(name));
  api::DeviceClaim dc;
  dc.requests = std::move(requests);
  claim.spec = api::ResourceClaimSpec{dc};
  if (!results.empty() || !reserved_pods.empty()) {
    api::ResourceClaimStatus status;
    if (!results.empty()) {
      api::AllocationResult alloc;
      alloc.devices = api::DeviceAllocationResult{};
      for (const Result& r : results) {
        api::DeviceRequestAllocationResult res;
        res.request = r.request;
        res.driver = r.driver;
        res.pool = r.pool;
        res.device = r.device;
        if (r.admin) res.admin_access = true;
        if (!r.share.empty()) res.share_id = r.share;
        alloc.devices->results.push_back(res);
      }
      alloc.node_selector = std::move(node_selector);
      status.allocation = alloc;
    }
    for (const std::string& pod : reserved_pods) {
      api::ResourceClaimConsumerReference ref;
      ref.resource = "pods";
      ref.name = pod;
      status.reserved_for.push_back(ref);
    }
    claim.status = status;
  }
  return Wrap(claim);
}

api::Object Template(std::string ns, std::string name, std::vector<api::DeviceRequest> requests) {
  api::ResourceClaimTemplate t;
  t.metadata = Meta(std::move(ns), std::move(name));
  api::DeviceClaim dc;
  dc.requests = std::move(requests);
  t.spec = api::ResourceClaimTemplateSpec{std::nullopt, api::ResourceClaimSpec{dc}};
  return Wrap(t);
}

struct PodEntry {
  std::string name;
  std::string claim;
  std::string tmpl;
};

api::Object Pod(std::string ns, std::string name, std::string node, std::vector<PodEntry> entries,
                std::vector<std::pair<std::string, std::optional<std::string>>> statuses = {}) {
  api::Pod pod;
  pod.metadata = Meta(std::move(ns), std::move(name));
  api::PodSpec spec;
  if (!node.empty()) spec.node_name = node;
  for (const PodEntry& e : entries) {
    api::PodResourceClaim c;
    c.name = e.name;
    if (!e.claim.empty()) c.resource_claim_name = e.claim;
    if (!e.tmpl.empty()) c.resource_claim_template_name = e.tmpl;
    spec.resource_claims.push_back(c);
  }
  pod.spec = spec;
  api::PodStatus st;
  st.phase = "Running";
  for (const auto& [n, claim] : statuses) st.resource_claim_statuses.push_back({n, claim});
  pod.status = st;
  return Wrap(pod, "v1");
}

api::Object Class(std::string name) {
  api::DeviceClass c;
  c.metadata = Meta("", std::move(name));
  return Wrap(c);
}

api::Object NodeObj(std::string name) {
  api::Node n;
  n.metadata = Meta("", std::move(name));
  return Wrap(n, "v1");
}

Graph Build(std::vector<api::Object> objects, const BuildOptions& options = {}) {
  store::Cluster c;
  absl::Status st = c.Replace(std::move(objects), "1");
  EXPECT_TRUE(st.ok()) << st;
  return BuildGraph(*c.snapshot(), options);
}

// "kind from -> to [label]" for every edge of `kind`.
std::vector<std::string> EdgesOf(const Graph& g, EdgeKind kind) {
  std::vector<std::string> out;
  for (const Edge& e : g.edges()) {
    if (e.kind == kind) out.push_back(e.from + " -> " + e.to + (e.label.empty() ? "" : " [" + e.label + "]"));
  }
  return out;
}

std::vector<std::string> NodeIds(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes()) out.push_back(n.id);
  return out;
}

// A small cluster: node n1 with a node-local GPU pool, a cluster-wide NIC pool, two namespaces.
std::vector<api::Object> Fixture() {
  std::vector<api::Object> objs;
  objs.push_back(NodeObj("n1"));
  objs.push_back(NodeObj("n2"));
  objs.push_back(Class("gpu"));
  objs.push_back(Class("nic"));
  objs.push_back(Slice("n1-gpu", "gpu.example.com", "n1", "n1", {"gpu-0", "gpu-1"}));
  objs.push_back(Slice("n2-gpu", "gpu.example.com", "n2", "n2", {"gpu-0"}));
  objs.push_back(Slice("fabric", "nic.example.com", "fabric", "", {"nic-0"}));
  // team-a: a pod with a direct claim allocated on n1 and a template claim not created yet.
  objs.push_back(Claim("team-a", "train-gpu", {Req("gpu", "gpu")},
                       {{"gpu", "gpu.example.com", "n1", "gpu-1"}}, FieldSelector({"n1"}), {"train"}));
  objs.push_back(Template("team-a", "scratch", {Req("nic", "nic")}));
  objs.push_back(Pod("team-a", "train", "n1", {{"gpu", "train-gpu", ""}, {"net", "", "scratch"}}));
  // team-b: a pod whose template claim exists, allocated on the cluster-wide NIC (no node).
  objs.push_back(Template("team-b", "net", {Req("nic", "nic")}));
  objs.push_back(Claim("team-b", "serve-net-x1", {Req("nic", "nic")},
                       {{"nic", "nic.example.com", "fabric", "nic-0"}}, std::nullopt, {"serve"}));
  objs.push_back(Pod("team-b", "serve", "n2", {{"net", "", "net"}}, {{"net", "serve-net-x1"}}));
  return objs;
}

// --- building -----------------------------------------------------------------------------------------------

TEST(GraphTest, DirectClaimGivesPodToClaimEdge) {
  Graph g = Build(Fixture());
  EXPECT_THAT(EdgesOf(g, EdgeKind::kPodClaim),
              ElementsAre("Pod/team-a/train -> ResourceClaim/team-a/train-gpu [gpu]",
                          "Pod/team-b/serve -> ResourceClaim/team-b/serve-net-x1 [net]"));
}

TEST(GraphTest, TemplateClaimFromStatusLinksTheGeneratedClaim) {
  Graph g = Build(Fixture());
  // team-b's claim exists (status.resourceClaimStatuses): no edge to its template.
  for (const Edge* e : g.EdgesFrom("Pod/team-b/serve")) EXPECT_NE(e->kind, EdgeKind::kPodTemplate);
  EXPECT_NE(g.FindNode("ResourceClaimTemplate/team-b/net"), nullptr);
}

TEST(GraphTest, TemplateClaimNotCreatedYetLinksTheTemplate) {
  Graph g = Build(Fixture());
  EXPECT_THAT(EdgesOf(g, EdgeKind::kPodTemplate),
              ElementsAre("Pod/team-a/train -> ResourceClaimTemplate/team-a/scratch [net]"));
}

TEST(GraphTest, TemplateStatusWithoutClaimNameMeansNoClaimNeeded) {
  Graph g = Build({Template("ns", "t", {Req("r", "c")}),
                   Pod("ns", "p", "", {{"x", "", "t"}}, {{"x", std::nullopt}})});
  EXPECT_THAT(g.EdgesFrom("Pod/ns/p"), IsEmpty());
}

TEST(GraphTest, MissingObjectsAreMissingNodes) {
  Graph g = Build({Pod("ns", "p", "", {{"a", "ghost", ""}, {"b", "", "no-template"}}),
                   Claim("ns", "c", {Req("r", "no-class")})});
  const Node* ghost = g.FindNode("ResourceClaim/ns/ghost");
  ASSERT_NE(ghost, nullptr);
  EXPECT_TRUE(ghost->missing);
  ASSERT_NE(g.FindNode("ResourceClaimTemplate/ns/no-template"), nullptr);
  EXPECT_TRUE(g.FindNode("ResourceClaimTemplate/ns/no-template")->missing);
  ASSERT_NE(g.FindNode("DeviceClass/no-class"), nullptr);
  EXPECT_TRUE(g.FindNode("DeviceClass/no-class")->missing);
  EXPECT_FALSE(g.FindNode("Pod/ns/p")->missing);
  EXPECT_FALSE(g.FindNode("ResourceClaim/ns/c")->missing);
}

TEST(GraphTest, ClaimToClassEdgePerRequest) {
  Graph g = Build({Class("gpu"), Claim("ns", "c", {Req("a", "gpu"), Req("b", "gpu"), Req("c", "")})});
  EXPECT_THAT(EdgesOf(g, EdgeKind::kClaimClass),
              ElementsAre("ResourceClaim/ns/c -> DeviceClass/gpu [a]", "ResourceClaim/ns/c -> DeviceClass/gpu [b]"));
  // Every request is kept, also the one without a class.
  ASSERT_THAT(g.RequestsOf("ResourceClaim/ns/c"), SizeIs(3));
  EXPECT_EQ(g.RequestsOf("ResourceClaim/ns/c")[2]->name, "c");
  EXPECT_EQ(g.RequestsOf("ResourceClaim/ns/c")[2]->device_class_name, "");
}

TEST(GraphTest, FirstAvailableGivesOneEdgePerAlternative) {
  Graph g = Build({Class("big"), Class("small"),
                   Claim("ns", "c", {Req("gpu", "", {{"a100", "big"}, {"t4", "small"}, {"any", "big"}})})});
  EXPECT_THAT(EdgesOf(g, EdgeKind::kClaimClass),
              ElementsAre("ResourceClaim/ns/c -> DeviceClass/big [gpu/a100]",
                          "ResourceClaim/ns/c -> DeviceClass/big [gpu/any]",
                          "ResourceClaim/ns/c -> DeviceClass/small [gpu/t4]"));
  const auto reqs = g.RequestsOf("ResourceClaim/ns/c");
  ASSERT_THAT(reqs, SizeIs(4));
  EXPECT_EQ(reqs[0]->name, "gpu");
  EXPECT_TRUE(reqs[0]->first_available);
  EXPECT_FALSE(reqs[0]->alternative);
  EXPECT_EQ(reqs[1]->name, "gpu/a100");
  EXPECT_TRUE(reqs[1]->alternative);
  EXPECT_EQ(reqs[1]->device_class_name, "big");
  EXPECT_EQ(reqs[3]->name, "gpu/any");
}

TEST(GraphTest, TemplateToClassEdges) {
  Graph g = Build({Class("nic"), Template("ns", "t", {Req("a", "nic"), Req("b", "", {{"x", "nic"}})})});
  EXPECT_THAT(EdgesOf(g, EdgeKind::kTemplateClass),
              ElementsAre("ResourceClaimTemplate/ns/t -> DeviceClass/nic [a]",
                          "ResourceClaimTemplate/ns/t -> DeviceClass/nic [b/x]"));
  EXPECT_THAT(g.RequestsOf("ResourceClaimTemplate/ns/t"), SizeIs(3));
}

TEST(GraphTest, SlicesDevicesPoolsAndNodes) {
  Graph g = Build(Fixture());
  EXPECT_THAT(EdgesOf(g, EdgeKind::kSliceDevice),
              ElementsAre("ResourceSlice/fabric -> Device/nic.example.com/fabric/nic-0",
                          "ResourceSlice/n1-gpu -> Device/gpu.example.com/n1/gpu-0",
                          "ResourceSlice/n1-gpu -> Device/gpu.example.com/n1/gpu-1",
                          "ResourceSlice/n2-gpu -> Device/gpu.example.com/n2/gpu-0"));
  EXPECT_THAT(EdgesOf(g, EdgeKind::kSlicePool),
              ElementsAre("ResourceSlice/fabric -> Pool/nic.example.com/fabric",
                          "ResourceSlice/n1-gpu -> Pool/gpu.example.com/n1",
                          "ResourceSlice/n2-gpu -> Pool/gpu.example.com/n2"));
  EXPECT_THAT(EdgesOf(g, EdgeKind::kDevicePool), SizeIs(4));
  // Only node-local pools have a node.
  EXPECT_THAT(EdgesOf(g, EdgeKind::kPoolNode),
              ElementsAre("Pool/gpu.example.com/n1 -> Node/n1", "Pool/gpu.example.com/n2 -> Node/n2"));
  const Node* pool = g.FindNode("Pool/gpu.example.com/n1");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->name, "n1");
  EXPECT_EQ(pool->AttributeText("driver"), "gpu.example.com");
  EXPECT_EQ(pool->AttributeText("complete"), "true");
  EXPECT_EQ(pool->AttributeText("devices"), "2");
  const Node* dev = g.FindNode("Device/gpu.example.com/n1/gpu-1");
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->AttributeText("inUse"), "true");
  EXPECT_EQ(dev->AttributeText("slice"), "n1-gpu");
  EXPECT_EQ(dev->AttributeText("node"), "n1");
  EXPECT_EQ(g.FindNode("Device/gpu.example.com/n1/gpu-0")->AttributeText("inUse"), "false");
}

TEST(GraphTest, AllocationWithMatchFieldsKnowsTheNode) {
  Graph g = Build(Fixture());
  const auto allocs = g.Allocations();
  ASSERT_THAT(allocs, SizeIs(2));
  const Allocation& a = *allocs[0];
  EXPECT_EQ(a.claim_id, "ResourceClaim/team-a/train-gpu");
  EXPECT_EQ(a.request, "gpu");
  EXPECT_EQ(a.driver, "gpu.example.com");
  EXPECT_EQ(a.pool, "n1");
  EXPECT_EQ(a.device, "gpu-1");
  EXPECT_TRUE(a.node_known);
  EXPECT_EQ(a.node, "n1");
  EXPECT_THAT(EdgesOf(g, EdgeKind::kAllocation),
              ElementsAre("ResourceClaim/team-a/train-gpu -> Device/gpu.example.com/n1/gpu-1 [gpu]",
                          "ResourceClaim/team-b/serve-net-x1 -> Device/nic.example.com/fabric/nic-0 [nic]"));
}

TEST(GraphTest, AllocationWithoutSelectorHasUnknownNode) {
  Graph g = Build(Fixture());
  const auto allocs = g.Allocations();
  ASSERT_THAT(allocs, SizeIs(2));
  EXPECT_FALSE(allocs[1]->node_known);
  EXPECT_EQ(allocs[1]->node, "");
}

TEST(GraphTest, AllocationWithHostnameExpressionKnowsTheNode) {
  Graph g = Build({Claim("ns", "c", {Req("r", "x")}, {{"r", "d", "p", "dev"}},
                         LabelSelector("kubernetes.io/hostname", "In", {"worker-7"}))});
  ASSERT_THAT(g.Allocations(), SizeIs(1));
  EXPECT_TRUE(g.Allocations()[0]->node_known);
  EXPECT_EQ(g.Allocations()[0]->node, "worker-7");
}

TEST(GraphTest, AmbiguousSelectorsLeaveTheNodeUnknown) {
  api::NodeSelector two_terms = FieldSelector({"a"});
  two_terms.node_selector_terms.push_back(FieldSelector({"b"}).node_selector_terms[0]);
  api::NodeSelector two_requirements = FieldSelector({"a"});
  two_requirements.node_selector_terms[0].match_expressions.push_back(
      LabelSelector("zone", "In", {"z1"}).node_selector_terms[0].match_expressions[0]);
  const std::vector<api::NodeSelector> ambiguous = {
      FieldSelector({"a", "b"}),                          // two values
      two_terms,                                          // two terms
      two_requirements,                                   // name and another requirement
      LabelSelector("kubernetes.io/hostname", "NotIn", {"a"}),
      LabelSelector("topology.kubernetes.io/zone", "In", {"z1"}),
      LabelSelector("metadata.name", "In", {"a"}),         // a label, not the field
      api::NodeSelector{},
  };
  for (size_t i = 0; i < ambiguous.size(); ++i) {
    Graph g = Build({Claim("ns", "c", {Req("r", "x")}, {{"r", "d", "p", "dev"}}, ambiguous[i])});
    ASSERT_THAT(g.Allocations(), SizeIs(1)) << i;
    EXPECT_FALSE(g.Allocations()[0]->node_known) << i;
    EXPECT_EQ(g.Allocations()[0]->node, "") << i;
  }
}

TEST(GraphTest, SingleNodeName) {
  const api::NodeSelector fields = FieldSelector({"n1"});
  EXPECT_EQ(SingleNodeName(&fields), "n1");
  const api::NodeSelector host = LabelSelector("kubernetes.io/hostname", "In", {"h"});
  EXPECT_EQ(SingleNodeName(&host), "h");
  const api::NodeSelector field_wrong_op = [] {
    api::NodeSelector s = FieldSelector({"n1"});
    s.node_selector_terms[0].match_fields[0].operator_ = "NotIn";
    return s;
  }();
  EXPECT_EQ(SingleNodeName(&field_wrong_op), std::nullopt);
  EXPECT_EQ(SingleNodeName(nullptr), std::nullopt);
}

TEST(GraphTest, EveryAllocationResultIsKept) {
  Graph g = Build({Slice("s", "d", "p", "n1", {"dev", "dev2"}),
                   Claim("ns", "c", {Req("r", "x")},
                         {{"r", "d", "p", "dev", false, "share-1"},
                          {"r", "d", "p", "dev", false, "share-2"},
                          {"r", "d", "p", "dev2"}},
                         FieldSelector({"n1"})),
                   Claim("ns", "admin", {Req("r", "x")}, {{"r", "d", "p", "dev", true}})});
  const auto allocs = g.Allocations();
  ASSERT_THAT(allocs, SizeIs(4));
  EXPECT_EQ(allocs[0]->claim_id, "ResourceClaim/ns/admin");
  EXPECT_TRUE(allocs[0]->admin_access);
  EXPECT_EQ(allocs[1]->share_id, "share-1");
  EXPECT_EQ(allocs[2]->share_id, "share-2");
  EXPECT_EQ(allocs[3]->device, "dev2");
}

TEST(GraphTest, ClassLinksToSlicesOfTheDriverItsAllocationsUsed) {
  Graph g = Build(Fixture());
  EXPECT_THAT(EdgesOf(g, EdgeKind::kClassSlice),
              ElementsAre("DeviceClass/gpu -> ResourceSlice/n1-gpu [gpu.example.com]",
                          "DeviceClass/gpu -> ResourceSlice/n2-gpu [gpu.example.com]",
                          "DeviceClass/nic -> ResourceSlice/fabric [nic.example.com]"));
}

TEST(GraphTest, ClassWithoutAllocationsHasNoSliceEdges) {
  Graph g = Build({Class("gpu"), Slice("s", "gpu.example.com", "p", "n1", {"d"}),
                   Claim("ns", "c", {Req("r", "gpu")})});
  EXPECT_THAT(EdgesOf(g, EdgeKind::kClassSlice), IsEmpty());
}

TEST(GraphTest, FirstAvailableAllocationLinksTheChosenAlternativesClass) {
  Graph g = Build({Class("big"), Class("small"), Slice("s", "small.example.com", "p", "n1", {"d"}),
                   Claim("ns", "c", {Req("gpu", "", {{"a", "big"}, {"b", "small"}})},
                         {{"gpu/b", "small.example.com", "p", "d"}}, FieldSelector({"n1"}))});
  EXPECT_THAT(EdgesOf(g, EdgeKind::kClassSlice),
              ElementsAre("DeviceClass/small -> ResourceSlice/s [small.example.com]"));
  EXPECT_THAT(EdgesOf(g, EdgeKind::kAllocation),
              ElementsAre("ResourceClaim/ns/c -> Device/small.example.com/p/d [gpu/b]"));
}

TEST(GraphTest, AllocationOfAnUnlistedDeviceIsMissing) {
  Graph g = Build({Claim("ns", "c", {Req("r", "x")}, {{"r", "gone.example.com", "p", "d"}})});
  const Node* dev = g.FindNode("Device/gone.example.com/p/d");
  ASSERT_NE(dev, nullptr);
  EXPECT_TRUE(dev->missing);
  ASSERT_NE(g.FindNode("Pool/gone.example.com/p"), nullptr);
  EXPECT_TRUE(g.FindNode("Pool/gone.example.com/p")->missing);
  EXPECT_THAT(EdgesOf(g, EdgeKind::kDevicePool), ElementsAre("Device/gone.example.com/p/d -> Pool/gone.example.com/p"));
}

TEST(GraphTest, ReservationForAPodThatIsNotStored) {
  Graph g = Build({Claim("ns", "c", {Req("r", "x")}, {}, std::nullopt, {"gone"})});
  const Node* pod = g.FindNode("Pod/ns/gone");
  ASSERT_NE(pod, nullptr);
  EXPECT_TRUE(pod->missing);
  EXPECT_THAT(EdgesOf(g, EdgeKind::kPodClaim), ElementsAre("Pod/ns/gone -> ResourceClaim/ns/c [(reservedFor)]"));
}

TEST(GraphTest, StaleSlicesAreMarked) {
  Graph g = Build({Slice("old", "d", "p", "n1", {"a"}, 1), Slice("new", "d", "p", "n1", {"a", "b"}, 2)});
  EXPECT_EQ(g.FindNode("ResourceSlice/old")->AttributeText("current"), "false");
  EXPECT_EQ(g.FindNode("ResourceSlice/new")->AttributeText("current"), "true");
  // A device is listed once, attributed to the current slice.
  EXPECT_EQ(g.FindNode("Device/d/p/a")->AttributeText("slice"), "new");
  EXPECT_EQ(g.FindNode("Pool/d/p")->AttributeText("generation"), "2");
}

TEST(GraphTest, OnlyAllocatedDevicesOption) {
  Graph g = Build(Fixture(), BuildOptions{.all_devices = false});
  std::vector<std::string> devices;
  for (const Node& n : g.nodes()) {
    if (n.kind == NodeKind::kDevice) devices.push_back(n.id);
  }
  EXPECT_THAT(devices, ElementsAre("Device/gpu.example.com/n1/gpu-1", "Device/nic.example.com/fabric/nic-0"));
  EXPECT_FALSE(g.FindNode("Device/gpu.example.com/n1/gpu-1")->missing);
}

TEST(GraphTest, EdgesToAndFrom) {
  Graph g = Build(Fixture());
  std::vector<std::string> into;
  for (const Edge* e : g.EdgesTo("Device/gpu.example.com/n1/gpu-1")) into.push_back(e->from);
  EXPECT_THAT(into, ElementsAre("ResourceClaim/team-a/train-gpu", "ResourceSlice/n1-gpu"));
  EXPECT_THAT(g.EdgesFrom("Node/n1"), IsEmpty());
  EXPECT_EQ(g.FindNode("Nope/x"), nullptr);
}

TEST(GraphTest, GraphConstructorSortsAndDeduplicates) {
  Graph g({Node{"b", NodeKind::kPod, "b", "", false, {}}, Node{"a", NodeKind::kPod, "a", "", false, {}},
           Node{"b", NodeKind::kPod, "dup", "", false, {}}},
          {Edge{"b", "a", EdgeKind::kPodClaim, "x", nullptr},
           Edge{"a", "b", EdgeKind::kPodClaim, "x", nullptr},
           Edge{"b", "a", EdgeKind::kPodClaim, "x", nullptr}},
          {});
  EXPECT_THAT(NodeIds(g), ElementsAre("a", "b"));
  EXPECT_EQ(g.FindNode("b")->name, "b");
  EXPECT_THAT(g.edges(), SizeIs(2));
}

TEST(GraphTest, BuildIsDeterministicWhateverTheInsertionOrder) {
  std::vector<api::Object> forward = Fixture();
  std::vector<api::Object> backward(forward.rbegin(), forward.rend());
  store::Cluster a;
  store::Cluster b;
  for (auto& o : forward) ASSERT_TRUE(a.Apply(o).ok());
  for (auto& o : backward) ASSERT_TRUE(b.Apply(o).ok());
  EXPECT_EQ(ToJson(BuildGraph(*a.snapshot())), ToJson(BuildGraph(*b.snapshot())));
  EXPECT_EQ(ToDot(BuildGraph(*a.snapshot())), ToDot(BuildGraph(*b.snapshot())));
}

// --- filters -------------------------------------------------------------------------------------------------

TEST(GraphTest, FilterByNamespaceKeepsThatNamespacesParts) {
  Graph g = FilterGraph(Build(Fixture()), Filter{.namespace_ = "team-a"});
  const auto ids = NodeIds(g);
  EXPECT_THAT(ids, Not(testing::Contains("Pod/team-b/serve")));
  EXPECT_THAT(ids, Not(testing::Contains("ResourceClaim/team-b/serve-net-x1")));
  EXPECT_THAT(ids, testing::IsSupersetOf({"Pod/team-a/train", "ResourceClaim/team-a/train-gpu",
                                          "ResourceClaimTemplate/team-a/scratch", "DeviceClass/gpu", "DeviceClass/nic",
                                          "Device/gpu.example.com/n1/gpu-1", "ResourceSlice/n1-gpu",
                                          "Pool/gpu.example.com/n1", "Node/n1"}));
  // Not the other devices a class could reach, nor other nodes.
  EXPECT_THAT(ids, Not(testing::Contains("Device/gpu.example.com/n2/gpu-0")));
  EXPECT_THAT(ids, Not(testing::Contains("ResourceSlice/n2-gpu")));
  EXPECT_THAT(ids, Not(testing::Contains("Node/n2")));
  EXPECT_THAT(ids, Not(testing::Contains("ResourceSlice/fabric")));
  // Edges only between kept nodes; requests only of kept owners.
  for (const Edge& e : g.edges()) {
    EXPECT_NE(g.FindNode(e.from), nullptr) << e.from;
    EXPECT_NE(g.FindNode(e.to), nullptr) << e.to;
  }
  for (const Request& r : g.requests()) EXPECT_THAT(r.owner_id, HasSubstr("team-a"));
  EXPECT_THAT(g.requests(), SizeIs(2));
}

TEST(GraphTest, FilterByNodeKeepsWhatRunsOnIt) {
  Graph g = FilterGraph(Build(Fixture()), Filter{.node = "n1"});
  const auto ids = NodeIds(g);
  EXPECT_THAT(ids, testing::IsSupersetOf({"Node/n1", "Pool/gpu.example.com/n1", "ResourceSlice/n1-gpu",
                                          "Device/gpu.example.com/n1/gpu-0", "Device/gpu.example.com/n1/gpu-1",
                                          "ResourceClaim/team-a/train-gpu", "Pod/team-a/train", "DeviceClass/gpu"}));
  EXPECT_THAT(ids, Not(testing::Contains("Node/n2")));
  EXPECT_THAT(ids, Not(testing::Contains("Pod/team-b/serve")));
  EXPECT_THAT(ids, Not(testing::Contains("ResourceSlice/fabric")));
}

TEST(GraphTest, FilterByDriverKeepsItsDevicesAndTheirConsumers) {
  Graph g = FilterGraph(Build(Fixture()), Filter{.driver = "nic.example.com"});
  const auto ids = NodeIds(g);
  EXPECT_THAT(ids, testing::IsSupersetOf({"ResourceSlice/fabric", "Device/nic.example.com/fabric/nic-0",
                                          "Pool/nic.example.com/fabric", "ResourceClaim/team-b/serve-net-x1",
                                          "Pod/team-b/serve", "DeviceClass/nic",
                                          // a template asking for a class the driver serves
                                          "ResourceClaimTemplate/team-a/scratch"}));
  EXPECT_THAT(ids, Not(testing::Contains("ResourceSlice/n1-gpu")));
  EXPECT_THAT(ids, Not(testing::Contains("ResourceClaim/team-a/train-gpu")));
}

TEST(GraphTest, FiltersCombineByIntersection) {
  Graph g = FilterGraph(Build(Fixture()), Filter{.namespace_ = "team-a", .driver = "nic.example.com"});
  const auto ids = NodeIds(g);
  EXPECT_THAT(ids, testing::Contains("ResourceClaimTemplate/team-a/scratch"));
  EXPECT_THAT(ids, Not(testing::Contains("ResourceClaim/team-a/train-gpu")));
  EXPECT_THAT(ids, Not(testing::Contains("Pod/team-b/serve")));
  Graph none = FilterGraph(Build(Fixture()), Filter{.namespace_ = "nope"});
  EXPECT_THAT(none.nodes(), IsEmpty());
  EXPECT_THAT(none.edges(), IsEmpty());
}

TEST(GraphTest, EmptyFilterKeepsEverything) {
  Graph full = Build(Fixture());
  Graph same = FilterGraph(full, Filter{});
  EXPECT_EQ(ToJson(full), ToJson(same));
}

// --- exports -------------------------------------------------------------------------------------------------

TEST(GraphTest, JsonFollowsTheSchema) {
  store::Cluster c;
  ASSERT_TRUE(c.Replace(Fixture(), "123").ok());
  const std::string json = ToJson(BuildGraph(*c.snapshot()));
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_EQ(doc["snapshot"]["resourceVersion"].GetString(), std::string("123"));
  EXPECT_EQ(doc["snapshot"]["generation"].GetUint64(), c.snapshot()->generation());
  const auto& nodes = doc["nodes"].GetArray();
  bool saw_claim = false;
  for (const auto& n : nodes) {
    ASSERT_TRUE(n.HasMember("id") && n.HasMember("kind") && n.HasMember("name") && n.HasMember("namespace") &&
                n.HasMember("missing"));
    if (std::string(n["id"].GetString()) == "ResourceClaim/team-a/train-gpu") {
      saw_claim = true;
      EXPECT_EQ(std::string(n["kind"].GetString()), "ResourceClaim");
      EXPECT_EQ(std::string(n["namespace"].GetString()), "team-a");
      EXPECT_EQ(std::string(n["name"].GetString()), "train-gpu");
      EXPECT_TRUE(n["allocated"].GetBool());
      EXPECT_EQ(n["reservedFor"].GetInt64(), 1);
    }
  }
  EXPECT_TRUE(saw_claim);
  bool saw_alloc = false;
  for (const auto& e : doc["edges"].GetArray()) {
    ASSERT_TRUE(e.HasMember("from") && e.HasMember("to") && e.HasMember("kind") && e.HasMember("label"));
    if (std::string(e["kind"].GetString()) == "allocation" &&
        std::string(e["from"].GetString()) == "ResourceClaim/team-a/train-gpu") {
      saw_alloc = true;
      const auto& a = e["allocation"];
      EXPECT_EQ(std::string(a["request"].GetString()), "gpu");
      EXPECT_EQ(std::string(a["device"].GetString()), "gpu-1");
      EXPECT_EQ(std::string(a["node"].GetString()), "n1");
      EXPECT_TRUE(a["nodeKnown"].GetBool());
      EXPECT_FALSE(a["adminAccess"].GetBool());
    }
    EXPECT_EQ(e.HasMember("allocation"), std::string(e["kind"].GetString()) == "allocation");
  }
  EXPECT_TRUE(saw_alloc);
  ASSERT_TRUE(doc["requests"].IsArray());
  EXPECT_EQ(doc["requests"].Size(), 4u);
}

TEST(GraphTest, JsonEscapesStrings) {
  Graph g({Node{"Pod/ns/we\"ird\\name", NodeKind::kPod, "we\"ird\\name", "ns", false,
                {Attribute{"node", std::string("line\nbreak")}}}},
          {}, {});
  const std::string json = ToJson(g);
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  ASSERT_FALSE(doc.HasParseError()) << json;
  EXPECT_EQ(std::string(doc["nodes"][0]["name"].GetString()), "we\"ird\\name");
  EXPECT_EQ(std::string(doc["nodes"][0]["node"].GetString()), "line\nbreak");
}

TEST(GraphTest, DotQuotesAndEscapes) {
  Graph g({Node{"Pod/ns/a\"b", NodeKind::kPod, "a\"b", "ns", false, {}},
           Node{"ResourceClaim/ns/back\\", NodeKind::kResourceClaim, "back\\", "ns", true, {}}},
          {Edge{"Pod/ns/a\"b", "ResourceClaim/ns/back\\", EdgeKind::kPodClaim, "say \"hi\"", nullptr}}, {});
  const std::string dot = ToDot(g);
  EXPECT_THAT(dot, HasSubstr("\"Pod/ns/a\\\"b\""));
  EXPECT_THAT(dot, HasSubstr("\"ResourceClaim/ns/back\\\\\""));  // the trailing '\' does not eat the quote
  EXPECT_THAT(dot, HasSubstr("\"Pod/ns/a\\\"b\" -> \"ResourceClaim/ns/back\\\\\" [label=\"say \\\"hi\\\"\"]"));
  EXPECT_THAT(dot, HasSubstr("style=dashed"));  // the missing claim
  // Every line has balanced unescaped quotes.
  size_t start = 0;
  while (start < dot.size()) {
    const size_t end = dot.find('\n', start);
    const std::string line = dot.substr(start, end - start);
    int quotes = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\') {
        ++i;
      } else if (line[i] == '"') {
        ++quotes;
      }
    }
    EXPECT_EQ(quotes % 2, 0) << line;
    start = end + 1;
  }
  EXPECT_TRUE(dot.starts_with("digraph draforge {\n"));
  EXPECT_TRUE(dot.ends_with("}\n"));
}

TEST(GraphTest, DotHasOneStatementPerNodeAndEdge) {
  Graph g = Build(Fixture());
  const std::string dot = ToDot(g);
  size_t arrows = 0;
  for (size_t pos = dot.find(" -> "); pos != std::string::npos; pos = dot.find(" -> ", pos + 1)) ++arrows;
  EXPECT_EQ(arrows, g.edges().size());
  EXPECT_THAT(dot, HasSubstr("\"Device/gpu.example.com/n1/gpu-1\" [label=\"Device\\ngpu.example.com\\nn1/gpu-1\""));
  EXPECT_THAT(dot, HasSubstr("\"ResourceClaim/team-a/train-gpu\" -> \"Device/gpu.example.com/n1/gpu-1\" "
                             "[label=\"gpu\", color=blue]"));
}

TEST(GraphTest, TextRendersATreePerPod) {
  const std::string text = ToText(Build(Fixture()));
  EXPECT_EQ(text,
            "Pod team-a/train (node n1, Running)\n"
            "  claim gpu: ResourceClaim team-a/train-gpu [allocated, reserved for 1]\n"
            "    request gpu -> DeviceClass gpu\n"
            "      device gpu.example.com/n1/gpu-1 on node n1\n"
            "  claim net: ResourceClaimTemplate team-a/scratch [claim not created yet]\n"
            "    request nic -> DeviceClass nic\n"
            "Pod team-b/serve (node n2, Running)\n"
            "  claim net: ResourceClaim team-b/serve-net-x1 [allocated, reserved for 1]\n"
            "    request nic -> DeviceClass nic\n"
            "      device nic.example.com/fabric/nic-0 (node unknown)\n");
}

TEST(GraphTest, TextShowsAlternativesAndClaimsWithoutPods) {
  const std::string text = ToText(Build({Class("big"),
                                         Claim("ns", "lonely", {Req("gpu", "", {{"a", "big"}, {"b", "small"}})},
                                               {{"gpu/b", "d", "p", "x"}, {"old", "d", "p", "y", true}},
                                               FieldSelector({"n9"}))}));
  EXPECT_EQ(text,
            "Claims without a pod:\n"
            "  ResourceClaim ns/lonely [allocated]\n"
            "    request gpu (firstAvailable)\n"
            "      alternative gpu/a -> DeviceClass big\n"
            "      alternative gpu/b -> DeviceClass small (not found)\n"
            "        device d/p/x on node n9 (not in any ResourceSlice)\n"
            "    result for request old (not in the claim's spec)\n"
            "      device d/p/y on node n9 [adminAccess] (not in any ResourceSlice)\n");
}

TEST(GraphTest, TextOfAnEmptyGraph) { EXPECT_EQ(ToText(Graph()), "(no pods or claims)\n"); }

TEST(GraphTest, Ids) {
  EXPECT_EQ(NodeId(NodeKind::kPod, "ns", "p"), "Pod/ns/p");
  EXPECT_EQ(NodeId(NodeKind::kDeviceClass, "", "gpu"), "DeviceClass/gpu");
  EXPECT_EQ(PoolId("d", "a/b"), "Pool/d/a/b");
  EXPECT_EQ(DeviceId("d", "a/b", "x"), "Device/d/a/b/x");
  EXPECT_EQ(NodeKindName(NodeKind::kResourceClaimTemplate), "ResourceClaimTemplate");
  EXPECT_EQ(EdgeKindName(EdgeKind::kAllocation), "allocation");
}

// --- decoded from YAML -----------------------------------------------------------------------------------------

constexpr char kYaml[] = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpus
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool:
    name: node-1
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: gpu-0
  - name: gpu-1
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - name: big
          deviceClassName: gpu.example.com
          count: 2
        - name: one
          deviceClassName: gpu.example.com
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: trainer-gpu-abc
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - name: big
        deviceClassName: gpu.example.com
        count: 2
      - name: one
        deviceClassName: gpu.example.com
status:
  allocation:
    devices:
      results:
      - request: gpu/one
        driver: gpu.example.com
        pool: node-1
        device: gpu-0
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - key: metadata.name
          operator: In
          values: [node-1]
  reservedFor:
  - resource: pods
    name: trainer
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: ml
spec:
  nodeName: node-1
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: one-gpu
status:
  resourceClaimStatuses:
  - name: gpu
    resourceClaimName: trainer-gpu-abc
)";

TEST(GraphTest, BuiltFromDecodedYaml) {
  auto decoded = api::DecodeStream(kYaml, api::DecodeOptions{});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  std::vector<api::Object> objects;
  for (auto& d : *decoded) {
    ASSERT_TRUE(d.object.ok()) << d.object.status();
    objects.push_back(*std::move(d.object));
  }
  Graph g = Build(std::move(objects));
  EXPECT_THAT(EdgesOf(g, EdgeKind::kPodClaim), ElementsAre("Pod/ml/trainer -> ResourceClaim/ml/trainer-gpu-abc [gpu]"));
  EXPECT_THAT(EdgesOf(g, EdgeKind::kPodTemplate), IsEmpty());
  EXPECT_THAT(EdgesOf(g, EdgeKind::kAllocation),
              ElementsAre("ResourceClaim/ml/trainer-gpu-abc -> Device/gpu.example.com/node-1/gpu-0 [gpu/one]"));
  EXPECT_THAT(EdgesOf(g, EdgeKind::kClassSlice),
              ElementsAre("DeviceClass/gpu.example.com -> ResourceSlice/node-1-gpus [gpu.example.com]"));
  EXPECT_THAT(EdgesOf(g, EdgeKind::kTemplateClass), SizeIs(2));
  EXPECT_EQ(g.Allocations()[0]->node, "node-1");
  const auto reqs = g.RequestsOf("ResourceClaim/ml/trainer-gpu-abc");
  ASSERT_THAT(reqs, SizeIs(3));
  EXPECT_EQ(reqs[1]->count, 2);
  EXPECT_THAT(ToText(g), HasSubstr("      alternative gpu/one -> DeviceClass gpu.example.com\n"
                                   "        device gpu.example.com/node-1/gpu-0 on node node-1\n"));
}

}  // namespace
}  // namespace draforge::graph
