#include "cdi/version.h"

#include <array>
#include <cstdint>
#include <utility>

namespace draforge::cdi {
namespace {

std::optional<std::array<uint32_t, 3>> ParseVersion(std::string_view v) {
  if (!v.empty() && v.front() == 'v') v.remove_prefix(1);
  std::array<uint32_t, 3> out{};
  for (size_t i = 0; i < 3; ++i) {
    if (v.empty() || v.front() < '0' || v.front() > '9') return std::nullopt;
    uint64_t n = 0;
    size_t digits = 0;
    const bool leading_zero = v.front() == '0';
    while (!v.empty() && v.front() >= '0' && v.front() <= '9') {
      n = n * 10 + static_cast<uint64_t>(v.front() - '0');
      if (n > UINT32_MAX) return std::nullopt;
      v.remove_prefix(1);
      ++digits;
    }
    if (digits > 1 && leading_zero) return std::nullopt;  // SemVer forbids leading zeros
    out[i] = static_cast<uint32_t>(n);
    if (i < 2) {
      if (v.empty() || v.front() != '.') return std::nullopt;
      v.remove_prefix(1);
    }
  }
  if (!v.empty()) return std::nullopt;
  return out;
}

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Calls f(edits, path) on the spec-level edits, then on every device's; returns the first
// non-empty reason f gives.
template <typename F>
std::string AnyEdits(const Spec& spec, F f) {
  std::string reason = f(spec.container_edits, std::string("containerEdits"));
  for (size_t i = 0; reason.empty() && i < spec.devices.size(); ++i) {
    reason = f(spec.devices[i].container_edits, "devices[" + std::to_string(i) + "].containerEdits");
  }
  return reason;
}

std::string RequiresV110(const Spec& spec) {
  return AnyEdits(spec, [](const ContainerEdits& e, const std::string& p) -> std::string {
    if (e.intel_rdt && e.intel_rdt->schemata.has_value()) return p + ".intelRdt.schemata";
    if (e.intel_rdt && e.intel_rdt->enable_monitoring) return p + ".intelRdt.enableMonitoring";
    if (!e.net_devices.empty()) return p + ".netDevices";
    return {};
  });
}

std::string RequiresV070(const Spec& spec) {
  return AnyEdits(spec, [](const ContainerEdits& e, const std::string& p) -> std::string {
    if (e.intel_rdt) return p + ".intelRdt";
    if (!e.additional_gids.empty()) return p + ".additionalGids";
    return {};
  });
}

std::string RequiresV060(const Spec& spec) {
  if (!spec.annotations.empty()) return "annotations";
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    if (!spec.devices[i].annotations.empty()) return "devices[" + std::to_string(i) + "].annotations";
  }
  const Kind kind = SplitKind(spec.kind);
  if (!kind.vendor.empty() && kind.cdi_class.find('.') != std::string_view::npos) return "kind (a '.' in the class)";
  return {};
}

std::string RequiresV050(const Spec& spec) {
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    const std::string& name = spec.devices[i].name;
    if (!name.empty() && !IsLetter(name.front())) {
      return "devices[" + std::to_string(i) + "].name (starts with a non-letter)";
    }
  }
  return AnyEdits(spec, [](const ContainerEdits& e, const std::string& p) -> std::string {
    for (size_t i = 0; i < e.device_nodes.size(); ++i) {
      if (!e.device_nodes[i].host_path.empty()) return p + ".deviceNodes[" + std::to_string(i) + "].hostPath";
    }
    return {};
  });
}

std::string RequiresV040(const Spec& spec) {
  return AnyEdits(spec, [](const ContainerEdits& e, const std::string& p) -> std::string {
    for (size_t i = 0; i < e.mounts.size(); ++i) {
      if (!e.mounts[i].type.empty()) return p + ".mounts[" + std::to_string(i) + "].type";
    }
    return {};
  });
}

}  // namespace

const std::vector<std::string>& KnownVersions() {
  static const std::vector<std::string>* const kVersions = new std::vector<std::string>{
      "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0"};
  return *kVersions;
}

bool IsKnownVersion(std::string_view version, bool allow_v_prefix) {
  if (allow_v_prefix && !version.empty() && version.front() == 'v') version.remove_prefix(1);
  for (const std::string& known : KnownVersions()) {
    if (known == version) return true;
  }
  return false;
}

std::optional<int> CompareVersions(std::string_view a, std::string_view b) {
  auto pa = ParseVersion(a);
  auto pb = ParseVersion(b);
  if (!pa || !pb) return std::nullopt;
  if (*pa < *pb) return -1;
  if (*pb < *pa) return 1;
  return 0;
}

MinimumVersionResult MinimumVersionWithReason(const Spec& spec) {
  // Newest first: the first rule that applies decides, as in the reference library.
  if (std::string r = RequiresV110(spec); !r.empty()) return {"1.1.0", std::move(r)};
  if (std::string r = RequiresV070(spec); !r.empty()) return {"0.7.0", std::move(r)};
  if (std::string r = RequiresV060(spec); !r.empty()) return {"0.6.0", std::move(r)};
  if (std::string r = RequiresV050(spec); !r.empty()) return {"0.5.0", std::move(r)};
  if (std::string r = RequiresV040(spec); !r.empty()) return {"0.4.0", std::move(r)};
  return {kEarliestVersion, {}};
}

std::string MinimumVersion(const Spec& spec) { return MinimumVersionWithReason(spec).version; }

}  // namespace draforge::cdi
