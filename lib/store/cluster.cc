#include "store/cluster.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace draforge::store {
namespace {

using internal::AllocMap;
using internal::AllocRef;
using internal::NameKey;
using internal::ObjectMap;
using internal::ObjectPtr;
using internal::OwnedKey;
using internal::PoolData;
using internal::SliceSet;
using internal::State;
using internal::ViewKey;

constexpr size_t kOtherIndex = internal::kTypedKinds;

// O: std::optional<std::string> or api::BoxedOptional<std::string> (a view into the object, never
// into a temporary copy).
template <typename O>
std::string_view OptView(const O& s) {
  return s.has_value() ? std::string_view(*s) : std::string_view();
}

// resourceVersion as an unsigned integer, when it is one (digits only, no overflow).
std::optional<uint64_t> ParseResourceVersion(std::string_view rv) {
  if (rv.empty() || rv.size() > 20) return std::nullopt;
  uint64_t value = 0;
  for (const char c : rv) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// Whether `incoming` is older than `stored`. resourceVersions are opaque to clients; comparing them
// as integers is what clients do for ordering within one watch, and anything else is accepted.
bool IsOlder(std::string_view incoming, std::string_view stored) {
  const auto a = ParseResourceVersion(incoming);
  const auto b = ParseResourceVersion(stored);
  return a.has_value() && b.has_value() && *a < *b;
}

size_t KindIndex(api::Kind kind) { return static_cast<size_t>(kind); }

// The API group of an apiVersion: "apps" for "apps/v1", "" for "v1".
std::string_view GroupOf(std::string_view api_version) {
  const size_t slash = api_version.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

std::string_view NamespaceKey(api::Kind kind, const api::ObjectMeta& meta) {
  return api::IsNamespaced(kind) ? OptView(meta.namespace_) : std::string_view();
}

// The primary key of a typed object; views into the object.
NameKey KeyOf(const api::Object& obj) {
  const api::ObjectMeta& meta = obj.metadata();
  return NameKey{NamespaceKey(obj.kind(), meta), OptView(meta.name)};
}

ViewKey<4> OtherKeyOf(const api::Object& obj) {
  const auto& other = std::get<api::OtherObject>(obj.value);
  const api::ObjectMeta& meta = obj.metadata();
  return ViewKey<4>{GroupOf(other.api_version), other.kind, OptView(meta.namespace_), OptView(meta.name)};
}

std::string_view ObjectResourceVersion(const api::Object& obj) { return OptView(obj.metadata().resource_version); }

// A readable identity for messages: `ResourceClaim "ns/name"`.
std::string Describe(const api::Object& obj) {
  std::string_view kind = obj.kind_name();
  if (kind.empty()) kind = "object";
  return absl::StrCat(AV(kind), " \"", obj.Key(), "\"");
}

// Fills in the default namespace and rejects objects without a name.
absl::Status Normalize(api::Object& obj, const ClusterOptions& options) {
  api::ObjectMeta& meta = obj.metadata();
  std::string_view kind = obj.kind_name();
  if (kind.empty()) kind = "object";
  if (!meta.name.has_value() || meta.name->empty()) {
    std::string where;
    if (meta.generate_name.has_value() && !meta.generate_name->empty()) {
      where = absl::StrCat(" (generateName \"", *meta.generate_name, "\" is resolved by the API server only)");
    }
    return absl::InvalidArgumentError(absl::StrCat(AV(kind), ": metadata.name is required", where));
  }
  if (api::IsNamespaced(obj.kind()) && (!meta.namespace_.has_value() || meta.namespace_->empty())) {
    meta.namespace_ = options.default_namespace;
  }
  return absl::OkStatus();
}

// --- nested index helpers: outer key -> inner map of objects ----------------------------------------

template <typename Outer, size_t N, typename Inner>
void NestedSet(Outer& outer, const ViewKey<N>& okey, const typename Inner::View& ikey, const ObjectPtr& obj) {
  const Inner* found = outer.Find(okey);
  Inner inner = found != nullptr ? *found : Inner();
  inner.Set(ikey, obj);
  outer.Set(OwnedKey<N>(okey), std::move(inner));
}

template <typename Outer, size_t N, typename Inner>
void NestedErase(Outer& outer, const ViewKey<N>& okey, const typename Inner::View& ikey) {
  const Inner* found = outer.Find(okey);
  if (found == nullptr) return;
  Inner inner = *found;
  if (!inner.Erase(ikey)) return;
  if (inner.empty()) {
    outer.Erase(okey);
  } else {
    outer.Set(OwnedKey<N>(okey), std::move(inner));
  }
}

// --- ResourceSlices ---------------------------------------------------------------------------------

std::shared_ptr<const PoolInfo> ComputePool(const SliceSet& slices) {
  auto info = std::make_shared<PoolInfo>();
  bool first = true;
  std::vector<const api::ResourceSlice*> all;
  all.reserve(slices.size());
  slices.ForEach([&](const ViewKey<1>&, const ObjectPtr& obj) {
    const auto& slice = std::get<api::ResourceSlice>(obj->value);
    all.push_back(&slice);
    const int64_t gen = slice.spec && slice.spec->pool ? slice.spec->pool->generation.value_or(0) : 0;
    if (first || gen > info->generation) info->generation = gen;
    first = false;
  });
  for (const api::ResourceSlice* slice : all) {
    const int64_t gen = slice->spec && slice->spec->pool ? slice->spec->pool->generation.value_or(0) : 0;
    if (gen == info->generation) {
      info->slices.push_back(slice);
    } else {
      ++info->stale_slices;
    }
  }
  if (info->slices.empty()) return info;
  const api::ResourceSlice& head = *info->slices.front();
  if (head.spec) {
    info->driver = OptView(head.spec->driver);
    if (head.spec->pool) {
      info->pool = OptView(head.spec->pool->name);
      info->resource_slice_count = head.spec->pool->resource_slice_count.value_or(0);
    }
  }
  info->complete = static_cast<int64_t>(info->slices.size()) == info->resource_slice_count;
  absl::flat_hash_set<std::string_view> names;
  bool same_node = true;
  std::string_view node;
  for (size_t i = 0; i < info->slices.size(); ++i) {
    const api::ResourceSlice& slice = *info->slices[i];
    const std::string_view slice_node = slice.spec ? OptView(slice.spec->node_name) : std::string_view();
    if (i == 0) node = slice_node;
    if (slice_node.empty() || slice_node != node) same_node = false;
    if (!slice.spec) continue;
    for (const api::Device& device : slice.spec->devices) {
      ++info->device_count;
      const std::string_view name = OptView(device.name);
      if (!names.insert(name).second && !info->invalid) {
        info->invalid = true;
        info->invalid_reason = absl::StrCat("duplicate device name ", AV(name));
      }
    }
  }
  if (same_node) info->node_name = node;
  return info;
}

void IndexSlice(State& s, const ObjectPtr& obj, bool add) {
  const auto& slice = std::get<api::ResourceSlice>(obj->value);
  const std::string_view name = OptView(slice.metadata.name);
  const std::string_view driver = slice.spec ? OptView(slice.spec->driver) : std::string_view();
  const std::string_view pool = slice.spec && slice.spec->pool ? OptView(slice.spec->pool->name) : std::string_view();
  const std::string_view node = slice.spec ? OptView(slice.spec->node_name) : std::string_view();
  const ViewKey<1> ikey{name};

  if (add) {
    NestedSet<internal::SlicesByString, 1, SliceSet>(s.slices_by_driver, ViewKey<1>{driver}, ikey, obj);
    if (!node.empty()) NestedSet<internal::SlicesByString, 1, SliceSet>(s.slices_by_node, ViewKey<1>{node}, ikey, obj);
  } else {
    NestedErase<internal::SlicesByString, 1, SliceSet>(s.slices_by_driver, ViewKey<1>{driver}, ikey);
    if (!node.empty()) NestedErase<internal::SlicesByString, 1, SliceSet>(s.slices_by_node, ViewKey<1>{node}, ikey);
  }

  const ViewKey<2> pkey{driver, pool};
  const PoolData* found = s.pools.Find(pkey);
  PoolData data = found != nullptr ? *found : PoolData();
  if (add) {
    data.slices.Set(ikey, obj);
  } else if (!data.slices.Erase(ikey)) {
    return;
  }
  if (data.slices.empty()) {
    s.pools.Erase(pkey);
    return;
  }
  data.info = ComputePool(data.slices);
  s.pools.Set(OwnedKey<2>(pkey), std::move(data));
}

// --- ResourceClaims ---------------------------------------------------------------------------------

ViewKey<4> AllocKeyOf(const api::DeviceRequestAllocationResult& r) {
  return ViewKey<4>{OptView(r.driver), OptView(r.pool), OptView(r.device), OptView(r.share_id)};
}

bool AllocRefLess(const AllocRef& a, const AllocRef& b) {
  if (a.claim.get() != b.claim.get()) return KeyOf(*a.claim) < KeyOf(*b.claim);
  return std::less<const void*>()(a.result, b.result);  // results of one claim: in list order
}

bool IsPodRef(const api::ResourceClaimConsumerReference& ref) {
  return OptView(ref.resource) == "pods" && OptView(ref.api_group).empty();
}

void IndexClaim(State& s, const ObjectPtr& obj, bool add) {
  const auto& claim = std::get<api::ResourceClaim>(obj->value);
  if (!claim.status) return;
  const std::string_view ns = OptView(claim.metadata.namespace_);
  const NameKey ckey = KeyOf(*obj);

  if (claim.status->allocation && claim.status->allocation->devices) {
    for (const api::DeviceRequestAllocationResult& result : claim.status->allocation->devices->results) {
      const ViewKey<4> key = AllocKeyOf(result);
      const std::vector<AllocRef>* found = s.allocations.Find(key);
      std::vector<AllocRef> refs = found != nullptr ? *found : std::vector<AllocRef>();
      if (add) {
        AllocRef ref{obj, &result};
        refs.insert(std::upper_bound(refs.begin(), refs.end(), ref, AllocRefLess), std::move(ref));
      } else {
        const size_t before = refs.size();
        std::erase_if(refs, [&](const AllocRef& r) { return r.result == &result; });
        if (refs.size() == before) continue;
      }
      if (refs.empty()) {
        s.allocations.Erase(key);
      } else {
        // Re-anchor the key's views in the first result, which the entry keeps alive.
        const ViewKey<4> anchored = AllocKeyOf(*refs.front().result);
        s.allocations.Set(anchored, std::move(refs));
      }
    }
  }

  for (const api::ResourceClaimConsumerReference& ref : claim.status->reserved_for) {
    if (!IsPodRef(ref)) continue;
    const ViewKey<2> pod_key{ns, OptView(ref.name)};
    if (add) {
      NestedSet<internal::ObjectsByOwned2, 2, ObjectMap>(s.claims_by_reserved_pod, pod_key, ckey, obj);
    } else {
      NestedErase<internal::ObjectsByOwned2, 2, ObjectMap>(s.claims_by_reserved_pod, pod_key, ckey);
    }
  }
}

// --- Pods ---------------------------------------------------------------------------------------------

void IndexPod(State& s, const ObjectPtr& obj, bool add) {
  const auto& pod = std::get<api::Pod>(obj->value);
  const std::string_view ns = OptView(pod.metadata.namespace_);
  const NameKey pkey = KeyOf(*obj);
  for (const PodClaimRef& ref : ResolvePodClaims(pod)) {
    if (ref.claim_name.empty()) continue;
    const ViewKey<2> claim_key{ns, ref.claim_name};
    if (add) {
      NestedSet<internal::ObjectsByOwned2, 2, ObjectMap>(s.pods_by_claim, claim_key, pkey, obj);
    } else {
      NestedErase<internal::ObjectsByOwned2, 2, ObjectMap>(s.pods_by_claim, claim_key, pkey);
    }
  }
  const std::string_view node = pod.spec ? OptView(pod.spec->node_name) : std::string_view();
  if (!node.empty()) {
    if (add) {
      NestedSet<internal::ObjectsByOwned1, 1, ObjectMap>(s.pods_by_node, ViewKey<1>{node}, pkey, obj);
    } else {
      NestedErase<internal::ObjectsByOwned1, 1, ObjectMap>(s.pods_by_node, ViewKey<1>{node}, pkey);
    }
  }
}

void Index(State& s, const ObjectPtr& obj, bool add) {
  switch (obj->kind()) {
    case api::Kind::kResourceSlice:
      IndexSlice(s, obj, add);
      break;
    case api::Kind::kResourceClaim:
      IndexClaim(s, obj, add);
      break;
    case api::Kind::kPod:
      IndexPod(s, obj, add);
      break;
    default:
      break;
  }
}

// Lookup of the stored object with `obj`'s identity.
const ObjectPtr* FindStored(const State& s, const api::Object& obj) {
  if (obj.kind() == api::Kind::kOther) return s.others.Find(OtherKeyOf(obj));
  return s.objects[KindIndex(obj.kind())].Find(KeyOf(obj));
}

void Remove(State& s, const ObjectPtr& old) {
  Index(s, old, /*add=*/false);
  if (old->kind() == api::Kind::kOther) {
    s.others.Erase(OtherKeyOf(*old));
  } else {
    s.objects[KindIndex(old->kind())].Erase(KeyOf(*old));
  }
}

void Store(State& s, const ObjectPtr* old, ObjectPtr obj) {
  if (old != nullptr) {
    const ObjectPtr keep = *old;  // `old` points into the map we are about to change
    Index(s, keep, /*add=*/false);
  }
  if (obj->kind() == api::Kind::kOther) {
    s.others.Set(OtherKeyOf(*obj), obj);
  } else {
    s.objects[KindIndex(obj->kind())].Set(KeyOf(*obj), obj);
  }
  Index(s, obj, /*add=*/true);
}

void RecordResourceVersion(State& s, size_t kind_index, std::string_view rv) {
  if (rv.empty()) return;
  s.resource_version = std::string(rv);
  s.kind_resource_version[kind_index] = std::string(rv);
}

// A key that identifies an object across kinds, for duplicate detection in Replace.
std::string IdentityOf(const api::Object& obj) {
  if (obj.kind() == api::Kind::kOther) {
    const ViewKey<4> k = OtherKeyOf(obj);
    return absl::StrCat(KindIndex(obj.kind()), "\n", AV(k[0]), "\n", AV(k[1]), "\n", AV(k[2]), "\n", AV(k[3]));
  }
  const NameKey k = KeyOf(obj);
  return absl::StrCat(KindIndex(obj.kind()), "\n", AV(k[0]), "\n", AV(k[1]));
}

template <typename T>
const T* As(const api::Object* obj) {
  return obj == nullptr ? nullptr : std::get_if<T>(&obj->value);
}

template <typename T>
std::vector<const T*> ListAs(const ObjectMap& map, std::string_view ns) {
  std::vector<const T*> out;
  if (ns.empty()) {
    out.reserve(map.size());
    map.ForEach([&](const NameKey&, const ObjectPtr& obj) { out.push_back(&std::get<T>(obj->value)); });
    return out;
  }
  map.ForEachFrom(NameKey{ns, {}}, [&](const NameKey& key, const ObjectPtr& obj) {
    if (key[0] != ns) return false;
    out.push_back(&std::get<T>(obj->value));
    return true;
  });
  return out;
}

std::vector<const api::ResourceSlice*> SliceList(const SliceSet* set) {
  std::vector<const api::ResourceSlice*> out;
  if (set == nullptr) return out;
  out.reserve(set->size());
  set->ForEach([&](const ViewKey<1>&, const ObjectPtr& obj) {
    out.push_back(&std::get<api::ResourceSlice>(obj->value));
  });
  return out;
}

AllocatedDevice MakeAllocated(const AllocRef& ref) {
  const auto& claim = std::get<api::ResourceClaim>(ref.claim->value);
  AllocatedDevice out;
  out.driver = OptView(ref.result->driver);
  out.pool = OptView(ref.result->pool);
  out.device = OptView(ref.result->device);
  out.share_id = OptView(ref.result->share_id);
  out.claim = &claim;
  out.claim_namespace = OptView(claim.metadata.namespace_);
  out.claim_name = OptView(claim.metadata.name);
  out.result = ref.result;
  out.admin_access = ref.result->admin_access.value_or(false);
  return out;
}

}  // namespace

// --- free functions ---------------------------------------------------------------------------------

std::string_view EventTypeName(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
    case EventType::kBookmark:
      return "BOOKMARK";
  }
  return "";
}

std::optional<EventType> ParseEventType(std::string_view name) {
  for (EventType t : {EventType::kAdded, EventType::kModified, EventType::kDeleted, EventType::kBookmark}) {
    if (EventTypeName(t) == name) return t;
  }
  return std::nullopt;
}

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kAdded:
      return "added";
    case Outcome::kUpdated:
      return "updated";
    case Outcome::kDeleted:
      return "deleted";
    case Outcome::kUnchanged:
      return "unchanged";
    case Outcome::kIgnoredStale:
      return "ignored-stale";
    case Outcome::kNotFound:
      return "not-found";
    case Outcome::kBookmark:
      return "bookmark";
  }
  return "";
}

