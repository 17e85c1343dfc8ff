// Conversion between resource.k8s.io versions, done on the JSON form. v1beta2 and v1alpha3 have the
// v1 shape; v1beta1 differs in two places, which these functions move the way the API server's
// conversion functions do:
//   - ResourceSlice: v1beta1 wraps every device field but `name` in `basic`.
//   - ResourceClaim(Template): v1beta1 requests carry the ExactDeviceRequest fields inline, v1 in
//     `exactly` (created when any of them is set).
#ifndef DRAFORGE_API_INTERNAL_CONVERSION_H_
#define DRAFORGE_API_INTERNAL_CONVERSION_H_

#include "api/object.h"
#include "rapidjson/document.h"

namespace draforge::api::internal {

// Rewrites `object` (the JSON of a `kind` in resource.k8s.io/v1beta1) into the v1 shape, in place.
void ConvertV1beta1ToV1(Kind kind, rapidjson::Value& object, rapidjson::Document::AllocatorType& alloc);

// Rewrites `object` (the JSON of a `kind` in the v1 shape) into the v1beta1 shape, in place.
void ConvertV1ToV1beta1(Kind kind, rapidjson::Value& object, rapidjson::Document::AllocatorType& alloc);

}  // namespace draforge::api::internal

#endif  // DRAFORGE_API_INTERNAL_CONVERSION_H_
