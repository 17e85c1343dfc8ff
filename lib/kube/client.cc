#include "kube/client.h"

#include <algorithm>
#include <random>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/codec.h"
#include "common/status.h"
#include "kube/api_status.h"
#include "kube/internal/query.h"
#include "kube/internal/transport.h"

namespace draforge::kube {
namespace {

using internal::AddParam;

// Whether an answer may be sent again, as client-go decides (rest/with_retry.go, IsNextRetry and
// checkWait): only a 429 or 5xx that carries Retry-After. The API server adds Retry-After only where
// it turned the request away before handling it (API Priority and Fairness, max-in-flight, shutting
// down, storage not ready), so repeating it is safe for every verb, POST included. A 5xx without it
// is final for every verb: a 504 Timeout or a 500 may come after the write happened.
bool RetryableAnswer(const Response& response) {
  return (response.code == 429 || response.code >= 500) && response.retry_after_seconds >= 0;
}

std::string Json(const rapidjson::Value& v) { return api::WriteJson(v, /*pretty=*/false); }

std::string StrMember(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) return "";
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsString()) return "";
  return it->value.GetString();
}

std::string MetaField(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) return "";
  auto m = obj.FindMember("metadata");
  if (m == obj.MemberEnd()) return "";
  return StrMember(m->value, key);
}

std::string WriteQuery(const WriteOptions& options) {
  std::string q;
  AddParam(q, "fieldManager", options.field_manager);
  if (options.dry_run) AddParam(q, "dryRun", "All");
  if (options.force) AddParam(q, "force", "true");
  return q;
}

// "create resourceclaims default/x": what a message about a request names.
std::string Context(std::string_view verb, const Resource& r, std::string_view ns, std::string_view name) {
  std::string out = absl::StrCat(AV(verb), " ", r.resource);
  if (!r.group.empty()) absl::StrAppend(&out, ".", r.group);
  if (!name.empty() || !ns.empty()) {
    absl::StrAppend(&out, " ");
    if (r.namespaced && !ns.empty()) absl::StrAppend(&out, AV(ns), "/");
    absl::StrAppend(&out, AV(name));
  }
  return out;
}

}  // namespace

Client::Client(RestConfig config, ClientOptions options)
    : config_(std::move(config)), options_(std::move(options)) {
  transport_ = std::make_unique<internal::Transport>(config_);
}

Client::~Client() = default;

absl::StatusOr<std::unique_ptr<Client>> Client::Create(RestConfig config, ClientOptions options) {
  if (!absl::StartsWith(config.server, "https://") && !absl::StartsWith(config.server, "http://")) {
    return absl::InvalidArgumentError(absl::StrCat("server \"", config.server, "\" is not an http(s) URL"));
  }
  while (!config.server.empty() && config.server.back() == '/') config.server.pop_back();
  if (options.max_response_bytes == 0 || options.max_watch_event_bytes == 0) {
    return absl::InvalidArgumentError("client options: max_response_bytes and max_watch_event_bytes must be positive");
  }
  if (internal::WithholdsCredentials(config) && options.log) {
    options.log(LogLevel::kWarning,
                absl::StrCat("server ", config.server, " is plain http: its credentials are not sent (they would "
                             "travel in clear text; RestConfig::allow_credentials_over_http allows it)"));
  }
  return std::unique_ptr<Client>(new Client(std::move(config), std::move(options)));
}

absl::StatusOr<Response> Client::DoOnce(const Request& request, absl::Duration timeout) {
  internal::HttpCall call;
  call.method = request.method;
  call.path = request.path;
  call.body = request.body;
  call.content_type = request.content_type;
  call.timeout = timeout;
  call.cancelled = [this] { return cancelled_.load(); };
  call.max_body_bytes = options_.max_response_bytes;
  return transport_->Perform(call);
}

