#include <cstdlib>
#include <cstring>
#include <new>

#include "capi/internal.h"

namespace draforge::capi {

int CodeOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk: return DRAFORGE_OK;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange: return DRAFORGE_EINVALID;
    case absl::StatusCode::kNotFound: return DRAFORGE_ENOTFOUND;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kUnimplemented: return DRAFORGE_EUNSUPPORTED;
    case absl::StatusCode::kResourceExhausted: return DRAFORGE_ELIMIT;
    default: return DRAFORGE_EINTERNAL;
  }
}

int Fail(const absl::Status& status, draforge_error** error) {
  const int code = CodeOf(status);
  if (code != DRAFORGE_OK && error != nullptr) {
    *error = new (std::nothrow) draforge_error{code, std::string(status.message())};
  }
  return code;
}

}  // namespace draforge::capi

extern "C" {

int draforge_error_code_of(const draforge_error* error) { return error ? error->code : DRAFORGE_EINVALID; }
const char* draforge_error_message(const draforge_error* error) { return error ? error->message.c_str() : ""; }
void draforge_error_destroy(draforge_error* error) { delete error; }

void draforge_buffer_dispose(draforge_buffer* buffer) {
  if (buffer == nullptr) return;
  std::free(buffer->ptr);
  buffer->ptr = nullptr;
  buffer->size = 0;
}

}  // extern "C"
