// URLs as Go's net/url parses and prints them (Go 1.26), for the Kubernetes URL CEL library
// (k8s.io/apiserver/pkg/cel/library/urls.go) and the `uri` named format: url(), isURL(), the
// getScheme/getHost/getHostname/getPort/getEscapedPath/getQuery accessors and URL equality
// (which compares String()).
#ifndef DRAFORGE_CEL_URL_H_
#define DRAFORGE_CEL_URL_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace draforge::cel {

// Go's url.URL (the fields the CEL library reads or String() prints).
struct Url {
  struct User {
    std::string username;
    std::string password;
    bool has_password = false;
  };
  std::string scheme;
  std::string opaque;
  std::optional<User> user;
  std::string host;  // "host" or "host:port"
  std::string path;
  std::string raw_path;
  std::string raw_query;
  std::string fragment;
  std::string raw_fragment;
  bool force_query = false;
  bool omit_host = false;

  // URL.String().
  std::string String() const;
  // URL.EscapedPath().
  std::string EscapedPath() const;
  // URL.Hostname() and URL.Port().
  std::string Hostname() const;
  std::string Port() const;
  // URL.Query(): the query's keys and their values in order (parse errors drop the pair, as Go's
  // Query() does). Keys sorted (Go's map has no order).
  std::map<std::string, std::vector<std::string>> Query() const;
};

// url.ParseRequestURI: false with Go's error text (`parse "x": invalid URI for request`) in *error.
bool ParseRequestURI(std::string_view raw, Url* out, std::string* error);
// url.Parse (fragments allowed): false with Go's error text in *error.
bool ParseURL(std::string_view raw, Url* out, std::string* error);

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_URL_H_
