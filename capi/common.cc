// The C ABI's error model and buffers (include/draforge/common.h).
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>

#include "absl/strings/str_cat.h"
#include "api/kubernetes_version.h"
#include "capi/internal.h"
#include "common/status.h"
#include "kube/api_status.h"

namespace draforge::capi {
namespace {

bool IsFieldChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '[' || c == ']' || c == '_' || c == '-' ||
         c == '/';
}

// A field path: starts with a lower-case letter and contains '.', '[' or is one identifier.
bool LooksLikeField(std::string_view s) {
  if (s.empty() || !std::islower(static_cast<unsigned char>(s.front()))) return false;
  for (char c : s) {
    if (!IsFieldChar(c)) return false;
  }
  return true;
}

}  // namespace

void ObjectAndField(std::string_view message, std::string& object, std::string& field) {
  object.clear();
  field.clear();
  // lib/api names objects as `Kind "key": ` (codec.cc, validation.cc); find the first such prefix.
  for (size_t q = message.find(" \""); q != std::string_view::npos; q = message.find(" \"", q + 1)) {
    size_t k = q;
    while (k > 0 && std::isalpha(static_cast<unsigned char>(message[k - 1]))) --k;
    if (k == q || !std::isupper(static_cast<unsigned char>(message[k]))) continue;
    const size_t close = message.find('"', q + 2);
    if (close == std::string_view::npos) break;
    const std::string_view key = message.substr(q + 2, close - q - 2);
    // `Kind "key": ...` or `Kind "key" not found`; a quoted word that ends the message is not an object.
    if (key.empty() || close + 1 >= message.size() || (message[close + 1] != ':' && message[close + 1] != ' ')) continue;
    object = absl::StrCat(AV(message.substr(k, q - k)), "/", AV(key));
    if (message.substr(close + 1, 2) != ": ") return;
    std::string_view rest = message.substr(close + 3);
    if (const size_t colon = rest.find(": "); colon != std::string_view::npos && LooksLikeField(rest.substr(0, colon))) {
      field = std::string(rest.substr(0, colon));
    } else if (rest.substr(0, 15) == "unknown field \"") {
      const size_t end = rest.find('"', 15);
      if (end != std::string_view::npos) field = std::string(rest.substr(15, end - 15));
    }
    return;
  }
}

int CodeOf(const absl::Status& status) {
  // A Kubernetes API server's answer, wherever it surfaces: its HTTP status and reason say which.
  if (kube::GetApiStatus(status)) return DRAFORGE_EAPI;
  switch (status.code()) {
    case absl::StatusCode::kOk: return DRAFORGE_OK;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kAlreadyExists: return DRAFORGE_EINVALID;  // input naming something twice
    case absl::StatusCode::kNotFound: return DRAFORGE_ENOTFOUND;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kUnimplemented: return DRAFORGE_EUNSUPPORTED;
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kDeadlineExceeded: return DRAFORGE_ELIMIT;
    // lib/'s file operations (lib/cdi/internal/file_io, lib/kube/internal/files): EACCES, EROFS and
    // other errnos. The Kubernetes calls map a transport's kUnavailable to DRAFORGE_EUNAVAILABLE.
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnavailable: return DRAFORGE_EIO;
    default: return DRAFORGE_EINTERNAL;
  }
}

int Fail(const absl::Status& status, draforge_error** error) {
  const int code = CodeOf(status);
  if (code != DRAFORGE_OK && error != nullptr) {
    try {
      auto e = std::make_unique<draforge_error>();
      e->code = code;
      e->message = std::string(status.message());
      ObjectAndField(SV(status.message()), e->object, e->field);
      if (const std::optional<kube::ApiStatus> api = kube::GetApiStatus(status)) {
        e->http_status = api->code;
        e->reason = api->reason;
      }
      *error = e.release();
    } catch (...) {
      *error = nullptr;  // out of memory while reporting: the code alone must do
    }
  }
  return code;
}

int ToBuffer(std::string_view s, draforge_buffer* out, draforge_error** error) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p == nullptr) return Fail(absl::ResourceExhaustedError("out of memory"), error);
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  out->ptr = p;
  out->size = s.size();
  return DRAFORGE_OK;
}

void SplitRef(std::string_view ref, std::string_view default_ns, std::string& ns, std::string& name) {
  const size_t slash = ref.find('/');
  if (slash == std::string_view::npos) {
    ns = std::string(default_ns);
    name = std::string(ref);
  } else {
    ns = std::string(ref.substr(0, slash));
    name = std::string(ref.substr(slash + 1));
  }
}

absl::StatusOr<alloc::Features> FeaturesOf(const char* gates, bool unlock_locked, const char* kubernetes_version) {
  api::KubernetesVersion version = api::kLatestKubernetesVersion;
  if (kubernetes_version != nullptr && *kubernetes_version != '\0') {
    auto v = api::ParseKubernetesVersion(kubernetes_version);
    if (!v.ok()) return absl::Status(v.status().code(), absl::StrCat("kubernetes_version: ", v.status().message()));
    version = *v;
  }
  auto f = alloc::ParseFeatureGates(gates ? gates : "", alloc::Features::Defaults(version), !unlock_locked);
  if (!f.ok()) return absl::Status(f.status().code(), absl::StrCat("feature_gates: ", f.status().message()));
  return f;
}

absl::Status CheckVersion(const char* what, unsigned int version, unsigned int max_version) {
  if (version == 0 || version > max_version) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": unsupported version ", version, " (this library knows 1..",
                                                   max_version, "; initialise with the _INIT macro or _init())"));
  }
  return absl::OkStatus();
}

}  // namespace draforge::capi

extern "C" {

int draforge_error_code_of(const draforge_error* error) { return error ? error->code : DRAFORGE_EINVALID; }
const char* draforge_error_message(const draforge_error* error) { return error ? error->message.c_str() : ""; }
const char* draforge_error_object(const draforge_error* error) { return error ? error->object.c_str() : ""; }
const char* draforge_error_field(const draforge_error* error) { return error ? error->field.c_str() : ""; }
void draforge_error_destroy(draforge_error* error) { delete error; }

void draforge_buffer_dispose(draforge_buffer* buffer) {
  if (buffer == nullptr) return;
  std::free(buffer->ptr);
  buffer->ptr = nullptr;
  buffer->size = 0;
}

}  // extern "C"
