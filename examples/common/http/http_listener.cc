#include "http_listener.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>

namespace draforge::http {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

std::string_view Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 414: return "URI Too Long";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

// The server's error form ({"error":{"code","message"}}); messages here are fixed ASCII.
Response ErrorResponse(int status, std::string_view message) {
  Response r;
  r.status = status;
  r.headers.emplace_back("Content-Type", "application/json; charset=utf-8");
  r.body = "{\"error\":{\"code\":" + std::to_string(status) + ",\"message\":\"" + std::string(message) + "\"}}";
  return r;
}

// The size line of a chunk of `size` bytes (RFC 9112 section 7.1).
std::string ChunkSize(size_t size) {
  char line[24];
  std::snprintf(line, sizeof line, "%zx\r\n", size);
  return line;
}

// The IMF-fixdate of now (RFC 9110 section 5.6.7), formatted once per second per thread.
const std::string& HttpDate() {
  thread_local std::time_t formatted_at = 0;
  thread_local std::string formatted;
  const std::time_t now = std::time(nullptr);
  if (now != formatted_at) {
    static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    std::tm t{};
    gmtime_r(&now, &t);
    // Names spelled here, not by strftime: a locale set by the process must not change them.
    char date[40];
    std::snprintf(date, sizeof date, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[t.tm_wday], t.tm_mday,
                  kMonths[t.tm_mon], t.tm_year + 1900, t.tm_hour, t.tm_min, t.tm_sec);
    formatted = date;
    formatted_at = now;
  }
  return formatted;
}

enum class Framing { kLength, kHeadOnly, kChunked };

// The head of `r` with `common` headers, and its body unless `framing` says otherwise (a chunked
// answer's body goes out as its first chunk).
std::string Serialize(const Response& r, const Headers& common, bool keep_alive, Framing framing) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + std::string(Reason(r.status)) + "\r\n";
  out.append("Date: ").append(HttpDate()).append("\r\n");
  for (const auto& [name, value] : common) out.append(name).append(": ").append(value).append("\r\n");
  for (const auto& [name, value] : r.headers) out.append(name).append(": ").append(value).append("\r\n");
  if (framing == Framing::kChunked) {
    out += "Transfer-Encoding: chunked\r\n\r\n";
    if (!r.body.empty()) out.append(ChunkSize(r.body.size())).append(r.body).append("\r\n");
    return out;
  }
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
  if (framing == Framing::kLength) out += r.body;
  return out;
}

// Collects a request head into a Request, counting header lines against the cap (Beast bounds
// their total size; nothing bounds their number).
class HeadParser : public beast::http::basic_parser<true> {
 public:
  HeadParser(const Limits& limits, Request& out) : max_lines_(limits.max_header_lines), out_(out) {
    header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
    // Read only when an answer asks for it (Collect), against its own limit, so a declared length
    // is no error here. Not boost::none: Boost 1.74 compares the length with an empty optional and
    // refuses every body.
    body_limit(std::numeric_limits<std::uint64_t>::max());
  }

  // From now on the body goes into `sink`, at most `max_bytes` of it (more: body_too_large()).
  void Collect(std::string* sink, size_t max_bytes) {
    sink_ = sink;
    max_body_ = max_bytes;
  }
  bool body_too_large() const { return too_large_; }

 private:
  void on_request_impl(beast::http::verb, beast::string_view method, beast::string_view target, int version,
                       beast::error_code&) override {
    out_.method = std::string(method);
    out_.target = std::string(target);
    out_.version = version;
  }
  void on_response_impl(int, beast::string_view, int, beast::error_code&) override {}
  void on_field_impl(beast::http::field, beast::string_view name, beast::string_view value,
                     beast::error_code& ec) override {
    if (out_.headers.size() >= max_lines_) {
      ec = beast::http::error::header_limit;
      return;
    }
    out_.headers.emplace_back(std::string(name), std::string(value));
  }
  void on_header_impl(beast::error_code&) override {}
  void on_body_init_impl(const boost::optional<std::uint64_t>&, beast::error_code&) override {}
  std::size_t on_body_impl(beast::string_view body, beast::error_code& ec) override { return Take(body, ec); }
  void on_chunk_header_impl(std::uint64_t, beast::string_view, beast::error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, beast::string_view body, beast::error_code& ec) override {
    return Take(body, ec);
  }

