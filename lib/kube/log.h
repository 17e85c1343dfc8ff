// Logging for lib/kube: the library never prints; it hands messages to a callback the caller installs.
#ifndef DRAFORGE_KUBE_LOG_H_
#define DRAFORGE_KUBE_LOG_H_

#include <functional>
#include <string_view>

namespace draforge::kube {

enum class LogLevel { kDebug, kInfo, kWarning, kError };

// "debug", "info", "warning", "error".
std::string_view LogLevelName(LogLevel level);

// Called from whichever thread did the work (reflector and elector threads included), so it must be
// thread-safe. The message view is valid only during the call. An empty function discards messages.
using LogFunction = std::function<void(LogLevel level, std::string_view message)>;

}  // namespace draforge::kube

#endif  // DRAFORGE_KUBE_LOG_H_
