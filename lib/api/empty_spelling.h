// api::EmptySpelling: how an unset field that Go writes without `omitempty` was spelled.
#ifndef DRAFORGE_API_EMPTY_SPELLING_H_
#define DRAFORGE_API_EMPTY_SPELLING_H_

#include <cstdint>

namespace draforge::api {

// A few Kubernetes fields have no `omitempty` in their JSON tag (DeviceClaim.requests,
// AllocatedDeviceStatus.conditions, CapacityRequestPolicy.default, NodeSelector.nodeSelectorTerms,
// PodSpec.containers, Condition.lastTransitionTime; ObjectMeta.creationTimestamp, a struct that
// omitempty cannot omit).
// Go writes such a field when it is unset: a nil slice or pointer as `null`, an empty slice as `[]`.
// So the API server returns `"requests": null` for a claim with `devices: {}`, and a decode+encode
// round trip must tell the three spellings of "no value" apart. Each such field has a companion
// member `<field>_spelling`, set by the decoder and read by the encoder; it matters only while the
// field itself is unset (an empty list, an empty optional). The default, kAbsent, writes nothing, so
// objects built in code encode as before.
enum class EmptySpelling : uint8_t {
  kAbsent,  // not in the input: not written
  kNull,    // written as `null`
  kEmpty,   // written as `[]` (lists only)
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_EMPTY_SPELLING_H_