  std::size_t Take(beast::string_view body, beast::error_code& ec) {
    if (sink_ == nullptr) return body.size();
    if (body.size() > max_body_ - sink_->size()) {
      too_large_ = true;
      ec = beast::http::error::body_limit;
      return 0;
    }
    sink_->append(body.data(), body.size());
    return body.size();
  }
  void on_finish_impl(beast::error_code&) override {}

  const size_t max_lines_;
  Request& out_;
  std::string* sink_ = nullptr;
  size_t max_body_ = 0;
  bool too_large_ = false;
};

bool IsLoopback(const net::ip::address& a) {
  if (a.is_v6() && a.to_v6().is_v4_mapped()) return a.to_v6().to_v4().is_loopback();
  return a.is_loopback();
}

}  // namespace

std::string Request::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (EqualsIgnoreCase(k, name)) return v;
  }
  return "";
}

size_t Request::HeaderCount(std::string_view name) const {
  size_t n = 0;
  for (const auto& [k, v] : headers) n += EqualsIgnoreCase(k, name) ? 1 : 0;
  return n;
}

struct HttpListener::Impl {
  Impl(Limits l, Handler h, int threads, Headers c)
      : limits(l), handler(std::move(h)), common(std::move(c)), io(threads) {}

  // Declared before `io`: connections destroyed with io's pending handlers still release here.
  const Limits limits;
  const Handler handler;
  const Headers common;
  std::mutex mu;  // guards per_source
  std::map<net::ip::address, size_t> per_source;
  std::atomic<size_t> open{0};     // connections that are not streams
  std::atomic<size_t> streams{0};  // connections that are streams

  net::io_context io;
  tcp::acceptor acceptor{io};
  std::vector<std::thread> threads;
  std::atomic<bool> stopped{false};
  int port = 0;

  // Counts a connection from `source`; false when its source is at the cap.
  bool Admit(const net::ip::address& source) {
    if (limits.max_per_source == 0 || (IsLoopback(source) && !limits.limit_loopback)) {
      open.fetch_add(1);
      return true;
    }
    std::lock_guard lock(mu);
    size_t& n = per_source[source];
    if (n >= limits.max_per_source) {
      if (n == 0) per_source.erase(source);
      return false;
    }
    ++n;
    open.fetch_add(1);
    return true;
  }

  // A connection moves from the REST budget to the stream budget; false (nothing moved) when the
  // streams are at their budget.
  bool BecomeStream() {
    if (streams.fetch_add(1) >= limits.max_streams) {
      streams.fetch_sub(1);
      return false;
    }
    open.fetch_sub(1);
    return true;
  }

  void Release(const net::ip::address& source, bool stream) {
    (stream ? streams : open).fetch_sub(1);
    if (limits.max_per_source == 0 || (IsLoopback(source) && !limits.limit_loopback)) return;
    std::lock_guard lock(mu);
    auto it = per_source.find(source);
    if (it != per_source.end() && --it->second == 0) per_source.erase(it);
  }

  void Accept();
};

