// The C ABI over lib/kube (include/draforge/kube.h): loading rules, the client, REST with JSON, the
// live source (kube::Reflector) and leader election (kube::LeaderElector).
#include <climits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "api/codec.h"
#include "capi/internal.h"
#include "common/status.h"
#include "draforge/kube.h"
#include "kube/api_status.h"
#include "kube/client.h"
#include "kube/cluster_state.h"
#include "kube/leader_election.h"
#include "kube/loading_rules.h"
#include "kube/reflector.h"
#include "kube/resource.h"
#include "rapidjson/document.h"

struct draforge_kube_client {
  // Shared with the sources and electors made from it, so that destroying the handle first is safe.
  std::shared_ptr<draforge::kube::Client> client;
  draforge::kube::LogFunction log;  // also the log of the sources and electors made from it
};

struct draforge_kube_source {
  std::shared_ptr<draforge::kube::Client> client;
  std::unique_ptr<draforge::kube::Reflector> reflector;
  std::string dra_version;
};

struct draforge_kube_leader_elector {
  std::shared_ptr<draforge::kube::Client> client;
  std::unique_ptr<draforge::kube::LeaderElector> elector;
};

namespace draforge::capi {
namespace {

std::string Str(const char* s) { return s == nullptr ? std::string() : std::string(s); }

// The C code of a lib/kube status: as everywhere (Fail: a server's answer is DRAFORGE_EAPI with its
// HTTP status and reason), except that the transport's failures (unreachable, TLS or credentials
// refused before an answer, timed out, cancelled, the deadline passed) are DRAFORGE_EUNAVAILABLE.
int FailKube(const absl::Status& status, draforge_error** error) {
  const bool transport = !kube::GetApiStatus(status) &&
                         (absl::IsUnavailable(status) || absl::IsUnauthenticated(status) ||
                          absl::IsDeadlineExceeded(status) || absl::IsCancelled(status));
  const int rc = Fail(status, error);
  if (rc == DRAFORGE_OK || !transport) return rc;
  if (error != nullptr && *error != nullptr) (*error)->code = DRAFORGE_EUNAVAILABLE;
  return DRAFORGE_EUNAVAILABLE;
}

// `status` with `prefix` before its message, keeping its payloads (an API server's answer).
absl::Status Prefixed(const absl::Status& status, std::string_view prefix) {
  absl::Status out(status.code(), absl::StrCat(AV(prefix), status.message()));
  status.ForEachPayload([&out](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

absl::Duration Millis(int64_t ms, absl::Duration fallback) { return ms > 0 ? absl::Milliseconds(ms) : fallback; }

absl::Time Deadline(const draforge_kube_request_options* options) {
  if (options == nullptr || options->deadline_unix_ns == DRAFORGE_KUBE_NO_DEADLINE) return absl::InfiniteFuture();
  return absl::FromUnixNanos(options->deadline_unix_ns);
}

kube::LoadingRules RulesOf(const draforge_kube_config_options& o) {
  kube::LoadingRules rules;
  rules.explicit_path = Str(o.kubeconfig);
  rules.kubeconfig_env = Str(o.kubeconfig_env);
  rules.home = Str(o.home);
  rules.context = Str(o.context);
  for (size_t i = 0; i < o.environment_count; ++i) {
    if (o.environment != nullptr && o.environment[i] != nullptr) rules.environment.emplace_back(o.environment[i]);
  }
  rules.in_cluster.host = Str(o.service_host);
  rules.in_cluster.port = Str(o.service_port);
  if (o.token_path != nullptr) rules.in_cluster.token_path = o.token_path;
  if (o.ca_path != nullptr) rules.in_cluster.ca_path = o.ca_path;
  if (o.namespace_path != nullptr) rules.in_cluster.namespace_path = o.namespace_path;
  return rules;
}

kube::LogFunction LogOf(draforge_kube_log_fn fn, void* user) {
  if (fn == nullptr) return nullptr;
  return [fn, user](kube::LogLevel level, std::string_view message) {
    const std::string m(message);
    fn(user, static_cast<int>(level), m.c_str());
  };
}

// "resource.k8s.io/v1" + "resourceslices" as a kube::Resource; namespaced when a namespace is given.
absl::StatusOr<kube::Resource> ResourceOf(const char* api_version, const char* resource, bool namespaced) {
  const std::string av = Str(api_version);
  const std::string plural = Str(resource);
  if (av.empty() || plural.empty()) {
    return absl::InvalidArgumentError("kube: api_version and resource are required (\"resource.k8s.io/v1\", "
                                      "\"resourceslices\")");
  }
  kube::Resource r;
  if (const size_t slash = av.find('/'); slash == std::string::npos) {
    r.version = av;
  } else {
    r.group = av.substr(0, slash);
    r.version = av.substr(slash + 1);
  }
  if (r.version.empty() || r.version.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("kube: api_version \"", av, "\" is not GROUP/VERSION or VERSION"));
  }
  r.resource = plural;
  r.namespaced = namespaced;
  return r;
}

absl::StatusOr<rapidjson::Document> BodyOf(const char* body, size_t size) {
  if (body == nullptr) return absl::InvalidArgumentError("kube: body is required");
  auto doc = api::ParseJson(std::string_view(body, size));
  if (!doc.ok()) return absl::InvalidArgumentError(absl::StrCat("kube: body: ", doc.status().message()));
  if (!doc->IsObject()) return absl::InvalidArgumentError("kube: body: not a JSON object");
  return doc;
}

bool HasNamespace(const rapidjson::Value& body) {
  auto m = body.FindMember("metadata");
  if (m == body.MemberEnd() || !m->value.IsObject()) return false;
  auto ns = m->value.FindMember("namespace");
  return ns != m->value.MemberEnd() && ns->value.IsString() && ns->value.GetStringLength() > 0;
}

int JsonOut(const rapidjson::Value& value, draforge_buffer* out, draforge_error** error) {
  return ToBuffer(api::WriteJson(value, false), out, error);
}

absl::Status CheckClient(const draforge_kube_client* client, const void* out) {
  if (client == nullptr || out == nullptr) return absl::InvalidArgumentError("kube: client and out are required");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<kube::Resource>> CustomResources(const char* list) {
  std::vector<kube::Resource> out;
  for (absl::string_view item : absl::StrSplit(Str(list), ',', absl::SkipWhitespace())) {
    std::vector<std::string> parts = absl::StrSplit(item, '/');
    if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || parts[2].empty()) {
      return absl::InvalidArgumentError(absl::StrCat("kube source: custom_resources: \"", item,
                                                     "\" is not GROUP/VERSION/RESOURCE"));
    }
    // "core" names the legacy core group ("" in the API: /api/v1), e.g. core/v1/resourcequotas.
    out.push_back(kube::Resource{parts[0] == "core" ? "" : parts[0], parts[1], parts[2], "", false});
  }
  return out;
}

absl::StatusOr<std::vector<api::Kind>> KindsOf(const char* list) {
  std::vector<api::Kind> out;
  for (absl::string_view item : absl::StrSplit(Str(list), ',', absl::SkipWhitespace())) {
    std::optional<api::Kind> kind = api::ParseKindName(SV(item));
    if (!kind || *kind == api::Kind::kOther || *kind == api::Kind::kResourcePoolStatusRequest) {
      return absl::InvalidArgumentError(absl::StrCat("kube source: kinds: \"", item, "\" is not a kind the source "
                                                     "watches (", "DeviceClass, ResourceSlice, ResourceClaim, "
                                                     "ResourceClaimTemplate, DeviceTaintRule, Pod, Node)"));
    }
    out.push_back(*kind);
  }
  if (out.empty()) return kube::DefaultReflectorKinds();
  return out;
}

}  // namespace
}  // namespace draforge::capi

using draforge::capi::FailKube;
using draforge::capi::Guard;
namespace kube = draforge::kube;
namespace capi = draforge::capi;

extern "C" {

int draforge_kube_config_options_init(draforge_kube_config_options* options, unsigned int version) {
  return capi::InitOptions(options, version, DRAFORGE_KUBE_CONFIG_OPTIONS_VERSION,
                           draforge_kube_config_options DRAFORGE_KUBE_CONFIG_OPTIONS_INIT);
}

int draforge_kube_request_options_init(draforge_kube_request_options* options, unsigned int version) {
  return capi::InitOptions(options, version, DRAFORGE_KUBE_REQUEST_OPTIONS_VERSION,
                           draforge_kube_request_options DRAFORGE_KUBE_REQUEST_OPTIONS_INIT);
}

int draforge_kube_source_options_init(draforge_kube_source_options* options, unsigned int version) {
  return capi::InitOptions(options, version, DRAFORGE_KUBE_SOURCE_OPTIONS_VERSION,
                           draforge_kube_source_options DRAFORGE_KUBE_SOURCE_OPTIONS_INIT);
}

int draforge_kube_leader_election_options_init(draforge_kube_leader_election_options* options, unsigned int version) {
  return capi::InitOptions(options, version, DRAFORGE_KUBE_LEADER_ELECTION_OPTIONS_VERSION,
                           draforge_kube_leader_election_options DRAFORGE_KUBE_LEADER_ELECTION_OPTIONS_INIT);
}

int draforge_kube_config_resolve(draforge_buffer* out, const draforge_kube_config_options* options,
                                 draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (out == nullptr || options == nullptr) {
      return FailKube(absl::InvalidArgumentError("kube config: out and options are required"), error);
    }
    if (absl::Status s = capi::CheckVersion("draforge_kube_config_options", options->version,
                                            DRAFORGE_KUBE_CONFIG_OPTIONS_VERSION);
        !s.ok()) {
      return FailKube(s, error);
    }
    auto resolved = kube::ResolveRestConfig(capi::RulesOf(*options));
    if (!resolved.ok()) return FailKube(resolved.status(), error);
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    auto str = [&](std::string_view s) { return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a); };
    doc.AddMember("source", str(kube::ConfigSourceName(resolved->source)), a);
    rapidjson::Value files(rapidjson::kArrayType);
    for (const std::string& f : resolved->files) files.PushBack(str(f), a);
    doc.AddMember("files", files, a);
    if (resolved->source != kube::ConfigSource::kNone) {
      const kube::RestConfig& c = resolved->config;
      doc.AddMember("server", str(c.server), a);
      doc.AddMember("context", str(c.context_name), a);
      doc.AddMember("namespace", str(c.default_namespace), a);
      doc.AddMember("exec", c.exec.has_value(), a);
    }
    return capi::JsonOut(doc, out, error);
  });
}

