// DRAForge C++ API: a live Kubernetes cluster (include/draforge/kube.h): kubeconfig rules, the
// client and REST with JSON, the live source into a Cluster, and Lease leader election.
//
// Errors of calls that reach the API server carry Error::http_status and Error::reason
// (DRAFORGE_EAPI), so callers branch with IsKubeNotFound(e), IsKubeConflict(e), ...
//
// Threading: as the C handles. A KubeClient may be used from many threads at once. KubeSource's
// on_change runs on a source thread (one per kind), LeaderElector's callbacks on the elector's
// thread; neither may Stop() or destroy its own object.
#ifndef DRAFORGE_CPP_KUBE_HPP
#define DRAFORGE_CPP_KUBE_HPP

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "draforge/cpp/cluster.hpp"
#include "draforge/cpp/result.hpp"
#include "draforge/kube.h"

#if !defined(_WIN32)
extern "C" char** environ;  // POSIX: the calling process's environment
#endif

namespace draforge {

// The values of draforge_kube_config_options (kube.h describes the rules they feed).
struct KubeConfigOptions {
  std::string kubeconfig;      // explicit path (--kubeconfig)
  std::string kubeconfig_env;  // $KUBECONFIG
  std::string home;            // $HOME
  std::string context;         // --context
  std::vector<std::string> environment;  // "NAME=value" for exec credential plugins
  std::string service_host;    // KUBERNETES_SERVICE_HOST
  std::string service_port;    // KUBERNETES_SERVICE_PORT
  std::string token_path, ca_path, namespace_path;  // "": the service account's standard paths
  std::string user_agent;      // "": "draforge"
  int64_t timeout_ms = 0;      // 0: 30 s
  // Log lines of the client and of the sources and electors made from it; any thread, maybe at once.
  std::function<void(int level, std::string_view message)> log;
};

// The options a front end gets from its own process: $KUBECONFIG, $HOME,
// KUBERNETES_SERVICE_HOST/PORT and the whole environment for exec plugins. Reads the environment in
// the caller's process (the library never does); `kubeconfig` and `context` are the caller's flags.
inline KubeConfigOptions KubeConfigOptionsFromEnvironment(std::string_view kubeconfig = {},
                                                          std::string_view context = {}) {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  KubeConfigOptions o;
  o.kubeconfig = std::string(kubeconfig);
  o.context = std::string(context);
  o.kubeconfig_env = env("KUBECONFIG");
  o.home = env("HOME");
  o.service_host = env("KUBERNETES_SERVICE_HOST");
  o.service_port = env("KUBERNETES_SERVICE_PORT");
#if !defined(_WIN32)
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) o.environment.emplace_back(*e);
#endif
  return o;
}

// The C++ side of kube.h's request options.
struct KubeRequestOptions {
  int64_t deadline_unix_ns = DRAFORGE_KUBE_NO_DEADLINE;
  std::string subresource;
  std::string label_selector, field_selector;
  int64_t limit = 500;
  std::string resource_version;
  std::string field_manager;
  bool dry_run = false;
  bool force = false;
  std::string precondition_uid, precondition_resource_version, propagation_policy;
  int64_t grace_period_seconds = -1;
};

// Classifiers of API server errors (apimachinery's errors.IsNotFound, ...).
inline bool IsKubeNotFound(const Error& e) { return e.code == DRAFORGE_EAPI && e.http_status == 404; }
inline bool IsKubeConflict(const Error& e) { return e.code == DRAFORGE_EAPI && e.reason == "Conflict"; }
inline bool IsKubeAlreadyExists(const Error& e) { return e.code == DRAFORGE_EAPI && e.reason == "AlreadyExists"; }
inline bool IsKubeGone(const Error& e) { return e.code == DRAFORGE_EAPI && e.http_status == 410; }

// The current wall-clock time in ns since the epoch (what deadlines are compared with).
inline int64_t KubeNow() { return draforge_kube_now(); }

