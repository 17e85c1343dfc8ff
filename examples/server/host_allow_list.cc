#include "host_allow_list.h"

#include <arpa/inet.h>

#include <algorithm>
#include <optional>

#include "http_encoding.h"

namespace draforge::server {
namespace {

constexpr size_t kMaxNameBytes = 253;  // RFC 1035 section 2.3.4, without the trailing dot

// A DNS name in lower case without its trailing dot, or nullopt if `name` is not one: labels of
// letters, digits, '-' and '_' (underscores appear in real service names), none empty.
std::optional<std::string> NormalizeName(std::string_view name) {
  if (!name.empty() && name.back() == '.') name.remove_suffix(1);
  if (name.empty() || name.size() > kMaxNameBytes) return std::nullopt;
  std::string out;
  out.reserve(name.size());
  char previous = '.';
  for (char c : name) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && c != '-' && c != '_' && c != '.') return std::nullopt;
    if (c == '.' && previous == '.') return std::nullopt;  // an empty label
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    previous = c;
  }
  return out;
}

bool IsIpv4(std::string_view s) {
  in_addr addr{};
  return inet_pton(AF_INET, std::string(s).c_str(), &addr) == 1;
}

bool IsIpv6(std::string_view s) {
  in6_addr addr{};
  return inet_pton(AF_INET6, std::string(s).c_str(), &addr) == 1;
}

bool IsPort(std::string_view s) {
  return s.size() <= 5 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

HostAllowList::HostAllowList() : HostAllowList(*Parse(kDefaultAllowedHosts)) {}

Result<HostAllowList> HostAllowList::Parse(std::string_view patterns) {
  HostAllowList list{Empty{}};
  list.text_ = std::string(patterns);
  bool any_pattern = false;
  size_t start = 0;
  while (start <= patterns.size()) {
    size_t comma = patterns.find(',', start);
    if (comma == std::string_view::npos) comma = patterns.size();
    const std::string_view pattern = TrimOptionalWhitespace(patterns.substr(start, comma - start));
    start = comma + 1;
    if (pattern.empty()) continue;
    any_pattern = true;
    if (pattern == "*") {
      list.any_ = true;
      continue;
    }
    const bool wildcard = pattern.rfind("*.", 0) == 0;
    auto name = NormalizeName(wildcard ? pattern.substr(2) : pattern);
    if (!name) {
      return Error{DRAFORGE_EINVALID,
                   "allowed host \"" + std::string(pattern) +
                       "\" is not a host name, \"*.\" followed by one, or \"*\" (IP literals are always allowed)"};
    }
    if (wildcard) {
      list.suffixes_.push_back("." + *name);
    } else {
      list.names_.push_back(*std::move(name));
    }
  }
  if (!any_pattern) return Error{DRAFORGE_EINVALID, "the allowed hosts list is empty (\"*\" allows every host)"};
  return list;
}

HostAllowList::Verdict HostAllowList::Check(std::string_view host) const {
  if (host.empty()) return Verdict::kAllowed;
  std::string_view name;
  if (host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return Verdict::kMalformed;
    const std::string_view rest = host.substr(close + 1);
    if (!rest.empty() && (rest.front() != ':' || !IsPort(rest.substr(1)))) return Verdict::kMalformed;
    return IsIpv6(host.substr(1, close - 1)) ? Verdict::kAllowed : Verdict::kMalformed;
  }
  const size_t colon = host.find(':');
  name = host.substr(0, colon);
  if (colon != std::string_view::npos && !IsPort(host.substr(colon + 1))) return Verdict::kMalformed;
  if (IsIpv4(name)) return Verdict::kAllowed;
  const auto normalized = NormalizeName(name);
  if (!normalized) return Verdict::kMalformed;
  if (any_) return Verdict::kAllowed;
  if (std::find(names_.begin(), names_.end(), *normalized) != names_.end()) return Verdict::kAllowed;
  for (const auto& suffix : suffixes_) {
    if (normalized->size() > suffix.size() &&
        normalized->compare(normalized->size() - suffix.size(), suffix.size(), suffix) == 0) {
      return Verdict::kAllowed;
    }
  }
  return Verdict::kRefused;
}

}  // namespace draforge::server