int draforge_kube_client_create(draforge_kube_client** out, const draforge_kube_config_options* options,
                                draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (out == nullptr || options == nullptr) {
      return FailKube(absl::InvalidArgumentError("kube client: out and options are required"), error);
    }
    *out = nullptr;
    if (absl::Status s = capi::CheckVersion("draforge_kube_config_options", options->version,
                                            DRAFORGE_KUBE_CONFIG_OPTIONS_VERSION);
        !s.ok()) {
      return FailKube(s, error);
    }
    const kube::LoadingRules rules = capi::RulesOf(*options);
    auto resolved = kube::ResolveRestConfig(rules);
    if (!resolved.ok()) return FailKube(resolved.status(), error);
    if (resolved->source == kube::ConfigSource::kNone) return FailKube(kube::NoClusterConfigured(rules), error);
    kube::RestConfig config = std::move(resolved->config);
    if (options->user_agent != nullptr && *options->user_agent != '\0') config.user_agent = options->user_agent;
    if (options->timeout_ms > 0) config.timeout = absl::Milliseconds(options->timeout_ms);
    kube::ClientOptions client_options;
    client_options.log = capi::LogOf(options->log, options->log_user_data);
    auto handle = std::make_unique<draforge_kube_client>();
    handle->log = client_options.log;
    auto client = kube::Client::Create(std::move(config), std::move(client_options));
    if (!client.ok()) return FailKube(client.status(), error);
    handle->client = std::shared_ptr<kube::Client>(std::move(*client));
    *out = handle.release();
    return DRAFORGE_OK;
  });
}

