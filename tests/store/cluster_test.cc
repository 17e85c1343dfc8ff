#include "store/cluster.h"

#include <atomic>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "api/codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/internal/persistent_map.h"

namespace draforge::store {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// --- fixtures built in C++ ---------------------------------------------------------------------------

api::ObjectMeta Meta(std::string ns, std::string name, std::string rv = {}) {
  api::ObjectMeta m;
  if (!ns.empty()) m.namespace_ = std::move(ns);
  if (!name.empty()) m.name = std::move(name);
  if (!rv.empty()) m.resource_version = std::move(rv);
  return m;
}

api::Object Wrap(auto value, std::string api_version = "resource.k8s.io/v1") {
  api::Object obj;
  obj.api_version = std::move(api_version);
  obj.value = std::move(value);
  return obj;
}

struct SliceSpec {
  std::string name;
  std::string driver = "gpu.example.com";
  std::string pool = "pool-a";
  int64_t generation = 1;
  int64_t count = 1;
  std::string node;
  std::vector<std::string> devices = {"dev-0"};
  std::string rv;
};

api::Object Slice(const SliceSpec& s) {
  api::ResourceSlice slice;
  slice.metadata = Meta("", s.name, s.rv);
  api::ResourceSliceSpec spec;
  spec.driver = s.driver;
  spec.pool = api::ResourcePool{s.pool, s.generation, s.count};
  if (s.node.empty()) {
    spec.all_nodes = true;
  } else {
    spec.node_name = s.node;
  }
  for (const std::string& d : s.devices) {
    api::Device dev;
    dev.name = d;
    spec.devices.push_back(dev);
  }
  slice.spec = spec;
  return Wrap(slice);
}

struct Result {
  std::string request = "req";
  std::string driver = "gpu.example.com";
  std::string pool = "pool-a";
  std::string device = "dev-0";
  bool admin = false;
  std::string share;
};

api::Object Claim(std::string ns, std::string name, std::vector<Result> results = {},
                  std::vector<std::pair<std::string, std::string>> reserved_pods = {}, std::string rv = {}) {
  api::ResourceClaim claim;
  claim.metadata = Meta(std::move(ns), std::move(name), std::move(rv));
  api::DeviceClaim dc;
  api::DeviceRequest req;
  req.name = "req";
  req.exactly = api::ExactDeviceRequest{};
  req.exactly->device_class_name = "gpu";
  dc.requests.push_back(req);
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
      status.allocation = alloc;
    }
    for (const auto& [pod, uid] : reserved_pods) {
      api::ResourceClaimConsumerReference ref;
      ref.resource = "pods";
      ref.name = pod;
      if (!uid.empty()) ref.uid = uid;
      status.reserved_for.push_back(ref);
    }
    claim.status = status;
  }
  return Wrap(claim);
}

struct PodEntry {
  std::string name;
  std::string claim;     // resourceClaimName
  std::string tmpl;      // resourceClaimTemplateName
};

api::Object Pod(std::string ns, std::string name, std::string node = {}, std::vector<PodEntry> entries = {},
                std::vector<std::pair<std::string, std::optional<std::string>>> statuses = {},
                std::string uid = {}) {
  api::Pod pod;
  pod.metadata = Meta(std::move(ns), std::move(name));
  if (!uid.empty()) pod.metadata.uid = uid;
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
  if (!statuses.empty()) {
    api::PodStatus st;
    for (const auto& [n, claim] : statuses) st.resource_claim_statuses.push_back({n, claim});
    pod.status = st;
  }
  return Wrap(pod, "v1");
}

api::Object NodeObj(std::string name) {
  api::Node node;
  node.metadata = Meta("", std::move(name));
  return Wrap(node, "v1");
}

api::Object Class(std::string name) {
  api::DeviceClass c;
  c.metadata = Meta("", std::move(name));
  return Wrap(c);
}

api::Object TaintRule(std::string name, std::optional<std::string> driver, std::optional<std::string> pool,
                      std::optional<std::string> device) {
  api::DeviceTaintRule r;
  r.metadata = Meta("", std::move(name));
  r.spec = api::DeviceTaintRuleSpec{};
  r.spec->device_selector = api::DeviceTaintSelector{driver, pool, device};
  r.spec->taint = api::DeviceTaint{"k", "v", "NoSchedule", std::nullopt};
  return Wrap(r, "resource.k8s.io/v1alpha3");
}

api::Object Other(std::string api_version, std::string kind, std::string ns, std::string name, std::string rv = {}) {
  api::OtherObject o;
  o.api_version = api_version;
  o.kind = kind;
  o.metadata = Meta(std::move(ns), std::move(name), std::move(rv));
  o.raw = api::RawJson("{}");
  return Wrap(o, api_version);
}

std::vector<std::string> SliceNames(const std::vector<const api::ResourceSlice*>& slices) {
  std::vector<std::string> out;
  for (const auto* s : slices) out.push_back(*s->metadata.name);
  return out;
}

template <typename T>
std::vector<std::string> Keys(const std::vector<const T*>& objs) {
  std::vector<std::string> out;
  for (const T* o : objs) {
    out.push_back(o->metadata.namespace_ ? *o->metadata.namespace_ + "/" + *o->metadata.name : *o->metadata.name);
  }
  return out;
}

// --- apply / update / delete -------------------------------------------------------------------------------

TEST(ClusterTest, EmptyStoreHasGenerationZero) {
  Cluster c;
  auto snap = c.snapshot();
  ASSERT_NE(snap, nullptr);
  EXPECT_EQ(snap->generation(), 0u);
  EXPECT_EQ(snap->resource_version(), "");
  EXPECT_EQ(snap->Count(api::Kind::kResourceSlice), 0u);
}

TEST(ClusterTest, ApplyAddsObject) {
  Cluster c;
  Outcome outcome;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .rv = "5"}), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kAdded);
  auto snap = c.snapshot();
  EXPECT_EQ(snap->generation(), 1u);
  ASSERT_NE(snap->GetResourceSlice("s1"), nullptr);
  EXPECT_EQ(*snap->GetResourceSlice("s1")->spec->driver, "gpu.example.com");
  EXPECT_EQ(snap->resource_version(), "5");
  EXPECT_EQ(snap->resource_version(api::Kind::kResourceSlice), "5");
  EXPECT_EQ(snap->resource_version(api::Kind::kPod), "");
}

TEST(ClusterTest, ApplyUpdatesObject) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"a"}, .rv = "5"})).ok());
  Outcome outcome;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"a", "b"}, .rv = "6"}), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kUpdated);
  auto snap = c.snapshot();
  EXPECT_EQ(snap->GetResourceSlice("s1")->spec->devices.size(), 2u);
  EXPECT_EQ(snap->Count(api::Kind::kResourceSlice), 1u);
  EXPECT_EQ(snap->generation(), 2u);
}

TEST(ClusterTest, IdenticalObjectIsUnchangedAndPublishesNothing) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .rv = "5"})).ok());
  auto before = c.snapshot();
  Outcome outcome;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .rv = "5"}), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kUnchanged);
  EXPECT_EQ(c.snapshot().get(), before.get());
}

