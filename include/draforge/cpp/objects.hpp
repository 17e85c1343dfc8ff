// DRAForge C++ API: decoded Kubernetes objects (draforge_objects).
#ifndef DRAFORGE_CPP_OBJECTS_HPP
#define DRAFORGE_CPP_OBJECTS_HPP

#include <memory>
#include <string>
#include <string_view>

#include "draforge/cpp/result.hpp"
#include "draforge/objects.h"

namespace draforge {

enum class Format { kJson = DRAFORGE_FORMAT_JSON, kYaml = DRAFORGE_FORMAT_YAML };

// A decoded set of objects. Movable, not copyable. Thread-safety: const calls may run concurrently.
class Objects {
 public:
  // Decodes JSON or YAML text (one object, several documents or List kinds), all or nothing.
  static Result<Objects> Parse(std::string_view data) {
    draforge_objects* raw = nullptr;
    draforge_error* e = nullptr;
    const int rc = draforge_objects_parse(&raw, data.data(), data.size(), &e);
    if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
    return Objects(raw);
  }

  size_t size() const noexcept { return draforge_objects_count(p_.get()); }
  std::string_view kind(size_t i) const { return Str(draforge_objects_kind(p_.get(), i)); }
  std::string_view api_version(size_t i) const { return Str(draforge_objects_api_version(p_.get(), i)); }
  // "namespace/name" or "name".
  std::string_view key(size_t i) const { return Str(draforge_objects_key(p_.get(), i)); }

  // Object `i` encoded as `format`, DRA kinds converted to `api_version` ("": as read).
  Result<std::string> Encode(size_t i, std::string_view api_version = {}, Format format = Format::kJson) const {
    detail::CString v(api_version);
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_objects_encode(out, p_.get(), i, v.or_null(), static_cast<draforge_format>(format), e);
    });
  }

  const draforge_objects* c_handle() const noexcept { return p_.get(); }

 private:
  explicit Objects(draforge_objects* p) : p_(p) {}
  static std::string_view Str(const char* s) { return s != nullptr ? std::string_view(s) : std::string_view(); }
  std::unique_ptr<draforge_objects, detail::HandleDeleter<draforge_objects, draforge_objects_destroy>> p_;
};

}  // namespace draforge

#endif  // DRAFORGE_CPP_OBJECTS_HPP
