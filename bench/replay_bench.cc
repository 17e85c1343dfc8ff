// The replay benchmark's DRAForge side (issue 21), run by bench/run_replay beside the Go oracle
// dra-replay (upstream's allocator doing the same per-node allocations) on the same file.
//
//   replay_bench --scenario=FILE [--result=FILE] [--benchmark_...]
//
// FILE is a cluster from bench/replay_scenario.py (any cluster dump works). BM_Replay times
// alloc::Replay of every pending pod, first fit, with the Kubernetes 1.37 default gates: one
// benchmark iteration is the whole replay, so run it with --benchmark_repetitions for several
// measurements. Decoding and loading the file into a snapshot are not timed (the Go side does not
// time its decoding either). ReplayOptions::explain is off: the explain funnel's sentence per
// rejected node is a what-if nicety the scheduler does not compute (the reasons are still kept).
//
// Counters: pods (in the queue), placed, nodes, us_per_pod, and other_filter_rejections: how often
// a node was rejected by a filter other than DynamicResources (NodeUnschedulable, TaintToleration,
// NodeAffinity, NodeResourcesFit). dra-replay runs only the allocator, so the two sides are
// comparable only when this is 0 (bench/replay_scenario.py builds such clusters).
//
// --result=FILE writes the first replay's outcome as JSON: {"order": [pod keys], "placed": [{"pod",
// "node", "claims": [{"claim", "results": [{"request", "driver", "pool", "device"}]}]}], "pending":
// [pod keys]}, the shape dra-replay prints, for bench/run_replay's identity check.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "alloc/placement.h"
#include "alloc/replay.h"
#include "api/codec.h"
#include "benchmark/benchmark.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "store/cluster.h"

namespace draforge::bench {
namespace {

std::string g_scenario;
std::string g_result;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

absl::StatusOr<std::shared_ptr<const store::Snapshot>> Load(const std::string& path) {
  const std::string text = ReadFile(path);
  if (text.empty()) return absl::NotFoundError(path + ": empty or missing");
  api::DecodeOptions options;
  options.max_bytes = text.size() + 1;
  auto decoded = api::DecodeStream(text, options);
  if (!decoded.ok()) return decoded.status();
  store::Cluster cluster;
  for (auto& d : *decoded) {
    if (!d.object.ok()) return d.object.status();
    if (absl::Status s = cluster.Apply(*std::move(d.object)); !s.ok()) return s;
  }
  return cluster.snapshot();
}

std::string ResultJson(const alloc::ReplayResult& r) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto str = [&](const std::optional<std::string>& s) { w.String(s.value_or("").c_str()); };
  w.StartObject();
  w.Key("order");
  w.StartArray();
  for (const std::string& p : r.order) w.String(p.c_str());
  w.EndArray();
  w.Key("placed");
  w.StartArray();
  for (const alloc::ReplayedPod& p : r.placed) {
    w.StartObject();
    w.Key("pod");
    w.String(p.pod.c_str());
    w.Key("node");
    w.String(p.node.c_str());
    w.Key("claims");
    w.StartArray();
    for (const alloc::ReplayedClaim& c : p.claims) {
      w.StartObject();
      w.Key("claim");
      w.String(c.claim.c_str());
      w.Key("results");
      w.StartArray();
      if (c.allocation.devices) {
        for (const api::DeviceRequestAllocationResult& d : c.allocation.devices->results) {
          w.StartObject();
          w.Key("request");
          str(d.request);
          w.Key("driver");
          str(d.driver);
          w.Key("pool");
          str(d.pool);
          w.Key("device");
          str(d.device);
          w.EndObject();
        }
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("pending");
  w.StartArray();
  for (const alloc::PendingPod& p : r.pending) w.String(p.pod.c_str());
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

void BM_Replay(benchmark::State& state) {
  static absl::StatusOr<std::shared_ptr<const store::Snapshot>> snapshot = Load(g_scenario);
  if (!snapshot.ok()) {
    state.SkipWithError(std::string(snapshot.status().message()).c_str());
    return;
  }
  alloc::ReplayOptions options;  // Kubernetes 1.37 default gates, first fit, as dra-replay
  options.explain = false;
  std::optional<alloc::ReplayResult> last;
  for (auto _ : state) {
    absl::StatusOr<alloc::ReplayResult> r = alloc::Replay(**snapshot, options);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    state.PauseTiming();
    last = *std::move(r);  // the previous result is destroyed outside the clock
    state.ResumeTiming();
  }
  int64_t other = 0;
  for (const alloc::PendingPod& p : last->pending) {
    for (const alloc::NodeReason& n : p.nodes) other += n.filter != "DynamicResources";
  }
  const auto pods = static_cast<double>(last->order.size());
  state.counters["pods"] = pods;
  state.counters["placed"] = static_cast<double>(last->placed.size());
  state.counters["nodes"] = static_cast<double>(alloc::PlacementNodes(**snapshot).size());
  state.counters["other_filter_rejections"] = static_cast<double>(other);
  state.counters["us_per_pod"] =
      benchmark::Counter(pods * 1e-6, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  if (!g_result.empty()) {
    static bool written = false;
    if (!written) {
      std::ofstream(g_result, std::ios::binary) << ResultJson(*last);
      written = true;
    }
  }
}

}  // namespace
}  // namespace draforge::bench

int main(int argc, char** argv) {
  using namespace draforge::bench;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--scenario=", 0) == 0) {
      g_scenario = a.substr(11);
    } else if (a.rfind("--result=", 0) == 0) {
      g_result = a.substr(9);
    } else {
      args.push_back(argv[i]);
    }
  }
  if (g_scenario.empty()) {
    std::fprintf(stderr, "usage: replay_bench --scenario=FILE [--result=FILE] [--benchmark_...]\n");
    return 2;
  }
  benchmark::RegisterBenchmark("BM_Replay", BM_Replay)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
