// End-to-end figures on one whole cluster written by bench/scale/gen_scale.py (issue 23, point 4),
// run by bench/run --scale, which puts them beside upstream's and prints the ratios.
//
//   scale_bench --scenario=FILE [--repetitions=K] [--explain-sample=N] [--explain-seconds=S] [--changes=M]
//
// Prints one JSON object on stdout. Every timed step gives wall and thread-CPU seconds, the best of
// K repetitions (the machine is shared: a descheduled run says nothing about the code):
//   rapidjson          RapidJSON's DOM parse of the file (kParseFullPrecisionFlag, as bench/run)
//   decode             api::DecodeStream: the same bytes to typed objects
//   load               store::Cluster::Apply of every decoded object, then snapshot()
//   change_snapshot    one claim modified (Apply) and the next snapshot() taken, per change (M)
//   graph              graph::BuildGraph over the snapshot
//   placement_fresh    one new pod (claim placement/train) on every Node: a new alloc::Allocator
//                      (what the next scheduling cycle, on a new snapshot, pays) + Allocate per node
//   placement_warm     the same with the Allocator kept (selector results cached: same snapshot)
//   explain            analysis::DiagnosePendingClaim on every k-th pending claim (N of them, 0: none; or
//                      fewer: the sample stops once it used S seconds of CPU), extrapolated to all
//                      pending claims (explain_total_s, CPU seconds)
// and memory: live heap bytes the store keeps for the whole cluster, and for the ResourceSlices
// and DeviceClasses alone per device (bench/live_heap.cc counts operator new).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/explain_context.h"
#include "analysis/claim_state.h"
#include "analysis/diagnostics.h"
#include "api/codec.h"
#include "graph/graph.h"
#include "live_heap.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "store/cluster.h"

namespace draforge::bench {
namespace {

struct Options {
  std::string scenario;
  int repetitions = 3;
  int placement_repetitions = -1;  // the placement steps' own (default: repetitions), for profiling them
  int explain_sample = 400;
  int changes = 200;
  int explain_seconds = 60;  // CPU budget of the explain sample: stop after the claim that crosses it
};

struct Timing {
  double wall = 0;
  double cpu = 0;
};

double Now(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs `body` once and returns its wall and thread-CPU seconds.
Timing Time(const std::function<void()>& body) {
  const double w0 = Now(CLOCK_MONOTONIC), c0 = Now(CLOCK_THREAD_CPUTIME_ID);
  body();
  return {Now(CLOCK_MONOTONIC) - w0, Now(CLOCK_THREAD_CPUTIME_ID) - c0};
}

// The best wall and the best CPU time of `reps` runs (each independently).
Timing Best(int reps, const std::function<void()>& body) {
  Timing best{1e300, 1e300};
  for (int i = 0; i < reps; ++i) {
    const Timing t = Time(body);
    best.wall = std::min(best.wall, t.wall);
    best.cpu = std::min(best.cpu, t.cpu);
  }
  return best;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "scale_bench: %s\n", message.c_str());
  std::exit(1);
}

std::vector<api::DecodedObject> Decode(const std::string& text) {
  api::DecodeOptions options;
  options.max_bytes = text.size() + 1;
  auto decoded = api::DecodeStream(text, options);
  if (!decoded.ok()) Fail(std::string(decoded.status().message()));
  return *std::move(decoded);
}

// Applies every decoded object (those `keep` accepts) to `cluster`; the objects are moved out.
void Load(std::vector<api::DecodedObject>& decoded, store::Cluster& cluster,
          const std::function<bool(const api::Object&)>& keep = nullptr) {
  for (auto& d : decoded) {
    if (!d.object.ok()) Fail(std::string(d.object.status().message()));
    if (keep && !keep(*d.object)) continue;
    if (absl::Status s = cluster.Apply(*std::move(d.object)); !s.ok()) Fail(std::string(s.message()));
  }
}

class Json {
 public:
  Json() : w_(buf_) { w_.StartObject(); }
  Json& Num(const char* key, double v) {
    w_.Key(key);
    w_.Double(v);
    return *this;
  }
  Json& Int(const char* key, int64_t v) {
    w_.Key(key);
    w_.Int64(v);
    return *this;
  }
  Json& Time(const char* key, const Timing& t) {
    w_.Key(key);
    w_.StartObject();
    w_.Key("wall_s");
    w_.Double(t.wall);
    w_.Key("cpu_s");
    w_.Double(t.cpu);
    w_.EndObject();
    return *this;
  }
  Json& Strings(const char* key, const std::vector<std::string>& v) {
    w_.Key(key);
    w_.StartArray();
    for (const auto& s : v) w_.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    w_.EndArray();
    return *this;
  }
  std::string Done() {
    w_.EndObject();
    return buf_.GetString();
  }

