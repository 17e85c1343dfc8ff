// Status helpers shared by every lib/ domain.
//
// DRAForge uses absl::Status / absl::StatusOr<T> throughout. The codes map one-to-one onto the C ABI's
// error codes (see capi/): kInvalidArgument = bad input, kNotFound = a named object is missing,
// kFailedPrecondition = input that is well-formed but unusable (unsupported version, ...),
// kResourceExhausted = a size or cost limit, kInternal = a bug. "Does not fit" is never a Status.
#ifndef DRAFORGE_COMMON_STATUS_H_
#define DRAFORGE_COMMON_STATUS_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace draforge {

// Debian's Abseil does not alias std::string_view (ABSL_OPTION_USE_STD_STRING_VIEW=0), so
// std::string_view must be converted explicitly at Abseil call sites.
inline absl::string_view AV(std::string_view s) { return absl::string_view(s.data(), s.size()); }
inline std::string_view SV(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace draforge

#define DRAFORGE_STATUS_CONCAT_INNER_(a, b) a##b
#define DRAFORGE_STATUS_CONCAT_(a, b) DRAFORGE_STATUS_CONCAT_INNER_(a, b)

// Returns from the current function when `expr` (an absl::Status) is not OK.
#define RETURN_IF_ERROR(expr)                      \
  do {                                             \
    ::absl::Status draforge_status_ = (expr);      \
    if (!draforge_status_.ok()) return draforge_status_; \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, StatusOrExpr())`: binds the value or returns the error.
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  DRAFORGE_ASSIGN_OR_RETURN_IMPL_(DRAFORGE_STATUS_CONCAT_(draforge_statusor_, __LINE__), lhs, rexpr)
#define DRAFORGE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                    \
  if (!tmp.ok()) return std::move(tmp).status();         \
  lhs = std::move(tmp).value()

#endif  // DRAFORGE_COMMON_STATUS_H_
