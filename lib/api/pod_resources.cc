#include "api/pod_resources.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "common/status.h"
#include "rapidjson/document.h"

namespace draforge::api {
namespace {

absl::StatusOr<ResourceList> ListField(const RawFields& fields, std::string_view name, std::string_view path) {
  const RawJson* raw = FindRaw(fields, name);
  if (raw == nullptr) return ResourceList{};
  return ParseResourceList(*raw, path);
}

// Per resource, the larger of the two (maxResourceList).
void MaxResources(ResourceList& a, const ResourceList& b) {
  for (const auto& [name, q] : b) {
    auto it = a.find(name);
    if (it == a.end()) {
      a.emplace(name, q);
    } else if (q > it->second) {
      it->second = q;
    }
  }
}

// A container's requests with the API server's defaulting: a resource with a limit and no request
// requests its limit.
absl::StatusOr<ResourceList> ContainerRequests(const Container& c, const std::string& path) {
  if (!c.resources) return ResourceList{};
  ASSIGN_OR_RETURN(ResourceList requests, ListField(c.resources->other, "requests", path + ".resources.requests"));
  ASSIGN_OR_RETURN(ResourceList limits, ListField(c.resources->other, "limits", path + ".resources.limits"));
  for (auto& [name, q] : limits) requests.emplace(name, q);
  return requests;
}

bool IsSidecar(const Container& c) {
  const RawJson* policy = FindRaw(c.other, "restartPolicy");
  return policy != nullptr && policy->json == "\"Always\"";
}

absl::Status WithPod(const absl::Status& status, const Pod& pod) {
  return absl::InvalidArgumentError(absl::StrCat("pod ", pod.metadata.namespace_.value_or("default"), "/",
                                                 pod.metadata.name.value_or(""), ": ", status.message()));
}

}  // namespace

absl::StatusOr<ResourceList> ParseResourceList(const RawJson& value, std::string_view path) {
  rapidjson::Document doc;
  doc.Parse(value.json.data(), value.json.size());
  if (doc.HasParseError() || !(doc.IsObject() || doc.IsNull())) {
    return absl::InvalidArgumentError(absl::StrCat(AV(path), ": must be a map of resource names to quantities"));
  }
  ResourceList out;
  if (doc.IsNull()) return out;
  for (const auto& m : doc.GetObject()) {
    const std::string name(m.name.GetString(), m.name.GetStringLength());
    std::string text;
    if (m.value.IsString()) {
      text.assign(m.value.GetString(), m.value.GetStringLength());
    } else if (m.value.IsInt64()) {
      text = std::to_string(m.value.GetInt64());
    } else if (m.value.IsUint64()) {
      text = std::to_string(m.value.GetUint64());
    } else {
      return absl::InvalidArgumentError(absl::StrCat(AV(path), "[", name, "]: must be a quantity"));
    }
    auto q = Quantity::Parse(text);
    if (!q.ok()) return absl::InvalidArgumentError(absl::StrCat(AV(path), "[", name, "]: ", q.status().message()));
    out.insert_or_assign(name, *std::move(q));
  }
  return out;
}

void AddResources(ResourceList& a, const ResourceList& b) {
  for (const auto& [name, q] : b) {
    auto [it, inserted] = a.emplace(name, q);
    if (!inserted) it->second = it->second.Add(q);
  }
}

absl::StatusOr<ResourceList> PodRequests(const Pod& pod) {
  ResourceList reqs;
  if (!pod.spec) return reqs;
  const PodSpec& spec = *pod.spec;
  for (size_t i = 0; i < spec.containers.size(); ++i) {
    auto r = ContainerRequests(spec.containers[i], absl::StrCat("spec.containers[", i, "]"));
    if (!r.ok()) return WithPod(r.status(), pod);
    AddResources(reqs, *r);
  }
  ResourceList sidecars;  // restartable init containers started so far
  ResourceList init;      // the most any init container step needs
  for (size_t i = 0; i < spec.init_containers.size(); ++i) {
    auto r = ContainerRequests(spec.init_containers[i], absl::StrCat("spec.initContainers[", i, "]"));
    if (!r.ok()) return WithPod(r.status(), pod);
    if (IsSidecar(spec.init_containers[i])) {
      AddResources(reqs, *r);
      AddResources(sidecars, *r);
      MaxResources(init, sidecars);
    } else {
      ResourceList step = *r;
      AddResources(step, sidecars);
      MaxResources(init, step);
    }
  }
  MaxResources(reqs, init);
  if (const RawJson* pod_level = FindRaw(spec.other, "resources")) {
    rapidjson::Document doc;
    doc.Parse(pod_level->json.data(), pod_level->json.size());
    if (doc.IsObject() && doc.HasMember("requests")) {
      const std::string requests = WriteJson(doc["requests"], false);
      auto r = ParseResourceList(RawJson(requests), "spec.resources.requests");
      if (!r.ok()) return WithPod(r.status(), pod);
      for (auto& [name, q] : *r) {
        if (name == "cpu" || name == "memory" || name.starts_with("hugepages-")) reqs.insert_or_assign(name, q);
      }
    }
  }
  auto overhead = ListField(spec.other, "overhead", "spec.overhead");
  if (!overhead.ok()) return WithPod(overhead.status(), pod);
  AddResources(reqs, *overhead);
  return reqs;
}

absl::StatusOr<ResourceList> NodeAllocatable(const Node& node) {
  if (!node.status) return ResourceList{};
  rapidjson::Document doc;
  doc.Parse(node.status->json.data(), node.status->json.size());
  if (!doc.IsObject() || !doc.HasMember("allocatable")) return ResourceList{};
  auto r = ParseResourceList(RawJson(WriteJson(doc["allocatable"], false)), "status.allocatable");
  if (!r.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("node ", node.metadata.name.value_or(""), ": ", r.status().message()));
  }
  return r;
}

int64_t SchedulerAmount(std::string_view name, const Quantity& q) {
  return name == "cpu" ? q.MilliValue() : q.Value();
}

bool OccupiesNode(const Pod& pod) {
  if (!pod.spec || !pod.spec->node_name || pod.spec->node_name->empty()) return false;
  const std::string phase = pod.status ? pod.status->phase.value_or("") : "";
  return phase != "Succeeded" && phase != "Failed";
}

}  // namespace draforge::api
