// WorkQueue: a few threads that compute the answers the event loop must not wait for (API views
// of a large snapshot can take a second; examples/common/http's Response::later hands them here).
// Bounded: past `capacity` waiting tasks, Post refuses, and the server answers 503 instead of
// queueing without end. Thread-safe.
#ifndef DRAFORGE_EXAMPLES_SERVER_WORK_QUEUE_H_
#define DRAFORGE_EXAMPLES_SERVER_WORK_QUEUE_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace draforge::server {

class WorkQueue {
 public:
  WorkQueue(int threads, size_t capacity);
  // Runs what is queued, then joins the threads.
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `task` to run on one of the threads; false (task dropped) when `capacity` tasks wait.
  // An exception from a task is caught and dropped with the task.
  bool Post(std::function<void()> task);

 private:
  void Run();

  const size_t capacity_;
  std::mutex mu_;  // guards tasks_ and stopping_
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_WORK_QUEUE_H_
