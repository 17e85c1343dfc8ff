// Offline tests of kube::Client's transport behaviour that a real API server does not produce on
// demand: 429/5xx with Retry-After, dropped connections, watch streams split at arbitrary byte
// boundaries, ERROR events. A scripted HTTP/1.1 server on loopback answers each connection with the
// next canned response.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api_status.h"
#include "kube/client.h"
#include "kube/internal/backoff.h"
#include "kube/leader_election.h"
#include "kube/reflector.h"
#include "store/cluster.h"
#include "temp_dir.h"

namespace draforge::kube {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// One canned answer: raw bytes written in `chunks` (with a pause between them so the client sees
// them as separate reads), or nothing at all (`drop`: close the connection unanswered). `hang`:
// first hold the connection silent that long (a hung API server), or until the server is destroyed.
struct Canned {
  std::vector<std::string> chunks;
  bool drop = false;
  absl::Duration hang = absl::ZeroDuration();
  absl::Duration hang_after = absl::ZeroDuration();  // after the chunks, before closing
};

Canned Hang(absl::Duration d) { return Canned{.drop = true, .hang = d}; }

Canned Http(int code, const std::string& body, const std::string& extra_headers = "") {
  return {{absl::StrCat("HTTP/1.1 ", code, " X\r\nContent-Type: application/json\r\nContent-Length: ", body.size(),
                        "\r\n", extra_headers, "Connection: close\r\n\r\n", body)}};
}

std::string StatusBody(int code, const std::string& reason) {
  return absl::StrCat(R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"m )", reason,
                      R"(","reason":")", reason, R"(","code":)", code, "}");
}

class ScriptedServer {
 public:
  // Answers the first connections with `script`, in order, then stops accepting.
  explicit ScriptedServer(std::vector<Canned> script)
      : ScriptedServer(std::make_shared<const std::vector<Canned>>(std::move(script))) {}
  // Answers every connection with handler(request) (the request line and headers) until destroyed.
  explicit ScriptedServer(std::function<Canned(const std::string& request)> handler,
                          size_t connections = std::numeric_limits<size_t>::max())
      : handler_(std::move(handler)), connections_(connections) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    listen(fd_, 16);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedServer() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  std::string url() const { return absl::StrCat("http://127.0.0.1:", port_); }
  // The request lines ("GET /api/v1/namespaces/a HTTP/1.1").
  std::vector<std::string> requests() {
    absl::MutexLock lock(&mu_);
    std::vector<std::string> lines;
    for (const std::string& r : requests_) lines.push_back(r.substr(0, r.find("\r\n")));
    return lines;
  }
  // The request lines with their headers.
  std::vector<std::string> raw_requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

 private:
  explicit ScriptedServer(std::shared_ptr<const std::vector<Canned>> script)
      : ScriptedServer([script, next = size_t{0}](const std::string&) mutable { return (*script)[next++]; },
                       script->size()) {}

  void Serve() {
    for (size_t served = 0; served < connections_; ++served) {
      int conn = accept(fd_, nullptr, nullptr);
      if (conn < 0) return;
      std::string req;
      char buf[4096];
      while (req.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = read(conn, buf, sizeof buf);
        if (n <= 0) break;
        req.append(buf, static_cast<size_t>(n));
      }
      std::string head = req.substr(0, req.find("\r\n\r\n"));
      {
        absl::MutexLock lock(&mu_);
        requests_.push_back(head);
      }
      Canned c = handler_(head);
      if (c.hang > absl::ZeroDuration()) {
        absl::MutexLock lock(&mu_);
        mu_.AwaitWithTimeout(absl::Condition(&stopping_), c.hang);
      }
      if (!c.drop) {
        for (size_t i = 0; i < c.chunks.size(); ++i) {
          if (i > 0) absl::SleepFor(absl::Milliseconds(20));
          // MSG_NOSIGNAL: a client that hung up (a refused answer) must not kill the test with SIGPIPE.
          (void)!send(conn, c.chunks[i].data(), c.chunks[i].size(), MSG_NOSIGNAL);
        }
      }
      if (c.hang_after > absl::ZeroDuration()) {
        absl::MutexLock lock(&mu_);
        mu_.AwaitWithTimeout(absl::Condition(&stopping_), c.hang_after);
      }
      close(conn);
    }
  }

  std::function<Canned(const std::string&)> handler_;
  size_t connections_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  absl::Mutex mu_;
  std::vector<std::string> requests_;
  bool stopping_ = false;
};

// The waits between retries, recorded instead of slept.
struct Waits {
  absl::Mutex mu;
  std::vector<absl::Duration> waits;
};

std::unique_ptr<Client> ClientFor(const ScriptedServer& server, int attempts = 4, Waits* waits = nullptr,
                                  absl::Duration max_delay = absl::Milliseconds(50)) {
  RestConfig config;
  config.server = server.url();
  ClientOptions options;
  options.retry.max_attempts = attempts;
  options.retry.initial_delay = absl::Milliseconds(10);
  options.retry.max_delay = max_delay;
  options.sleep = [waits](absl::Duration d) {
    if (waits != nullptr) {
      absl::MutexLock lock(&waits->mu);
      waits->waits.push_back(d);
    }
  };
  return *Client::Create(config, options);
}

