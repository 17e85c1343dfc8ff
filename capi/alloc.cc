// The C ABI over lib/alloc: allocation and explain (include/draforge/alloc.h).
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "alloc/explain.h"
#include "alloc/explanation_json.h"
#include "alloc/features.h"
#include "api/codec.h"
#include "api/kubernetes_version.h"
#include "capi/internal.h"
#include "common/status.h"
#include "draforge/alloc.h"
#include "rapidjson/document.h"
#include "common/json_string.h"

struct draforge_allocation_result {
  int outcome = DRAFORGE_OUTCOME_UNSCHEDULABLE;
  std::string node;
  std::vector<std::string> claims;       // ns/name, allocated only
  std::vector<std::string> allocations;  // status.allocation JSON per claim
  std::vector<std::string> reasons;
  int64_t search_steps = 0;
};

struct draforge_explanation {
  std::string summary;
  std::string json;
  std::string node_groups_json;  // draforge_explanation_node_groups_json
};

namespace draforge::capi {
namespace {

const draforge_allocate_options kDefaultOptions = DRAFORGE_ALLOCATE_OPTIONS_INIT;

// The size of the options struct as a caller of `version` declared it: the library must neither
// read nor write past it (a version 1 caller's struct ends before prune_search). `version` must be
// known (CheckVersion).
size_t OptionsSize(unsigned int version) {
  switch (version) {
    case 1:
      return offsetof(draforge_allocate_options, prune_search);
    case 2:
      return offsetof(draforge_allocate_options, kubernetes_version);
    default:
      return sizeof(draforge_allocate_options);
  }
}


// The node as the allocator sees it: labels from the options, else from the snapshot's Node.
absl::StatusOr<alloc::NodeInfo> NodeOf(const store::Snapshot& snapshot, std::string_view name,
                                       const draforge_allocate_options& o) {
  alloc::NodeInfo node{std::string(name), {}};
  if (o.node_labels_json == nullptr) {
    if (const api::Node* n = snapshot.GetNode(name)) node = alloc::NodeInfo::FromNode(*n);
    return node;
  }
  auto doc = api::ParseJson(o.node_labels_json);
  if (!doc.ok()) return absl::InvalidArgumentError(absl::StrCat("node_labels_json: ", doc.status().message()));
  if (!doc->IsObject()) return absl::InvalidArgumentError("node_labels_json: must be a JSON object of strings");
  for (auto& m : doc->GetObject()) {
    if (!m.value.IsString()) {
      return absl::InvalidArgumentError(absl::StrCat("node_labels_json: label \"", m.name.GetString(),
                                                     "\": must be a string"));
    }
    node.labels.Set(m.name.GetString(), std::string(m.value.GetString(), m.value.GetStringLength()));
  }
  return node;
}

rapidjson::Value Str(std::string_view s, rapidjson::Document::AllocatorType& a) {
  return JsonString(s, a);
}

std::string ExplanationJson(const alloc::Explanation& ex) {
  rapidjson::Document d;
  static_cast<rapidjson::Value&>(d) = alloc::ExplanationJson(ex, d.GetAllocator());
  return api::WriteJson(d, false);
}

// {"DRAAdminAccess":true,...}: the value of every gate of `f`'s Kubernetes version.
std::string GatesJson(const alloc::Features& f) {
  rapidjson::Document d(rapidjson::kObjectType);
  for (const alloc::FeatureGateInfo& g : alloc::KnownFeatureGates(f.version)) {
    rapidjson::Value name = Str(g.name, d.GetAllocator());
    rapidjson::Value value(f.Get(g.name).value_or(false));
    d.AddMember(name, value, d.GetAllocator());
  }
  return api::WriteJson(d, false);
}

std::string NodeGroupsJson(const alloc::Explanation& ex) {
  rapidjson::Document d(rapidjson::kArrayType);
  auto& a = d.GetAllocator();
  for (const alloc::NodeReasonGroup& g : alloc::GroupNodesByReason(ex.nodes)) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("reason", Str(g.reason, a), a);
    rapidjson::Value nodes(rapidjson::kArrayType);
    for (const auto& n : g.nodes) nodes.PushBack(Str(n, a), a);
    o.AddMember("nodes", nodes, a);
    d.PushBack(o, a);
  }
  return api::WriteJson(d, false);
}

}  // namespace

