#include "daemon_log.h"

#include <ctime>
#include <iostream>
#include <mutex>

namespace draforge::daemon {

std::string Now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void Log(const std::string& line) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::cerr << Now() << " " << line << std::endl;
}

}  // namespace draforge::daemon
