#include "api/node_affinity.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/internal/json_decode.h"
#include "api/internal/schema.h"
#include "rapidjson/document.h"

namespace draforge::api {
namespace {

// The object member `name` of `v`, or null when `v` lacks it or it is null; an error when `v` is
// neither an object nor null.
absl::StatusOr<const rapidjson::Value*> Member(internal::DecodeContext& ctx, const rapidjson::Value& v,
                                               std::string_view name) {
  if (v.IsNull()) return nullptr;
  if (!v.IsObject()) return ctx.TypeError("object", v);
  auto it = v.FindMember(rapidjson::StringRef(name.data(), name.size()));
  if (it == v.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, decoded.
absl::StatusOr<std::optional<NodeSelector>> RequiredSelector(const RawJson& affinity) {
  rapidjson::Document doc;
  doc.Parse(affinity.json.data(), affinity.json.size());
  internal::DecodeContext ctx(/*strict=*/false, nullptr);
  ctx.PushField("spec");
  ctx.PushField("affinity");
  if (doc.HasParseError()) return ctx.Error("not JSON");
  ASSIGN_OR_RETURN(const rapidjson::Value* node_affinity, Member(ctx, doc, "nodeAffinity"));
  if (node_affinity == nullptr) return std::nullopt;
  ctx.PushField("nodeAffinity");
  ASSIGN_OR_RETURN(const rapidjson::Value* required,
                   Member(ctx, *node_affinity, "requiredDuringSchedulingIgnoredDuringExecution"));
  if (required == nullptr) return std::nullopt;
  ctx.PushField("requiredDuringSchedulingIgnoredDuringExecution");
  NodeSelector selector;
  RETURN_IF_ERROR(internal::Decode(ctx, *required, selector));
  return selector;
}

}  // namespace

absl::StatusOr<RequiredNodeAffinity> RequiredNodeAffinity::Of(const Pod& pod) {
  RequiredNodeAffinity out;
  if (!pod.spec) return out;
  // labels.SelectorFromSet: each entry an equality requirement, not validated.
  for (const auto& [key, value] : pod.spec->node_selector) {
    LabelRequirement r;
    r.key = key;
    r.op = LabelOperator::kIn;
    r.values = {value};
    out.node_selector_.push_back(std::move(r));
  }
  if (const RawJson* affinity = FindRaw(pod.spec->other, "affinity")) {
    auto selector = RequiredSelector(*affinity);
    if (!selector.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("pod ", pod.metadata.namespace_.value_or("default"), "/",
                                                     pod.metadata.name.value_or(""), ": ",
                                                     selector.status().message()));
    }
    if (*selector) {
      out.required_ = CompileNodeSelectorLazily(**selector);
      out.required_selector_ = *std::move(*selector);
    }
  }
  return out;
}

bool RequiredNodeAffinity::Matches(const Map<std::string>& node_labels, std::string_view node_name) const {
  for (const LabelRequirement& r : node_selector_) {
    if (!r.Matches(node_labels)) return false;
  }
  return !required_ || required_->Matches(node_labels, node_name);
}

}  // namespace draforge::api