void draforge_kube_client_destroy(draforge_kube_client* client) {
  if (client == nullptr) return;
  // Watches of this handle's callers end now; sources and electors hold their own reference and
  // are stopped by their own destroy.
  if (client->client.use_count() == 1) client->client->Cancel();
  delete client;
}

const char* draforge_kube_client_server(const draforge_kube_client* client) {
  return client == nullptr ? "" : client->client->config().server.c_str();
}
const char* draforge_kube_client_namespace(const draforge_kube_client* client) {
  return client == nullptr ? "" : client->client->config().default_namespace.c_str();
}
const char* draforge_kube_client_context(const draforge_kube_client* client) {
  return client == nullptr ? "" : client->client->config().context_name.c_str();
}

int draforge_kube_client_server_version(draforge_buffer* out, draforge_kube_client* client, draforge_error** error) {
  return draforge_kube_client_server_version_until(out, client, DRAFORGE_KUBE_NO_DEADLINE, error);
}

int draforge_kube_client_server_version_until(draforge_buffer* out, draforge_kube_client* client,
                                              int64_t deadline_unix_ns, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (absl::Status s = capi::CheckClient(client, out); !s.ok()) return FailKube(s, error);
    kube::Request req;
    req.path = "/version";
    if (deadline_unix_ns != DRAFORGE_KUBE_NO_DEADLINE) req.deadline = absl::FromUnixNanos(deadline_unix_ns);
    auto resp = client->client->Do(req);
    if (!resp.ok()) return FailKube(resp.status(), error);
    if (resp->code != 200) {
      return FailKube(kube::ApiError(kube::GenericServerResponse(static_cast<int>(resp->code), "GET", resp->body,
                                                                 resp->retry_after_seconds),
                                     "get /version"),
                      error);
    }
    return capi::ToBuffer(resp->body, out, error);
  });
}

