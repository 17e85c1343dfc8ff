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

}  // namespace draforge

#endif  // DRAFORGE_CPP_CDI_HPP
