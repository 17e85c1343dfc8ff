// The C ABI over lib/store and lib/graph (include/draforge/cluster.h).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "api/manifests.h"
#include "capi/internal.h"
#include "common/status.h"
#include "draforge/cluster.h"
#include "graph/graph.h"
#include "rapidjson/document.h"
#include "common/json_string.h"

namespace draforge::capi {
namespace {

using Objects = std::vector<api::Object>;

// Decodes `text`, all or nothing (api::RequireDecoded), so that a caller never sees half of an
// input applied.
absl::StatusOr<Objects> DecodeAll(std::string_view text, std::string_view source) {
  ASSIGN_OR_RETURN(auto loaded, api::DecodeManifest(text, source, {}));
  return api::RequireDecoded(std::move(loaded));
}

absl::Status ApplyAll(store::Cluster& cluster, Objects objects) {
  // Names were checked while decoding, so Apply (which fails only for an empty name) cannot fail
  // half-way; a failure here is a bug, reported as one.
  for (api::Object& o : objects) {
    if (absl::Status s = cluster.Apply(std::move(o)); !s.ok()) {
      return absl::InternalError(absl::StrCat("applying a decoded object failed: ", s.message()));
    }
  }
  return absl::OkStatus();
}

// A file or a directory's manifests (api::LoadManifests), all or nothing.
absl::StatusOr<Objects> DecodePath(const std::string& path) {
  ASSIGN_OR_RETURN(auto loaded, api::LoadManifests({path}, {}));
  return api::RequireDecoded(std::move(loaded));
}

absl::StatusOr<api::Kind> KindOf(const char* kind) {
  const std::string_view k = kind ? kind : "";
  auto parsed = api::ParseKindName(k);
  if (!parsed || *parsed == api::Kind::kOther) {
    return absl::FailedPreconditionError(absl::StrCat("unsupported kind \"", AV(k),
                                                      "\" (DeviceClass, ResourceClaim, ResourceClaimTemplate, "
                                                      "ResourceSlice, DeviceTaintRule, ResourcePoolStatusRequest, Pod, Node)"));
  }
  return *parsed;
}

absl::StatusOr<rapidjson::Document> EncodeLatest(const api::Object& object) {
  const auto versions = api::SupportedVersions(object.kind());
  if (versions.empty()) return api::EncodeObject(object);
  return api::EncodeObject(object, absl::StrCat("resource.k8s.io/", AV(versions.front())));
}

const char* OrDefault(const char* s, const char* fallback) { return s && *s ? s : fallback; }

}  // namespace
}  // namespace draforge::capi

extern "C" {

int draforge_cluster_create(draforge_cluster** out, const char* default_namespace, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr) return capi::Fail(absl::InvalidArgumentError("draforge_cluster_create: out must not be NULL"), error);
    store::ClusterOptions options;
    options.default_namespace = capi::OrDefault(default_namespace, "default");
    *out = new draforge_cluster(std::move(options));
    return DRAFORGE_OK;
  });
}

void draforge_cluster_destroy(draforge_cluster* cluster) { delete cluster; }

int draforge_cluster_apply(draforge_cluster* cluster, const char* data, size_t size, size_t* applied,
                           draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (applied) *applied = 0;
    if (cluster == nullptr || (data == nullptr && size > 0)) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cluster_apply: cluster and data must not be NULL"), error);
    }
    auto objects = capi::DecodeAll(std::string_view(data ? data : "", size), "");
    if (!objects.ok()) return capi::Fail(objects.status(), error);
    const size_t n = objects->size();
    if (absl::Status s = capi::ApplyAll(cluster->cluster, *std::move(objects)); !s.ok()) return capi::Fail(s, error);
    if (applied) *applied = n;
    return DRAFORGE_OK;
  });
}

int draforge_cluster_apply_file(draforge_cluster* cluster, const char* path, size_t* applied, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (applied) *applied = 0;
    if (cluster == nullptr || path == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cluster_apply_file: cluster and path must not be NULL"),
                        error);
    }
    auto objects = capi::DecodePath(path);
    if (!objects.ok()) return capi::Fail(objects.status(), error);
    const size_t n = objects->size();
    if (absl::Status s = capi::ApplyAll(cluster->cluster, *std::move(objects)); !s.ok()) return capi::Fail(s, error);
    if (applied) *applied = n;
    return DRAFORGE_OK;
  });
}