 private:
  rapidjson::StringBuffer buf_;
  rapidjson::Writer<rapidjson::StringBuffer> w_;
};

int Run(const Options& opt) {
  const std::string text = ReadFile(opt.scenario);
  if (text.empty()) Fail(opt.scenario + ": empty or missing");
  Json out;
  out.Int("bytes", static_cast<int64_t>(text.size()));

  // Parse and decode: the same bytes, best of K each.
  out.Time("rapidjson", Best(opt.repetitions, [&] {
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseFullPrecisionFlag>(text.data(), text.size());
    if (doc.HasParseError()) Fail("RapidJSON cannot parse the scenario");
  }));
  out.Time("decode", Best(opt.repetitions, [&] { Decode(text); }));

  // Store load (timed apart from decoding) and what the store keeps.
  Timing load{1e300, 1e300};
  std::unique_ptr<store::Cluster> loaded;
  int64_t store_bytes = 0;
  for (int i = 0; i < opt.repetitions; ++i) {
    auto fresh = std::make_unique<store::Cluster>();
    const int64_t before = LiveHeapBytes();
    std::vector<api::DecodedObject> decoded = Decode(text);
    const Timing t = Time([&] {
      Load(decoded, *fresh);
      fresh->snapshot();
    });
    decoded.clear();
    decoded.shrink_to_fit();
    store_bytes = LiveHeapBytes() - before;
    load.wall = std::min(load.wall, t.wall);
    load.cpu = std::min(load.cpu, t.cpu);
    loaded = std::move(fresh);
  }
  store::Cluster& cluster = *loaded;
  out.Time("load", load).Int("store_bytes", store_bytes);
  std::shared_ptr<const store::Snapshot> snap = cluster.snapshot();

  int64_t devices = 0;
  for (const api::ResourceSlice* s : snap->ResourceSlices()) {
    if (s->spec) devices += static_cast<int64_t>(s->spec->devices.size());
  }
  out.Int("nodes", static_cast<int64_t>(snap->Count(api::Kind::kNode)))
      .Int("devices", devices)
      .Int("slices", static_cast<int64_t>(snap->Count(api::Kind::kResourceSlice)))
      .Int("claims", static_cast<int64_t>(snap->Count(api::Kind::kResourceClaim)))
      .Int("pods", static_cast<int64_t>(snap->Count(api::Kind::kPod)));
  {
    // The devices alone: a store with only the ResourceSlices and DeviceClasses.
    const int64_t before = LiveHeapBytes();
    store::Cluster slices;
    std::vector<api::DecodedObject> decoded = Decode(text);
    Load(decoded, slices, [](const api::Object& o) {
      return o.kind() == api::Kind::kResourceSlice || o.kind() == api::Kind::kDeviceClass;
    });
    slices.snapshot();
    decoded.clear();
    decoded.shrink_to_fit();
    out.Int("slice_store_bytes", LiveHeapBytes() - before);
  }

  // One change, then the snapshot the readers get: a claim modified (its resourceVersion moves on).
  const api::ResourceClaim* train = snap->GetResourceClaim("placement", "train");
  if (train == nullptr) Fail("the scenario has no claim placement/train (write it with bench/scale/gen_scale.py)");
  {
    const api::ResourceClaim original = *train;
    const Timing t = Time([&] {
      for (int i = 0; i < opt.changes; ++i) {
        api::Object changed{"resource.k8s.io/v1", original};
        changed.metadata().resource_version = std::to_string(1000000 + i);
        if (absl::Status s = cluster.Apply(std::move(changed)); !s.ok()) Fail(std::string(s.message()));
        cluster.snapshot();
      }
    });
    out.Time("change_snapshot", {t.wall / opt.changes, t.cpu / opt.changes});
    snap = cluster.snapshot();
    train = snap->GetResourceClaim("placement", "train");
  }

  // The relationship graph.
  size_t graph_nodes = 0, graph_edges = 0;
  out.Time("graph", Best(opt.repetitions, [&] {
    graph::Graph g = graph::BuildGraph(*snap);
    graph_nodes = g.nodes().size();
    graph_edges = g.edges().size();
  }));
  out.Int("graph_nodes", static_cast<int64_t>(graph_nodes)).Int("graph_edges", static_cast<int64_t>(graph_edges));

  // Placement of one new pod across all nodes.
  std::vector<alloc::NodeInfo> nodes;
  for (const api::Node* n : snap->Nodes()) nodes.push_back(alloc::NodeInfo::FromNode(*n));
  std::sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  const std::vector<const api::ResourceClaim*> claims = {train};
  const alloc::AllocatedState state = alloc::AllocatedStateFromSnapshot(*snap, claims);
  alloc::AllocateOptions aopts;
  aopts.allocated_state = &state;
  std::vector<std::string> fits;
  int64_t steps = 0;
  auto place = [&](const alloc::Allocator& allocator, bool record) {
    for (const alloc::NodeInfo& node : nodes) {
      alloc::AllocateResult r = allocator.Allocate(claims, node);
      if (r.outcome == alloc::Outcome::kError) Fail("placement: " + std::string(r.error.message()));
      if (record) {
        steps += r.search_steps;
        if (r.outcome == alloc::Outcome::kAllocated) fits.push_back(node.name);
      }
    }
  };
  out.Time("placement_fresh", Best(opt.placement_repetitions, [&] {
    alloc::Allocator allocator(snap, aopts);
    place(allocator, false);
  }));
  {
    alloc::Allocator allocator(snap, aopts);
    place(allocator, true);
    out.Time("placement_warm", Best(opt.placement_repetitions, [&] { place(allocator, false); }));
  }
  out.Int("placement_steps", steps).Int("placement_fits", static_cast<int64_t>(fits.size())).Strings("fits_on", fits);

  // Explain every pending claim: a sample of them, timed one by one.
  std::vector<const api::ResourceClaim*> pending;
  for (const api::ResourceClaim* c : snap->ResourceClaims()) {
    if (analysis::StateOf(*c) == analysis::ClaimState::kPending) pending.push_back(c);
  }
  const size_t stride = std::max<size_t>(1, pending.size() / std::max(1, opt.explain_sample));
  std::map<std::string, int64_t> outcomes;
  int64_t explained = 0;
  // What analysis::DiagnosePendingClaims shares between the claims, built once.
  std::optional<alloc::ExplainContext> context;
  const Timing ctx = Time([&] { context.emplace(*snap, alloc::Features{}); });
  const double cpu_start = Now(CLOCK_THREAD_CPUTIME_ID);
  const Timing ex = Time([&] {
    for (size_t i = 0; i < pending.size() && explained < opt.explain_sample; i += stride) {
      analysis::PendingClaimDiagnosis d = analysis::DiagnosePendingClaim(*snap, *pending[i], {}, &*context);
      ++outcomes[std::string(analysis::PendingOutcomeName(d.outcome))];
      ++explained;
      if (Now(CLOCK_THREAD_CPUTIME_ID) - cpu_start > opt.explain_seconds) break;
    }
  });
  out.Int("pending_claims", static_cast<int64_t>(pending.size()))
      .Int("explained", explained)
      .Time("explain_context", ctx)
      .Time("explain_sample", ex)
      .Num("explain_total_s",
           explained == 0 ? 0.0 : ctx.cpu + ex.cpu / explained * static_cast<double>(pending.size()));
  for (const auto& [name, n] : outcomes) out.Int(("explain_" + name).c_str(), n);

  std::printf("%s\n", out.Done().c_str());
  return 0;
}

bool IntFlag(const std::string& a, const char* prefix, int* v) {
  const std::string p = prefix;
  if (a.rfind(p, 0) != 0) return false;
  *v = std::max(0, std::atoi(a.c_str() + p.size()));
  return true;
}

}  // namespace
}  // namespace draforge::bench

int main(int argc, char** argv) {
  using namespace draforge::bench;
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--scenario=", 0) == 0) {
      opt.scenario = a.substr(11);
    } else if (!IntFlag(a, "--repetitions=", &opt.repetitions) && !IntFlag(a, "--explain-sample=", &opt.explain_sample) &&
               !IntFlag(a, "--changes=", &opt.changes) &&
               !IntFlag(a, "--placement-repetitions=", &opt.placement_repetitions) &&
               !IntFlag(a, "--explain-seconds=", &opt.explain_seconds)) {
      std::fprintf(stderr, "scale_bench: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  opt.repetitions = std::max(1, opt.repetitions);
  opt.changes = std::max(1, opt.changes);
  opt.placement_repetitions = opt.placement_repetitions < 1 ? opt.repetitions : opt.placement_repetitions;
  if (opt.scenario.empty()) {
    std::fprintf(stderr,
                 "usage: scale_bench --scenario=FILE [--repetitions=K] [--explain-sample=N] [--explain-seconds=S]\n"
                 "                   [--changes=M] [--placement-repetitions=K]\n"
                 "  FILE from bench/scale/gen_scale.py\n");
    return 2;
  }
  return Run(opt);
}