const Resource kNamespaces = NamespaceResource();
const char kNamespace[] = R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}})";

TEST(ClientRetries, TooManyRequestsWithRetryAfterIsRetried) {
  ScriptedServer server({Http(429, StatusBody(429, "TooManyRequests"), "Retry-After: 3\r\n"),
                         Http(503, StatusBody(503, "ServiceUnavailable"), "Retry-After: 0\r\n"),
                         Http(429, StatusBody(429, "TooManyRequests"), "Retry-After: 120\r\n"),
                         Http(200, kNamespace)});
  Waits waits;
  auto got = ClientFor(server, 5, &waits, absl::Seconds(10))->Get(kNamespaces, "", "a");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(server.requests().size(), 4u);
  ASSERT_EQ(waits.waits.size(), 3u);
  // Retry-After: 3 is honoured (at least 3 s, jitter at most +50%).
  EXPECT_GE(waits.waits[0], absl::Seconds(3));
  EXPECT_LE(waits.waits[0], absl::Seconds(4.5));
  // Retry-After: 0: exponential backoff from 10 ms (second attempt: 20 ms, +50% jitter).
  EXPECT_GE(waits.waits[1], absl::Milliseconds(20));
  EXPECT_LE(waits.waits[1], absl::Milliseconds(30));
  // Retry-After beyond max_delay is capped.
  EXPECT_EQ(waits.waits[2], absl::Seconds(10));
}

