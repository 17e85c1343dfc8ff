// The acceptance test of the driver profiles: the real drivers' DeviceClasses select the simulated
// devices, and the drivers' own demo claims (../shared/corpus/manifests) allocate on them with
// DRAForge's allocator, as kube-scheduler would allocate them on the real driver's slices.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "alloc/allocator.h"
#include "cel/selector.h"
#include "sim/profiles.h"
#include "sim/scenario.h"
#include "sim_test_util.h"
#include "store/cluster.h"

namespace draforge::sim::testing {
namespace {

namespace fs = std::filesystem;

// A path under the corpus ("corpus:manifests/...") or under tests/sim/testdata ("testdata:...").
fs::path Resolve(const std::string& ref) {
  if (ref.rfind("corpus:", 0) == 0) return Corpus() / ref.substr(7);
  return TestData() / ref.substr(9);
}

struct ClassExpectation {
  std::string class_name;
  int devices_per_node;  // devices of one node the class selects
};

struct ProfileCase {
  std::string pool;  // testdata/pools/<pool>.yaml
  std::vector<std::string> class_files;
  std::vector<ClassExpectation> classes;
  std::vector<std::string> claim_files;
  // Claims expected not to allocate on the real driver either, with a substring of the reason/error.
  std::map<std::string, std::string> expected_failures;
};

void PrintTo(const ProfileCase& c, std::ostream* os) { *os << c.pool; }

std::vector<ProfileCase> Cases() {
  const std::string ex = "corpus:manifests/dra-example-driver/";
  const std::string nv = "corpus:manifests/nvidia-dra-driver-gpu/";
  return {
      {"example-gpu",
       {"corpus:manifests/k8s-website/driver-install/deviceclass.yaml"},
       {{"gpu.example.com", 8}},
       {ex + "examples/basic-resourceclaimtemplate/basic-resourceclaimtemplate.yaml",
        ex + "examples/basic-multiple-requests/basic-multiple-requests.yaml",
        ex + "examples/basic-shared-claim-across-pods/basic-shared-claim-across-pods.yaml",
        ex + "examples/basic-shared-claim-across-containers/basic-shared-claim-across-containers.yaml",
        ex + "examples/basic-resourceclaim-opaque-config/basic-resourceclaim-opaque-config.yaml",
        ex + "examples/cel-selector/cel-selector.yaml",
        ex + "examples/prioritized-alternatives/prioritized-alternatives.yaml",
        ex + "examples/initcontainer-shared-gpu/initcontainer-shared-gpu.yaml",
        ex + "examples/admin-access/admin-access.yaml",
        ex + "legacy-gpu-test/gpu-test1.yaml", ex + "legacy-gpu-test/gpu-test2.yaml",
        ex + "legacy-gpu-test/gpu-test3.yaml", ex + "legacy-gpu-test/gpu-test4.yaml",
        ex + "legacy-gpu-test/gpu-test5.yaml", ex + "legacy-gpu-test/gpu-test6.yaml",
        ex + "legacy-gpu-test/gpu-test7.yaml", ex + "legacy-gpu-test/gpu-test8.yaml"},
       {}},
      {"example-gpu-partitionable",
       {"corpus:manifests/k8s-website/driver-install/deviceclass.yaml"},
       {{"gpu.example.com", 10}},
       {ex + "examples/partitionable-devices/partitionable-devices.yaml"},
       {}},
      {"example-gpu-consumable",
       {"corpus:manifests/k8s-website/driver-install/deviceclass.yaml"},
       {{"gpu.example.com", 2}},
       {ex + "examples/gpu-allow-multiple-allocations/gpu-allow-multiple-allocations.yaml"},
       {}},
      {"example-net",
       {"testdata:classes/example-net.yaml"},
       {{"net.example.com", 1}},
       {ex + "examples/net-consumable-capacity/net-consumable-capacity.yaml"},
       {}},
      {"nvidia-gpu",
       {"testdata:classes/nvidia-gpu.yaml"},
       {{"gpu.nvidia.com", 8}, {"mig.nvidia.com", 0}},
       {nv + "specs/quickstart/v1/gpu-test1.yaml", nv + "specs/quickstart/v1/gpu-test2.yaml",
        nv + "specs/quickstart/v1/gpu-test3.yaml", nv + "specs/quickstart/v1/gpu-test5.yaml",
        nv + "specs/quickstart/v1/gpu-test6.yaml", nv + "specs/quickstart/v1/gpu-test-mps.yaml",
        nv + "tests-bats-specs/gpu-simple-full.yaml", nv + "tests-bats-specs/gpu-2pods-2gpus.yaml",
        nv + "tests-bats-specs/gpu-two-claims-one-pod.yaml", nv + "tests-bats-specs/rc-shared-gpu.yaml",
        nv + "tests-bats-specs/gpu-cel-nomatch.yaml"},
       // gpu-test6 selects on `index`, which the driver stopped publishing (commit 36fc80ab, "Remove GPU
       // index for CDI spec generation / attribute advertisement"): on today's driver its CEL fails the
       // same way. gpu-cel-nomatch is the driver's own "unmatchable selector stays pending" test.
       {{"gpu-test6/", "no such key: index"}, {"default/rct-cel-nomatch", "cannot allocate all claims"}}},
      {"nvidia-gpu-mig",
       {"testdata:classes/nvidia-gpu.yaml"},
       {{"gpu.nvidia.com", 4}, {"mig.nvidia.com", 4 * 18}},
       {nv + "specs/quickstart/v1/gpu-test4.yaml", nv + "tests-bats-specs/gpu-simple-mig.yaml",
        nv + "tests-bats-specs/gpu-multiple-mig.yaml", nv + "tests-bats-specs/gpu-anymig.yaml",
        nv + "tests-bats-specs/gpu-simple-mig-ts.yaml", nv + "tests-bats-specs/gpu-simple-full.yaml"},
       {}},
      {"google-tpu",
       {"corpus:manifests/dra-driver-google-tpu/helm-templates-deviceclass.yaml"},
       {{"tpu.google.com", 8}},
       {"corpus:manifests/dra-driver-google-tpu/specs/tpu-test.yaml",
        "corpus:manifests/dra-driver-google-tpu/readme-v6e-tpus-resourceclaimtemplate.yaml"},
       {}},
      {"cpu-individual",
       {"corpus:manifests/dra-driver-cpu/helm-templates-deviceclass.yaml"},
       {{"dra.cpu", 16}},
       {"corpus:manifests/dra-driver-cpu/examples/pod_with_resource_claim_individual_mode.yaml"},
       {}},
      {"cpu-grouped",
       {"corpus:manifests/dra-driver-cpu/helm-templates-deviceclass.yaml"},
       {{"dra.cpu", 2}},
       {"corpus:manifests/dra-driver-cpu/examples/pod_with_resource_claim_grouped_mode.yaml"},
       {}},
  };
}

// Claims of a file: ResourceClaims as written, ResourceClaimTemplates instantiated as the
// resourceclaim controller does (same spec, in the template's namespace).
std::vector<api::ResourceClaim> ClaimsOf(const std::vector<api::Object>& objects) {
  std::vector<api::ResourceClaim> out;
  for (const api::Object& o : objects) {
    if (const auto* c = std::get_if<api::ResourceClaim>(&o.value)) out.push_back(*c);
    if (const auto* t = std::get_if<api::ResourceClaimTemplate>(&o.value)) {
      api::ResourceClaim c;
      c.metadata.name = t->metadata.name.value_or("") + "-claim";
      c.metadata.namespace_ = t->metadata.namespace_.value_or("default");
      c.metadata.uid = "uid-" + *c.metadata.name;
      if (t->spec) c.spec = t->spec->spec;
      out.push_back(c);
    }
  }
  return out;
}

std::string ClaimKey(const api::ResourceClaim& c) {
  return c.metadata.namespace_.value_or("default") + "/" + c.metadata.name.value_or("");
}

class ProfileTest : public ::testing::TestWithParam<ProfileCase> {
 protected:
  void SetUp() override {
    auto pool = LoadPool(TestData() / "pools" / (GetParam().pool + ".yaml"));
    ASSERT_TRUE(pool.ok()) << pool.status();
    auto e = Expand(*pool);
    ASSERT_TRUE(e.ok()) << e.status();
    expansion_ = *e;
    for (const std::string& f : GetParam().class_files) {
      auto objects = LoadObjects(Resolve(f));
      ASSERT_TRUE(objects.ok()) << objects.status();
      for (api::Object& o : *objects) {
        if (o.kind() == api::Kind::kDeviceClass) classes_.push_back(std::move(o));
      }
    }
    ASSERT_FALSE(classes_.empty());
  }

