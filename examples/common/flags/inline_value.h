// The daemons' flags come as "--flag VALUE" or "--flag=VALUE" (what Kubernetes manifests usually
// write); this splits the second form once for every parser.
#ifndef DRAFORGE_EXAMPLES_COMMON_FLAGS_INLINE_VALUE_H_
#define DRAFORGE_EXAMPLES_COMMON_FLAGS_INLINE_VALUE_H_

#include <optional>
#include <string>

namespace draforge::flags {

// For "--name=value": leaves "--name" in `arg` and returns "value" (possibly empty). Anything else
// (no '=', or not starting with "--") is left as it is and gives nullopt.
inline std::optional<std::string> TakeInlineValue(std::string& arg) {
  const size_t eq = arg.find('=');
  if (arg.rfind("--", 0) != 0 || eq == std::string::npos) return std::nullopt;
  std::string value = arg.substr(eq + 1);
  arg.resize(eq);
  return value;
}

}  // namespace draforge::flags

#endif  // DRAFORGE_EXAMPLES_COMMON_FLAGS_INLINE_VALUE_H_