TEST(ClientRetries, GivesUpAfterMaxAttemptsWithTheLastStatus) {
  ScriptedServer server({Http(503, StatusBody(503, "ServiceUnavailable"), "Retry-After: 1\r\n"),
                         Http(503, StatusBody(503, "ServiceUnavailable"), "Retry-After: 1\r\n"),
                         Http(503, StatusBody(503, "ServiceUnavailable"), "Retry-After: 1\r\n")});
  auto got = ClientFor(server, 3)->Get(kNamespaces, "", "a");
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(GetApiStatus(got.status())->code, 503);
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(ClientRetries, ConflictsAndClientErrorsAreNotRetried) {
  ScriptedServer server({Http(409, StatusBody(409, "Conflict")), Http(200, kNamespace)});
  rapidjson::Document ns;
  ns.Parse(kNamespace);
  auto updated = ClientFor(server)->Update(kNamespaces, "", ns);
  EXPECT_TRUE(IsApiConflict(updated.status())) << updated.status();
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(ClientRetries, DroppedConnectionRetriesReadsButNotWrites) {
  {
    ScriptedServer server({Canned{.drop = true}, Http(200, kNamespace)});
    auto got = ClientFor(server)->Get(kNamespaces, "", "a");
    EXPECT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(server.requests().size(), 2u);
  }
  {
    ScriptedServer server({Canned{.drop = true}, Http(201, kNamespace)});
    rapidjson::Document ns;
    ns.Parse(kNamespace);
    auto created = ClientFor(server)->Create(kNamespaces, "", ns);
    EXPECT_EQ(created.status().code(), absl::StatusCode::kUnavailable) << created.status();
    EXPECT_FALSE(GetApiStatus(created.status()).has_value());
    EXPECT_EQ(server.requests().size(), 1u);
  }
}

// client-go retries an answer only when it carries Retry-After (rest/with_retry.go checkWait): a
// 5xx without it may come after the server did the work (a 504 Timeout "may still be processing").
TEST(ClientRetries, ServerErrorsWithoutRetryAfterAreFinalForEveryVerb) {
  rapidjson::Document ns;
  ns.Parse(kNamespace);
  {
    ScriptedServer server({Http(503, StatusBody(503, "ServiceUnavailable")), Http(200, kNamespace)});
    Waits waits;
    auto got = ClientFor(server, 4, &waits)->Get(kNamespaces, "", "a");
    EXPECT_EQ(got.status().code(), absl::StatusCode::kUnavailable) << got.status();
    EXPECT_EQ(server.requests().size(), 1u);
    EXPECT_TRUE(waits.waits.empty());
  }
  {
    ScriptedServer server({Http(504, StatusBody(504, "Timeout")), Http(201, kNamespace)});
    auto created = ClientFor(server)->Create(kNamespaces, "", ns);
    EXPECT_EQ(created.status().code(), absl::StatusCode::kDeadlineExceeded) << created.status();
    EXPECT_EQ(GetApiStatus(created.status())->reason, "Timeout");
    EXPECT_EQ(server.requests().size(), 1u);
  }
  {
    ScriptedServer server({Http(500, StatusBody(500, "InternalError")), Http(201, kNamespace)});
    auto created = ClientFor(server)->Create(kNamespaces, "", ns);
    EXPECT_EQ(GetApiStatus(created.status())->code, 500) << created.status();
    EXPECT_EQ(server.requests().size(), 1u);
  }
}

// API Priority and Fairness rejects before any handler runs, with a plain-text 429 and Retry-After:
// a POST is repeated (nothing was written), and once the budget is spent the caller gets a status
// with reason TooManyRequests, as client-go builds it, although the body was no Status.
TEST(ClientRetries, PlainTextTooManyRequestsIsRetriedForWritesAndEndsAsTooManyRequests) {
  const std::string apf_body = "Too many requests, please try again later.\n";
  rapidjson::Document ns;
  ns.Parse(kNamespace);
  {
    ScriptedServer server({Http(429, apf_body, "Retry-After: 2\r\n"), Http(201, kNamespace)});
    Waits waits;
    auto created = ClientFor(server, 4, &waits, absl::Seconds(10))->Create(kNamespaces, "", ns);
    ASSERT_TRUE(created.ok()) << created.status();
    EXPECT_THAT(server.requests(),
                ElementsAre(HasSubstr("POST /api/v1/namespaces"), HasSubstr("POST /api/v1/namespaces")));
    ASSERT_EQ(waits.waits.size(), 1u);
    EXPECT_GE(waits.waits[0], absl::Seconds(2));
  }
  {
    ScriptedServer server(
        {Http(429, apf_body, "Retry-After: 2\r\n"), Http(429, apf_body, "Retry-After: 2\r\n")});
    auto created = ClientFor(server, 2)->Create(kNamespaces, "", ns);
    EXPECT_EQ(created.status().code(), absl::StatusCode::kResourceExhausted) << created.status();
    EXPECT_TRUE(IsApiTooManyRequests(created.status()));
    std::optional<ApiStatus> status = GetApiStatus(created.status());
    ASSERT_TRUE(status.has_value());
    EXPECT_EQ(status->reason, "TooManyRequests");
    EXPECT_EQ(status->retry_after_seconds, 2);
    ASSERT_EQ(status->causes.size(), 1u);
    EXPECT_EQ(status->causes[0].reason, "UnexpectedServerResponse");
    EXPECT_EQ(status->causes[0].message, "Too many requests, please try again later.");
    EXPECT_THAT(created.status().message(), HasSubstr("create namespaces a: 429 TooManyRequests"));
    EXPECT_EQ(server.requests().size(), 2u);
  }
}

// The reasons apimachinery's errors.NewGenericServerResponse gives an answer without a Status body.
// Deadlines (a leader's writes carry LeaderElector::LeadershipDeadline()): a write prepared before
// the deadline and sent after it could land after another replica took over.
TEST(ClientDeadline, WriteWhoseDeadlineHasPassedIsNotSent) {
  ScriptedServer server({Http(200, kNamespace)});
  rapidjson::Document ns;
  ns.Parse(kNamespace);
  WriteOptions options;
  options.deadline = absl::Now() - absl::Seconds(1);
  auto updated = ClientFor(server)->Update(kNamespaces, "", ns, options);
  EXPECT_EQ(updated.status().code(), absl::StatusCode::kDeadlineExceeded) << updated.status();
  EXPECT_THAT(updated.status().message(), HasSubstr("update namespaces a: PUT /api/v1/namespaces/a: not sent"));
  DeleteOptions del;
  del.deadline = absl::InfinitePast();  // LeadershipDeadline() of a replica that does not lead
  auto deleted = ClientFor(server)->Delete(kNamespaces, "", "a", del);
  EXPECT_EQ(deleted.status().code(), absl::StatusCode::kDeadlineExceeded) << deleted.status();
  EXPECT_TRUE(server.requests().empty());
}

TEST(ClientDeadline, RetryThatWouldStartPastTheDeadlineIsNotMade) {
  rapidjson::Document ns;
  ns.Parse(kNamespace);
  {
    // Retry-After: 5 with 2 s left: the caller gets the 429 now, and nothing is sent later.
    ScriptedServer server({Http(429, StatusBody(429, "TooManyRequests"), "Retry-After: 5\r\n"), Http(201, kNamespace)});
    Waits waits;
    WriteOptions options;
    options.deadline = absl::Now() + absl::Seconds(2);
    auto created = ClientFor(server, 5, &waits, absl::Seconds(10))->Create(kNamespaces, "", ns, options);
    EXPECT_TRUE(IsApiTooManyRequests(created.status())) << created.status();
    EXPECT_EQ(server.requests().size(), 1u);
    EXPECT_TRUE(waits.waits.empty());
  }
  {
    // The same answer with time to spare is retried: the deadline alone made the difference.
    ScriptedServer server({Http(429, StatusBody(429, "TooManyRequests"), "Retry-After: 5\r\n"), Http(201, kNamespace)});
    Waits waits;
    WriteOptions options;
    options.deadline = absl::Now() + absl::Seconds(60);
    auto created = ClientFor(server, 5, &waits, absl::Seconds(10))->Create(kNamespaces, "", ns, options);
    EXPECT_TRUE(created.ok()) << created.status();
    EXPECT_EQ(server.requests().size(), 2u);
  }
}

TEST(ClientDeadline, AnAttemptEndsAtTheDeadlineNotAtTheRequestTimeout) {
  ScriptedServer server({Hang(absl::Seconds(30)), Http(200, kNamespace)});
  Waits waits;
  auto client = ClientFor(server, 4, &waits);  // RestConfig::timeout: the default 30 s
  GetOptions options;
  options.deadline = absl::Now() + absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  auto got = client->Get(kNamespaces, "", "a", options);
  // The feature is the deadline: a generous bound, far below the 30 s request timeout.
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_EQ(got.status().code(), absl::StatusCode::kDeadlineExceeded) << got.status();
  EXPECT_EQ(server.requests().size(), 1u);
}

// The elector's Lease requests carry deadlines too: an API server that accepts the renewal's
// connection and never answers must not keep this replica leading (on_stopped_leading not called,
// the thread stuck) for the 30 s request timeout; it stops at renew_deadline.
TEST(LeaderElectionDeadline, HungRenewalEndsLeadershipAtTheRenewDeadline) {
  const std::string lease =
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l","namespace":"default",)"
      R"("resourceVersion":"1"},"spec":{}})";
  ScriptedServer server({Http(404, StatusBody(404, "NotFound")), Http(201, lease), Hang(absl::Seconds(60)),
                         Hang(absl::Seconds(60)), Hang(absl::Seconds(60)), Hang(absl::Seconds(60))});
  auto client = ClientFor(server);
  absl::Mutex mu;
  absl::Time started = absl::InfinitePast(), stopped = absl::InfinitePast();
  absl::Time deadline_when_started = absl::InfinitePast();
  LeaderElector* elector_ptr = nullptr;
  LeaderElectionOptions o;
  o.lease_name = "l";
  o.identity = "a";
  o.lease_duration = absl::Seconds(4);
  o.renew_deadline = absl::Seconds(2);
  o.retry_period = absl::Milliseconds(500);
  o.on_started_leading = [&] {
    // Read here, on the elector's thread, so that a slow test thread cannot see it lapse first.
    const absl::Time deadline = elector_ptr->LeadershipDeadline();
    absl::MutexLock lock(&mu);
    deadline_when_started = deadline;
    started = absl::Now();
  };
  o.on_stopped_leading = [&] {
    absl::MutexLock lock(&mu);
    stopped = absl::Now();
  };
  LeaderElector elector(*client, o);
  elector_ptr = &elector;
  EXPECT_EQ(elector.LeadershipDeadline(), absl::InfinitePast());
  const absl::Time before_start = absl::Now();
  ASSERT_TRUE(elector.Start().ok());
  {
    absl::MutexLock lock(&mu);
    ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(+[](absl::Time* t) { return *t != absl::InfinitePast(); },
                                                    &started),
                                    absl::Seconds(10)));
  }
  {
    absl::MutexLock lock(&mu);
    // Last renewal (taken before its request was sent) + renew_deadline.
    EXPECT_GE(deadline_when_started, before_start + o.renew_deadline);
    EXPECT_LE(deadline_when_started, started + o.renew_deadline);
  }
  {
    absl::MutexLock lock(&mu);
    ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(+[](absl::Time* t) { return *t != absl::InfinitePast(); },
                                                    &stopped),
                                    absl::Seconds(20)))
        << "still leading 20 s after the API server stopped answering";
    // Generous: renew_deadline (2 s) plus slack for a loaded machine, far below the 30 s timeout.
    EXPECT_LT(stopped - started, absl::Seconds(8));
  }
  EXPECT_FALSE(elector.IsLeader());
  EXPECT_EQ(elector.LeadershipDeadline(), absl::InfinitePast());
}

