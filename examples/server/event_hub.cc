#include "event_hub.h"

#include <utility>

#include "api_views.h"

namespace draforge::server {

EventHub::EventHub(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

void EventHub::Publish(const Snapshot& snapshot) {
  std::optional<Snapshot> before;
  {
    std::unique_lock lock(mu_);
    if (!last_) {
      last_ = snapshot;
      current_id_ = last_->generation();
      return;
    }
    if (snapshot.generation() == last_->generation()) return;
    before = last_;
  }
  // Diffing outside the lock: only the watcher thread publishes, readers keep reading the ring.
  auto changes = inventory::ChangesJson(*before, snapshot);
  std::unique_lock lock(mu_);
  last_ = snapshot;
  // No event when only a resourceVersion or bookmark moved (nothing a client shows), or when the
  // library failed (out of memory): the next change's event lists what this one would have.
  if (!changes.ok() || changes->count == 0) return;
  ring_.push_back({snapshot.generation(), current_id_, std::move(changes->json)});
  current_id_ = snapshot.generation();
  ++published_;
  while (ring_.size() > capacity_) ring_.pop_front();
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

uint64_t EventHub::current_id() const {
  std::unique_lock lock(mu_);
  return current_id_;
}

std::string EventHub::CurrentRef() const {
  std::unique_lock lock(mu_);
  // Before the first snapshot there is still a SnapshotRef (openapi.json requires both fields):
  // generation 0 and no resourceVersion yet.
  if (!last_) return R"({"generation":0,"resourceVersion":""})";
  return RenderSnapshotRef(current_id_, last_->resource_version());
}

bool EventHub::started() const {
  std::unique_lock lock(mu_);
  return last_.has_value();
}

uint64_t EventHub::published() const {
  std::unique_lock lock(mu_);
  return published_;
}

}  // namespace draforge::server