int draforge_kube_error_status_code(const draforge_error* error) { return error == nullptr ? 0 : error->http_status; }
const char* draforge_kube_error_reason(const draforge_error* error) {
  return error == nullptr ? "" : error->reason.c_str();
}

int draforge_kube_get(draforge_buffer* out, draforge_kube_client* client, const char* api_version, const char* resource,
                      const char* namespace_, const char* name, const draforge_kube_request_options* options,
                      draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (absl::Status s = capi::CheckClient(client, out); !s.ok()) return FailKube(s, error);
    const std::string ns = capi::Str(namespace_);
    auto r = capi::ResourceOf(api_version, resource, !ns.empty());
    if (!r.ok()) return FailKube(r.status(), error);
    kube::GetOptions get;
    if (options != nullptr) get.subresource = capi::Str(options->subresource);
    get.deadline = capi::Deadline(options);
    auto doc = client->client->Get(*r, ns, capi::Str(name), get);
    if (!doc.ok()) return FailKube(doc.status(), error);
    return capi::JsonOut(*doc, out, error);
  });
}

int draforge_kube_list(draforge_buffer* out, draforge_kube_client* client, const char* api_version, const char* resource,
                       const char* namespace_, const draforge_kube_request_options* options, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (absl::Status s = capi::CheckClient(client, out); !s.ok()) return FailKube(s, error);
    const std::string ns = capi::Str(namespace_);
    auto r = capi::ResourceOf(api_version, resource, !ns.empty());
    if (!r.ok()) return FailKube(r.status(), error);
    kube::ListOptions list;
    if (options != nullptr) {
      list.label_selector = capi::Str(options->label_selector);
      list.field_selector = capi::Str(options->field_selector);
      list.limit = options->limit;
      list.resource_version = capi::Str(options->resource_version);
    }
    list.deadline = capi::Deadline(options);
    auto result = client->client->List(*r, ns, list);
    if (!result.ok()) return FailKube(result.status(), error);
    return capi::JsonOut(result->list, out, error);
  });
}

int draforge_kube_create(draforge_buffer* out, draforge_kube_client* client, const char* api_version,
                         const char* resource, const char* namespace_, const char* body, size_t size,
                         const draforge_kube_request_options* options, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (absl::Status s = capi::CheckClient(client, out); !s.ok()) return FailKube(s, error);
    auto doc = capi::BodyOf(body, size);
    if (!doc.ok()) return FailKube(doc.status(), error);
    const std::string ns = capi::Str(namespace_);
    auto r = capi::ResourceOf(api_version, resource, !ns.empty() || capi::HasNamespace(*doc));
    if (!r.ok()) return FailKube(r.status(), error);
    kube::WriteOptions write;
    if (options != nullptr) {
      write.field_manager = capi::Str(options->field_manager);
      write.dry_run = options->dry_run != 0;
    }
    write.deadline = capi::Deadline(options);
    auto created = client->client->Create(*r, ns, *doc, write);
    if (!created.ok()) return FailKube(created.status(), error);
    return capi::JsonOut(*created, out, error);
  });
}

