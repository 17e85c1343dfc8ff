// kube::LeaderElector: leader election on a coordination.k8s.io/v1 Lease, with client-go's
// leaderelection semantics.
//
// A candidate takes the Lease when it does not exist, when it is released (empty holder), or when
// its holder has not renewed it for lease_duration as measured on the candidate's own clock since it
// last saw the record change (clocks of different machines are never compared). Every write is a
// PUT with the read resourceVersion, so of two candidates racing for the same Lease exactly one
// wins (the other gets 409 Conflict). The leader renews every retry_period; if it cannot renew for
// renew_deadline (< lease_duration) it stops leading, before any other candidate may take over:
// there are never two leaders as long as clocks run at the same rate.
//
// Every Lease request carries a deadline, so a hung API server cannot hold the elector past
// renew_deadline: while leading, each call may take min(retry_period, the time left until last
// renewal + renew_deadline); while campaigning or releasing, renew_deadline. The leader's own writes
// take LeadershipDeadline() as their deadline (kube::Client sends nothing past it): a write prepared
// under a lease that has since lapsed is never sent, however long the process was paused or the
// request retried.
//
// The elector owns one thread (started by Start, joined by Stop and the destructor). Callbacks run
// on that thread.
#ifndef DRAFORGE_KUBE_LEADER_ELECTION_H_
#define DRAFORGE_KUBE_LEADER_ELECTION_H_

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "kube/client.h"
#include "kube/log.h"

namespace draforge::kube {

struct LeaderElectionOptions {
  std::string lease_namespace = "default";
  std::string lease_name;
  std::string identity;  // unique per candidate (e.g. pod name + random suffix)
  absl::Duration lease_duration = absl::Seconds(15);
  absl::Duration renew_deadline = absl::Seconds(10);
  absl::Duration retry_period = absl::Seconds(2);
  // Stop() releases the Lease (empty holder) so a successor need not wait for it to expire.
  bool release_on_stop = true;
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  std::function<void(const std::string& identity)> on_new_leader;  // observed holder changed
  LogFunction log;
};

class LeaderElector {
 public:
  // `client` is borrowed and must outlive the elector.
  LeaderElector(Client& client, LeaderElectionOptions options);
  ~LeaderElector();  // Stop()
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Starts campaigning on the elector's thread. Errors: InvalidArgument for an empty lease name or
  // identity, or durations that do not satisfy lease_duration > renew_deadline > retry_period > 0;
  // FailedPrecondition when already started.
  absl::Status Start();
  // Stops campaigning; a leader stops leading (on_stopped_leading) and, with release_on_stop,
  // releases the Lease. Joins the thread. Idempotent.
  void Stop();

  // Whether this candidate currently holds the Lease (and has renewed it within renew_deadline):
  // absl::Now() < LeadershipDeadline().
  bool IsLeader() const;
  // Until when this candidate may act as leader: its last successful renewal (the local time the
  // renewing request was prepared, before it was sent) + renew_deadline. No other candidate can take
  // the Lease before then (it waits lease_duration > renew_deadline from when it saw that renewal).
  // absl::InfinitePast() when not leading. Pass it as the deadline of every leader-gated request
  // (WriteOptions::deadline, DeleteOptions::deadline).
  absl::Time LeadershipDeadline() const;
  // The holder this candidate last observed ("" when none).
  std::string ObservedLeader() const;

 private:
  void Run();
  // One acquire-or-renew attempt: OK(true) when this candidate holds the Lease afterwards.
  // `renewing`: this candidate leads and is renewing (per-call deadlines as described above).
  absl::StatusOr<bool> TryAcquireOrRenew(bool renewing);
  // The deadline of one Lease request started now.
  absl::Time CallDeadline(bool renewing) const;
  absl::Status Release();
  void Log(LogLevel level, const std::string& message) const;
  void SetObserved(const std::string& holder);

  Client& client_;
  const LeaderElectionOptions options_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> leader_{false};
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  std::string observed_holder_ ABSL_GUARDED_BY(mu_);
  std::string observed_record_ ABSL_GUARDED_BY(mu_);  // holder|renewTime|rv of the last record seen
  absl::Time observed_time_ ABSL_GUARDED_BY(mu_);     // local time the record last changed
  absl::Time last_renew_ ABSL_GUARDED_BY(mu_);        // local time of our last successful write
  bool started_ = false;
};

}  // namespace draforge::kube

#endif  // DRAFORGE_KUBE_LEADER_ELECTION_H_