// The caller's options (NULL: the defaults) as a complete struct of the current version: the
// fields its version has are the caller's, the later ones keep their defaults (version 1 callers
// have always had pruning on). Errors: an unknown version, a negative max_steps.
absl::StatusOr<draforge_allocate_options> EffectiveOptions(const draforge_allocate_options* options) {
  draforge_allocate_options o = kDefaultOptions;
  if (options == nullptr) return o;
  RETURN_IF_ERROR(CheckVersion("draforge_allocate_options", options->version, DRAFORGE_ALLOCATE_OPTIONS_VERSION));
  std::memcpy(&o, options, OptionsSize(options->version));
  if (o.max_steps < 0) return absl::InvalidArgumentError("draforge_allocate_options: max_steps must not be negative");
  return o;
}

}  // namespace draforge::capi

extern "C" {

int draforge_allocate_options_init(draforge_allocate_options* options, unsigned int version) {
  using namespace draforge;
  if (options == nullptr) return DRAFORGE_EINVALID;
  if (!capi::CheckVersion("draforge_allocate_options", version, DRAFORGE_ALLOCATE_OPTIONS_VERSION).ok()) {
    return DRAFORGE_EINVALID;
  }
  draforge_allocate_options defaults = capi::kDefaultOptions;
  defaults.version = version;
  std::memcpy(options, &defaults, capi::OptionsSize(version));
  return DRAFORGE_OK;
}

int draforge_feature_gates_json(draforge_buffer* out, const char* feature_gates, int unlock_locked_gates,
                                draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_feature_gates_json: out must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto f = capi::FeaturesOf(feature_gates, unlock_locked_gates != 0);
    if (!f.ok()) return capi::Fail(f.status(), error);
    return capi::ToBuffer(capi::GatesJson(*f), out, error);
  });
}

int draforge_kubernetes_feature_gates_json(draforge_buffer* out, const char* kubernetes_version,
                                           const char* feature_gates, int unlock_locked_gates,
                                           draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_kubernetes_feature_gates_json: out must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto f = capi::FeaturesOf(feature_gates, unlock_locked_gates != 0, kubernetes_version);
    if (!f.ok()) return capi::Fail(f.status(), error);
    return capi::ToBuffer(capi::GatesJson(*f), out, error);
  });
}

