// One reconcile round of draforge-controller, as leader: pools -> slices and pool status, pending
// claims -> allocations, allocated devices -> binding conditions. The plans are the library's
// (draforge/reconcile.h); this class reads the cluster, sends the plans' writes and counts them.
//
// Every write is leader-gated twice over, so that a replica that lost the Lease -- paused,
// partitioned, or stuck in retries -- cannot land a write after its successor started:
//   - it carries the deadline of the lease it was prepared under (the elector's deadline: last
//     renewal + renew deadline, before any other replica may take the Lease); the client sends no
//     attempt and no retry past it, and clips the running attempt's timeout to it;
//   - it is conditional on what was read: updates carry the read metadata.resourceVersion, deletes
//     preconditions.resourceVersion (a 409 Conflict when the object changed since), creates fail with
//     AlreadyExists when the object exists.
#ifndef DRAFORGE_EXAMPLES_CONTROLLER_CONTROLLER_H_
#define DRAFORGE_EXAMPLES_CONTROLLER_CONTROLLER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

#include "draforge/draforge.hpp"
#include "metrics.h"
#include "rapidjson/document.h"

namespace draforge::controller {

class Controller {
 public:
  // All borrowed; they outlive the controller. `stop` ends a round's writes early.
  Controller(const KubeClient& client, const LeaderElector& elector, Metrics& metrics, const std::atomic<bool>& stop,
             int64_t tick_seconds, bool allocate, int64_t test_pause_ms, bool serve_pool_status_requests = false);

  // One round; the first API error (the next round retries).
  Result<void> Round();

 private:
  // Simulated slices, classes, claims, pods and nodes as one store; `claims` keeps each claim's JSON
  // as read (the base of its status writes), by "namespace/name".
  struct World {
    Cluster cluster;
    std::map<std::string, std::string> claims;
  };

  // Called when a write is prepared, right before it is sent: the deadline it must carry, that of
  // the lease it was prepared under. An error when this replica does not lead (or is stopping).
  Result<int64_t> PrepareWrite();
  // The options of an update: conditional (the body carries its read resourceVersion), under the
  // current lease.
  Result<KubeRequestOptions> PrepareUpdate(const rapidjson::Value& body, const std::string& what,
                                           const std::string& subresource = "");
  void Wrote() { ++writes_in_round_; }
  void CountConflict(const Error& e, const std::string& what);

  Result<void> ReconcilePools();
  Result<void> Apply(const rapidjson::Value& action);
  Result<void> WriteStatus(const rapidjson::Value& status, const std::string& pool);
  Result<void> Load(World& w);
  Result<void> AllocateClaims();
  Result<bool> AllocateOne();
  Result<void> BindingConditions();
  // Fills the status of ResourcePoolStatusRequests that have none with the library's answer
  // (draforge_inventory_pool_status_json over every slice, claim and DeviceTaintRule), except while
  // a pool the answer reports is incomplete: kube-controller-manager waits then too.
  Result<void> ServePoolStatusRequests();
  // Writes a claim plan's "body" to resourceclaims/status when the plan's `flag` ("allocate",
  // "write") is set. True when written; false when the plan has nothing to write or the write lost
  // a race (a conflict or a deleted claim: the next round reads again). `what` names the write in
  // logs and errors ("allocate resourceclaim ns/name").
  Result<bool> WriteClaimStatus(const rapidjson::Value& plan, const char* flag, const std::string& key,
                                const std::string& what);

  const KubeClient& client_;
  const LeaderElector& elector_;
  Metrics& metrics_;
  const std::atomic<bool>& stop_;
  const int64_t tick_seconds_;
  const bool allocate_;
  const int64_t test_pause_ms_;
  const bool serve_pool_status_requests_;
  int64_t round_ = 0;
  int64_t writes_in_round_ = 0;
};

}  // namespace draforge::controller

#endif  // DRAFORGE_EXAMPLES_CONTROLLER_CONTROLLER_H_