TEST(ClientErrors, NonStatusAnswersGetClientGosReasons) {
  EXPECT_EQ(GenericServerResponse(409, "POST", "", 0).reason, "AlreadyExists");
  EXPECT_EQ(GenericServerResponse(409, "PUT", "", 0).reason, "Conflict");
  EXPECT_EQ(GenericServerResponse(422, "POST", "", 0).reason, "Invalid");
  EXPECT_EQ(GenericServerResponse(503, "GET", "", 0).reason, "ServiceUnavailable");
  EXPECT_EQ(GenericServerResponse(504, "GET", "", 0).reason, "Timeout");
  EXPECT_EQ(GenericServerResponse(501, "GET", "", 0).reason, "InternalError");
  EXPECT_EQ(GenericServerResponse(418, "GET", "", 0).reason, "Unknown");
  ApiStatus apf = GenericServerResponse(429, "GET", "  Too many requests, please try again later.\n", 3);
  EXPECT_EQ(apf.code, 429);
  EXPECT_EQ(apf.reason, "TooManyRequests");
  EXPECT_EQ(apf.retry_after_seconds, 3);
  EXPECT_EQ(apf.message,
            "the server has received too many requests and has asked us to try again later: Too many requests, please "
            "try again later.");
  EXPECT_THAT(apf.causes, ElementsAre(StatusCause{"UnexpectedServerResponse",
                                                  "Too many requests, please try again later.", ""}));
  // No body: no cause, the generic sentence alone; no Retry-After header: 0.
  ApiStatus empty = GenericServerResponse(502, "GET", "", -1);
  EXPECT_TRUE(empty.causes.empty());
  EXPECT_EQ(empty.message, "an error on the server has prevented the request from succeeding");
  EXPECT_EQ(empty.retry_after_seconds, 0);
}

