// A view's query parameters, checked: only the names the view accepts, each at most once, no NUL
// (the library takes C strings). Header-only on draforge::Result so that the what-if request parser
// (whatif_request.cc) and its fuzz target use it without the library.
#ifndef DRAFORGE_EXAMPLES_SERVER_QUERY_PARAMS_H_
#define DRAFORGE_EXAMPLES_SERVER_QUERY_PARAMS_H_

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "draforge/cpp/result.hpp"

namespace draforge::server {

// Query parameters as the HTTP layer decoded them (a name may repeat).
using Query = std::multimap<std::string, std::string>;

// A refused query: DRAFORGE_EINVALID, which the server answers with 400.
inline Error BadQuery(std::string message) { return Error{DRAFORGE_EINVALID, std::move(message), "", ""}; }

// The parameters an endpoint accepts; anything else is a 400 so that a typo is not silently ignored.
class QueryParams {
 public:
  // `hint` ends the message about an unknown name, inside its parentheses.
  static Result<QueryParams> Parse(const Query& query, std::initializer_list<std::string_view> allowed,
                                   std::string_view hint = {}) {
    QueryParams p;
    for (const auto& [name, value] : query) {
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        std::string names;
        for (auto a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
        return BadQuery("unknown query parameter \"" + name + "\"" +
                        (names.empty() ? " (this endpoint takes none)"
                                       : " (allowed: " + names + std::string(hint) + ")"));
      }
      // The library takes C strings: a NUL would cut the value short (and "x\0" would filter as
      // "x"). No Kubernetes name holds one, so it is a bad request, not a filter that matches nothing.
      if (value.find('\0') != std::string::npos) {
        return BadQuery("query parameter \"" + name + "\" must not contain a NUL character");
      }
      if (!p.values_.emplace(name, value).second) {
        return BadQuery("query parameter \"" + name + "\" is given more than once");
      }
    }
    return p;
  }
  std::string Get(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? std::string() : it->second;
  }
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  Result<std::optional<bool>> Bool(const std::string& name) const {
    if (!Has(name)) return std::optional<bool>();
    const std::string v = Get(name);
    if (v == "true") return std::optional<bool>(true);
    if (v == "false") return std::optional<bool>(false);
    return BadQuery("query parameter \"" + name + "\" must be true or false, not \"" + v + "\"");
  }
  Result<int64_t> Int(const std::string& name, int64_t fallback, int64_t min, int64_t max) const {
    if (!Has(name)) return fallback;
    const std::string v = Get(name);
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n < min || n > max) {
      return BadQuery("query parameter \"" + name + "\" must be an integer from " + std::to_string(min) + " to " +
                      std::to_string(max) + ", not \"" + v + "\"");
    }
    return n;
  }

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_QUERY_PARAMS_H_