int draforge_kube_update(draforge_buffer* out, draforge_kube_client* client, const char* api_version,
                         const char* resource, const char* namespace_, const char* body, size_t size,
                         const draforge_kube_request_options* options, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (absl::Status s = capi::CheckClient(client, out); !s.ok()) return FailKube(s, error);
    auto doc = capi::BodyOf(body, size);
    if (!doc.ok()) return FailKube(doc.status(), error);
    const std::string ns = capi::Str(namespace_);
    auto r = capi::ResourceOf(api_version, resource, !ns.empty() || capi::HasNamespace(*doc));
    if (!r.ok()) return FailKube(r.status(), error);
    kube::WriteOptions write;
    if (options != nullptr) {
      write.field_manager = capi::Str(options->field_manager);
      write.dry_run = options->dry_run != 0;
      write.subresource = capi::Str(options->subresource);
    }
    write.deadline = capi::Deadline(options);
    auto updated = client->client->Update(*r, ns, *doc, write);
    if (!updated.ok()) return FailKube(updated.status(), error);
    return capi::JsonOut(*updated, out, error);
  });
}

int draforge_kube_patch(draforge_buffer* out, draforge_kube_client* client, const char* api_version,
                        const char* resource, const char* namespace_, const char* name, int type, const char* patch,
                        size_t size, const draforge_kube_request_options* options, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (absl::Status s = capi::CheckClient(client, out); !s.ok()) return FailKube(s, error);
    if (patch == nullptr) return FailKube(absl::InvalidArgumentError("kube patch: patch is required"), error);
    kube::PatchType patch_type;
    switch (type) {
      case DRAFORGE_KUBE_PATCH_MERGE: patch_type = kube::PatchType::kJsonMerge; break;
      case DRAFORGE_KUBE_PATCH_STRATEGIC_MERGE: patch_type = kube::PatchType::kStrategicMerge; break;
      case DRAFORGE_KUBE_PATCH_APPLY: patch_type = kube::PatchType::kApply; break;
      case DRAFORGE_KUBE_PATCH_JSON: patch_type = kube::PatchType::kJson; break;
      default:
        return FailKube(absl::InvalidArgumentError(absl::StrCat("kube patch: unknown patch type ", type)), error);
    }
    const std::string ns = capi::Str(namespace_);
    auto r = capi::ResourceOf(api_version, resource, !ns.empty());
    if (!r.ok()) return FailKube(r.status(), error);
    kube::WriteOptions write;
    if (options != nullptr) {
      write.field_manager = capi::Str(options->field_manager);
      write.dry_run = options->dry_run != 0;
      write.force = options->force != 0;
      write.subresource = capi::Str(options->subresource);
    }
    write.deadline = capi::Deadline(options);
    auto patched = client->client->Patch(*r, ns, capi::Str(name), patch_type, std::string_view(patch, size), write);
    if (!patched.ok()) return FailKube(patched.status(), error);
    return capi::JsonOut(*patched, out, error);
  });
}

int draforge_kube_delete(draforge_buffer* out, draforge_kube_client* client, const char* api_version,
                         const char* resource, const char* namespace_, const char* name,
                         const draforge_kube_request_options* options, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (absl::Status s = capi::CheckClient(client, out); !s.ok()) return FailKube(s, error);
    const std::string ns = capi::Str(namespace_);
    auto r = capi::ResourceOf(api_version, resource, !ns.empty());
    if (!r.ok()) return FailKube(r.status(), error);
    kube::DeleteOptions del;
    if (options != nullptr) {
      del.precondition_uid = capi::Str(options->precondition_uid);
      del.precondition_resource_version = capi::Str(options->precondition_resource_version);
      del.propagation_policy = capi::Str(options->propagation_policy);
      if (options->grace_period_seconds >= 0) del.grace_period_seconds = options->grace_period_seconds;
    }
    del.deadline = capi::Deadline(options);
    auto deleted = client->client->Delete(*r, ns, capi::Str(name), del);
    if (!deleted.ok()) return FailKube(deleted.status(), error);
    return capi::JsonOut(*deleted, out, error);
  });
}

