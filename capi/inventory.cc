// The C ABI's inventory views (include/draforge/inventory.h): thin calls of lib/analysis's JSON
// views, which render openapi.json's schemas.
#include "draforge/inventory.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "analysis/change_event_json.h"
#include "analysis/claim_state.h"
#include "analysis/claims_json.h"
#include "analysis/pods_json.h"
#include "analysis/devices_json.h"
#include "analysis/diagnostics_json.h"
#include "analysis/pool_status.h"
#include "analysis/pools_json.h"
#include "analysis/snapshot_changes.h"
#include "analysis/summary_json.h"
#include "api/codec.h"
#include "capi/internal.h"
#include "graph/graph.h"

namespace {

using namespace draforge;

std::string Or(const char* s) { return s != nullptr ? std::string(s) : std::string(); }

// The common start of every view: checks `out` and `snapshot`, clears `*out`.
bool Start(const char* fn, draforge_buffer* out, const draforge_snapshot* snapshot, draforge_error** error,
           int& rc) {
  if (out == nullptr || snapshot == nullptr) {
    rc = capi::Fail(absl::InvalidArgumentError(absl::StrCat(fn, ": out and snapshot must not be NULL")), error);
    return false;
  }
  *out = draforge_buffer{nullptr, 0};
  return true;
}

}  // namespace

int draforge_inventory_summary_json(draforge_buffer* out, const draforge_snapshot* snapshot, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    int rc = 0;
    if (!Start("draforge_inventory_summary_json", out, snapshot, error, rc)) return rc;
    return capi::ToBuffer(analysis::SummaryJson(*snapshot->snapshot), out, error);
  });
}

int draforge_inventory_pools_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* driver,
                                  const char* node, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    int rc = 0;
    if (!Start("draforge_inventory_pools_json", out, snapshot, error, rc)) return rc;
    return capi::ToBuffer(analysis::PoolsJson(*snapshot->snapshot, {.driver = Or(driver), .node = Or(node)}), out,
                          error);
  });
}

int draforge_inventory_devices_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* driver,
                                    const char* pool, const char* node, int allocated, size_t offset, size_t limit,
                                    draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    int rc = 0;
    if (!Start("draforge_inventory_devices_json", out, snapshot, error, rc)) return rc;
    if (allocated < DRAFORGE_INVENTORY_ANY || allocated > 1) {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat(
                            "\"allocated\" must be 1, 0 or DRAFORGE_INVENTORY_ANY (-1), not ", allocated)),
                        error);
    }
    if (limit == 0) limit = analysis::kDefaultDeviceLimit;
    if (limit > analysis::kMaxDeviceLimit) {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat("\"limit\" must be at most ",
                                                                analysis::kMaxDeviceLimit, ", not ", limit)),
                        error);
    }
    analysis::DeviceFilter filter{.driver = Or(driver), .pool = Or(pool), .node = Or(node)};
    if (allocated != DRAFORGE_INVENTORY_ANY) filter.allocated = allocated == 1;
    return capi::ToBuffer(analysis::DevicesJson(*snapshot->snapshot, filter, offset, limit), out, error);
  });
}

int draforge_inventory_claims_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* namespace_,
                                   const char* state, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    int rc = 0;
    if (!Start("draforge_inventory_claims_json", out, snapshot, error, rc)) return rc;
    std::optional<analysis::ClaimState> wanted;
    if (state != nullptr) {
      wanted = analysis::ParseClaimState(state);
      if (!wanted) {
        return capi::Fail(absl::InvalidArgumentError(absl::StrCat(
                              "\"state\" must be pending, allocated or reserved, not \"", state, "\"")),
                          error);
      }
    }
    return capi::ToBuffer(analysis::ClaimsJson(*snapshot->snapshot, Or(namespace_), wanted), out, error);
  });
}

int draforge_inventory_pods_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* namespace_,
                                 draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    int rc = 0;
    if (!Start("draforge_inventory_pods_json", out, snapshot, error, rc)) return rc;
    return capi::ToBuffer(analysis::PodsJson(*snapshot->snapshot, Or(namespace_)), out, error);
  });
}

int draforge_inventory_graph_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* namespace_,
                                  const char* node, const char* driver, int all_devices, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    int rc = 0;
    if (!Start("draforge_inventory_graph_json", out, snapshot, error, rc)) return rc;
    // The same rendering as draforge_snapshot_graph_render with DRAFORGE_GRAPH_JSON (graph::Render).
    const graph::Filter filter{.namespace_ = Or(namespace_), .node = Or(node), .driver = Or(driver)};
    return capi::ToBuffer(graph::Render(*snapshot->snapshot, {.all_devices = all_devices != 0}, filter,
                                        graph::Format::kJson),
                          out, error);
  });
}

