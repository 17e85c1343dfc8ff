// The C ABI over lib/cdi: specs for a node, validation and writing (include/draforge/cdi.h).
#include <cstddef>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "api/codec.h"
#include "capi/internal.h"
#include "cdi/audit.h"
#include "cdi/directory.h"
#include "cdi/spec_codec.h"
#include "cdi/version.h"
#include "cdi/node_device_spec.h"
#include "cdi/node_specs.h"
#include "cdi/spec_validation.h"
#include "cdi/writer.h"
#include "common/status.h"
#include "draforge/cdi.h"
#include "rapidjson/document.h"
#include "common/json_string.h"

struct draforge_cdi_specs {
  std::string node;
  std::string max_version;  // what the specs were built for; draforge_cdi_specs_sync checks files against it
  draforge::cdi::NodeSpecs specs;
  std::vector<std::string> documents;  // EncodeSpec of each spec, in order
};

namespace draforge::capi {
namespace {

const draforge_cdi_options kDefaultCdiOptions = DRAFORGE_CDI_OPTIONS_INIT;

// The size of the options struct as a caller of `version` declared it (a version 1 caller's struct
// ends before vendor). `version` must be known.
size_t CdiOptionsSize(unsigned int version) {
  return version == 1 ? offsetof(draforge_cdi_options, vendor) : sizeof(draforge_cdi_options);
}

// The caller's options (NULL: the defaults) as a complete struct of the current version.
absl::StatusOr<draforge_cdi_options> EffectiveCdiOptions(const draforge_cdi_options* options) {
  draforge_cdi_options o = kDefaultCdiOptions;
  if (options == nullptr) return o;
  RETURN_IF_ERROR(CheckVersion("draforge_cdi_options", options->version, DRAFORGE_CDI_OPTIONS_VERSION));
  std::memcpy(&o, options, CdiOptionsSize(options->version));
  return o;
}

std::string MaxVersion(const draforge_cdi_options& o) {
  return o.max_version && *o.max_version ? o.max_version : cdi::kDefaultMaxVersion;
}

std::string OrEmpty(const char* s) { return s != nullptr ? s : ""; }

// The build options of `o`: the drivers, and one rule for every driver.
cdi::BuildOptions BuildOptionsOf(const draforge_cdi_options& o) {
  cdi::BuildOptions bo;
  if (o.drivers != nullptr && *o.drivers != '\0') {
    for (absl::string_view d : absl::StrSplit(o.drivers, ',', absl::SkipWhitespace())) {
      bo.drivers.emplace_back(d.data(), d.size());
    }
  }
  bo.max_version = MaxVersion(o);
  cdi::DriverRule rule;
  rule.vendor = OrEmpty(o.vendor);
  if (o.cdi_class != nullptr && *o.cdi_class != '\0') rule.cdi_class = o.cdi_class;
  rule.metadata_host_dir = OrEmpty(o.metadata_dir);
  bo.rules.push_back(rule);
  return bo;
}

cdi::ValidateOptions ValidateOptionsOf(const draforge_cdi_options& o) {
  cdi::ValidateOptions vo;
  vo.strictness = o.compat ? cdi::Strictness::kCompat : cdi::Strictness::kStrict;
  vo.max_version = MaxVersion(o);
  return vo;
}

rapidjson::Value S(std::string_view s, rapidjson::Document::AllocatorType& a) {
  return JsonString(s, a);
}

rapidjson::Value Strings(const std::vector<std::string>& v, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value out(rapidjson::kArrayType);
  for (const auto& s : v) out.PushBack(S(s, a), a);
  return out;
}

// {"written","unchanged","removed","failed":[{"fileName","message"}]}.
std::string SyncReportJson(const cdi::SyncReport& sync) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("written", Strings(sync.written, a), a);
  d.AddMember("unchanged", Strings(sync.unchanged, a), a);
  d.AddMember("removed", Strings(sync.removed, a), a);
  rapidjson::Value failed(rapidjson::kArrayType);
  for (const cdi::SyncFailure& f : sync.failed) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("fileName", S(f.file_name, a), a);
    o.AddMember("message", S(SV(f.status.message()), a), a);
    failed.PushBack(o, a);
  }
  d.AddMember("failed", failed, a);
  return api::WriteJson(d, false);
}

