// HttpListener: the event-driven HTTP/1.1 front of the daemons (docs/adr/0001-server-http-layer.md),
// on Boost.Beast/Asio. Neither appears in this header: the daemons' other files do not compile them.
//
// What it guarantees against hostile clients, whatever the handler does:
//   - a request head must be complete within Limits::head_deadline of the moment the listener starts
//     waiting for it (a slowloris that sends one line every second is closed at the deadline, not
//     kept alive by its own trickle);
//   - a head larger than max_header_bytes or with more than max_header_lines lines gets 431 and
//     the connection is closed; nothing beyond the limit is kept;
//   - on a keep-alive connection the next head must be complete within idle_timeout of the previous
//     answer, else the connection is closed;
//   - at accept, at most max_connections connections in all (more get 503 and are closed) and at
//     most max_per_source from one source address (more are closed at once); loopback sources are
//     exempt unless limit_loopback, because a port-forward brings every client from 127.0.0.1.
//   - an answer must be taken by the client within write_timeout, else the connection is closed;
//     an event stream whose client lets more than max_stream_backlog bytes queue up is closed (an
//     SSE client resumes with Last-Event-ID).
// Requests with a body are answered and the connection is closed without keeping the body: what
// the client still sends is read and dropped, for at most `linger` and max_linger_bytes (so that
// the client reads the answer instead of a reset), then the connection is closed. The one
// exception is an answer that asks for the body (Response::on_body): then the body, at most the
// answer's max_body_bytes (more: 413 and the connection closed), must be complete within
// body_deadline (else the connection is closed), and the connection may be kept alive after it.
// Event streams have their own budget (max_streams): a connection that becomes a stream leaves
// the REST budget, so streams cannot starve probes and REST floods cannot refuse streams.
// Every answer carries a Date header (RFC 9110 section 6.6.1); answers to HEAD carry the head that
// GET would get (Content-Length included) and no body.
#ifndef DRAFORGE_EXAMPLES_COMMON_HTTP_HTTP_LISTENER_H_
#define DRAFORGE_EXAMPLES_COMMON_HTTP_HTTP_LISTENER_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "draforge/draforge.hpp"

namespace draforge::http {

struct Limits {
  std::chrono::milliseconds head_deadline{10000};
  size_t max_header_bytes = 8192;  // request line, header lines and their CRLFs
  size_t max_header_lines = 100;
  std::chrono::milliseconds idle_timeout{5000};  // deadline of each later head on a keep-alive connection
  size_t max_connections = 10000;  // connections that are not streams; more get 503 at accept
  size_t max_streams = 10000;      // event streams; more get 503 instead of the stream
  size_t max_per_source = 0;  // 0: no cap per source address
  bool limit_loopback = false;  // apply max_per_source to 127.0.0.0/8 and ::1 too
  std::chrono::milliseconds write_timeout{10000};  // to write one whole answer (not a stream)
  size_t max_stream_backlog = 1 << 20;  // bytes queued on one stream; more closes it
  std::chrono::milliseconds linger{2000};  // reading what a refused client still sends ...
  size_t max_linger_bytes = 1 << 20;       // ... and how much of it
  std::chrono::milliseconds body_deadline{10000};  // to receive a body that an answer asked for
};

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;  // as sent: "GET"
  std::string target;  // as sent: "/api/v1/pools?driver=x"
  int version = 11;    // 10 or 11
  Headers headers;  // in order, names as sent
  std::string remote_address;

  // The first value of header `name` (compared without case), or "".
  std::string Header(std::string_view name) const;
  // How many header lines are named `name`.
  size_t HeaderCount(std::string_view name) const;
};

// A long-lived chunked response (Server-Sent Events). Thread-safe; the listener keeps the
// connection, the application keeps this handle for as long as it wants to write.
class Stream {
 public:
  virtual ~Stream() = default;
  // Queues `bytes` as one chunk; false once the stream is closed (client gone, Close, Stop).
  virtual bool Write(std::shared_ptr<const std::string> bytes) = 0;
  // Ends the stream (the last chunk) and closes the connection.
  virtual void Close() = 0;
  virtual bool closed() const = 0;
};

struct Response;
// Delivers an answer that was not ready when the handler returned (Response::later). Callable from
// any thread; the first call counts, later ones are ignored.
using Reply = std::function<void(Response)>;

struct Response {
  int status = 200;
  Headers headers;  // Content-Length and Date are added, and the listener's common headers
  std::string body;
  // When set (and status is 200), the answer is a stream: the head goes out with
  // Transfer-Encoding: chunked, `body` (if any) as its first chunk, and this is called with the
  // stream's handle, on a listener thread, once the stream counts against max_streams. Over
  // max_streams the client gets 503 instead and this is not called.
  // Not for HEAD requests: they get the head only.
  std::function<void(std::shared_ptr<Stream>)> on_stream;
  // When set, the rest of this Response is ignored and the answer comes later: this is called on
  // the listener thread with a Reply that the application calls, from any thread, once the answer
  // is ready (work that takes long must not hold an event-loop thread). The Response given to the
  // Reply is taken as the handler's would be: it may be a stream, or answer later again. Meanwhile
  // the connection waits with no deadline of its own; if the Reply is dropped uncalled, the client
  // gets 500.
  std::function<void(Reply)> later;
  // When set, the rest of this Response is ignored and the request's body is read first (nothing
  // for a request without one): at most `max_body_bytes` bytes, whether sent with Content-Length or
  // chunked; a body declared or found to be larger gets 413 (the JSON error form) and the
  // connection is closed after it. Then this is called with the body, on a listener thread (it must
  // not block for long), and what it returns is taken as the handler's answer (it may answer later).
  std::function<Response(std::string body)> on_body;
  size_t max_body_bytes = 0;
};

// Called on a listener thread for each request head; must not block for long (it holds a thread of
// the event loop). May be called on several threads at once.
using Handler = std::function<Response(const Request&)>;

class HttpListener {
 public:
  // Binds `address`:`port` (0: a free port), then serves on `threads` event-loop threads until
  // Stop() or destruction. `common` headers go on every answer, also on those the listener makes
  // itself (431, 503, ...). Errors: DRAFORGE_EINVALID for an address that is not an IP literal;
  // DRAFORGE_ENOTFOUND when it cannot be bound.
  static Result<std::unique_ptr<HttpListener>> Start(const std::string& address, int port, Limits limits,
                                                     Handler handler, int threads = 2, Headers common = {});
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // The bound port (also after Stop).
  int port() const;
  // Connections open now that are not streams, and streams open now (for tests and metrics).
  size_t open_connections() const;
  size_t open_streams() const;
  // Closes the listening socket and every connection; joins the threads. Idempotent.
  void Stop();

  struct Impl;

 private:
  explicit HttpListener(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace draforge::http

#endif  // DRAFORGE_EXAMPLES_COMMON_HTTP_HTTP_LISTENER_H_
