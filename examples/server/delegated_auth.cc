#include "delegated_auth.h"

#include <cctype>
#include <utility>

#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::server {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void String(Writer& w, std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

// The token of `Bearer TOKEN` (scheme without case, RFC 9110 section 11.1), or "".
std::string BearerToken(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return "";
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return "";
  }
  std::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return std::string(token);
}

std::string TokenReviewBody(const std::string& token) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("apiVersion");
  w.String("authentication.k8s.io/v1");
  w.Key("kind");
  w.String("TokenReview");
  w.Key("spec");
  w.StartObject();
  w.Key("token");
  String(w, token);
  w.EndObject();
  w.EndObject();
  return buf.GetString();
}

// The SubjectAccessReview for the user of a TokenReview's status (`user` as the API server wrote
// it: username, uid, groups, extra) getting `path`.
std::string AccessReviewBody(const rapidjson::Value& user, const std::string& path) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("apiVersion");
  w.String("authorization.k8s.io/v1");
  w.Key("kind");
  w.String("SubjectAccessReview");
  w.Key("spec");
  w.StartObject();
  if (user.HasMember("username")) {
    w.Key("user");
    user["username"].Accept(w);
  }
  if (user.HasMember("uid")) {
    w.Key("uid");
    user["uid"].Accept(w);
  }
  if (user.HasMember("groups")) {
    w.Key("groups");
    user["groups"].Accept(w);
  }
  if (user.HasMember("extra")) {
    w.Key("extra");
    user["extra"].Accept(w);
  }
  w.Key("nonResourceAttributes");
  w.StartObject();
  w.Key("path");
  String(w, path);
  w.Key("verb");
  w.String("get");
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return buf.GetString();
}

// The `status` object of a review the API server returned, or null.
const rapidjson::Value* Status(const rapidjson::Document& doc) {
  if (!doc.IsObject() || !doc.HasMember("status") || !doc["status"].IsObject()) return nullptr;
  return &doc["status"];
}

bool True(const rapidjson::Value& status, const char* field) {
  return status.HasMember(field) && status[field].IsBool() && status[field].GetBool();
}

std::string Text(const rapidjson::Value& status, const char* field) {
  return status.HasMember(field) && status[field].IsString() ? status[field].GetString() : "";
}

}  // namespace

DelegatedAuth::DelegatedAuth(const KubeClient& client, std::chrono::seconds ttl) : client_(client), ttl_(ttl) {}

AuthVerdict DelegatedAuth::Check(std::string_view authorization, const std::string& path) {
  const std::string token = BearerToken(authorization);
  if (token.empty()) {
    return {401, "authentication required: send Authorization: Bearer TOKEN (a Kubernetes token; --delegate-auth)"};
  }
  const std::string key = token + '\n' + path;
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end() && it->second.expires > now) return it->second.verdict;
  }
  AuthVerdict verdict = Review(token, path);
  // A failure of the API server is not kept: the next request asks again.
  if (verdict.status != 503) {
    std::lock_guard lock(mu_);
    if (cache_.size() >= kMaxCached) cache_.clear();
    cache_[key] = {verdict, now + ttl_};
  }
  return verdict;
}

AuthVerdict DelegatedAuth::Review(const std::string& token, const std::string& path) const {
  auto reviewed = client_.Create("authentication.k8s.io/v1", "tokenreviews", "", TokenReviewBody(token));
  if (!reviewed.ok()) return {503, "cannot check the token with the API server: " + reviewed.error().message};
  rapidjson::Document review;
  review.Parse(reviewed->data(), reviewed->size());
  const rapidjson::Value* status = Status(review);
  if (status == nullptr) return {503, "the API server's TokenReview has no status"};
  if (!True(*status, "authenticated")) {
    const std::string why = Text(*status, "error");
    return {401, "the token is not valid" + (why.empty() ? std::string() : ": " + why)};
  }
  if (!status->HasMember("user") || !(*status)["user"].IsObject()) {
    return {503, "the API server's TokenReview names no user"};
  }
  const rapidjson::Value& user = (*status)["user"];
  const std::string username = Text(user, "username");
  const std::string url = std::string(kAccessPrefix) + path;
  auto decided = client_.Create("authorization.k8s.io/v1", "subjectaccessreviews", "", AccessReviewBody(user, url));
  if (!decided.ok()) return {503, "cannot check access with the API server: " + decided.error().message};
  rapidjson::Document access;
  access.Parse(decided->data(), decided->size());
  const rapidjson::Value* allowed = Status(access);
  if (allowed == nullptr) return {503, "the API server's SubjectAccessReview has no status"};
  if (!True(*allowed, "allowed")) {
    const std::string why = Text(*allowed, "reason");
    return {403, "user \"" + username + "\" may not get " + path + " (RBAC: a ClusterRole with nonResourceURLs [\"" +
                     url + "\"] or [\"" + kAccessPrefix + "/*\"] and verb get grants it)" +
                     (why.empty() ? std::string() : ": " + why)};
  }
  return {200, ""};
}

}  // namespace draforge::server
