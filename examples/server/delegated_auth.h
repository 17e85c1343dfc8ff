// DelegatedAuth: who may read the server, asked of the Kubernetes API server (--delegate-auth),
// for clusters without an identity-aware proxy in front (docs/server.md, "Access").
//
// A request must carry `Authorization: Bearer TOKEN`. The token is checked with a TokenReview
// (authentication.k8s.io/v1), and the user it names with a SubjectAccessReview
// (authorization.k8s.io/v1) on a non-resource URL with verb `get`, as kube-rbac-proxy does: the
// request's path under kAccessPrefix ("/draforge-server/api/v1/summary"). The prefix keeps the
// server's paths apart from the API server's own: Kubernetes' default roles let every
// authenticated user get "/api/*" (system:discovery), which would let anyone read the server. A
// ClusterRole grants it with `nonResourceURLs: ["/draforge-server/*"]`, `verbs: ["get"]`.
// Verdicts are kept for `ttl` per token and path, so that a dashboard's burst of requests costs
// the API server two reviews per path, not two per request. Thread-safe; Check blocks on the API
// server: call it off the event loop.
#ifndef DRAFORGE_EXAMPLES_SERVER_DELEGATED_AUTH_H_
#define DRAFORGE_EXAMPLES_SERVER_DELEGATED_AUTH_H_

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "draforge/draforge.hpp"
#include "server.h"

namespace draforge::server {

// What the server's paths are prefixed with in the SubjectAccessReview.
inline constexpr char kAccessPrefix[] = "/draforge-server";

class DelegatedAuth {
 public:
  // `client` is borrowed and must outlive this object.
  explicit DelegatedAuth(const KubeClient& client, std::chrono::seconds ttl = std::chrono::seconds(10));

  // The verdict for a request with this Authorization header value on `path`: 200, 401 (no token
  // or an invalid one), 403 (the user may not), 503 (the API server could not be asked).
  AuthVerdict Check(std::string_view authorization, const std::string& path);

 private:
  AuthVerdict Review(const std::string& token, const std::string& path) const;

  struct Cached {
    AuthVerdict verdict;
    std::chrono::steady_clock::time_point expires;
  };
  static constexpr size_t kMaxCached = 4096;  // past it the cache starts over: memory stays bounded

  const KubeClient& client_;
  const std::chrono::seconds ttl_;
  std::mutex mu_;  // guards cache_
  std::map<std::string, Cached> cache_;  // by token and path
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_DELEGATED_AUTH_H_
