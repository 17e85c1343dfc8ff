// Compiling an expression in the DRA environment that CompileOptions selects: shared by every
// lib/cel entry point over a device, so their compile errors stay worded alike.
#ifndef DRAFORGE_CEL_INTERNAL_DRA_COMPILE_H_
#define DRAFORGE_CEL_INTERNAL_DRA_COMPILE_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "cel/program.h"
#include "cel/selector.h"

namespace draforge::cel::internal {

// The DRA environment that `options` selects (gates, stored or new expressions).
Env DraEnv(const CompileOptions& options);

// The program of `expression` in `env` (a DraEnv), owned by the caller; the result type is not
// checked here. Errors (InvalidArgument), as upstream wraps cel-go's: "compilation failed: ERROR:
// <input>:1:8: ..." or, unwrapped, "program instantiation failed: ...".
absl::StatusOr<std::unique_ptr<Program>> CompileDra(std::string_view expression, const Env& env);

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_DRA_COMPILE_H_