namespace {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, net::ip::address source, HttpListener::Impl& owner)
      : socket_(std::move(socket)), timer_(socket_.get_executor()), source_(std::move(source)), owner_(owner),
        buffer_(owner.limits.max_header_bytes) {}
  ~Connection() { owner_.Release(source_, streaming_); }

  // Answers `response` and closes: for a connection over the listener's budget.
  void Refuse(Response response) { Send(std::move(response), false); }

  void ReadHead(std::chrono::milliseconds deadline) {
    request_ = Request{};
    request_.remote_address = source_.to_string();
    parser_.emplace(owner_.limits, request_);
    timer_.expires_after(deadline);
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->socket_.close();  // the head was not complete in time
    });
    beast::http::async_read_header(socket_, buffer_, *parser_,
                                   [self = shared_from_this()](beast::error_code ec, size_t) { self->OnHead(ec); });
  }

 private:
  class StreamHandle;
  class PendingReply;

  // One piece of a stream: `data` shared by every stream it goes to, framed as a chunk with
  // `size_line` and a CRLF, or sent as it is (the head) when `size_line` is empty.
  struct Piece {
    std::shared_ptr<const std::string> data;
    std::string size_line;
  };

  void OnHead(beast::error_code ec) {
    timer_.cancel();
    if (ec == beast::http::error::header_limit || ec == beast::http::error::buffer_overflow) {
      return Send(ErrorResponse(431, "request header fields too large"), false);
    }
    if (ec == beast::http::error::end_of_stream || ec == net::error::operation_aborted || ec == net::error::eof ||
        !socket_.is_open()) {
      return;
    }
    if (ec) return Send(ErrorResponse(400, "bad request"), false);
    // A body is read only when the answer asks for it (Response::on_body): reading every body would
    // be unbounded work for routes that take none. The parser stays until the answer is known.
    has_body_ = !parser_->is_done();
    const bool keep_alive = parser_->keep_alive() && !has_body_;
    head_only_ = request_.method == "HEAD";
    Response response;
    try {
      response = owner_.handler(request_);
    } catch (...) {
      response = ErrorResponse(500, "internal error");
    }
    Answer(std::move(response), keep_alive);
  }

  // What the handler (or a Reply) gave: an answer to send, a stream to start, or a promise.
  void Answer(Response response, bool keep_alive) {
    if (response.later) return Defer(std::move(response.later), keep_alive);
    if (response.on_body) return ReadBody(std::move(response));
    parser_.reset();  // the body, if any, stays unread (Send closes the connection after the answer)
    if (response.on_stream && response.status == 200 && !head_only_) {
      if (!owner_.BecomeStream()) return Send(ErrorResponse(503, "too many event streams"), false);
      return StartStream(std::move(response));
    }
    Send(std::move(response), keep_alive);
  }

  // Reads the body the answer asked for (within body_deadline and its max_body_bytes), then answers
  // what its on_body returns.
  void ReadBody(Response response) {
    auto on_body = std::move(response.on_body);
    if (!parser_ || !has_body_) {
      const bool keep_alive = parser_ && parser_->keep_alive();
      parser_.reset();
      return Answer(CallOnBody(on_body, ""), keep_alive);
    }
    const size_t limit = response.max_body_bytes;
    if (auto declared = parser_->content_length(); declared && *declared > limit) {
      parser_.reset();
      return Send(TooLarge(limit), false);
    }
    body_.clear();
    parser_->Collect(&body_, limit);
    timer_.expires_after(owner_.limits.body_deadline);
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->socket_.close();  // the body was not complete in time
    });
    beast::http::async_read(socket_, buffer_, *parser_,
                            [self = shared_from_this(), on_body = std::move(on_body), limit](beast::error_code ec,
                                                                                             size_t) {
                              self->OnBody(ec, on_body, limit);
                            });
  }

  void OnBody(beast::error_code ec, const std::function<Response(std::string)>& on_body, size_t limit) {
    timer_.cancel();
    if (!socket_.is_open()) return;
    const bool too_large = parser_->body_too_large();
    const bool keep_alive = !ec && parser_->keep_alive();
    parser_.reset();
    std::string body = std::move(body_);
    body_ = std::string();
    if (too_large) return Send(TooLarge(limit), false);
    if (ec == beast::http::error::end_of_stream || ec == net::error::eof) return;  // the client left
    if (ec) return Send(ErrorResponse(400, "bad request body"), false);
    Answer(CallOnBody(on_body, std::move(body)), keep_alive);
  }

  static Response CallOnBody(const std::function<Response(std::string)>& on_body, std::string body) {
    try {
      return on_body(std::move(body));
    } catch (...) {
      return ErrorResponse(500, "internal error");
    }
  }

  static Response TooLarge(size_t limit) {
    return ErrorResponse(413, "request body larger than " + std::to_string(limit) + " bytes");
  }

  // Hands the application a Reply for an answer it gives later.
  void Defer(std::function<void(Reply)> later, bool keep_alive);

  // From here on nothing is read: the read buffer goes, and a wait for readability notices the
  // client's close (a well-behaved SSE client sends nothing more).
  void StartStream(Response response);

  // On the strand: queue one piece (the terminating chunk when `last`). A client that does not
  // take what is queued loses its stream once the backlog passes the cap.
  void Enqueue(Piece piece, bool last) {
    if (!socket_.is_open() || ended_) return;
    const size_t size = piece.data->size() + piece.size_line.size() + 2;
    if (backlog_ + size > owner_.limits.max_stream_backlog) return CloseStream();
    backlog_ += size;
    ended_ = last;
    queue_.push_back(std::move(piece));
    if (queue_.size() == 1) WriteQueued();
  }

  void WriteQueued() {
    static constexpr char kCrlf[] = "\r\n";
    const Piece& p = queue_.front();
    std::array<net::const_buffer, 3> buffers{net::buffer(p.size_line), net::buffer(*p.data),
                                             net::buffer(kCrlf, p.size_line.empty() ? 0 : 2)};
    net::async_write(socket_, buffers, [self = shared_from_this()](beast::error_code ec, size_t) {
      const Piece& done = self->queue_.front();
      self->backlog_ -= done.data->size() + done.size_line.size() + 2;
      self->queue_.erase(self->queue_.begin());
      if (ec || (self->ended_ && self->queue_.empty())) return self->CloseStream();
      if (!self->queue_.empty()) self->WriteQueued();
    });
  }

  void CloseStream();

  // Writes the answer within write_timeout; then reads the next head, or closes.
  void Send(Response response, bool keep_alive) {
    out_ = Serialize(response, owner_.common, keep_alive, head_only_ ? Framing::kHeadOnly : Framing::kLength);
    timer_.expires_after(owner_.limits.write_timeout);
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->socket_.close();  // the client did not take the answer in time
    });
    net::async_write(socket_, net::buffer(out_), [self = shared_from_this(), keep_alive](beast::error_code ec, size_t) {
      self->timer_.cancel();
      self->out_.clear();
      self->out_.shrink_to_fit();
      if (ec) {
        beast::error_code ignored;
        self->socket_.close(ignored);
        return;
      }
      if (!keep_alive) return self->Linger();
      self->ReadHead(self->owner_.limits.idle_timeout);
    });
  }

  // Closes after an answer: first says so (FIN), then reads and drops what the client still sends
  // (a body, the rest of a flood) until it closes too, `linger` passes or max_linger_bytes came. Closing at once with
  // unread data would reset the connection, and a client that is still sending would lose the
  // answer to the reset.
  void Linger() {
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    buffer_ = beast::flat_buffer(0);
    drain_ = std::make_unique<std::array<char, 4096>>();
    timer_.expires_after(owner_.limits.linger);
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->socket_.close();
    });
    Drain();
  }

  void Drain() {
    socket_.async_read_some(net::buffer(*drain_), [self = shared_from_this()](beast::error_code ec, size_t n) {
      self->drained_ += n;
      if (!ec && self->drained_ <= self->owner_.limits.max_linger_bytes) return self->Drain();
      self->timer_.cancel();
      beast::error_code ignored;
      self->socket_.close(ignored);
    });
  }

  tcp::socket socket_;
  net::steady_timer timer_;
  const net::ip::address source_;
  HttpListener::Impl& owner_;
  beast::flat_buffer buffer_;  // at most max_header_bytes
  Request request_;
  std::optional<HeadParser> parser_;
  bool has_body_ = false;  // the request has a body (read only when the answer asks: ReadBody)
  std::string body_;       // while ReadBody reads it
  bool head_only_ = false;  // the request is HEAD: the answer goes without its body
  std::string out_;
  std::unique_ptr<std::array<char, 4096>> drain_;  // only while lingering
  size_t drained_ = 0;
  bool streaming_ = false;
  bool ended_ = false;  // the terminating chunk is queued
  size_t backlog_ = 0;  // bytes in queue_
  std::vector<Piece> queue_;
  std::shared_ptr<StreamHandle> handle_;
};