TEST(ClusterTest, SnapshotWithoutChangeIsTheSamePointer) {
  Cluster c;
  ASSERT_TRUE(c.Apply(NodeObj("n1")).ok());
  EXPECT_EQ(c.snapshot().get(), c.snapshot().get());
}

TEST(ClusterTest, OlderResourceVersionIsIgnored) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"new"}, .rv = "10"})).ok());
  Outcome outcome;
  absl::Status st = c.Apply(Slice({.name = "s1", .devices = {"old"}, .rv = "9"}), &outcome);
  EXPECT_TRUE(st.ok()) << st;
  EXPECT_EQ(outcome, Outcome::kIgnoredStale);
  auto snap = c.snapshot();
  EXPECT_EQ(*snap->GetResourceSlice("s1")->spec->devices[0].name, "new");
  EXPECT_EQ(snap->generation(), 1u);
  EXPECT_EQ(snap->resource_version(), "10");
}

TEST(ClusterTest, ResourceVersionsCompareAsIntegersNotText) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"nine"}, .rv = "9"})).ok());
  Outcome outcome;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"ten"}, .rv = "10"}), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kUpdated);  // "10" < "9" as text, but newer as a number
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"nine"}, .rv = "9"}), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kIgnoredStale);
  EXPECT_EQ(*c.snapshot()->GetResourceSlice("s1")->spec->devices[0].name, "ten");
}

TEST(ClusterTest, NonNumericOrMissingResourceVersionIsAccepted) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"a"}, .rv = "100"})).ok());
  Outcome outcome;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"b"}, .rv = "opaque-1"}), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kUpdated);
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"c"}}), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kUpdated);
  // A numeric version after a stored object without one is accepted too.
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"d"}, .rv = "1"}), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kUpdated);
  // Overflowing uint64 is not a number: accepted.
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"e"}, .rv = "99999999999999999999999"}), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kUpdated);
  EXPECT_EQ(*c.snapshot()->GetResourceSlice("s1")->spec->devices[0].name, "e");
}

TEST(ClusterTest, EqualResourceVersionWithDifferentContentIsApplied) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"a"}, .rv = "7"})).ok());
  Outcome outcome;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"b"}, .rv = "7"}), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kUpdated);
}

TEST(ClusterTest, MissingNameIsAnErrorNamingTheKind) {
  Cluster c;
  absl::Status st = c.Apply(Claim("ns", ""));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()), HasSubstr("ResourceClaim"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("metadata.name"));
  EXPECT_EQ(c.snapshot()->generation(), 0u);

  api::Object other = Other("apps/v1", "Deployment", "ns", "");
  st = c.Apply(other);
  EXPECT_THAT(std::string(st.message()), HasSubstr("Deployment"));
}

TEST(ClusterTest, MissingNameWithGenerateNameSaysSo) {
  Cluster c;
  api::Object claim = Claim("ns", "");
  claim.metadata().generate_name = "job-";
  absl::Status st = c.Apply(claim);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()), HasSubstr("generateName \"job-\""));
}

TEST(ClusterTest, NamespacedKindsGetTheDefaultNamespace) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Claim("", "c1")).ok());
  auto snap = c.snapshot();
  const api::ResourceClaim* claim = snap->GetResourceClaim("default", "c1");
  ASSERT_NE(claim, nullptr);
  EXPECT_EQ(claim->metadata.namespace_, "default");
  EXPECT_EQ(snap->GetResourceClaim("", "c1"), nullptr);
}

TEST(ClusterTest, DefaultNamespaceIsAnOption) {
  Cluster c(ClusterOptions{.default_namespace = "team-a"});
  ASSERT_TRUE(c.Apply(Pod("", "p1")).ok());
  EXPECT_NE(c.snapshot()->GetPod("team-a", "p1"), nullptr);
  EXPECT_EQ(c.snapshot()->GetPod("default", "p1"), nullptr);
  Outcome outcome;
  ASSERT_TRUE(c.Delete(api::Kind::kPod, "", "p1", {}, &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kDeleted);
}

TEST(ClusterTest, ClusterScopedKindsAreKeyedByNameOnly) {
  Cluster c;
  api::Object slice = Slice({.name = "s1"});
  slice.metadata().namespace_ = "ignored";
  ASSERT_TRUE(c.Apply(slice).ok());
  auto snap = c.snapshot();
  EXPECT_NE(snap->Get(api::Kind::kResourceSlice, "", "s1"), nullptr);
  EXPECT_NE(snap->Get(api::Kind::kResourceSlice, "anything", "s1"), nullptr);
  ASSERT_TRUE(c.Delete(api::Kind::kResourceSlice, "other", "s1").ok());
  EXPECT_EQ(c.snapshot()->Count(api::Kind::kResourceSlice), 0u);
}

TEST(ClusterTest, DeleteRemovesTheObject) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Claim("ns", "c1", {}, {}, "3")).ok());
  Outcome outcome;
  ASSERT_TRUE(c.Delete(api::Kind::kResourceClaim, "ns", "c1", "4", &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kDeleted);
  auto snap = c.snapshot();
  EXPECT_EQ(snap->GetResourceClaim("ns", "c1"), nullptr);
  EXPECT_EQ(snap->resource_version(), "4");
  EXPECT_EQ(snap->generation(), 2u);
}

TEST(ClusterTest, DeleteOfMissingObjectIsNotFoundAndNotAnError) {
  Cluster c;
  Outcome outcome;
  ASSERT_TRUE(c.Delete(api::Kind::kResourceClaim, "ns", "nope", {}, &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kNotFound);
  EXPECT_EQ(c.snapshot()->generation(), 0u);
}

TEST(ClusterTest, StaleDeleteIsIgnored) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Claim("ns", "c1", {}, {}, "20")).ok());
  Outcome outcome;
  ASSERT_TRUE(c.Delete(api::Kind::kResourceClaim, "ns", "c1", "19", &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kIgnoredStale);
  EXPECT_NE(c.snapshot()->GetResourceClaim("ns", "c1"), nullptr);
}

TEST(ClusterTest, DeleteErrors) {
  Cluster c;
  EXPECT_EQ(c.Delete(api::Kind::kResourceClaim, "ns", "").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.Delete(api::Kind::kOther, "ns", "x").code(), absl::StatusCode::kInvalidArgument);
}

