#include "kube/leader_election.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "kube/api_status.h"

namespace draforge::kube {
namespace {

// metav1.MicroTime's wire format.
std::string MicroTime(absl::Time t) { return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone()); }

std::string Str(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) return "";
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsString()) return "";
  return it->value.GetString();
}

int64_t Int(const rapidjson::Value& obj, const char* key, int64_t fallback) {
  if (!obj.IsObject()) return fallback;
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsInt64()) return fallback;
  return it->value.GetInt64();
}

// Builds the Lease object to write.
rapidjson::Document LeaseObject(const LeaderElectionOptions& o, const std::string& resource_version,
                                const std::string& holder, int64_t duration_seconds, const std::string& acquire_time,
                                const std::string& renew_time, int64_t transitions) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  auto s = [&](const std::string& v) { return rapidjson::Value(v.c_str(), static_cast<rapidjson::SizeType>(v.size()), a); };
  doc.AddMember("apiVersion", "coordination.k8s.io/v1", a);
  doc.AddMember("kind", "Lease", a);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", s(o.lease_name), a);
  meta.AddMember("namespace", s(o.lease_namespace), a);
  if (!resource_version.empty()) meta.AddMember("resourceVersion", s(resource_version), a);
  doc.AddMember("metadata", meta, a);
  rapidjson::Value spec(rapidjson::kObjectType);
  spec.AddMember("holderIdentity", s(holder), a);
  spec.AddMember("leaseDurationSeconds", duration_seconds, a);
  spec.AddMember("acquireTime", s(acquire_time), a);
  spec.AddMember("renewTime", s(renew_time), a);
  spec.AddMember("leaseTransitions", transitions, a);
  doc.AddMember("spec", spec, a);
  return doc;
}

}  // namespace

LeaderElector::LeaderElector(Client& client, LeaderElectionOptions options)
    : client_(client), options_(std::move(options)) {}

LeaderElector::~LeaderElector() { Stop(); }

void LeaderElector::Log(LogLevel level, const std::string& message) const {
  if (options_.log) options_.log(level, absl::StrCat("leader election ", options_.lease_namespace, "/",
                                                     options_.lease_name, " (", options_.identity, "): ", message));
}

absl::Status LeaderElector::Start() {
  if (started_) return absl::FailedPreconditionError("leader election: already started");
  if (options_.lease_name.empty()) return absl::InvalidArgumentError("leader election: lease_name is required");
  if (options_.identity.empty()) return absl::InvalidArgumentError("leader election: identity is required");
  if (options_.lease_namespace.empty()) {
    return absl::InvalidArgumentError("leader election: lease_namespace is required");
  }
  if (!(options_.lease_duration > options_.renew_deadline && options_.renew_deadline > options_.retry_period &&
        options_.retry_period > absl::ZeroDuration())) {
    return absl::InvalidArgumentError(
        "leader election: need lease_duration > renew_deadline > retry_period > 0 (upstream's rule, so that a "
        "leader gives up before its lease can be taken)");
  }
  started_ = true;
  thread_ = std::thread([this] { Run(); });
  return absl::OkStatus();
}

void LeaderElector::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    cv_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
}

bool LeaderElector::IsLeader() const {
  // Also true only while the last renewal is fresh: a request hanging in the network must not make
  // this candidate believe it leads after a successor may have taken over.
  return absl::Now() < LeadershipDeadline();
}

absl::Time LeaderElector::LeadershipDeadline() const {
  if (!leader_.load()) return absl::InfinitePast();
  absl::MutexLock lock(&mu_);
  return last_renew_ + options_.renew_deadline;
}

absl::Time LeaderElector::CallDeadline(bool renewing) const {
  const absl::Time now = absl::Now();
  if (!renewing) return now + options_.renew_deadline;
  absl::Time lapse;
  {
    absl::MutexLock lock(&mu_);
    lapse = last_renew_ + options_.renew_deadline;
  }
  // One hung call must not use up the whole renew budget: a fresh connection may well get through.
  return std::min(now + options_.retry_period, lapse);
}

std::string LeaderElector::ObservedLeader() const {
  absl::MutexLock lock(&mu_);
  return observed_holder_;
}

void LeaderElector::SetObserved(const std::string& holder) {
  bool changed = false;
  {
    absl::MutexLock lock(&mu_);
    if (observed_holder_ != holder) {
      observed_holder_ = holder;
      changed = true;
    }
  }
  if (changed && !holder.empty() && options_.on_new_leader) options_.on_new_leader(holder);
}

