// The C ABI over lib/cdi: specs for a node, validation and writing (include/draforge/cdi.h).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "api/codec.h"
#include "capi/internal.h"
#include "cdi/spec_codec.h"
#include "cdi/node_specs.h"
#include "cdi/spec_validation.h"
#include "cdi/writer.h"
#include "common/status.h"
#include "draforge/cdi.h"
#include "rapidjson/document.h"
#include "common/json_string.h"

struct draforge_cdi_specs {
  std::string node;
  draforge::cdi::NodeSpecs specs;
  std::vector<std::string> documents;  // EncodeSpec of each spec, in order
};

namespace draforge::capi {
namespace {

const draforge_cdi_options kDefaultCdiOptions = DRAFORGE_CDI_OPTIONS_INIT;

const draforge_cdi_options* OptionsOrDefault(const draforge_cdi_options* o) { return o ? o : &kDefaultCdiOptions; }

absl::Status CheckCdiOptions(const draforge_cdi_options& o) {
  return CheckVersion("draforge_cdi_options", o.version, DRAFORGE_CDI_OPTIONS_VERSION);
}

std::string MaxVersion(const draforge_cdi_options& o) {
  return o.max_version && *o.max_version ? o.max_version : cdi::kDefaultMaxVersion;
}

rapidjson::Value S(std::string_view s, rapidjson::Document::AllocatorType& a) {
  return JsonString(s, a);
}

rapidjson::Value Strings(const std::vector<std::string>& v, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value out(rapidjson::kArrayType);
  for (const auto& s : v) out.PushBack(S(s, a), a);
  return out;
}

}  // namespace
}  // namespace draforge::capi

extern "C" {

int draforge_cdi_options_init(draforge_cdi_options* options, unsigned int version) {
  using namespace draforge;
  if (options == nullptr || !capi::CheckVersion("draforge_cdi_options", version, DRAFORGE_CDI_OPTIONS_VERSION).ok()) {
    return DRAFORGE_EINVALID;
  }
  *options = capi::kDefaultCdiOptions;
  options->version = version;
  return DRAFORGE_OK;
}

int draforge_cdi_generate(draforge_cdi_specs** out, const draforge_snapshot* snapshot, const char* node,
                          const draforge_cdi_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cdi_generate: out and snapshot must not be NULL"), error);
    }
    *out = nullptr;
    const draforge_cdi_options& o = *capi::OptionsOrDefault(options);
    if (absl::Status s = capi::CheckCdiOptions(o); !s.ok()) return capi::Fail(s, error);
    cdi::BuildOptions bo;
    if (o.drivers != nullptr && *o.drivers != '\0') {
      for (absl::string_view d : absl::StrSplit(o.drivers, ',', absl::SkipWhitespace())) {
        bo.drivers.emplace_back(d.data(), d.size());
      }
    }
    bo.max_version = capi::MaxVersion(o);
    auto built = cdi::BuildSpecsForNode(*snapshot->snapshot, node ? node : "", bo);
    if (!built.ok()) return capi::Fail(built.status(), error);
    auto specs = std::make_unique<draforge_cdi_specs>();
    specs->node = node;
    specs->specs = *std::move(built);
    for (const cdi::ClaimSpec& c : specs->specs.specs) specs->documents.push_back(cdi::EncodeSpec(c.file.spec));
    *out = specs.release();
    return DRAFORGE_OK;
  });
}

void draforge_cdi_specs_destroy(draforge_cdi_specs* specs) { delete specs; }

size_t draforge_cdi_specs_count(const draforge_cdi_specs* specs) { return specs ? specs->specs.specs.size() : 0; }

const char* draforge_cdi_specs_file_name(const draforge_cdi_specs* specs, size_t index) {
  return specs && index < specs->specs.specs.size() ? specs->specs.specs[index].file.file_name.c_str() : nullptr;
}

int draforge_cdi_specs_document(draforge_buffer* out, const draforge_cdi_specs* specs, size_t index,
                                draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || specs == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cdi_specs_document: out and specs must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    if (index >= specs->documents.size()) {
      return capi::Fail(absl::NotFoundError(absl::StrCat("no CDI spec at index ", index, " (there are ",
                                                         specs->documents.size(), ")")),
                        error);
    }
    return capi::ToBuffer(specs->documents[index], out, error);
  });
}