std::vector<PodClaimRef> ResolvePodClaims(const api::Pod& pod) {
  std::vector<PodClaimRef> out;
  if (!pod.spec) return out;
  out.reserve(pod.spec->resource_claims.size());
  for (const api::PodResourceClaim& entry : pod.spec->resource_claims) {
    PodClaimRef ref;
    ref.name = OptView(entry.name);
    ref.template_name = OptView(entry.resource_claim_template_name);
    if (entry.resource_claim_name.has_value()) {
      ref.claim_name = *entry.resource_claim_name;
    } else if (entry.resource_claim_template_name.has_value() && pod.status) {
      for (const api::PodResourceClaimStatus& st : pod.status->resource_claim_statuses) {
        if (OptView(st.name) == ref.name) {
          ref.status_recorded = true;
          ref.claim_name = OptView(st.resource_claim_name);
          break;
        }
      }
    }
    out.push_back(ref);
  }
  return out;
}

bool ReservesPod(const api::ResourceClaimConsumerReference& ref, const api::Pod* pod, std::string_view pod_name) {
  if (!IsPodRef(ref) || OptView(ref.name) != pod_name) return false;
  if (pod != nullptr && ref.uid.has_value() && pod->metadata.uid.has_value() && *ref.uid != *pod->metadata.uid) {
    return false;  // a reservation for an earlier pod of the same name
  }
  return true;
}

