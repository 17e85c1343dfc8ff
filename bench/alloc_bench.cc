// Allocation throughput on the scenario families of bench/alloc_scenarios.py, run by bench/run_alloc
// beside upstream's allocator (the Go oracle dra-allocate) on the same files.
//
//   alloc_bench --scenarios=DIR [--benchmark_...]
//
// DIR is what bench/alloc_scenarios.py wrote: one YAML file per family and manifest.json. For every
// family two benchmarks are registered:
//   BM_Alloc/<family>     what kube-scheduler does per pod: one Allocate per candidate node on a fresh
//                         search, with a long-lived compiled-selector cache (upstream keeps cel.Cache
//                         for the scheduler's lifetime) and the allocated state computed beforehand
//                         (upstream keeps it in informers). This is the number compared with upstream.
//   BM_AllocColdCel/<family>  the same with an empty selector cache per pod (a new alloc::Allocator
//                         per iteration): what compiling the CEL selectors adds.
// One benchmark iteration = one pod: for families with many nodes (the Filter family) an iteration
// allocates on every node. items_per_second = Allocate calls per second. Counters: steps (search
// steps of one iteration, summed over its nodes), allocated (nodes on which the claims fit),
// "steps@NODE" for each node the Go program is run on, and "unpruned_steps@NODE", the steps of the
// same Allocate with AllocateOptions::prune_search off: upstream's search order, for the
// step-for-step comparison with its numAllocateOneInvocations.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "api/codec.h"
#include "benchmark/benchmark.h"
#include "rapidjson/document.h"
#include "store/cluster.h"

namespace draforge::bench {
namespace {

struct Family {
  std::string name;
  std::string file;
  std::vector<std::string> claim_refs;
  bool all_nodes = false;
  std::vector<std::string> node_names;
  std::vector<std::string> oracle_nodes;
};

// A family's input, loaded on first use (so that --benchmark_filter loads only what it runs).
struct Loaded {
  std::shared_ptr<const store::Snapshot> snapshot;
  std::vector<const api::ResourceClaim*> claims;
  std::vector<alloc::NodeInfo> nodes;
  std::vector<int> oracle_node_index;  // into `nodes`, parallel to Family::oracle_nodes
  alloc::AllocatedState state;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

absl::StatusOr<std::unique_ptr<Loaded>> Load(const std::string& dir, const Family& family) {
  const std::string text = ReadFile(dir + "/" + family.file);
  if (text.empty()) return absl::NotFoundError(absl::StrCat(dir, "/", family.file, ": empty or missing"));
  api::DecodeOptions options;
  options.max_bytes = text.size() + 1;
  auto decoded = api::DecodeStream(text, options);
  if (!decoded.ok()) return decoded.status();
  store::Cluster cluster;
  for (auto& d : *decoded) {
    if (!d.object.ok()) return d.object.status();
    if (absl::Status s = cluster.Apply(*std::move(d.object)); !s.ok()) return s;
  }
  auto out = std::make_unique<Loaded>();
  out->snapshot = cluster.snapshot();
  const store::Snapshot& snap = *out->snapshot;
  for (const std::string& ref : family.claim_refs) {
    const size_t slash = ref.find('/');
    const api::ResourceClaim* c = snap.GetResourceClaim(ref.substr(0, slash), ref.substr(slash + 1));
    if (c == nullptr) return absl::NotFoundError(absl::StrCat("claim ", ref, " not in ", family.file));
    out->claims.push_back(c);
  }
  std::vector<std::string> names = family.node_names;
  if (family.all_nodes) {
    names.clear();
    for (const api::Node* n : snap.Nodes()) names.push_back(n->metadata.name.value_or(""));
    std::sort(names.begin(), names.end());
  }
  for (const std::string& name : names) {
    const api::Node* n = snap.GetNode(name);
    out->nodes.push_back(n != nullptr ? alloc::NodeInfo::FromNode(*n) : alloc::NodeInfo{name, {}});
  }
  for (const std::string& name : family.oracle_nodes) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return absl::NotFoundError(absl::StrCat("oracle node ", name, " is not benchmarked"));
    out->oracle_node_index.push_back(static_cast<int>(it - names.begin()));
  }
  out->state = alloc::AllocatedStateFromSnapshot(snap, out->claims);
  return out;
}

std::string g_dir;
std::vector<Family> g_families;

const Loaded* Get(benchmark::State& state, const Family& family) {
  static std::map<std::string, std::unique_ptr<Loaded>> cache;
  auto it = cache.find(family.name);
  if (it == cache.end()) {
    auto loaded = Load(g_dir, family);
    if (!loaded.ok()) {
      state.SkipWithError(std::string(loaded.status().message()).c_str());
      return nullptr;
    }
    it = cache.emplace(family.name, *std::move(loaded)).first;
  }
  return it->second.get();
}

// One pod: Allocate on every node. Returns the total search steps; per-node steps and outcomes in
// `steps` / `allocated`.
int64_t AllocatePod(const alloc::Allocator& allocator, const Loaded& in, std::vector<int64_t>* steps,
                    int* allocated) {
  int64_t total = 0;
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    alloc::AllocateResult r = allocator.Allocate(in.claims, in.nodes[i]);
    benchmark::DoNotOptimize(r.allocations.data());
    total += r.search_steps;
    if (steps != nullptr) (*steps)[i] = r.search_steps;
    if (allocated != nullptr && r.outcome == alloc::Outcome::kAllocated) ++*allocated;
  }
  return total;
}

alloc::AllocateOptions Options(const Loaded& in) {
  alloc::AllocateOptions options;  // Kubernetes 1.37 default gates, as dra-allocate without flags
  options.allocated_state = &in.state;
  return options;
}

void Report(benchmark::State& state, const Family& family, const Loaded& in, const alloc::Allocator& allocator) {
  std::vector<int64_t> steps(in.nodes.size());
  int allocated = 0;
  const int64_t total = AllocatePod(allocator, in, &steps, &allocated);
  state.counters["steps"] = static_cast<double>(total);
  state.counters["nodes"] = static_cast<double>(in.nodes.size());
  state.counters["allocated"] = allocated;
  alloc::AllocateOptions unpruned = Options(in);
  unpruned.prune_search = false;
  alloc::Allocator upstream_order(in.snapshot, unpruned);
  for (size_t k = 0; k < family.oracle_nodes.size(); ++k) {
    const int i = in.oracle_node_index[k];
    state.counters["steps@" + family.oracle_nodes[k]] = static_cast<double>(steps[i]);
    state.counters["unpruned_steps@" + family.oracle_nodes[k]] =
        static_cast<double>(upstream_order.Allocate(in.claims, in.nodes[i]).search_steps);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in.nodes.size()));  // Allocate calls
}