int draforge_cdi_specs_json(draforge_buffer* out, const draforge_cdi_specs* specs, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || specs == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cdi_specs_json: out and specs must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    d.AddMember("node", capi::S(specs->node, a), a);
    rapidjson::Value list(rapidjson::kArrayType);
    for (const cdi::ClaimSpec& c : specs->specs.specs) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("claim", capi::S(absl::StrCat(c.claim_namespace, "/", c.claim_name), a), a);
      o.AddMember("claimUID", capi::S(c.claim_uid, a), a);
      o.AddMember("driver", capi::S(c.driver, a), a);
      o.AddMember("fileName", capi::S(c.file.file_name, a), a);
      rapidjson::Value reqs(rapidjson::kArrayType);
      for (const cdi::RequestDevices& r : c.requests) {
        rapidjson::Value ro(rapidjson::kObjectType);
        ro.AddMember("request", capi::S(r.request, a), a);
        ro.AddMember("cdiDeviceIDs", capi::Strings(r.cdi_device_ids, a), a);
        reqs.PushBack(ro, a);
      }
      o.AddMember("requests", reqs, a);
      list.PushBack(o, a);
    }
    d.AddMember("specs", list, a);
    rapidjson::Value failed(rapidjson::kArrayType);
    for (const cdi::ClaimFailure& f : specs->specs.failed) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("claim", capi::S(absl::StrCat(f.claim_namespace, "/", f.claim_name), a), a);
      o.AddMember("claimUID", capi::S(f.claim_uid, a), a);
      o.AddMember("driver", capi::S(f.driver, a), a);
      o.AddMember("fileName", capi::S(f.file_name, a), a);
      o.AddMember("message", capi::S(f.message, a), a);
      failed.PushBack(o, a);
    }
    d.AddMember("failed", failed, a);
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_cdi_specs_write(const draforge_cdi_specs* specs, const char* dir, draforge_buffer* report,
                             draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (report) *report = draforge_buffer{nullptr, 0};
    if (specs == nullptr || dir == nullptr || *dir == '\0') {
      return capi::Fail(absl::InvalidArgumentError("draforge_cdi_specs_write: specs and dir must not be NULL or empty"),
                        error);
    }
    auto sync = cdi::SyncDirectory(dir, specs->specs.Files(), specs->specs.MakeSyncOptions());
    if (!sync.ok()) return capi::Fail(sync.status(), error);
    if (report != nullptr) {
      rapidjson::Document d(rapidjson::kObjectType);
      auto& a = d.GetAllocator();
      d.AddMember("written", capi::Strings(sync->written, a), a);
      d.AddMember("unchanged", capi::Strings(sync->unchanged, a), a);
      d.AddMember("removed", capi::Strings(sync->removed, a), a);
      rapidjson::Value failed(rapidjson::kArrayType);
      for (const cdi::SyncFailure& f : sync->failed) {
        rapidjson::Value o(rapidjson::kObjectType);
        o.AddMember("fileName", capi::S(f.file_name, a), a);
        o.AddMember("message", capi::S(SV(f.status.message()), a), a);
        failed.PushBack(o, a);
      }
      d.AddMember("failed", failed, a);
      if (int rc = capi::ToBuffer(api::WriteJson(d, false), report, error); rc != DRAFORGE_OK) return rc;
    }
    if (!sync->ok()) {
      std::string message = absl::StrCat("writing CDI specs to ", dir, ":");
      for (const cdi::SyncFailure& f : sync->failed) absl::StrAppend(&message, " ", f.file_name, ": ", f.status.message(), ";");
      message.pop_back();
      const int rc = capi::Fail(absl::Status(sync->failed.front().status.code(), message), error);
      if (report) draforge_buffer_dispose(report);
      return rc;
    }
    return DRAFORGE_OK;
  });
}

int draforge_cdi_validate(int* valid, draforge_buffer* problems, const char* data, size_t size, draforge_format format,
                          const draforge_cdi_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (problems) *problems = draforge_buffer{nullptr, 0};
    if (valid == nullptr || (data == nullptr && size > 0)) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cdi_validate: valid and data must not be NULL"), error);
    }
    *valid = 0;
    if (format != DRAFORGE_FORMAT_JSON && format != DRAFORGE_FORMAT_YAML) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cdi_validate: unknown format"), error);
    }
    const draforge_cdi_options& o = *capi::OptionsOrDefault(options);
    if (absl::Status s = capi::CheckCdiOptions(o); !s.ok()) return capi::Fail(s, error);
    cdi::ValidateOptions vo;
    vo.strictness = o.compat ? cdi::Strictness::kCompat : cdi::Strictness::kStrict;
    vo.max_version = capi::MaxVersion(o);
    const std::vector<cdi::Problem> found =
        cdi::ValidateDocument(std::string_view(data ? data : "", size),
                              format == DRAFORGE_FORMAT_YAML ? cdi::Format::kYaml : cdi::Format::kJson, vo);
    if (problems != nullptr) {
      rapidjson::Document d(rapidjson::kArrayType);
      auto& a = d.GetAllocator();
      for (const cdi::Problem& p : found) {
        rapidjson::Value po(rapidjson::kObjectType);
        po.AddMember("path", capi::S(p.path, a), a);
        po.AddMember("message", capi::S(p.message, a), a);
        d.PushBack(po, a);
      }
      if (int rc = capi::ToBuffer(api::WriteJson(d, false), problems, error); rc != DRAFORGE_OK) return rc;
    }
    *valid = found.empty() ? 1 : 0;
    return DRAFORGE_OK;
  });
}

}  // extern "C"