// --- Snapshot ---------------------------------------------------------------------------------------

const std::string& Snapshot::resource_version(api::Kind kind) const {
  return state_.kind_resource_version[KindIndex(kind)];
}

size_t Snapshot::Count(api::Kind kind) const {
  if (kind == api::Kind::kOther) return state_.others.size();
  return state_.objects[KindIndex(kind)].size();
}

const api::Object* Snapshot::Get(api::Kind kind, std::string_view ns, std::string_view name) const {
  if (kind == api::Kind::kOther) return nullptr;
  const ObjectPtr* obj =
      state_.objects[KindIndex(kind)].Find(NameKey{api::IsNamespaced(kind) ? ns : std::string_view(), name});
  return obj == nullptr ? nullptr : obj->get();
}

std::shared_ptr<const api::Object> Snapshot::GetShared(api::Kind kind, std::string_view ns,
                                                      std::string_view name) const {
  if (kind == api::Kind::kOther) return nullptr;
  const ObjectPtr* obj =
      state_.objects[KindIndex(kind)].Find(NameKey{api::IsNamespaced(kind) ? ns : std::string_view(), name});
  return obj == nullptr ? nullptr : *obj;
}

const api::Object* Snapshot::GetOther(std::string_view group, std::string_view kind, std::string_view ns,
                                      std::string_view name) const {
  const ObjectPtr* obj = state_.others.Find(ViewKey<4>{group, kind, ns, name});
  return obj == nullptr ? nullptr : obj->get();
}

