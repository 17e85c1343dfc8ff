// A small command-line parser for the draforge CLI: kubectl-style flags (`-f FILE`, `-f=FILE`,
// `--output json`, `--strict`), repeated flags collected in order, and positional arguments.
#ifndef DRAFORGE_EXAMPLES_CLI_FLAGS_H_
#define DRAFORGE_EXAMPLES_CLI_FLAGS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "draforge/draforge.hpp"

namespace draforge::cli {

struct FlagSpec {
  std::vector<std::string> names;  // e.g. {"-f", "--filename"}
  bool takes_value = true;
  std::string help;
};

class Flags {
 public:
  // Values of a flag in command-line order, under its first name.
  const std::vector<std::string>& All(const std::string& name) const;
  std::optional<std::string> Get(const std::string& name) const;
  std::string GetOr(const std::string& name, const std::string& fallback) const;
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  const std::vector<std::string>& positional() const { return positional_; }

  // Parses args (without the program and command names). A flag not in `specs` is an error.
  static draforge::Result<Flags> Parse(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs);

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

// "  -f, --filename  FILE  help" lines for usage messages.
std::string FlagHelp(const std::vector<FlagSpec>& specs);

}  // namespace draforge::cli

#endif  // DRAFORGE_EXAMPLES_CLI_FLAGS_H_
