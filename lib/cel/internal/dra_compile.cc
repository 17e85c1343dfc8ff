#include "cel/internal/dra_compile.h"

#include <string>

#include "absl/status/status.h"
#include "cel/internal/str.h"

namespace draforge::cel::internal {

Env DraEnv(const CompileOptions& options) {
  EnvOptions env_options;
  env_options.consumable_capacity = options.consumable_capacity;
  env_options.list_type_attributes = options.list_type_attributes;
  env_options.stored_expressions = options.stored_expressions;
  return Env::Dra(env_options);
}

absl::StatusOr<std::unique_ptr<Program>> CompileDra(std::string_view expression, const Env& env) {
  auto program = Program::Compile(expression, env);
  if (!program.ok()) {
    std::string msg(program.status().message());
    if (msg.rfind("program instantiation failed", 0) == 0) return absl::InvalidArgumentError(msg);
    return absl::InvalidArgumentError(Cat("compilation failed: ", msg));
  }
  return program;
}

}  // namespace draforge::cel::internal
