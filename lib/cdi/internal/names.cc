#include "cdi/internal/names.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/qualified_name.h"
#include "common/status.h"

namespace draforge::cdi::internal {
namespace {

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsLetter(c) || IsDigit(c); }

std::string Q(std::string_view s) { return absl::StrCat("\"", AV(s), "\""); }

}  // namespace

std::string CompatKindPartError(std::string_view what, std::string_view name) {
  if (name.empty()) return absl::StrCat(AV(what), " must not be empty");
  if (!IsLetter(name.front())) return absl::StrCat(AV(what), " ", Q(name), " must start with a letter");
  for (size_t i = 1; i + 1 < name.size(); ++i) {
    const char c = name[i];
    if (!IsAlnum(c) && c != '_' && c != '.' && c != '-') {
      return absl::StrCat(AV(what), " ", Q(name), " has an invalid character ", Q(std::string_view(&name[i], 1)),
                          " (allowed: letters, digits, '_', '.', '-')");
    }
  }
  if (!IsAlnum(name.back())) return absl::StrCat(AV(what), " ", Q(name), " must end with a letter or digit");
  return {};
}

std::string StrictVendorError(std::string_view vendor) {
  if (std::string e = CompatKindPartError("vendor", vendor); !e.empty()) return e;
  std::vector<std::string> errs = api::IsDNS1123Subdomain(vendor);
  if (!errs.empty()) {
    return absl::StrCat("vendor ", Q(vendor), " is not a lowercase DNS subdomain: ", absl::StrJoin(errs, "; "));
  }
  return {};
}

std::string StrictClassError(std::string_view cdi_class) {
  if (std::string e = CompatKindPartError("class", cdi_class); !e.empty()) return e;
  if (cdi_class.size() > 63) return absl::StrCat("class ", Q(cdi_class), " is longer than 63 characters");
  for (char c : cdi_class) {
    if (!(c >= 'a' && c <= 'z') && !IsDigit(c) && c != '-') {
      return absl::StrCat("class ", Q(cdi_class),
                          " must consist of lowercase letters, digits and '-' (runtimes with CDI before v0.6 "
                          "and older kubelets refuse others)");
    }
  }
  return {};
}

std::string DeviceNameError(std::string_view name, bool strict) {
  if (name.empty()) return "device name must not be empty";
  if (!IsAlnum(name.front())) return absl::StrCat("device name ", Q(name), " must start with a letter or digit");
  for (size_t i = 1; i + 1 < name.size(); ++i) {
    const char c = name[i];
    if (!IsAlnum(c) && c != '_' && c != '.' && c != '-' && (strict || c != ':')) {
      return absl::StrCat("device name ", Q(name), " has an invalid character ", Q(std::string_view(&name[i], 1)),
                          strict ? " (allowed: letters, digits, '_', '.', '-')"
                                 : " (allowed: letters, digits, '_', '.', ':', '-')");
    }
  }
  if (!IsAlnum(name.back())) return absl::StrCat("device name ", Q(name), " must end with a letter or digit");
  return {};
}

std::string EnvToken(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') {
      c = static_cast<char>(c - 'a' + 'A');
    } else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
      c = '_';
    }
  }
  return out;
}

}  // namespace draforge::cdi::internal
