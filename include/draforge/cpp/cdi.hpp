// DRAForge C++ API: CDI specs for the claims allocated on a node.
#ifndef DRAFORGE_CPP_CDI_HPP
#define DRAFORGE_CPP_CDI_HPP

#include <memory>
#include <string>
#include <string_view>

#include "draforge/cdi.h"
#include "draforge/cpp/cluster.hpp"
#include "draforge/cpp/objects.hpp"
#include "draforge/cpp/result.hpp"

namespace draforge {

struct CdiOptions {
  std::string drivers;      // comma-separated; "": every driver
  std::string max_version;  // "": "0.5.0"
  bool compat = false;      // validation: what released runtimes accept (true) or strict (false)
  std::string vendor;       // "": "k8s.<driver>"
  std::string cdi_class;    // "": "draforge"
  std::string metadata_dir; // "": no metadata bind mounts
};

namespace detail {
inline draforge_cdi_options CCdiOptions(const CdiOptions& o) {
  draforge_cdi_options c = DRAFORGE_CDI_OPTIONS_INIT;
  c.drivers = o.drivers.empty() ? nullptr : o.drivers.c_str();
  c.max_version = o.max_version.empty() ? nullptr : o.max_version.c_str();
  c.compat = o.compat ? 1 : 0;
  c.vendor = o.vendor.empty() ? nullptr : o.vendor.c_str();
  c.cdi_class = o.cdi_class.empty() ? nullptr : o.cdi_class.c_str();
  c.metadata_dir = o.metadata_dir.empty() ? nullptr : o.metadata_dir.c_str();
  return c;
}
}  // namespace detail

// The CDI specs of one node (one per claim and driver). Immutable.
class CdiSpecs {
 public:
  static Result<CdiSpecs> Generate(const Snapshot& snapshot, std::string_view node, const CdiOptions& options = {}) {
    detail::CString n(node);
    const draforge_cdi_options c = detail::CCdiOptions(options);
    draforge_cdi_specs* raw = nullptr;
    draforge_error* e = nullptr;
    const int rc = draforge_cdi_generate(&raw, snapshot.c_handle(), n.get(), &c, &e);
    if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
    return CdiSpecs(raw);
  }
  size_t size() const noexcept { return draforge_cdi_specs_count(p_.get()); }
  std::string_view file_name(size_t i) const {
    const char* s = draforge_cdi_specs_file_name(p_.get(), i);
    return s != nullptr ? std::string_view(s) : std::string_view();
  }
  Result<std::string> Document(size_t i) const {
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_cdi_specs_document(out, p_.get(), i, e);
    });
  }
  Result<std::string> Json() const {
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_cdi_specs_json(out, p_.get(), e);
    });
  }
  // Makes `dir` hold exactly these specs among DRAForge's files; the report JSON (cdi.h).
  Result<std::string> Write(std::string_view dir) const {
    detail::CString d(dir);
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_cdi_specs_write(p_.get(), d.get(), out, e);
    });
  }
  // Like Write, with files that fail as results in the report (cdi.h draforge_cdi_specs_sync).
  Result<std::string> Sync(std::string_view dir) const {
    detail::CString d(dir);
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_cdi_specs_sync(out, p_.get(), d.get(), e);
    });
  }

 private:
  explicit CdiSpecs(draforge_cdi_specs* p) : p_(p, draforge_cdi_specs_destroy) {}
  std::shared_ptr<draforge_cdi_specs> p_;
};

// The verdict on one CDI document: valid, and the problems as JSON ([{"path","message"}]).
struct CdiValidation {
  bool valid = false;
  std::string problems_json;
};

inline Result<CdiValidation> CdiValidate(std::string_view data, Format format, const CdiOptions& options = {}) {
  const draforge_cdi_options c = detail::CCdiOptions(options);
  int valid = 0;
  draforge_buffer problems{nullptr, 0};
  draforge_error* e = nullptr;
  const int rc = draforge_cdi_validate(&valid, &problems, data.data(), data.size(),
                                       static_cast<draforge_format>(format), &c, &e);
  if (rc != DRAFORGE_OK) {
    draforge_buffer_dispose(&problems);
    return detail::TakeError(rc, e);
  }
  return CdiValidation{valid != 0, detail::TakeBuffer(problems)};
}

