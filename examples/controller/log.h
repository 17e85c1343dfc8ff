// The controller's log lines (stderr, one line each, UTC timestamp first) and its clock text.
#ifndef DRAFORGE_EXAMPLES_CONTROLLER_LOG_H_
#define DRAFORGE_EXAMPLES_CONTROLLER_LOG_H_

#include <string>

namespace draforge::controller {

// Writes "<RFC 3339 UTC time> <line>" to stderr; safe from any thread.
void Log(const std::string& line);

// The current time as RFC 3339 UTC ("2026-01-02T03:04:05Z"), for condition transitions.
std::string Now();

}  // namespace draforge::controller

#endif  // DRAFORGE_EXAMPLES_CONTROLLER_LOG_H_
