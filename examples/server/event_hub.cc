#include "event_hub.h"

#include <string_view>
#include <tuple>
#include <utility>

#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::server {
namespace {

constexpr api::Kind kWatchedKinds[] = {
    api::Kind::kDeviceClass, api::Kind::kResourceClaim, api::Kind::kResourceClaimTemplate,
    api::Kind::kResourceSlice, api::Kind::kDeviceTaintRule, api::Kind::kResourcePoolStatusRequest,
    api::Kind::kPod, api::Kind::kNode,
};

struct Change {
  std::string_view type;
  std::string_view kind;
  std::string ns;
  std::string name;
};

std::pair<std::string, std::string> NameOf(const api::Object* o) {
  return {o->metadata().namespace_.value_or(""), o->metadata().name.value_or("")};
}

}  // namespace

std::string DiffSnapshots(const store::Snapshot& before, const store::Snapshot& after) {
  std::vector<Change> changes;
  for (api::Kind kind : kWatchedKinds) {
    const auto a = before.List(kind);
    const auto b = after.List(kind);
    const std::string_view kind_name = api::KindName(kind);
    size_t i = 0, j = 0;
    // Both lists are sorted by (namespace, name): a merge finds additions, deletions and, for the
    // same name, a different stored object (snapshots share unchanged objects by pointer).
    while (i < a.size() || j < b.size()) {
      if (j == b.size() || (i < a.size() && NameOf(a[i]) < NameOf(b[j]))) {
        auto [ns, name] = NameOf(a[i++]);
        changes.push_back({"DELETED", kind_name, std::move(ns), std::move(name)});
      } else if (i == a.size() || NameOf(b[j]) < NameOf(a[i])) {
        auto [ns, name] = NameOf(b[j++]);
        changes.push_back({"ADDED", kind_name, std::move(ns), std::move(name)});
      } else {
        if (a[i] != b[j] && !(*a[i] == *b[j])) {
          auto [ns, name] = NameOf(b[j]);
          changes.push_back({"MODIFIED", kind_name, std::move(ns), std::move(name)});
        }
        ++i;
        ++j;
      }
    }
  }
  if (changes.empty()) return {};
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("generation");
  w.Uint64(after.generation());
  w.Key("resourceVersion");
  w.String(after.resource_version().c_str());
  w.Key("previousGeneration");
  w.Uint64(before.generation());
  w.Key("changes");
  w.StartArray();
  for (const auto& c : changes) {
    w.StartObject();
    w.Key("type");
    w.String(c.type.data(), c.type.size());
    w.Key("kind");
    w.String(c.kind.data(), c.kind.size());
    w.Key("namespace");
    w.String(c.ns.c_str(), c.ns.size());
    w.Key("name");
    w.String(c.name.c_str(), c.name.size());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

EventHub::EventHub(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

void EventHub::Publish(std::shared_ptr<const store::Snapshot> snapshot) {
  std::shared_ptr<const store::Snapshot> before;
  {
    std::unique_lock lock(mu_);
    if (last_ == nullptr) {
      last_ = std::move(snapshot);
      current_id_ = last_->generation();
      return;
    }
    if (snapshot->generation() == last_->generation()) return;
    before = last_;
  }
  // Diffing outside the lock: only the watcher thread publishes, readers keep reading the ring.
  std::string data = DiffSnapshots(*before, *snapshot);
  std::unique_lock lock(mu_);
  last_ = snapshot;
  if (data.empty()) return;  // only a resourceVersion or bookmark moved: nothing a client shows
  ring_.push_back({snapshot->generation(), current_id_, std::move(data)});
  current_id_ = snapshot->generation();
  ++published_;
  while (ring_.size() > capacity_) ring_.pop_front();
  lock.unlock();
  changed_.notify_all();
}

CatchUp EventHub::Since(uint64_t last_id) const {
  std::unique_lock lock(mu_);
  CatchUp out;
  out.current_id = current_id_;
  if (last_id == current_id_) return out;
  const uint64_t oldest = ring_.empty() ? current_id_ : ring_.front().previous_id;
  if (last_id > current_id_ || last_id < oldest) {
    out.reset = true;
    return out;
  }
  for (const auto& e : ring_) {
    if (e.id > last_id) out.events.push_back(e);
  }
  return out;
}

bool EventHub::WaitAfter(uint64_t last_id, absl::Duration timeout) const {
  std::unique_lock lock(mu_);
  changed_.wait_for(lock, absl::ToChronoNanoseconds(timeout), [&] { return closed_ || current_id_ != last_id; });
  return !closed_ && current_id_ != last_id;
}

uint64_t EventHub::current_id() const {
  std::unique_lock lock(mu_);
  return current_id_;
}

void EventHub::Close() {
  std::unique_lock lock(mu_);
  closed_ = true;
  lock.unlock();
  changed_.notify_all();
}

std::string EventHub::CurrentRef() const {
  std::unique_lock lock(mu_);
  // Before the first snapshot there is still a SnapshotRef (openapi.json requires both fields):
  // generation 0 and no resourceVersion yet.
  if (last_ == nullptr) return R"({"generation":0,"resourceVersion":""})";
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("generation");
  w.Uint64(current_id_);
  w.Key("resourceVersion");
  w.String(last_->resource_version().c_str());
  w.EndObject();
  return buf.GetString();
}

bool EventHub::started() const {
  std::unique_lock lock(mu_);
  return last_ != nullptr;
}

bool EventHub::closed() const {
  std::unique_lock lock(mu_);
  return closed_;
}

uint64_t EventHub::published() const {
  std::unique_lock lock(mu_);
  return published_;
}

}  // namespace draforge::server
