// The daemons' log lines (stderr, one line each, UTC timestamp first) and their clock text. Shared by
// draforge-controller and draforge-node-plugin so that both read alike in `kubectl logs`.
#ifndef DRAFORGE_EXAMPLES_COMMON_LOG_DAEMON_LOG_H_
#define DRAFORGE_EXAMPLES_COMMON_LOG_DAEMON_LOG_H_

#include <string>

namespace draforge::daemon {

// Writes "<RFC 3339 UTC time> <line>" to stderr; safe from any thread.
void Log(const std::string& line);

// The current time as RFC 3339 UTC ("2026-01-02T03:04:05Z"), for condition transitions.
std::string Now();

}  // namespace draforge::daemon

#endif  // DRAFORGE_EXAMPLES_COMMON_LOG_DAEMON_LOG_H_
