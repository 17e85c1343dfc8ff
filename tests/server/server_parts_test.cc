// Pieces of draforge-server that do not need a socket: rate limiting, metrics text, query
// validation of the JSON views, the Host allow-list, static files, and the --watch-dir source.
#include <chrono>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>

#include <zlib.h>

#include "api_views.h"
#include "draforge/draforge.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host_allow_list.h"
#include "http_encoding.h"
#include "metrics.h"
#include "rate_limiter.h"
#include "scenario_source.h"
#include "static_files.h"
#include "work_queue.h"

namespace draforge::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

// What a client does with a gzip body: inflate it (zlib with gzip framing).
std::string Gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out;
  char buf[65536];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  }
  inflateEnd(&z);
  EXPECT_EQ(rc, Z_STREAM_END) << "not a complete gzip member";
  return out;
}

// The work queue is bounded (the server answers 503 past it instead of queueing without end),
// and a task that throws neither ends the process nor stops the queue.
TEST(WorkQueueTest, BoundedAndSurvivesATaskThatThrows) {
  std::mutex mu;
  std::condition_variable cv;
  bool started = false, release = false, after_throw = false;
  {
    WorkQueue queue(1, 2);
    // The one thread is held by the first task, so the next ones wait in the queue.
    ASSERT_TRUE(queue.Post([&] {
      std::unique_lock lock(mu);
      started = true;
      cv.notify_all();
      cv.wait(lock, [&] { return release; });
    }));
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return started; });
    }
    EXPECT_TRUE(queue.Post([] { throw std::runtime_error("render failed"); }));
    EXPECT_TRUE(queue.Post([&] { after_throw = true; }));
    EXPECT_FALSE(queue.Post([] {})) << "a third waiting task was queued past the capacity of 2";
    {
      std::lock_guard lock(mu);
      release = true;
    }
    cv.notify_all();
  }  // the destructor runs what is queued, then joins
  EXPECT_TRUE(after_throw);
}

