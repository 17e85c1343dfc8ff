// The C ABI over lib/cdi's atomic writer (include/draforge/files.h).
#include "absl/status/status.h"
#include "capi/internal.h"
#include "cdi/atomic_file.h"
#include "draforge/files.h"

extern "C" {

int draforge_file_write_atomic(const char* path, const char* data, size_t size, unsigned int mode,
                               draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (path == nullptr || (data == nullptr && size > 0)) {
      return capi::Fail(absl::InvalidArgumentError("draforge_file_write_atomic: path and data must not be NULL"),
                        error);
    }
    return capi::Fail(cdi::WriteFileAtomic(path, std::string_view(data ? data : "", size), static_cast<mode_t>(mode)),
                      error);
  });
}

}  // extern "C"