std::vector<const api::Object*> Snapshot::List(api::Kind kind, std::string_view ns) const {
  std::vector<const api::Object*> out;
  if (kind == api::Kind::kOther) {
    out.reserve(state_.others.size());
    state_.others.ForEach([&](const ViewKey<4>& key, const ObjectPtr& obj) {
      if (ns.empty() || key[2] == ns) out.push_back(obj.get());
    });
    return out;
  }
  const ObjectMap& map = state_.objects[KindIndex(kind)];
  if (ns.empty() || !api::IsNamespaced(kind)) {
    out.reserve(map.size());
    map.ForEach([&](const NameKey&, const ObjectPtr& obj) { out.push_back(obj.get()); });
    return out;
  }
  map.ForEachFrom(NameKey{ns, {}}, [&](const NameKey& key, const ObjectPtr& obj) {
    if (key[0] != ns) return false;
    out.push_back(obj.get());
    return true;
  });
  return out;
}

const api::DeviceClass* Snapshot::GetDeviceClass(std::string_view name) const {
  return As<api::DeviceClass>(Get(api::Kind::kDeviceClass, {}, name));
}
const api::ResourceClaim* Snapshot::GetResourceClaim(std::string_view ns, std::string_view name) const {
  return As<api::ResourceClaim>(Get(api::Kind::kResourceClaim, ns, name));
}
const api::ResourceClaimTemplate* Snapshot::GetResourceClaimTemplate(std::string_view ns, std::string_view name) const {
  return As<api::ResourceClaimTemplate>(Get(api::Kind::kResourceClaimTemplate, ns, name));
}
const api::ResourceSlice* Snapshot::GetResourceSlice(std::string_view name) const {
  return As<api::ResourceSlice>(Get(api::Kind::kResourceSlice, {}, name));
}
const api::DeviceTaintRule* Snapshot::GetDeviceTaintRule(std::string_view name) const {
  return As<api::DeviceTaintRule>(Get(api::Kind::kDeviceTaintRule, {}, name));
}
const api::Pod* Snapshot::GetPod(std::string_view ns, std::string_view name) const {
  return As<api::Pod>(Get(api::Kind::kPod, ns, name));
}
const api::Node* Snapshot::GetNode(std::string_view name) const {
  return As<api::Node>(Get(api::Kind::kNode, {}, name));
}

