#include "kube/reflector.h"

#include <algorithm>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/codec.h"
#include "common/status.h"
#include "kube/api_status.h"
#include "kube/internal/backoff.h"

namespace draforge::kube {

struct Reflector::KindState {
  api::Kind kind;
  Resource resource;
  std::string resource_version;  // where the next watch resumes
  bool need_list = true;
  std::atomic<bool> synced{false};
  absl::Status last_error;  // guarded by Reflector::mu_
};

namespace {

std::string ResourceVersionOf(const rapidjson::Value& obj) {
  if (!obj.IsObject()) return "";
  auto m = obj.FindMember("metadata");
  if (m == obj.MemberEnd() || !m->value.IsObject()) return "";
  auto rv = m->value.FindMember("resourceVersion");
  if (rv == m->value.MemberEnd() || !rv->value.IsString()) return "";
  return rv->value.GetString();
}

// The resources served by one group version ("/apis/resource.k8s.io/v1"), by plural name.
absl::StatusOr<std::vector<std::string>> ServedResources(Client& client, const std::string& group_version) {
  Request req;
  req.path = absl::StrCat("/apis/", group_version);
  ASSIGN_OR_RETURN(Response resp, client.Do(req));
  if (resp.code != 200) {
    return absl::NotFoundError(absl::StrCat("discover ", group_version, ": HTTP ", resp.code));
  }
  ASSIGN_OR_RETURN(rapidjson::Document doc, api::ParseJson(resp.body, false));
  std::vector<std::string> out;
  auto it = doc.FindMember("resources");
  if (it != doc.MemberEnd() && it->value.IsArray()) {
    for (const auto& r : it->value.GetArray()) {
      auto n = r.FindMember("name");
      if (n != r.MemberEnd() && n->value.IsString()) out.push_back(n->value.GetString());
    }
  }
  return out;
}

}  // namespace

std::vector<api::Kind> DefaultReflectorKinds() {
  return {api::Kind::kDeviceClass, api::Kind::kResourceSlice,   api::Kind::kResourceClaim,
          api::Kind::kResourceClaimTemplate, api::Kind::kDeviceTaintRule, api::Kind::kPod,
          api::Kind::kNode};
}

Reflector::Reflector(Client& client, store::Cluster& cluster, ReflectorOptions options)
    : client_(client), cluster_(cluster), options_(std::move(options)) {}

Reflector::~Reflector() { Stop(); }

void Reflector::Log(LogLevel level, const std::string& message) const {
  if (options_.log) options_.log(level, message);
}

void Reflector::Changed(const KindState* state) const {
  if (options_.on_change) options_.on_change(state->kind);
  if (options_.on_resource_change) options_.on_resource_change(state->resource);
}

void Reflector::Count(uint64_t ReflectorStats::*field, uint64_t n) {
  absl::MutexLock lock(&mu_);
  stats_.*field += n;
}

absl::Status Reflector::Start() {
  if (started_) return absl::FailedPreconditionError("reflector: already started");
  if (options_.kinds.empty() && options_.custom_resources.empty()) {
    return absl::InvalidArgumentError("reflector: no kinds to watch");
  }
  for (api::Kind kind : options_.kinds) {
    if (kind == api::Kind::kOther || kind == api::Kind::kResourcePoolStatusRequest) {
      return absl::InvalidArgumentError(
          absl::StrCat("reflector: kind ", kind == api::Kind::kOther ? "(other)" : AV(api::KindName(kind)),
                       " is not supported"));
    }
  }
  // The DRA version: v1 where served; older servers get the newest beta, converted on decode.
  std::string version = options_.resource_version_override;
  bool has_dra = std::any_of(options_.kinds.begin(), options_.kinds.end(),
                             [](api::Kind k) { return k != api::Kind::kPod && k != api::Kind::kNode; });
  std::vector<std::string> candidates = {"v1", "v1beta2", "v1beta1"};
  if (has_dra && version.empty()) {
    ASSIGN_OR_RETURN(version, client_.PreferredVersion("resource.k8s.io", candidates));
  }
  // Built aside and committed only when every kind resolved, so a failed Start leaves no trace.
  std::vector<std::unique_ptr<KindState>> kinds;
  for (api::Kind kind : options_.kinds) {
    auto state = std::make_unique<KindState>();
    state->kind = kind;
    state->resource = *ResourceFor(kind, kind == api::Kind::kPod || kind == api::Kind::kNode ? "" : version);
    if (kind == api::Kind::kDeviceTaintRule) {
      // DeviceTaintRule moved between versions more than the others: use the first of the usual
      // order that actually serves it.
      std::vector<std::string> order = {version};
      for (const char* v : {"v1", "v1beta2", "v1alpha3"}) order.push_back(v);
      bool found = false;
      for (const std::string& v : order) {
        auto served = ServedResources(client_, "resource.k8s.io/" + v);
        if (served.ok() && std::find(served->begin(), served->end(), "devicetaintrules") != served->end()) {
          state->resource.version = v;
          found = true;
          break;
        }
      }
      if (!found) {
        return absl::NotFoundError("reflector: the server serves devicetaintrules in no resource.k8s.io version "
                                   "(is the DRADeviceTaintRules feature gate on?)");
      }
    }
    kinds.push_back(std::move(state));
  }
  for (const Resource& custom : options_.custom_resources) {
    if (custom.version.empty() || custom.resource.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("reflector: custom resource \"", custom.group, "/", custom.version, "/", custom.resource,
                       "\" needs a version and a resource"));
    }
    auto state = std::make_unique<KindState>();
    state->kind = api::Kind::kOther;
    state->resource = custom;
    kinds.push_back(std::move(state));
  }
  kinds_ = std::move(kinds);
  {
    absl::MutexLock lock(&mu_);
    group_version_ = version;
  }
  started_ = true;
  stop_ = false;
  for (auto& state : kinds_) threads_.emplace_back([this, s = state.get()] { Run(s); });
  return absl::OkStatus();
}

