// A minimal Server-Sent Events server on Boost.Beast/Asio, to measure what one idle stream costs
// and how fast a change reaches every stream (docs/adr/0001-server-http-layer.md). Not part of the
// build: bench/server/proto/run.sh compiles it.
//
//   beast_sse PORT THREADS
// GET /events: a chunked text/event-stream that gets every broadcast; GET /healthz: 200;
// GET /publish: broadcasts one change event to every stream. Request heads must arrive whole
// within 10 s (one deadline per head, not per read) and fit in 8 KiB.
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Message = std::shared_ptr<const std::string>;

std::string Chunk(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

class Session;

// The streams; a broadcast posts one shared message to each stream's strand.
class Hub {
 public:
  void Add(const std::shared_ptr<Session>& s) {
    std::lock_guard lock(mu_);
    sessions_.push_back(s);
  }
  void Broadcast(const std::string& event);

 private:
  std::mutex mu_;
  std::vector<std::weak_ptr<Session>> sessions_;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Hub& hub) : socket_(std::move(socket)), deadline_(socket_.get_executor()), hub_(hub) {}

  void ReadHead() {
    parser_.emplace();
    parser_->header_limit(8192);
    deadline_.expires_after(std::chrono::seconds(10));
    deadline_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->socket_.close();  // the whole head did not arrive in time
    });
    http::async_read_header(socket_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->deadline_.cancel();
      if (!ec) self->OnHead();
    });
  }

  void Send(Message m) {
    queue_.push_back(std::move(m));
    if (queue_.size() == 1) WriteNext();
  }

 private:
  void OnHead() {
    const std::string target(parser_->get().target());
    parser_.reset();
    if (target == "/events") {
      // From here on nothing is read: drop the read buffer, watch the socket for the peer's close.
      buffer_ = beast::flat_buffer();
      streaming_ = true;
      Send(std::make_shared<const std::string>(
          "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
          "Transfer-Encoding: chunked\r\n\r\n" + Chunk("retry: 2000\n\nid: 0\nevent: hello\ndata: {}\n\n")));
      hub_.Add(shared_from_this());
      socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code) { self->socket_.close(); });
      return;
    }
    if (target == "/publish") hub_.Broadcast("{\"change\":1}");
    Send(std::make_shared<const std::string>(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}"));
  }

  void WriteNext() {
    net::async_write(socket_, net::buffer(*queue_.front()), [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->socket_.close();
      self->queue_.erase(self->queue_.begin());
      if (!self->queue_.empty()) return self->WriteNext();
      if (!self->streaming_) self->ReadHead();  // keep-alive: the next request
    });
  }

  tcp::socket socket_;
  net::steady_timer deadline_;
  Hub& hub_;
  beast::flat_buffer buffer_{8192};
  std::optional<http::request_parser<http::empty_body>> parser_;
  std::vector<Message> queue_;
  bool streaming_ = false;
  friend class Hub;
};

void Hub::Broadcast(const std::string& event) {
  static uint64_t id = 0;
  auto m = std::make_shared<const std::string>(Chunk("id: " + std::to_string(++id) + "\nevent: change\ndata: " + event + "\n\n"));
  std::lock_guard lock(mu_);
  size_t live = 0;
  for (auto& w : sessions_) {
    auto s = w.lock();
    if (!s) continue;
    sessions_[live++] = w;
    net::post(s->socket_.get_executor(), [s, m] { s->Send(m); });
  }
  sessions_.resize(live);
}

void Accept(tcp::acceptor& acceptor, net::io_context& io, Hub& hub) {
  acceptor.async_accept(net::make_strand(io), [&](beast::error_code ec, tcp::socket socket) {
    if (!ec) std::make_shared<Session>(std::move(socket), hub)->ReadHead();
    Accept(acceptor, io, hub);
  });
}

int main(int argc, char** argv) {
  const int port = argc > 1 ? std::atoi(argv[1]) : 8090;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  net::io_context io(threads);
  tcp::acceptor acceptor(io);
  tcp::endpoint endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port));
  acceptor.open(endpoint.protocol());
  acceptor.set_option(net::socket_base::reuse_address(true));
  acceptor.bind(endpoint);
  acceptor.listen(4096);
  Hub hub;
  Accept(acceptor, io, hub);
  std::printf("listening on %d\n", port);
  std::fflush(stdout);
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&] { io.run(); });
  io.run();
}
