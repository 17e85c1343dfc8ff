// Query strings for API requests.
#ifndef DRAFORGE_KUBE_INTERNAL_QUERY_H_
#define DRAFORGE_KUBE_INTERNAL_QUERY_H_

#include <string>
#include <string_view>

namespace draforge::kube::internal {

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string QueryEscape(std::string_view s);

// Appends "name=value" to `query` ("?a=b&..."), skipping an empty value.
void AddParam(std::string& query, std::string_view name, std::string_view value);

}  // namespace draforge::kube::internal

#endif  // DRAFORGE_KUBE_INTERNAL_QUERY_H_