void Reflector::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    stop_cv_.SignalAll();
  }
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

bool Reflector::HasSynced() const {
  if (kinds_.empty()) return false;
  for (const auto& s : kinds_) {
    if (!s->synced.load()) return false;
  }
  return true;
}

bool Reflector::WaitForSync(absl::Duration timeout) const {
  absl::Time deadline = absl::Now() + timeout;
  while (!HasSynced() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(20));
  return HasSynced();
}

absl::Status Reflector::LastError() const {
  absl::MutexLock lock(&mu_);
  for (const auto& s : kinds_) {
    if (!s->last_error.ok()) return s->last_error;
  }
  return absl::OkStatus();
}

ReflectorStats Reflector::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

std::string Reflector::resource_version_in_use() const {
  absl::MutexLock lock(&mu_);
  return group_version_;
}

absl::Status Reflector::ListOnce(KindState* state) {
  ListOptions list_options;
  list_options.limit = options_.page_size;
  ASSIGN_OR_RETURN(ListResult list, client_.List(state->resource, options_.namespace_, list_options));
  std::vector<api::Object> objects;
  auto& items = list.list["items"];
  objects.reserve(items.Size());
  uint64_t bad = 0;
  for (const auto& item : items.GetArray()) {
    std::vector<std::string> warnings;
    auto obj = api::DecodeObject(item, api::DecodeOptions{}, &warnings);
    if (!obj.ok()) {
      ++bad;
      Log(LogLevel::kError, absl::StrCat("reflector: list ", state->resource.resource, ": skipping an object: ",
                                         obj.status().message()));
      continue;
    }
    objects.push_back(*std::move(obj));
  }
  store::ReplaceStats stats;
  if (state->kind == api::Kind::kOther) {
    // A custom resource's kind is the list's ("SimulatedDevicePoolList") without "List".
    if (state->resource.kind.empty()) {
      std::string list_kind = list.list.HasMember("kind") && list.list["kind"].IsString()
                                  ? list.list["kind"].GetString()
                                  : "";
      if (absl::EndsWith(list_kind, "List")) list_kind.resize(list_kind.size() - 4);
      state->resource.kind = list_kind;
    }
    RETURN_IF_ERROR(cluster_.ReplaceOthers(state->resource.group, state->resource.kind, std::move(objects),
                                           list.resource_version, &stats));
  } else {
    RETURN_IF_ERROR(cluster_.ReplaceKinds({state->kind}, std::move(objects), list.resource_version, &stats));
  }
  state->resource_version = list.resource_version;
  state->synced = true;
  {
    absl::MutexLock lock(&mu_);
    ++stats_.lists;
    stats_.decode_errors += bad;
  }
  Log(LogLevel::kDebug, absl::StrCat("reflector: listed ", state->resource.resource, " at resourceVersion ",
                                     list.resource_version, " (", list.pages, " pages; +", stats.added, " ~",
                                     stats.updated, " -", stats.deleted, ")"));
  if ((stats.added + stats.updated + stats.deleted) > 0) Changed(state);
  return absl::OkStatus();
}

