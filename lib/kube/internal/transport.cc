#include "kube/internal/transport.h"

#include <curl/curl.h>

#include <cstdlib>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status.h"
#include "kube/internal/files.h"

namespace draforge::kube::internal {
namespace {

// curl_global_init is not thread-safe and must run once per process before any handle exists; this
// std::call_once is the library's only process-wide state (DESIGN.md allows it for libcurl).
void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CallState {
  Response* response;
  const HttpCall* call;
  bool aborted_by_callback = false;
  bool body_too_large = false;
};

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<CallState*>(user);
  std::string_view line(data, size * n);
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name = absl::AsciiStrToLower(AV(line.substr(0, colon)));
    std::string value(absl::StripAsciiWhitespace(AV(line.substr(colon + 1))));
    if (name == "retry-after") {
      int secs = 0;
      if (absl::SimpleAtoi(value, &secs) && secs >= 0) st->response->retry_after_seconds = secs;
    } else if (name == "content-type") {
      st->response->content_type = value;
    } else if (name == "warning") {
      st->response->warnings.push_back(value);
    }
  } else if (absl::StripAsciiWhitespace(AV(line)).empty()) {
    // The blank line that ends a response's headers.
    if (st->response->code == 200 && st->call->on_open) st->call->on_open();
  } else if (absl::StartsWith(AV(line), "HTTP/")) {
    // A new response (after a redirect or 100-continue): forget the previous one's headers.
    st->response->retry_after_seconds = -1;
    st->response->warnings.clear();
    size_t sp = line.find(' ');
    long code = 0;  // NOLINT(runtime/int)
    if (sp != std::string_view::npos && absl::SimpleAtoi(AV(line.substr(sp + 1, 3)), &code)) st->response->code = code;
  }
  return size * n;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<CallState*>(user);
  size_t len = size * n;
  // Only a successful answer is streamed; an error answer is buffered so its Status can be parsed.
  if (st->call->on_data && st->response->code == 200) {
    if (!st->call->on_data(std::string_view(data, len))) {
      st->aborted_by_callback = true;
      return 0;
    }
    return len;
  }
  if (st->response->body.size() + len > st->call->max_body_bytes) {
    st->body_too_large = true;
    return 0;  // curl ends the transfer (CURLE_WRITE_ERROR)
  }
  st->response->body.append(data, len);
  return len;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* st = static_cast<CallState*>(user);
  if (st->call->cancelled && st->call->cancelled()) {
    st->aborted_by_callback = true;
    return 1;
  }
  return 0;
}

}  // namespace

bool SendsCredentials(const RestConfig& config) {
  return config.allow_credentials_over_http || !absl::StartsWith(config.server, "http://");
}

bool WithholdsCredentials(const RestConfig& config) {
  return !SendsCredentials(config) && (!config.bearer_token.empty() || !config.bearer_token_file.empty() ||
                                       config.exec.has_value() || !config.username.empty());
}

Transport::Transport(const RestConfig& config) : config_(config) { InitCurlOnce(); }

absl::StatusOr<std::string> Transport::FileToken() {
  absl::MutexLock lock(&mu_);
  absl::Time now = absl::Now();
  // client-go's CachedFileTokenSource re-reads the file once a minute, so rotated tokens are used.
  if (now - file_token_read_ > absl::Minutes(1)) {
    ASSIGN_OR_RETURN(std::string token, ReadFileText(config_.bearer_token_file, "bearer token file"));
    file_token_ = std::string(absl::StripAsciiWhitespace(token));
    file_token_read_ = now;
  }
  return file_token_;
}

absl::StatusOr<Transport::ExecResult> Transport::ExecCred(uint64_t rejected) {
  mu_.Lock();
  const uint64_t seen = exec_runs_;
  for (;;) {
    if (exec_cred_ && exec_cred_generation_ != rejected &&
        (!exec_cred_->expiration || *exec_cred_->expiration > absl::Now() + absl::Seconds(10))) {
      ExecResult out{*exec_cred_, exec_cred_generation_};
      mu_.Unlock();
      return out;
    }
    if (!exec_running_) {
      // A run that finished while we waited and failed: its error is ours, no second plugin.
      if (exec_runs_ != seen && !exec_error_.ok()) {
        absl::Status error = exec_error_;
        mu_.Unlock();
        return error;
      }
      break;
    }
    mu_.Await(absl::Condition(+[](bool* running) { return !*running; }, &exec_running_));
  }
  exec_running_ = true;
  mu_.Unlock();
  absl::StatusOr<ExecCredential> cred = RunExecPlugin(config_);
  absl::MutexLock lock(&mu_);
  exec_running_ = false;
  ++exec_runs_;
  if (!cred.ok()) {
    // A deadline stays a deadline (the caller may tell "slow" from "refused"); the rest is an
    // authentication failure, as client-go reports it.
    absl::StatusCode code = absl::IsDeadlineExceeded(cred.status()) ? absl::StatusCode::kDeadlineExceeded
                                                                   : absl::StatusCode::kUnauthenticated;
    exec_error_ = absl::Status(code, absl::StrCat("getting credentials: ", cred.status().message()));
    return exec_error_;
  }
  exec_error_ = absl::OkStatus();
  exec_cred_ = *cred;
  exec_cred_generation_ = exec_runs_;
  return ExecResult{*std::move(cred), exec_cred_generation_};
}