absl::StatusOr<Response> Client::Do(const Request& request) {
  absl::Duration delay = options_.retry.initial_delay;
  thread_local std::mt19937 rng{std::random_device{}()};
  for (int attempt = 1;; ++attempt) {
    // A deadline is the caller's promise to others (a leader's lease): nothing may start past it.
    // Below a millisecond libcurl cannot honour the timeout, so that counts as passed too.
    const absl::Duration left = request.deadline - absl::Now();
    if (left < absl::Milliseconds(1)) {
      return absl::DeadlineExceededError(absl::StrCat(request.method, " ", request.path, ": not sent",
                                                      attempt > 1 ? absl::StrCat(" again (attempt ", attempt, ")") : "",
                                                      ": its deadline has passed",
                                                      left == -absl::InfiniteDuration()
                                                          ? ""
                                                          : absl::StrCat(" (", absl::FormatDuration(-left), " ago)")));
    }
    absl::StatusOr<Response> response = DoOnce(request, std::min(config_.timeout, left));
    bool last = attempt >= options_.retry.max_attempts || cancelled_.load();
    bool retry = false;
    absl::Duration wait = delay;
    if (!response.ok()) {
      // A broken or refused connection: a GET can be repeated safely; a write may already have
      // reached the server (client-go retries connection errors for GET only, too).
      retry = request.method == "GET" && absl::IsUnavailable(response.status());
    } else if (RetryableAnswer(*response)) {
      retry = true;
      wait = std::max(wait, absl::Seconds(response->retry_after_seconds));
    }
    if (!retry || last) return response;
    wait = std::min(wait, options_.retry.max_delay);
    // Jitter (up to +50%) keeps many clients from retrying in lockstep.
    std::uniform_real_distribution<double> jitter(1.0, 1.5);
    wait = std::min(wait * jitter(rng), options_.retry.max_delay);
    const std::string what =
        absl::StrCat(request.method, " ", request.path, ": ",
                     response.ok() ? absl::StrCat("HTTP ", response->code, " (Retry-After: ", response->retry_after_seconds, ")")
                                   : std::string(response.status().message()));
    if (absl::Now() + wait >= request.deadline) {
      // The retry would start past the deadline: the caller gets this answer now rather than a
      // request sent when it may no longer be entitled to send it.
      if (options_.log) {
        options_.log(LogLevel::kDebug, absl::StrCat(what, "; no retry: it would start after the call's deadline"));
      }
      return response;
    }
    if (options_.log) {
      options_.log(LogLevel::kDebug, absl::StrCat(what, "; retry ", attempt, " in ", absl::FormatDuration(wait)));
    }
    if (options_.sleep) {
      options_.sleep(wait);
    } else {
      absl::SleepFor(wait);
    }
    delay = std::min(delay * 2, options_.retry.max_delay);
  }
}

absl::StatusOr<rapidjson::Document> Client::Expect(absl::StatusOr<Response> response, std::string_view method,
                                                   std::string_view context) {
  if (!response.ok()) {
    return absl::Status(response.status().code(), absl::StrCat(AV(context), ": ", response.status().message()));
  }
  if (response->code < 200 || response->code >= 300) {
    std::optional<ApiStatus> status = ParseApiStatus(response->body);
    if (!status) {
      // Not a Status (API Priority and Fairness' plain-text 429, a proxy's HTML page, an empty 5xx):
      // the reason follows the code, as client-go makes it, so callers can branch on it.
      status = GenericServerResponse(static_cast<int>(response->code), method, response->body,
                                     response->retry_after_seconds);
    }
    if (status->code == 0) status->code = static_cast<int>(response->code);
    if (status->retry_after_seconds == 0 && response->retry_after_seconds > 0) {
      status->retry_after_seconds = response->retry_after_seconds;
    }
    if (response->code == 401 && internal::WithholdsCredentials(config_)) {
      // The likely cause is ours: say it, or the operator hunts for a wrong token.
      return ApiError(*status, absl::StrCat(AV(context), " (the credentials were not sent: ", config_.server,
                                            " is plain http; see RestConfig::allow_credentials_over_http)"));
    }
    return ApiError(*status, context);
  }
  auto doc = api::ParseJson(response->body, /*check_duplicate_keys=*/false);
  if (!doc.ok()) {
    return absl::InternalError(absl::StrCat(AV(context), ": the server's answer is not JSON: ", doc.status().message()));
  }
  return std::move(doc).value();
}

absl::StatusOr<rapidjson::Document> Client::Get(const Resource& resource, std::string_view ns, std::string_view name,
                                                std::string_view subresource) {
  GetOptions options;
  options.subresource = std::string(subresource);
  return Get(resource, ns, name, options);
}

absl::StatusOr<rapidjson::Document> Client::Get(const Resource& resource, std::string_view ns, std::string_view name,
                                                const GetOptions& options) {
  Request req;
  req.path = resource.ObjectPath(ns, name, options.subresource);
  req.deadline = options.deadline;
  return Expect(Do(req), req.method, Context("get", resource, ns, name));
}

