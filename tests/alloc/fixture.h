// Reading allocator fixtures (tests/alloc/fixtures/README.md): a multi-document YAML file whose
// AllocatorTestCase document describes the case and whose other documents are the cluster.
#ifndef DRAFORGE_TESTS_ALLOC_FIXTURE_H_
#define DRAFORGE_TESTS_ALLOC_FIXTURE_H_

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "common/status.h"
#include "alloc/features.h"
#include "api/codec.h"
#include "rapidjson/document.h"
#include "store/cluster.h"
#include "../common/test_util.h"

namespace draforge::alloc::testing {

struct Fixture {
  std::string name;
  std::filesystem::path path;
  rapidjson::Document header;  // the AllocatorTestCase document as JSON
  Features features;
  NodeInfo node;
  std::unique_ptr<store::Cluster> cluster;
  std::shared_ptr<const store::Snapshot> snapshot;
  std::vector<const api::ResourceClaim*> claims;  // the claims to allocate, in order
  std::vector<std::string> claim_keys;            // ns/name of every claim in file order

  const rapidjson::Value* Get(const char* key) const {
    auto it = header.FindMember(key);
    return it == header.MemberEnd() ? nullptr : &it->value;
  }
  const rapidjson::Value* Expect(const char* key) const {
    const rapidjson::Value* e = Get("expect");
    if (e == nullptr || !e->IsObject()) return nullptr;
    auto it = e->FindMember(key);
    return it == e->MemberEnd() ? nullptr : &it->value;
  }
};

inline std::string Str(const rapidjson::Value& v) { return v.IsString() ? std::string(v.GetString(), v.GetStringLength()) : ""; }

inline absl::StatusOr<std::unique_ptr<Fixture>> LoadFixture(const std::filesystem::path& path) {
  auto fx = std::make_unique<Fixture>();
  fx->path = path;
  fx->name = path.stem().string();
  const std::string text = draforge::testing::ReadFile(path);
  ASSIGN_OR_RETURN(auto decoded, api::DecodeStream(text, api::DecodeOptions{}));
  fx->cluster = std::make_unique<store::Cluster>();
  bool have_header = false;
  std::vector<std::string> unallocated;
  for (auto& d : decoded) {
    if (!d.object.ok()) return absl::InvalidArgumentError(absl::StrCat("object ", d.index, ": ", d.object.status().message()));
    api::Object& obj = *d.object;
    if (obj.kind() == api::Kind::kOther && d.kind == "AllocatorTestCase") {
      ASSIGN_OR_RETURN(fx->header, api::ParseJson(std::get<api::OtherObject>(obj.value).raw.json));
      have_header = true;
      continue;
    }
    if (obj.kind() == api::Kind::kResourceClaim) {
      auto& c = std::get<api::ResourceClaim>(obj.value);
      const std::string key = absl::StrCat(c.metadata.namespace_.value_or("default"), "/", c.metadata.name.value_or(""));
      fx->claim_keys.push_back(key);
      if (!c.status || !c.status->allocation) unallocated.push_back(key);
    }
    RETURN_IF_ERROR(fx->cluster->Apply(std::move(obj)));
  }
  if (!have_header) return absl::InvalidArgumentError("no AllocatorTestCase document");
  fx->snapshot = fx->cluster->snapshot();
  if (const auto* v = fx->Get("kubernetesVersion")) {
    ASSIGN_OR_RETURN(api::KubernetesVersion version, api::ParseKubernetesVersion(Str(*v)));
    fx->features = Features::Defaults(version);
  }
  if (const auto* g = fx->Get("featureGates")) {
    ASSIGN_OR_RETURN(fx->features, ParseFeatureGates(Str(*g), fx->features, /*enforce_locks=*/false));
  }
  if (const auto* n = fx->Get("node"); n && n->IsObject()) {
    if (auto it = n->FindMember("name"); it != n->MemberEnd()) fx->node.name = Str(it->value);
    if (auto it = n->FindMember("labels"); it != n->MemberEnd() && it->value.IsObject()) {
      for (auto& m : it->value.GetObject()) fx->node.labels.Set(m.name.GetString(), Str(m.value));
    }
  }
  // A Node document of that name in the file gives what the header does not: its labels (unless
  // the header lists some) and status.declaredFeatures, as `draforge allocate --node` reads them.
  if (const api::Node* n = fx->snapshot->GetNode(fx->node.name)) {
    NodeInfo from = NodeInfo::FromNode(*n);
    if (fx->node.labels.empty()) fx->node.labels = from.labels;
    fx->node.declared_features = from.declared_features;
  }
  std::vector<std::string> keys = unallocated;
  if (const auto* c = fx->Get("claims"); c && c->IsArray()) {
    keys.clear();
    for (auto& v : c->GetArray()) keys.push_back(Str(v));
  }
  for (const std::string& k : keys) {
    const size_t slash = k.find('/');
    const api::ResourceClaim* claim = fx->snapshot->GetResourceClaim(k.substr(0, slash), k.substr(slash + 1));
    if (claim == nullptr) return absl::NotFoundError("claim " + k + " not in the fixture");
    fx->claims.push_back(claim);
  }
  return fx;
}

inline std::vector<std::filesystem::path> FixtureFiles(const std::string& sub = "") {
  return draforge::testing::FilesUnder(draforge::testing::SourceRoot() / "tests" / "alloc" / "fixtures" / sub, ".yaml");
}

}  // namespace draforge::alloc::testing

#endif  // DRAFORGE_TESTS_ALLOC_FIXTURE_H_
