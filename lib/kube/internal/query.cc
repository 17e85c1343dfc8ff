#include "kube/internal/query.h"

namespace draforge::kube::internal {

std::string QueryEscape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

void AddParam(std::string& query, std::string_view name, std::string_view value) {
  if (value.empty()) return;
  query.push_back(query.empty() ? '?' : '&');
  query.append(name);
  query.push_back('=');
  query.append(QueryEscape(value));
}

}  // namespace draforge::kube::internal
