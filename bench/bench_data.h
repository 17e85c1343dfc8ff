// Synthetic, deterministic inputs for the benchmarks: ResourceSlice lists shaped like a real GPU
// driver's (ten attributes and two capacities per device, 128 devices per slice).
#ifndef DRAFORGE_BENCH_BENCH_DATA_H_
#define DRAFORGE_BENCH_BENCH_DATA_H_

#include <string>

#include "absl/strings/str_cat.h"

namespace draforge::bench {

// A `List` of ResourceSlices in JSON with `devices` devices in total.
inline std::string GpuSliceListJson(int devices) {
  constexpr int kPerSlice = 128;
  std::string out = R"({"apiVersion":"v1","kind":"List","items":[)";
  int slice = 0;
  for (int start = 0; start < devices; start += kPerSlice, ++slice) {
    if (slice > 0) out += ",";
    const std::string node = absl::StrCat("node-", slice);
    absl::StrAppend(&out, R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":")", node,
                    R"(-gpu.example.com","uid":"5c1e0c53-1b7e-4b8a-9b0e-)", 100000000000 + slice,
                    R"("},"spec":{"driver":"gpu.example.com","nodeName":")", node, R"(","pool":{"name":")", node,
                    R"(","generation":1,"resourceSliceCount":1},"devices":[)");
    for (int d = start; d < devices && d < start + kPerSlice; ++d) {
      if (d > start) out += ",";
      absl::StrAppend(
          &out, R"({"name":"gpu-)", d - start, R"(","attributes":{)",
          R"("architecture":{"string":"Hopper"},"brand":{"string":"Nvidia"},"cudaComputeCapability":{"version":"9.0.0"},)",
          R"("cudaDriverVersion":{"version":"12.4.0"},"driverVersion":{"version":"550.54.15"},"index":{"int":)", d % 8,
          R"(},"minor":{"int":)", d % 8, R"(},"productName":{"string":"NVIDIA H100 80GB HBM3"},)",
          R"("type":{"string":"gpu"},"uuid":{"string":"GPU-)", 10000000 + d,
          R"(-4f6b-a8c2-7e0d5f3b9a1c"}},"capacity":{"memory":{"value":"80Gi"},"cores":{"value":"132"}}})");
    }
    out += "]}}";
  }
  out += "]}";
  return out;
}

}  // namespace draforge::bench

#endif  // DRAFORGE_BENCH_BENCH_DATA_H_
