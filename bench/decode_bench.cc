// Decoding throughput beside RapidJSON's own parse of the same bytes, and the store's memory per
// device. Run through bench/run, which prints the ratios.
#include <string>

#include "api/codec.h"
#include "bench_data.h"
#include "benchmark/benchmark.h"
#include "live_heap.h"
#include "rapidjson/document.h"
#include "store/cluster.h"

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
    const int64_t before = LiveHeapBytes();
    auto decoded = api::DecodeStream(text, options);
    store::Cluster cluster;
    for (auto& d : *decoded) {
      if (!cluster.Apply(*std::move(d.object)).ok()) state.SkipWithError("apply failed");
    }
    auto snapshot = cluster.snapshot();
    benchmark::DoNotOptimize(snapshot.get());
    decoded->clear();
    decoded->shrink_to_fit();
    per_device = static_cast<double>(LiveHeapBytes() - before) / kDevices;
  }
  state.counters["bytes_per_device"] = per_device;
}
BENCHMARK(BM_StoreMemoryPerDevice)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace draforge::bench

BENCHMARK_MAIN();
