// Decoding throughput beside RapidJSON's own parse of the same bytes, and the store's memory per
// device. Run through bench/run, which prints the ratios.
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "api/codec.h"
#include "bench_data.h"
#include "benchmark/benchmark.h"
#include "rapidjson/document.h"
#include "store/cluster.h"

// Counts live heap bytes so the memory benchmark can measure what the store keeps. Only this
// binary replaces operator new; the library never does. The replacement delete frees what the
// replacement new malloc'ed, which gcc cannot see.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<int64_t> g_live_bytes{0};
}
void* operator new(size_t n) {
  void* p = std::malloc(n + 16);
  if (p == nullptr) throw std::bad_alloc();
  *static_cast<size_t*>(p) = n;
  g_live_bytes.fetch_add(static_cast<int64_t>(n), std::memory_order_relaxed);
  return static_cast<char*>(p) + 16;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  char* base = static_cast<char*>(p) - 16;
  g_live_bytes.fetch_sub(static_cast<int64_t>(*reinterpret_cast<size_t*>(base)), std::memory_order_relaxed);
  std::free(base);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }

namespace draforge::bench {
namespace {

constexpr int kDevices = 100000;

const std::string& Input() {
  static const std::string* text = new std::string(GpuSliceListJson(kDevices));
  return *text;
}

void BM_RapidJsonParse(benchmark::State& state) {
  const std::string& text = Input();
  for (auto _ : state) {
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseFullPrecisionFlag>(text.data(), text.size());
    benchmark::DoNotOptimize(doc.IsObject());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_RapidJsonParse)->Unit(benchmark::kMillisecond);

// state.range(0) == 0 forces the DOM decoder (what DecodeStream did before the DOM-free path).
void BM_DecodeStream(benchmark::State& state) {
  const std::string& text = Input();
  api::DecodeOptions options;
  options.max_bytes = text.size();
  options.allow_fast_path = state.range(0) != 0;
  size_t objects = 0;
  for (auto _ : state) {
    auto decoded = api::DecodeStream(text, options);
    if (!decoded.ok()) {
      state.SkipWithError(std::string(decoded.status().message()).c_str());
      return;
    }
    objects = decoded->size();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["slices"] = static_cast<double>(objects);
}
BENCHMARK(BM_DecodeStream)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

// Heap bytes the store keeps per device once 100k devices are loaded (decoded objects plus indexes).
void BM_StoreMemoryPerDevice(benchmark::State& state) {
  const std::string& text = Input();
  api::DecodeOptions options;
  options.max_bytes = text.size();
  double per_device = 0;
  for (auto _ : state) {
    const int64_t before = g_live_bytes.load();
    auto decoded = api::DecodeStream(text, options);
    store::Cluster cluster;
    for (auto& d : *decoded) {
      if (!cluster.Apply(*std::move(d.object)).ok()) state.SkipWithError("apply failed");
    }
    auto snapshot = cluster.snapshot();
    benchmark::DoNotOptimize(snapshot.get());
    decoded->clear();
    decoded->shrink_to_fit();
    per_device = static_cast<double>(g_live_bytes.load() - before) / kDevices;
  }
  state.counters["bytes_per_device"] = per_device;
}
BENCHMARK(BM_StoreMemoryPerDevice)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace draforge::bench

BENCHMARK_MAIN();