std::vector<const api::DeviceClass*> Snapshot::DeviceClasses() const {
  return ListAs<api::DeviceClass>(state_.objects[KindIndex(api::Kind::kDeviceClass)], {});
}
std::vector<const api::ResourceClaim*> Snapshot::ResourceClaims(std::string_view ns) const {
  return ListAs<api::ResourceClaim>(state_.objects[KindIndex(api::Kind::kResourceClaim)], ns);
}
std::vector<const api::ResourceClaimTemplate*> Snapshot::ResourceClaimTemplates(std::string_view ns) const {
  return ListAs<api::ResourceClaimTemplate>(state_.objects[KindIndex(api::Kind::kResourceClaimTemplate)], ns);
}
std::vector<const api::ResourceSlice*> Snapshot::ResourceSlices() const {
  return ListAs<api::ResourceSlice>(state_.objects[KindIndex(api::Kind::kResourceSlice)], {});
}
std::vector<const api::DeviceTaintRule*> Snapshot::DeviceTaintRules() const {
  return ListAs<api::DeviceTaintRule>(state_.objects[KindIndex(api::Kind::kDeviceTaintRule)], {});
}
std::vector<const api::Pod*> Snapshot::Pods(std::string_view ns) const {
  return ListAs<api::Pod>(state_.objects[KindIndex(api::Kind::kPod)], ns);
}
std::vector<const api::Node*> Snapshot::Nodes() const {
  return ListAs<api::Node>(state_.objects[KindIndex(api::Kind::kNode)], {});
}

std::vector<std::string_view> Snapshot::Drivers() const {
  std::vector<std::string_view> out;
  out.reserve(state_.slices_by_driver.size());
  // Views into the index's own (immutable, heap-allocated) nodes: valid while the Snapshot lives.
  state_.slices_by_driver.ForEach([&](const OwnedKey<1>& key, const SliceSet&) { out.push_back(key.parts[0]); });
  return out;
}

std::vector<const api::ResourceSlice*> Snapshot::SlicesByDriver(std::string_view driver) const {
  return SliceList(state_.slices_by_driver.Find(ViewKey<1>{driver}));
}

std::vector<const api::ResourceSlice*> Snapshot::SlicesByPool(std::string_view driver, std::string_view pool) const {
  const PoolData* data = state_.pools.Find(ViewKey<2>{driver, pool});
  return SliceList(data == nullptr ? nullptr : &data->slices);
}

std::vector<const api::ResourceSlice*> Snapshot::SlicesByNode(std::string_view node) const {
  return SliceList(state_.slices_by_node.Find(ViewKey<1>{node}));
}

std::vector<PoolInfo> Snapshot::Pools(std::string_view driver) const {
  std::vector<PoolInfo> out;
  if (driver.empty()) {
    out.reserve(state_.pools.size());
    state_.pools.ForEach([&](const OwnedKey<2>&, const PoolData& data) { out.push_back(*data.info); });
    return out;
  }
  state_.pools.ForEachFrom(ViewKey<2>{driver, {}}, [&](const OwnedKey<2>& key, const PoolData& data) {
    if (key.parts[0] != driver) return false;
    out.push_back(*data.info);
    return true;
  });
  return out;
}

std::optional<PoolInfo> Snapshot::GetPool(std::string_view driver, std::string_view pool) const {
  const PoolData* data = state_.pools.Find(ViewKey<2>{driver, pool});
  if (data == nullptr) return std::nullopt;
  return *data->info;
}

DeviceRef Snapshot::FindDevice(std::string_view driver, std::string_view pool, std::string_view device) const {
  const PoolData* data = state_.pools.Find(ViewKey<2>{driver, pool});
  if (data == nullptr) return {};
  for (const api::ResourceSlice* slice : data->info->slices) {
    if (!slice->spec) continue;
    for (const api::Device& d : slice->spec->devices) {
      if (OptView(d.name) == device) return DeviceRef{slice, &d};
    }
  }
  return {};
}

