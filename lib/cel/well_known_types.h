// cel::MessageType: the protobuf well-known messages that cel-go's default type registry declares,
// so that Kubernetes' DRA environment accepts constructing them (`google.protobuf.Int32Value{value:
// 1}`, `google.protobuf.Struct{fields: {...}}`), and how cel-go builds and unwraps them.
#ifndef DRAFORGE_CEL_WELL_KNOWN_TYPES_H_
#define DRAFORGE_CEL_WELL_KNOWN_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cel/internal/native_conversion.h"
#include "cel/types.h"
#include "cel/value.h"

namespace draforge::cel {

enum class WellKnown : uint8_t {
  kAny,
  kBoolValue,
  kBytesValue,
  kDoubleValue,
  kFloatValue,
  kInt32Value,
  kInt64Value,
  kStringValue,
  kUInt32Value,
  kUInt64Value,
  kDuration,
  kTimestamp,
  kEmpty,
  kStruct,
  kValue,
  kListValue,
  kNullValue,  // an enum: constructible only through the type name `null_type` (and fails at run time)
};

struct MessageField {
  std::string_view name;
  int32_t number;               // the protobuf field number (reading an Any's payload)
  internal::NativeType native;  // what cel-go converts a value to before setting the field
  enum Shape : uint8_t { kSingular, kRepeated, kMap } shape;  // kMap: string keys
};

struct MessageType {
  WellKnown which;
  std::string_view full_name;
  const MessageField* fields;
  size_t field_count;

  // The field `name`, or null.
  const MessageField* FindField(std::string_view name) const;
};

// How a construction `name{...}` resolves in cel-go's checker: the type whose fields it checks
// against, its static type, and whether the planner knows the name at run time (`list{}` type-checks
// as a google.protobuf.ListValue but fails with "unknown type 'list'").
struct MessageConstruction {
  const MessageType* fields_of = nullptr;
  Type type;
  bool known_at_runtime = false;
};

// `name` is the type name as written, without a leading dot. Returns nullopt when `name` is not a
// message: *not_a_message is then set to true for a declared non-message type (`int`, `net.IP`:
// "'int' is not a message type") and false for an undeclared name.
std::optional<MessageConstruction> ResolveMessageConstruction(std::string_view name, bool* not_a_message);

// The checked type of a message field (ints for all integer kinds, double for floats, an enum as
// int, JSON fields as dyn, list(dyn) and map(string, dyn)).
Type FieldType(const MessageField& field);

// Builds message `m` from the fields set (`fields[i]` of `m` to `values[i]`; at most one value per
// field) and returns what cel-go's registry gives for it: the wrappers, Value, Struct, ListValue,
// Duration and Timestamp unwrap to CEL values, Any unpacks its payload, Empty is a message value.
// A value that does not convert to its field gives cel-go's "field type conversion error for
// <message>.<field> value type: ..." error value. Allocates in `arena`.
Value NewMessage(const MessageType& m, const MessageField* const* fields, const Value* values, size_t n,
                 Arena& arena);

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_WELL_KNOWN_TYPES_H_
