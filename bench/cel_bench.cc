// DRA CEL selector throughput: a typical DeviceClass selector and a complex one (semver, quantity
// and string functions) over 100k devices, in devices per second. bench/run_cel runs this and
// upstream's evaluator (tests/oracle dra-cel --bench) on the same devices and prints the ratio.
//
//   cel_bench [benchmark flags]                 run the benchmarks
//   cel_bench --write-dra-cel-input=FILE        write the same selectors and devices as dra-cel's
//                                               JSON-lines input (one line per selector and device)
//   cel_bench --list-selectors                  print "name<TAB>expression" lines
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "benchmark/benchmark.h"
#include "cel/selector.h"

namespace draforge::bench {
namespace {

constexpr int kDevices = 100000;
constexpr int kPerSlice = 128;
constexpr char kDriver[] = "gpu.example.com";

struct Selector {
  const char* name;
  const char* expression;
};

// A typical DeviceClass selector (driver plus one attribute, as GPU drivers ship them) and a complex
// request selector: semantic versions, a quantity comparison and string functions.
constexpr Selector kSelectors[] = {
    {"typical", R"(device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].type == "gpu")"},
    {"complex",
     R"(device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("535.0.0")) && )"
     R"(device.attributes["gpu.example.com"].cudaComputeCapability.compareTo(semver("8.0.0")) >= 0 && )"
     R"(device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0 && )"
     R"(device.attributes["gpu.example.com"].productName.lowerAscii().contains("h100") && )"
     R"(device.attributes["gpu.example.com"].uuid.startsWith("GPU-") && )"
     R"(device.attributes["gpu.example.com"].architecture.matches("^(Hopper|Ampere)$"))"},
};

// The attributes and capacity of device `d` as JSON members (the v1 Device shape): a GPU driver's
// ten attributes and two capacities, with models, memory sizes and driver versions varying
// deterministically so that the selectors match some devices and not others.
std::string DeviceFieldsJson(int d) {
  static constexpr const char* kProducts[] = {"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", "NVIDIA L4",
                                              "NVIDIA H100 PCIe"};
  static constexpr const char* kArch[] = {"Hopper", "Ampere", "Ada Lovelace", "Hopper"};
  static constexpr const char* kCompute[] = {"9.0.0", "8.0.0", "8.9.0", "9.0.0"};
  static constexpr const char* kMemory[] = {"80Gi", "40Gi", "24Gi", "80Gi"};
  static constexpr const char* kDriverVersions[] = {"550.54.15", "535.161.8", "525.85.12", "560.28.3"};
  static constexpr const char* kTypes[] = {"gpu", "gpu", "gpu", "gpu", "gpu", "gpu", "gpu", "mig"};
  const int model = (d / 8) % 4;
  return absl::StrCat(
      R"("attributes":{"architecture":{"string":")", kArch[model], R"("},"brand":{"string":"Nvidia"},)",
      R"("cudaComputeCapability":{"version":")", kCompute[model], R"("},"cudaDriverVersion":{"version":"12.4.0"},)",
      R"("driverVersion":{"version":")", kDriverVersions[(d / 1000) % 4], R"("},"index":{"int":)", d % 8,
      R"(},"minor":{"int":)", d % 8, R"(},"productName":{"string":")", kProducts[model], R"("},)",
      R"("type":{"string":")", kTypes[d % 8], R"("},"uuid":{"string":"GPU-)", 10000000 + d,
      R"(-4f6b-a8c2-7e0d5f3b9a1c"}},"capacity":{"memory":{"value":")", kMemory[model],
      R"("},"cores":{"value":"132"}})");
}