std::vector<const api::ResourceClaim*> Snapshot::ClaimsReservedFor(std::string_view ns, std::string_view pod) const {
  std::vector<const api::ResourceClaim*> out;
  const ObjectMap* claims = state_.claims_by_reserved_pod.Find(ViewKey<2>{ns, pod});
  if (claims == nullptr) return out;
  const api::Pod* stored = GetPod(ns, pod);
  claims->ForEach([&](const NameKey&, const ObjectPtr& obj) {
    const auto& claim = std::get<api::ResourceClaim>(obj->value);
    for (const auto& ref : claim.status->reserved_for) {
      if (ReservesPod(ref, stored, pod)) {
        out.push_back(&claim);
        break;
      }
    }
  });
  return out;
}

std::vector<PodClaim> Snapshot::ClaimsForPod(std::string_view ns, std::string_view pod_name) const {
  std::vector<PodClaim> out;
  const api::Pod* pod = GetPod(ns, pod_name);
  auto reserved = [&](const api::ResourceClaim* claim) {
    if (claim == nullptr || !claim->status) return false;
    for (const auto& ref : claim->status->reserved_for) {
      if (ReservesPod(ref, pod, pod_name)) return true;
    }
    return false;
  };
  if (pod != nullptr) {
    for (const PodClaimRef& ref : ResolvePodClaims(*pod)) {
      PodClaim pc;
      pc.ref = ref;
      if (!ref.claim_name.empty()) pc.claim = GetResourceClaim(ns, ref.claim_name);
      pc.reserved = reserved(pc.claim);
      out.push_back(pc);
    }
  }
  const size_t referenced = out.size();
  for (const api::ResourceClaim* claim : ClaimsReservedFor(ns, pod_name)) {
    const std::string_view name = OptView(claim->metadata.name);
    bool known = false;
    for (size_t i = 0; i < referenced; ++i) known = known || out[i].ref.claim_name == name;
    if (known) continue;
    PodClaim pc;
    pc.ref.claim_name = name;
    pc.claim = claim;
    pc.reserved = true;
    out.push_back(pc);
  }
  return out;
}

std::vector<const api::Pod*> Snapshot::PodsForClaim(std::string_view ns, std::string_view claim_name) const {
  std::vector<const api::Pod*> out;
  if (const ObjectMap* pods = state_.pods_by_claim.Find(ViewKey<2>{ns, claim_name})) {
    pods->ForEach([&](const NameKey&, const ObjectPtr& obj) { out.push_back(&std::get<api::Pod>(obj->value)); });
  }
  const api::ResourceClaim* claim = GetResourceClaim(ns, claim_name);
  if (claim != nullptr && claim->status) {
    for (const auto& ref : claim->status->reserved_for) {
      if (!IsPodRef(ref)) continue;
      const api::Pod* pod = GetPod(ns, OptView(ref.name));
      if (pod == nullptr || !ReservesPod(ref, pod, OptView(ref.name))) continue;
      if (std::find(out.begin(), out.end(), pod) == out.end()) out.push_back(pod);
    }
  }
  std::sort(out.begin(), out.end(), [](const api::Pod* a, const api::Pod* b) {
    return OptView(a->metadata.name) < OptView(b->metadata.name);
  });
  return out;
}

std::vector<const api::Pod*> Snapshot::PodsOnNode(std::string_view node) const {
  std::vector<const api::Pod*> out;
  if (const ObjectMap* pods = state_.pods_by_node.Find(ViewKey<1>{node})) {
    pods->ForEach([&](const NameKey&, const ObjectPtr& obj) { out.push_back(&std::get<api::Pod>(obj->value)); });
  }
  return out;
}

std::vector<AllocatedDevice> Snapshot::Allocations(std::string_view driver, std::string_view pool,
                                                   std::string_view device) const {
  std::vector<AllocatedDevice> out;
  state_.allocations.ForEachFrom(ViewKey<4>{driver, pool, device, {}},
                                 [&](const ViewKey<4>& key, const std::vector<AllocRef>& refs) {
                                   if (key[0] != driver || key[1] != pool || key[2] != device) return false;
                                   for (const AllocRef& ref : refs) out.push_back(MakeAllocated(ref));
                                   return true;
                                 });
  return out;
}

std::vector<AllocatedDevice> Snapshot::AllAllocations() const {
  std::vector<AllocatedDevice> out;
  state_.allocations.ForEach([&](const ViewKey<4>&, const std::vector<AllocRef>& refs) {
    for (const AllocRef& ref : refs) out.push_back(MakeAllocated(ref));
  });
  return out;
}

bool Snapshot::InUse(std::string_view driver, std::string_view pool, std::string_view device) const {
  bool in_use = false;
  state_.allocations.ForEachFrom(ViewKey<4>{driver, pool, device, {}},
                                 [&](const ViewKey<4>& key, const std::vector<AllocRef>& refs) {
                                   if (key[0] != driver || key[1] != pool || key[2] != device) return false;
                                   for (const AllocRef& ref : refs) {
                                     if (!ref.result->admin_access.value_or(false)) in_use = true;
                                   }
                                   return !in_use;
                                 });
  return in_use;
}

