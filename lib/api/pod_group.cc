#include "api/pod_group.h"

#include <limits>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "api/json_parse.h"
#include "api/raw_json.h"
#include "rapidjson/document.h"

namespace draforge::api {
namespace {

// Error context: "podgroup team-a/train".
class Reader {
 public:
  explicit Reader(std::string who) : who_(std::move(who)) {}

  absl::Status Bad(std::string_view path, std::string_view want) const {
    return absl::InvalidArgumentError(absl::StrCat(who_, ": ", std::string(path), ": want ", std::string(want)));
  }

  // Member `name` of `v` when `v` is an object and has it (null counts as absent).
  static const rapidjson::Value* Member(const rapidjson::Value& v, const char* name) {
    if (!v.IsObject()) return nullptr;
    auto it = v.FindMember(name);
    if (it == v.MemberEnd() || it->value.IsNull()) return nullptr;
    return &it->value;
  }

  absl::StatusOr<std::optional<std::string>> String(const rapidjson::Value& v, const char* name,
                                                    const std::string& path) const {
    const rapidjson::Value* m = Member(v, name);
    if (m == nullptr) return std::nullopt;
    if (!m->IsString()) return Bad(absl::StrCat(path, ".", name), "a string");
    return std::string(m->GetString(), m->GetStringLength());
  }

  absl::StatusOr<std::optional<int32_t>> Int32(const rapidjson::Value& v, const char* name,
                                               const std::string& path) const {
    const rapidjson::Value* m = Member(v, name);
    if (m == nullptr) return std::nullopt;
    if (!m->IsInt()) return Bad(absl::StrCat(path, ".", name), "an integer");
    return static_cast<int32_t>(m->GetInt());
  }

  absl::StatusOr<PodGroupSchedulingPolicy> Policy(const rapidjson::Value& spec, const std::string& path) const {
    PodGroupSchedulingPolicy out;
    const rapidjson::Value* p = Member(spec, "schedulingPolicy");
    if (p == nullptr) return out;
    const std::string here = absl::StrCat(path, ".schedulingPolicy");
    if (!p->IsObject()) return Bad(here, "an object");
    out.basic = Member(*p, "basic") != nullptr;
    if (const rapidjson::Value* g = Member(*p, "gang")) {
      if (!g->IsObject()) return Bad(absl::StrCat(here, ".gang"), "an object");
      auto min = Int32(*g, "minCount", absl::StrCat(here, ".gang"));
      if (!min.ok()) return min.status();
      out.gang = GangSchedulingPolicy{min->value_or(0)};
    }
    return out;
  }

  absl::StatusOr<std::vector<PodGroupResourceClaim>> Claims(const rapidjson::Value& spec,
                                                            const std::string& path) const {
    std::vector<PodGroupResourceClaim> out;
    const rapidjson::Value* list = Member(spec, "resourceClaims");
    if (list == nullptr) return out;
    if (!list->IsArray()) return Bad(absl::StrCat(path, ".resourceClaims"), "a list");
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      const std::string here = absl::StrCat(path, ".resourceClaims[", i, "]");
      const rapidjson::Value& c = (*list)[i];
      if (!c.IsObject()) return Bad(here, "an object");
      PodGroupResourceClaim claim;
      auto name = String(c, "name", here);
      if (!name.ok()) return name.status();
      claim.name = name->value_or("");
      auto rc = String(c, "resourceClaimName", here);
      if (!rc.ok()) return rc.status();
      claim.resource_claim_name = *rc;
      auto tmpl = String(c, "resourceClaimTemplateName", here);
      if (!tmpl.ok()) return tmpl.status();
      claim.resource_claim_template_name = *tmpl;
      out.push_back(std::move(claim));
    }
    return out;
  }

 private:
  std::string who_;
};

absl::StatusOr<rapidjson::Document> Parse(const Object& object, std::string_view kind) {
  if (!IsSchedulingKind(object, kind)) {
    return absl::InvalidArgumentError(absl::StrCat(object.Key(), ": not a ", kSchedulingGroup, " ", std::string(kind)));
  }
  const auto& other = std::get<OtherObject>(object.value);
  rapidjson::Document d;
  if (JsonParseResult r = ParseJsonInto(d, other.raw.json); !r.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(kind), " ", object.Key(), ": ", r.Message()));
  }
  return d;
}

}  // namespace

bool IsSchedulingKind(const Object& object, std::string_view kind) {
  const auto* other = std::get_if<OtherObject>(&object.value);
  if (other == nullptr || other->kind != kind) return false;
  std::string_view group = other->api_version;
  if (size_t slash = group.find('/'); slash != std::string_view::npos) group = group.substr(0, slash);
  return group == kSchedulingGroup;
}