TEST(ClusterTest, OtherKindsAreStoredByGroupKindNamespaceName) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Other("apps/v1", "Deployment", "ns", "web")).ok());
  ASSERT_TRUE(c.Apply(Other("example.com/v1", "Deployment", "ns", "web")).ok());
  ASSERT_TRUE(c.Apply(Other("v1", "ConfigMap", "ns", "cfg")).ok());
  auto snap = c.snapshot();
  EXPECT_EQ(snap->Count(api::Kind::kOther), 3u);
  ASSERT_NE(snap->GetOther("apps", "Deployment", "ns", "web"), nullptr);
  EXPECT_EQ(snap->GetOther("apps", "Deployment", "ns", "web")->api_version, "apps/v1");
  EXPECT_NE(snap->GetOther("", "ConfigMap", "ns", "cfg"), nullptr);
  EXPECT_EQ(snap->Get(api::Kind::kOther, "ns", "web"), nullptr);
  std::vector<std::string> kinds;
  for (const api::Object* o : snap->List(api::Kind::kOther)) kinds.push_back(o->api_version);
  EXPECT_THAT(kinds, ElementsAre("v1", "apps/v1", "example.com/v1"));  // by group: "", apps, example.com

  Outcome outcome;
  ASSERT_TRUE(c.DeleteObject(Other("apps/v1", "Deployment", "ns", "web"), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kDeleted);
  EXPECT_EQ(c.snapshot()->GetOther("apps", "Deployment", "ns", "web"), nullptr);
  EXPECT_NE(c.snapshot()->GetOther("example.com", "Deployment", "ns", "web"), nullptr);
}

// --- watch events -----------------------------------------------------------------------------------------

TEST(ClusterTest, WatchEventsAddModifyDelete) {
  Cluster c;
  Outcome outcome;
  ASSERT_TRUE(c.ApplyEvent(EventType::kAdded, Claim("ns", "c1", {}, {}, "1"), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kAdded);
  ASSERT_TRUE(c.ApplyEvent(EventType::kModified, Claim("ns", "c1", {Result{}}, {}, "2"), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kUpdated);
  EXPECT_TRUE(c.snapshot()->InUse("gpu.example.com", "pool-a", "dev-0"));
  // A late MODIFIED with an older version changes nothing.
  ASSERT_TRUE(c.ApplyEvent(EventType::kModified, Claim("ns", "c1", {}, {}, "1"), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kIgnoredStale);
  EXPECT_TRUE(c.snapshot()->InUse("gpu.example.com", "pool-a", "dev-0"));
  ASSERT_TRUE(c.ApplyEvent(EventType::kDeleted, Claim("ns", "c1", {Result{}}, {}, "3"), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kDeleted);
  auto snap = c.snapshot();
  EXPECT_EQ(snap->GetResourceClaim("ns", "c1"), nullptr);
  EXPECT_FALSE(snap->InUse("gpu.example.com", "pool-a", "dev-0"));
  EXPECT_EQ(snap->resource_version(api::Kind::kResourceClaim), "3");
}

TEST(ClusterTest, DeletedEventWithoutNamespaceUsesDefault) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Claim("", "c1")).ok());
  Outcome outcome;
  ASSERT_TRUE(c.ApplyEvent(EventType::kDeleted, Claim("", "c1"), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kDeleted);
}

TEST(ClusterTest, BookmarkMovesOnlyTheResourceVersion) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .rv = "5"})).ok());
  api::ResourceSlice bookmark;
  bookmark.metadata.resource_version = "42";
  Outcome outcome;
  ASSERT_TRUE(c.ApplyEvent(EventType::kBookmark, Wrap(bookmark), &outcome).ok());
  EXPECT_EQ(outcome, Outcome::kBookmark);
  auto snap = c.snapshot();
  EXPECT_EQ(snap->resource_version(), "42");
  EXPECT_EQ(snap->resource_version(api::Kind::kResourceSlice), "42");
  EXPECT_EQ(snap->Count(api::Kind::kResourceSlice), 1u);
  EXPECT_EQ(snap->generation(), 2u);
}

TEST(ClusterTest, EventTypeNames) {
  for (EventType t : {EventType::kAdded, EventType::kModified, EventType::kDeleted, EventType::kBookmark}) {
    EXPECT_EQ(ParseEventType(EventTypeName(t)), t);
  }
  EXPECT_EQ(EventTypeName(EventType::kModified), "MODIFIED");
  EXPECT_EQ(ParseEventType("ERROR"), std::nullopt);
  EXPECT_EQ(ParseEventType("added"), std::nullopt);
  EXPECT_EQ(OutcomeName(Outcome::kIgnoredStale), "ignored-stale");
}

// --- Replace ------------------------------------------------------------------------------------------------

TEST(ClusterTest, ReplaceDeletesWhatIsGone) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "s2"})).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "c1", {Result{}})).ok());
  std::vector<api::Object> list;
  list.push_back(Slice({.name = "s2"}));                       // unchanged
  list.push_back(Slice({.name = "s3"}));                       // added
  list.push_back(Claim("ns", "c1"));                           // updated: deallocated
  ReplaceStats stats;
  ASSERT_TRUE(c.Replace(std::move(list), "100", &stats).ok());
  EXPECT_EQ(stats.added, 1u);
  EXPECT_EQ(stats.updated, 1u);
  EXPECT_EQ(stats.unchanged, 1u);
  EXPECT_EQ(stats.deleted, 1u);
  auto snap = c.snapshot();
  EXPECT_THAT(SliceNames(snap->ResourceSlices()), ElementsAre("s2", "s3"));
  EXPECT_THAT(SliceNames(snap->SlicesByDriver("gpu.example.com")), ElementsAre("s2", "s3"));
  EXPECT_FALSE(snap->InUse("gpu.example.com", "pool-a", "dev-0"));
  EXPECT_EQ(snap->resource_version(), "100");
  for (size_t k = 0; k <= 8; ++k) EXPECT_EQ(snap->resource_version(static_cast<api::Kind>(k)), "100");
}

TEST(ClusterTest, ReplaceIgnoresResourceVersionOrdering) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .devices = {"a"}, .rv = "50"})).ok());
  std::vector<api::Object> list;
  list.push_back(Slice({.name = "s1", .devices = {"b"}, .rv = "40"}));
  ASSERT_TRUE(c.Replace(std::move(list), "60").ok());
  EXPECT_EQ(*c.snapshot()->GetResourceSlice("s1")->spec->devices[0].name, "b");
}

TEST(ClusterTest, ReplaceIsAtomicOnError) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1"})).ok());
  auto before = c.snapshot();
  std::vector<api::Object> list;
  list.push_back(Slice({.name = "s2"}));
  list.push_back(Claim("ns", ""));
  absl::Status st = c.Replace(std::move(list), "9");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()), HasSubstr("objects[1]"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("ResourceClaim"));
  EXPECT_EQ(c.snapshot().get(), before.get());
  EXPECT_NE(c.snapshot()->GetResourceSlice("s1"), nullptr);
}

TEST(ClusterTest, ReplaceRejectsTheSameObjectTwice) {
  Cluster c;
  std::vector<api::Object> list;
  list.push_back(Claim("", "c1"));
  list.push_back(Claim("default", "c1"));  // the same after defaulting
  absl::Status st = c.Replace(std::move(list), "");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()), HasSubstr("objects[1]"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("default/c1"));
  EXPECT_EQ(c.snapshot()->Count(api::Kind::kResourceClaim), 0u);
}