int draforge_kubernetes_versions_json(draforge_buffer* out, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_kubernetes_versions_json: out must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    rapidjson::Document d(rapidjson::kArrayType);
    auto& a = d.GetAllocator();
    for (api::KubernetesVersion v : api::SupportedKubernetesVersions()) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("version", capi::Str(api::KubernetesVersionName(v), a), a);
      o.AddMember("latest", v == api::kLatestKubernetesVersion, a);
      o.AddMember("allocatorVariant", capi::Str(alloc::AllocatorVariantName(alloc::Features::Defaults(v).Variant()), a),
                  a);
      rapidjson::Value served(rapidjson::kObjectType);
      for (api::Kind k : {api::Kind::kDeviceClass, api::Kind::kDeviceTaintRule, api::Kind::kResourceClaim,
                          api::Kind::kResourceClaimTemplate, api::Kind::kResourcePoolStatusRequest,
                          api::Kind::kResourceSlice}) {
        rapidjson::Value list(rapidjson::kArrayType);
        for (std::string_view gv : api::ServedVersions(k, v)) list.PushBack(capi::Str(gv, a), a);
        served.AddMember(capi::Str(api::KindName(k), a), list, a);
      }
      o.AddMember("servedVersions", served, a);
      rapidjson::Value gates(rapidjson::kArrayType);
      for (const alloc::FeatureGateInfo& g : alloc::KnownFeatureGates(v)) {
        rapidjson::Value gate(rapidjson::kObjectType);
        gate.AddMember("name", capi::Str(g.name, a), a);
        gate.AddMember("default", g.default_value, a);
        gate.AddMember("locked", g.locked, a);
        gate.AddMember("maturity", capi::Str(g.maturity, a), a);
        gates.PushBack(gate, a);
      }
      o.AddMember("featureGates", gates, a);
      d.PushBack(o, a);
    }
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_allocate(draforge_allocation_result** out, const draforge_snapshot* snapshot, const char* const* claims,
                      size_t claim_count, const char* node, const draforge_allocate_options* options,
                      draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_allocate: out and snapshot must not be NULL"), error);
    }
    *out = nullptr;
    auto effective = capi::EffectiveOptions(options);
    if (!effective.ok()) return capi::Fail(effective.status(), error);
    const draforge_allocate_options& o = *effective;
    if (claims == nullptr || claim_count == 0) {
      return capi::Fail(absl::InvalidArgumentError("draforge_allocate: at least one claim is required"), error);
    }
    if (node == nullptr || *node == '\0') {
      return capi::Fail(absl::InvalidArgumentError("draforge_allocate: node must not be empty"), error);
    }
    auto features = capi::FeaturesOf(o.feature_gates, o.unlock_locked_gates != 0, o.kubernetes_version);
    if (!features.ok()) return capi::Fail(features.status(), error);
    const store::Snapshot& snap = *snapshot->snapshot;
    std::vector<const api::ResourceClaim*> selected;
    std::vector<std::string> keys;
    for (size_t i = 0; i < claim_count; ++i) {
      if (claims[i] == nullptr || *claims[i] == '\0') {
        return capi::Fail(absl::InvalidArgumentError(absl::StrCat("draforge_allocate: claims[", i, "] is empty")),
                          error);
      }
      std::string ns, name;
      capi::SplitRef(claims[i], "default", ns, name);
      const api::ResourceClaim* c = snap.GetResourceClaim(ns, name);
      if (c == nullptr) {
        return capi::Fail(absl::NotFoundError(absl::StrCat("ResourceClaim \"", ns, "/", name, "\" not found")), error);
      }
      if (!c->spec) {
        return capi::Fail(absl::InvalidArgumentError(absl::StrCat("ResourceClaim \"", ns, "/", name,
                                                                  "\": spec: Required value")),
                          error);
      }
      selected.push_back(c);
      keys.push_back(ns + "/" + name);
    }
    auto node_info = capi::NodeOf(snap, node, o);
    if (!node_info.ok()) return capi::Fail(node_info.status(), error);
    alloc::AllocateOptions ao;
    ao.features = *features;
    ao.max_steps = o.max_steps;
    ao.prune_search = o.prune_search != 0;
    alloc::AllocateResult r = alloc::Allocate(snap, selected, *node_info, ao);
    if (r.outcome == alloc::Outcome::kError) return capi::Fail(r.error, error);
    auto result = std::make_unique<draforge_allocation_result>();
    result->node = node;
    result->search_steps = r.search_steps;
    result->reasons = r.reasons;
    if (r.outcome == alloc::Outcome::kAllocated) {
      result->outcome = DRAFORGE_OUTCOME_ALLOCATED;
      result->claims = keys;
      for (const api::AllocationResult& a : r.allocations) {
        auto doc = alloc::EncodeAllocationResult(a);
        if (!doc.ok()) return capi::Fail(doc.status(), error);
        result->allocations.push_back(api::WriteJson(*doc, false));
      }
    }
    *out = result.release();
    return DRAFORGE_OK;
  });
}

void draforge_allocation_result_destroy(draforge_allocation_result* result) { delete result; }

int draforge_allocation_result_outcome(const draforge_allocation_result* result) {
  return result ? result->outcome : DRAFORGE_OUTCOME_UNSCHEDULABLE;
}

size_t draforge_allocation_result_claim_count(const draforge_allocation_result* result) {
  return result ? result->claims.size() : 0;
}

const char* draforge_allocation_result_claim(const draforge_allocation_result* result, size_t index) {
  return result && index < result->claims.size() ? result->claims[index].c_str() : nullptr;
}

int draforge_allocation_result_allocation_json(draforge_buffer* out, const draforge_allocation_result* result,
                                               size_t index, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || result == nullptr) {
      return capi::Fail(absl::InvalidArgumentError(
                            "draforge_allocation_result_allocation_json: out and result must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    if (index >= result->allocations.size()) {
      return capi::Fail(absl::NotFoundError(absl::StrCat("no allocation at index ", index, " (there are ",
                                                         result->allocations.size(), ")")),
                        error);
    }
    return capi::ToBuffer(result->allocations[index], out, error);
  });
}

