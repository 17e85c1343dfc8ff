// Evaluating a CEL expression of any result type in the DRA environment, and printing CEL values as
// literals. DeviceSelector (selector.h) is what the allocator uses; this is for tools: `draforge cel
// eval` without a device, and the parity test against cel-go (tests/oracle dra-cel, whose output
// format this follows).
#ifndef DRAFORGE_CEL_EVAL_H_
#define DRAFORGE_CEL_EVAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cel/selector.h"
#include "cel/value.h"

namespace draforge::cel {

// The outcome of EvaluateExpression.
struct ExpressionResult {
  enum class Outcome { kValue, kCompileError, kRuntimeError };
  Outcome outcome = Outcome::kValue;
  std::string value;  // kValue: the result as a CEL literal (FormatLiteral)
  std::string type;   // kValue: the checked result type ("int", "list(string)", "dyn")
  std::string error;  // the compile or runtime error text
  int64_t cost = 0;   // kValue: the runtime cost
  uint64_t estimated_cost = 0;  // kValue: the worst-case estimate (uncapped, as cel-go's uint64)
};

// Compiles `expression` in the DRA environment like DeviceSelector::Compile, but accepts any result
// type, and evaluates it with `device` unbound: reading it is the runtime error
// "no such attribute(s): device", as in cel-go with an empty activation. Runtime cost limit:
// options.runtime_cost_limit. Compile errors carry the same text DeviceSelector::Compile gives
// ("compilation failed: ERROR: <input>:1:3: ..."). options.check_estimated_cost is ignored.
ExpressionResult EvaluateExpression(std::string_view expression, const CompileOptions& options = {});

// The worst-case cost estimate of `expression` without saturation (DeviceSelector::estimated_cost
// saturates at INT64_MAX; cel-go reports a uint64). Compile errors as DeviceSelector::Compile,
// without its result-type check.
absl::StatusOr<uint64_t> EstimateCost(std::string_view expression, const CompileOptions& options = {});

// A value as a CEL literal, deterministically (the rules of tests/oracle internal/celfmt):
// `true`, `-3`, `3u`, `0.5`, `2.0`, `double("NaN")`, `'a\'b'`, `b'\x00'`, `null`, `[1, 2]`,
// `{'a': 1}` (entries sorted by the formatted key), `optional.of(1)`, `optional.none()`, type names
// (`int`), `quantity("1536Mi")` (canonical spelling), `semver("1.2.3")`.
// Strings escape \\ \' \a \b \f \n \r \t \v and runes Go's unicode.IsPrint rejects (\uXXXX,
// \UXXXXXXXX; the Unicode tables are approximated: controls, format characters, separators other
// than ' ', private use, noncharacters and the unassigned planes 3-13); invalid UTF-8 bytes as \xHH.
std::string FormatLiteral(const Value& v);

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_EVAL_H_
