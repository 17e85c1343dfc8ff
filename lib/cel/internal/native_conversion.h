// cel-go's ref.Val.ConvertToNative for the Go types DRAForge needs: the fields of the protobuf
// well-known messages (`google.protobuf.Int32Value{value: x}` converts x to an int32 first) and a
// selector's bool result. The error texts are cel-go's (and k8s.io/apiserver's for its types), with
// the Go type printed as %v prints a reflect.Type.
#ifndef DRAFORGE_CEL_INTERNAL_NATIVE_CONVERSION_H_
#define DRAFORGE_CEL_INTERNAL_NATIVE_CONVERSION_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "cel/value.h"

namespace draforge::cel::internal {

enum class NativeType : uint8_t {
  kBool,
  kInt32,
  kInt64,
  kUint8,  // an element of []uint8
  kUint32,
  kUint64,
  kFloat32,
  kFloat64,
  kString,
  kBytes,          // []uint8
  kEnumNumber,     // protoreflect.EnumNumber: an enum field of a dynamic message (NullValue)
  kJsonValue,      // *structpb.Value
  kJsonStruct,     // *structpb.Struct
  kJsonList,       // *structpb.ListValue
  kJsonValueList,  // []*structpb.Value
};

// Go's name of the type: "int32", "[]uint8", "*structpb.Value", ...
std::string_view NativeTypeName(NativeType t);

// Converts `v` as cel-go does. On success stores in `*out` the converted value as CEL holds it again
// after the round trip: ints and uints (range-checked for the 32- and 8-bit types), doubles (rounded
// to float32 for kFloat32), bools, strings (Kubernetes' quantity, semver, IP, CIDR and URL values
// give their string form), bytes, an enum number as an int; the JSON types give what a
// google.protobuf.Value unwraps to: null, bool, double, string, or lists and maps (string keys) of
// those. Ints and uints beyond 2^53-1 become decimal strings, bytes base64, durations and
// timestamps their JSON strings, google.protobuf.Empty an empty map. Lists and maps are allocated
// in `arena`. On failure returns false and stores cel-go's message in `*error`.
bool ConvertToNative(const Value& v, NativeType t, Arena& arena, Value* out, std::string* error);

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_NATIVE_CONVERSION_H_