TEST(ClusterTest, ReplaceKindsLeavesOtherKindsAlone) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1"})).ok());
  ASSERT_TRUE(c.Apply(Pod("ns", "p1")).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "c1", {}, {}, "3")).ok());
  std::vector<api::Object> list;
  list.push_back(Slice({.name = "s9"}));
  ReplaceStats stats;
  ASSERT_TRUE(c.ReplaceKinds({api::Kind::kResourceSlice}, std::move(list), "77", &stats).ok());
  EXPECT_EQ(stats.deleted, 1u);
  auto snap = c.snapshot();
  EXPECT_THAT(SliceNames(snap->ResourceSlices()), ElementsAre("s9"));
  EXPECT_NE(snap->GetPod("ns", "p1"), nullptr);
  EXPECT_NE(snap->GetResourceClaim("ns", "c1"), nullptr);
  EXPECT_EQ(snap->resource_version(api::Kind::kResourceSlice), "77");
  EXPECT_EQ(snap->resource_version(api::Kind::kResourceClaim), "3");
}

TEST(ClusterTest, ReplaceKindsRejectsObjectsOfOtherKinds) {
  Cluster c;
  std::vector<api::Object> list;
  list.push_back(Pod("ns", "p1"));
  absl::Status st = c.ReplaceKinds({api::Kind::kResourceSlice}, std::move(list), "1");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()), HasSubstr("Pod"));
}

// A reflector relisting one custom resource replaces that resource's objects only: other opaque
// objects (another custom resource, another group's kind of the same name) stay.
TEST(ClusterTest, ReplaceOthersReplacesOneGroupAndKindOnly) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Other("sim.draforge.io/v1alpha1", "SimulatedDevicePool", "", "old")).ok());
  ASSERT_TRUE(c.Apply(Other("example.com/v1", "SimulatedDevicePool", "", "old")).ok());
  ASSERT_TRUE(c.Apply(Other("coordination.k8s.io/v1", "Lease", "ns", "l")).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "s1"})).ok());
  std::vector<api::Object> list;
  list.push_back(Other("sim.draforge.io/v1alpha1", "SimulatedDevicePool", "", "new"));
  ReplaceStats stats;
  ASSERT_TRUE(c.ReplaceOthers("sim.draforge.io", "SimulatedDevicePool", std::move(list), "9", &stats).ok());
  EXPECT_EQ(stats.added, 1u);
  EXPECT_EQ(stats.deleted, 1u);
  auto snap = c.snapshot();
  EXPECT_EQ(snap->GetOther("sim.draforge.io", "SimulatedDevicePool", "", "old"), nullptr);
  EXPECT_NE(snap->GetOther("sim.draforge.io", "SimulatedDevicePool", "", "new"), nullptr);
  EXPECT_NE(snap->GetOther("example.com", "SimulatedDevicePool", "", "old"), nullptr);
  EXPECT_NE(snap->GetOther("coordination.k8s.io", "Lease", "ns", "l"), nullptr);
  EXPECT_THAT(SliceNames(snap->ResourceSlices()), ElementsAre("s1"));

  // An object of another group or kind is refused, and nothing changes.
  std::vector<api::Object> wrong;
  wrong.push_back(Other("coordination.k8s.io/v1", "Lease", "ns", "x"));
  EXPECT_EQ(c.ReplaceOthers("sim.draforge.io", "SimulatedDevicePool", std::move(wrong), "10").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_NE(c.snapshot()->GetOther("sim.draforge.io", "SimulatedDevicePool", "", "new"), nullptr);
}

TEST(ClusterTest, ReplaceWithTheSameContentPublishesNothing) {
  Cluster c;
  std::vector<api::Object> list = {Slice({.name = "s1"}), Pod("ns", "p")};
  ASSERT_TRUE(c.Replace(list, "5").ok());
  auto before = c.snapshot();
  ReplaceStats stats;
  ASSERT_TRUE(c.Replace(list, "5", &stats).ok());
  EXPECT_EQ(stats.unchanged, 2u);
  EXPECT_EQ(c.snapshot().get(), before.get());
  ASSERT_TRUE(c.Replace(list, "6").ok());  // only the version moved
  EXPECT_EQ(c.snapshot()->generation(), before->generation() + 1);
}

// --- snapshots ----------------------------------------------------------------------------------------------

TEST(ClusterTest, OldSnapshotIsUnchangedByLaterWrites) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .count = 2, .node = "n1", .devices = {"a"}})).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "c1", {Result{.device = "a"}})).ok());
  ASSERT_TRUE(c.Apply(Pod("ns", "p1", "n1", {{.name = "x", .claim = "c1"}})).ok());
  auto old = c.snapshot();

  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .count = 2, .node = "n1", .devices = {"a", "b"}})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "s2", .count = 2, .node = "n1", .devices = {"c"}})).ok());
  ASSERT_TRUE(c.Delete(api::Kind::kResourceClaim, "ns", "c1").ok());
  ASSERT_TRUE(c.Delete(api::Kind::kPod, "ns", "p1").ok());

  EXPECT_EQ(old->generation(), 3u);
  EXPECT_EQ(old->GetResourceSlice("s1")->spec->devices.size(), 1u);
  EXPECT_EQ(old->GetResourceSlice("s2"), nullptr);
  EXPECT_NE(old->GetResourceClaim("ns", "c1"), nullptr);
  EXPECT_TRUE(old->InUse("gpu.example.com", "pool-a", "a"));
  EXPECT_THAT(old->PodsOnNode("n1"), SizeIs(1));
  auto pool = old->GetPool("gpu.example.com", "pool-a");
  ASSERT_TRUE(pool.has_value());
  EXPECT_FALSE(pool->complete);
  EXPECT_EQ(pool->device_count, 1u);

  auto now = c.snapshot();
  EXPECT_EQ(now->GetResourceSlice("s1")->spec->devices.size(), 2u);
  EXPECT_FALSE(now->InUse("gpu.example.com", "pool-a", "a"));
  EXPECT_THAT(now->PodsOnNode("n1"), IsEmpty());
  EXPECT_TRUE(now->GetPool("gpu.example.com", "pool-a")->complete);
}

TEST(ClusterTest, SnapshotKeepsObjectsAliveAfterTheStoreDropsThem) {
  auto c = std::make_unique<Cluster>();
  ASSERT_TRUE(c->Apply(Slice({.name = "s1", .devices = {"a", "b"}})).ok());
  auto snap = c->snapshot();
  const api::ResourceSlice* slice = snap->GetResourceSlice("s1");
  std::shared_ptr<const api::Object> shared = snap->GetShared(api::Kind::kResourceSlice, "", "s1");
  ASSERT_TRUE(c->Replace({}, "1").ok());
  c.reset();  // the store is gone; the snapshot still owns everything
  EXPECT_EQ(slice->spec->devices.size(), 2u);
  EXPECT_EQ(shared.get()->metadata().name, "s1");
  EXPECT_THAT(SliceNames(snap->SlicesByDriver("gpu.example.com")), ElementsAre("s1"));
}

// --- lists and getters -------------------------------------------------------------------------------------

