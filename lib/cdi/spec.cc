#include "cdi/spec.h"

namespace draforge::cdi {

Kind SplitKind(std::string_view kind) {
  const size_t slash = kind.find('/');
  if (slash == std::string_view::npos) return Kind{{}, kind};
  return Kind{kind.substr(0, slash), kind.substr(slash + 1)};
}

std::string QualifiedDeviceName(std::string_view kind, std::string_view device_name) {
  std::string out;
  out.reserve(kind.size() + 1 + device_name.size());
  out.append(kind);
  out.push_back('=');
  out.append(device_name);
  return out;
}

}  // namespace draforge::cdi
