#include "sim/profiles.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "api/quantity.h"
#include "common/status.h"

namespace draforge::sim {
namespace {

using api::Quantity;

// ---------------------------------------------------------------------------------------------
// Value helpers.

api::DeviceAttribute Str(std::string_view s) { return api::DeviceAttribute::String(std::string(s)); }
api::DeviceAttribute Int(int64_t i) { return api::DeviceAttribute::Int(i); }
api::DeviceAttribute Bool(bool b) { return api::DeviceAttribute::Bool(b); }
api::DeviceAttribute Ver(std::string_view v) { return api::DeviceAttribute::Version(std::string(v)); }
api::DeviceCapacity Cap(Quantity q) {
  api::DeviceCapacity c;
  c.value = std::move(q);
  return c;
}
Quantity Bin(int64_t v) { return Quantity::FromInt64(v, Quantity::Format::kBinarySI); }
Quantity Dec(int64_t v) { return Quantity::FromInt64(v, Quantity::Format::kDecimalSI); }
constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kMi = int64_t{1} << 20;

// A deterministic UUID text for device `index` of `pool` (128-bit FNV-1a of the inputs). The real
// drivers read UUIDs from hardware or seed Go's math/rand with the node name; a simulator only needs
// them stable (same input, same output) and distinct.
std::string StableUuid(std::string_view prefix, std::string_view driver, std::string_view pool, std::string_view kind,
                       int64_t index) {
  // FNV-1a 128: offset basis and prime from the FNV specification.
  absl::uint128 h = absl::MakeUint128(0x6c62272e07bb0142ULL, 0x62b821756295c58dULL);
  const absl::uint128 prime = absl::MakeUint128(0x0000000001000000ULL, 0x000000000000013BULL);
  auto mix = [&](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= prime;
    }
    h ^= 0xff;  // separator, so ("ab","c") and ("a","bc") differ
    h *= prime;
  };
  mix(driver);
  mix(pool);
  mix(kind);
  mix(absl::StrCat(index));
  // FNV's last bytes barely reach the high bits; a SplitMix64 finalizer on each half spreads them,
  // so that neighbouring devices get visibly different UUIDs.
  auto finalize = [](uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  const uint64_t lo = finalize(absl::Uint128Low64(h));
  const uint64_t hi = finalize(absl::Uint128High64(h) ^ lo);
  return absl::StrFormat("%s%08x-%04x-%04x-%04x-%012x", std::string(prefix), static_cast<uint32_t>(hi >> 32),
                         static_cast<uint32_t>((hi >> 16) & 0xffff), static_cast<uint32_t>(hi & 0xffff),
                         static_cast<uint32_t>(lo >> 48), lo & 0xffffffffffffULL);
}

std::string Who(const SimulatedDevicePool& pool) {
  return absl::StrCat(kKind, " \"", pool.metadata.name.value_or(""), "\"");
}

absl::Status OptionError(const SimulatedDevicePool& pool, std::string_view key, std::string_view value,
                         std::string_view want) {
  return absl::InvalidArgumentError(absl::StrCat(Who(pool), ": spec.options[", AV(key), "]: Invalid value: \"",
                                                 AV(value), "\": ", AV(want)));
}

absl::StatusOr<int64_t> IntOption(const SimulatedDevicePool& pool, std::string_view key, int64_t fallback, int64_t min,
                                  int64_t max) {
  const std::string* v = pool.spec.options.Find(key);
  if (v == nullptr) return fallback;
  int64_t out = 0;
  if (!absl::SimpleAtoi(*v, &out) || out < min || out > max) {
    return OptionError(pool, key, *v, absl::StrCat("must be an integer from ", min, " to ", max));
  }
  return out;
}

absl::StatusOr<bool> BoolOption(const SimulatedDevicePool& pool, std::string_view key, bool fallback) {
  const std::string* v = pool.spec.options.Find(key);
  if (v == nullptr) return fallback;
  if (*v == "true") return true;
  if (*v == "false") return false;
  return OptionError(pool, key, *v, "must be \"true\" or \"false\"");
}

std::string StrOption(const SimulatedDevicePool& pool, std::string_view key, std::string_view fallback) {
  const std::string* v = pool.spec.options.Find(key);
  return v == nullptr ? std::string(fallback) : *v;
}

// The error for a pool that the real driver's layout cannot publish.
absl::Status TooManyDevices(const SimulatedDevicePool& pool, int64_t n, std::string_view rule) {
  return absl::InvalidArgumentError(absl::StrCat(Who(pool), ": spec.devicesPerNode: Invalid value: ", n, ": ",
                                                 AV(rule)));
}

// ---------------------------------------------------------------------------------------------
// dra-example-driver (internal/profiles/gpu/gpu.go and net/net.go at 31914ce).

api::DeviceCapacity ExampleCapacity(Quantity value, bool multi, Quantity min_step) {
  api::DeviceCapacity c = Cap(value);
  if (multi) {
    // The driver lets a share ask for any multiple of 1Gi / 1 up to the whole device.
    api::CapacityRequestPolicy policy;
    policy.default_ = value;
    api::CapacityRequestPolicyRange range;
    range.min = min_step;
    range.step = min_step;
    range.max = value;
    policy.valid_range = range;
    c.request_policy = policy;
  }
  return c;
}

absl::StatusOr<PoolContent> ExampleGpu(const SimulatedDevicePool& pool, std::string_view driver,
                                       std::string_view pool_name, int64_t gpus, int64_t default_partitions,
                                       bool default_multi) {
  ASSIGN_OR_RETURN(const int64_t partitions, IntOption(pool, "partitions", default_partitions, 0, 63));
  ASSIGN_OR_RETURN(const bool multi, BoolOption(pool, "allowMultipleAllocations", default_multi));
  PoolContent out;
  out.single_slice = true;
  if (partitions == 0 && gpus > api::kResourceSliceMaxDevices) {
    return TooManyDevices(pool, gpus,
                          "dra-example-driver publishes all GPUs of a node in one ResourceSlice, and a ResourceSlice "
                          "holds at most 128 devices");
  }
  if (partitions > 0) {
    // One counter-set slice and one device slice per node: at most 8 counter sets per slice, and at
    // most 64 devices (GPUs x (partitions + 1)) in a slice whose devices consume counters.
    const int64_t per_gpu = partitions + 1;
    if (gpus > api::kResourceSliceMaxSharedCounters ||
        gpus * per_gpu > api::kResourceSliceMaxDevicesWithTaintsOrConsumesCounters) {
      return TooManyDevices(
          pool, gpus,
          absl::StrCat("with ", partitions, " partitions per GPU dra-example-driver publishes ", per_gpu,
                       " devices per GPU in one ResourceSlice (at most 64 devices when they consume counters) and "
                       "one counter set per GPU in one ResourceSlice (at most 8); this allows at most ",
                       std::min<int64_t>(api::kResourceSliceMaxSharedCounters,
                                         api::kResourceSliceMaxDevicesWithTaintsOrConsumesCounters / per_gpu),
                       " GPUs per node"));
    }
  }
  const int64_t memory = 80 * kGi;
  const int64_t compute = 100;
  out.device_groups.emplace_back();
  std::vector<api::Device>& devices = out.device_groups.back();
  for (int64_t i = 0; i < gpus; ++i) {
    api::Map<api::DeviceAttribute> attrs;
    attrs.Set("driverVersion", Ver("1.0.0"));
    attrs.Set("index", Int(i));
    attrs.Set("model", Str("LATEST-GPU-MODEL"));
    attrs.Set("uuid", Str(StableUuid("gpu-", driver, pool_name, "gpu", i)));
    if (partitions == 0) {
      api::Device d;
      d.name = absl::StrCat("gpu-", i);
      d.attributes = attrs;
      d.capacity.Set("compute", ExampleCapacity(Dec(compute), multi, Dec(1)));
      d.capacity.Set("memory", ExampleCapacity(Bin(memory), multi, Bin(kGi)));
      d.allow_multiple_allocations = multi;
      devices.push_back(std::move(d));
      continue;
    }
    const std::string set = absl::StrCat("gpu-", i, "-counters");
    api::CounterSet cs;
    cs.name = set;
    cs.counters.Set("compute", api::Counter{Dec(compute)});
    cs.counters.Set("memory", api::Counter{Bin(memory)});
    out.shared_counters.push_back(cs);
    const int64_t part_memory = memory / partitions;
    const int64_t part_compute = compute / partitions;
    auto partition_device = [&](std::string name, api::Map<api::DeviceAttribute> a, int64_t mem, int64_t cmp) {
      api::Device d;
      d.name = std::move(name);
      d.attributes = std::move(a);
      d.capacity.Set("compute", ExampleCapacity(Dec(cmp), multi, Dec(1)));
      d.capacity.Set("memory", ExampleCapacity(Bin(mem), multi, Bin(kGi)));
      api::DeviceCounterConsumption c;
      c.counter_set = set;
      c.counters.Set("compute", api::Counter{Dec(cmp)});
      c.counters.Set("memory", api::Counter{Bin(mem)});
      d.consumes_counters.push_back(std::move(c));
      d.allow_multiple_allocations = multi;
      return d;
    };
    for (int64_t j = 0; j < partitions; ++j) {
      api::Map<api::DeviceAttribute> a = attrs;
      a.Set("partition", Int(j));
      a.Set("partitionable", Bool(true));
      devices.push_back(partition_device(absl::StrCat("gpu-", i, "-partition-", j), a, part_memory, part_compute));
    }
    api::Map<api::DeviceAttribute> a = attrs;
    a.Set("full", Bool(true));
    a.Set("partitionable", Bool(true));
    devices.push_back(partition_device(absl::StrCat("gpu-", i, "-full"), a, memory, compute));
  }
  return out;
}

absl::StatusOr<PoolContent> ExampleNet(const SimulatedDevicePool& pool, std::string_view driver,
                                       std::string_view pool_name, int64_t nics) {
  if (nics > api::kResourceSliceMaxDevices) {
    return TooManyDevices(pool, nics,
                          "dra-example-driver publishes all NICs of a node in one ResourceSlice, and a ResourceSlice "
                          "holds at most 128 devices");
  }
  PoolContent out;
  out.single_slice = true;
  out.device_groups.emplace_back();
  // 100G per direction, shared in steps of 1M from 100M, 1G by default (net.go).
  api::DeviceCapacity bandwidth = Cap(Dec(100'000'000'000));
  api::CapacityRequestPolicy bw_policy;
  bw_policy.default_ = Dec(1'000'000'000);
  api::CapacityRequestPolicyRange range;
  range.min = Dec(100'000'000);
  range.max = Dec(100'000'000'000);
  range.step = Dec(1'000'000);
  bw_policy.valid_range = range;
  bandwidth.request_policy = bw_policy;
  api::DeviceCapacity vfs = Cap(Dec(100));
  api::CapacityRequestPolicy vf_policy;
  vf_policy.default_ = Dec(1);
  vf_policy.valid_values.push_back(Dec(1));
  vfs.request_policy = vf_policy;
  for (int64_t i = 0; i < nics; ++i) {
    api::Device d;
    d.name = absl::StrCat("nic-", i);
    d.allow_multiple_allocations = true;
    d.attributes.Set("driverVersion", Ver("1.0.0"));
    d.attributes.Set("index", Int(i));
    d.attributes.Set("model", Str("LATEST-NET-MODEL"));
    d.attributes.Set("uuid", Str(StableUuid("net-", driver, pool_name, "nic", i)));
    d.capacity.Set("egressBandwidth", bandwidth);
    d.capacity.Set("ingressBandwidth", bandwidth);
    d.capacity.Set("vfs", vfs);
    out.device_groups.back().push_back(std::move(d));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// dra-driver-nvidia-gpu (cmd/gpu-kubelet-plugin at 9593204).

struct GpuModel {
  std::string_view name;  // spec.options[model]
  std::string_view product_name;
  std::string_view architecture;
  std::string_view cuda_compute_capability;
  int64_t memory_mib;
};

// Values as NVML reports them for these boards.
constexpr std::array<GpuModel, 3> kGpuModels = {{
    {"A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0", 40960},
    {"A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB", "Ampere", "8.0.0", 81920},
    {"H100-80GB-HBM3", "NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", 81559},
}};

// One MIG GPU-instance profile of the A100-SXM4-40GB (NVIDIA's MIG user guide, "A100 MIG profiles").
struct MigProfile {
  std::string_view name;
  int profile_id;
  int multiprocessors, copy_engines, decoders, encoders, jpeg_engines, ofa_engines;
  int64_t memory_mib;
  int size;  // memory slices
  std::array<int, 7> starts;
  int num_starts;
};
constexpr int kA100MemorySlices = 8;
constexpr std::array<MigProfile, 6> kA100MigProfiles = {{
    {"1g.5gb", 19, 14, 1, 0, 0, 0, 0, 4864, 1, {0, 1, 2, 3, 4, 5, 6}, 7},
    {"1g.10gb", 15, 14, 1, 1, 0, 1, 0, 9856, 2, {0, 2, 4, 6}, 4},
    {"2g.10gb", 14, 28, 2, 1, 0, 0, 0, 9856, 2, {0, 2, 4}, 3},
    {"3g.20gb", 9, 42, 3, 2, 0, 0, 0, 19968, 4, {0, 4}, 2},
    {"4g.20gb", 5, 56, 4, 2, 0, 0, 0, 19968, 4, {0}, 1},
    {"7g.40gb", 0, 98, 7, 5, 0, 1, 1, 40192, 8, {0}, 1},
}};

const GpuModel* FindGpuModel(std::string_view name) {
  for (const GpuModel& m : kGpuModels) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// The attributes every device of one physical GPU shares (deviceinfo.go Attributes,
// mig.go CommonAttributesMig).
api::Map<api::DeviceAttribute> NvidiaCommonAttributes(const GpuModel& model, int64_t minor, int64_t gpus) {
  api::Map<api::DeviceAttribute> a;
  a.Set("architecture", Str(model.architecture));
  a.Set("brand", Str("Nvidia"));
  a.Set("cudaComputeCapability", Ver(model.cuda_compute_capability));
  a.Set("cudaDriverVersion", Ver("12.8.0"));
  a.Set("driverVersion", Ver("570.124.6"));
  a.Set("productName", Str(model.product_name));
  // Standard attributes from k8s.io/dynamic-resource-allocation/deviceattribute; half the GPUs on
  // each of two PCIe roots and NUMA nodes, as on a two-socket HGX board.
  const int64_t half = std::max<int64_t>(1, (gpus + 1) / 2);
  const int64_t root = minor / half;
  a.Set("resource.kubernetes.io/numaNode", Int(root));
  a.Set("resource.kubernetes.io/pciBusID", Str(absl::StrFormat("0000:%02x:00.0", 0x07 + 0x10 * minor)));
  a.Set("resource.kubernetes.io/pcieRoot", Str(absl::StrFormat("pci0000:%02x", 0x00 + 0x80 * root)));
  return a;
}

void AddMigCapacities(api::Map<api::DeviceCapacity>& cap, const MigProfile& p) {
  cap.Set("copyEngines", Cap(Bin(p.copy_engines)));
  cap.Set("decoders", Cap(Bin(p.decoders)));
  cap.Set("encoders", Cap(Bin(p.encoders)));
  cap.Set("jpegEngines", Cap(Bin(p.jpeg_engines)));
  cap.Set("memory", Cap(Bin(p.memory_mib * kMi)));
  cap.Set("multiprocessors", Cap(Bin(p.multiprocessors)));
  cap.Set("ofaEngines", Cap(Bin(p.ofa_engines)));
}

// Capacities as counters: the counter name is the capacity name in DNS form (camelToDNSName).
api::Map<api::Counter> MigCounters(const MigProfile& p, int start, int size) {
  api::Map<api::Counter> c;
  c.Set("copy-engines", api::Counter{Bin(p.copy_engines)});
  c.Set("decoders", api::Counter{Bin(p.decoders)});
  c.Set("encoders", api::Counter{Bin(p.encoders)});
  c.Set("jpeg-engines", api::Counter{Bin(p.jpeg_engines)});
  c.Set("memory", api::Counter{Bin(p.memory_mib * kMi)});
  c.Set("multiprocessors", api::Counter{Bin(p.multiprocessors)});
  c.Set("ofa-engines", api::Counter{Bin(p.ofa_engines)});
  for (int i = start; i < start + size; ++i) c.Set(absl::StrCat("memory-slice-", i), api::Counter{Bin(1)});
  return c;
}

// "1g.5gb" -> "1g5gb" (mig.go ToCanonicalName drops the dots).
std::string MigNamePart(std::string_view profile) {
  std::string s;
  for (char c : profile) {
    if (c != '.') s.push_back(c);
  }
  return s;
}

absl::StatusOr<PoolContent> NvidiaGpu(const SimulatedDevicePool& pool, std::string_view driver,
                                      std::string_view pool_name, int64_t gpus, bool mig) {
  const std::string model_name = StrOption(pool, "model", "A100-SXM4-40GB");
  const GpuModel* model = FindGpuModel(model_name);
  if (model == nullptr) {
    std::vector<std::string> names;
    for (const GpuModel& m : kGpuModels) names.emplace_back(m.name);
    return OptionError(pool, "model", model_name, absl::StrCat("supported models: ", absl::StrJoin(names, ", ")));
  }
  if (mig && model->name != "A100-SXM4-40GB") {
    return OptionError(pool, "model", model_name,
                       "profile nvidia-gpu-mig models the MIG geometry of A100-SXM4-40GB only");
  }
  PoolContent out;
  out.device_groups.emplace_back();
  std::vector<api::Device>& devices = out.device_groups.back();
  const MigProfile& whole = kA100MigProfiles.back();
  for (int64_t minor = 0; minor < gpus; ++minor) {
    const std::string uuid = StableUuid("GPU-", driver, pool_name, "gpu", minor);
    api::Map<api::DeviceAttribute> common = NvidiaCommonAttributes(*model, minor, gpus);
    api::Device full;
    full.name = absl::StrCat("gpu-", minor);
    full.attributes = common;
    full.attributes.Set("type", Str("gpu"));
    full.attributes.Set("uuid", Str(uuid));
    if (!mig) {
      full.capacity.Set("memory", Cap(Bin(model->memory_mib * kMi)));
      devices.push_back(std::move(full));
      continue;
    }
    // DynamicMIG (partitions.go): one counter set per GPU holding the largest capacities plus one
    // counter per memory slice; the full GPU consumes all of it, each MIG placement its share.
    const std::string set = absl::StrCat("gpu-", minor, "-counter-set");
    api::CounterSet cs;
    cs.name = set;
    cs.counters = MigCounters(whole, 0, kA100MemorySlices);
    out.shared_counters.push_back(cs);
    AddMigCapacities(full.capacity, whole);
    api::DeviceCounterConsumption all;
    all.counter_set = set;
    all.counters = cs.counters;
    full.consumes_counters.push_back(std::move(all));
    devices.push_back(std::move(full));
    for (const MigProfile& p : kA100MigProfiles) {
      for (int k = 0; k < p.num_starts; ++k) {
        const int start = p.starts[k];
        api::Device d;
        d.name = absl::StrCat("gpu-", minor, "-mig-", MigNamePart(p.name), "-", p.profile_id, "-", start);
        d.attributes = common;
        d.attributes.Set("parentUUID", Str(uuid));
        d.attributes.Set("profile", Str(p.name));
        d.attributes.Set("type", Str("mig"));
        AddMigCapacities(d.capacity, p);
        api::DeviceCounterConsumption c;
        c.counter_set = set;
        c.counters = MigCounters(p, start, p.size);
        d.consumes_counters.push_back(std::move(c));
        devices.push_back(std::move(d));
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// dra-driver-google-tpu: one device per chip, "accel<N>" with index, tpuGen and uuid; the accelerator
// and topology of the node (the GKE node labels the driver reads) as attributes.

absl::StatusOr<PoolContent> GoogleTpu(const SimulatedDevicePool& pool, std::string_view driver,
                                      std::string_view pool_name, int64_t chips) {
  if (chips > api::kResourceSliceMaxDevices) {
    return TooManyDevices(pool, chips,
                          "dra-driver-google-tpu publishes all TPU chips of a node in one ResourceSlice, and a "
                          "ResourceSlice holds at most 128 devices");
  }
  const std::string gen = StrOption(pool, "tpuGen", "v6e");
  const std::string accelerator = StrOption(pool, "accelerator", absl::StrCat("tpu-", gen, "-slice"));
  std::string topology = StrOption(pool, "topology", "");
  if (topology.empty()) {
    // singleHostTopology: 1 -> 1x1, 2 -> 1x2, 4 -> 2x2, 8 -> 2x4.
    topology = chips == 1 ? "1x1" : chips == 2 ? "1x2" : chips == 4 ? "2x2" : chips == 8 ? "2x4" : "";
  }
  PoolContent out;
  out.single_slice = true;
  out.device_groups.emplace_back();
  for (int64_t i = 0; i < chips; ++i) {
    api::Device d;
    d.name = absl::StrCat("accel", i);
    d.attributes.Set("accelerator", Str(accelerator));
    d.attributes.Set("index", Int(i));
    if (!topology.empty()) d.attributes.Set("topology", Str(topology));
    d.attributes.Set("tpuGen", Str(gen));
    d.attributes.Set("uuid", Str(StableUuid("tpu-", driver, pool_name, "tpu", i)));
    out.device_groups.back().push_back(std::move(d));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// dra-driver-cpu.

absl::StatusOr<PoolContent> CpuIndividual(const SimulatedDevicePool& pool, int64_t cpus) {
  ASSIGN_OR_RETURN(const int64_t numa_nodes, IntOption(pool, "numaNodes", 2, 1, 64));
  ASSIGN_OR_RETURN(const bool smt, BoolOption(pool, "smt", true));
  if (cpus % numa_nodes != 0 || (smt && (cpus / numa_nodes) % 2 != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        Who(pool), ": spec.devicesPerNode: Invalid value: ", cpus, ": profile cpu-individual needs the same number of CPUs on each of the ",
        numa_nodes, " NUMA nodes", smt ? " (an even number with SMT: two threads per core)" : ""));
  }
  const int64_t per_numa = cpus / numa_nodes;
  if (per_numa > api::kResourceSliceMaxDevices) {
    return TooManyDevices(
        pool, cpus,
        absl::StrCat("dra-driver-cpu publishes one device per CPU and one ResourceSlice per NUMA node; a "
                     "ResourceSlice holds at most 128 devices, so ",
                     numa_nodes, " NUMA nodes hold at most ", numa_nodes * api::kResourceSliceMaxDevices,
                     " CPUs (set spec.options.numaNodes to spread them)"));
  }
  const int64_t threads = smt ? 2 : 1;
  const int64_t cores = cpus / threads;
  PoolContent out;
  for (int64_t numa = 0; numa < numa_nodes; ++numa) {
    out.device_groups.emplace_back();
    // CPUs of a NUMA node, core by core, with each core's SMT siblings together (cpuID = core +
    // thread * cores, Linux's usual numbering).
    for (int64_t k = 0; k < per_numa; ++k) {
      const int64_t core = numa * (per_numa / threads) + k / threads;
      const int64_t thread = k % threads;
      const int64_t cpu_id = core + thread * cores;
      const int64_t index = numa * per_numa + k;
      api::Device d;
      d.name = absl::StrFormat("cpudev%03d", index);
      d.attributes.Set("dra.cpu/cacheL3ID", Int(numa));
      d.attributes.Set("dra.cpu/coreID", Int(core));
      d.attributes.Set("dra.cpu/coreType", Str("standard"));
      d.attributes.Set("dra.cpu/cpuID", Int(cpu_id));
      d.attributes.Set("dra.cpu/numaNodeID", Int(numa));
      d.attributes.Set("dra.cpu/smtEnabled", Bool(smt));
      d.attributes.Set("dra.cpu/socketID", Int(numa));
      d.attributes.Set("dra.net/numaNode", Int(numa));
      d.attributes.Set("resource.kubernetes.io/numaNode", Int(numa));
      out.device_groups.back().push_back(std::move(d));
    }
  }
  return out;
}

absl::StatusOr<PoolContent> CpuGrouped(const SimulatedDevicePool& pool, int64_t numa_nodes) {
  if (numa_nodes > api::kResourceSliceMaxDevices) {
    return TooManyDevices(pool, numa_nodes,
                          "dra-driver-cpu in grouped mode publishes one device per NUMA node in one ResourceSlice, "
                          "and a ResourceSlice holds at most 128 devices");
  }
  ASSIGN_OR_RETURN(const int64_t cpus, IntOption(pool, "cpusPerNumaNode", 32, 1, 4096));
  ASSIGN_OR_RETURN(const int64_t reserved, IntOption(pool, "reservedCPUs", 1, 0, 4096));
  ASSIGN_OR_RETURN(const bool smt, BoolOption(pool, "smt", true));
  if (reserved >= cpus) {
    return OptionError(pool, "reservedCPUs", absl::StrCat(reserved),
                       "must be less than spec.options.cpusPerNumaNode (the driver keeps them for the system on NUMA "
                       "node 0)");
  }
  PoolContent out;
  out.single_slice = true;
  out.device_groups.emplace_back();
  for (int64_t numa = 0; numa < numa_nodes; ++numa) {
    // The driver publishes the allocatable CPUs: reserved CPUs come off NUMA node 0.
    const int64_t available = numa == 0 ? cpus - reserved : cpus;
    api::Device d;
    d.name = absl::StrFormat("cpudevnuma%03d", numa);
    d.allow_multiple_allocations = true;
    d.attributes.Set("dra.cpu/numCPUs", Int(available));
    d.attributes.Set("dra.cpu/numaNodeID", Int(numa));
    d.attributes.Set("dra.cpu/smtEnabled", Bool(smt));
    d.attributes.Set("dra.cpu/socketID", Int(numa));
    d.attributes.Set("dra.net/numaNode", Int(numa));
    d.attributes.Set("resource.kubernetes.io/numaNode", Int(numa));
    d.capacity.Set("dra.cpu/cpu", Cap(Dec(available)));
    out.device_groups.back().push_back(std::move(d));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// custom: the inline template, replicated.

absl::StatusOr<PoolContent> Custom(const SimulatedDevicePool& pool, int64_t n) {
  if (!pool.spec.device_template.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Who(pool), ": spec.deviceTemplate: Required value: profile custom needs a device template"));
  }
  const api::Device& t = *pool.spec.device_template;
  const std::string prefix = t.name.value_or("dev");
  PoolContent out;
  out.shared_counters = pool.spec.shared_counters;
  out.device_groups.emplace_back();
  for (int64_t i = 0; i < n; ++i) {
    api::Device d = t;
    d.name = absl::StrCat(prefix, "-", i);
    out.device_groups.back().push_back(std::move(d));
  }
  return out;
}

}  // namespace

const std::vector<ProfileInfo>& Profiles() {
  static const std::vector<ProfileInfo>* const kProfiles = new std::vector<ProfileInfo>{
      {"example-gpu", "gpu.example.com", "GPUs", 8, {"allowMultipleAllocations", "partitions"},
       "dra-example-driver, profile gpu: mock GPUs with memory and compute"},
      {"example-gpu-partitionable", "gpu.example.com", "GPUs", 2, {"allowMultipleAllocations", "partitions"},
       "dra-example-driver, profile gpu with gpuPartitions (default 4): partitions through shared counters"},
      {"example-gpu-consumable", "gpu.example.com", "GPUs", 8, {"allowMultipleAllocations", "partitions"},
       "dra-example-driver, profile gpu with gpuAllowMultipleAllocations: consumable memory and compute"},
      {"example-net", "net.example.com", "NICs", 1, {},
       "dra-example-driver, profile net: NICs with consumable ingress/egress bandwidth"},
      {"nvidia-gpu", "gpu.nvidia.com", "GPUs", 8, {"model"},
       "dra-driver-nvidia-gpu: full GPUs (type gpu)"},
      {"nvidia-gpu-mig", "gpu.nvidia.com", "GPUs", 1, {"model"},
       "dra-driver-nvidia-gpu with DynamicMIG: each A100 as a full GPU plus every MIG placement, through "
       "one counter set per GPU"},
      {"google-tpu", "tpu.google.com", "TPU chips", 4, {"accelerator", "topology", "tpuGen"},
       "dra-driver-google-tpu: one device per TPU chip"},
      {"cpu-individual", "dra.cpu", "CPUs", 64, {"numaNodes", "smt"},
       "dra-driver-cpu, individual mode: one device per CPU, one slice per NUMA node"},
      {"cpu-grouped", "dra.cpu", "NUMA nodes", 2, {"cpusPerNumaNode", "reservedCPUs", "smt"},
       "dra-driver-cpu, grouped mode: one device per NUMA node with consumable dra.cpu/cpu"},
      {"custom", "", "devices", 1, {}, "the device template in spec.deviceTemplate, replicated"},
  };
  return *kProfiles;
}

const ProfileInfo* FindProfile(std::string_view name) {
  for (const ProfileInfo& p : Profiles()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

absl::StatusOr<PoolContent> GeneratePool(const SimulatedDevicePool& pool, const ProfileInfo& profile,
                                         std::string_view driver, std::string_view pool_name) {
  std::vector<std::string> known(profile.options.begin(), profile.options.end());
  for (const auto& [key, value] : pool.spec.options) {
    if (std::find(profile.options.begin(), profile.options.end(), key) == profile.options.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(Who(pool), ": spec.options[", key, "]: Unsupported value: profile ", AV(profile.name),
                       profile.options.empty() ? " has no options"
                                               : absl::StrCat(" has the options ", absl::StrJoin(known, ", "))));
    }
  }
  const int64_t n = pool.spec.devices_per_node.value_or(profile.default_devices_per_node);
  const std::string_view p = profile.name;
  if (p == "example-gpu") return ExampleGpu(pool, driver, pool_name, n, 0, false);
  if (p == "example-gpu-partitionable") return ExampleGpu(pool, driver, pool_name, n, 4, false);
  if (p == "example-gpu-consumable") return ExampleGpu(pool, driver, pool_name, n, 0, true);
  if (p == "example-net") return ExampleNet(pool, driver, pool_name, n);
  if (p == "nvidia-gpu") return NvidiaGpu(pool, driver, pool_name, n, false);
  if (p == "nvidia-gpu-mig") return NvidiaGpu(pool, driver, pool_name, n, true);
  if (p == "google-tpu") return GoogleTpu(pool, driver, pool_name, n);
  if (p == "cpu-individual") return CpuIndividual(pool, n);
  if (p == "cpu-grouped") return CpuGrouped(pool, n);
  if (p == "custom") return Custom(pool, n);
  return absl::InternalError(absl::StrCat("profile ", AV(p), " has no generator"));
}

}  // namespace draforge::sim