int draforge_cluster_apply_objects(draforge_cluster* cluster, const draforge_objects* objects, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (cluster == nullptr || objects == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_cluster_apply_objects: cluster and objects must not be NULL"), error);
    }
    std::vector<api::Object> copies;
    copies.reserve(objects->entries.size());
    for (size_t i = 0; i < objects->entries.size(); ++i) {
      const auto& e = objects->entries[i];
      if (!e.status.ok()) {
        return capi::Fail(absl::Status(e.status.code(), absl::StrCat("object ", i + 1, ": ", e.status.message())), error);
      }
      if (!e.object.metadata().name.has_value() || e.object.metadata().name->empty()) {
        return capi::Fail(absl::InvalidArgumentError(absl::StrCat("object ", i + 1, ": ", e.kind,
                                                                  ": metadata.name: Required value")),
                          error);
      }
      copies.push_back(e.object);
    }
    return capi::Fail(capi::ApplyAll(cluster->cluster, std::move(copies)), error);
  });
}

int draforge_cluster_delete(draforge_cluster* cluster, const char* kind, const char* namespace_, const char* name,
                            int* deleted, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (deleted) *deleted = 0;
    if (cluster == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cluster_delete: cluster must not be NULL"), error);
    }
    auto k = capi::KindOf(kind);
    if (!k.ok()) return capi::Fail(k.status(), error);
    if (name == nullptr || *name == '\0') {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat("draforge_cluster_delete: ", AV(api::KindName(*k)),
                                                                ": name must not be empty")),
                        error);
    }
    store::Outcome outcome = store::Outcome::kNotFound;
    absl::Status s = cluster->cluster.Delete(*k, namespace_ ? namespace_ : "", name, {}, &outcome);
    if (!s.ok()) return capi::Fail(s, error);
    if (deleted) *deleted = outcome == store::Outcome::kDeleted ? 1 : 0;
    return DRAFORGE_OK;
  });
}

int draforge_cluster_snapshot(draforge_snapshot** out, const draforge_cluster* cluster, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || cluster == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cluster_snapshot: out and cluster must not be NULL"), error);
    }
    *out = new draforge_snapshot{cluster->cluster.snapshot()};
    return DRAFORGE_OK;
  });
}

void draforge_snapshot_destroy(draforge_snapshot* snapshot) { delete snapshot; }

uint64_t draforge_snapshot_generation(const draforge_snapshot* snapshot) {
  return snapshot ? snapshot->snapshot->generation() : 0;
}

const char* draforge_snapshot_resource_version(const draforge_snapshot* snapshot) {
  return snapshot ? snapshot->snapshot->resource_version().c_str() : "";
}

size_t draforge_snapshot_count(const draforge_snapshot* snapshot, const char* kind) {
  if (snapshot == nullptr) return 0;
  auto k = draforge::capi::KindOf(kind);
  return k.ok() ? snapshot->snapshot->Count(*k) : 0;
}

int draforge_snapshot_objects_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* kind,
                                   draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_snapshot_objects_json: out and snapshot must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    std::vector<api::Kind> kinds;
    if (kind == nullptr) {
      for (int k = 0; k < static_cast<int>(api::Kind::kOther); ++k) kinds.push_back(static_cast<api::Kind>(k));
    } else {
      auto k = capi::KindOf(kind);
      if (!k.ok()) return capi::Fail(k.status(), error);
      kinds.push_back(*k);
    }
    rapidjson::Document list(rapidjson::kArrayType);
    for (api::Kind k : kinds) {
      for (const api::Object* o : snapshot->snapshot->List(k)) {
        auto doc = capi::EncodeLatest(*o);
        if (!doc.ok()) return capi::Fail(doc.status(), error);
        list.PushBack(rapidjson::Value(*doc, list.GetAllocator()), list.GetAllocator());
      }
    }
    return capi::ToBuffer(api::WriteJson(list, false), out, error);
  });
}

