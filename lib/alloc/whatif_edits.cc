#include "alloc/whatif_edits.h"

#include <algorithm>
#include <set>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/codec.h"
#include "api/pod_resources.h"
#include "common/status.h"
#include "rapidjson/document.h"

namespace draforge::alloc {
namespace {

constexpr char kHostnameLabel[] = "kubernetes.io/hostname";
constexpr char kMirrorPodAnnotation[] = "kubernetes.io/config.mirror";

struct Key {
  std::string ns;
  std::string name;
};

Key SplitKey(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {"default", std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

std::string Ns(const api::ObjectMeta& m) { return m.namespace_.value_or("default"); }
std::string KeyOf(const api::ObjectMeta& m) { return absl::StrCat(Ns(m), "/", m.name.value_or("")); }

// The objects being edited, of every kind.
class Objects {
 public:
  explicit Objects(const store::Snapshot& snapshot) {
    for (api::Kind kind : {api::Kind::kDeviceClass, api::Kind::kResourceClaim, api::Kind::kResourceClaimTemplate,
                           api::Kind::kResourceSlice, api::Kind::kDeviceTaintRule,
                           api::Kind::kResourcePoolStatusRequest, api::Kind::kPod, api::Kind::kNode,
                           api::Kind::kOther}) {
      for (const api::Object* o : snapshot.List(kind)) objects_.push_back(*o);
    }
  }

  template <typename T>
  T* Find(std::string_view ns, std::string_view name) {
    for (api::Object& o : objects_) {
      T* t = std::get_if<T>(&o.value);
      if (t == nullptr || t->metadata.name.value_or("") != name) continue;
      if constexpr (!std::is_same_v<T, api::Node> && !std::is_same_v<T, api::ResourceSlice> &&
                    !std::is_same_v<T, api::DeviceClass> && !std::is_same_v<T, api::DeviceTaintRule>) {
        if (Ns(t->metadata) != ns) continue;
      }
      return t;
    }
    return nullptr;
  }

  template <typename T>
  std::vector<T*> All() {
    std::vector<T*> out;
    for (api::Object& o : objects_) {
      if (T* t = std::get_if<T>(&o.value)) out.push_back(t);
    }
    return out;
  }

  // Removes the objects of type T for which `pred` holds; returns how many.
  template <typename T, typename Pred>
  size_t Remove(Pred pred) {
    const size_t before = objects_.size();
    std::erase_if(objects_, [&](const api::Object& o) {
      const T* t = std::get_if<T>(&o.value);
      return t != nullptr && pred(*t);
    });
    return before - objects_.size();
  }

  void Add(api::Object o) { objects_.push_back(std::move(o)); }
  std::vector<api::Object> Take() { return std::move(objects_); }

 private:
  std::vector<api::Object> objects_;
};

bool NodeLocalTo(const api::ResourceSlice& s, std::string_view node) {
  return s.spec && s.spec->node_name && *s.spec->node_name == node;
}

// A Node object, or (as Place and Replay see nodes without Node objects) a node-local slice's node.
bool NodeExists(Objects& objects, std::string_view node) {
  if (objects.Find<api::Node>("", node) != nullptr) return true;
  for (const api::ResourceSlice* s : objects.All<api::ResourceSlice>()) {
    if (NodeLocalTo(*s, node)) return true;
  }
  return false;
}

bool IsTerminal(const api::Pod& pod) {
  return pod.status && pod.status->phase && (*pod.status->phase == "Succeeded" || *pod.status->phase == "Failed");
}

bool BoundTo(const api::Pod& pod, std::string_view node) {
  return pod.spec && pod.spec->node_name && *pod.spec->node_name == node;
}

bool IsDaemonSetPod(const api::Pod& pod) {
  for (const auto& o : pod.metadata.owner_references) {
    if (o.controller.value_or(false) && o.kind.value_or("") == "DaemonSet") return true;
  }
  return false;
}

// Takes `pod` out of its claims' status.reservedFor; a claim reserved by nobody afterwards loses its
// allocation (the resourceclaim controller's deallocation). Adds the keys of the deallocated claims.
void ReleaseClaims(Objects& objects, const api::Pod& pod, std::vector<std::string>& deallocated) {
  const std::string ns = Ns(pod.metadata);
  const std::string name = pod.metadata.name.value_or("");
  for (api::ResourceClaim* c : objects.All<api::ResourceClaim>()) {
    if (Ns(c->metadata) != ns || !c->status) continue;
    auto& reserved = c->status->reserved_for;
    const size_t before = reserved.size();
    std::erase_if(reserved, [&](const api::ResourceClaimConsumerReference& r) { return store::ReservesPod(r, &pod, name); });
    if (reserved.size() == before || !reserved.empty()) continue;
    if (c->status->allocation) {
      c->status->allocation.reset();
      c->status->devices.clear();
      deallocated.push_back(KeyOf(c->metadata));
    }
  }
}

// Makes `pod` pending again, as its controller's replacement would be.
void MakePending(api::Pod& pod) {
  pod.spec->node_name.reset();
  if (!pod.status) pod.status.emplace();
  pod.status->phase = "Pending";
}

// "2 pods pending again (d/a, d/b)".
std::string Counted(size_t n, std::string_view one, std::string_view many, std::string_view what,
                    const std::vector<std::string>& keys) {
  std::string out = absl::StrCat(n, " ", AV(n == 1 ? one : many), " ", AV(what));
  if (!keys.empty()) absl::StrAppend(&out, " (", absl::StrJoin(keys, ", "), ")");
  return out;
}

// Evicts the non-terminal pods bound to `node` for which `evict` holds; returns the sentence parts.
template <typename Pred>
std::vector<std::string> Evict(Objects& objects, std::string_view node, Pred evict) {
  std::vector<std::string> pending;
  std::vector<std::string> deallocated;
  for (api::Pod* p : objects.All<api::Pod>()) {
    if (!BoundTo(*p, node) || IsTerminal(*p) || !evict(*p)) continue;
    ReleaseClaims(objects, *p, deallocated);
    MakePending(*p);
    pending.push_back(KeyOf(p->metadata));
  }
  return {Counted(pending.size(), "pod", "pods", "pending again", pending),
          Counted(deallocated.size(), "claim", "claims", "deallocated", deallocated)};
}

absl::StatusOr<std::string> SetUnschedulable(const std::optional<api::RawJson>& spec) {
  rapidjson::Document d;
  if (spec) {
    d.Parse(spec->json.data(), spec->json.size());
    if (d.HasParseError() || !(d.IsObject() || d.IsNull())) return absl::InvalidArgumentError("spec: expected object");
  }
  if (!d.IsObject()) d.SetObject();
  if (auto it = d.FindMember("unschedulable"); it != d.MemberEnd()) {
    it->value.SetBool(true);
  } else {
    d.AddMember("unschedulable", true, d.GetAllocator());
  }
  return api::WriteJson(d, false);
}

absl::StatusOr<std::string> AddNodes(Objects& objects, const WhatifEdit& e) {
  const std::string& like = e.name;
  if (e.count < 1) return absl::InvalidArgumentError(absl::StrCat("add-nodes: count must be at least 1, got ", e.count));
  std::optional<api::Node> node;
  std::vector<api::ResourceSlice> slices;
  if (e.node_template) {
    node = e.node_template;
    slices = e.slice_templates;
  } else {
    if (const api::Node* original = objects.Find<api::Node>("", like)) node = *original;
    for (api::ResourceSlice* s : objects.All<api::ResourceSlice>()) {
      if (NodeLocalTo(*s, like)) slices.push_back(*s);
    }
    if (!node && slices.empty()) return absl::NotFoundError(absl::StrCat("add-nodes: node \"", like, "\" not found"));
  }
  std::vector<std::string> names;
  for (int64_t i = 1; i <= e.count; ++i) {
    const std::string name = absl::StrCat(like, "-whatif-", i);
    if (NodeExists(objects, name)) {
      return absl::InvalidArgumentError(absl::StrCat("add-nodes: node \"", name, "\" already exists"));
    }
    if (node) {
      api::Node copy = *node;
      copy.metadata.name = name;
      copy.metadata.uid.reset();
      copy.metadata.resource_version.reset();
      if (copy.metadata.labels.Contains(kHostnameLabel)) copy.metadata.labels.Set(kHostnameLabel, name);
      objects.Add(api::Object{"v1", std::move(copy)});
    }
    for (const api::ResourceSlice& s : slices) {
      api::ResourceSlice sc = s;
      const std::string slice_name = absl::StrCat(s.metadata.name.value_or(""), "-whatif-", i);
      if (objects.Find<api::ResourceSlice>("", slice_name) != nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("add-nodes: resourceslice \"", slice_name, "\" already exists"));
      }
      sc.metadata.name = slice_name;
      sc.metadata.uid.reset();
      sc.metadata.resource_version.reset();
      sc.metadata.owner_references.clear();
      sc.spec->node_name = name;
      if (sc.spec->pool && sc.spec->pool->name) {
        sc.spec->pool->name = *sc.spec->pool->name == like ? name : absl::StrCat(*sc.spec->pool->name, "-whatif-", i);
      }
      objects.Add(api::Object{"resource.k8s.io/v1", std::move(sc)});
    }
    names.push_back(name);
  }
  return absl::StrCat("add-nodes ", like, e.node_template ? " (template)" : "", ": ",
                      Counted(names.size(), "node", "nodes", "added", names), " with ", slices.size(),
                      slices.size() == 1 ? " ResourceSlice" : " ResourceSlices", " each");
}

absl::StatusOr<std::string> TaintDevices(Objects& objects, const WhatifEdit& e) {
  const api::DeviceTaintRule& rule = *e.taint_rule;
  const std::string name = rule.metadata.name.value_or("");
  if (objects.Find<api::DeviceTaintRule>("", name) != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("taint-devices: devicetaintrule \"", name, "\" already exists"));
  }
  objects.Add(api::Object{"resource.k8s.io/v1alpha3", rule});
  std::string taint;
  if (rule.spec && rule.spec->taint) {
    const api::DeviceTaint& t = *rule.spec->taint;
    taint = absl::StrCat(t.key.value_or(""), t.value ? absl::StrCat("=", *t.value) : "", ":", t.effect.value_or(""));
  }
  return absl::StrCat("taint-devices ", name, ": DeviceTaintRule added (", taint, ")");
}

absl::StatusOr<std::string> SetClassSelectors(Objects& objects, const WhatifEdit& e) {
  api::DeviceClass* c = objects.Find<api::DeviceClass>("", e.name);
  if (c == nullptr) return absl::NotFoundError(absl::StrCat("set-class-selectors: deviceclass \"", e.name, "\" not found"));
  if (!c->spec) c->spec.emplace();
  const size_t before = c->spec->selectors.size();
  c->spec->selectors = e.selectors;
  return absl::StrCat("set-class-selectors ", e.name, ": ", before, before == 1 ? " selector" : " selectors",
                      " replaced by ", e.selectors.size());
}

absl::StatusOr<std::string> DeleteClaim(Objects& objects, const WhatifEdit& e) {
  const Key k = SplitKey(e.name);
  if (objects.Find<api::ResourceClaim>(k.ns, k.name) == nullptr) {
    return absl::NotFoundError(absl::StrCat("delete-claim: resourceclaim \"", k.ns, "/", k.name, "\" not found"));
  }
  objects.Remove<api::ResourceClaim>(
      [&](const api::ResourceClaim& c) { return Ns(c.metadata) == k.ns && c.metadata.name.value_or("") == k.name; });
  return absl::StrCat("delete-claim ", k.ns, "/", k.name, ": deleted");
}

absl::StatusOr<std::string> DeletePod(Objects& objects, const WhatifEdit& e) {
  const Key k = SplitKey(e.name);
  const api::Pod* found = objects.Find<api::Pod>(k.ns, k.name);
  if (found == nullptr) return absl::NotFoundError(absl::StrCat("delete-pod: pod \"", k.ns, "/", k.name, "\" not found"));
  const api::Pod pod = *found;
  std::vector<std::string> deallocated;
  ReleaseClaims(objects, pod, deallocated);
  // Claims the pod owns (its template claims) go with it (garbage collection).
  std::vector<std::string> owned;
  objects.Remove<api::ResourceClaim>([&](const api::ResourceClaim& c) {
    if (Ns(c.metadata) != k.ns) return false;
    for (const auto& o : c.metadata.owner_references) {
      if (o.kind.value_or("") == "Pod" && o.name.value_or("") == k.name &&
          (!pod.metadata.uid || o.uid.value_or("") == *pod.metadata.uid)) {
        owned.push_back(KeyOf(c.metadata));
        return true;
      }
    }
    return false;
  });
  std::erase_if(deallocated, [&](const std::string& c) { return std::find(owned.begin(), owned.end(), c) != owned.end(); });
  objects.Remove<api::Pod>(
      [&](const api::Pod& p) { return Ns(p.metadata) == k.ns && p.metadata.name.value_or("") == k.name; });
  return absl::StrCat("delete-pod ", k.ns, "/", k.name, ": deleted; ",
                      Counted(owned.size(), "claim", "claims", "it owned deleted", owned), "; ",
                      Counted(deallocated.size(), "claim", "claims", "deallocated", deallocated));
}

absl::StatusOr<std::string> DrainNode(Objects& objects, const WhatifEdit& e) {
  api::Node* node = objects.Find<api::Node>("", e.name);
  if (node == nullptr) {
    if (NodeExists(objects, e.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("drain-node: node \"", e.name, "\" is named only by ResourceSlices: there is no Node to cordon"));
    }
    return absl::NotFoundError(absl::StrCat("drain-node: node \"", e.name, "\" not found"));
  }
  auto spec = SetUnschedulable(node->spec);
  if (!spec.ok()) return absl::InvalidArgumentError(absl::StrCat("drain-node: node ", e.name, ": ", spec.status().message()));
  node->spec = api::RawJson(*std::move(spec));
  const std::vector<std::string> parts = Evict(objects, e.name, [](const api::Pod& p) {
    return !IsDaemonSetPod(p) && !p.metadata.annotations.Contains(kMirrorPodAnnotation);
  });
  return absl::StrCat("drain-node ", e.name, ": cordoned; ", absl::StrJoin(parts, "; "));
}

absl::StatusOr<std::string> DeleteNode(Objects& objects, const WhatifEdit& e) {
  if (!NodeExists(objects, e.name)) {
    return absl::NotFoundError(absl::StrCat("delete-node: node \"", e.name, "\" not found"));
  }
  const std::vector<std::string> parts = Evict(objects, e.name, [](const api::Pod&) { return true; });
  objects.Remove<api::Node>([&](const api::Node& n) { return n.metadata.name.value_or("") == e.name; });
  const size_t slices =
      objects.Remove<api::ResourceSlice>([&](const api::ResourceSlice& s) { return NodeLocalTo(s, e.name); });
  return absl::StrCat("delete-node ", e.name, ": deleted with ", slices,
                      slices == 1 ? " ResourceSlice; " : " ResourceSlices; ", absl::StrJoin(parts, "; "));
}

}  // namespace

std::string_view WhatifEditKindName(WhatifEditKind kind) {
  switch (kind) {
    case WhatifEditKind::kAddNodes:
      return "add-nodes";
    case WhatifEditKind::kDeleteClaim:
      return "delete-claim";
    case WhatifEditKind::kDeletePod:
      return "delete-pod";
    case WhatifEditKind::kDrainNode:
      return "drain-node";
    case WhatifEditKind::kDeleteNode:
      return "delete-node";
    case WhatifEditKind::kTaintDevices:
      return "taint-devices";
    case WhatifEditKind::kSetClassSelectors:
      return "set-class-selectors";
  }
  return "";
}

std::optional<WhatifEditKind> ParseWhatifEditKind(std::string_view name) {
  for (WhatifEditKind k : {WhatifEditKind::kAddNodes, WhatifEditKind::kDeleteClaim, WhatifEditKind::kDeletePod,
                           WhatifEditKind::kDrainNode, WhatifEditKind::kDeleteNode, WhatifEditKind::kTaintDevices,
                           WhatifEditKind::kSetClassSelectors}) {
    if (WhatifEditKindName(k) == name) return k;
  }
  return std::nullopt;
}

absl::StatusOr<WhatifEditResult> ApplyWhatifEdits(const store::Snapshot& snapshot,
                                                  const std::vector<WhatifEdit>& edits) {
  Objects objects(snapshot);
  WhatifEditResult out;
  for (const WhatifEdit& e : edits) {
    absl::StatusOr<std::string> change;
    switch (e.kind) {
      case WhatifEditKind::kAddNodes:
        change = AddNodes(objects, e);
        break;
      case WhatifEditKind::kDeleteClaim:
        change = DeleteClaim(objects, e);
        break;
      case WhatifEditKind::kDeletePod:
        change = DeletePod(objects, e);
        break;
      case WhatifEditKind::kDrainNode:
        change = DrainNode(objects, e);
        break;
      case WhatifEditKind::kDeleteNode:
        change = DeleteNode(objects, e);
        break;
      case WhatifEditKind::kTaintDevices:
        change = TaintDevices(objects, e);
        break;
      case WhatifEditKind::kSetClassSelectors:
        change = SetClassSelectors(objects, e);
        break;
    }
    if (!change.ok()) return change.status();
    out.changes.push_back(*std::move(change));
  }
  auto cluster = std::make_shared<store::Cluster>();
  RETURN_IF_ERROR(cluster->Replace(objects.Take(), snapshot.resource_version()));
  out.snapshot = cluster->snapshot();
  return out;
}

namespace {

// Decodes `v` (an object of kind T, as the API server would take it) for edit field `at`.
template <typename T>
absl::StatusOr<T> DecodeAs(const rapidjson::Value& v, const std::string& at, const char* kind) {
  if (!v.IsObject()) return absl::InvalidArgumentError(absl::StrCat(at, ": expected a ", kind, " object"));
  api::DecodeOptions options;
  auto o = api::DecodeObject(v, options, nullptr);
  if (!o.ok()) return absl::InvalidArgumentError(absl::StrCat(at, ": ", o.status().message()));
  T* t = std::get_if<T>(&o->value);
  if (t == nullptr) return absl::InvalidArgumentError(absl::StrCat(at, ": expected kind ", kind));
  if (t->metadata.name.value_or("").empty()) {
    return absl::InvalidArgumentError(absl::StrCat(at, ".metadata.name: expected a non-empty string"));
  }
  return std::move(*t);
}

// add-nodes of a template: "node" and "slices" (each local to the node).
absl::Status ParseTemplate(const rapidjson::Value& v, const std::string& at, WhatifEdit& e) {
  ASSIGN_OR_RETURN(e.node_template, DecodeAs<api::Node>(v["node"], at + ".node", "Node"));
  e.name = *e.node_template->metadata.name;
  auto slices = v.FindMember("slices");
  if (slices == v.MemberEnd()) return absl::OkStatus();
  if (!slices->value.IsArray()) return absl::InvalidArgumentError(absl::StrCat(at, ".slices: expected an array"));
  for (rapidjson::SizeType j = 0; j < slices->value.Size(); ++j) {
    const std::string sat = absl::StrCat(at, ".slices[", j, "]");
    ASSIGN_OR_RETURN(api::ResourceSlice s, DecodeAs<api::ResourceSlice>(slices->value[j], sat, "ResourceSlice"));
    if (!NodeLocalTo(s, e.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(sat, ".spec.nodeName: expected \"", e.name, "\", the template node's name"));
    }
    e.slice_templates.push_back(std::move(s));
  }
  return absl::OkStatus();
}

// set-class-selectors: "selectors", decoded as a DeviceClass's spec.selectors.
absl::Status ParseSelectors(const rapidjson::Value& v, const std::string& at, WhatifEdit& e) {
  auto it = v.FindMember("selectors");
  if (it == v.MemberEnd() || !it->value.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(at, ".selectors: expected an array of device selectors"));
  }
  rapidjson::Document klass(rapidjson::kObjectType);
  auto& a = klass.GetAllocator();
  rapidjson::Value meta(rapidjson::kObjectType), spec(rapidjson::kObjectType), selectors;
  meta.AddMember("name", rapidjson::Value(e.name.c_str(), a), a);
  selectors.CopyFrom(it->value, a);
  spec.AddMember("selectors", selectors, a);
  klass.AddMember("apiVersion", "resource.k8s.io/v1", a);
  klass.AddMember("kind", "DeviceClass", a);
  klass.AddMember("metadata", meta, a);
  klass.AddMember("spec", spec, a);
  ASSIGN_OR_RETURN(api::DeviceClass c, DecodeAs<api::DeviceClass>(klass, at, "DeviceClass"));
  e.selectors = c.spec ? c.spec->selectors : std::vector<api::DeviceSelector>{};
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<WhatifEdit>> ParseWhatifEdits(std::string_view json) {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsArray()) return absl::InvalidArgumentError("edits: expected a JSON array of edits");
  std::vector<WhatifEdit> out;
  for (rapidjson::SizeType i = 0; i < d.Size(); ++i) {
    const rapidjson::Value& v = d[i];
    const std::string at = absl::StrCat("edits[", i, "]");
    if (!v.IsObject()) return absl::InvalidArgumentError(absl::StrCat(at, ": expected object"));
    auto str = [&](const char* field, std::string& dst) -> absl::Status {
      auto it = v.FindMember(field);
      if (it == v.MemberEnd() || !it->value.IsString() || it->value.GetStringLength() == 0) {
        return absl::InvalidArgumentError(absl::StrCat(at, ".", field, ": expected a non-empty string"));
      }
      dst.assign(it->value.GetString(), it->value.GetStringLength());
      return absl::OkStatus();
    };
    std::string op;
    RETURN_IF_ERROR(str("op", op));
    auto kind = ParseWhatifEditKind(op);
    if (!kind) {
      return absl::InvalidArgumentError(absl::StrCat(at, ".op: unknown edit \"", op,
                                                     "\" (add-nodes, delete-claim, delete-pod, drain-node, "
                                                     "delete-node, taint-devices, set-class-selectors)"));
    }
    WhatifEdit e;
    e.kind = *kind;
    switch (e.kind) {
      case WhatifEditKind::kAddNodes: {
        if (v.HasMember("node")) {
          if (v.HasMember("like")) return absl::InvalidArgumentError(absl::StrCat(at, ": give either like or node"));
          RETURN_IF_ERROR(ParseTemplate(v, at, e));
        } else {
          RETURN_IF_ERROR(str("like", e.name));
        }
        auto it = v.FindMember("count");
        if (it == v.MemberEnd() || !it->value.IsInt64() || it->value.GetInt64() < 1) {
          return absl::InvalidArgumentError(absl::StrCat(at, ".count: expected an integer of at least 1"));
        }
        e.count = it->value.GetInt64();
        break;
      }
      case WhatifEditKind::kTaintDevices: {
        auto it = v.FindMember("rule");
        if (it == v.MemberEnd()) return absl::InvalidArgumentError(absl::StrCat(at, ".rule: expected a DeviceTaintRule"));
        ASSIGN_OR_RETURN(e.taint_rule, DecodeAs<api::DeviceTaintRule>(it->value, at + ".rule", "DeviceTaintRule"));
        if (!e.taint_rule->spec || !e.taint_rule->spec->taint) {
          return absl::InvalidArgumentError(absl::StrCat(at, ".rule.spec.taint: required"));
        }
        e.name = *e.taint_rule->metadata.name;
        break;
      }
      case WhatifEditKind::kSetClassSelectors:
        RETURN_IF_ERROR(str("name", e.name));
        RETURN_IF_ERROR(ParseSelectors(v, at, e));
        break;
      default:
        RETURN_IF_ERROR(str("name", e.name));
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace draforge::alloc
