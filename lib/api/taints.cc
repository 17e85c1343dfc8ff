#include "api/taints.h"

#include <string>
#include <tuple>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/internal/json_decode.h"
#include "api/internal/schema.h"
#include "rapidjson/document.h"

namespace draforge::api {
namespace internal {

// Field tables for the decoder (schema.h's DRAFORGE_SCHEMA is private to that header).
template <>
struct Schema<Taint> {
  using T = Taint;
  static constexpr auto Fields() {
    return std::make_tuple(F("key", &T::key), F("value", &T::value), F("effect", &T::effect),
                           F("timeAdded", &T::time_added));
  }
};
template <>
struct Schema<Toleration> {
  using T = Toleration;
  static constexpr auto Fields() {
    return std::make_tuple(F("key", &T::key), F("operator", &T::operator_), F("value", &T::value),
                           F("effect", &T::effect), F("tolerationSeconds", &T::toleration_seconds));
  }
};

}  // namespace internal
namespace {

// Decodes member `field` of the JSON object `raw` (the object's `path`, "spec") into `out`; absent or
// null leaves `out` as it is. Unknown fields inside are ignored, as the API server drops them.
template <typename T>
absl::Status DecodeMember(const RawJson& raw, std::string_view path, std::string_view field, T& out) {
  rapidjson::Document doc;
  doc.Parse(raw.json.data(), raw.json.size());
  if (doc.HasParseError() || !(doc.IsObject() || doc.IsNull())) {
    return absl::InvalidArgumentError(absl::StrCat(AV(path), ": expected object"));
  }
  if (doc.IsNull()) return absl::OkStatus();
  auto it = doc.FindMember(rapidjson::StringRef(field.data(), field.size()));
  if (it == doc.MemberEnd() || it->value.IsNull()) return absl::OkStatus();
  internal::DecodeContext ctx(/*strict=*/false, nullptr);
  ctx.PushField(path);
  ctx.PushField(field);
  return internal::Decode(ctx, it->value, out);
}

absl::Status Named(std::string_view kind, std::string_view name, const absl::Status& status) {
  return absl::InvalidArgumentError(absl::StrCat(AV(kind), " ", AV(name), ": ", status.message()));
}

std::string PodName(const Pod& pod) {
  return absl::StrCat(pod.metadata.namespace_.value_or("default"), "/", pod.metadata.name.value_or(""));
}

}  // namespace

absl::StatusOr<std::vector<Taint>> NodeTaints(const Node& node) {
  std::vector<Taint> out;
  if (!node.spec) return out;
  if (absl::Status s = DecodeMember(*node.spec, "spec", "taints", out); !s.ok()) {
    return Named("node", node.metadata.name.value_or(""), s);
  }
  return out;
}

absl::StatusOr<bool> NodeUnschedulable(const Node& node) {
  bool out = false;
  if (!node.spec) return out;
  if (absl::Status s = DecodeMember(*node.spec, "spec", "unschedulable", out); !s.ok()) {
    return Named("node", node.metadata.name.value_or(""), s);
  }
  return out;
}

absl::StatusOr<std::vector<Toleration>> PodTolerations(const Pod& pod) {
  std::vector<Toleration> out;
  if (!pod.spec) return out;
  const RawJson* raw = FindRaw(pod.spec->other, "tolerations");
  if (raw == nullptr) return out;
  rapidjson::Document doc;
  doc.Parse(raw->json.data(), raw->json.size());
  internal::DecodeContext ctx(/*strict=*/false, nullptr);
  ctx.PushField("spec");
  ctx.PushField("tolerations");
  absl::Status s = doc.HasParseError() ? ctx.Error("not JSON") : doc.IsNull() ? absl::OkStatus()
                                                                              : internal::Decode(ctx, doc, out);
  if (!s.ok()) return Named("pod", PodName(pod), s);
  return out;
}

bool ToleratesTaint(const Toleration& t, const Taint& taint) {
  const std::string_view effect = t.effect ? std::string_view(*t.effect) : std::string_view();
  if (!effect.empty() && effect != taint.effect.value_or("")) return false;
  const std::string_view key = t.key ? std::string_view(*t.key) : std::string_view();
  if (!key.empty() && key != taint.key.value_or("")) return false;
  const std::string op = t.operator_.value_or("");
  if (op.empty() || op == "Equal") return t.value.value_or("") == taint.value.value_or("");
  return op == "Exists";
}

bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const Toleration& t : tolerations) {
    if (ToleratesTaint(t, taint)) return true;
  }
  return false;
}

const Taint* FindUntoleratedNoScheduleTaint(const std::vector<Taint>& taints,
                                            const std::vector<Toleration>& tolerations) {
  for (const Taint& taint : taints) {
    const std::string effect = taint.effect.value_or("");
    if (effect != "NoSchedule" && effect != "NoExecute") continue;
    if (!TolerationsTolerateTaint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

std::string TaintString(const Taint& taint) {
  std::string out = taint.key.value_or("");
  if (taint.value && !taint.value->empty()) absl::StrAppend(&out, "=", *taint.value);
  absl::StrAppend(&out, ":", taint.effect.value_or(""));
  return out;
}

}  // namespace draforge::api