TEST(ClusterTest, ListsAreSortedByNamespaceAndName) {
  Cluster c;
  for (const auto& [ns, name] : std::vector<std::pair<std::string, std::string>>{
           {"b", "x"}, {"a", "z"}, {"a", "y"}, {"c", "a"}, {"b", "a"}}) {
    ASSERT_TRUE(c.Apply(Claim(ns, name)).ok());
  }
  auto snap = c.snapshot();
  EXPECT_THAT(Keys(snap->ResourceClaims()), ElementsAre("a/y", "a/z", "b/a", "b/x", "c/a"));
  EXPECT_THAT(Keys(snap->ResourceClaims("b")), ElementsAre("b/a", "b/x"));
  EXPECT_THAT(Keys(snap->ResourceClaims("nope")), IsEmpty());
  EXPECT_THAT(snap->List(api::Kind::kResourceClaim, "a"), SizeIs(2));
  EXPECT_THAT(snap->List(api::Kind::kResourceClaim), SizeIs(5));
}

TEST(ClusterTest, TypedGettersAndLists) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Class("gpu")).ok());
  ASSERT_TRUE(c.Apply(NodeObj("n2")).ok());
  ASSERT_TRUE(c.Apply(NodeObj("n1")).ok());
  ASSERT_TRUE(c.Apply(TaintRule("r1", "d", std::nullopt, std::nullopt)).ok());
  api::ResourceClaimTemplate t;
  t.metadata = Meta("ns", "tmpl");
  ASSERT_TRUE(c.Apply(Wrap(t)).ok());
  auto snap = c.snapshot();
  EXPECT_NE(snap->GetDeviceClass("gpu"), nullptr);
  EXPECT_EQ(snap->GetDeviceClass("cpu"), nullptr);
  EXPECT_NE(snap->GetNode("n1"), nullptr);
  EXPECT_THAT(Keys(snap->Nodes()), ElementsAre("n1", "n2"));
  EXPECT_NE(snap->GetDeviceTaintRule("r1"), nullptr);
  EXPECT_NE(snap->GetResourceClaimTemplate("ns", "tmpl"), nullptr);
  EXPECT_THAT(snap->ResourceClaimTemplates("ns"), SizeIs(1));
  EXPECT_THAT(snap->DeviceClasses(), SizeIs(1));
  EXPECT_THAT(snap->DeviceTaintRules(), SizeIs(1));
  // A getter of the wrong type finds nothing rather than something of another kind.
  EXPECT_EQ(snap->GetPod("ns", "tmpl"), nullptr);
}

// --- slice and pool indexes --------------------------------------------------------------------------------

TEST(ClusterTest, SlicesByDriverNodeAndDrivers) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "g1", .driver = "gpu", .pool = "n1", .node = "n1"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "g2", .driver = "gpu", .pool = "n2", .node = "n2"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "nic", .driver = "nic", .pool = "n1", .node = "n1"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "fabric", .driver = "nic", .pool = "shared"})).ok());
  auto snap = c.snapshot();
  EXPECT_THAT(snap->Drivers(), ElementsAre("gpu", "nic"));
  EXPECT_THAT(SliceNames(snap->SlicesByDriver("gpu")), ElementsAre("g1", "g2"));
  EXPECT_THAT(SliceNames(snap->SlicesByDriver("nic")), ElementsAre("fabric", "nic"));
  EXPECT_THAT(SliceNames(snap->SlicesByNode("n1")), ElementsAre("g1", "nic"));
  EXPECT_THAT(SliceNames(snap->SlicesByNode("n3")), IsEmpty());
  EXPECT_THAT(SliceNames(snap->SlicesByPool("nic", "n1")), ElementsAre("nic"));
  EXPECT_THAT(SliceNames(snap->SlicesByPool("gpu", "shared")), IsEmpty());
}

TEST(ClusterTest, SliceIndexesFollowUpdatesAndDeletes) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s", .driver = "a", .pool = "p", .node = "n1"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "s", .driver = "b", .pool = "q", .node = "n2"})).ok());
  auto snap = c.snapshot();
  EXPECT_THAT(snap->Drivers(), ElementsAre("b"));
  EXPECT_THAT(SliceNames(snap->SlicesByDriver("a")), IsEmpty());
  EXPECT_THAT(SliceNames(snap->SlicesByNode("n1")), IsEmpty());
  EXPECT_THAT(SliceNames(snap->SlicesByNode("n2")), ElementsAre("s"));
  EXPECT_FALSE(snap->GetPool("a", "p").has_value());
  EXPECT_TRUE(snap->GetPool("b", "q").has_value());
  ASSERT_TRUE(c.Delete(api::Kind::kResourceSlice, "", "s").ok());
  snap = c.snapshot();
  EXPECT_THAT(snap->Drivers(), IsEmpty());
  EXPECT_THAT(snap->Pools(), IsEmpty());
  EXPECT_THAT(SliceNames(snap->SlicesByNode("n2")), IsEmpty());
}

TEST(ClusterTest, PoolUsesTheHighestGenerationOnly) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "old-1", .generation = 1, .count = 2, .devices = {"a"}})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "old-2", .generation = 1, .count = 2, .devices = {"b"}})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "new-1", .generation = 2, .count = 1, .devices = {"a", "b", "c"}})).ok());
  auto snap = c.snapshot();
  auto pool = snap->GetPool("gpu.example.com", "pool-a");
  ASSERT_TRUE(pool.has_value());
  EXPECT_EQ(pool->generation, 2);
  EXPECT_THAT(SliceNames(pool->slices), ElementsAre("new-1"));
  EXPECT_EQ(pool->stale_slices, 2u);
  EXPECT_EQ(pool->resource_slice_count, 1);
  EXPECT_TRUE(pool->complete);
  EXPECT_EQ(pool->device_count, 3u);
  EXPECT_EQ(pool->driver, "gpu.example.com");
  EXPECT_EQ(pool->pool, "pool-a");
  // SlicesByPool returns every generation.
  EXPECT_THAT(SliceNames(snap->SlicesByPool("gpu.example.com", "pool-a")), ElementsAre("new-1", "old-1", "old-2"));
  // When the new generation goes away, the old one is the pool again.
  ASSERT_TRUE(c.Delete(api::Kind::kResourceSlice, "", "new-1").ok());
  pool = c.snapshot()->GetPool("gpu.example.com", "pool-a");
  EXPECT_EQ(pool->generation, 1);
  EXPECT_THAT(SliceNames(pool->slices), ElementsAre("old-1", "old-2"));
  EXPECT_TRUE(pool->complete);
}

TEST(ClusterTest, PoolCompletenessCountsSlicesAtTheCurrentGeneration) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .generation = 3, .count = 3, .devices = {"a"}})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "s2", .generation = 3, .count = 3, .devices = {"b"}})).ok());
  auto pool = c.snapshot()->GetPool("gpu.example.com", "pool-a");
  EXPECT_FALSE(pool->complete);
  EXPECT_EQ(pool->slices.size(), 2u);
  ASSERT_TRUE(c.Apply(Slice({.name = "s3", .generation = 3, .count = 3, .devices = {"c"}})).ok());
  EXPECT_TRUE(c.snapshot()->GetPool("gpu.example.com", "pool-a")->complete);
  // Too many slices is not complete either.
  ASSERT_TRUE(c.Apply(Slice({.name = "s4", .generation = 3, .count = 3, .devices = {"d"}})).ok());
  EXPECT_FALSE(c.snapshot()->GetPool("gpu.example.com", "pool-a")->complete);
}