rapidjson::Value ProblemsJson(const std::vector<cdi::Problem>& problems, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value out(rapidjson::kArrayType);
  for (const cdi::Problem& p : problems) {
    rapidjson::Value po(rapidjson::kObjectType);
    po.AddMember("path", S(p.path, a), a);
    po.AddMember("message", S(p.message, a), a);
    out.PushBack(po, a);
  }
  return out;
}

// The problems of one document, stored as JSON in `problems` (may be NULL); `*valid` set.
int ValidateText(int* valid, draforge_buffer* problems, std::string_view text, cdi::Format format,
                 const cdi::ValidateOptions& vo, draforge_error** error) {
  const std::vector<cdi::Problem> found = cdi::ValidateDocument(text, format, vo);
  if (problems != nullptr) {
    rapidjson::Document d;
    static_cast<rapidjson::Value&>(d) = ProblemsJson(found, d.GetAllocator());
    if (int rc = ToBuffer(api::WriteJson(d, false), problems, error); rc != DRAFORGE_OK) return rc;
  }
  *valid = found.empty() ? 1 : 0;
  return DRAFORGE_OK;
}

}  // namespace
}  // namespace draforge::capi

extern "C" {

int draforge_cdi_options_init(draforge_cdi_options* options, unsigned int version) {
  using namespace draforge;
  if (options == nullptr || !capi::CheckVersion("draforge_cdi_options", version, DRAFORGE_CDI_OPTIONS_VERSION).ok()) {
    return DRAFORGE_EINVALID;
  }
  draforge_cdi_options defaults = capi::kDefaultCdiOptions;
  defaults.version = version;
  std::memcpy(options, &defaults, capi::CdiOptionsSize(version));
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
    auto o = capi::EffectiveCdiOptions(options);
    if (!o.ok()) return capi::Fail(o.status(), error);
    const cdi::BuildOptions bo = capi::BuildOptionsOf(*o);
    auto built = cdi::BuildSpecsForNode(*snapshot->snapshot, node ? node : "", bo);
    if (!built.ok()) return capi::Fail(built.status(), error);
    auto specs = std::make_unique<draforge_cdi_specs>();
    specs->node = node;
    specs->max_version = bo.max_version;
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
      if (int rc = capi::ToBuffer(capi::SyncReportJson(*sync), report, error); rc != DRAFORGE_OK) return rc;
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
    auto o = capi::EffectiveCdiOptions(options);
    if (!o.ok()) return capi::Fail(o.status(), error);
    const cdi::ValidateOptions vo = capi::ValidateOptionsOf(*o);
    return capi::ValidateText(valid, problems, std::string_view(data ? data : "", size),
                              format == DRAFORGE_FORMAT_YAML ? cdi::Format::kYaml : cdi::Format::kJson, vo, error);
  });
}

int draforge_cdi_known_versions_json(draforge_buffer* out, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cdi_known_versions_json: out is NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    rapidjson::Document d(rapidjson::kArrayType);
    auto& a = d.GetAllocator();
    for (const std::string& v : cdi::KnownVersions()) d.PushBack(capi::S(v, a), a);
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_cdi_specs_sync(draforge_buffer* report, const draforge_cdi_specs* specs, const char* dir,
                            draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (report == nullptr || specs == nullptr || dir == nullptr || *dir == '\0') {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_cdi_specs_sync: report, specs and dir must not be NULL or empty"),
          error);
    }
    *report = draforge_buffer{nullptr, 0};
    cdi::WriteOptions write;
    write.validate.max_version = specs->max_version;
    auto sync = cdi::SyncDirectory(dir, specs->specs.Files(), specs->specs.MakeSyncOptions(write));
    if (!sync.ok()) return capi::Fail(sync.status(), error);
    return capi::ToBuffer(capi::SyncReportJson(*sync), report, error);
  });
}

