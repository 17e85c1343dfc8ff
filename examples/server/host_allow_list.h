// HostAllowList: which values of the Host header the server answers, against DNS rebinding.
//
// A web page on evil.example can make its own name resolve to 127.0.0.1 (or to the server's pod
// IP) after it has loaded; the browser then sends the page's requests to draforge-server as
// same-origin requests, with `Host: evil.example`, and lets the page read the answers. Answering
// only names we expect defeats that: the attacker controls the name, not the Host header the
// browser sends for it.
//
// Always allowed, whatever the list says:
//   - IP literals, v4 and bracketed v6, with or without a port: a rebinding attack needs a DNS
//     name, and kubelet probes and the API server's service proxy send `Host: <pod IP>:<port>`.
//   - a request without Host (or with an empty one): browsers always send one, HTTP/1.0 tools may not.
// Allowed by default (kDefaultAllowedHosts): `localhost` and every `*.localhost` name (RFC 6761;
// browsers resolve them to loopback themselves, never through DNS). A name without a dot is not
// allowed by default: a network's search domain (DHCP on a café's Wi-Fi) can turn `x` into
// `x.attacker.example`.
#ifndef DRAFORGE_EXAMPLES_SERVER_HOST_ALLOW_LIST_H_
#define DRAFORGE_EXAMPLES_SERVER_HOST_ALLOW_LIST_H_

#include <string>
#include <string_view>
#include <vector>

#include "draforge/draforge.hpp"

namespace draforge::server {

inline constexpr char kDefaultAllowedHosts[] = "localhost,*.localhost";

class HostAllowList {
 public:
  enum class Verdict {
    kAllowed,
    kRefused,    // a well-formed name not on the list
    kMalformed,  // not a Host value (RFC 9110 section 7.2): answer 400
  };

  // Parses a comma-separated list of patterns: a name (`dra.example.com`, compared without case
  // and without a trailing dot), `*.suffix` (every name that ends in `.suffix`, not `suffix`
  // itself) or `*` (any Host: for a server behind a proxy that checks the name itself). Spaces
  // around patterns are ignored. Errors: DRAFORGE_EINVALID naming the pattern that is not a name,
  // or an empty list.
  static Result<HostAllowList> Parse(std::string_view patterns);

  // The list of kDefaultAllowedHosts.
  HostAllowList();

  // The verdict on one Host header value ("localhost:8080", "[::1]:8080", "10.1.2.3").
  Verdict Check(std::string_view host) const;

  // The patterns, comma-separated as given (for messages and --help).
  const std::string& patterns() const { return text_; }

 private:
  struct Empty {};
  explicit HostAllowList(Empty) {}  // for Parse: the default constructor itself calls Parse

  std::string text_;
  bool any_ = false;
  std::vector<std::string> names_;     // lower case, no trailing dot
  std::vector<std::string> suffixes_;  // ".suffix", lower case
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_HOST_ALLOW_LIST_H_
