// RequestTarget: the path and query of an origin-form request target (RFC 9112 section 3.2.1,
// "/api/v1/pools?driver=x"), percent-decoded as the daemons' routes compare and read them.
#ifndef DRAFORGE_EXAMPLES_COMMON_HTTP_REQUEST_TARGET_H_
#define DRAFORGE_EXAMPLES_COMMON_HTTP_REQUEST_TARGET_H_

#include <map>
#include <string>
#include <string_view>

namespace draforge::http {

struct RequestTarget {
  std::string path;  // decoded: "%20" is a space, "+" stays "+"
  // Decoded names and values ("+" is a space); a name may repeat, its values in request order.
  std::multimap<std::string, std::string> query;
};

// Splits `target` at the first '?' and the query at '&' (a pair without '=' has an empty value;
// empty pairs are skipped), decoding %XX escapes. An escape that is not two hex digits is kept as
// it is, as browsers keep it. Never fails; a fragment ("#...") is not expected from clients and
// stays part of what precedes it.
RequestTarget ParseRequestTarget(std::string_view target);

// `text` with %XX escapes decoded, and '+' as a space when `plus_is_space` (query components).
std::string PercentDecode(std::string_view text, bool plus_is_space);

}  // namespace draforge::http

#endif  // DRAFORGE_EXAMPLES_COMMON_HTTP_REQUEST_TARGET_H_
