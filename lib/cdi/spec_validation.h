// Validation of CDI specs, as strict as the container runtimes' readers, or stricter.
//
// Two levels (../shared/notes/cdi.md §6):
//   kCompat  what released reference-library readers (containerd, CRI-O, podman, Docker) accept:
//            use it to audit files someone else wrote.
//   kStrict  kCompat plus the rules for what DRAForge writes: canonical names runtimes of every
//            generation accept (lowercase DNS-subdomain vendor, class without dots, lengths), absolute
//            paths, positive hook timeouts, annotation keys that are Kubernetes qualified names, and a
//            cdiVersion exactly equal to the computed minimum.
// Both levels refuse a cdiVersion above `max_version`: a runtime whose CDI library does not know a
// version rejects the whole file.
#ifndef DRAFORGE_CDI_SPEC_VALIDATION_H_
#define DRAFORGE_CDI_SPEC_VALIDATION_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "cdi/problem.h"
#include "cdi/spec.h"
#include "cdi/spec_codec.h"
#include "cdi/version.h"

namespace draforge::cdi {

enum class Strictness { kCompat, kStrict };

struct ValidateOptions {
  Strictness strictness = Strictness::kStrict;
  // The newest cdiVersion the target runtimes accept. Must be a known version.
  std::string max_version = kDefaultMaxVersion;
};

// Every problem of `spec` (empty: valid), in document order. Never fails: an unusable
// `options.max_version` is itself reported as a problem at "$.cdiVersion".
std::vector<Problem> Validate(const Spec& spec, const ValidateOptions& options = {});

// Decodes and validates one document (JSON or YAML per `format`): decoding problems first, then
// validation problems of what decoded. Empty: the document is valid.
std::vector<Problem> ValidateDocument(std::string_view text, Format format, const ValidateOptions& options = {});

// OK when Validate finds nothing; otherwise kInvalidArgument "CDI spec <what>: <problems>".
absl::Status ValidationStatus(const Spec& spec, std::string_view what, const ValidateOptions& options = {});

}  // namespace draforge::cdi

#endif  // DRAFORGE_CDI_SPEC_VALIDATION_H_