size_t draforge_allocation_result_reason_count(const draforge_allocation_result* result) {
  return result ? result->reasons.size() : 0;
}

const char* draforge_allocation_result_reason(const draforge_allocation_result* result, size_t index) {
  return result && index < result->reasons.size() ? result->reasons[index].c_str() : nullptr;
}

int64_t draforge_allocation_result_search_steps(const draforge_allocation_result* result) {
  return result ? result->search_steps : 0;
}

int draforge_allocation_result_json(draforge_buffer* out, const draforge_allocation_result* result,
                                    draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || result == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_allocation_result_json: out and result must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    d.AddMember("outcome", capi::Str(result->outcome == DRAFORGE_OUTCOME_ALLOCATED ? "allocated" : "unschedulable", a),
                a);
    d.AddMember("node", capi::Str(result->node, a), a);
    rapidjson::Value allocations(rapidjson::kObjectType);
    for (size_t i = 0; i < result->claims.size(); ++i) {
      auto doc = api::ParseJson(result->allocations[i]);
      if (!doc.ok()) return capi::Fail(doc.status(), error);
      allocations.AddMember(capi::Str(result->claims[i], a), rapidjson::Value(*doc, a), a);
    }
    d.AddMember("allocations", allocations, a);
    rapidjson::Value reasons(rapidjson::kArrayType);
    for (const auto& r : result->reasons) reasons.PushBack(capi::Str(r, a), a);
    d.AddMember("reasons", reasons, a);
    d.AddMember("searchSteps", rapidjson::Value(result->search_steps), a);
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_explain(draforge_explanation** out, const draforge_snapshot* snapshot, const char* claim,
                     const char* node, const draforge_allocate_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || claim == nullptr || *claim == '\0') {
      return capi::Fail(absl::InvalidArgumentError("draforge_explain: out, snapshot and claim must not be NULL or empty"),
                        error);
    }
    *out = nullptr;
    auto effective = capi::EffectiveOptions(options);
    if (!effective.ok()) return capi::Fail(effective.status(), error);
    const draforge_allocate_options& o = *effective;
    auto features = capi::FeaturesOf(o.feature_gates, o.unlock_locked_gates != 0, o.kubernetes_version);
    if (!features.ok()) return capi::Fail(features.status(), error);
    const store::Snapshot& snap = *snapshot->snapshot;
    std::string ns, name;
    capi::SplitRef(claim, "default", ns, name);
    std::optional<alloc::NodeInfo> node_info;
    if (node != nullptr && *node != '\0') {
      auto n = capi::NodeOf(snap, node, o);
      if (!n.ok()) return capi::Fail(n.status(), error);
      node_info = *std::move(n);
    }
    auto ex = alloc::Explain(snap, ns, name, node_info ? &*node_info : nullptr, *features);
    if (!ex.ok()) return capi::Fail(ex.status(), error);
    auto e = std::make_unique<draforge_explanation>();
    e->summary = ex->summary;
    e->json = capi::ExplanationJson(*ex);
    e->node_groups_json = capi::NodeGroupsJson(*ex);
    *out = e.release();
    return DRAFORGE_OK;
  });
}

void draforge_explanation_destroy(draforge_explanation* explanation) { delete explanation; }

const char* draforge_explanation_summary(const draforge_explanation* explanation) {
  return explanation ? explanation->summary.c_str() : "";
}

int draforge_explanation_json(draforge_buffer* out, const draforge_explanation* explanation, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || explanation == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_explanation_json: out and explanation must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    return capi::ToBuffer(explanation->json, out, error);
  });
}

int draforge_explanation_node_groups_json(draforge_buffer* out, const draforge_explanation* explanation,
                                          draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || explanation == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_explanation_node_groups_json: out and explanation must not be NULL"),
          error);
    }
    *out = draforge_buffer{nullptr, 0};
    return capi::ToBuffer(explanation->node_groups_json, out, error);
  });
}

}  // extern "C"
