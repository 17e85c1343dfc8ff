// The C ABI over lib/api: decoding, inspecting and encoding objects.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "api/yaml.h"
#include "capi/internal.h"
#include "draforge/draforge.h"


extern "C" {

const char* draforge_version(void) { return DRAFORGE_VERSION_STRING; }

const char* draforge_kubernetes_version(void) { return DRAFORGE_KUBERNETES_VERSION; }

void draforge_version_numbers(int* major, int* minor, int* micro) {
  if (major) *major = DRAFORGE_VERSION_MAJOR;
  if (minor) *minor = DRAFORGE_VERSION_MINOR;
  if (micro) *micro = DRAFORGE_VERSION_MICRO;
}

int draforge_objects_parse(draforge_objects** out, const char* data, size_t size, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || (data == nullptr && size > 0)) {
      return capi::Fail(absl::InvalidArgumentError("draforge_objects_parse: out and data must not be NULL"), error);
    }
    *out = nullptr;
    auto decoded = api::DecodeStream(std::string_view(data ? data : "", size), {});
    if (!decoded.ok()) return capi::Fail(decoded.status(), error);
    auto set = std::make_unique<draforge_objects>();
    for (api::DecodedObject& d : *decoded) {
      if (!d.object.ok()) {
        return capi::Fail(absl::Status(d.object.status().code(),
                                       absl::StrCat("object ", d.index + 1, " (line ", d.line, "): ",
                                                    d.object.status().message())),
                          error);
      }
      draforge_objects::Entry e;
      e.kind = std::string(d.object->kind_name());
      e.key = d.object->Key();
      e.object = *std::move(d.object);
      set->entries.push_back(std::move(e));
    }
    *out = set.release();
    return DRAFORGE_OK;
  });
}

void draforge_objects_destroy(draforge_objects* objects) { delete objects; }

size_t draforge_objects_count(const draforge_objects* objects) { return objects ? objects->entries.size() : 0; }

const char* draforge_objects_kind(const draforge_objects* objects, size_t index) {
  return objects && index < objects->entries.size() ? objects->entries[index].kind.c_str() : nullptr;
}

const char* draforge_objects_api_version(const draforge_objects* objects, size_t index) {
  return objects && index < objects->entries.size() ? objects->entries[index].object.api_version.c_str() : nullptr;
}

const char* draforge_objects_key(const draforge_objects* objects, size_t index) {
  return objects && index < objects->entries.size() ? objects->entries[index].key.c_str() : nullptr;
}

int draforge_objects_encode(draforge_buffer* out, const draforge_objects* objects, size_t index,
                            const char* api_version, draforge_format format, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || objects == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_objects_encode: out and objects must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    if (index >= objects->entries.size()) {
      return capi::Fail(absl::NotFoundError(absl::StrCat("no object at index ", index, " (there are ",
                                                         objects->entries.size(), ")")),
                        error);
    }
    if (format != DRAFORGE_FORMAT_JSON && format != DRAFORGE_FORMAT_YAML) {
      return capi::Fail(absl::InvalidArgumentError("draforge_objects_encode: unknown format"), error);
    }
    auto doc = api::EncodeObject(objects->entries[index].object, api_version ? api_version : "");
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    return capi::ToBuffer(format == DRAFORGE_FORMAT_JSON ? api::WriteJson(*doc, true) : api::WriteYaml(*doc), out, error);
  });
}

}  // extern "C"