int draforge_inventory_diagnostics_json(draforge_buffer* out, const draforge_snapshot* snapshot,
                                        const char* namespace_, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    int rc = 0;
    if (!Start("draforge_inventory_diagnostics_json", out, snapshot, error, rc)) return rc;
    return capi::ToBuffer(analysis::DiagnosticsJson(*snapshot->snapshot, Or(namespace_)), out, error);
  });
}

int draforge_inventory_claim_diagnosis_json(draforge_buffer* out, const draforge_snapshot* snapshot,
                                            const char* claim, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    int rc = 0;
    if (!Start("draforge_inventory_claim_diagnosis_json", out, snapshot, error, rc)) return rc;
    if (claim == nullptr || *claim == '\0') {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_inventory_claim_diagnosis_json: claim must not be NULL or empty"),
          error);
    }
    std::string ns, name;
    capi::SplitRef(claim, "default", ns, name);
    auto json = analysis::ClaimDiagnosisJson(*snapshot->snapshot, ns, name);
    if (!json.ok()) return capi::Fail(json.status(), error);
    return capi::ToBuffer(*json, out, error);
  });
}

int draforge_inventory_changes_json(draforge_buffer* out, size_t* changes, const draforge_snapshot* before,
                                    const draforge_snapshot* after, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || before == nullptr || after == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_inventory_changes_json: out, before and after must not be NULL"),
          error);
    }
    *out = draforge_buffer{nullptr, 0};
    const auto list = analysis::ChangesBetween(*before->snapshot, *after->snapshot);
    if (changes != nullptr) *changes = list.size();
    return capi::ToBuffer(analysis::ChangeEventJson(*before->snapshot, *after->snapshot, list), out, error);
  });
}

int draforge_pool_status_options_init(draforge_pool_status_options* options, unsigned int version) {
  return draforge::capi::InitOptions(options, version, DRAFORGE_POOL_STATUS_OPTIONS_VERSION,
                                     draforge_pool_status_options DRAFORGE_POOL_STATUS_OPTIONS_INIT);
}

int draforge_inventory_pool_status_json(draforge_buffer* out, const draforge_snapshot* snapshot,
                                        const draforge_pool_status_options* options, draforge_error** error) {
  return capi::Guard(error, [&]() -> int {
    constexpr char kFn[] = "draforge_inventory_pool_status_json";
    int rc = 0;
    if (!Start(kFn, out, snapshot, error, rc)) return rc;
    if (options == nullptr) {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat(kFn, ": options must not be NULL")), error);
    }
    if (auto v = capi::CheckVersion("draforge_pool_status_options", options->version,
                                    DRAFORGE_POOL_STATUS_OPTIONS_VERSION);
        !v.ok()) {
      return capi::Fail(v, error);
    }
    if (options->driver == nullptr || *options->driver == '\0') {
      return capi::Fail(absl::InvalidArgumentError("ResourcePoolStatusRequest spec.driver: Required value"), error);
    }
    if (options->limit < 0 || options->limit > analysis::kPoolStatusLimitMax) {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat(
                            "ResourcePoolStatusRequest spec.limit: Invalid value: ", options->limit,
                            ": must be between 1 and ", analysis::kPoolStatusLimitMax, " (0: the default)")),
                        error);
    }
    api::ResourcePoolStatusRequestSpec spec;
    spec.driver = options->driver;
    if (options->pool_name != nullptr && *options->pool_name != '\0') spec.pool_name = options->pool_name;
    if (options->limit > 0) spec.limit = options->limit;
    if (options->default_partition_type_attribute != nullptr) {
      spec.default_partition_type_attribute = options->default_partition_type_attribute;
    }
    const api::Time now = options->now != nullptr
                              ? std::string(options->now)
                              : absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
    api::ResourcePoolStatusRequest request;
    request.status = analysis::ComputePoolStatus(*snapshot->snapshot, spec, now);
    auto doc = api::EncodeObject(api::Object{.api_version = "resource.k8s.io/v1alpha3", .value = std::move(request)},
                                 "resource.k8s.io/v1alpha3");
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    auto status = doc->FindMember("status");
    if (status == doc->MemberEnd()) return capi::Fail(absl::InternalError(absl::StrCat(kFn, ": no status encoded")), error);
    return capi::ToBuffer(api::WriteJson(status->value, /*pretty=*/false), out, error);
  });
}