TEST(ClusterTest, PoolSliceCountComesFromTheFirstSliceByName) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "b", .count = 1, .devices = {"x"}})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "a", .count = 2, .devices = {"y"}})).ok());
  auto pool = c.snapshot()->GetPool("gpu.example.com", "pool-a");
  EXPECT_EQ(pool->resource_slice_count, 2);
  EXPECT_TRUE(pool->complete);
}

TEST(ClusterTest, PoolWithDuplicateDeviceNamesIsInvalid) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "s1", .count = 2, .devices = {"a", "b"}})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "s2", .count = 2, .devices = {"c", "b"}})).ok());
  auto pool = c.snapshot()->GetPool("gpu.example.com", "pool-a");
  EXPECT_TRUE(pool->invalid);
  EXPECT_EQ(pool->invalid_reason, "duplicate device name b");
  ASSERT_TRUE(c.Apply(Slice({.name = "s2", .count = 2, .devices = {"c"}})).ok());
  EXPECT_FALSE(c.snapshot()->GetPool("gpu.example.com", "pool-a")->invalid);
}

TEST(ClusterTest, PoolNodeNameOnlyForNodeLocalPools) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "l1", .pool = "local", .count = 2, .node = "n1"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "l2", .pool = "local", .count = 2, .node = "n1"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "m1", .pool = "mixed", .count = 2, .node = "n1"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "m2", .pool = "mixed", .count = 2, .node = "n2"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "g1", .pool = "global"})).ok());
  auto snap = c.snapshot();
  EXPECT_EQ(snap->GetPool("gpu.example.com", "local")->node_name, "n1");
  EXPECT_EQ(snap->GetPool("gpu.example.com", "mixed")->node_name, "");
  EXPECT_EQ(snap->GetPool("gpu.example.com", "global")->node_name, "");
}

TEST(ClusterTest, PoolsAreSortedAndFilteredByDriver) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "1", .driver = "b", .pool = "p2"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "2", .driver = "a", .pool = "p9"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "3", .driver = "b", .pool = "p1"})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "4", .driver = "bb", .pool = "p0"})).ok());
  auto snap = c.snapshot();
  std::vector<std::string> ids;
  for (const PoolInfo& p : snap->Pools()) ids.push_back(std::string(p.driver) + "/" + std::string(p.pool));
  EXPECT_THAT(ids, ElementsAre("a/p9", "b/p1", "b/p2", "bb/p0"));
  ids.clear();
  for (const PoolInfo& p : snap->Pools("b")) ids.push_back(std::string(p.pool));
  EXPECT_THAT(ids, ElementsAre("p1", "p2"));
}

TEST(ClusterTest, FindDeviceLooksInTheCurrentGeneration) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Slice({.name = "old", .generation = 1, .devices = {"gone"}})).ok());
  ASSERT_TRUE(c.Apply(Slice({.name = "new", .generation = 2, .devices = {"x", "y"}})).ok());
  auto snap = c.snapshot();
  DeviceRef ref = snap->FindDevice("gpu.example.com", "pool-a", "y");
  ASSERT_NE(ref.device, nullptr);
  EXPECT_EQ(*ref.device->name, "y");
  EXPECT_EQ(*ref.slice->metadata.name, "new");
  EXPECT_EQ(snap->FindDevice("gpu.example.com", "pool-a", "gone").device, nullptr);
  EXPECT_EQ(snap->FindDevice("gpu.example.com", "nope", "x").slice, nullptr);
}

// --- claims and pods -----------------------------------------------------------------------------------------

TEST(ClusterTest, ResolvePodClaims) {
  api::Object obj = Pod("ns", "p", "", {{.name = "a", .claim = "direct"}, {.name = "b", .tmpl = "t"},
                                        {.name = "c", .tmpl = "t"}, {.name = "d", .tmpl = "t"}},
                        {{"b", "p-b-xyz"}, {"c", std::nullopt}});
  const auto refs = ResolvePodClaims(std::get<api::Pod>(obj.value));
  ASSERT_THAT(refs, SizeIs(4));
  EXPECT_EQ(refs[0].claim_name, "direct");
  EXPECT_EQ(refs[0].template_name, "");
  EXPECT_EQ(refs[1].claim_name, "p-b-xyz");
  EXPECT_EQ(refs[1].template_name, "t");
  EXPECT_TRUE(refs[1].status_recorded);
  EXPECT_EQ(refs[2].claim_name, "");  // status says: no claim needed
  EXPECT_TRUE(refs[2].status_recorded);
  EXPECT_EQ(refs[3].claim_name, "");  // not created yet
  EXPECT_FALSE(refs[3].status_recorded);
}

TEST(ClusterTest, ClaimsForPodDirectTemplateAndReservedFor) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Pod("ns", "p", "n1", {{.name = "a", .claim = "direct"}, {.name = "b", .tmpl = "t"},
                                            {.name = "c", .tmpl = "t"}},
                          {{"b", "p-b"}})).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "direct", {}, {{"p", ""}})).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "p-b")).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "extra", {}, {{"p", ""}})).ok());
  ASSERT_TRUE(c.Apply(Claim("other", "direct", {}, {{"p", ""}})).ok());  // another namespace's pod "p"
  auto snap = c.snapshot();
  const auto claims = snap->ClaimsForPod("ns", "p");
  ASSERT_THAT(claims, SizeIs(4));
  EXPECT_EQ(claims[0].ref.name, "a");
  ASSERT_NE(claims[0].claim, nullptr);
  EXPECT_EQ(*claims[0].claim->metadata.name, "direct");
  EXPECT_EQ(*claims[0].claim->metadata.namespace_, "ns");
  EXPECT_TRUE(claims[0].reserved);
  EXPECT_EQ(claims[1].ref.claim_name, "p-b");
  ASSERT_NE(claims[1].claim, nullptr);
  EXPECT_FALSE(claims[1].reserved);
  EXPECT_EQ(claims[2].ref.name, "c");
  EXPECT_EQ(claims[2].claim, nullptr);  // template claim not created yet
  EXPECT_EQ(claims[3].ref.name, "");    // known only from reservedFor
  EXPECT_EQ(claims[3].ref.claim_name, "extra");
  EXPECT_TRUE(claims[3].reserved);
}

TEST(ClusterTest, ReservationForAnEarlierPodWithTheSameNameDoesNotCount) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Pod("ns", "p", "", {}, {}, "uid-new")).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "c-old", {}, {{"p", "uid-old"}})).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "c-new", {}, {{"p", "uid-new"}})).ok());
  auto snap = c.snapshot();
  EXPECT_THAT(Keys(snap->ClaimsReservedFor("ns", "p")), ElementsAre("ns/c-new"));
  EXPECT_THAT(snap->ClaimsForPod("ns", "p"), SizeIs(1));
  EXPECT_THAT(snap->PodsForClaim("ns", "c-old"), IsEmpty());
  EXPECT_THAT(snap->PodsForClaim("ns", "c-new"), SizeIs(1));
}

