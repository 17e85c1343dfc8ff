// Shared by the C ABI's translation units: turning absl::Status into draforge_error, owned buffers,
// options, and the handle structs that more than one file reads.
#ifndef DRAFORGE_CAPI_INTERNAL_H_
#define DRAFORGE_CAPI_INTERNAL_H_

#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/features.h"
#include "api/object.h"
#include "draforge/alloc.h"
#include "draforge/cel.h"
#include "draforge/common.h"
#include "store/cluster.h"

struct draforge_error {
  int code;
  std::string message;
  std::string object;  // "Kind/name" or "Kind/ns/name", or ""
  std::string field;   // "spec.devices[0].name", or ""
  // An error the Kubernetes API server answered (kube.h): its HTTP status and metav1.Status reason.
  int http_status = 0;
  std::string reason;
};

struct draforge_cluster {
  explicit draforge_cluster(draforge::store::ClusterOptions options) : cluster(std::move(options)) {}
  draforge::store::Cluster cluster;
};

struct draforge_objects {
  struct Entry {
    draforge::api::Object object;  // default-constructed when the entry did not decode
    std::string kind;
    std::string key;
    std::string source;  // draforge_objects_load: the path or "<stdin>"
    size_t position = 0;
    size_t line = 1;
    absl::Status status;  // why the entry did not decode; OK for a decoded one
    std::string error_message;  // status.message(), NUL-terminated for draforge_objects_error
    std::vector<std::string> warnings;
  };
  std::vector<Entry> entries;
};

struct draforge_snapshot {
  std::shared_ptr<const draforge::store::Snapshot> snapshot;
};

namespace draforge::capi {

// The C code of a Status: its code through one table (see lib/common/status.h), except that a
// Kubernetes API server's answer (a kube::ApiStatus payload) is DRAFORGE_EAPI.
int CodeOf(const absl::Status& status);

// Returns the C code of `status` and, when it is an error and `error` is not null, stores a new
// draforge_error there (object and field read from the message's "Kind \"name\": field: " prefix;
// an API server's HTTP status and reason from its kube::ApiStatus payload).
int Fail(const absl::Status& status, draforge_error** error);

// The object ("Kind/key") and field path a lib/ message names, "" when it names none. Exposed for
// tests of the parsing.
void ObjectAndField(std::string_view message, std::string& object, std::string& field);

// Copies `s` into a malloc'ed, NUL-terminated buffer (draforge_buffer_dispose frees it).
int ToBuffer(std::string_view s, draforge_buffer* out, draforge_error** error);

// "ns/name" or "name" (namespace `default_ns`) split into its parts.
void SplitRef(std::string_view ref, std::string_view default_ns, std::string& ns, std::string& name);

// The features of an options struct's gate text on top of the defaults of `kubernetes_version`
// (NULL or "": 1.37). Errors name the option: "feature_gates: ...", "kubernetes_version: ...".
absl::StatusOr<alloc::Features> FeaturesOf(const char* gates, bool unlock_locked,
                                           const char* kubernetes_version = nullptr);

// The caller's allocate options (NULL: the defaults) as a complete struct of the current version:
// the fields its version has are the caller's, the later ones keep their defaults. Errors: an
// unknown version, a negative max_steps.
absl::StatusOr<draforge_allocate_options> EffectiveOptions(const draforge_allocate_options* options);

// Checks an options struct's version: InvalidArgument naming `what` for null or unknown versions.
absl::Status CheckVersion(const char* what, unsigned int version, unsigned int max_version);

// The body of every `_options_init(options, version)` whose struct has had a single layout: checks
// the version (1..current) and fills `options` with `defaults` stamped with `version`. Structs that
// grew (draforge_allocate_options, draforge_cdi_options) write only the fields of `version` instead.
template <typename Options>
int InitOptions(Options* options, unsigned int version, unsigned int current, const Options& defaults) {
  if (options == nullptr || version == 0 || version > current) return DRAFORGE_EINVALID;
  std::memset(options, 0, sizeof(Options));  // padding too, so the struct equals its _INIT macro byte for byte
  *options = defaults;
  options->version = version;
  return DRAFORGE_OK;
}

// Runs `fn` (returning int) and turns any C++ exception into DRAFORGE_EINTERNAL (std::bad_alloc into
// DRAFORGE_ELIMIT): no exception crosses the C boundary.
template <typename Fn>
int Guard(draforge_error** error, Fn fn) noexcept {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return Fail(absl::ResourceExhaustedError("out of memory"), error);
  } catch (const std::exception& e) {
    return Fail(absl::InternalError(e.what()), error);
  } catch (...) {
    return Fail(absl::InternalError("unknown exception"), error);
  }
}

}  // namespace draforge::capi

#endif  // DRAFORGE_CAPI_INTERNAL_H_
