// "Something may have changed": set by the live source and the elector, consumed by the main loop.
#ifndef DRAFORGE_EXAMPLES_CONTROLLER_TRIGGER_H_
#define DRAFORGE_EXAMPLES_CONTROLLER_TRIGGER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace draforge::controller {

class Trigger {
 public:
  void Notify() {
    std::lock_guard<std::mutex> lock(mu_);
    dirty_ = true;
    cv_.notify_all();
  }
  // Waits until Notify() (since the last Take), `deadline` or `stop`; returns whether notified and
  // clears the flag.
  bool Take(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>& stop) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!dirty_ && !stop.load() && std::chrono::steady_clock::now() < deadline) {
      // Bounded waits: a signal handler cannot notify the condition variable.
      cv_.wait_for(lock, std::chrono::milliseconds(100));
    }
    const bool was = dirty_;
    dirty_ = false;
    return was;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool dirty_ = false;
};

}  // namespace draforge::controller

#endif  // DRAFORGE_EXAMPLES_CONTROLLER_TRIGGER_H_