void BM_Alloc(benchmark::State& state, const Family* family) {
  const Loaded* in = Get(state, *family);
  if (in == nullptr) return;
  alloc::Allocator allocator(in->snapshot, Options(*in));
  AllocatePod(allocator, *in, nullptr, nullptr);  // warm the selector cache, as dra-allocate does
  for (auto _ : state) benchmark::DoNotOptimize(AllocatePod(allocator, *in, nullptr, nullptr));
  Report(state, *family, *in, allocator);
}

void BM_AllocColdCel(benchmark::State& state, const Family* family) {
  const Loaded* in = Get(state, *family);
  if (in == nullptr) return;
  for (auto _ : state) {
    alloc::Allocator allocator(in->snapshot, Options(*in));
    benchmark::DoNotOptimize(AllocatePod(allocator, *in, nullptr, nullptr));
  }
  alloc::Allocator allocator(in->snapshot, Options(*in));
  Report(state, *family, *in, allocator);
}

std::vector<std::string> Strings(const rapidjson::Value& v) {
  std::vector<std::string> out;
  if (v.IsArray()) {
    for (const auto& s : v.GetArray()) out.emplace_back(s.GetString(), s.GetStringLength());
  }
  return out;
}

bool ReadManifest(const std::string& dir) {
  const std::string text = ReadFile(dir + "/manifest.json");
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("families")) {
    std::fprintf(stderr, "alloc_bench: %s/manifest.json: missing or not a manifest (run bench/alloc_scenarios.py)\n",
                 dir.c_str());
    return false;
  }
  for (const auto& f : doc["families"].GetArray()) {
    Family family;
    family.name = f["name"].GetString();
    family.file = f["file"].GetString();
    family.claim_refs = Strings(f["claims"]);
    family.all_nodes = f["nodes"].IsString() && std::string(f["nodes"].GetString()) == "*";
    family.node_names = Strings(f["nodes"]);
    family.oracle_nodes = Strings(f["oracle_nodes"]);
    g_families.push_back(std::move(family));
  }
  return true;
}

}  // namespace
}  // namespace draforge::bench

int main(int argc, char** argv) {
  using namespace draforge::bench;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--scenarios=", 0) == 0) {
      g_dir = a.substr(12);
    } else {
      args.push_back(argv[i]);
    }
  }
  if (g_dir.empty()) {
    std::fprintf(stderr, "usage: alloc_bench --scenarios=DIR [--benchmark_...]   (DIR from bench/alloc_scenarios.py)\n");
    return 2;
  }
  if (!ReadManifest(g_dir)) return 2;
  for (const Family& f : g_families) {
    benchmark::RegisterBenchmark(("BM_Alloc/" + f.name).c_str(), BM_Alloc, &f)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_AllocColdCel/" + f.name).c_str(), BM_AllocColdCel, &f)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