int draforge_kube_list_cluster_state(draforge_buffer* out, draforge_kube_client* client, const char* namespace_,
                                     draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (absl::Status s = capi::CheckClient(client, out); !s.ok()) return FailKube(s, error);
    kube::ClusterStateOptions state_options;
    state_options.namespace_ = capi::Str(namespace_);
    auto state = kube::ListClusterState(*client->client, state_options);
    if (!state.ok()) return FailKube(state.status(), error);
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("draVersion", rapidjson::Value(state->dra_version.c_str(), a), a);
    rapidjson::Value objects(rapidjson::kArrayType);
    for (const draforge::api::Object& o : state->objects) {
      auto encoded = draforge::api::EncodeObject(o);
      if (!encoded.ok()) return FailKube(encoded.status(), error);
      objects.PushBack(rapidjson::Value(*encoded, a), a);
    }
    doc.AddMember("objects", objects, a);
    rapidjson::Value skipped(rapidjson::kArrayType);
    for (const std::string& s : state->skipped) skipped.PushBack(rapidjson::Value(s.c_str(), a), a);
    doc.AddMember("skipped", skipped, a);
    return capi::JsonOut(doc, out, error);
  });
}

int draforge_kube_source_start(draforge_kube_source** out, draforge_kube_client* client, draforge_cluster* cluster,
                               const draforge_kube_source_options* options, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (out == nullptr || client == nullptr || cluster == nullptr) {
      return FailKube(absl::InvalidArgumentError("kube source: out, client and cluster are required"), error);
    }
    *out = nullptr;
    const draforge_kube_source_options defaults = DRAFORGE_KUBE_SOURCE_OPTIONS_INIT;
    const draforge_kube_source_options& o = options != nullptr ? *options : defaults;
    if (absl::Status s = capi::CheckVersion("draforge_kube_source_options", o.version,
                                            DRAFORGE_KUBE_SOURCE_OPTIONS_VERSION);
        !s.ok()) {
      return FailKube(s, error);
    }
    kube::ReflectorOptions ro;
    auto kinds = capi::KindsOf(o.kinds);
    if (!kinds.ok()) return FailKube(kinds.status(), error);
    ro.kinds = *std::move(kinds);
    auto custom = capi::CustomResources(o.custom_resources);
    if (!custom.ok()) return FailKube(custom.status(), error);
    ro.custom_resources = *std::move(custom);
    ro.namespace_ = capi::Str(o.namespace_);
    ro.resource_version_override = capi::Str(o.dra_version);
    if (o.page_size > 0) ro.page_size = o.page_size;
    ro.log = client->log;
    if (o.on_change != nullptr) {
      ro.on_resource_change = [fn = o.on_change, user = o.on_change_user_data](const kube::Resource& r) {
        fn(user, r.kind.c_str());
      };
    }
    auto source = std::make_unique<draforge_kube_source>();
    source->client = client->client;
    source->reflector = std::make_unique<kube::Reflector>(*source->client, cluster->cluster, std::move(ro));
    if (absl::Status s = source->reflector->Start(); !s.ok()) {
      return FailKube(capi::Prefixed(s, absl::StrCat(client->client->config().server, ": ")), error);
    }
    source->dra_version = source->reflector->resource_version_in_use();
    *out = source.release();
    return DRAFORGE_OK;
  });
}

int draforge_kube_source_synced(const draforge_kube_source* source) {
  return source != nullptr && source->reflector->HasSynced() ? 1 : 0;
}

int draforge_kube_source_wait_synced(const draforge_kube_source* source, int64_t timeout_ms) {
  if (source == nullptr) return 0;
  return source->reflector->WaitForSync(absl::Milliseconds(timeout_ms > 0 ? timeout_ms : 0)) ? 1 : 0;
}

int draforge_kube_source_last_error(const draforge_kube_source* source, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (source == nullptr) return FailKube(absl::InvalidArgumentError("kube source: source is required"), error);
    return FailKube(source->reflector->LastError(), error);
  });
}

const char* draforge_kube_source_dra_version(const draforge_kube_source* source) {
  return source == nullptr ? "" : source->dra_version.c_str();
}

