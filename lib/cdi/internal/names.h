// Name rules for CDI kinds and device names (private to lib/cdi).
#ifndef DRAFORGE_CDI_INTERNAL_NAMES_H_
#define DRAFORGE_CDI_INTERNAL_NAMES_H_

#include <string>
#include <string_view>

namespace draforge::cdi::internal {

// Each returns "" when `name` is acceptable, else the reason (a sentence fragment naming `name`).

// The reference parser's vendor and class rule: a letter, then [A-Za-z0-9_.-], ending in a letter
// or digit. Any length.
std::string CompatKindPartError(std::string_view what, std::string_view name);
// Vendor as DRAForge writes it: a lowercase DNS subdomain (at most 253) that starts with a letter.
std::string StrictVendorError(std::string_view vendor);
// Class as DRAForge writes it: [a-z]([a-z0-9-]*[a-z0-9])?, at most 63 (older kubelets and CDI
// libraries refuse dots and underscores).
std::string StrictClassError(std::string_view cdi_class);
// The reference parser's device name rule: a letter or digit, then [A-Za-z0-9_.:-], ending in a
// letter or digit. With `strict`, ':' is refused too (SPEC.md does not allow it).
std::string DeviceNameError(std::string_view name, bool strict);

// `s` as a part of a container environment variable name: upper case, every character that is
// not a letter or digit becomes '_'. Injective on what it is given: UIDs (hex and '-') and device
// names and share IDs (DNS labels: lowercase alphanumerics and '-').
std::string EnvToken(std::string_view s);

}  // namespace draforge::cdi::internal

#endif  // DRAFORGE_CDI_INTERNAL_NAMES_H_