  // A cluster with the expanded slices, the classes and `claims`.
  std::shared_ptr<const store::Snapshot> Snapshot(const std::vector<api::ResourceClaim>& claims) {
    store::Cluster cluster;
    for (const api::ResourceSlice& s : expansion_.slices) {
      api::Object o;
      o.api_version = "resource.k8s.io/v1";
      o.value = s;
      EXPECT_TRUE(cluster.Apply(std::move(o)).ok());
    }
    for (const api::Object& c : classes_) EXPECT_TRUE(cluster.Apply(c).ok());
    for (const api::ResourceClaim& c : claims) {
      api::Object o;
      o.api_version = "resource.k8s.io/v1";
      o.value = c;
      EXPECT_TRUE(cluster.Apply(std::move(o)).ok());
    }
    return cluster.snapshot();
  }

  Expansion expansion_;
  std::vector<api::Object> classes_;
};

TEST_P(ProfileTest, TheDriversDeviceClassesSelectTheDevices) {
  const std::string node = "node-1";
  for (const ClassExpectation& want : GetParam().classes) {
    const api::DeviceClass* dc = nullptr;
    for (const api::Object& o : classes_) {
      const auto& c = std::get<api::DeviceClass>(o.value);
      if (c.metadata.name == want.class_name) dc = &c;
    }
    ASSERT_NE(dc, nullptr) << want.class_name;
    std::vector<std::shared_ptr<const cel::DeviceSelector>> selectors;
    for (const auto& s : dc->spec->selectors) {
      auto compiled = cel::DeviceSelector::Compile(*s.cel->expression);
      ASSERT_TRUE(compiled.ok()) << compiled.status();
      selectors.push_back(*compiled);
    }
    int matched = 0;
    for (const api::ResourceSlice& s : expansion_.slices) {
      if (s.spec->node_name != node) continue;
      for (const api::Device& d : s.spec->devices) {
        bool all = true;
        for (const auto& sel : selectors) {
          cel::SelectorResult r = sel->Evaluate({*s.spec->driver, &d.attributes, &d.capacity,
                                                 d.allow_multiple_allocations.value_or(false)});
          ASSERT_TRUE(r.error.ok()) << want.class_name << " on " << *d.name << ": " << r.error;
          all &= r.matches;
        }
        matched += all ? 1 : 0;
      }
    }
    EXPECT_EQ(matched, want.devices_per_node) << "DeviceClass " << want.class_name;
  }
}

TEST_P(ProfileTest, TheDriversDemoClaimsAllocate) {
  int allocated = 0;
  std::set<std::string> failures_seen;
  for (const std::string& f : GetParam().claim_files) {
    auto objects = LoadObjects(Resolve(f));
    ASSERT_TRUE(objects.ok()) << objects.status();
    std::vector<api::ResourceClaim> claims = ClaimsOf(*objects);
    ASSERT_FALSE(claims.empty()) << f << " has no claims";
    for (const api::ResourceClaim& claim : claims) {
      // Each claim alone, as for a pod that uses only it.
      auto snapshot = Snapshot({claim});
      const api::ResourceClaim* c =
          snapshot->GetResourceClaim(claim.metadata.namespace_.value_or("default"), *claim.metadata.name);
      ASSERT_NE(c, nullptr);
      alloc::AllocateResult r = alloc::Allocate(*snapshot, {c}, alloc::NodeInfo{"node-1", {}});
      std::string expected_failure;
      for (const auto& [prefix, reason] : GetParam().expected_failures) {
        if (ClaimKey(claim).rfind(prefix, 0) == 0) expected_failure = reason;
      }
      if (!expected_failure.empty()) {
        std::string why(r.error.message());
        for (const std::string& s : r.reasons) why += s + "; ";
        EXPECT_NE(r.outcome, alloc::Outcome::kAllocated) << ClaimKey(claim) << " was expected to fail";
        EXPECT_THAT(why, ::testing::HasSubstr(expected_failure)) << ClaimKey(claim);
        failures_seen.insert(ClaimKey(claim));
        continue;
      }
      std::string why(r.error.message());
      for (const std::string& s : r.reasons) why += " " + s;
      EXPECT_EQ(r.outcome, alloc::Outcome::kAllocated) << f << ": " << ClaimKey(claim) << ": " << why;
      allocated += r.outcome == alloc::Outcome::kAllocated ? 1 : 0;
    }
  }
  EXPECT_GT(allocated, 0);
  EXPECT_EQ(failures_seen.size(), GetParam().expected_failures.size()) << "every expected failure was exercised";
}

TEST_P(ProfileTest, AllClaimsOfOneFileAllocateTogether) {
  // The claims of one demo are meant to run side by side (two pods sharing a NIC's bandwidth, a
  // GPU's memory, four MIG devices of one GPU): allocate them one after the other, each seeing the
  // previous ones' results, as the scheduler does across pods.
  for (const std::string& f : GetParam().claim_files) {
    auto objects = LoadObjects(Resolve(f));
    ASSERT_TRUE(objects.ok()) << objects.status();
    std::vector<api::ResourceClaim> claims = ClaimsOf(*objects);
    bool skip = false;
    for (const auto& c : claims) {
      for (const auto& [prefix, reason] : GetParam().expected_failures) skip |= ClaimKey(c).rfind(prefix, 0) == 0;
    }
    if (skip) continue;
    std::vector<api::ResourceClaim> done;
    for (api::ResourceClaim claim : claims) {
      std::vector<api::ResourceClaim> all = done;
      all.push_back(claim);
      auto snapshot = Snapshot(all);
      const api::ResourceClaim* c =
          snapshot->GetResourceClaim(claim.metadata.namespace_.value_or("default"), *claim.metadata.name);
      alloc::AllocateResult r = alloc::Allocate(*snapshot, {c}, alloc::NodeInfo{"node-1", {}});
      ASSERT_EQ(r.outcome, alloc::Outcome::kAllocated) << f << ": " << ClaimKey(claim) << " after " << done.size()
                                                       << " others";
      api::ResourceClaimStatus status;
      status.allocation = r.allocations[0];
      claim.status = status;
      done.push_back(claim);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Drivers, ProfileTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<ProfileCase>& info) {
                           std::string n = info.param.pool;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

TEST(ProfileList, EveryProfileHasATestPool) {
  for (const ProfileInfo& p : Profiles()) {
    EXPECT_TRUE(fs::exists(TestData() / "pools" / (std::string(p.name) + ".yaml"))) << p.name;
  }
}

TEST(Scenario, EveryShippedScenarioMaterializes) {
  int scenarios = 0;
  for (const auto& dir : fs::directory_iterator(SourceRoot() / "examples" / "scenarios")) {
    if (!dir.is_directory()) continue;
    std::vector<api::Object> objects;
    for (const auto& f : fs::directory_iterator(dir.path())) {
      if (f.path().extension() != ".yaml") continue;
      auto loaded = LoadObjects(f.path());
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      objects.insert(objects.end(), loaded->begin(), loaded->end());
    }
    auto scenario = SplitScenario(objects);
    ASSERT_TRUE(scenario.ok()) << dir.path() << ": " << scenario.status();
    EXPECT_FALSE(scenario->pools.empty()) << dir.path();
    auto materialized = Materialize(*scenario);
    ASSERT_TRUE(materialized.ok()) << dir.path() << ": " << materialized.status();
    int slices = 0;
    for (const api::Object& o : *materialized) slices += o.kind() == api::Kind::kResourceSlice ? 1 : 0;
    EXPECT_GT(slices, 0) << dir.path();
    ++scenarios;
  }
  EXPECT_GE(scenarios, 3);
}

}  // namespace
}  // namespace draforge::sim::testing
