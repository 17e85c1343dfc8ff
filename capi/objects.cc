// The C ABI over lib/api: decoding, inspecting and encoding objects.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "api/kind_resource.h"
#include "api/manifests.h"
#include "api/validation.h"
#include "api/yaml.h"
#include "capi/internal.h"
#include "draforge/draforge.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"


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
      e.position = static_cast<size_t>(d.index);
      e.line = static_cast<size_t>(d.line);
      e.warnings = std::move(d.warnings);
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
    if (!objects->entries[index].status.ok()) return capi::Fail(objects->entries[index].status, error);
    auto doc = api::EncodeObject(objects->entries[index].object, api_version ? api_version : "");
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    return capi::ToBuffer(format == DRAFORGE_FORMAT_JSON ? api::WriteJson(*doc, true) : api::WriteYaml(*doc), out, error);
  });
}

int draforge_kind_info_json(draforge_buffer* out, const char* name, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || name == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_kind_info_json: out and name must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    const std::optional<api::Kind> kind = api::ParseKindName(name);
    if (!kind) return capi::Fail(absl::UnimplementedError(absl::StrCat("unknown kind \"", name, "\"")), error);
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    auto str = [&](std::string_view s) { return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a); };
    doc.AddMember("kind", str(api::KindName(*kind)), a);
    doc.AddMember("resource", str(api::KindResource(*kind)), a);
    doc.AddMember("namespaced", api::IsNamespaced(*kind), a);
    return capi::ToBuffer(api::WriteJson(doc, false), out, error);
  });
}

int draforge_json_reformat(draforge_buffer* out, const char* data, size_t size, draforge_format format,
                           draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || (data == nullptr && size > 0)) {
      return capi::Fail(absl::InvalidArgumentError("draforge_json_reformat: out and data must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    if (format != DRAFORGE_FORMAT_JSON && format != DRAFORGE_FORMAT_YAML) {
      return capi::Fail(absl::InvalidArgumentError("draforge_json_reformat: unknown format"), error);
    }
    auto doc = api::ParseJson(std::string_view(data ? data : "", size), /*check_duplicate_keys=*/false);
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    return capi::ToBuffer(format == DRAFORGE_FORMAT_JSON ? api::WriteJson(*doc, true) : api::WriteYaml(*doc), out, error);
  });
}

int draforge_load_options_init(draforge_load_options* options, unsigned int version) {
  return draforge::capi::InitOptions(options, version, DRAFORGE_LOAD_OPTIONS_VERSION,
                                     draforge_load_options DRAFORGE_LOAD_OPTIONS_INIT);
}

int draforge_objects_load(draforge_objects** out, const char* const* paths, size_t count,
                          const draforge_load_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || (paths == nullptr && count > 0)) {
      return capi::Fail(absl::InvalidArgumentError("draforge_objects_load: out and paths must not be NULL"), error);
    }
    *out = nullptr;
    api::ManifestOptions manifest_options;
    if (options != nullptr) {
      if (absl::Status s = capi::CheckVersion("draforge_load_options", options->version, DRAFORGE_LOAD_OPTIONS_VERSION);
          !s.ok()) {
        return capi::Fail(s, error);
      }
      manifest_options.decode.strict = options->strict != 0;
      if (options->max_bytes != 0) manifest_options.decode.max_bytes = options->max_bytes;
      if (options->stdin_data != nullptr || options->stdin_size > 0) {
        if (options->stdin_data == nullptr) {
          return capi::Fail(absl::InvalidArgumentError("draforge_objects_load: stdin_data is NULL but stdin_size is not 0"),
                            error);
        }
        manifest_options.stdin_text = std::string_view(options->stdin_data, options->stdin_size);
      }
    }
    std::vector<std::string> sources;
    for (size_t i = 0; i < count; ++i) {
      if (paths[i] == nullptr || *paths[i] == '\0') {
        return capi::Fail(absl::InvalidArgumentError(absl::StrCat("draforge_objects_load: path ", i, " is empty")), error);
      }
      sources.emplace_back(paths[i]);
    }
    auto loaded = api::LoadManifests(sources, manifest_options);
    if (!loaded.ok()) return capi::Fail(loaded.status(), error);
    auto set = std::make_unique<draforge_objects>();
    set->entries.reserve(loaded->size());
    for (api::ManifestObject& m : *loaded) {
      draforge_objects::Entry e;
      e.source = std::move(m.source);
      e.position = static_cast<size_t>(m.index);
      e.line = static_cast<size_t>(m.line);
      e.warnings = std::move(m.warnings);
      if (m.object.ok()) {
        e.kind = std::string(m.object->kind_name());
        e.key = m.object->Key();
        e.object = *std::move(m.object);
      } else {
        e.kind = std::move(m.kind);
        e.status = m.object.status();
        e.error_message = std::string(e.status.message());
      }
      set->entries.push_back(std::move(e));
    }
    *out = set.release();
    return DRAFORGE_OK;
  });
}

namespace {

const draforge_objects::Entry* EntryAt(const draforge_objects* objects, size_t index) {
  return objects && index < objects->entries.size() ? &objects->entries[index] : nullptr;
}

}  // namespace

const char* draforge_objects_source(const draforge_objects* objects, size_t index) {
  const auto* e = EntryAt(objects, index);
  return e ? e->source.c_str() : nullptr;
}

size_t draforge_objects_position(const draforge_objects* objects, size_t index) {
  const auto* e = EntryAt(objects, index);
  return e ? e->position : 0;
}

size_t draforge_objects_line(const draforge_objects* objects, size_t index) {
  const auto* e = EntryAt(objects, index);
  return e ? e->line : 0;
}

const char* draforge_objects_error(const draforge_objects* objects, size_t index) {
  const auto* e = EntryAt(objects, index);
  if (e == nullptr || e->status.ok()) return nullptr;
  return e->error_message.c_str();
}

size_t draforge_objects_warning_count(const draforge_objects* objects, size_t index) {
  const auto* e = EntryAt(objects, index);
  return e ? e->warnings.size() : 0;
}

const char* draforge_objects_warning(const draforge_objects* objects, size_t index, size_t warning) {
  const auto* e = EntryAt(objects, index);
  return e && warning < e->warnings.size() ? e->warnings[warning].c_str() : nullptr;
}

int draforge_objects_validate_json(draforge_buffer* out, const draforge_objects* objects, size_t index,
                                   draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || objects == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_objects_validate_json: out and objects must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    const auto* e = EntryAt(objects, index);
    if (e == nullptr) {
      return capi::Fail(absl::NotFoundError(absl::StrCat("no object at index ", index, " (there are ",
                                                         objects->entries.size(), ")")),
                        error);
    }
    if (!e->status.ok()) return capi::Fail(e->status, error);
    const std::vector<api::FieldError> errors = api::Validate(e->object);
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    auto str = [&w](std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); };
    w.StartObject();
    w.Key("valid");
    w.Bool(errors.empty());
    w.Key("message");
    str(api::FormatInvalid(e->object, errors));
    w.Key("errors");
    w.StartArray();
    for (const api::FieldError& fe : errors) {
      w.StartObject();
      w.Key("field");
      str(fe.field);
      w.Key("type");
      str(api::FieldErrorTypeName(fe.type));
      w.Key("value");
      str(fe.value);
      w.Key("detail");
      str(fe.detail);
      w.Key("error");
      str(fe.ToString());
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    return capi::ToBuffer(std::string_view(sb.GetString(), sb.GetSize()), out, error);
  });
}

}  // extern "C"