TEST(AcceptsGzipTest, FollowsAcceptEncodingWithQValues) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("br, gzip"));
  EXPECT_TRUE(AcceptsGzip("gzip, deflate, br, zstd"));  // what Chromium sends
  EXPECT_TRUE(AcceptsGzip(" GZIP ;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("x-gzip"));
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_FALSE(AcceptsGzip(""));  // no header: identity only
  EXPECT_FALSE(AcceptsGzip("br"));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0.000, br"));
  EXPECT_FALSE(AcceptsGzip("*, gzip;q=0"));  // explicitly refused beats the wildcard
  EXPECT_FALSE(AcceptsGzip("*;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=banana"));  // malformed: ignored
  EXPECT_FALSE(AcceptsGzip("gzipx, xgzip"));   // whole tokens only, not substrings
}

TEST(GzipTest, RoundTripsAndShrinksJson) {
  std::string json = "[";
  for (int i = 0; i < 5000; ++i) json += R"({"name":"gpu-)" + std::to_string(i) + R"(","driver":"gpu.example.com"},)";
  json.back() = ']';
  auto gz = Gzip(json);
  ASSERT_TRUE(gz.has_value());
  EXPECT_LT(gz->size() * 10, json.size());
  EXPECT_EQ(Gunzip(*gz), json);
  auto empty = Gzip("");
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(Gunzip(*empty), "");
}

TEST(IsCompressibleTest, TextAndJsonButNotStreamsOrImages) {
  EXPECT_TRUE(IsCompressible("application/json; charset=utf-8"));
  EXPECT_TRUE(IsCompressible("text/plain; version=0.0.4; charset=utf-8"));
  EXPECT_TRUE(IsCompressible("text/javascript; charset=utf-8"));
  EXPECT_TRUE(IsCompressible("image/svg+xml"));
  EXPECT_FALSE(IsCompressible("text/event-stream"));
  EXPECT_FALSE(IsCompressible("image/png"));
  EXPECT_FALSE(IsCompressible("font/woff2"));
}

TEST(StaticFilesTest, ServesCompressesOnceAndRefusesEscapes) {
  const auto dir = std::filesystem::temp_directory_path() / ("draforge-static-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "assets");
  const std::string js(20000, 'x');
  std::ofstream(dir / "assets" / "app.js") << js;
  std::ofstream(dir / "index.html") << "<!doctype html>";
  const std::string outside = dir.filename().string() + "-outside.txt";  // next to the root
  std::ofstream(dir.parent_path() / outside) << "secret";
  StaticFiles files(dir);

  auto app = files.Get("/assets/app.js");
  ASSERT_TRUE(app.ok()) << app.error().message;
  EXPECT_EQ((*app)->content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(*(*app)->body, js);
  ASSERT_NE((*app)->gzip, nullptr);
  EXPECT_EQ(Gunzip(*(*app)->gzip), js);
  // The second request gets the same compressed bytes, not a new compression.
  auto again = files.Get("/assets/app.js");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->gzip.get(), (*app)->gzip.get());

  auto index = files.Get("/");
  ASSERT_TRUE(index.ok()) << index.error().message;
  EXPECT_EQ(*(*index)->body, "<!doctype html>");
  EXPECT_EQ((*index)->gzip, nullptr);  // too small to be worth it

  // A rebuilt file is picked up.
  std::ofstream(dir / "assets" / "app.js") << "console.log(2)";
  auto changed = files.Get("/assets/app.js");
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(*(*changed)->body, "console.log(2)");

  EXPECT_EQ(files.Get("/nothing.js").error().code, DRAFORGE_ENOTFOUND);
  EXPECT_EQ(files.Get("/assets").error().code, DRAFORGE_ENOTFOUND);  // a folder is not a file
  EXPECT_EQ(files.Get("/../" + outside).error().code, DRAFORGE_EINVALID);
  EXPECT_EQ(files.Get("/assets/../../" + outside).error().code, DRAFORGE_EINVALID);
  EXPECT_EQ(StaticFiles("").Get("/index.html").error().code, DRAFORGE_ENOTFOUND);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(dir.parent_path() / outside);
}

TEST(StaticFilesTest, RefusesHiddenFilesAndLinksOutOfTheRoot) {
  const auto base = std::filesystem::temp_directory_path() / ("draforge-static-links-" + std::to_string(getpid()));
  const auto root = base / "root";
  std::filesystem::create_directories(root / ".git");
  std::filesystem::create_directories(base / "private");
  std::ofstream(root / "index.html") << "<!doctype html>";
  std::ofstream(root / ".env") << "secret";
  std::ofstream(root / ".git" / "config") << "secret";
  std::ofstream(base / "private" / "key") << "secret";
  std::filesystem::create_symlink(base / "private" / "key", root / "key");
  std::filesystem::create_symlink(base / "private", root / "private");
  std::filesystem::create_symlink(root / ".env", root / "env");
  std::filesystem::create_symlink(root / "index.html", root / "home.html");
  StaticFiles files(root);

  EXPECT_EQ(files.Get("/.env").error().code, DRAFORGE_EUNSUPPORTED);
  EXPECT_EQ(files.Get("/.git/config").error().code, DRAFORGE_EUNSUPPORTED);
  EXPECT_EQ(files.Get("/.git/").error().code, DRAFORGE_EUNSUPPORTED);
  EXPECT_EQ(files.Get("/key").error().code, DRAFORGE_EUNSUPPORTED);
  EXPECT_THAT(files.Get("/key").error().message, HasSubstr("outside the static root"));
  EXPECT_EQ(files.Get("/private/key").error().code, DRAFORGE_EUNSUPPORTED);
  EXPECT_EQ(files.Get("/env").error().code, DRAFORGE_EUNSUPPORTED);
  EXPECT_THAT(files.Get("/env").error().message, HasSubstr("hidden file"));
  EXPECT_EQ(files.Get("/nothing").error().code, DRAFORGE_ENOTFOUND);  // a client-side route
  auto linked = files.Get("/home.html");  // a link that stays inside the root is served
  ASSERT_TRUE(linked.ok()) << linked.error().message;
  EXPECT_EQ(*(*linked)->body, "<!doctype html>");

  // A link turned to point outside after it was served (and cached) is refused too.
  std::filesystem::remove(root / "home.html");
  std::filesystem::create_symlink(base / "private" / "key", root / "home.html");
  EXPECT_EQ(files.Get("/home.html").error().code, DRAFORGE_EUNSUPPORTED);
  std::filesystem::remove_all(base);
}

TEST(HostAllowListTest, DefaultAnswersLoopbackNamesAndIpAddresses) {
  using V = HostAllowList::Verdict;
  const HostAllowList hosts;
  EXPECT_EQ(hosts.patterns(), "localhost,*.localhost");
  for (const char* ok : {"localhost", "localhost:8080", "LOCALHOST", "localhost.", "app.localhost", "a.b.localhost:1",
                         "127.0.0.1", "127.0.0.1:8080", "10.244.1.7:8080", "[::1]", "[::1]:8080", "[fd00::7]:80",
                         "localhost:", ""}) {
    EXPECT_EQ(hosts.Check(ok), V::kAllowed) << ok;
  }
  for (const char* refused : {"evil.attacker.example", "evil.attacker.example:8080", "x", "localhost.evil.example",
                              "127.0.0.1.nip.io", "2130706433", "notlocalhost"}) {
    EXPECT_EQ(hosts.Check(refused), V::kRefused) << refused;
  }
  for (const char* bad : {"a b", "localhost:80:80", "localhost:123456", "localhost:http", "[::1", "[::1]x",
                          "[localhost]", "[::1]:x", "dra.example/x", "a..b", ".", ":80", "user@localhost"}) {
    EXPECT_EQ(hosts.Check(bad), V::kMalformed) << bad;
  }
}

TEST(HostAllowListTest, ParsesNamesWildcardsAndAny) {
  using V = HostAllowList::Verdict;
  auto hosts = HostAllowList::Parse(" dra.corp.example , *.dra.example,");
  ASSERT_TRUE(hosts.ok()) << hosts.error().message;
  EXPECT_EQ(hosts->Check("dra.corp.example:443"), V::kAllowed);
  EXPECT_EQ(hosts->Check("DRA.Corp.Example."), V::kAllowed);
  EXPECT_EQ(hosts->Check("eu.dra.example"), V::kAllowed);
  EXPECT_EQ(hosts->Check("dra.example"), V::kRefused);  // "*.suffix" is not the suffix itself
  EXPECT_EQ(hosts->Check("xdra.example"), V::kRefused);
  EXPECT_EQ(hosts->Check("localhost"), V::kRefused);  // the list replaces the default
  EXPECT_EQ(hosts->Check("192.168.1.1:8080"), V::kAllowed);
  auto any = HostAllowList::Parse("*");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->Check("evil.attacker.example"), V::kAllowed);
  EXPECT_EQ(any->Check("a b"), V::kMalformed);  // "*" allows any name, not any bytes
  for (const char* bad : {"", " , ", "http://dra.example", "dra..example", "*dra.example", "[::1]", "a b", "*.*.x"}) {
    auto parsed = HostAllowList::Parse(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error().code, DRAFORGE_EINVALID);
  }
  EXPECT_THAT(HostAllowList::Parse("ok.example,bad name").error().message, HasSubstr("\"bad name\""));
}

TEST(RateLimiterTest, BurstThenRefillPerClient) {
  RateLimiter limiter(10);  // 10/s, burst 20
  const auto t0 = Clock::now();
  int allowed = 0;
  for (int i = 0; i < 30; ++i) allowed += limiter.Allow("10.0.0.1", t0) ? 1 : 0;
  EXPECT_EQ(allowed, 20);
  EXPECT_TRUE(limiter.Allow("10.0.0.2", t0));  // another client has its own bucket
  EXPECT_FALSE(limiter.Allow("10.0.0.1", t0 + std::chrono::milliseconds(50)));
  EXPECT_TRUE(limiter.Allow("10.0.0.1", t0 + std::chrono::milliseconds(150)));  // 1.5 tokens back
}

TEST(RateLimiterTest, ZeroDisables) {
  RateLimiter limiter(0);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(limiter.Allow("a", Clock::now()));
}

TEST(MetricsTest, CountersHistogramAndEscapedLabels) {
  Metrics m;
  m.CountRequest("/api/v1/summary", 200);
  m.CountRequest("/api/v1/summary", 200);
  m.CountRequest("other", 404);
  m.ObserveLatency("/api/v1/summary", 0.003);
  m.ObserveLatency("/api/v1/summary", 2.0);
  Cluster c = Cluster::Create().value();
  ASSERT_TRUE(c.Apply("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: "
                      "d.example.com, allNodes: true, pool: {name: \"we\\\"ird\", generation: 1, resourceSliceCount: "
                      "1}, devices: [{name: x}]}\n")
                  .ok());
  const std::string text = m.Render(c.snapshot().value(), 7, 3, true);
  EXPECT_THAT(text, HasSubstr("draforge_http_requests_total{route=\"/api/v1/summary\",code=\"200\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("draforge_http_requests_total{route=\"other\",code=\"404\"} 1\n"));
  // Buckets are cumulative: 3 ms is under 0.005, 2 s only under 2.5 and +Inf.
  EXPECT_THAT(text, HasSubstr("route=\"/api/v1/summary\",le=\"0.0025\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("route=\"/api/v1/summary\",le=\"0.005\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("route=\"/api/v1/summary\",le=\"2.5\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("route=\"/api/v1/summary\",le=\"+Inf\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("draforge_sse_clients 7\n"));
  EXPECT_THAT(text, HasSubstr("draforge_ready 1\n"));
  EXPECT_THAT(text, HasSubstr("draforge_pool_devices{driver=\"d.example.com\",pool=\"we\\\"ird\"} 1\n"));
}

TEST(ApiViewsTest, BadParametersAreNamed) {
  const Snapshot snap = Cluster::Create().value().snapshot().value();
  auto r = RenderDevices(snap, {{"limit", "0"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("\"limit\" must be an integer from 1 to 10000"));
  r = RenderDevices(snap, {{"allocated", "yes"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("\"allocated\" must be true or false"));
  r = RenderClaims(snap, {{"state", "done"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("pending, allocated or reserved"));
  r = RenderPools(snap, {{"driver", "a"}, {"driver", "b"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("more than once"));
  r = RenderSummary(snap, {{"x", "1"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("takes none"));
  EXPECT_TRUE(RenderGraph(snap, {{"allDevices", "false"}, {"node", "n"}}).ok());
  // The library takes C strings: a value cut at a NUL would filter on what the client did not send.
  r = RenderClaims(snap, {{"namespace", std::string("team-a\0x", 8)}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("\"namespace\" must not contain a NUL"));
}

TEST(ApiViewsTest, EmptyStoreRendersEmptyLists) {
  const Snapshot snap = Cluster::Create().value().snapshot().value();
  EXPECT_EQ(*RenderPools(snap, {}), R"({"snapshot":{"generation":0,"resourceVersion":""},"items":[]})");
  EXPECT_THAT(*RenderDevices(snap, {}), HasSubstr(R"("total":0,"offset":0,"limit":1000,"items":[])"));
  EXPECT_THAT(*RenderDiagnostics(snap, {}), HasSubstr(R"("pending":[],"anomalies":[])"));
}

TEST(WatchDirTest, AppliesChangesAndDeletesRemovedObjects) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("draforge-watchdir-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Cluster c = Cluster::Create().value();
  WatchDir watch(dir.string(), c);
  std::vector<std::string> errors;
  auto report = [&](const std::string& e) { errors.push_back(e); };
  EXPECT_FALSE(watch.Poll(report));  // empty directory: nothing
  {
    std::ofstream f(dir / "a.yaml");
    f << "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: one}\n---\n"
         "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: two}\n";
  }
  EXPECT_TRUE(watch.Poll(report));
  EXPECT_EQ(c.snapshot()->count("DeviceClass"), 2u);
  EXPECT_FALSE(watch.Poll(report));  // unchanged files are not re-read
  {
    std::ofstream f(dir / "a.yaml", std::ios::trunc);
    f << "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: one}\n# shorter now\n";
  }
  EXPECT_TRUE(watch.Poll(report));
  EXPECT_EQ(c.snapshot()->count("DeviceClass"), 1u);
  EXPECT_TRUE(c.snapshot()->GetJson("DeviceClass", "", "one").ok());
  {
    std::ofstream f(dir / "bad.yaml");
    f << "kind: [unclosed\n";
  }
  EXPECT_FALSE(watch.Poll(report));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors.back(), HasSubstr("bad.yaml"));
  EXPECT_EQ(c.snapshot()->count("DeviceClass"), 1u);  // the bad file changes nothing
  // While the directory does not load, the store keeps the last good load, and the same error is
  // reported once, not at every poll.
  fs::remove(dir / "a.yaml");
  EXPECT_FALSE(watch.Poll(report));
  EXPECT_EQ(errors.size(), 1u);
  EXPECT_EQ(c.snapshot()->count("DeviceClass"), 1u);
  fs::remove(dir / "bad.yaml");
  EXPECT_TRUE(watch.Poll(report));
  EXPECT_EQ(c.snapshot()->count("DeviceClass"), 0u);
  fs::remove_all(dir);
}

TEST(LoadTextTest, ErrorsNameTheSourceAndObject) {
  Cluster c = Cluster::Create().value();
  auto s = LoadText("apiVersion: v1\nkind: Pod\nmetadata: {namespace: x}\n", "my.yaml", c);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr("my.yaml: object 1"));
  EXPECT_THAT(ReadFile("/no/such/file.yaml", 0).error().message, HasSubstr("/no/such/file.yaml"));
  EXPECT_THAT(ReadFile("/no/such/file.yaml", 0).error().message, Not(HasSubstr("object")));
}

TEST(ReadFileTest, NamesTheFileTheObjectAndTheLimitFlag) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("draforge-readfile-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "s.yaml");
    f << "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\n---\n"
         "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: b}\nspec: {selectors: 7}\n";
  }
  auto bad = ReadFile((dir / "s.yaml").string(), 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("s.yaml: object 2 (line "));
  EXPECT_THAT(bad.error().message, HasSubstr("spec.selectors"));
  // Over the limit: refused before decoding, naming the flag that raises it.
  auto big = ReadFile((dir / "s.yaml").string(), 16);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code, DRAFORGE_ELIMIT);
  EXPECT_THAT(big.error().message, HasSubstr("--max-input-size"));
  // The watch directory obeys the same limit.
  Cluster c = Cluster::Create().value();
  WatchDir watch(dir.string(), c, 16);
  std::vector<std::string> errors;
  EXPECT_FALSE(watch.Poll([&](const std::string& e) { errors.push_back(e); }));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("--max-input-size"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace draforge::server