absl::StatusOr<ListResult> Client::List(const Resource& resource, std::string_view ns, const ListOptions& options) {
  ListResult result;
  result.list.SetObject();
  auto& alloc = result.list.GetAllocator();
  rapidjson::Value items(rapidjson::kArrayType);
  std::string cont;
  std::string list_kind = resource.kind + "List";
  do {
    std::string q;
    AddParam(q, "labelSelector", options.label_selector);
    AddParam(q, "fieldSelector", options.field_selector);
    if (options.limit > 0) AddParam(q, "limit", absl::StrCat(options.limit));
    if (cont.empty()) {
      AddParam(q, "resourceVersion", options.resource_version);
      AddParam(q, "resourceVersionMatch", options.resource_version_match);
    } else {
      AddParam(q, "continue", cont);
    }
    Request req;
    req.path = resource.CollectionPath(ns) + q;
    req.deadline = options.deadline;
    ASSIGN_OR_RETURN(rapidjson::Document page, Expect(Do(req), req.method, Context("list", resource, ns, "")));
    ++result.pages;
    if (result.pages == 1) {
      result.resource_version = MetaField(page, "resourceVersion");
      if (std::string k = StrMember(page, "kind"); !k.empty()) list_kind = k;
    }
    cont = MetaField(page, "continue");
    auto it = page.FindMember("items");
    if (it != page.MemberEnd() && it->value.IsArray()) {
      for (const auto& page_item : it->value.GetArray()) {
        rapidjson::Value item(page_item, alloc);  // into the result's allocator
        // List items carry no apiVersion/kind; add them so each item stands alone (kubectl does too).
        if (item.IsObject()) {
          if (!item.HasMember("apiVersion")) {
            item.AddMember("apiVersion", rapidjson::Value(resource.ApiVersion().c_str(), alloc), alloc);
          }
          if (!item.HasMember("kind")) {
            // A Resource named only by its plural (a caller of the C ABI) learns its kind from the list's.
            std::string kind = resource.kind;
            if (kind.empty() && absl::EndsWith(list_kind, "List")) kind = list_kind.substr(0, list_kind.size() - 4);
            item.AddMember("kind", rapidjson::Value(kind.c_str(), alloc), alloc);
          }
        }
        items.PushBack(item, alloc);
      }
    }
  } while (!cont.empty());
  result.list.AddMember("apiVersion", rapidjson::Value(resource.ApiVersion().c_str(), alloc), alloc);
  result.list.AddMember("kind", rapidjson::Value(list_kind.c_str(), alloc), alloc);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("resourceVersion", rapidjson::Value(result.resource_version.c_str(), alloc), alloc);
  result.list.AddMember("metadata", meta, alloc);
  result.list.AddMember("items", items, alloc);
  return result;
}

absl::StatusOr<rapidjson::Document> Client::Create(const Resource& resource, std::string_view ns,
                                                   const rapidjson::Value& object, const WriteOptions& options) {
  std::string target_ns = ns.empty() ? MetaField(object, "namespace") : std::string(ns);
  if (resource.namespaced && target_ns.empty()) target_ns = config_.default_namespace;
  std::string name = MetaField(object, "name");
  Request req;
  req.method = "POST";
  req.path = resource.CollectionPath(target_ns);
  if (!options.subresource.empty()) req.path = resource.ObjectPath(target_ns, name, options.subresource);
  req.path += WriteQuery(options);
  req.body = Json(object);
  req.deadline = options.deadline;
  return Expect(Do(req), req.method, Context("create", resource, target_ns, name));
}

absl::StatusOr<rapidjson::Document> Client::Update(const Resource& resource, std::string_view ns,
                                                   const rapidjson::Value& object, const WriteOptions& options) {
  std::string target_ns = ns.empty() ? MetaField(object, "namespace") : std::string(ns);
  if (resource.namespaced && target_ns.empty()) target_ns = config_.default_namespace;
  std::string name = MetaField(object, "name");
  if (name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Context("update", resource, target_ns, ""), ": metadata.name is required"));
  }
  Request req;
  req.method = "PUT";
  req.path = resource.ObjectPath(target_ns, name, options.subresource) + WriteQuery(options);
  req.body = Json(object);
  req.deadline = options.deadline;
  return Expect(Do(req), req.method,
                Context(options.subresource.empty() ? "update" : "update " + options.subresource, resource,
                        target_ns, name));
}

