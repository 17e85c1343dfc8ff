// The event-driven HTTP layer (examples/common/http) against the attacks of issue 17: a flood of
// header lines on one connection (row 1), thousands of connections that trickle a head (row 2), and
// the per-source cap that must not break port-forwarding. Raw sockets, as an attacker would send.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "http_listener.h"
#include "request_target.h"

namespace draforge::http {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A bound on a hang, not a measurement.
constexpr int kWaitMs = 30000;

std::unique_ptr<HttpListener> Listen(Limits limits) {
  auto listener = HttpListener::Start("127.0.0.1", 0, limits, [](const Request& req) {
    Response r;
    r.body = req.method + " " + req.target;
    return r;
  });
  EXPECT_TRUE(listener.ok()) << listener.error().message;
  return *std::move(listener);
}

// A connection from `source` (any 127.x address) to the listener; -1 on failure.
int Connect(int port, const char* source = "127.0.0.1") {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  inet_pton(AF_INET, source, &local.sin_addr);
  sockaddr_in remote{};
  remote.sin_family = AF_INET;
  remote.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&remote), sizeof remote) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Sends what it can of `data` (false once the peer is gone).
bool SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Everything the peer sends until it closes (or kWaitMs passes).
std::string ReadToClose(int fd) {
  std::string out;
  char buf[4096];
  pollfd p{fd, POLLIN, 0};
  while (poll(&p, 1, kWaitMs) == 1) {
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// One request on a fresh connection; the whole answer.
std::string Get(int port, const std::string& target, const char* source = "127.0.0.1") {
  const int fd = Connect(port, source);
  if (fd < 0) return "";
  SendAll(fd, "GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  std::string answer = ReadToClose(fd);
  close(fd);
  return answer;
}

TEST(HttpListenerTest, AnswersAndKeepsConnectionsAlive) {
  auto listener = Listen(Limits{});
  const int fd = Connect(listener->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "GET /a HTTP/1.1\r\nHost: localhost\r\n\r\nGET /b HTTP/1.1\r\nHost: localhost\r\n"
                          "Connection: close\r\n\r\n"));
  const std::string answers = ReadToClose(fd);
  close(fd);
  EXPECT_THAT(answers, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(answers, HasSubstr("GET /a"));
  EXPECT_THAT(answers, HasSubstr("GET /b"));
}

// Row 1: 4,000 header lines of 8 KB on one connection were 32 MB accepted. Now the head stops at
// max_header_bytes with 431 and the connection is closed.
TEST(HttpListenerTest, HugeHeadsGet431AndTheConnectionCloses) {
  auto listener = Listen(Limits{});
  const int fd = Connect(listener->port());
  ASSERT_GE(fd, 0);
  std::string line = "X-Big: " + std::string(8000, 'a') + "\r\n";
  SendAll(fd, "GET / HTTP/1.1\r\nHost: localhost\r\n");
  size_t sent_lines = 0;
  while (sent_lines < 4000 && SendAll(fd, line)) ++sent_lines;
  const std::string answer = ReadToClose(fd);
  close(fd);
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 431 "));
  EXPECT_LT(sent_lines, 4000u) << "the server took the whole flood instead of closing";
}

TEST(HttpListenerTest, TooManyHeaderLinesGet431) {
  Limits limits;
  limits.max_header_lines = 50;
  auto listener = Listen(limits);
  std::string head = "GET / HTTP/1.1\r\nHost: localhost\r\n";
  for (int i = 0; i < 60; ++i) head += "X-" + std::to_string(i) + ": 1\r\n";
  const int fd = Connect(listener->port());
  ASSERT_GE(fd, 0);
  SendAll(fd, head + "\r\n");
  EXPECT_THAT(ReadToClose(fd), StartsWith("HTTP/1.1 431 "));
  close(fd);
  // Under the cap it is answered.
  head = "GET /ok HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
  for (int i = 0; i < 40; ++i) head += "X-" + std::to_string(i) + ": 1\r\n";
  const int ok = Connect(listener->port());
  SendAll(ok, head + "\r\n");
  EXPECT_THAT(ReadToClose(ok), StartsWith("HTTP/1.1 200 "));
  close(ok);
}

// Row 2: 3,000 connections that each send a header line now and then exhausted the thread pool
// and every probe failed. Now probes are answered meanwhile, and each trickling connection is
// closed once its head deadline passes, whatever it keeps sending.
TEST(HttpListenerTest, SlowHeadsDoNotStarveProbesAndAreClosedAtTheDeadline) {
  Limits limits;
  limits.head_deadline = std::chrono::milliseconds(1500);
  auto listener = Listen(limits);
  std::vector<int> slow;
  for (int i = 0; i < 3000; ++i) {
    const std::string source = "127.2." + std::to_string(i / 200) + "." + std::to_string(1 + i % 200);
    const int fd = Connect(listener->port(), source.c_str());
    ASSERT_GE(fd, 0) << "connection " << i;
    ASSERT_TRUE(SendAll(fd, "GET /slow HTTP/1.1\r\n"));
    slow.push_back(fd);
  }
  EXPECT_THAT(Get(listener->port(), "/healthz"), StartsWith("HTTP/1.1 200 "));
  // Keep trickling until the server has closed every one of them.
  size_t closed = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
  std::vector<bool> done(slow.size(), false);
  while (closed < slow.size() && std::chrono::steady_clock::now() < give_up) {
    for (size_t i = 0; i < slow.size(); ++i) {
      if (done[i]) continue;
      char c;
      const ssize_t n = recv(slow[i], &c, 1, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) || !SendAll(slow[i], "X-Slow: 1\r\n")) {
        done[i] = true;
        ++closed;
      }
    }
    EXPECT_THAT(Get(listener->port(), "/healthz"), StartsWith("HTTP/1.1 200 "));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  for (int fd : slow) close(fd);
  EXPECT_EQ(closed, slow.size()) << "slow heads still open past their deadline";
}

TEST(HttpListenerTest, PerSourceCapSparesLoopbackUnlessAsked) {
  Limits limits;
  limits.max_per_source = 3;
  {
    auto listener = Listen(limits);  // loopback exempt: port-forwarded clients all come from 127.0.0.1
    std::vector<int> fds;
    for (int i = 0; i < 10; ++i) fds.push_back(Connect(listener->port(), "127.0.0.5"));
    EXPECT_THAT(Get(listener->port(), "/tenth", "127.0.0.5"), StartsWith("HTTP/1.1 200 "));
    for (int fd : fds) close(fd);
  }
  limits.limit_loopback = true;
  auto listener = Listen(limits);
  std::vector<int> fds;
  for (int i = 0; i < 3; ++i) {
    fds.push_back(Connect(listener->port(), "127.0.0.6"));
    SendAll(fds.back(), "GET /held HTTP/1.1\r\nHost: localhost\r\n\r\n");  // answered, kept alive
  }
  for (int fd : fds) {
    char buf[256];
    pollfd p{fd, POLLIN, 0};
    ASSERT_EQ(poll(&p, 1, kWaitMs), 1);
    ASSERT_GT(recv(fd, buf, sizeof buf, 0), 0);  // its answer: the connection is open and counted
  }
  EXPECT_EQ(Get(listener->port(), "/fourth", "127.0.0.6"), "") << "a fourth connection from one source was served";
  EXPECT_THAT(Get(listener->port(), "/other", "127.0.0.7"), StartsWith("HTTP/1.1 200 "));
  for (int fd : fds) close(fd);
}

TEST(HttpListenerTest, ConnectionsOverTheBudgetGet503) {
  Limits limits;
  limits.max_connections = 4;
  auto listener = Listen(limits);
  std::vector<int> fds;
  for (int i = 0; i < 4; ++i) fds.push_back(Connect(listener->port()));
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
  while (listener->open_connections() < 4 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_THAT(Get(listener->port(), "/fifth"), StartsWith("HTTP/1.1 503 "));
  for (int fd : fds) close(fd);
}

// A listener whose /events is a stream (handles kept in `streams`) and every other path a REST answer.
struct StreamingServer {
  explicit StreamingServer(Limits limits) {
    auto started = HttpListener::Start("127.0.0.1", 0, limits, [this](const Request& req) {
      Response r;
      if (req.target == "/events") {
        r.headers.emplace_back("Content-Type", "text/event-stream");
        r.body = "event: hello\ndata: {}\n\n";
        r.on_stream = [this](std::shared_ptr<Stream> s) {
          std::lock_guard lock(mu);
          streams.push_back(std::move(s));
        };
      } else {
        r.body = "rest";
      }
      return r;
    });
    EXPECT_TRUE(started.ok()) << started.error().message;
    listener = *std::move(started);
  }
  size_t stream_count() {
    std::lock_guard lock(mu);
    return streams.size();
  }
  std::mutex mu;
  std::vector<std::shared_ptr<Stream>> streams;
  std::unique_ptr<HttpListener> listener;
};

// Reads from `fd` until `text` has arrived (or kWaitMs passes); everything read.
std::string ReadUntil(int fd, const std::string& text) {
  std::string out;
  char buf[4096];
  pollfd p{fd, POLLIN, 0};
  while (out.find(text) == std::string::npos && poll(&p, 1, kWaitMs) == 1) {
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

TEST(HttpListenerTest, StreamsGetChunksInOrderAndEnd) {
  StreamingServer server(Limits{});
  const int fd = Connect(server.listener->port());
  ASSERT_TRUE(SendAll(fd, "GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  const std::string head = ReadUntil(fd, "event: hello");
  EXPECT_THAT(head, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(head, HasSubstr("Transfer-Encoding: chunked\r\n"));
  EXPECT_THAT(head, HasSubstr("\r\n17\r\nevent: hello\ndata: {}\n\n\r\n"));
  ASSERT_EQ(server.stream_count(), 1u);
  EXPECT_EQ(server.listener->open_streams(), 1u);
  EXPECT_EQ(server.listener->open_connections(), 0u);
  auto stream = server.streams[0];
  std::thread writer([stream] {
    for (int i = 0; i < 100; ++i) stream->Write(std::make_shared<const std::string>("id: " + std::to_string(i) + "\n\n"));
    stream->Close();
  });
  writer.join();
  const std::string rest = ReadToClose(fd);
  close(fd);
  size_t at = 0;
  for (int i = 0; i < 100; ++i) {
    const std::string chunk = "id: " + std::to_string(i) + "\n\n";
    const size_t found = rest.find(chunk, at);
    ASSERT_NE(found, std::string::npos) << "event " << i << " missing or out of order";
    at = found + chunk.size();
  }
  EXPECT_THAT(rest, testing::EndsWith("0\r\n\r\n"));
  EXPECT_TRUE(stream->closed());
  EXPECT_FALSE(stream->Write(std::make_shared<const std::string>("late")));
}

TEST(HttpListenerTest, AStreamWhoseClientLeftIsClosed) {
  StreamingServer server(Limits{});
  const int fd = Connect(server.listener->port());
  ASSERT_TRUE(SendAll(fd, "GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  ReadUntil(fd, "event: hello");
  ASSERT_EQ(server.stream_count(), 1u);
  close(fd);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
  while (!server.streams[0]->closed() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(server.streams[0]->closed());
  EXPECT_FALSE(server.streams[0]->Write(std::make_shared<const std::string>("x")));
}

// Streams and REST requests have separate budgets: streams at their budget still leave REST
// answered, and a full REST budget does not count streams.
TEST(HttpListenerTest, StreamsAndRestHaveSeparateBudgets) {
  Limits limits;
  limits.max_streams = 2;
  limits.max_connections = 2;
  StreamingServer server(limits);
  std::vector<int> fds;
  for (int i = 0; i < 2; ++i) {
    fds.push_back(Connect(server.listener->port()));
    SendAll(fds.back(), "GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n");
    EXPECT_THAT(ReadUntil(fds.back(), "event: hello"), StartsWith("HTTP/1.1 200 "));
  }
  EXPECT_EQ(server.listener->open_streams(), 2u);
  EXPECT_THAT(Get(server.listener->port(), "/events"), StartsWith("HTTP/1.1 503 "));
  EXPECT_THAT(Get(server.listener->port(), "/healthz"), StartsWith("HTTP/1.1 200 "));
  for (int fd : fds) close(fd);
}

// HEAD gets GET's head, Content-Length included, and no body: the next answer on the same
// connection starts right after the head. Every answer has a Date and the listener's common
// headers, also the 431 the listener makes itself.
TEST(HttpListenerTest, HeadAnswersCarryTheHeadOnlyWithDateAndCommonHeaders) {
  auto started = HttpListener::Start(
      "127.0.0.1", 0, Limits{},
      [](const Request& req) {
        Response r;
        r.body = "GET " + req.target;  // what GET would answer, also for HEAD
        return r;
      },
      2, {{"X-Frame-Options", "DENY"}});
  ASSERT_TRUE(started.ok()) << started.error().message;
  auto listener = *std::move(started);
  const int fd = Connect(listener->port());
  ASSERT_GE(fd, 0);
  SendAll(fd,
          "HEAD /x HTTP/1.1\r\nHost: localhost\r\n\r\n"
          "GET /y HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  const std::string answers = ReadToClose(fd);
  close(fd);
  const size_t second = answers.find("HTTP/1.1 200 OK", 1);
  ASSERT_NE(second, std::string::npos) << answers;
  const std::string head = answers.substr(0, second);
  EXPECT_THAT(head, HasSubstr("Content-Length: 6\r\n"));
  EXPECT_THAT(head, testing::EndsWith("\r\n\r\n")) << "HEAD got a body";
  EXPECT_THAT(head, testing::ContainsRegex("Date: [A-Z][a-z][a-z], [0-9][0-9] [A-Z][a-z][a-z] [0-9]{4} "
                                           "[0-9][0-9]:[0-9][0-9]:[0-9][0-9] GMT\r\n"));
  EXPECT_THAT(head, HasSubstr("X-Frame-Options: DENY\r\n"));
  EXPECT_THAT(answers.substr(second), testing::EndsWith("\r\n\r\nGET /y"));
  const int big = Connect(listener->port());
  SendAll(big, "GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + std::string(9000, 'a') + "\r\n\r\n");
  const std::string refused = ReadToClose(big);
  close(big);
  EXPECT_THAT(refused, StartsWith("HTTP/1.1 431 "));
  EXPECT_THAT(refused, HasSubstr("X-Frame-Options: DENY\r\n"));
  EXPECT_THAT(refused, HasSubstr("\r\nDate: "));
}

// A handler that answers later (Response::later) answers from another thread; one that drops
// the Reply without calling it gives the client 500 instead of a hang.
TEST(HttpListenerTest, LaterAnswersComeFromAnyThreadAndDroppedOnesAre500) {
  std::vector<std::thread> workers;
  std::mutex mu;
  auto started = HttpListener::Start("127.0.0.1", 0, Limits{}, [&](const Request& req) {
    Response r;
    r.later = [&, target = req.target](Reply reply) {
      if (target == "/dropped") return;
      std::lock_guard lock(mu);
      workers.emplace_back([reply, target] {
        Response answer;
        answer.body = "later " + target;
        reply(answer);
        reply(Response{});  // a second call is ignored
      });
    };
    return r;
  });
  ASSERT_TRUE(started.ok()) << started.error().message;
  auto listener = *std::move(started);
  const std::string answer = Get(listener->port(), "/a");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 200 "));
  EXPECT_THAT(answer, testing::EndsWith("\r\n\r\nlater /a"));
  EXPECT_THAT(Get(listener->port(), "/dropped"), StartsWith("HTTP/1.1 500 "));
  listener->Stop();
  for (auto& t : workers) t.join();
}

// A Reply may start a stream: the check that decides whether a client gets one (delegated
// authorisation) can run off the event loop.
TEST(HttpListenerTest, ALaterReplyCanBeAStream) {
  std::vector<std::thread> workers;
  std::mutex mu;
  std::shared_ptr<Stream> kept;
  auto started = HttpListener::Start("127.0.0.1", 0, Limits{}, [&](const Request&) {
    Response r;
    r.later = [&](Reply reply) {
      std::lock_guard lock(mu);
      workers.emplace_back([&, reply] {
        Response stream;
        stream.on_stream = [&](std::shared_ptr<Stream> s) {
          s->Write(std::make_shared<const std::string>("event: hello\n\n"));
          std::lock_guard lock(mu);
          kept = s;
        };
        reply(stream);
      });
    };
    return r;
  });
  ASSERT_TRUE(started.ok()) << started.error().message;
  auto listener = *std::move(started);
  const int fd = Connect(listener->port());
  ASSERT_TRUE(SendAll(fd, "GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  const std::string head = ReadUntil(fd, "event: hello");
  EXPECT_THAT(head, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(head, HasSubstr("Transfer-Encoding: chunked\r\n"));
  EXPECT_EQ(listener->open_streams(), 1u);
  close(fd);
  listener->Stop();
  for (auto& t : workers) t.join();
}

// A client that sends a body the server refuses (405, 413) before reading it still reads the
// answer: the listener drops the rest of the body instead of resetting the connection under it.
TEST(HttpListenerTest, ARefusedBodyDoesNotResetTheAnswer) {
  Limits limits;
  limits.max_linger_bytes = 16 << 20;  // more than the body below, which the socket buffers cannot hold
  auto started = HttpListener::Start("127.0.0.1", 0, limits, [](const Request&) {
    Response r;
    r.status = 405;
    r.body = "read-only";
    return r;
  });
  ASSERT_TRUE(started.ok()) << started.error().message;
  auto listener = *std::move(started);
  for (int i = 0; i < 5; ++i) {
    const int fd = Connect(listener->port());
    ASSERT_GE(fd, 0);
    // As an HTTP client sends: the whole request, then it reads. Closing under a client that is
    // still sending would fail its send (reset) before it ever reads the answer.
    const std::string body(8 << 20, 'x');
    EXPECT_TRUE(SendAll(fd, "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + std::to_string(body.size()) +
                                "\r\n\r\n" + body))
        << "the connection was reset under the client";
    const std::string answer = ReadToClose(fd);
    close(fd);
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 405 "));
    EXPECT_THAT(answer, testing::EndsWith("read-only"));
  }
}

// A stream whose client reads nothing is closed once max_stream_backlog bytes wait for it,
// instead of queueing every event in memory.
TEST(HttpListenerTest, AStreamThatIsNotReadIsClosedPastItsBacklog) {
  Limits limits;
  limits.max_stream_backlog = 64 * 1024;
  StreamingServer server(limits);
  const int fd = Connect(server.listener->port());
  ASSERT_TRUE(SendAll(fd, "GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  ReadUntil(fd, "event: hello");
  ASSERT_EQ(server.stream_count(), 1u);
  auto stream = server.streams[0];
  const auto event = std::make_shared<const std::string>(std::string(1024, 'e'));
  // Far more than the socket buffers hold; the client never reads.
  for (int i = 0; i < 256 * 1024 && !stream->closed(); ++i) {
    stream->Write(event);
    if (i % 1024 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
  while (!stream->closed() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(stream->closed());
  close(fd);
}

// An answer that asks for the body (Response::on_body) gets it whole, sent with a length or chunked,
// also after answering later (the what-if POST behind --delegate-auth); a body over the answer's
// limit is 413 whether declared or found while reading; the connection stays open after a body read.
TEST(HttpListenerTest, AnAnswerThatAsksForTheBodyGetsItWithinItsLimit) {
  auto started = HttpListener::Start("127.0.0.1", 0, Limits{}, [](const Request& req) {
    Response r;
    r.max_body_bytes = 1000;
    r.on_body = [](std::string body) {
      Response echo;
      echo.body = "got " + std::to_string(body.size()) + ": " + body;
      return echo;
    };
    if (req.target != "/later") return r;
    Response later;
    later.later = [r](Reply reply) { std::thread([reply, r] { reply(r); }).detach(); };
    return later;
  });
  ASSERT_TRUE(started.ok()) << started.error().message;
  auto listener = *std::move(started);
  const int fd = Connect(listener->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"));
  EXPECT_THAT(ReadUntil(fd, "got 5: hello"), HasSubstr("got 5: hello"));
  // The same connection: chunked, then a GET with no body, then after a later answer.
  ASSERT_TRUE(SendAll(fd, "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"));
  EXPECT_THAT(ReadUntil(fd, "got 5: abcde"), HasSubstr("got 5: abcde"));
  ASSERT_TRUE(SendAll(fd, "GET / HTTP/1.1\r\nHost: h\r\n\r\n"));
  EXPECT_THAT(ReadUntil(fd, "got 0: "), HasSubstr("got 0: "));
  ASSERT_TRUE(SendAll(fd, "POST /later HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz"));
  EXPECT_THAT(ReadUntil(fd, "got 3: xyz"), HasSubstr("got 3: xyz"));
  close(fd);
  for (const std::string& request :
       {"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1001\r\n\r\n" + std::string(1001, 'x'),
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n" + std::string(1000, 'x') +
            "\r\n1\r\nx\r\n0\r\n\r\n"}) {
    const int big = Connect(listener->port());
    ASSERT_GE(big, 0);
    SendAll(big, request);
    const std::string answer = ReadToClose(big);
    close(big);
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 413 "));
    EXPECT_THAT(answer, HasSubstr("larger than 1000 bytes"));
    EXPECT_THAT(answer, HasSubstr("Connection: close"));
  }
}

// A body that does not arrive within body_deadline closes the connection.
TEST(HttpListenerTest, ABodyThatDoesNotArriveInTimeClosesTheConnection) {
  Limits limits;
  limits.body_deadline = std::chrono::milliseconds(300);
  auto started = HttpListener::Start("127.0.0.1", 0, limits, [](const Request&) {
    Response r;
    r.max_body_bytes = 1000;
    r.on_body = [](std::string) { return Response{}; };
    return r;
  });
  ASSERT_TRUE(started.ok()) << started.error().message;
  auto listener = *std::move(started);
  const int fd = Connect(listener->port());
  ASSERT_GE(fd, 0);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(SendAll(fd, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc"));
  EXPECT_EQ(ReadToClose(fd), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(kWaitMs));
  close(fd);
}

TEST(RequestTargetTest, SplitsAndDecodesPathAndQuery) {
  const RequestTarget t = ParseRequestTarget("/api/v1/a%20b+c?driver=gpu.example.com&x=1+2%2B3&&flag&x=%zz");
  EXPECT_EQ(t.path, "/api/v1/a b+c");
  ASSERT_EQ(t.query.size(), 4u);
  EXPECT_EQ(t.query.find("driver")->second, "gpu.example.com");
  auto [first, last] = t.query.equal_range("x");
  ASSERT_EQ(std::distance(first, last), 2);
  EXPECT_EQ(first->second, "1 2+3");
  EXPECT_EQ(std::next(first)->second, "%zz");  // not an escape: kept
  EXPECT_EQ(t.query.find("flag")->second, "");
  EXPECT_EQ(ParseRequestTarget("/").path, "/");
  EXPECT_TRUE(ParseRequestTarget("/p?").query.empty());
  EXPECT_EQ(ParseRequestTarget("/%2e%2e/etc").path, "/../etc");  // decoded: StaticFiles refuses ".."
}

TEST(HttpListenerTest, BadAddressesAreNamed) {
  auto bad = HttpListener::Start("localhost", 0, Limits{}, [](const Request&) { return Response{}; });
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, DRAFORGE_EINVALID);
  EXPECT_THAT(bad.error().message, HasSubstr("\"localhost\""));
}

}  // namespace
}  // namespace draforge::http