std::vector<const api::DeviceTaintRule*> Snapshot::TaintRulesFor(std::string_view driver, std::string_view pool,
                                                                std::string_view device,
                                                                bool no_selector_matches_all) const {
  std::vector<const api::DeviceTaintRule*> out;
  for (const api::DeviceTaintRule* rule : DeviceTaintRules()) {
    if (!rule->spec) continue;
    if (!rule->spec->device_selector) {
      if (no_selector_matches_all) out.push_back(rule);
      continue;
    }
    const api::DeviceTaintSelector& sel = *rule->spec->device_selector;
    if (sel.driver.has_value() && *sel.driver != driver) continue;
    if (sel.pool.has_value() && *sel.pool != pool) continue;
    if (sel.device.has_value() && *sel.device != device) continue;
    out.push_back(rule);
  }
  return out;
}

// --- Cluster ----------------------------------------------------------------------------------------

Cluster::Cluster(ClusterOptions options) : options_(std::move(options)) {
  absl::MutexLock lock(&write_mu_);
  PublishLocked();
}

std::shared_ptr<const Snapshot> Cluster::snapshot() const {
  absl::MutexLock lock(&snapshot_mu_);
  return current_;
}

void Cluster::PublishLocked() {
  auto next = std::make_shared<const Snapshot>(state_);
  {
    absl::MutexLock lock(&snapshot_mu_);
    current_.swap(next);
  }
  // `next` now holds the previous snapshot; if it was the last reference, its nodes are freed here,
  // outside snapshot_mu_.
}

absl::Status Cluster::Apply(api::Object obj, Outcome* outcome) {
  absl::MutexLock lock(&write_mu_);
  return ApplyLocked(std::move(obj), outcome);
}

absl::Status Cluster::ApplyLocked(api::Object obj, Outcome* outcome) {
  Outcome dummy;
  Outcome& out = outcome != nullptr ? *outcome : dummy;
  RETURN_IF_ERROR(Normalize(obj, options_));
  const ObjectPtr* stored = FindStored(state_, obj);
  if (stored != nullptr) {
    if (IsOlder(ObjectResourceVersion(obj), ObjectResourceVersion(**stored))) {
      out = Outcome::kIgnoredStale;
      return absl::OkStatus();
    }
    if (**stored == obj) {
      out = Outcome::kUnchanged;
      return absl::OkStatus();
    }
  }
  out = stored != nullptr ? Outcome::kUpdated : Outcome::kAdded;
  const size_t kind_index = KindIndex(obj.kind());
  auto ptr = std::make_shared<const api::Object>(std::move(obj));
  Store(state_, stored, ptr);
  RecordResourceVersion(state_, kind_index, ObjectResourceVersion(*ptr));
  ++state_.generation;
  PublishLocked();
  return absl::OkStatus();
}

absl::Status Cluster::Delete(api::Kind kind, std::string_view ns, std::string_view name,
                             std::string_view resource_version, Outcome* outcome) {
  if (kind == api::Kind::kOther) {
    return absl::InvalidArgumentError("Delete: objects of kinds DRAForge does not model need DeleteObject");
  }
  absl::MutexLock lock(&write_mu_);
  return DeleteLocked(kind, {}, {}, ns, name, resource_version, outcome);
}

absl::Status Cluster::DeleteObject(const api::Object& obj, Outcome* outcome) {
  const api::ObjectMeta& meta = obj.metadata();
  absl::MutexLock lock(&write_mu_);
  if (obj.kind() == api::Kind::kOther) {
    const ViewKey<4> key = OtherKeyOf(obj);
    return DeleteLocked(api::Kind::kOther, key[0], key[1], key[2], key[3], OptView(meta.resource_version), outcome);
  }
  return DeleteLocked(obj.kind(), {}, {}, OptView(meta.namespace_), OptView(meta.name),
                      OptView(meta.resource_version), outcome);
}

absl::Status Cluster::DeleteLocked(api::Kind kind, std::string_view group, std::string_view other_kind,
                                   std::string_view ns, std::string_view name, std::string_view resource_version,
                                   Outcome* outcome) {
  Outcome dummy;
  Outcome& out = outcome != nullptr ? *outcome : dummy;
  if (name.empty()) {
    std::string_view kind_name = kind == api::Kind::kOther ? other_kind : api::KindName(kind);
    if (kind_name.empty()) kind_name = "object";
    return absl::InvalidArgumentError(absl::StrCat(AV(kind_name), ": delete needs metadata.name"));
  }
  const ObjectPtr* stored = nullptr;
  if (kind == api::Kind::kOther) {
    stored = state_.others.Find(ViewKey<4>{group, other_kind, ns, name});
  } else {
    if (!api::IsNamespaced(kind)) {
      ns = {};
    } else if (ns.empty()) {
      ns = options_.default_namespace;
    }
    stored = state_.objects[KindIndex(kind)].Find(NameKey{ns, name});
  }
  if (stored == nullptr) {
    out = Outcome::kNotFound;
    return absl::OkStatus();
  }
  if (IsOlder(resource_version, ObjectResourceVersion(**stored))) {
    out = Outcome::kIgnoredStale;
    return absl::OkStatus();
  }
  const std::string rv(resource_version);  // may view into the object being removed
  const ObjectPtr old = *stored;
  Remove(state_, old);
  RecordResourceVersion(state_, KindIndex(kind), rv);
  ++state_.generation;
  out = Outcome::kDeleted;
  PublishLocked();
  return absl::OkStatus();
}