namespace detail {

// A C error of a kube call as an Error with its HTTP status and reason.
inline Error TakeKubeError(int rc, draforge_error* e) {
  const int http = draforge_kube_error_status_code(e);
  std::string reason = draforge_kube_error_reason(e);
  Error out = TakeError(rc, e);
  out.http_status = http;
  out.reason = std::move(reason);
  return out;
}

template <typename Fn>
Result<std::string> KubeBufferCall(Fn fn) {
  draforge_buffer buf{nullptr, 0};
  draforge_error* e = nullptr;
  const int rc = fn(&buf, &e);
  if (rc != DRAFORGE_OK) {
    draforge_buffer_dispose(&buf);
    return TakeKubeError(rc, e);
  }
  return TakeBuffer(buf);
}

using KubeLog = std::function<void(int, std::string_view)>;

inline void KubeLogTrampoline(void* user, int level, const char* message) {
  (*static_cast<KubeLog*>(user))(level, message);
}

// C options over a KubeConfigOptions; valid while `o` and this object live.
class KubeConfigC {
 public:
  KubeConfigC(const KubeConfigOptions& o, KubeLog* log) {
    for (const std::string& e : o.environment) env_.push_back(e.c_str());
    auto s = [](const std::string& v) { return v.empty() ? nullptr : v.c_str(); };
    c_.kubeconfig = s(o.kubeconfig);
    c_.kubeconfig_env = s(o.kubeconfig_env);
    c_.home = s(o.home);
    c_.context = s(o.context);
    c_.environment = env_.empty() ? nullptr : env_.data();
    c_.environment_count = env_.size();
    c_.service_host = s(o.service_host);
    c_.service_port = s(o.service_port);
    c_.token_path = s(o.token_path);
    c_.ca_path = s(o.ca_path);
    c_.namespace_path = s(o.namespace_path);
    c_.user_agent = s(o.user_agent);
    c_.timeout_ms = o.timeout_ms;
    if (log != nullptr && *log) {
      c_.log = KubeLogTrampoline;
      c_.log_user_data = log;
    }
  }
  const draforge_kube_config_options* get() const { return &c_; }

 private:
  std::vector<const char*> env_;
  draforge_kube_config_options c_ = DRAFORGE_KUBE_CONFIG_OPTIONS_INIT;
};

// C request options over a KubeRequestOptions; valid while `o` lives.
inline draforge_kube_request_options KubeRequestC(const KubeRequestOptions& o) {
  auto s = [](const std::string& v) { return v.empty() ? nullptr : v.c_str(); };
  draforge_kube_request_options c = DRAFORGE_KUBE_REQUEST_OPTIONS_INIT;
  c.deadline_unix_ns = o.deadline_unix_ns;
  c.subresource = s(o.subresource);
  c.label_selector = s(o.label_selector);
  c.field_selector = s(o.field_selector);
  c.limit = o.limit;
  c.resource_version = s(o.resource_version);
  c.field_manager = s(o.field_manager);
  c.dry_run = o.dry_run ? 1 : 0;
  c.force = o.force ? 1 : 0;
  c.precondition_uid = s(o.precondition_uid);
  c.precondition_resource_version = s(o.precondition_resource_version);
  c.propagation_policy = s(o.propagation_policy);
  c.grace_period_seconds = o.grace_period_seconds;
  return c;
}

}  // namespace detail

// Which configuration the rules pick, as JSON ({"source":..., "files", "server", "context",
// "namespace", "exec"}; source "none" when nothing is configured).
inline Result<std::string> ResolveKubeConfig(const KubeConfigOptions& options) {
  detail::KubeConfigC c(options, nullptr);
  return detail::KubeBufferCall(
      [&](draforge_buffer* out, draforge_error** e) { return draforge_kube_config_resolve(out, c.get(), e); });
}

