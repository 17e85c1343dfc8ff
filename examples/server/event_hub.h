// EventHub: turns store snapshots into Server-Sent Events for the streams.
//
// A watcher thread calls Publish() with each new snapshot; Publish asks the library what changed
// since the previous one (draforge_inventory_changes_json) and appends one `change` event whose id
// is the snapshot generation. The server then writes to each stream the events after the last id
// it sent that stream (Since). The last `capacity` events are kept
// so a reconnecting client (Last-Event-ID) gets what it missed; an id outside that window means the
// client must refetch everything (a `reset` event).
#ifndef DRAFORGE_EXAMPLES_SERVER_EVENT_HUB_H_
#define DRAFORGE_EXAMPLES_SERVER_EVENT_HUB_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "draforge/draforge.hpp"

namespace draforge::server {

struct ServerEvent {
  uint64_t id = 0;           // the snapshot generation after the change
  uint64_t previous_id = 0;  // the generation of the previous event (or of the first snapshot)
  std::string data;          // ChangeEvent JSON (openapi.json), one line
};

// What a client must do to catch up from a given id.
struct CatchUp {
  bool reset = false;               // the id is unknown: send `reset`, then continue from `current_id`
  std::vector<ServerEvent> events;  // otherwise: the events after the id, oldest first
  uint64_t current_id = 0;
};

class EventHub {
 public:
  explicit EventHub(size_t capacity);

  // Records a new snapshot. The first call sets the baseline (no event). Later calls with the same
  // generation do nothing; otherwise one event describing every object added, modified or deleted
  // is appended (none when only resourceVersions moved).
  void Publish(const Snapshot& snapshot);

  // The events after `last_id`. `last_id` older than the oldest kept event's previous_id, or newer
  // than the current id, gives reset.
  CatchUp Since(uint64_t last_id) const;

  // The id a new client starts from (the generation of the last published snapshot).
  uint64_t current_id() const;

  // {"generation":N,"resourceVersion":"..."} of the last published snapshot; before the first,
  // {"generation":0,"resourceVersion":""} (still a SnapshotRef, as openapi.json requires).
  std::string CurrentRef() const;

  // Whether Publish has set a baseline.
  bool started() const;

  // Total events ever appended (a metric).
  uint64_t published() const;

 private:
  const size_t capacity_;
  mutable std::mutex mu_;  // guards everything below
  std::optional<Snapshot> last_;
  std::deque<ServerEvent> ring_;
  uint64_t current_id_ = 0;
  uint64_t published_ = 0;
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_EVENT_HUB_H_