// The devices as a List of ResourceSlices (128 devices per slice), the way they reach the allocator.
std::string SliceListJson() {
  std::string out = R"({"apiVersion":"v1","kind":"List","items":[)";
  for (int start = 0, slice = 0; start < kDevices; start += kPerSlice, ++slice) {
    if (slice > 0) out += ",";
    absl::StrAppend(&out, R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"node-)",
                    slice, R"(-gpu"},"spec":{"driver":")", kDriver, R"(","nodeName":"node-)", slice,
                    R"(","pool":{"name":"node-)", slice, R"(","generation":1,"resourceSliceCount":1},"devices":[)");
    for (int d = start; d < kDevices && d < start + kPerSlice; ++d) {
      if (d > start) out += ",";
      absl::StrAppend(&out, R"({"name":"gpu-)", d - start, R"(",)", DeviceFieldsJson(d), "}");
    }
    out += "]}}";
  }
  out += "]}";
  return out;
}

// The decoded slices (kept alive: the device inputs point into them).
struct Devices {
  std::vector<api::DecodedObject> objects;
  std::vector<cel::DeviceInput> inputs;
};

const Devices& LoadDevices() {
  static const Devices* devices = [] {
    auto* out = new Devices();
    const std::string text = SliceListJson();
    api::DecodeOptions options;
    options.max_bytes = text.size();
    auto decoded = api::DecodeStream(text, options);
    if (!decoded.ok()) {
      std::fprintf(stderr, "decode: %s\n", std::string(decoded.status().message()).c_str());
      std::abort();
    }
    out->objects = *std::move(decoded);
    for (const auto& obj : out->objects) {
      const auto& slice = std::get<api::ResourceSlice>(obj.object->value);
      for (const auto& dev : slice.spec->devices) {
        cel::DeviceInput in;
        in.driver = *slice.spec->driver;
        in.attributes = &dev.attributes;
        in.capacity = &dev.capacity;
        in.allow_multiple_allocations = dev.allow_multiple_allocations.value_or(false);
        out->inputs.push_back(in);
      }
    }
    return out;
  }();
  return *devices;
}

void BM_Selector(benchmark::State& state, const Selector& sel) {
  const Devices& devices = LoadDevices();
  // As the scheduler compiles: no cost estimate check, 1.37's stored-expression environment.
  cel::CompileOptions options;
  auto selector = cel::DeviceSelector::Compile(sel.expression, options);
  if (!selector.ok()) {
    state.SkipWithError(std::string(selector.status().message()).c_str());
    return;
  }
  size_t matches = 0, errors = 0;
  for (auto _ : state) {
    matches = errors = 0;
    for (const cel::DeviceInput& in : devices.inputs) {
      cel::SelectorResult r = (*selector)->Evaluate(in);
      if (!r.error.ok()) ++errors;
      else if (r.matches) ++matches;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * devices.inputs.size()));
  state.counters["devices"] = static_cast<double>(devices.inputs.size());
  state.counters["matches"] = static_cast<double>(matches);
  state.counters["errors"] = static_cast<double>(errors);
}

int WriteDraCelInput(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return 2;
  }
  for (const Selector& sel : kSelectors) {
    rapidjson::Value expr(rapidjson::StringRef(sel.expression));
    const std::string quoted = api::WriteJson(expr, false);
    for (int d = 0; d < kDevices; ++d) {
      out << R"({"expression":)" << quoted << R"(,"device":{"driver":")" << kDriver << R"(",)" << DeviceFieldsJson(d)
          << "}}\n";
    }
  }
  return out.good() ? 0 : 2;
}

}  // namespace
}  // namespace draforge::bench

int main(int argc, char** argv) {
  using namespace draforge::bench;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg(argv[i]);
    if (arg.rfind("--write-dra-cel-input=", 0) == 0) {
      return WriteDraCelInput(std::string(arg.substr(std::strlen("--write-dra-cel-input="))));
    }
    if (arg == "--list-selectors") {
      for (const Selector& sel : kSelectors) std::cout << sel.name << "\t" << sel.expression << "\n";
      return 0;
    }
  }
  for (const Selector& sel : kSelectors) {
    benchmark::RegisterBenchmark(absl::StrCat("BM_Selector/", sel.name).c_str(), BM_Selector, sel)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();  // wall clock, as dra-cel --bench measures cel-go
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
