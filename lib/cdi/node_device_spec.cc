#include "cdi/node_device_spec.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cdi/internal/names.h"
#include "cdi/spec_validation.h"
#include "cdi/version.h"
#include "common/status.h"

namespace draforge::cdi {
namespace {

// "DRAFORGE_DEVICE_<DEVICE>": one variable per device, so that several devices in one container
// keep apart (the names of one node's devices of one driver are unique, see the caller).
std::string EnvName(std::string_view device) { return "DRAFORGE_DEVICE_" + internal::EnvToken(device); }

}  // namespace

absl::StatusOr<SpecFile> BuildNodeDeviceSpec(const store::Snapshot& snapshot, std::string_view node,
                                             std::string_view driver, const BuildOptions& options) {
  if (node.empty() || driver.empty()) {
    return absl::InvalidArgumentError("CDI spec of a node's devices: the node and driver names must not be empty");
  }
  if (!IsKnownVersion(options.max_version)) {
    return absl::InvalidArgumentError(absl::StrCat("CDI spec of a node's devices: the maximum version \"",
                                                   AV(options.max_version), "\" is not a known CDI version"));
  }
  ASSIGN_OR_RETURN(const std::string kind, KindForDriver(options, driver));

  // Of each pool, only the newest generation: older slices are being replaced by the driver.
  std::vector<const api::ResourceSlice*> slices;
  std::map<std::string, int64_t> newest;  // pool -> generation
  for (const api::ResourceSlice* s : snapshot.SlicesByNode(node)) {
    if (!s->spec || s->spec->driver.value_or("") != driver) continue;
    const std::string pool = s->spec->pool ? s->spec->pool->name.value_or("") : "";
    const int64_t gen = s->spec->pool ? s->spec->pool->generation.value_or(0) : 0;
    auto [it, inserted] = newest.emplace(pool, gen);
    if (!inserted) it->second = std::max(it->second, gen);
    slices.push_back(s);
  }

  SpecFile out;
  std::string base = SpecFileNamePrefix(kind);  // "<vendor>-<class>_"
  base.pop_back();
  out.file_name = base + ".json";
  out.spec.kind = kind;
  std::map<std::string, std::string> pool_of;  // device -> pool
  for (const api::ResourceSlice* s : slices) {
    const std::string pool = s->spec->pool ? s->spec->pool->name.value_or("") : "";
    const int64_t gen = s->spec->pool ? s->spec->pool->generation.value_or(0) : 0;
    if (gen != newest[pool]) continue;
    for (const api::Device& d : s->spec->devices) {
      const std::string name = d.name.value_or("");
      if (name.empty()) continue;
      auto [it, inserted] = pool_of.emplace(name, pool);
      if (!inserted) {
        if (it->second == pool) continue;  // the same device listed twice in one pool: the API refuses it
        return absl::InvalidArgumentError(absl::StrCat("node \"", AV(node), "\": device \"", name, "\" of driver \"",
                                                       AV(driver), "\" is in pools \"", it->second, "\" and \"", pool,
                                                       "\"; its CDI name would be ambiguous"));
      }
      Device cd;
      cd.name = name;
      cd.container_edits.env.push_back(absl::StrCat(EnvName(name), "=", AV(driver), "/", pool, "/", name));
      out.spec.devices.push_back(std::move(cd));
    }
  }
  if (out.spec.devices.empty()) {
    return absl::NotFoundError(absl::StrCat("node \"", AV(node), "\" has no device of driver \"", AV(driver),
                                            "\" in its ResourceSlices (spec.nodeName)"));
  }
  std::sort(out.spec.devices.begin(), out.spec.devices.end(),
            [](const Device& a, const Device& b) { return a.name < b.name; });
  out.spec.version = MinimumVersion(out.spec);
  ValidateOptions validate;
  validate.strictness = Strictness::kStrict;
  validate.max_version = options.max_version;
  if (std::vector<Problem> problems = Validate(out.spec, validate); !problems.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("node \"", AV(node), "\": the CDI spec of driver \"", AV(driver),
                                                   "\" is not valid: ", FormatProblems(problems)));
  }
  return out;
}

}  // namespace draforge::cdi