// A client of one API server. Move-only; every call may run from many threads at once.
class KubeClient {
 public:
  static Result<KubeClient> Create(const KubeConfigOptions& options) {
    auto log = std::make_shared<detail::KubeLog>(options.log);
    detail::KubeConfigC c(options, log.get());
    draforge_kube_client* raw = nullptr;
    draforge_error* e = nullptr;
    const int rc = draforge_kube_client_create(&raw, c.get(), &e);
    if (rc != DRAFORGE_OK) return detail::TakeKubeError(rc, e);
    return KubeClient(raw, std::move(log));
  }

  std::string_view server() const { return draforge_kube_client_server(p_.get()); }
  std::string_view default_namespace() const { return draforge_kube_client_namespace(p_.get()); }
  std::string_view context() const { return draforge_kube_client_context(p_.get()); }
  // GET /version as JSON.
  Result<std::string> ServerVersionJson() const {
    return detail::KubeBufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_kube_client_server_version(out, p_.get(), e);
    });
  }
  // GET /version ended at `deadline_unix_ns` (KubeNow() + a bound): a probe in bounded time.
  Result<std::string> ServerVersionJson(int64_t deadline_unix_ns) const {
    return detail::KubeBufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_kube_client_server_version_until(out, p_.get(), deadline_unix_ns, e);
    });
  }

  Result<std::string> Get(std::string_view api_version, std::string_view resource, std::string_view namespace_,
                          std::string_view name, const KubeRequestOptions& options = {}) const {
    detail::CString av(api_version), r(resource), ns(namespace_), n(name);
    const draforge_kube_request_options o = detail::KubeRequestC(options);
    return detail::KubeBufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_kube_get(out, p_.get(), av.get(), r.get(), ns.or_null(), n.get(), &o, e);
    });
  }
  // The whole list (every page), items with apiVersion and kind.
  Result<std::string> List(std::string_view api_version, std::string_view resource, std::string_view namespace_ = {},
                           const KubeRequestOptions& options = {}) const {
    detail::CString av(api_version), r(resource), ns(namespace_);
    const draforge_kube_request_options o = detail::KubeRequestC(options);
    return detail::KubeBufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_kube_list(out, p_.get(), av.get(), r.get(), ns.or_null(), &o, e);
    });
  }
  Result<std::string> Create(std::string_view api_version, std::string_view resource, std::string_view namespace_,
                             std::string_view body, const KubeRequestOptions& options = {}) const {
    detail::CString av(api_version), r(resource), ns(namespace_);
    const draforge_kube_request_options o = detail::KubeRequestC(options);
    return detail::KubeBufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_kube_create(out, p_.get(), av.get(), r.get(), ns.or_null(), body.data(), body.size(), &o, e);
    });
  }
  // PUT (options.subresource "status": the status subresource).
  Result<std::string> Update(std::string_view api_version, std::string_view resource, std::string_view namespace_,
                             std::string_view body, const KubeRequestOptions& options = {}) const {
    detail::CString av(api_version), r(resource), ns(namespace_);
    const draforge_kube_request_options o = detail::KubeRequestC(options);
    return detail::KubeBufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_kube_update(out, p_.get(), av.get(), r.get(), ns.or_null(), body.data(), body.size(), &o, e);
    });
  }
  Result<std::string> Patch(std::string_view api_version, std::string_view resource, std::string_view namespace_,
                            std::string_view name, draforge_kube_patch_type type, std::string_view patch,
                            const KubeRequestOptions& options = {}) const {
    detail::CString av(api_version), r(resource), ns(namespace_), n(name);
    const draforge_kube_request_options o = detail::KubeRequestC(options);
    return detail::KubeBufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_kube_patch(out, p_.get(), av.get(), r.get(), ns.or_null(), n.get(), type, patch.data(),
                                 patch.size(), &o, e);
    });
  }
  Result<std::string> Delete(std::string_view api_version, std::string_view resource, std::string_view namespace_,
                             std::string_view name, const KubeRequestOptions& options = {}) const {
    detail::CString av(api_version), r(resource), ns(namespace_), n(name);
    const draforge_kube_request_options o = detail::KubeRequestC(options);
    return detail::KubeBufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_kube_delete(out, p_.get(), av.get(), r.get(), ns.or_null(), n.get(), &o, e);
    });
  }
  // {"draVersion","objects":[...],"skipped":[...]}: every DRA object, Pod and Node, read once.
  Result<std::string> ListClusterState(std::string_view namespace_ = {}) const {
    detail::CString ns(namespace_);
    return detail::KubeBufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_kube_list_cluster_state(out, p_.get(), ns.or_null(), e);
    });
  }

  draforge_kube_client* c_handle() const noexcept { return p_.get(); }
  // The log function, shared with the sources and electors made from this client.
  const std::shared_ptr<detail::KubeLog>& log_state() const noexcept { return log_; }

 private:
  KubeClient(draforge_kube_client* p, std::shared_ptr<detail::KubeLog> log) : p_(p), log_(std::move(log)) {}
  std::unique_ptr<draforge_kube_client, detail::HandleDeleter<draforge_kube_client, draforge_kube_client_destroy>> p_;
  std::shared_ptr<detail::KubeLog> log_;
};