TEST(ClientRetries, NonStatusErrorBodyKeepsTheHttpCode) {
  {
    ScriptedServer server({Http(502, "<html>bad gateway</html>")});
    auto got = ClientFor(server, 2)->Get(kNamespaces, "", "a");
    EXPECT_EQ(got.status().code(), absl::StatusCode::kUnavailable) << got.status();
    EXPECT_EQ(GetApiStatus(got.status())->code, 502);
    EXPECT_EQ(GetApiStatus(got.status())->reason, "InternalError");
    EXPECT_THAT(got.status().message(), HasSubstr("bad gateway"));
  }
  {
    ScriptedServer server({Http(404, "not json")});
    auto got = ClientFor(server, 2)->Get(kNamespaces, "", "a");
    EXPECT_TRUE(IsApiNotFound(got.status())) << got.status();
    EXPECT_EQ(GetApiStatus(got.status())->reason, "NotFound");
    EXPECT_THAT(got.status().message(), HasSubstr("not json"));
  }
}

TEST(ClientConfig, ProxyUrlSendsRequestsThroughTheProxy) {
  ScriptedServer proxy({Http(200, kNamespace)});
  RestConfig config;
  config.server = "http://apiserver.invalid:6443";
  config.proxy_url = proxy.url();
  auto got = (*Client::Create(config))->Get(kNamespaces, "", "a");
  ASSERT_TRUE(got.ok()) << got.status();
  // A proxy gets the absolute URL; the unresolvable host never had to be resolved here.
  ASSERT_EQ(proxy.requests().size(), 1u);
  EXPECT_EQ(proxy.requests()[0], "GET http://apiserver.invalid:6443/api/v1/namespaces/a HTTP/1.1");
}

std::string Chunked(const std::string& data) { return absl::StrCat(absl::Hex(data.size()), "\r\n", data, "\r\n"); }