int draforge_cdi_audit(draforge_buffer* out, const draforge_snapshot* snapshot, const char* node, const char* dir,
                       const draforge_cdi_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || node == nullptr || dir == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_cdi_audit: out, snapshot, node and dir must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto o = capi::EffectiveCdiOptions(options);
    if (!o.ok()) return capi::Fail(o.status(), error);
    auto report = cdi::AuditDirectory(dir, *snapshot->snapshot, node, capi::BuildOptionsOf(*o));
    if (!report.ok()) return capi::Fail(report.status(), error);
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    d.AddMember("node", capi::S(node, a), a);
    d.AddMember("directory", capi::S(dir, a), a);
    d.AddMember("inSync", capi::Strings(report->in_sync, a), a);
    rapidjson::Value findings(rapidjson::kArrayType);
    for (const cdi::AuditFinding& f : report->findings) {
      rapidjson::Value fo(rapidjson::kObjectType);
      fo.AddMember("status", capi::S(cdi::AuditStatusName(f.status), a), a);
      fo.AddMember("file", capi::S(f.file, a), a);
      fo.AddMember("namespace", capi::S(f.claim_namespace, a), a);
      fo.AddMember("name", capi::S(f.claim_name, a), a);
      fo.AddMember("uid", capi::S(f.claim_uid, a), a);
      fo.AddMember("driver", capi::S(f.driver, a), a);
      fo.AddMember("message", capi::S(f.message, a), a);
      findings.PushBack(fo, a);
    }
    d.AddMember("findings", findings, a);
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_cdi_validate_directory(draforge_buffer* out, const char* dir, const draforge_cdi_options* options,
                                    draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || dir == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cdi_validate_directory: out and dir must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto o = capi::EffectiveCdiOptions(options);
    if (!o.ok()) return capi::Fail(o.status(), error);
    auto report = cdi::ValidateDirectory(dir, capi::ValidateOptionsOf(*o));
    if (!report.ok()) return capi::Fail(report.status(), error);
    rapidjson::Document d(rapidjson::kArrayType);
    auto& a = d.GetAllocator();
    for (const cdi::FileReport& f : report->files) {
      rapidjson::Value fo(rapidjson::kObjectType);
      fo.AddMember("file", capi::S(f.file, a), a);
      fo.AddMember("problems", capi::ProblemsJson(f.problems, a), a);
      d.PushBack(fo, a);
    }
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_cdi_validate_file(int* valid, draforge_buffer* problems, const char* path,
                               const draforge_cdi_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (problems) *problems = draforge_buffer{nullptr, 0};
    if (valid == nullptr || path == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_cdi_validate_file: valid and path must not be NULL"),
                        error);
    }
    *valid = 0;
    auto o = capi::EffectiveCdiOptions(options);
    if (!o.ok()) return capi::Fail(o.status(), error);
    std::ifstream in(path, std::ios::binary);
    if (!in) return capi::Fail(absl::NotFoundError(absl::StrCat("cannot open ", path)), error);
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return capi::Fail(absl::UnavailableError(absl::StrCat("cannot read ", path)), error);
    return capi::ValidateText(valid, problems, text.str(), cdi::FormatForFileName(path), capi::ValidateOptionsOf(*o),
                              error);
  });
}

}  // extern "C"

namespace draforge::capi {
namespace {

// The ResourceClaim in `size` bytes of JSON at `claim`.
absl::StatusOr<api::ResourceClaim> DecodeClaim(const char* claim, size_t size) {
  ASSIGN_OR_RETURN(rapidjson::Document doc, api::ParseJson(std::string_view(claim, size)));
  ASSIGN_OR_RETURN(api::Object object, api::DecodeObject(doc, api::DecodeOptions{}, nullptr));
  auto* c = std::get_if<api::ResourceClaim>(&object.value);
  if (c == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the claim is a ", AV(object.kind_name()), " (", object.Key(), "), not a ResourceClaim"));
  }
  return std::move(*c);
}

std::string ClaimSpecJson(const cdi::ClaimSpec& c, std::string_view node) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("claim", S(absl::StrCat(c.claim_namespace, "/", c.claim_name), a), a);
  d.AddMember("namespace", S(c.claim_namespace, a), a);
  d.AddMember("name", S(c.claim_name, a), a);
  d.AddMember("claimUID", S(c.claim_uid, a), a);
  d.AddMember("driver", S(c.driver, a), a);
  d.AddMember("node", S(node, a), a);
  d.AddMember("fileName", S(c.file.file_name, a), a);
  d.AddMember("document", S(cdi::EncodeSpec(c.file.spec), a), a);
  rapidjson::Value devices(rapidjson::kArrayType);
  for (const cdi::AllocatedDevice& dev : c.devices) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("requests", Strings({dev.request}, a), a);
    o.AddMember("pool", S(dev.pool, a), a);
    o.AddMember("device", S(dev.device, a), a);
    if (!dev.share_id.empty()) o.AddMember("shareID", S(dev.share_id, a), a);
    o.AddMember("cdiDeviceIDs", Strings({dev.cdi_device_id}, a), a);
    devices.PushBack(o, a);
  }
  d.AddMember("devices", devices, a);
  return api::WriteJson(d, false);
}

}  // namespace
}  // namespace draforge::capi

