#include "work_queue.h"

#include <utility>

namespace draforge::server {

WorkQueue::WorkQueue(int threads, size_t capacity) : capacity_(capacity) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

bool WorkQueue::Post(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (tasks_.size() >= capacity_) return false;
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
  return true;
}

void WorkQueue::Run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, and nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    // A task that throws (out of memory while rendering) must not end the process. It answered
    // nothing: the Reply it held goes with it, and the HTTP layer answers 500 for a dropped one.
    try {
      task();
    } catch (...) {
    }
  }
}

}  // namespace draforge::server