absl::StatusOr<Response> Transport::Perform(const HttpCall& call) {
  const bool send = SendsCredentials(config_);
  std::optional<ExecResult> cred;
  if (config_.exec && send) {
    ASSIGN_OR_RETURN(cred, ExecCred(/*rejected=*/0));
  }
  std::string token = send ? config_.bearer_token : "";
  if (send && token.empty() && !config_.bearer_token_file.empty()) {
    ASSIGN_OR_RETURN(token, FileToken());
  }
  ASSIGN_OR_RETURN(Response response, PerformOnce(call, cred ? &cred->cred : nullptr, token, send));
  if (response.code == 401 && cred) {
    // The plugin's credential was rejected (expired or revoked): ask the plugin again, once.
    ASSIGN_OR_RETURN(cred, ExecCred(cred->generation));
    return PerformOnce(call, &cred->cred, token, send);
  }
  return response;
}

absl::StatusOr<Response> Transport::PerformOnce(const HttpCall& call, const ExecCredential* cred,
                                                const std::string& file_token, bool send_credentials) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
  Response response;
  CallState st{&response, &call};
  curl_slist* headers = nullptr;
  std::string url = config_.server + call.path;
  std::string connect_to;
  curl_slist* connect_to_list = nullptr;
  if (!config_.tls_server_name.empty()) {
    // Verify the certificate for tls-server-name while connecting to the configured host: ask curl
    // to use tls-server-name in the URL (SNI and verification) and CONNECT_TO the real address.
    std::string_view rest = SV(absl::StripPrefix(AV(config_.server), "https://"));
    size_t slash = rest.find('/');
    std::string_view hostport = rest.substr(0, slash);
    std::string_view path_prefix = slash == std::string_view::npos ? "" : rest.substr(slash);
    size_t colon = hostport.rfind(':');
    std::string host(hostport.substr(0, colon));
    std::string port = colon == std::string_view::npos ? "443" : std::string(hostport.substr(colon + 1));
    url = absl::StrCat("https://", config_.tls_server_name, ":", port, AV(path_prefix), call.path);
    connect_to = absl::StrCat(config_.tls_server_name, ":", port, ":", host, ":", port);
    connect_to_list = curl_slist_append(nullptr, connect_to.c_str());
    curl_easy_setopt(curl, CURLOPT_CONNECT_TO, connect_to_list);
  }
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, call.method.c_str());
  if (call.method == "HEAD") curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  if (!call.body.empty() || call.method == "POST" || call.method == "PUT" || call.method == "PATCH") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, call.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(call.body.size()));
    headers = curl_slist_append(
        headers, absl::StrCat("Content-Type: ", call.content_type.empty() ? "application/json" : call.content_type)
                     .c_str());
  }
  headers = curl_slist_append(headers, "Accept: application/json");
  headers = curl_slist_append(headers, "Expect:");
  std::string token = cred && !cred->token.empty() ? cred->token : file_token;
  if (!token.empty()) headers = curl_slist_append(headers, absl::StrCat("Authorization: Bearer ", token).c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, config_.user_agent.c_str());
  if (send_credentials && token.empty() && !config_.username.empty()) {
    curl_easy_setopt(curl, CURLOPT_USERNAME, config_.username.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, config_.password.c_str());
  }
  // TLS: PEM blobs, never temporary files (curl >= 7.77).
  if (config_.insecure_skip_tls_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (!config_.ca_pem.empty()) {
    curl_blob ca{const_cast<char*>(config_.ca_pem.data()), config_.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
  }
  const std::string& cert = cred && !cred->client_certificate_pem.empty() ? cred->client_certificate_pem
                                                                          : config_.client_certificate_pem;
  const std::string& key =
      cred && !cred->client_key_pem.empty() ? cred->client_key_pem : config_.client_key_pem;
  if (!cert.empty()) {
    curl_blob cb{const_cast<char*>(cert.data()), cert.size(), CURL_BLOB_COPY};
    curl_blob kb{const_cast<char*>(key.data()), key.size(), CURL_BLOB_COPY};
    curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &cb);
    curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &kb);
    curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
  }
  if (!config_.proxy_url.empty()) curl_easy_setopt(curl, CURLOPT_PROXY, config_.proxy_url.c_str());
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  if (call.timeout != absl::InfiniteDuration()) {
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(call.timeout)));  // NOLINT
  }
  // Keep-alive probes notice a peer that vanished without closing (a long watch would hang otherwise).
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPIDLE, 30L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPINTVL, 10L);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &st);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &st);
  if (call.cancelled) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &st);
  }
  CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.code);
  curl_slist_free_all(headers);
  curl_slist_free_all(connect_to_list);
  curl_easy_cleanup(curl);
  if (st.aborted_by_callback) return absl::CancelledError(absl::StrCat(call.method, " ", call.path, ": cancelled"));
  std::string what = absl::StrCat(call.method, " ", config_.server, call.path);
  if (st.body_too_large) {
    return absl::ResourceExhaustedError(absl::StrCat(what, ": the answer exceeds ", call.max_body_bytes,
                                                     " bytes (ClientOptions::max_response_bytes); for a list, ask for "
                                                     "smaller pages"));
  }
  switch (rc) {
    case CURLE_OK: return response;
    case CURLE_OPERATION_TIMEDOUT:
      return absl::DeadlineExceededError(absl::StrCat(what, ": timed out: ", curl_easy_strerror(rc)));
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return absl::UnavailableError(absl::StrCat(what, ": ", curl_easy_strerror(rc)));
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CONNECT_ERROR:
      return absl::UnauthenticatedError(absl::StrCat(what, ": TLS: ", curl_easy_strerror(rc)));
    default: return absl::UnavailableError(absl::StrCat(what, ": ", curl_easy_strerror(rc)));
  }
}

}  // namespace draforge::kube::internal