TEST(ClusterTest, ClaimsReservedForIgnoresNonPodConsumers) {
  Cluster c;
  api::Object claim = Claim("ns", "c", {}, {{"p", ""}});
  auto& status = *std::get<api::ResourceClaim>(claim.value).status;
  status.reserved_for.push_back({std::string("apps"), std::string("deployments"), std::string("p"), std::nullopt});
  status.reserved_for[0].api_group = "example.com";  // not core "pods"
  ASSERT_TRUE(c.Apply(claim).ok());
  EXPECT_THAT(c.snapshot()->ClaimsReservedFor("ns", "p"), IsEmpty());
}

TEST(ClusterTest, PodsForClaimFromSpecStatusAndReservedFor) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Pod("ns", "by-spec", "", {{.name = "x", .claim = "shared"}})).ok());
  ASSERT_TRUE(c.Apply(Pod("ns", "by-status", "", {{.name = "x", .tmpl = "t"}}, {{"x", "shared"}})).ok());
  ASSERT_TRUE(c.Apply(Pod("ns", "by-reservation")).ok());
  ASSERT_TRUE(c.Apply(Pod("other", "by-spec", "", {{.name = "x", .claim = "shared"}})).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "shared", {}, {{"by-reservation", ""}, {"by-spec", ""}, {"not-stored", ""}})).ok());
  auto snap = c.snapshot();
  EXPECT_THAT(Keys(snap->PodsForClaim("ns", "shared")), ElementsAre("ns/by-reservation", "ns/by-spec", "ns/by-status"));
  // Updating the pod drops it from the index.
  ASSERT_TRUE(c.Apply(Pod("ns", "by-spec")).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "shared")).ok());
  EXPECT_THAT(Keys(c.snapshot()->PodsForClaim("ns", "shared")), ElementsAre("ns/by-status"));
}

TEST(ClusterTest, PodsOnNodeFollowsSpecNodeName) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Pod("b", "p1", "n1")).ok());
  ASSERT_TRUE(c.Apply(Pod("a", "p2", "n1")).ok());
  ASSERT_TRUE(c.Apply(Pod("a", "p3")).ok());
  EXPECT_THAT(Keys(c.snapshot()->PodsOnNode("n1")), ElementsAre("a/p2", "b/p1"));
  ASSERT_TRUE(c.Apply(Pod("a", "p3", "n1")).ok());
  ASSERT_TRUE(c.Delete(api::Kind::kPod, "b", "p1").ok());
  EXPECT_THAT(Keys(c.snapshot()->PodsOnNode("n1")), ElementsAre("a/p2", "a/p3"));
}

// --- allocations -----------------------------------------------------------------------------------------------

TEST(ClusterTest, AllocatedDevicesIndex) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Claim("ns", "c1", {Result{.device = "d0"}, Result{.request = "r2", .device = "d1"}})).ok());
  ASSERT_TRUE(
      c.Apply(Claim("ns", "admin", {Result{.device = "d1", .admin = true}, Result{.device = "d2", .admin = true}}))
          .ok());
  auto snap = c.snapshot();
  auto d1 = snap->Allocations("gpu.example.com", "pool-a", "d1");
  ASSERT_THAT(d1, SizeIs(2));
  EXPECT_EQ(d1[0].claim_name, "admin");
  EXPECT_TRUE(d1[0].admin_access);
  EXPECT_EQ(d1[1].claim_name, "c1");
  EXPECT_EQ(d1[1].claim_namespace, "ns");
  EXPECT_FALSE(d1[1].admin_access);
  EXPECT_EQ(*d1[1].result->request, "r2");
  EXPECT_EQ(d1[1].claim, snap->GetResourceClaim("ns", "c1"));
  EXPECT_TRUE(snap->InUse("gpu.example.com", "pool-a", "d0"));
  EXPECT_TRUE(snap->InUse("gpu.example.com", "pool-a", "d1"));
  EXPECT_FALSE(snap->InUse("gpu.example.com", "pool-a", "d2"));  // admin access only
  EXPECT_FALSE(snap->InUse("gpu.example.com", "pool-a", "d3"));
  EXPECT_FALSE(snap->InUse("gpu.example.com", "pool-b", "d0"));
  EXPECT_EQ(snap->AllocatedDeviceCount(), 3u);
  std::vector<std::string> all;
  for (const auto& a : snap->AllAllocations()) all.push_back(std::string(a.device) + ":" + std::string(a.claim_name));
  EXPECT_THAT(all, ElementsAre("d0:c1", "d1:admin", "d1:c1", "d2:admin"));
}

TEST(ClusterTest, AllocatedDevicesWithShareIds) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Claim("ns", "a", {Result{.device = "d", .share = "s-2"}})).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "b", {Result{.device = "d", .share = "s-1"}})).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "e", {Result{.device = "dd"}})).ok());  // a device whose name extends "d"
  auto snap = c.snapshot();
  auto d = snap->Allocations("gpu.example.com", "pool-a", "d");
  ASSERT_THAT(d, SizeIs(2));
  EXPECT_EQ(d[0].share_id, "s-1");
  EXPECT_EQ(d[0].claim_name, "b");
  EXPECT_EQ(d[1].share_id, "s-2");
  EXPECT_EQ(snap->AllocatedDeviceCount(), 3u);
  EXPECT_TRUE(snap->InUse("gpu.example.com", "pool-a", "d"));
}

TEST(ClusterTest, AllocationsFollowClaimUpdatesAndDeletes) {
  Cluster c;
  ASSERT_TRUE(c.Apply(Claim("ns", "a", {Result{.device = "d"}})).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "b", {Result{.device = "d", .admin = true}})).ok());
  ASSERT_TRUE(c.Apply(Claim("ns", "a")).ok());  // deallocated
  auto snap = c.snapshot();
  auto d = snap->Allocations("gpu.example.com", "pool-a", "d");
  ASSERT_THAT(d, SizeIs(1));
  EXPECT_EQ(d[0].claim_name, "b");
  EXPECT_FALSE(snap->InUse("gpu.example.com", "pool-a", "d"));
  ASSERT_TRUE(c.Delete(api::Kind::kResourceClaim, "ns", "b").ok());
  EXPECT_EQ(c.snapshot()->AllocatedDeviceCount(), 0u);
  EXPECT_THAT(c.snapshot()->AllAllocations(), IsEmpty());
}

TEST(ClusterTest, TaintRulesForDevice) {
  Cluster c;
  ASSERT_TRUE(c.Apply(TaintRule("all-of-driver", "gpu", std::nullopt, std::nullopt)).ok());
  ASSERT_TRUE(c.Apply(TaintRule("one-device", "gpu", "p", "d1")).ok());
  ASSERT_TRUE(c.Apply(TaintRule("other-driver", "nic", std::nullopt, std::nullopt)).ok());
  auto snap = c.snapshot();
  EXPECT_THAT(Keys(snap->TaintRulesFor("gpu", "p", "d1")), ElementsAre("all-of-driver", "one-device"));
  EXPECT_THAT(Keys(snap->TaintRulesFor("gpu", "p", "d2")), ElementsAre("all-of-driver"));
  EXPECT_THAT(Keys(snap->TaintRulesFor("fpga", "p", "d1")), IsEmpty());
}