int draforge_snapshot_get_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* kind,
                               const char* namespace_, const char* name, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || name == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_snapshot_get_json: out, snapshot and name must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto k = capi::KindOf(kind);
    if (!k.ok()) return capi::Fail(k.status(), error);
    const std::string ns = capi::OrDefault(namespace_, "default");
    const api::Object* o = snapshot->snapshot->Get(*k, ns, name);
    if (o == nullptr) {
      return capi::Fail(absl::NotFoundError(absl::StrCat(AV(api::KindName(*k)), " \"",
                                                         api::IsNamespaced(*k) ? ns + "/" : "", name,
                                                         "\" not found")),
                        error);
    }
    auto doc = capi::EncodeLatest(*o);
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    return capi::ToBuffer(api::WriteJson(*doc, false), out, error);
  });
}

int draforge_snapshot_graph_json(draforge_buffer* out, const draforge_snapshot* snapshot, int all_devices,
                                 draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_snapshot_graph_json: out and snapshot must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    return capi::ToBuffer(
        graph::Render(*snapshot->snapshot, {.all_devices = all_devices != 0}, {}, graph::Format::kJson), out, error);
  });
}

int draforge_graph_options_init(draforge_graph_options* options, unsigned int version) {
  return draforge::capi::InitOptions(options, version, DRAFORGE_GRAPH_OPTIONS_VERSION,
                                     draforge_graph_options DRAFORGE_GRAPH_OPTIONS_INIT);
}

int draforge_snapshot_graph_render(draforge_buffer* out, const draforge_snapshot* snapshot,
                                   const draforge_graph_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_snapshot_graph_render: out and snapshot must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    const draforge_graph_options o = options != nullptr ? *options : draforge_graph_options DRAFORGE_GRAPH_OPTIONS_INIT;
    if (absl::Status s = capi::CheckVersion("draforge_graph_options", o.version, DRAFORGE_GRAPH_OPTIONS_VERSION);
        !s.ok()) {
      return capi::Fail(s, error);
    }
    if (o.format != DRAFORGE_GRAPH_JSON && o.format != DRAFORGE_GRAPH_DOT && o.format != DRAFORGE_GRAPH_TEXT) {
      return capi::Fail(absl::InvalidArgumentError("draforge_snapshot_graph_render: unknown format"), error);
    }
    graph::Filter filter;
    filter.namespace_ = capi::OrDefault(o.namespace_, "");
    filter.node = capi::OrDefault(o.node, "");
    filter.driver = capi::OrDefault(o.driver, "");
    const graph::Format format = o.format == DRAFORGE_GRAPH_JSON  ? graph::Format::kJson
                                 : o.format == DRAFORGE_GRAPH_DOT ? graph::Format::kDot
                                                                  : graph::Format::kText;
    return capi::ToBuffer(graph::Render(*snapshot->snapshot, {.all_devices = o.all_devices != 0}, filter, format), out,
                          error);
  });
}

int draforge_snapshot_pools_json(draforge_buffer* out, const draforge_snapshot* snapshot, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_snapshot_pools_json: out and snapshot must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    const store::Snapshot& s = *snapshot->snapshot;
    rapidjson::Document list(rapidjson::kArrayType);
    auto& a = list.GetAllocator();
    auto str = [&](std::string_view v) { return JsonString(v, a); };
    for (const store::PoolInfo& p : s.Pools()) {
      int64_t allocated = 0;
      for (const api::ResourceSlice* slice : p.slices) {
        if (!slice->spec) continue;
        for (const api::Device& d : slice->spec->devices) {
          if (s.InUse(p.driver, p.pool, d.name.value_or(""))) ++allocated;
        }
      }
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("driver", str(p.driver), a);
      o.AddMember("pool", str(p.pool), a);
      o.AddMember("generation", rapidjson::Value(p.generation), a);
      o.AddMember("slices", rapidjson::Value(static_cast<uint64_t>(p.slices.size())), a);
      o.AddMember("resourceSliceCount", rapidjson::Value(p.resource_slice_count), a);
      o.AddMember("complete", p.complete, a);
      o.AddMember("invalid", p.invalid, a);
      o.AddMember("invalidReason", str(p.invalid_reason), a);
      o.AddMember("node", str(p.node_name), a);
      o.AddMember("devices", rapidjson::Value(static_cast<uint64_t>(p.device_count)), a);
      o.AddMember("allocated", rapidjson::Value(allocated), a);
      list.PushBack(o, a);
    }
    return capi::ToBuffer(api::WriteJson(list, false), out, error);
  });
}

}  // extern "C"