struct KubeSourceOptions {
  std::string namespace_;         // "": every namespace
  std::string kinds;              // "": the DRA kinds, Pod and Node
  std::string custom_resources;   // "group/version/resource,..."
  std::string dra_version;        // "": discover
  int64_t page_size = 0;          // 0: 500
  // After every change applied to the cluster; runs on a source thread (see kube.h).
  std::function<void(std::string_view kind)> on_change;
};

// A running list + watch into a Cluster (which must outlive it). Move-only; destroying it stops
// and joins its threads.
class KubeSource {
 public:
  static Result<KubeSource> Start(const KubeClient& client, Cluster& cluster, KubeSourceOptions options = {}) {
    auto state = std::make_unique<State>();
    state->on_change = std::move(options.on_change);
    state->log = client.log_state();
    detail::CString ns(options.namespace_), kinds(options.kinds), custom(options.custom_resources),
        dra(options.dra_version);
    draforge_kube_source_options o = DRAFORGE_KUBE_SOURCE_OPTIONS_INIT;
    o.namespace_ = ns.or_null();
    o.kinds = kinds.or_null();
    o.custom_resources = custom.or_null();
    o.dra_version = dra.or_null();
    o.page_size = options.page_size;
    if (state->on_change) {
      o.on_change = [](void* user, const char* kind) { static_cast<State*>(user)->on_change(kind); };
      o.on_change_user_data = state.get();
    }
    draforge_kube_source* raw = nullptr;
    draforge_error* e = nullptr;
    const int rc = draforge_kube_source_start(&raw, client.c_handle(), cluster.c_handle(), &o, &e);
    if (rc != DRAFORGE_OK) return detail::TakeKubeError(rc, e);
    state->handle = raw;
    return KubeSource(std::move(state));
  }

  bool synced() const { return draforge_kube_source_synced(s_->handle) != 0; }
  bool WaitSynced(int64_t timeout_ms) const { return draforge_kube_source_wait_synced(s_->handle, timeout_ms) != 0; }
  // The latest list/watch failure, or success.
  Result<void> LastError() const {
    draforge_error* e = nullptr;
    const int rc = draforge_kube_source_last_error(s_->handle, &e);
    if (rc != DRAFORGE_OK) return detail::TakeKubeError(rc, e);
    return {};
  }
  std::string_view dra_version() const { return draforge_kube_source_dra_version(s_->handle); }
  Result<std::string> StatsJson() const {
    return detail::KubeBufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_kube_source_stats_json(out, s_->handle, e);
    });
  }
  // Ends the watches and joins the threads; no callback runs afterwards. Idempotent.
  void Stop() { draforge_kube_source_stop(s_->handle); }

 private:
  struct State {
    ~State() { draforge_kube_source_destroy(handle); }  // joins before on_change goes
    draforge_kube_source* handle = nullptr;
    std::function<void(std::string_view)> on_change;
    std::shared_ptr<detail::KubeLog> log;  // the client's log, which the source's threads use
  };
  explicit KubeSource(std::unique_ptr<State> s) : s_(std::move(s)) {}
  std::unique_ptr<State> s_;
};