// The CDI spec file at `path`, its format from its name.
inline Result<CdiValidation> CdiValidateFile(std::string_view path, const CdiOptions& options = {}) {
  detail::CString p(path);
  const draforge_cdi_options c = detail::CCdiOptions(options);
  int valid = 0;
  draforge_buffer problems{nullptr, 0};
  draforge_error* e = nullptr;
  const int rc = draforge_cdi_validate_file(&valid, &problems, p.get(), &c, &e);
  if (rc != DRAFORGE_OK) {
    draforge_buffer_dispose(&problems);
    return detail::TakeError(rc, e);
  }
  return CdiValidation{valid != 0, detail::TakeBuffer(problems)};
}

// [{"file","problems":[{"path","message"}]}] for every spec file of a directory.
inline Result<std::string> CdiValidateDirectory(std::string_view dir, const CdiOptions& options = {}) {
  detail::CString d(dir);
  const draforge_cdi_options c = detail::CCdiOptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_cdi_validate_directory(out, d.get(), &c, e);
  });
}

// {"node","directory","inSync","findings"}: a node's CDI directory against its allocated claims.
inline Result<std::string> CdiAudit(const Snapshot& snapshot, std::string_view node, std::string_view dir,
                                    const CdiOptions& options = {}) {
  detail::CString n(node);
  detail::CString d(dir);
  const draforge_cdi_options c = detail::CCdiOptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_cdi_audit(out, snapshot.c_handle(), n.get(), d.get(), &c, e);
  });
}

// ["0.1.0", ..., the newest]: every released cdiVersion, oldest first.
inline Result<std::string> CdiKnownVersionsJson() {
  return detail::BufferCall(
      [](draforge_buffer* out, draforge_error** e) { return draforge_cdi_known_versions_json(out, e); });
}

// One claim's spec for a driver on a node, as a node plugin prepares it: {"claim","namespace",
// "name","claimUID","driver","node","fileName","document","devices":[{"requests","pool","device",
// "shareID","cdiDeviceIDs"}]} (cdi.h draforge_cdi_claim_spec_json). `claim_json`: the claim as the
// API server returns it.
inline Result<std::string> CdiClaimSpecJson(std::string_view claim_json, std::string_view node,
                                            std::string_view driver, const CdiOptions& options = {}) {
  detail::CString n(node), d(driver);
  const draforge_cdi_options c = detail::CCdiOptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_cdi_claim_spec_json(out, claim_json.data(), claim_json.size(), n.get(), d.get(), &c, e);
  });
}

// {"node","driver","fileName","document"}: the static spec of a node's devices of one driver.
inline Result<std::string> CdiNodeSpecJson(const Snapshot& snapshot, std::string_view node, std::string_view driver,
                                           const CdiOptions& options = {}) {
  detail::CString n(node), d(driver);
  const draforge_cdi_options c = detail::CCdiOptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_cdi_node_spec_json(out, snapshot.c_handle(), n.get(), d.get(), &c, e);
  });
}

// Writes a CDI document as `dir`/`file_name` after validating it; true when the file changed,
// false when it already held these bytes (cdi.h draforge_cdi_spec_file_write).
inline Result<bool> CdiSpecFileWrite(std::string_view dir, std::string_view file_name, std::string_view document,
                                     const CdiOptions& options = {}) {
  detail::CString d(dir), f(file_name);
  const draforge_cdi_options c = detail::CCdiOptions(options);
  int written = 0;
  draforge_error* e = nullptr;
  const int rc = draforge_cdi_spec_file_write(&written, d.get(), f.get(), document.data(), document.size(), &c, &e);
  if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
  return written != 0;
}

// Removes the spec file `dir`/`file_name`, durably; a missing file is success.
inline Result<void> CdiSpecFileRemove(std::string_view dir, std::string_view file_name) {
  detail::CString d(dir), f(file_name);
  draforge_error* e = nullptr;
  const int rc = draforge_cdi_spec_file_remove(d.get(), f.get(), &e);
  if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
  return {};
}

}  // namespace draforge

#endif  // DRAFORGE_CPP_CDI_HPP