// The answer a handler promised (Response::later): delivered once, on the connection's strand; a
// promise dropped unkept answers 500 so that the client is not left waiting for nothing.
class Connection::PendingReply {
 public:
  PendingReply(std::shared_ptr<Connection> c, bool keep_alive) : connection_(std::move(c)), keep_alive_(keep_alive) {}
  ~PendingReply() {
    if (!done_.exchange(true)) Post(ErrorResponse(500, "internal error"));
  }
  PendingReply(const PendingReply&) = delete;
  PendingReply& operator=(const PendingReply&) = delete;

  void Deliver(Response r) {
    if (!done_.exchange(true)) Post(std::move(r));
  }

 private:
  void Post(Response r) {
    auto c = connection_;
    const bool keep_alive = keep_alive_;
    net::post(c->socket_.get_executor(),
              [c, keep_alive, r = std::move(r)]() mutable { c->Answer(std::move(r), keep_alive); });
  }

  const std::shared_ptr<Connection> connection_;
  const bool keep_alive_;
  std::atomic<bool> done_{false};
};

void Connection::Defer(std::function<void(Reply)> later, bool keep_alive) {
  auto pending = std::make_shared<PendingReply>(shared_from_this(), keep_alive);
  try {
    later([pending](Response r) { pending->Deliver(std::move(r)); });
  } catch (...) {
    pending->Deliver(ErrorResponse(500, "internal error"));
  }
}

