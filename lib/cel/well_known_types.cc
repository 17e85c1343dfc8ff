// The well-known messages as cel-go v0.29 builds them (common/types/provider.go NewValue and
// msgSetField on dynamicpb messages, then pb/type.go unwrap / unwrapDynamic).
#include "cel/well_known_types.h"

#include <cstring>
#include <limits>

#include "cel/internal/protobuf_wire.h"
#include "cel/internal/str.h"
#include "cel/internal/values.h"

namespace draforge::cel {

using internal::Cat;
using internal::NativeType;

namespace {

constexpr MessageField kWrapperInt32[] = {{"value", 1, NativeType::kInt32, MessageField::kSingular}};
constexpr MessageField kWrapperInt64[] = {{"value", 1, NativeType::kInt64, MessageField::kSingular}};
constexpr MessageField kWrapperUint32[] = {{"value", 1, NativeType::kUint32, MessageField::kSingular}};
constexpr MessageField kWrapperUint64[] = {{"value", 1, NativeType::kUint64, MessageField::kSingular}};
constexpr MessageField kWrapperFloat[] = {{"value", 1, NativeType::kFloat32, MessageField::kSingular}};
constexpr MessageField kWrapperDouble[] = {{"value", 1, NativeType::kFloat64, MessageField::kSingular}};
constexpr MessageField kWrapperBool[] = {{"value", 1, NativeType::kBool, MessageField::kSingular}};
constexpr MessageField kWrapperString[] = {{"value", 1, NativeType::kString, MessageField::kSingular}};
constexpr MessageField kWrapperBytes[] = {{"value", 1, NativeType::kBytes, MessageField::kSingular}};
constexpr MessageField kSecondsNanos[] = {{"seconds", 1, NativeType::kInt64, MessageField::kSingular},
                                          {"nanos", 2, NativeType::kInt32, MessageField::kSingular}};
constexpr MessageField kAnyFields[] = {{"type_url", 1, NativeType::kString, MessageField::kSingular},
                                       {"value", 2, NativeType::kBytes, MessageField::kSingular}};
constexpr MessageField kStructFields[] = {{"fields", 1, NativeType::kJsonValue, MessageField::kMap}};
constexpr MessageField kListValueFields[] = {{"values", 1, NativeType::kJsonValue, MessageField::kRepeated}};
// google.protobuf.Value's oneof `kind`.
constexpr MessageField kValueFields[] = {{"null_value", 1, NativeType::kEnumNumber, MessageField::kSingular},
                                         {"number_value", 2, NativeType::kFloat64, MessageField::kSingular},
                                         {"string_value", 3, NativeType::kString, MessageField::kSingular},
                                         {"bool_value", 4, NativeType::kBool, MessageField::kSingular},
                                         {"struct_value", 5, NativeType::kJsonStruct, MessageField::kSingular},
                                         {"list_value", 6, NativeType::kJsonList, MessageField::kSingular}};

template <size_t N>
constexpr MessageType Message(WellKnown w, std::string_view name, const MessageField (&f)[N]) {
  return {w, name, f, N};
}

const MessageType kMessages[] = {
    Message(WellKnown::kAny, "google.protobuf.Any", kAnyFields),
    Message(WellKnown::kBoolValue, "google.protobuf.BoolValue", kWrapperBool),
    Message(WellKnown::kBytesValue, "google.protobuf.BytesValue", kWrapperBytes),
    Message(WellKnown::kDoubleValue, "google.protobuf.DoubleValue", kWrapperDouble),
    Message(WellKnown::kFloatValue, "google.protobuf.FloatValue", kWrapperFloat),
    Message(WellKnown::kInt32Value, "google.protobuf.Int32Value", kWrapperInt32),
    Message(WellKnown::kInt64Value, "google.protobuf.Int64Value", kWrapperInt64),
    Message(WellKnown::kStringValue, "google.protobuf.StringValue", kWrapperString),
    Message(WellKnown::kUInt32Value, "google.protobuf.UInt32Value", kWrapperUint32),
    Message(WellKnown::kUInt64Value, "google.protobuf.UInt64Value", kWrapperUint64),
    Message(WellKnown::kDuration, "google.protobuf.Duration", kSecondsNanos),
    Message(WellKnown::kTimestamp, "google.protobuf.Timestamp", kSecondsNanos),
    {WellKnown::kEmpty, "google.protobuf.Empty", nullptr, 0},
    Message(WellKnown::kStruct, "google.protobuf.Struct", kStructFields),
    Message(WellKnown::kValue, "google.protobuf.Value", kValueFields),
    Message(WellKnown::kListValue, "google.protobuf.ListValue", kListValueFields),
    {WellKnown::kNullValue, "google.protobuf.NullValue", nullptr, 0},
};

const MessageType& Get(WellKnown w) { return kMessages[static_cast<size_t>(w)]; }

const MessageType* FindByName(std::string_view full_name) {
  for (const MessageType& m : kMessages) {
    if (m.full_name == full_name && m.which != WellKnown::kNullValue) return &m;
  }
  return nullptr;
}

// --- Construction ---

Value FieldError(Arena& arena, const MessageType& m, const MessageField& f, std::string_view err) {
  return MakeError(arena, Cat("field type conversion error for ", m.full_name, ".", f.name, " value type: ", err));
}

// protobuf's Duration.AsDuration: seconds and nanos as one time.Duration, saturated on overflow.
int64_t AsDuration(int64_t secs, int32_t nanos) {
  int64_t d;
  bool overflow = __builtin_mul_overflow(secs, int64_t{1000000000}, &d);
  if (overflow) d = static_cast<int64_t>(static_cast<uint64_t>(secs) * 1000000000u);
  d = static_cast<int64_t>(static_cast<uint64_t>(d) + static_cast<uint64_t>(static_cast<int64_t>(nanos)));
  overflow = overflow || (secs < 0 && nanos < 0 && d > 0) || (secs > 0 && nanos > 0 && d < 0);
  if (overflow) {
    if (secs < 0) return std::numeric_limits<int64_t>::min();
    if (secs > 0) return std::numeric_limits<int64_t>::max();
  }
  return d;
}

// protobuf's Timestamp.AsTime (time.Unix(s, n).UTC()): nanoseconds carried into the seconds.
Value AsTime(int64_t secs, int32_t nanos) {
  int64_t n = nanos;
  if (n < 0 || n >= 1000000000) {
    secs += n / 1000000000;
    n %= 1000000000;
    if (n < 0) {
      n += 1000000000;
      --secs;
    }
  }
  return Value::Timestamp(secs, static_cast<uint32_t>(n));
}

// --- Reading an Any's payload (proto.Unmarshal into the registered Go type, then unwrap) ---

constexpr int kMaxAnyDepth = 100;

bool Unpack(std::string_view type_url, std::string_view payload, Arena& arena, int depth, Value* out);

bool ReadString(const internal::WireField& f, std::string_view* s) {
  // proto3 strings must be valid UTF-8 (Go: "string field contains invalid UTF-8").
  if (!internal::ValidUtf8(f.bytes)) return false;
  *s = f.bytes;
  return true;
}

bool ReadValue(std::string_view data, Arena& arena, Value* out);

bool ReadStruct(std::string_view data, Arena& arena, ArrayMap* map) {
  internal::WireReader r(data);
  internal::WireField f;
  while (r.Next(&f)) {
    if (f.number != 1 || f.type != internal::WireType::kBytes) continue;
    internal::WireReader entry(f.bytes);
    internal::WireField e;
    std::string_view key;
    Value value;  // a missing value is an empty google.protobuf.Value: null
    while (entry.Next(&e)) {
      if (e.number == 1 && e.type == internal::WireType::kBytes) {
        if (!ReadString(e, &key)) return false;
      } else if (e.number == 2 && e.type == internal::WireType::kBytes) {
        if (!ReadValue(e.bytes, arena, &value)) return false;
      }
    }
    if (!entry.ok()) return false;
    map->Put(arena, Value::String(key), value);
  }
  return r.ok();
}

bool ReadListValue(std::string_view data, Arena& arena, MutableList* list) {
  internal::WireReader r(data);
  internal::WireField f;
  while (r.Next(&f)) {
    if (f.number != 1 || f.type != internal::WireType::kBytes) continue;
    Value v;
    if (!ReadValue(f.bytes, arena, &v)) return false;
    list->Append(arena, v);
  }
  return r.ok();
}

bool ReadValue(std::string_view data, Arena& arena, Value* out) {
  internal::WireReader r(data);
  internal::WireField f;
  *out = Value::Null();
  // A repeated embedded message of the same oneof member merges into it.
  ArrayMap* map = nullptr;
  MutableList* list = nullptr;
  while (r.Next(&f)) {
    using internal::WireType;
    switch (f.number) {
      case 1:
        if (f.type == WireType::kVarint) *out = Value::Null();
        break;
      case 2:
        if (f.type == WireType::kFixed64) {
          double d;
          std::memcpy(&d, &f.scalar, sizeof d);
          *out = Value::Double(d);
        }
        break;
      case 3:
        if (f.type == WireType::kBytes) {
          std::string_view s;
          if (!ReadString(f, &s)) return false;
          *out = Value::String(s);
        }
        break;
      case 4:
        if (f.type == WireType::kVarint) *out = Value::Bool(f.scalar != 0);
        break;
      case 5:
        if (f.type == WireType::kBytes) {
          if (out->kind() != ValueKind::kMap || map == nullptr || out->map() != map) map = arena.New<ArrayMap>();
          if (!ReadStruct(f.bytes, arena, map)) return false;
          *out = Value::Map(map);
        }
        break;
      case 6:
        if (f.type == WireType::kBytes) {
          if (out->kind() != ValueKind::kList || list == nullptr || out->list() != list) list = arena.New<MutableList>();
          if (!ReadListValue(f.bytes, arena, list)) return false;
          *out = Value::List(list);
        }
        break;
      default: break;
    }
  }
  return r.ok();
}

bool Unpack(std::string_view type_url, std::string_view payload, Arena& arena, int depth, Value* out) {
  if (depth > kMaxAnyDepth) return false;
  // protoregistry.FindMessageByURL: the name after the last '/'.
  std::string_view name = type_url;
  if (size_t slash = name.rfind('/'); slash != std::string_view::npos) name = name.substr(slash + 1);
  const MessageType* m = FindByName(name);
  if (m == nullptr) return false;
  internal::WireReader r(payload);
  internal::WireField f;
  using internal::WireType;
  switch (m->which) {
    case WellKnown::kStruct: {
      ArrayMap* map = arena.New<ArrayMap>();
      if (!ReadStruct(payload, arena, map)) return false;
      *out = Value::Map(map);
      return true;
    }
    case WellKnown::kListValue: {
      MutableList* list = arena.New<MutableList>();
      if (!ReadListValue(payload, arena, list)) return false;
      *out = Value::List(list);
      return true;
    }
    case WellKnown::kValue: return ReadValue(payload, arena, out);
    case WellKnown::kEmpty:
      while (r.Next(&f)) {
      }
      *out = Value::Message(m->full_name);
      return r.ok();
    case WellKnown::kDuration:
    case WellKnown::kTimestamp: {
      int64_t secs = 0;
      int32_t nanos = 0;
      while (r.Next(&f)) {
        if (f.type != WireType::kVarint) continue;
        if (f.number == 1) secs = static_cast<int64_t>(f.scalar);
        if (f.number == 2) nanos = static_cast<int32_t>(static_cast<uint32_t>(f.scalar));
      }
      if (!r.ok()) return false;
      *out = m->which == WellKnown::kDuration ? Value::Duration(AsDuration(secs, nanos)) : AsTime(secs, nanos);
      return true;
    }
    case WellKnown::kAny: {
      std::string_view url, value;
      while (r.Next(&f)) {
        if (f.type != WireType::kBytes) continue;
        if (f.number == 1 && !ReadString(f, &url)) return false;
        if (f.number == 2) value = f.bytes;
      }
      return r.ok() && Unpack(url, value, arena, depth + 1, out);
    }
    case WellKnown::kNullValue: return false;
    default: break;
  }
  // The wrappers: field 1, `value`, of the message's own wire type.
  switch (m->which) {
    case WellKnown::kInt32Value: case WellKnown::kInt64Value: *out = Value::Int(0); break;
    case WellKnown::kUInt32Value: case WellKnown::kUInt64Value: *out = Value::Uint(0); break;
    case WellKnown::kFloatValue: case WellKnown::kDoubleValue: *out = Value::Double(0); break;
    case WellKnown::kBoolValue: *out = Value::Bool(false); break;
    case WellKnown::kStringValue: *out = Value::String(""); break;
    default: *out = Value::Bytes(""); break;
  }
  while (r.Next(&f)) {
    if (f.number != 1) continue;
    switch (m->which) {
      case WellKnown::kInt32Value:
        if (f.type == WireType::kVarint) *out = Value::Int(static_cast<int32_t>(static_cast<uint32_t>(f.scalar)));
        break;
      case WellKnown::kInt64Value:
        if (f.type == WireType::kVarint) *out = Value::Int(static_cast<int64_t>(f.scalar));
        break;
      case WellKnown::kUInt32Value:
        if (f.type == WireType::kVarint) *out = Value::Uint(static_cast<uint32_t>(f.scalar));
        break;
      case WellKnown::kUInt64Value:
        if (f.type == WireType::kVarint) *out = Value::Uint(f.scalar);
        break;
      case WellKnown::kBoolValue:
        if (f.type == WireType::kVarint) *out = Value::Bool(f.scalar != 0);
        break;
      case WellKnown::kFloatValue:
        if (f.type == WireType::kFixed32) {
          float x;
          const uint32_t bits = static_cast<uint32_t>(f.scalar);
          std::memcpy(&x, &bits, sizeof x);
          *out = Value::Double(x);
        }
        break;
      case WellKnown::kDoubleValue:
        if (f.type == WireType::kFixed64) {
          double x;
          std::memcpy(&x, &f.scalar, sizeof x);
          *out = Value::Double(x);
        }
        break;
      case WellKnown::kStringValue:
        if (f.type == WireType::kBytes) {
          std::string_view s;
          if (!ReadString(f, &s)) return false;
          *out = Value::String(s);
        }
        break;
      default:
        if (f.type == WireType::kBytes) *out = Value::Bytes(f.bytes);
        break;
    }
  }
  return r.ok();
}

}  // namespace

const MessageField* MessageType::FindField(std::string_view name) const {
  for (size_t i = 0; i < field_count; ++i) {
    if (fields[i].name == name) return &fields[i];
  }
  return nullptr;
}

std::optional<MessageConstruction> ResolveMessageConstruction(std::string_view name, bool* not_a_message) {
  *not_a_message = false;
  if (const MessageType* m = FindByName(name)) {
    // cel-go's checker looks the fields up under the name its result type maps back to
    // (getWellKnownTypeName): Int32Value as Int64Value, UInt32Value as UInt64Value, FloatValue as
    // DoubleValue. The fields agree in name and checked type.
    MessageConstruction c;
    c.fields_of = m;
    c.known_at_runtime = true;
    switch (m->which) {
      case WellKnown::kInt32Value:
      case WellKnown::kInt64Value: c.type = Type::Wrapper(Type::Int()); break;
      case WellKnown::kUInt32Value:
      case WellKnown::kUInt64Value: c.type = Type::Wrapper(Type::Uint()); break;
      case WellKnown::kFloatValue:
      case WellKnown::kDoubleValue: c.type = Type::Wrapper(Type::Double()); break;
      case WellKnown::kBoolValue: c.type = Type::Wrapper(Type::Bool()); break;
      case WellKnown::kStringValue: c.type = Type::Wrapper(Type::String()); break;
      case WellKnown::kBytesValue: c.type = Type::Wrapper(Type::Bytes()); break;
      case WellKnown::kAny: c.type = Type::Any(); break;
      case WellKnown::kDuration: c.type = Type::Duration(); break;
      case WellKnown::kTimestamp: c.type = Type::Timestamp(); break;
      case WellKnown::kEmpty: c.type = Type::Object(std::string(m->full_name)); break;
      case WellKnown::kStruct: c.type = Type::Map(Type::String(), Type::Dyn()); break;
      case WellKnown::kValue: c.type = Type::Dyn(); break;
      case WellKnown::kListValue: c.type = Type::List(Type::Dyn()); break;
      case WellKnown::kNullValue: return std::nullopt;
    }
    return c;
  }
  // Type identifiers whose type cel-go counts as well-known: they check as the message they map to,
  // but the planner has no message of that name.
  if (name == "list") return MessageConstruction{&Get(WellKnown::kListValue), Type::List(Type::Dyn()), false};
  if (name == "null_type") return MessageConstruction{&Get(WellKnown::kNullValue), Type::Null(), false};
  static constexpr std::string_view kTypes[] = {"int",  "uint", "double",        "bool",   "string",  "bytes",
                                                "map",  "type", "optional_type", "net.IP", "net.CIDR"};
  for (std::string_view t : kTypes) {
    if (name == t) *not_a_message = true;
  }
  return std::nullopt;
}

Type FieldType(const MessageField& f) {
  if (f.shape == MessageField::kMap) return Type::Map(Type::String(), Type::Dyn());
  if (f.shape == MessageField::kRepeated) return Type::List(Type::Dyn());
  switch (f.native) {
    case NativeType::kBool: return Type::Bool();
    case NativeType::kInt32:
    case NativeType::kInt64:
    case NativeType::kEnumNumber: return Type::Int();
    case NativeType::kUint8:
    case NativeType::kUint32:
    case NativeType::kUint64: return Type::Uint();
    case NativeType::kFloat32:
    case NativeType::kFloat64: return Type::Double();
    case NativeType::kString: return Type::String();
    case NativeType::kBytes: return Type::Bytes();
    case NativeType::kJsonValue: return Type::Dyn();
    case NativeType::kJsonStruct: return Type::Map(Type::String(), Type::Dyn());
    case NativeType::kJsonList:
    case NativeType::kJsonValueList: return Type::List(Type::Dyn());
  }
  return Type::Dyn();
}

Value NewMessage(const MessageType& m, const MessageField* const* fields, const Value* values, size_t n,
                 Arena& arena) {
  constexpr size_t kMaxFields = 8;
  Value conv[kMaxFields];
  bool set[kMaxFields] = {};
  int last = -1;  // the oneof member of google.protobuf.Value set last
  std::string err;
  for (size_t i = 0; i < n; ++i) {
    const MessageField& f = *fields[i];
    const size_t idx = static_cast<size_t>(&f - m.fields);
    const Value& v = values[i];
    NativeType target = f.native;
    if (f.shape != MessageField::kSingular) {
      // msgSetField: a map field takes a map, a repeated field a list, before any element converts.
      const ValueKind want = f.shape == MessageField::kMap ? ValueKind::kMap : ValueKind::kList;
      if (v.kind() != want) {
        return MakeError(arena, Cat("unsupported field type for ", m.full_name, ".", f.name, ": ", TypeName(v)));
      }
      target = f.shape == MessageField::kMap ? NativeType::kJsonStruct : NativeType::kJsonValueList;
    }
    if (!internal::ConvertToNative(v, target, arena, &conv[idx], &err)) return FieldError(arena, m, f, err);
    set[idx] = true;
    last = static_cast<int>(idx);
  }
  auto field = [&](size_t idx, Value dflt) { return set[idx] ? conv[idx] : dflt; };
  switch (m.which) {
    case WellKnown::kInt32Value:
    case WellKnown::kInt64Value: return field(0, Value::Int(0));
    case WellKnown::kUInt32Value:
    case WellKnown::kUInt64Value: return field(0, Value::Uint(0));
    case WellKnown::kFloatValue:
    case WellKnown::kDoubleValue: return field(0, Value::Double(0));
    case WellKnown::kBoolValue: return field(0, Value::Bool(false));
    case WellKnown::kStringValue: return field(0, Value::String(""));
    case WellKnown::kBytesValue: return field(0, Value::Bytes(""));
    case WellKnown::kDuration:
      return Value::Duration(AsDuration(field(0, Value::Int(0)).int_value(),
                                        static_cast<int32_t>(field(1, Value::Int(0)).int_value())));
    case WellKnown::kTimestamp:
      return AsTime(field(0, Value::Int(0)).int_value(), static_cast<int32_t>(field(1, Value::Int(0)).int_value()));
    case WellKnown::kEmpty: return Value::Message(m.full_name);
    case WellKnown::kStruct: return field(0, Value::Map(arena.New<ArrayMap>()));
    case WellKnown::kListValue: return field(0, Value::List(arena.New<ArrayList>(nullptr, 0)));
    case WellKnown::kValue:
      // The oneof holds the member set last; no member (or null_value) is JSON null.
      if (last <= 0) return Value::Null();
      return conv[last];
    case WellKnown::kAny: {
      const std::string_view url = field(0, Value::String("")).str();
      const std::string_view payload = field(1, Value::Bytes("")).str();
      Value out;
      if (Unpack(url, payload, arena, 0, &out)) return out;
      // cel-go cannot unwrap it and prints the dynamic message in the text format.
      std::string text = "unsupported conversion to ref.Val: (*dynamicpb.Message)";
      if (!url.empty()) text += Cat("type_url:", internal::TextQuote(url));
      if (!payload.empty()) text += Cat(url.empty() ? "" : " ", "value:", internal::TextQuote(payload));
      return MakeError(arena, text);
    }
    case WellKnown::kNullValue: break;
  }
  return MakeError(arena, Cat("unknown type '", m.full_name, "'"));
}

}  // namespace draforge::cel