// --- concurrency -------------------------------------------------------------------------------------------------

// One writer publishes slices and claims while readers check that every snapshot they take is
// internally consistent (indexes agree with the objects) and that generations never go back.
TEST(ClusterTest, ConcurrentWriterAndReaders) {
  Cluster c;
  constexpr int kSlices = 300;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::atomic<int> snapshots_checked{0};

  auto reader = [&] {
    uint64_t last = 0;
    while (!done.load()) {
      auto snap = c.snapshot();
      if (snap->generation() < last) ++failures;
      last = snap->generation();
      const size_t slices = snap->Count(api::Kind::kResourceSlice);
      size_t in_pools = 0;
      for (const PoolInfo& p : snap->Pools()) in_pools += p.slices.size() + p.stale_slices;
      if (in_pools != slices) ++failures;
      if (snap->SlicesByDriver("gpu.example.com").size() != slices) ++failures;
      // Every claim c-i allocates device d-i; the index must agree with the claims.
      const size_t claims = snap->Count(api::Kind::kResourceClaim);
      if (snap->AllocatedDeviceCount() != claims) ++failures;
      ++snapshots_checked;
    }
  };
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) readers.emplace_back(reader);

  std::thread writer([&] {
    for (int i = 0; i < kSlices; ++i) {
      const std::string n = std::to_string(i);
      if (!c.Apply(Slice({.name = "s-" + n, .pool = "p" + std::to_string(i % 7), .count = 3,
                          .devices = {"d-" + n}, .rv = std::to_string(i + 1)})).ok()) {
        ++failures;
      }
      if (!c.Apply(Claim("ns", "c-" + n, {Result{.device = "d-" + n}})).ok()) ++failures;
      if (i % 5 == 4) {
        if (!c.Delete(api::Kind::kResourceClaim, "ns", "c-" + std::to_string(i - 2)).ok()) ++failures;
      }
    }
  });
  writer.join();
  // Let the readers see the final state too.
  while (snapshots_checked.load() < 50) std::this_thread::yield();
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto snap = c.snapshot();
  EXPECT_EQ(snap->Count(api::Kind::kResourceSlice), static_cast<size_t>(kSlices));
  EXPECT_EQ(snap->Count(api::Kind::kResourceClaim), static_cast<size_t>(kSlices - kSlices / 5));
  EXPECT_EQ(snap->resource_version(api::Kind::kResourceSlice), std::to_string(kSlices));
}

// --- the persistent map underneath ---------------------------------------------------------------------------------

TEST(PersistentMapTest, MatchesStdMapAndKeepsOldVersions) {
  using Map = internal::PersistentMap<internal::OwnedKey<1>, int, 1>;
  std::mt19937 rng(12345);
  Map map;
  std::map<std::string, int> model;
  std::vector<std::pair<Map, std::map<std::string, int>>> versions;
  for (int step = 0; step < 3000; ++step) {
    const std::string key = "k" + std::to_string(rng() % 400);
    if (rng() % 3 == 0) {
      EXPECT_EQ(map.Erase(internal::ViewKey<1>{key}), model.erase(key) == 1);
    } else {
      map.Set(internal::OwnedKey<1>(internal::ViewKey<1>{key}), step);
      model[key] = step;
    }
    if (step % 300 == 0) versions.emplace_back(map, model);
  }
  versions.emplace_back(map, model);
  for (const auto& [m, expected] : versions) {
    ASSERT_EQ(m.size(), expected.size());
    std::vector<std::pair<std::string, int>> got;
    m.ForEach([&](const internal::OwnedKey<1>& k, int v) { got.emplace_back(k.parts[0], v); });
    const std::vector<std::pair<std::string, int>> want(expected.begin(), expected.end());
    EXPECT_EQ(got, want);
    for (const auto& [k, v] : expected) {
      const int* found = m.Find(internal::ViewKey<1>{k});
      ASSERT_NE(found, nullptr);
      EXPECT_EQ(*found, v);
    }
    EXPECT_EQ(m.Find(internal::ViewKey<1>{"absent"}), nullptr);
  }
}

TEST(PersistentMapTest, ForEachFromStartsAtTheLowerBoundAndStops) {
  using Map = internal::PersistentMap<internal::OwnedKey<2>, int, 2>;
  Map map;
  int i = 0;
  for (const char* ns : {"a", "b", "c"}) {
    for (const char* name : {"x", "y"}) map.Set(internal::OwnedKey<2>(internal::ViewKey<2>{ns, name}), i++);
  }
  std::vector<int> seen;
  map.ForEachFrom(internal::ViewKey<2>{"b", ""}, [&](const internal::OwnedKey<2>& k, int v) {
    if (k.parts[0] != "b") return false;
    seen.push_back(v);
    return true;
  });
  EXPECT_THAT(seen, ElementsAre(2, 3));
  ASSERT_NE(map.First(), nullptr);
  EXPECT_EQ(map.First()->value, 0);
}

// --- decoded from YAML ---------------------------------------------------------------------------------------------

constexpr char kYaml[] = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpus
  resourceVersion: "10"
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
kind: ResourceClaim
metadata:
  name: train
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
status:
  allocation:
    devices:
      results:
      - request: gpu
        driver: gpu.example.com
        pool: node-1
        device: gpu-1
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - key: metadata.name
          operator: In
          values: [node-1]
  reservedFor:
  - resource: pods
    name: trainer
    uid: u1
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer
  uid: u1
spec:
  nodeName: node-1
  resourceClaims:
  - name: gpu
    resourceClaimName: train
)";

TEST(ClusterTest, LoadsDecodedYaml) {
  auto decoded = api::DecodeStream(kYaml, api::DecodeOptions{});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  std::vector<api::Object> objects;
  for (auto& d : *decoded) {
    ASSERT_TRUE(d.object.ok()) << d.object.status();
    objects.push_back(*std::move(d.object));
  }
  Cluster c;
  ASSERT_TRUE(c.Replace(std::move(objects), "11").ok());
  auto snap = c.snapshot();
  EXPECT_NE(snap->GetResourceClaim("default", "train"), nullptr);
  EXPECT_TRUE(snap->GetPool("gpu.example.com", "node-1")->complete);
  EXPECT_EQ(snap->GetPool("gpu.example.com", "node-1")->node_name, "node-1");
  EXPECT_TRUE(snap->InUse("gpu.example.com", "node-1", "gpu-1"));
  EXPECT_FALSE(snap->InUse("gpu.example.com", "node-1", "gpu-0"));
  auto claims = snap->ClaimsForPod("default", "trainer");
  ASSERT_THAT(claims, SizeIs(1));
  EXPECT_TRUE(claims[0].reserved);
  EXPECT_THAT(Keys(snap->PodsOnNode("node-1")), ElementsAre("default/trainer"));
  EXPECT_THAT(SliceNames(snap->SlicesByNode("node-1")), ElementsAre("node-1-gpus"));
}

}  // namespace
}  // namespace draforge::store