// The application's handle: holds the connection weakly, so a client that left frees it.
class Connection::StreamHandle : public Stream {
 public:
  explicit StreamHandle(std::weak_ptr<Connection> c) : connection_(std::move(c)) {}
  bool Write(std::shared_ptr<const std::string> bytes) override {
    auto c = connection_.lock();
    if (!c || closed_.load()) return false;
    if (bytes->empty()) return true;  // an empty chunk would end the stream
    Piece piece{std::move(bytes), ""};
    piece.size_line = ChunkSize(piece.data->size());
    net::post(c->socket_.get_executor(), [c, piece = std::move(piece)]() mutable { c->Enqueue(std::move(piece), false); });
    return true;
  }
  void Close() override {
    if (closed_.exchange(true)) return;
    if (auto c = connection_.lock()) {
      static const auto kLastChunk = std::make_shared<const std::string>("0\r\n\r\n");
      net::post(c->socket_.get_executor(), [c] { c->Enqueue(Piece{kLastChunk, ""}, true); });
    }
  }
  bool closed() const override { return closed_.load() || connection_.expired(); }
  void MarkClosed() { closed_.store(true); }

 private:
  std::weak_ptr<Connection> connection_;
  std::atomic<bool> closed_{false};
};

void Connection::StartStream(Response response) {
  streaming_ = true;
  // An idle stream keeps only the socket, its strand and this object: no read buffer, no request.
  buffer_ = beast::flat_buffer(0);
  request_ = Request{};
  handle_ = std::make_shared<StreamHandle>(weak_from_this());
  // The application gets the handle before the client sees the head; what it writes meanwhile is
  // posted to this strand and so goes out after the head.
  response.on_stream(handle_);
  Enqueue(Piece{std::make_shared<const std::string>(Serialize(response, owner_.common, true, Framing::kChunked)), ""},
          false);
  socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code) { self->CloseStream(); });
}

void Connection::CloseStream() {
  // Writes fail from now on, even while pending handlers keep this connection alive.
  if (handle_) handle_->MarkClosed();
  handle_.reset();
  beast::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  socket_.close(ignored);
}

}  // namespace

void HttpListener::Impl::Accept() {
  acceptor.async_accept(net::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || stopped.load()) return;
    beast::error_code peer_ec;
    const auto peer = ec ? tcp::endpoint() : socket.remote_endpoint(peer_ec);
    // Over its source's cap the connection is closed at once (socket's destructor): answering
    // would cost what the cap is there to save.
    if (!ec && !peer_ec && Admit(peer.address())) {
      // Small answers and events leave at once instead of waiting for a delayed ACK (40 ms).
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto connection = std::make_shared<Connection>(std::move(socket), peer.address(), *this);
      if (open.load() > limits.max_connections) {
        connection->Refuse(ErrorResponse(503, "too many connections"));
      } else {
        connection->ReadHead(limits.head_deadline);
      }
    }
    Accept();
  });
}

HttpListener::HttpListener(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpListener::~HttpListener() { Stop(); }

Result<std::unique_ptr<HttpListener>> HttpListener::Start(const std::string& address, int port, Limits limits,
                                                          Handler handler, int threads, Headers common) {
  beast::error_code ec;
  const auto ip = net::ip::make_address(address, ec);
  if (ec) return Error{DRAFORGE_EINVALID, "listen address \"" + address + "\" is not an IP address", "", ""};
  auto impl = std::make_unique<Impl>(limits, std::move(handler), threads, std::move(common));
  const tcp::endpoint endpoint(ip, static_cast<unsigned short>(port));
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(4096, ec);
  if (ec) {
    return Error{DRAFORGE_ENOTFOUND, "cannot listen on " + address + ":" + std::to_string(port) + ": " + ec.message(), "", ""};
  }
  impl->port = impl->acceptor.local_endpoint().port();
  impl->Accept();
  for (int i = 0; i < threads; ++i) impl->threads.emplace_back([io = &impl->io] { io->run(); });
  return std::unique_ptr<HttpListener>(new HttpListener(std::move(impl)));
}

int HttpListener::port() const { return impl_->port; }

size_t HttpListener::open_connections() const { return impl_->open.load(); }

size_t HttpListener::open_streams() const { return impl_->streams.load(); }

void HttpListener::Stop() {
  if (impl_->stopped.exchange(true)) return;
  impl_->io.stop();
  for (auto& t : impl_->threads) t.join();
  // No thread runs the loop any more: closing here races with nothing. Open connections go with
  // the loop's pending handlers when the listener is destroyed.
  beast::error_code ignored;
  impl_->acceptor.close(ignored);
}

}  // namespace draforge::http
