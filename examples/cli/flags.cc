#include "flags.h"

#include "json_fields.h"

namespace draforge::cli {
namespace {

draforge::Error Invalid(std::string message) { return draforge::Error{DRAFORGE_EINVALID, std::move(message), "", ""}; }

}  // namespace

const std::vector<std::string>& Flags::All(const std::string& name) const {
  static const std::vector<std::string> kEmpty;
  auto it = values_.find(name);
  return it == values_.end() ? kEmpty : it->second;
}

std::optional<std::string> Flags::Get(const std::string& name) const {
  const auto& all = All(name);
  if (all.empty()) return std::nullopt;
  return all.back();
}

std::string Flags::GetOr(const std::string& name, const std::string& fallback) const {
  return Get(name).value_or(fallback);
}

draforge::Result<Flags> Flags::Parse(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs) {
  Flags flags;
  bool only_positional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positional || arg == "-" || arg.empty() || arg[0] != '-') {
      flags.positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    const FlagSpec* spec = nullptr;
    for (const auto& s : specs) {
      for (const auto& n : s.names) {
        if (n == name) spec = &s;
      }
    }
    if (spec == nullptr) return Invalid("unknown flag: " + name);
    const std::string& key = spec->names.front();
    if (!spec->takes_value) {
      if (inline_value.has_value() && *inline_value != "true" && *inline_value != "false") {
        return Invalid("flag " + name + " takes no value");
      }
      flags.values_[key].push_back(inline_value.value_or("true"));
      continue;
    }
    if (!inline_value.has_value()) {
      if (i + 1 >= args.size()) return Invalid("flag needs an argument: " + name);
      inline_value = args[++i];
    }
    flags.values_[key].push_back(*inline_value);
  }
  return flags;
}

std::string FlagHelp(const std::vector<FlagSpec>& specs) {
  std::string out;
  for (const auto& s : specs) {
    out += "  " + Join(s.names, ", ") + (s.takes_value ? " VALUE" : "") + "\n      " + s.help + "\n";
  }
  return out;
}

}  // namespace draforge::cli
