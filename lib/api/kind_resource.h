// The REST resource of a kind DRAForge models ("resourceslices"), for callers that name kinds as
// kubectl does and must build a path or tell a caller the resource (capi's draforge_kind_info_json).
#ifndef DRAFORGE_API_KIND_RESOURCE_H_
#define DRAFORGE_API_KIND_RESOURCE_H_

#include <string_view>

#include "api/object.h"

namespace draforge::api {

// The resource (lower-case plural) of `kind`, as in a REST path ("resourceslices"); "" for kOther.
std::string_view KindResource(Kind kind);

}  // namespace draforge::api

#endif  // DRAFORGE_API_KIND_RESOURCE_H_
