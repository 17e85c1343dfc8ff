// Offline tests of kube::Client's transport behaviour that a real API server does not produce on
// demand: 429/5xx with Retry-After, dropped connections, watch streams split at arbitrary byte
// boundaries, ERROR events. A scripted HTTP/1.1 server on loopback answers each connection with the
// next canned response.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api_status.h"
#include "kube/client.h"
#include "kube/leader_election.h"

namespace draforge::kube {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One canned answer: raw bytes written in `chunks` (with a pause between them so the client sees
// them as separate reads), or nothing at all (`drop`: close the connection unanswered). `hang`:
// first hold the connection silent that long (a hung API server), or until the server is destroyed.
struct Canned {
  std::vector<std::string> chunks;
  bool drop = false;
  absl::Duration hang = absl::ZeroDuration();
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
  explicit ScriptedServer(std::vector<Canned> script) : script_(std::move(script)) {
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
  std::vector<std::string> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

 private:
  void Serve() {
    for (const Canned& c : script_) {
      int conn = accept(fd_, nullptr, nullptr);
      if (conn < 0) return;
      std::string req;
      char buf[4096];
      while (req.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = read(conn, buf, sizeof buf);
        if (n <= 0) break;
        req.append(buf, static_cast<size_t>(n));
      }
      {
        absl::MutexLock lock(&mu_);
        requests_.push_back(req.substr(0, req.find("\r\n")));
      }
      if (c.hang > absl::ZeroDuration()) {
        absl::MutexLock lock(&mu_);
        mu_.AwaitWithTimeout(absl::Condition(&stopping_), c.hang);
      }
      if (!c.drop) {
        for (size_t i = 0; i < c.chunks.size(); ++i) {
          if (i > 0) absl::SleepFor(absl::Milliseconds(20));
          (void)!write(conn, c.chunks[i].data(), c.chunks[i].size());
        }
      }
      close(conn);
    }
  }

  std::vector<Canned> script_;
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
  absl::Status s = ClientFor(server)->Watch(kNamespaces, "", {.resource_version = "1"}, [&](WatchEvent& e) {
    seen.push_back(absl::StrCat(e.type, "@", e.object["metadata"]["resourceVersion"].GetString()));
    return true;
  });
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
  absl::Status s = ClientFor(server)->Watch(kNamespaces, "", {}, [](WatchEvent&) { return true; });
  EXPECT_TRUE(IsApiForbidden(s)) << s;
}

}  // namespace
}  // namespace draforge::kube