int draforge_kube_source_stats_json(draforge_buffer* out, const draforge_kube_source* source, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (source == nullptr || out == nullptr) {
      return FailKube(absl::InvalidArgumentError("kube source: out and source are required"), error);
    }
    const kube::ReflectorStats s = source->reflector->stats();
    return capi::ToBuffer(absl::StrCat("{\"lists\":", s.lists, ",\"relistsGone\":", s.relists_gone, ",\"watches\":",
                                       s.watches, ",\"shortWatches\":", s.short_watches, ",\"events\":", s.events,
                                       ",\"decodeErrors\":", s.decode_errors, ",\"errors\":", s.errors, "}"),
                          out, error);
  });
}

void draforge_kube_source_stop(draforge_kube_source* source) {
  if (source != nullptr) source->reflector->Stop();
}

void draforge_kube_source_destroy(draforge_kube_source* source) {
  if (source == nullptr) return;
  source->reflector->Stop();
  delete source;
}

int draforge_kube_leader_elector_start(draforge_kube_leader_elector** out, draforge_kube_client* client,
                                       const draforge_kube_leader_election_options* options, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (out == nullptr || client == nullptr || options == nullptr) {
      return FailKube(absl::InvalidArgumentError("kube leader election: out, client and options are required"), error);
    }
    *out = nullptr;
    if (absl::Status s = capi::CheckVersion("draforge_kube_leader_election_options", options->version,
                                            DRAFORGE_KUBE_LEADER_ELECTION_OPTIONS_VERSION);
        !s.ok()) {
      return FailKube(s, error);
    }
    const draforge_kube_leader_election_options& o = *options;
    kube::LeaderElectionOptions le;
    if (o.lease_namespace != nullptr && *o.lease_namespace != '\0') le.lease_namespace = o.lease_namespace;
    le.lease_name = capi::Str(o.lease_name);
    le.identity = capi::Str(o.identity);
    le.lease_duration = capi::Millis(o.lease_duration_ms, le.lease_duration);
    le.renew_deadline = capi::Millis(o.renew_deadline_ms, le.renew_deadline);
    le.retry_period = capi::Millis(o.retry_period_ms, le.retry_period);
    le.release_on_stop = o.release_on_stop != 0;
    le.log = client->log;
    void* user = o.user_data;
    if (o.on_started_leading != nullptr) le.on_started_leading = [fn = o.on_started_leading, user] { fn(user); };
    if (o.on_stopped_leading != nullptr) le.on_stopped_leading = [fn = o.on_stopped_leading, user] { fn(user); };
    if (o.on_new_leader != nullptr) {
      le.on_new_leader = [fn = o.on_new_leader, user](const std::string& id) { fn(user, id.c_str()); };
    }
    auto handle = std::make_unique<draforge_kube_leader_elector>();
    handle->client = client->client;
    handle->elector = std::make_unique<kube::LeaderElector>(*handle->client, std::move(le));
    if (absl::Status s = handle->elector->Start(); !s.ok()) return FailKube(s, error);
    *out = handle.release();
    return DRAFORGE_OK;
  });
}

int draforge_kube_leader_elector_is_leader(const draforge_kube_leader_elector* elector) {
  return elector != nullptr && elector->elector->IsLeader() ? 1 : 0;
}

int64_t draforge_kube_leader_elector_deadline(const draforge_kube_leader_elector* elector) {
  if (elector == nullptr) return INT64_MIN;
  const absl::Time deadline = elector->elector->LeadershipDeadline();
  if (deadline == absl::InfinitePast()) return INT64_MIN;
  if (deadline == absl::InfiniteFuture()) return INT64_MAX;
  return absl::ToUnixNanos(deadline);
}

int draforge_kube_leader_elector_observed_leader(draforge_buffer* out, const draforge_kube_leader_elector* elector,
                                                 draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (out == nullptr || elector == nullptr) {
      return FailKube(absl::InvalidArgumentError("kube leader election: out and elector are required"), error);
    }
    return capi::ToBuffer(elector->elector->ObservedLeader(), out, error);
  });
}

void draforge_kube_leader_elector_stop(draforge_kube_leader_elector* elector) {
  if (elector != nullptr) elector->elector->Stop();
}

void draforge_kube_leader_elector_destroy(draforge_kube_leader_elector* elector) {
  if (elector == nullptr) return;
  elector->elector->Stop();
  delete elector;
}

int64_t draforge_kube_now(void) { return absl::ToUnixNanos(absl::Now()); }

}  // extern "C"
