// DRAForge C++ API: decoded Kubernetes objects (draforge_objects).
#ifndef DRAFORGE_CPP_OBJECTS_HPP
#define DRAFORGE_CPP_OBJECTS_HPP

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "draforge/cpp/result.hpp"
#include "draforge/objects.h"

namespace draforge {

enum class Format { kJson = DRAFORGE_FORMAT_JSON, kYaml = DRAFORGE_FORMAT_YAML };

// How Objects::Load reads its sources (draforge_load_options).
struct LoadOptions {
  bool strict = false;   // unknown fields are errors instead of warnings
  size_t max_bytes = 0;  // the largest file; 0: 32 MiB
  // The text of standard input for the path "-" (the caller reads it); nullptr: "-" is an error.
  const std::string* stdin_text = nullptr;
};

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

  // Reads files, directories (their .yaml/.yml/.json files, sorted) and "-" (options.stdin_text)
  // as `kubectl apply -f` does. Objects that do not decode are kept with their error (error(i)).
  static Result<Objects> Load(const std::vector<std::string>& paths, const LoadOptions& options = {}) {
    std::vector<const char*> c_paths;
    c_paths.reserve(paths.size());
    for (const std::string& p : paths) c_paths.push_back(p.c_str());
    draforge_load_options o = DRAFORGE_LOAD_OPTIONS_INIT;
    o.strict = options.strict ? 1 : 0;
    o.max_bytes = options.max_bytes;
    if (options.stdin_text != nullptr) {
      o.stdin_data = options.stdin_text->data();
      o.stdin_size = options.stdin_text->size();
    }
    draforge_objects* raw = nullptr;
    draforge_error* e = nullptr;
    const int rc = draforge_objects_load(&raw, c_paths.data(), c_paths.size(), &o, &e);
    if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
    return Objects(raw);
  }

  size_t size() const noexcept { return draforge_objects_count(p_.get()); }
  std::string_view kind(size_t i) const { return Str(draforge_objects_kind(p_.get(), i)); }
  std::string_view api_version(size_t i) const { return Str(draforge_objects_api_version(p_.get(), i)); }
  // "namespace/name" or "name".
  std::string_view key(size_t i) const { return Str(draforge_objects_key(p_.get(), i)); }

  // Where object `i` came from: the path or "<stdin>", its position in that source (from 0) and the
  // line its document starts on.
  std::string_view source(size_t i) const { return Str(draforge_objects_source(p_.get(), i)); }
  size_t position(size_t i) const noexcept { return draforge_objects_position(p_.get(), i); }
  size_t line(size_t i) const noexcept { return draforge_objects_line(p_.get(), i); }
  // Why object `i` did not decode; "" when it did.
  std::string_view error(size_t i) const { return Str(draforge_objects_error(p_.get(), i)); }
  bool decoded(size_t i) const noexcept { return draforge_objects_error(p_.get(), i) == nullptr; }
  std::vector<std::string_view> warnings(size_t i) const {
    std::vector<std::string_view> out;
    const size_t n = draforge_objects_warning_count(p_.get(), i);
    for (size_t w = 0; w < n; ++w) out.push_back(Str(draforge_objects_warning(p_.get(), i, w)));
    return out;
  }

  // Object `i` validated as the API server would on create (draforge_objects_validate_json).
  Result<std::string> ValidateJson(size_t i) const {
    return detail::BufferCall(
        [&](draforge_buffer* out, draforge_error** e) { return draforge_objects_validate_json(out, p_.get(), i, e); });
  }

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

// {"kind","resource","namespaced"} of a kind named as kubectl accepts it; EUNSUPPORTED when unknown
// (draforge_kind_info_json).
inline Result<std::string> KindInfoJson(std::string_view name) {
  detail::CString n(name);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) { return draforge_kind_info_json(out, n.get(), e); });
}

// JSON text re-serialised as indented JSON or kubectl's YAML (draforge_json_reformat).
inline Result<std::string> ReformatJson(std::string_view json, Format format) {
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_json_reformat(out, json.data(), json.size(), static_cast<draforge_format>(format), e);
  });
}

}  // namespace draforge

#endif  // DRAFORGE_CPP_OBJECTS_HPP