extern "C" {

int draforge_cdi_claim_spec_json(draforge_buffer* out, const char* claim, size_t size, const char* node,
                                 const char* driver, const draforge_cdi_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || claim == nullptr || node == nullptr || driver == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_cdi_claim_spec_json: out, claim, node and driver must not be NULL"),
          error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto o = capi::EffectiveCdiOptions(options);
    if (!o.ok()) return capi::Fail(o.status(), error);
    auto c = capi::DecodeClaim(claim, size);
    if (!c.ok()) return capi::Fail(c.status(), error);
    auto spec = cdi::BuildClaimSpec(*c, node, driver, capi::BuildOptionsOf(*o));
    if (!spec.ok()) return capi::Fail(spec.status(), error);
    return capi::ToBuffer(capi::ClaimSpecJson(*spec, node), out, error);
  });
}

int draforge_cdi_node_spec_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* node,
                                const char* driver, const draforge_cdi_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || node == nullptr || driver == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_cdi_node_spec_json: out, snapshot, node and driver must not be NULL"),
          error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto o = capi::EffectiveCdiOptions(options);
    if (!o.ok()) return capi::Fail(o.status(), error);
    auto file = cdi::BuildNodeDeviceSpec(*snapshot->snapshot, node, driver, capi::BuildOptionsOf(*o));
    if (!file.ok()) return capi::Fail(file.status(), error);
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    d.AddMember("node", capi::S(node, a), a);
    d.AddMember("driver", capi::S(driver, a), a);
    d.AddMember("fileName", capi::S(file->file_name, a), a);
    d.AddMember("document", capi::S(cdi::EncodeSpec(file->spec), a), a);
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_cdi_spec_file_write(int* written, const char* dir, const char* file_name, const char* data, size_t size,
                                 const draforge_cdi_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (written != nullptr) *written = 0;
    if (dir == nullptr || *dir == '\0' || file_name == nullptr || data == nullptr) {
      return capi::Fail(absl::InvalidArgumentError(
                            "draforge_cdi_spec_file_write: dir, file_name and data must not be NULL or empty"),
                        error);
    }
    auto o = capi::EffectiveCdiOptions(options);
    if (!o.ok()) return capi::Fail(o.status(), error);
    const std::string target = absl::StrCat(dir, "/", file_name);
    auto spec = cdi::DecodeSpec(std::string_view(data, size));
    if (!spec.ok()) {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat("CDI spec ", target, ": ", spec.status().message())),
                        error);
    }
    cdi::WriteOptions wo;
    wo.validate.strictness = cdi::Strictness::kStrict;
    wo.validate.max_version = capi::MaxVersion(*o);
    auto r = cdi::WriteSpec(dir, file_name, *spec, wo);
    if (!r.ok()) return capi::Fail(r.status(), error);
    if (written != nullptr) *written = *r == cdi::WriteResult::kWritten ? 1 : 0;
    return DRAFORGE_OK;
  });
}

int draforge_cdi_spec_file_remove(const char* dir, const char* file_name, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (dir == nullptr || *dir == '\0' || file_name == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_cdi_spec_file_remove: dir and file_name must not be NULL or empty"),
          error);
    }
    return capi::Fail(cdi::RemoveSpec(dir, file_name), error);
  });
}

}  // extern "C"