absl::StatusOr<PodGroup> DecodePodGroup(const Object& object) {
  auto d = Parse(object, kPodGroupKind);
  if (!d.ok()) return d.status();
  Reader r(absl::StrCat("podgroup ", object.Key()));
  PodGroup out;
  out.metadata = object.metadata();
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* spec = Reader::Member(*d, "spec");
  if (spec == nullptr) spec = &kEmpty;
  if (!spec->IsObject()) return r.Bad("spec", "an object");
  if (const rapidjson::Value* ref = Reader::Member(*spec, "workloadRef")) {
    auto w = r.String(*ref, "workloadName", "spec.workloadRef");
    if (!w.ok()) return w.status();
    auto t = r.String(*ref, "templateName", "spec.workloadRef");
    if (!t.ok()) return t.status();
    out.workload_ref = WorkloadReference{w->value_or(""), t->value_or("")};
  }
  auto policy = r.Policy(*spec, "spec");
  if (!policy.ok()) return policy.status();
  out.scheduling_policy = *policy;
  auto claims = r.Claims(*spec, "spec");
  if (!claims.ok()) return claims.status();
  out.resource_claims = std::move(*claims);
  auto priority = r.Int32(*spec, "priority", "spec");
  if (!priority.ok()) return priority.status();
  out.priority = *priority;
  if (const rapidjson::Value* status = Reader::Member(*d, "status")) {
    if (const rapidjson::Value* list = Reader::Member(*status, "resourceClaimStatuses")) {
      if (!list->IsArray()) return r.Bad("status.resourceClaimStatuses", "a list");
      for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
        const std::string here = absl::StrCat("status.resourceClaimStatuses[", i, "]");
        auto name = r.String((*list)[i], "name", here);
        if (!name.ok()) return name.status();
        auto claim = r.String((*list)[i], "resourceClaimName", here);
        if (!claim.ok()) return claim.status();
        out.resource_claim_statuses.push_back(PodGroupResourceClaimStatus{name->value_or(""), *claim});
      }
    }
  }
  return out;
}

absl::StatusOr<Workload> DecodeWorkload(const Object& object) {
  auto d = Parse(object, kWorkloadKind);
  if (!d.ok()) return d.status();
  Reader r(absl::StrCat("workload ", object.Key()));
  Workload out;
  out.metadata = object.metadata();
  const rapidjson::Value* spec = Reader::Member(*d, "spec");
  if (spec == nullptr) return out;
  const rapidjson::Value* list = Reader::Member(*spec, "podGroupTemplates");
  if (list == nullptr) return out;
  if (!list->IsArray()) return r.Bad("spec.podGroupTemplates", "a list");
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const std::string here = absl::StrCat("spec.podGroupTemplates[", i, "]");
    const rapidjson::Value& t = (*list)[i];
    if (!t.IsObject()) return r.Bad(here, "an object");
    PodGroupTemplate tmpl;
    auto name = r.String(t, "name", here);
    if (!name.ok()) return name.status();
    tmpl.name = name->value_or("");
    auto policy = r.Policy(t, here);
    if (!policy.ok()) return policy.status();
    tmpl.scheduling_policy = *policy;
    auto claims = r.Claims(t, here);
    if (!claims.ok()) return claims.status();
    tmpl.resource_claims = std::move(*claims);
    auto priority = r.Int32(t, "priority", here);
    if (!priority.ok()) return priority.status();
    tmpl.priority = *priority;
    out.pod_group_templates.push_back(std::move(tmpl));
  }
  return out;
}

absl::StatusOr<PodGroup> PodGroupFromTemplate(const Workload& workload, std::string_view template_name,
                                              std::string_view name) {
  for (const PodGroupTemplate& t : workload.pod_group_templates) {
    if (t.name != template_name) continue;
    PodGroup out;
    out.metadata.name = std::string(name);
    out.metadata.namespace_ = workload.metadata.namespace_;
    out.workload_ref = WorkloadReference{workload.metadata.name.value_or(""), t.name};
    out.scheduling_policy = t.scheduling_policy;
    out.resource_claims = t.resource_claims;
    out.priority = t.priority;
    return out;
  }
  return absl::NotFoundError(absl::StrCat("workload ", workload.metadata.namespace_.value_or("default"), "/",
                                          workload.metadata.name.value_or(""), " has no podGroupTemplate \"",
                                          std::string(template_name), "\""));
}

absl::StatusOr<std::optional<std::string>> PodGroupNameOf(const Pod& pod) {
  if (!pod.spec) return std::nullopt;
  const RawJson* raw = FindRaw(pod.spec->other, "schedulingGroup");
  if (raw == nullptr) return std::nullopt;
  rapidjson::Document d;
  const std::string who = absl::StrCat("pod ", pod.metadata.namespace_.value_or("default"), "/",
                                       pod.metadata.name.value_or(""));
  if (JsonParseResult r = ParseJsonInto(d, raw->json); !r.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": spec.schedulingGroup: ", r.Message()));
  }
  if (d.IsNull()) return std::nullopt;
  if (!d.IsObject()) return absl::InvalidArgumentError(absl::StrCat(who, ": spec.schedulingGroup: want an object"));
  auto it = d.FindMember("podGroupName");
  if (it == d.MemberEnd() || it->value.IsNull()) return std::nullopt;
  if (!it->value.IsString()) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": spec.schedulingGroup.podGroupName: want a string"));
  }
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace draforge::api