absl::StatusOr<rapidjson::Document> Client::Patch(const Resource& resource, std::string_view ns, std::string_view name,
                                                  PatchType type, std::string_view patch,
                                                  const WriteOptions& options) {
  std::string target_ns(ns);
  if (resource.namespaced && target_ns.empty()) target_ns = config_.default_namespace;
  if (type == PatchType::kApply && options.field_manager.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Context("apply", resource, target_ns, name), ": server-side apply needs a field manager"));
  }
  Request req;
  req.method = "PATCH";
  req.path = resource.ObjectPath(target_ns, name, options.subresource) + WriteQuery(options);
  req.body = std::string(patch);
  req.deadline = options.deadline;
  switch (type) {
    case PatchType::kJsonMerge: req.content_type = "application/merge-patch+json"; break;
    case PatchType::kStrategicMerge: req.content_type = "application/strategic-merge-patch+json"; break;
    case PatchType::kApply: req.content_type = "application/apply-patch+yaml"; break;
    case PatchType::kJson: req.content_type = "application/json-patch+json"; break;
  }
  return Expect(Do(req), req.method,
                Context(type == PatchType::kApply ? "apply" : "patch", resource, target_ns, name));
}

absl::StatusOr<rapidjson::Document> Client::Delete(const Resource& resource, std::string_view ns,
                                                   std::string_view name, const DeleteOptions& options) {
  std::string target_ns(ns);
  if (resource.namespaced && target_ns.empty()) target_ns = config_.default_namespace;
  rapidjson::Document body(rapidjson::kObjectType);
  auto& a = body.GetAllocator();
  body.AddMember("apiVersion", "v1", a);
  body.AddMember("kind", "DeleteOptions", a);
  if (options.grace_period_seconds) body.AddMember("gracePeriodSeconds", *options.grace_period_seconds, a);
  if (!options.propagation_policy.empty()) {
    body.AddMember("propagationPolicy", rapidjson::Value(options.propagation_policy.c_str(), a), a);
  }
  if (!options.precondition_uid.empty() || !options.precondition_resource_version.empty()) {
    rapidjson::Value pre(rapidjson::kObjectType);
    if (!options.precondition_uid.empty()) pre.AddMember("uid", rapidjson::Value(options.precondition_uid.c_str(), a), a);
    if (!options.precondition_resource_version.empty()) {
      pre.AddMember("resourceVersion", rapidjson::Value(options.precondition_resource_version.c_str(), a), a);
    }
    body.AddMember("preconditions", pre, a);
  }
  Request req;
  req.method = "DELETE";
  req.path = resource.ObjectPath(target_ns, name);
  req.body = Json(body);
  req.deadline = options.deadline;
  return Expect(Do(req), req.method, Context("delete", resource, target_ns, name));
}

absl::StatusOr<GroupVersions> Client::DiscoverGroup(std::string_view group) {
  Request req;
  req.path = group.empty() ? "/api" : absl::StrCat("/apis/", AV(group));
  ASSIGN_OR_RETURN(rapidjson::Document doc,
                   Expect(Do(req), req.method, absl::StrCat("discover API group ", AV(group))));
  GroupVersions out;
  if (group.empty()) {
    if (auto it = doc.FindMember("versions"); it != doc.MemberEnd() && it->value.IsArray()) {
      for (const auto& v : it->value.GetArray()) {
        if (v.IsString()) out.versions.push_back(v.GetString());
      }
    }
  } else if (auto it = doc.FindMember("versions"); it != doc.MemberEnd() && it->value.IsArray()) {
    for (const auto& v : it->value.GetArray()) out.versions.push_back(StrMember(v, "version"));
    if (auto p = doc.FindMember("preferredVersion"); p != doc.MemberEnd()) out.preferred = StrMember(p->value, "version");
  }
  if (out.preferred.empty() && !out.versions.empty()) out.preferred = out.versions.front();
  return out;
}

absl::StatusOr<std::string> Client::PreferredVersion(std::string_view group, const std::vector<std::string>& supported) {
  ASSIGN_OR_RETURN(GroupVersions served, DiscoverGroup(group));
  for (const std::string& v : supported) {
    if (std::find(served.versions.begin(), served.versions.end(), v) != served.versions.end()) return v;
  }
  return absl::NotFoundError(absl::StrCat("API group ", AV(group), ": the server serves none of the versions DRAForge reads (",
                                          absl::StrJoin(supported, ", "), "); it serves: ",
                                          absl::StrJoin(served.versions, ", ")));
}

absl::StatusOr<std::string> Client::ServerVersion() {
  Request req;
  req.path = "/version";
  ASSIGN_OR_RETURN(rapidjson::Document doc, Expect(Do(req), req.method, "get server version"));
  return StrMember(doc, "gitVersion");
}

}  // namespace draforge::kube
