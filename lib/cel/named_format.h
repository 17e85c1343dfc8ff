// kubernetes.NamedFormat values of the Kubernetes format CEL library
// (k8s.io/apiserver/pkg/cel/library/format.go, pkg/cel/format.go): `format.dns1123Label()`,
// `format.named("uri")`, ... and `<format>.validate(<string>)`.
#ifndef DRAFORGE_CEL_NAMED_FORMAT_H_
#define DRAFORGE_CEL_NAMED_FORMAT_H_

#include <string>
#include <string_view>
#include <vector>

namespace draforge::cel {

struct NamedFormat {
  std::string_view key;       // the library's name: "dns1123Label" (format.dns1123Label())
  std::string_view go_name;   // Format.Name upstream: "DNS1123Label" (compared by ==, printed)
  // The validation errors of `s` (empty: valid), with apimachinery's / kube-openapi's texts.
  std::vector<std::string> (*validate)(std::string_view s);
  int max_regex_size;  // Format.MaxRegexSize: the runtime cost of validate()
};

// The format named `key` (the library's ConstantFormats), or null. The table is immutable.
const NamedFormat* FindNamedFormat(std::string_view key);

// How cel-go prints a Format value (Go's %v of the struct; the function pointer is printed as 0x0,
// since Go prints an address): `{DNS1123Label %!s(func(string) []string=0x0) %!s(int=30)}`.
std::string FormatValueString(const NamedFormat& f);

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_NAMED_FORMAT_H_