absl::Status Cluster::ApplyEvent(EventType type, api::Object obj, Outcome* outcome) {
  switch (type) {
    case EventType::kAdded:
    case EventType::kModified:
      return Apply(std::move(obj), outcome);
    case EventType::kDeleted:
      return DeleteObject(obj, outcome);
    case EventType::kBookmark: {
      if (outcome != nullptr) *outcome = Outcome::kBookmark;
      const std::string_view rv = ObjectResourceVersion(obj);
      if (rv.empty()) return absl::OkStatus();
      absl::MutexLock lock(&write_mu_);
      if (state_.resource_version == rv && state_.kind_resource_version[KindIndex(obj.kind())] == rv) {
        return absl::OkStatus();
      }
      RecordResourceVersion(state_, KindIndex(obj.kind()), rv);
      ++state_.generation;
      PublishLocked();
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError("unknown watch event type");
}

absl::Status Cluster::Replace(std::vector<api::Object> objects, std::string resource_version, ReplaceStats* stats) {
  std::vector<api::Kind> all;
  for (size_t i = 0; i <= kOtherIndex; ++i) all.push_back(static_cast<api::Kind>(i));
  absl::MutexLock lock(&write_mu_);
  return ReplaceLocked(all, std::move(objects), std::move(resource_version), stats);
}

absl::Status Cluster::ReplaceKinds(const std::vector<api::Kind>& kinds, std::vector<api::Object> objects,
                                   std::string resource_version, ReplaceStats* stats) {
  absl::MutexLock lock(&write_mu_);
  return ReplaceLocked(kinds, std::move(objects), std::move(resource_version), stats);
}

absl::Status Cluster::ReplaceOthers(std::string_view group, std::string_view kind, std::vector<api::Object> objects,
                                    std::string resource_version, ReplaceStats* stats) {
  absl::MutexLock lock(&write_mu_);
  return ReplaceLocked({api::Kind::kOther}, std::move(objects), std::move(resource_version), stats, &group, &kind);
}

absl::Status Cluster::ReplaceLocked(const std::vector<api::Kind>& kinds, std::vector<api::Object> objects,
                                    std::string resource_version, ReplaceStats* stats,
                                    const std::string_view* other_group, const std::string_view* other_kind) {
  std::array<bool, kOtherIndex + 1> in_scope{};
  for (api::Kind k : kinds) in_scope[KindIndex(k)] = true;
  // Whether an opaque object is in scope: every one, or those of the one group and kind replaced.
  auto other_in_scope = [&](const api::Object& obj) {
    if (other_group == nullptr) return true;
    const ViewKey<4> k = OtherKeyOf(obj);
    return k[0] == *other_group && k[1] == *other_kind;
  };

  // Validate everything first so that a bad list changes nothing.
  absl::flat_hash_set<std::string> identities;
  identities.reserve(objects.size());
  for (size_t i = 0; i < objects.size(); ++i) {
    api::Object& obj = objects[i];
    if (!in_scope[KindIndex(obj.kind())] || (obj.kind() == api::Kind::kOther && !other_in_scope(obj))) {
      std::string_view kind = obj.kind_name();
      return absl::InvalidArgumentError(absl::StrCat("objects[", i, "]: ", AV(kind.empty() ? "object" : kind),
                                                     " is not one of the kinds being replaced"));
    }
    absl::Status st = Normalize(obj, options_);
    if (!st.ok()) return absl::InvalidArgumentError(absl::StrCat("objects[", i, "]: ", st.message()));
    if (!identities.insert(IdentityOf(obj)).second) {
      return absl::InvalidArgumentError(absl::StrCat("objects[", i, "]: ", Describe(obj), " appears twice"));
    }
  }

  ReplaceStats counts;
  bool changed = false;
  // Deletions: what is stored in scope and not listed. Iterate a copy of the map (a pointer copy)
  // while the working state changes.
  auto delete_missing = [&](const auto& map) {
    map.ForEach([&](const auto&, const ObjectPtr& obj) {
      if (identities.contains(IdentityOf(*obj))) return;
      if (obj->kind() == api::Kind::kOther && !other_in_scope(*obj)) return;
      Remove(state_, obj);
      ++counts.deleted;
      changed = true;
    });
  };
  for (size_t k = 0; k < internal::kTypedKinds; ++k) {
    if (in_scope[k]) {
      const ObjectMap copy = state_.objects[k];
      delete_missing(copy);
    }
  }
  if (in_scope[kOtherIndex]) {
    const internal::OtherMap copy = state_.others;
    delete_missing(copy);
  }

  for (api::Object& obj : objects) {
    const ObjectPtr* stored = FindStored(state_, obj);
    if (stored != nullptr && **stored == obj) {
      ++counts.unchanged;
      continue;
    }
    ++(stored != nullptr ? counts.updated : counts.added);
    Store(state_, stored, std::make_shared<const api::Object>(std::move(obj)));
    changed = true;
  }

  if (!resource_version.empty()) {
    for (size_t k = 0; k <= kOtherIndex; ++k) {
      if (in_scope[k] && state_.kind_resource_version[k] != resource_version) {
        state_.kind_resource_version[k] = resource_version;
        changed = true;
      }
    }
    if (state_.resource_version != resource_version) {
      state_.resource_version = std::move(resource_version);
      changed = true;
    }
  }
  if (stats != nullptr) *stats = counts;
  if (changed) {
    ++state_.generation;
    PublishLocked();
  }
  return absl::OkStatus();
}

}  // namespace draforge::store
