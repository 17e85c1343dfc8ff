// Shared by the C ABI's translation units: turning absl::Status into draforge_error.
#ifndef DRAFORGE_CAPI_INTERNAL_H_
#define DRAFORGE_CAPI_INTERNAL_H_

#include <string>

#include "absl/status/status.h"
#include "draforge/common.h"

struct draforge_error {
  int code;
  std::string message;
};

namespace draforge::capi {

// The C code for a Status code (one-to-one; see lib/common/status.h).
int CodeOf(const absl::Status& status);

// Returns the C code of `status` and, when it is an error and `error` is not null, stores a new
// draforge_error there.
int Fail(const absl::Status& status, draforge_error** error);

// Runs `fn` (returning int) and turns any C++ exception into DRAFORGE_EINTERNAL: no exception crosses
// the C boundary.
template <typename Fn>
int Guard(draforge_error** error, Fn fn) noexcept {
  try {
    return fn();
  } catch (const std::exception& e) {
    return Fail(absl::InternalError(e.what()), error);
  } catch (...) {
    return Fail(absl::InternalError("unknown exception"), error);
  }
}

}  // namespace draforge::capi

#endif  // DRAFORGE_CAPI_INTERNAL_H_