struct LeaderElectionOptions {
  std::string lease_namespace;  // "": "default"
  std::string lease_name;
  std::string identity;
  int64_t lease_duration_ms = 0;  // 0: 15 s
  int64_t renew_deadline_ms = 0;  // 0: 10 s
  int64_t retry_period_ms = 0;    // 0: 2 s
  bool release_on_stop = true;
  // On the elector's thread (see kube.h).
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  std::function<void(std::string_view identity)> on_new_leader;
};

// A candidate for a Lease, campaigning from Start until Stop or destruction. Move-only.
class LeaderElector {
 public:
  static Result<LeaderElector> Start(const KubeClient& client, LeaderElectionOptions options) {
    auto state = std::make_unique<State>();
    state->options = std::move(options);
    state->log = client.log_state();
    const LeaderElectionOptions& lo = state->options;
    detail::CString ns(lo.lease_namespace), name(lo.lease_name), id(lo.identity);
    draforge_kube_leader_election_options o = DRAFORGE_KUBE_LEADER_ELECTION_OPTIONS_INIT;
    o.lease_namespace = ns.or_null();
    o.lease_name = name.get();
    o.identity = id.get();
    o.lease_duration_ms = lo.lease_duration_ms;
    o.renew_deadline_ms = lo.renew_deadline_ms;
    o.retry_period_ms = lo.retry_period_ms;
    o.release_on_stop = lo.release_on_stop ? 1 : 0;
    o.user_data = state.get();
    if (lo.on_started_leading) {
      o.on_started_leading = [](void* u) { static_cast<State*>(u)->options.on_started_leading(); };
    }
    if (lo.on_stopped_leading) {
      o.on_stopped_leading = [](void* u) { static_cast<State*>(u)->options.on_stopped_leading(); };
    }
    if (lo.on_new_leader) {
      o.on_new_leader = [](void* u, const char* id) { static_cast<State*>(u)->options.on_new_leader(id); };
    }
    draforge_kube_leader_elector* raw = nullptr;
    draforge_error* e = nullptr;
    const int rc = draforge_kube_leader_elector_start(&raw, client.c_handle(), &o, &e);
    if (rc != DRAFORGE_OK) return detail::TakeKubeError(rc, e);
    state->handle = raw;
    return LeaderElector(std::move(state));
  }

  bool is_leader() const { return draforge_kube_leader_elector_is_leader(s_->handle) != 0; }
  // Until when this candidate may act as leader (ns since the epoch); INT64_MIN when not leading.
  // Pass it as KubeRequestOptions::deadline_unix_ns of every leader-gated write.
  int64_t deadline() const { return draforge_kube_leader_elector_deadline(s_->handle); }
  Result<std::string> ObservedLeader() const {
    return detail::KubeBufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_kube_leader_elector_observed_leader(out, s_->handle, e);
    });
  }
  // Stops campaigning (a leader releases the Lease when release_on_stop) and joins. Idempotent.
  void Stop() { draforge_kube_leader_elector_stop(s_->handle); }

 private:
  struct State {
    ~State() { draforge_kube_leader_elector_destroy(handle); }
    draforge_kube_leader_elector* handle = nullptr;
    LeaderElectionOptions options;
    std::shared_ptr<detail::KubeLog> log;
  };
  explicit LeaderElector(std::unique_ptr<State> s) : s_(std::move(s)) {}
  std::unique_ptr<State> s_;
};

}  // namespace draforge

#endif  // DRAFORGE_CPP_KUBE_HPP