absl::Status Reflector::WatchOnce(KindState* state, uint64_t* events) {
  *events = 0;
  thread_local std::mt19937 rng{std::random_device{}()};
  int64_t base = absl::ToInt64Seconds(options_.watch_timeout);
  std::uniform_int_distribution<int64_t> spread(base, 2 * base);
  WatchOptions wo;
  wo.resource_version = state->resource_version;
  wo.allow_bookmarks = true;
  wo.timeout_seconds = static_cast<int>(std::max<int64_t>(1, spread(rng)));
  wo.on_open = [&] {
    // The server took the watch: the latest attempt succeeded, whatever failed before it.
    absl::MutexLock lock(&mu_);
    state->last_error = absl::OkStatus();
  };
  Count(&ReflectorStats::watches);
  absl::Status apply_error;
  absl::Status s = client_.Watch(
      state->resource, options_.namespace_, wo,
      [&](WatchEvent& event) {
        std::optional<store::EventType> type = store::ParseEventType(event.type);
        if (!type) {
          apply_error = absl::DataLossError(absl::StrCat("unknown watch event type ", event.type));
          return false;
        }
        std::string rv = ResourceVersionOf(event.object);
        ++*events;
        if (*type == store::EventType::kBookmark) {
          if (!rv.empty()) state->resource_version = rv;
          Count(&ReflectorStats::events);
          return true;
        }
        std::vector<std::string> warnings;
        auto obj = api::DecodeObject(event.object, api::DecodeOptions{}, &warnings);
        if (!obj.ok()) {
          // Skipping keeps the rest of the stream; the object comes back on the next relist if the
          // codec learns it. Never store half an object.
          Count(&ReflectorStats::decode_errors);
          Log(LogLevel::kError, absl::StrCat("reflector: watch ", state->resource.resource, ": skipping ", event.type,
                                             " event: ", obj.status().message()));
        } else {
          store::Outcome outcome;
          absl::Status applied = cluster_.ApplyEvent(*type, *std::move(obj), &outcome);
          if (!applied.ok()) {
            apply_error = applied;
            return false;
          }
          if (outcome != store::Outcome::kUnchanged && outcome != store::Outcome::kIgnoredStale &&
              outcome != store::Outcome::kNotFound) {
            Changed(state);
          }
        }
        if (!rv.empty()) state->resource_version = rv;
        Count(&ReflectorStats::events);
        return !stop_.load();
      },
      &stop_);
  if (!apply_error.ok()) return apply_error;
  return s;
}

void Reflector::Run(KindState* state) {
  internal::Backoff backoff({.initial = options_.initial_backoff,
                             .max = options_.max_backoff,
                             .jitter = options_.backoff_jitter,
                             .reset_after = options_.backoff_reset});
  auto now = [&] { return options_.now ? options_.now() : absl::Now(); };
  auto sleep = [&](absl::Duration d) {
    if (options_.sleep) {
      options_.sleep(d);
      return;
    }
    absl::MutexLock lock(&mu_);
    absl::Time until = absl::Now() + d;
    while (!stop_.load() && absl::Now() < until) stop_cv_.WaitWithDeadline(&mu_, until);
  };
  auto back_off = [&](LogLevel level, const std::string& why) {
    absl::Duration wait = backoff.Next(now());
    Log(level, absl::StrCat("reflector: ", why, "; retrying in ", absl::FormatDuration(wait)));
    sleep(wait);
  };
  auto fail = [&](const absl::Status& s) {
    {
      absl::MutexLock lock(&mu_);
      state->last_error = s;
      ++stats_.errors;
    }
    back_off(LogLevel::kWarning, std::string(s.message()));
  };
  while (!stop_.load()) {
    if (state->need_list) {
      absl::Status s = ListOnce(state);
      if (stop_.load()) break;
      if (!s.ok()) {
        fail(s);
        continue;
      }
      state->need_list = false;
      absl::MutexLock lock(&mu_);
      state->last_error = absl::OkStatus();
    }
    absl::Time started = now();
    uint64_t events = 0;
    absl::Status s = WatchOnce(state, &events);
    if (stop_.load()) break;
    if (s.ok()) {
      // The server ended the watch (timeoutSeconds): resume from the last resourceVersion.
      {
        absl::MutexLock lock(&mu_);
        state->last_error = absl::OkStatus();
      }
      absl::Duration lasted = now() - started;
      if (events == 0 && lasted < options_.min_watch_duration) {
        Count(&ReflectorStats::short_watches);
        back_off(LogLevel::kWarning, absl::StrCat("watch ", state->resource.resource, " ended after ",
                                                  absl::FormatDuration(lasted), " without an event"));
      }
      continue;
    }
    if (IsApiGone(s)) {
      // The resourceVersion we would resume from is compacted away: only a relist is exact. Every
      // client of the server sees this at once after a compaction or a restart; the backoff keeps
      // their relists from arriving together.
      Count(&ReflectorStats::relists_gone);
      state->need_list = true;
      back_off(LogLevel::kInfo, absl::StrCat(s.message(), "; relisting"));
      continue;
    }
    if (absl::IsDataLoss(s) || absl::IsInternal(s) || absl::IsInvalidArgument(s)) state->need_list = true;
    fail(s);
  }
}

}  // namespace draforge::kube