absl::StatusOr<bool> LeaderElector::TryAcquireOrRenew(bool renewing) {
  const Resource lease = LeaseResource();
  const int64_t duration = absl::ToInt64Seconds(options_.lease_duration);
  absl::Time now = absl::Now();
  GetOptions get;
  get.deadline = CallDeadline(renewing);
  auto current = client_.Get(lease, options_.lease_namespace, options_.lease_name, get);
  WriteOptions write;
  if (!current.ok()) {
    if (!IsApiNotFound(current.status())) return current.status();
    rapidjson::Document obj = LeaseObject(options_, "", options_.identity, duration, MicroTime(now), MicroTime(now), 0);
    write.deadline = CallDeadline(renewing);
    auto created = client_.Create(lease, options_.lease_namespace, obj, write);
    if (!created.ok()) {
      if (IsApiAlreadyExists(created.status())) return false;
      return created.status();
    }
    {
      absl::MutexLock lock(&mu_);
      observed_record_ = absl::StrCat(options_.identity, "|", MicroTime(now));
      observed_time_ = now;
      last_renew_ = now;
    }
    SetObserved(options_.identity);
    return true;
  }
  const rapidjson::Value& spec = (*current)["spec"];
  std::string holder = Str(spec, "holderIdentity");
  std::string renew = Str(spec, "renewTime");
  int64_t record_duration = Int(spec, "leaseDurationSeconds", duration);
  std::string record = absl::StrCat(holder, "|", renew, "|", record_duration);
  absl::Time observed_time;
  {
    absl::MutexLock lock(&mu_);
    if (record != observed_record_) {
      // Expiry is measured on our clock from when we saw the record change, never by comparing
      // renewTime with our clock (clocks of two machines may disagree).
      observed_record_ = record;
      observed_time_ = now;
    }
    observed_time = observed_time_;
  }
  SetObserved(holder);
  if (!holder.empty() && holder != options_.identity && observed_time + absl::Seconds(record_duration) > now) {
    return false;
  }
  std::string rv;
  if (auto m = current->FindMember("metadata"); m != current->MemberEnd()) rv = Str(m->value, "resourceVersion");
  std::string acquire = Str(spec, "acquireTime");
  int64_t transitions = Int(spec, "leaseTransitions", 0);
  if (holder != options_.identity) {
    acquire = MicroTime(now);
    ++transitions;
  }
  rapidjson::Document obj = LeaseObject(options_, rv, options_.identity, duration, acquire, MicroTime(now), transitions);
  write.deadline = CallDeadline(renewing);
  auto updated = client_.Update(lease, options_.lease_namespace, obj, write);
  if (!updated.ok()) {
    if (IsApiConflict(updated.status())) return false;  // someone else wrote first: they won this round
    return updated.status();
  }
  {
    absl::MutexLock lock(&mu_);
    observed_record_ = absl::StrCat(options_.identity, "|", MicroTime(now), "|", duration);
    observed_time_ = now;
    last_renew_ = now;
  }
  SetObserved(options_.identity);
  return true;
}

absl::Status LeaderElector::Release() {
  const Resource lease = LeaseResource();
  // Stop() must not hang on an unreachable API server: the release is a courtesy, bounded.
  GetOptions get;
  get.deadline = CallDeadline(/*renewing=*/false);
  ASSIGN_OR_RETURN(rapidjson::Document current, client_.Get(lease, options_.lease_namespace, options_.lease_name, get));
  const rapidjson::Value& spec = current["spec"];
  if (Str(spec, "holderIdentity") != options_.identity) return absl::OkStatus();
  std::string rv;
  if (auto m = current.FindMember("metadata"); m != current.MemberEnd()) rv = Str(m->value, "resourceVersion");
  absl::Time now = absl::Now();
  // client-go's release: no holder, a one-second duration, so any candidate may take it at once.
  rapidjson::Document obj =
      LeaseObject(options_, rv, "", 1, MicroTime(now), MicroTime(now), Int(spec, "leaseTransitions", 0));
  WriteOptions write;
  write.deadline = get.deadline;
  return client_.Update(lease, options_.lease_namespace, obj, write).status();
}

void LeaderElector::Run() {
  std::mt19937 rng{std::random_device{}()};
  auto sleep = [&](absl::Duration d) {
    absl::MutexLock lock(&mu_);
    absl::Time until = absl::Now() + d;
    while (!stop_.load() && absl::Now() < until) cv_.WaitWithDeadline(&mu_, until);
  };
  std::uniform_real_distribution<double> jitter(1.0, 1.2);
  while (!stop_.load()) {
    auto acquired = TryAcquireOrRenew(/*renewing=*/false);
    if (!acquired.ok()) Log(LogLevel::kWarning, absl::StrCat("acquire: ", acquired.status().message()));
    if (!acquired.ok() || !*acquired) {
      sleep(options_.retry_period * jitter(rng));
      continue;
    }
    leader_ = true;
    Log(LogLevel::kInfo, "became leader");
    if (options_.on_started_leading) options_.on_started_leading();
    while (!stop_.load()) {
      // Never sleep past the lapse of the lease: a failed renewal is retried until then, and the
      // loss of the lease is noticed (on_stopped_leading) when it happens, not a period later.
      sleep(std::min(options_.retry_period, LeadershipDeadline() - absl::Now()));
      if (stop_.load()) break;
      auto renewed = TryAcquireOrRenew(/*renewing=*/true);
      if (renewed.ok() && *renewed) continue;
      if (!renewed.ok()) Log(LogLevel::kWarning, absl::StrCat("renew: ", renewed.status().message()));
      if (absl::Now() >= LeadershipDeadline() || (renewed.ok() && !*renewed)) break;
    }
    leader_ = false;
    Log(LogLevel::kInfo, stop_.load() ? "stopped leading (stopping)" : "lost the lease");
    if (options_.on_stopped_leading) options_.on_stopped_leading();
    if (stop_.load() && options_.release_on_stop) {
      if (absl::Status s = Release(); !s.ok()) Log(LogLevel::kWarning, absl::StrCat("release: ", s.message()));
    }
  }
}

}  // namespace draforge::kube