TEST(ClientWatch, EventsSplitAcrossChunksAreReassembledAndAnErrorEventEndsTheWatch) {
  std::string ev1 = R"({"type":"ADDED","object":{"kind":"Namespace","metadata":{"name":"a","resourceVersion":"5"}}})";
  std::string ev2 =
      R"({"type":"BOOKMARK","object":{"kind":"Namespace","metadata":{"resourceVersion":"9"}}})";
  std::string ev3 = R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure",)j"
                    R"j("message":"too old resource version: 1 (9)","reason":"Expired","code":410}})j";
  std::string stream = ev1 + "\n" + ev2 + "\n" + ev3 + "\n";
  std::vector<std::string> chunks = {
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"};
  // Split mid-event and mid-line.
  chunks.push_back(Chunked(stream.substr(0, 30)));
  chunks.push_back(Chunked(stream.substr(30, ev1.size())));
  chunks.push_back(Chunked(stream.substr(30 + ev1.size())));
  chunks.push_back("0\r\n\r\n");
  ScriptedServer server({Canned{chunks}});
  std::vector<std::string> seen;
  int opened = 0;
  WatchOptions wo{.resource_version = "1"};
  wo.on_open = [&] { ++opened; };
  absl::Status s = ClientFor(server)->Watch(kNamespaces, "", wo, [&](WatchEvent& e) {
    seen.push_back(absl::StrCat(opened == 1 ? "" : "before-open:", e.type, "@",
                                e.object["metadata"]["resourceVersion"].GetString()));
    return true;
  });
  EXPECT_EQ(opened, 1);
  EXPECT_THAT(seen, ElementsAre("ADDED@5", "BOOKMARK@9"));
  EXPECT_TRUE(IsApiGone(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("too old resource version"));
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_THAT(server.requests()[0], HasSubstr("watch=true&resourceVersion=1&allowWatchBookmarks=true"));
}

TEST(ClientWatch, MalformedEventIsDataLoss) {
  std::string body = "{\"type\":\"ADDED\",\"object\":{}}\nnot json\n";
  ScriptedServer server({Http(200, body)});
  int events = 0;
  absl::Status s = ClientFor(server)->Watch(kNamespaces, "", {}, [&](WatchEvent&) {
    ++events;
    return true;
  });
  EXPECT_EQ(events, 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
}

TEST(ClientWatch, RefusedWatchCarriesTheStatus) {
  ScriptedServer server({Http(403, StatusBody(403, "Forbidden"))});
  bool opened = false;
  WatchOptions wo;
  wo.on_open = [&] { opened = true; };
  absl::Status s = ClientFor(server)->Watch(kNamespaces, "", wo, [](WatchEvent&) { return true; });
  EXPECT_TRUE(IsApiForbidden(s)) << s;
  EXPECT_FALSE(opened) << "a refused watch was reported open";
}

// --- Credentials and http:// -------------------------------------------------------------------

using testing::TempDir;

bool HasAuthorization(const std::string& request) {
  return absl::StrContains(absl::AsciiStrToLower(request), "\r\nauthorization:");
}

// A bearer token over plain HTTP is readable by anyone on the path: it is not sent unless the
// embedding program allows it, and the 401 that follows says why.
TEST(ClientCredentials, PlainHttpServerGetsNoBearerTokenUnlessAllowed) {
  {
    ScriptedServer server({Http(401, StatusBody(401, "Unauthorized"))});
    RestConfig config;
    config.server = server.url();
    config.bearer_token = "secret-token";
    auto got = (*Client::Create(config))->Get(kNamespaces, "", "a");
    ASSERT_EQ(server.raw_requests().size(), 1u);
    EXPECT_FALSE(HasAuthorization(server.raw_requests()[0])) << server.raw_requests()[0];
    EXPECT_THAT(server.raw_requests()[0], Not(HasSubstr("secret-token")));
    EXPECT_EQ(got.status().code(), absl::StatusCode::kUnauthenticated) << got.status();
    EXPECT_THAT(got.status().message(), HasSubstr("the credentials were not sent"));
    EXPECT_THAT(got.status().message(), HasSubstr("allow_credentials_over_http"));
  }
  {
    ScriptedServer server({Http(200, kNamespace)});
    RestConfig config;
    config.server = server.url();
    config.bearer_token = "secret-token";
    config.allow_credentials_over_http = true;
    ASSERT_TRUE((*Client::Create(config))->Get(kNamespaces, "", "a").ok());
    ASSERT_EQ(server.raw_requests().size(), 1u);
    EXPECT_THAT(server.raw_requests()[0], HasSubstr("Authorization: Bearer secret-token"));
  }
}

TEST(ClientCredentials, PlainHttpServerDoesNotRunTheExecPlugin) {
  TempDir dir;
  std::string plugin = dir.Script("plugin.sh", absl::StrCat("#!/bin/sh\ntouch ", dir.Path("ran"), R"(
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-token"}}'
)"));
  ScriptedServer server({Http(200, kNamespace), Http(200, kNamespace)});
  RestConfig config;
  config.server = server.url();
  config.exec = ExecConfig{.api_version = "client.authentication.k8s.io/v1", .command = plugin};
  ASSERT_TRUE((*Client::Create(config))->Get(kNamespaces, "", "a").ok());
  EXPECT_FALSE(std::filesystem::exists(dir.Path("ran")));
  EXPECT_FALSE(HasAuthorization(server.raw_requests()[0])) << server.raw_requests()[0];

  config.allow_credentials_over_http = true;
  ASSERT_TRUE((*Client::Create(config))->Get(kNamespaces, "", "a").ok());
  EXPECT_TRUE(std::filesystem::exists(dir.Path("ran")));
  EXPECT_THAT(server.raw_requests()[1], HasSubstr("Authorization: Bearer exec-token"));
}

// Waits (up to a generous bound) until `path` exists.
bool WaitForFile(const std::string& path) {
  for (absl::Time end = absl::Now() + absl::Seconds(60); absl::Now() < end; absl::SleepFor(absl::Milliseconds(10))) {
    if (std::filesystem::exists(path)) return true;
  }
  return false;
}

// The plugin runs outside the transport's lock: while a refresh hangs, a request that holds a
// valid credential goes through (a Lease renewal must not wait for a plugin), a second request
// that needs a new credential waits for the running plugin instead of starting another, and the
// hung plugin fails both by its deadline, naming the command.
TEST(ClientCredentials, HangingPluginRefreshBlocksNoOneHoldingAValidCredential) {
  TempDir dir;
  std::string plugin = dir.Script("plugin.sh", absl::StrCat("#!/bin/sh\necho run >> ", dir.Path("runs"), "\n",
                                                            "if [ -e ", dir.Path("issued"), " ]; then touch ",
                                                            dir.Path("hanging"), "; sleep 1000; fi\ntouch ",
                                                            dir.Path("issued"), R"(
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t1"}}'
)"));
  ScriptedServer server({Http(200, kNamespace), Http(401, StatusBody(401, "Unauthorized")), Http(200, kNamespace),
                         Http(401, StatusBody(401, "Unauthorized"))});
  RestConfig config;
  config.server = server.url();
  config.allow_credentials_over_http = true;
  config.exec = ExecConfig{.api_version = "client.authentication.k8s.io/v1", .command = plugin};
  config.exec_timeout = absl::Seconds(10);  // the deadline is the test's only wait
  std::unique_ptr<Client> client = *Client::Create(config, {.retry = {.max_attempts = 1}});
  ASSERT_TRUE(client->Get(kNamespaces, "", "a").ok());  // credential t1 cached

  std::atomic<bool> refresh_done{false};
  absl::Status refresh;
  std::thread refresher([&] {
    refresh = client->Get(kNamespaces, "", "a").status();  // 401: runs the plugin, which hangs
    refresh_done = true;
  });
  ASSERT_TRUE(WaitForFile(dir.Path("hanging")));
  // The cached credential is still valid for everyone else.
  absl::StatusOr<rapidjson::Document> other = client->Get(kNamespaces, "", "a");
  EXPECT_TRUE(other.ok()) << other.status();
  EXPECT_FALSE(refresh_done.load()) << "the request waited for the plugin";
  // Another 401 while the plugin runs: waits for that run, starts none of its own.
  absl::Status second = client->Get(kNamespaces, "", "a").status();
  refresher.join();
  for (const absl::Status& s : {refresh, second}) {
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
    EXPECT_THAT(s.message(), HasSubstr(absl::StrCat("exec plugin ", plugin, " timed out after 10s")));
  }
  std::ifstream runs(dir.Path("runs"));
  std::string all((std::istreambuf_iterator<char>(runs)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, "run\nrun\n");  // the first credential and one refresh
  for (const std::string& r : server.raw_requests()) EXPECT_THAT(r, HasSubstr("Authorization: Bearer t1"));
}

// --- Size limits -------------------------------------------------------------------------------

TEST(ClientLimits, AnswerOverTheLimitIsAnErrorNotAnAllocation) {
  std::string big = absl::StrCat(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"},"x":")",
                                 std::string(5000, 'x'), R"("})");
  ScriptedServer server({Http(200, big), Http(200, kNamespace)});
  RestConfig config;
  config.server = server.url();
  auto client = *Client::Create(config, {.max_response_bytes = 1000});
  auto got = client->Get(kNamespaces, "", "a");
  EXPECT_EQ(got.status().code(), absl::StatusCode::kResourceExhausted) << got.status();
  EXPECT_THAT(got.status().message(), HasSubstr("get namespaces a"));
  EXPECT_THAT(got.status().message(), HasSubstr("exceeds 1000 bytes"));
  EXPECT_EQ(server.requests().size(), 1u);  // not retried: the same answer would come again
  EXPECT_TRUE(client->Get(kNamespaces, "", "a").ok());  // small answers still pass
  EXPECT_EQ(Client::Create(config, {.max_response_bytes = 0}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ClientLimits, WatchEventOverTheLimitEndsTheWatch) {
  std::string ev = R"({"type":"ADDED","object":{"kind":"Namespace","metadata":{"name":"a","resourceVersion":"5"}}})";
  // A second "event" that never ends: a server that sends no newline must not fill the memory.
  std::vector<std::string> chunks = {
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
      Chunked(ev + "\n")};
  for (int i = 0; i < 8; ++i) chunks.push_back(Chunked(std::string(1000, ' ')));
  chunks.push_back("0\r\n\r\n");
  ScriptedServer server({Canned{chunks}});
  RestConfig config;
  config.server = server.url();
  auto client = *Client::Create(config, {.max_watch_event_bytes = 4096});
  int events = 0;
  absl::Status s = client->Watch(kNamespaces, "", {}, [&](WatchEvent&) {
    ++events;
    return true;
  });
  EXPECT_EQ(events, 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(s.message(), HasSubstr("watch namespaces: a watch event exceeds 4096 bytes"));
}

// --- Reflector backoff -------------------------------------------------------------------------

TEST(Backoff, DoublesWithJitterCapsAndStartsOverAfterQuiet) {
  internal::Backoff backoff({}, /*seed=*/7);  // client-go's reflector numbers
  absl::Time t = absl::UnixEpoch();
  absl::Duration base = absl::Milliseconds(800);
  for (int i = 0; i < 10; ++i, t += absl::Seconds(1)) {
    absl::Duration wait = backoff.Next(t);
    EXPECT_GE(wait, base) << i;
    EXPECT_LT(wait, 2 * base) << i;  // jitter 1.0: up to twice the base
    base = std::min(base * 2, absl::Seconds(30));
  }
  // Two quiet minutes: the next failure starts small again.
  absl::Duration wait = backoff.Next(t + absl::Minutes(2) + absl::Seconds(1));
  EXPECT_GE(wait, absl::Milliseconds(800));
  EXPECT_LT(wait, absl::Milliseconds(1600));
}

constexpr char kNodeList[] = R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]})";

// What a Reflector did, in order: "list", "watch" (requests the server saw) and "wait" (the
// injected sleep), so a test asserts that every reopen and relist came after a wait.
struct Trace {
  absl::Mutex mu;
  std::vector<std::string> steps;
  std::vector<absl::Duration> waits;
  void Add(const std::string& step) {
    absl::MutexLock lock(&mu);
    steps.push_back(step);
  }
  size_t WaitCount() {
    absl::MutexLock lock(&mu);
    return waits.size();
  }
};

// Runs a Node reflector against `watch_answer` until it waited `n` times; returns its stats.
ReflectorStats RunReflectorUntilWaits(Trace& trace, const Canned& watch_answer, size_t n) {
  ScriptedServer server([&](const std::string& request) {
    bool watch = absl::StrContains(request, "watch=true");
    trace.Add(watch ? "watch" : "list");
    return watch ? watch_answer : Http(200, kNodeList);
  });
  RestConfig config;
  config.server = server.url();
  auto client = *Client::Create(config);
  store::Cluster cluster;
  ReflectorOptions options;
  options.kinds = {api::Kind::kNode};
  options.now = [] { return absl::UnixEpoch(); };  // every watch lasts 0 s; no backoff reset
  options.sleep = [&](absl::Duration d) {
    absl::MutexLock lock(&trace.mu);
    trace.steps.push_back("wait");
    trace.waits.push_back(d);
  };
  Reflector reflector(*client, cluster, options);
  EXPECT_TRUE(reflector.Start().ok());
  for (absl::Time end = absl::Now() + absl::Seconds(60); trace.WaitCount() < n && absl::Now() < end;) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  reflector.Stop();
  return reflector.stats();
}

void ExpectClientGoBackoff(Trace& trace) {
  absl::MutexLock lock(&trace.mu);
  ASSERT_GE(trace.waits.size(), 4u);
  absl::Duration base = absl::Milliseconds(800);
  for (size_t i = 0; i < 4; ++i, base *= 2) {
    EXPECT_GE(trace.waits[i], base) << i;
    EXPECT_LT(trace.waits[i], 2 * base) << i;
  }
}

// client-go treats a watch that ends within a second without an event as suspicious ("very short
// watch"); reopening it at once would make a request loop against the server.
TEST(ReflectorBackoff, WatchThatEndsAtOnceIsReopenedOnlyAfterABackoff) {
  Trace trace;
  ReflectorStats stats = RunReflectorUntilWaits(trace, Http(200, ""), 4);
  ExpectClientGoBackoff(trace);
  absl::MutexLock lock(&trace.mu);
  ASSERT_GE(trace.steps.size(), 9u);
  EXPECT_THAT(std::vector<std::string>(trace.steps.begin(), trace.steps.begin() + 9),
              ElementsAre("list", "watch", "wait", "watch", "wait", "watch", "wait", "watch", "wait"));
  for (size_t i = 1; i < trace.steps.size(); ++i) {
    EXPECT_FALSE(trace.steps[i] == "watch" && trace.steps[i - 1] == "watch") << "a watch reopened without a wait";
  }
  EXPECT_GE(stats.short_watches, 4u);
  EXPECT_EQ(stats.errors, 0u);  // suspicious, not a failure
}

// After a compaction every client's watch gets 410 at once; relisting at once would send every
// client's full list to the server together.
TEST(ReflectorBackoff, GoneIsRelistedOnlyAfterABackoff) {
  std::string gone = R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure",)j"
                     R"j("message":"too old resource version: 10 (20)","reason":"Expired","code":410}})j";
  Trace trace;
  ReflectorStats stats = RunReflectorUntilWaits(trace, Http(200, gone + "\n"), 4);
  ExpectClientGoBackoff(trace);
  absl::MutexLock lock(&trace.mu);
  ASSERT_GE(trace.steps.size(), 9u);
  EXPECT_THAT(std::vector<std::string>(trace.steps.begin(), trace.steps.begin() + 9),
              ElementsAre("list", "watch", "wait", "list", "watch", "wait", "list", "watch", "wait"));
  EXPECT_GE(stats.relists_gone, 4u);
}

// After a failed watch, one the server accepts clears LastError at once, though no event comes for
// minutes: a front end that reports readiness from LastError is ready again when the API server is.
TEST(ReflectorLastError, AnAcceptedQuietWatchClearsTheEarlierFailure) {
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  std::atomic<int> watches{0};
  ScriptedServer server([&](const std::string& request) {
    if (!absl::StrContains(request, "watch=true")) return Http(200, kNodeList);
    // The first watch fails; the second is accepted and stays quiet.
    if (watches.fetch_add(1) == 0) return Http(500, StatusBody(500, "InternalError"));
    Canned quiet{{head}};
    quiet.hang_after = absl::Seconds(30);
    return quiet;
  });
  RestConfig config;
  config.server = server.url();
  auto client = *Client::Create(config);
  store::Cluster cluster;
  ReflectorOptions options;
  options.kinds = {api::Kind::kNode};
  options.sleep = [](absl::Duration) {};
  Reflector reflector(*client, cluster, options);
  ASSERT_TRUE(reflector.Start().ok());
  absl::Time end = absl::Now() + absl::Seconds(20);
  while (watches.load() < 2 && absl::Now() < end) absl::SleepFor(absl::Milliseconds(5));
  ASSERT_GE(watches.load(), 2);
  // The quiet watch sends only its headers, then nothing.
  absl::Status last = reflector.LastError();
  for (; !last.ok() && absl::Now() < end; last = reflector.LastError()) absl::SleepFor(absl::Milliseconds(5));
  EXPECT_TRUE(last.ok()) << last;
  EXPECT_EQ(reflector.stats().errors, 1u);
  reflector.Stop();
}

}  // namespace
}  // namespace draforge::kube
