#include "api/pod_disruption_budget.h"

#include <limits>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "api/node_selector.h"
#include "common/status.h"
#include "rapidjson/document.h"

namespace draforge::api {
namespace {

const rapidjson::Value* Member(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

absl::Status Bad(const std::string& who, std::string_view field, std::string_view want) {
  return absl::InvalidArgumentError(absl::StrCat(who, ": ", AV(field), ": expected ", AV(want)));
}

// An IntOrString as written: "2", "50%".
absl::StatusOr<std::string> IntOrString(const rapidjson::Value* v, const std::string& who, std::string_view field) {
  if (v == nullptr) return std::string();
  if (v->IsInt64()) return absl::StrCat(v->GetInt64());
  if (v->IsString()) return std::string(v->GetString(), v->GetStringLength());
  return Bad(who, field, "an integer or a string");
}

// metav1.LabelSelectorAsSelector: the requirements, or why the selector does not parse.
absl::Status ReadSelector(const rapidjson::Value& sel, const std::string& who, PodDisruptionBudget& out) {
  if (!sel.IsObject()) return Bad(who, "spec.selector", "an object");
  out.has_selector = true;
  std::vector<NodeSelectorRequirement> reqs;
  if (const rapidjson::Value* ml = Member(sel, "matchLabels")) {
    if (!ml->IsObject()) return Bad(who, "spec.selector.matchLabels", "an object");
    for (auto it = ml->MemberBegin(); it != ml->MemberEnd(); ++it) {
      if (!it->value.IsString()) return Bad(who, absl::StrCat("spec.selector.matchLabels.", it->name.GetString()), "a string");
      NodeSelectorRequirement r;
      r.key = std::string(it->name.GetString(), it->name.GetStringLength());
      r.operator_ = "In";
      r.values.emplace_back(it->value.GetString(), it->value.GetStringLength());
      reqs.push_back(std::move(r));
    }
  }
  if (const rapidjson::Value* me = Member(sel, "matchExpressions")) {
    if (!me->IsArray()) return Bad(who, "spec.selector.matchExpressions", "an array");
    for (rapidjson::SizeType i = 0; i < me->Size(); ++i) {
      const rapidjson::Value& e = (*me)[i];
      const std::string path = absl::StrCat("spec.selector.matchExpressions[", i, "]");
      if (!e.IsObject()) return Bad(who, path, "an object");
      NodeSelectorRequirement r;
      const rapidjson::Value* key = Member(e, "key");
      const rapidjson::Value* op = Member(e, "operator");
      if (key != nullptr && !key->IsString()) return Bad(who, path + ".key", "a string");
      if (op != nullptr && !op->IsString()) return Bad(who, path + ".operator", "a string");
      r.key = key == nullptr ? "" : key->GetString();
      r.operator_ = op == nullptr ? "" : op->GetString();
      if (const rapidjson::Value* vals = Member(e, "values")) {
        if (!vals->IsArray()) return Bad(who, path + ".values", "an array");
        for (const auto& v : vals->GetArray()) {
          if (!v.IsString()) return Bad(who, path + ".values", "strings");
          r.values.emplace_back(v.GetString(), v.GetStringLength());
        }
      }
      // A LabelSelector knows In, NotIn, Exists and DoesNotExist only (Gt and Lt are node selector
      // operators).
      if (*r.operator_ != "In" && *r.operator_ != "NotIn" && *r.operator_ != "Exists" &&
          *r.operator_ != "DoesNotExist") {
        if (out.selector_error.empty()) {
          out.selector_error = absl::StrCat("\"", *r.operator_, "\" is not a valid label selector operator");
        }
        continue;
      }
      reqs.push_back(std::move(r));
    }
  }
  if (!out.selector_error.empty()) return absl::OkStatus();
  for (const NodeSelectorRequirement& r : reqs) {
    auto parsed = ParseLabelRequirement(r);
    if (!parsed.ok()) {
      out.selector_error = std::string(parsed.status().message());
      out.selector.clear();
      return absl::OkStatus();
    }
    out.selector.push_back(*std::move(parsed));
  }
  return absl::OkStatus();
}

}  // namespace

bool PodDisruptionBudget::Selects(const Map<std::string>& pod_labels) const {
  if (pod_labels.empty() || !has_selector || selector.empty() || !selector_error.empty()) return false;
  for (const LabelRequirement& r : selector) {
    if (!r.Matches(pod_labels)) return false;
  }
  return true;
}

bool IsPodDisruptionBudget(const OtherObject& object) {
  return object.kind == "PodDisruptionBudget" && object.api_version == "policy/v1";
}

absl::StatusOr<PodDisruptionBudget> ReadPodDisruptionBudget(const OtherObject& object) {
  PodDisruptionBudget out;
  out.ns = object.metadata.namespace_.value_or("default");
  out.name = object.metadata.name.value_or("");
  const std::string who = absl::StrCat("poddisruptionbudget ", out.ns, "/", out.name);
  auto doc = ParseJson(object.raw.json, false);
  if (!doc.ok()) return absl::InvalidArgumentError(absl::StrCat(who, ": ", doc.status().message()));
  if (const rapidjson::Value* spec = Member(*doc, "spec")) {
    if (!spec->IsObject()) return Bad(who, "spec", "an object");
    if (const rapidjson::Value* sel = Member(*spec, "selector")) RETURN_IF_ERROR(ReadSelector(*sel, who, out));
    ASSIGN_OR_RETURN(out.min_available, IntOrString(Member(*spec, "minAvailable"), who, "spec.minAvailable"));
    ASSIGN_OR_RETURN(out.max_unavailable, IntOrString(Member(*spec, "maxUnavailable"), who, "spec.maxUnavailable"));
  }
  if (const rapidjson::Value* status = Member(*doc, "status")) {
    if (!status->IsObject()) return Bad(who, "status", "an object");
    if (const rapidjson::Value* allowed = Member(*status, "disruptionsAllowed")) {
      if (!allowed->IsInt64() || allowed->GetInt64() < std::numeric_limits<int32_t>::min() ||
          allowed->GetInt64() > std::numeric_limits<int32_t>::max()) {
        return Bad(who, "status.disruptionsAllowed", "a 32-bit integer");
      }
      out.disruptions_allowed = static_cast<int32_t>(allowed->GetInt64());
    }
    if (const rapidjson::Value* disrupted = Member(*status, "disruptedPods")) {
      if (!disrupted->IsObject()) return Bad(who, "status.disruptedPods", "an object");
      for (auto it = disrupted->MemberBegin(); it != disrupted->MemberEnd(); ++it) {
        out.disrupted_pods.emplace(it->name.GetString(), it->name.GetStringLength());
      }
    }
  }
  return out;
}

}  // namespace draforge::api
