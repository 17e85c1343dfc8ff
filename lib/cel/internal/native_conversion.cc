#include "cel/internal/native_conversion.h"

#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/escaping.h"
#include "cel/internal/str.h"
#include "cel/internal/values.h"
#include "cel/net.h"
#include "cel/url.h"

namespace draforge::cel::internal {

std::string_view NativeTypeName(NativeType t) {
  switch (t) {
    case NativeType::kBool: return "bool";
    case NativeType::kInt32: return "int32";
    case NativeType::kInt64: return "int64";
    case NativeType::kUint8: return "uint8";
    case NativeType::kUint32: return "uint32";
    case NativeType::kUint64: return "uint64";
    case NativeType::kFloat32: return "float32";
    case NativeType::kFloat64: return "float64";
    case NativeType::kString: return "string";
    case NativeType::kBytes: return "[]uint8";
    case NativeType::kEnumNumber: return "protoreflect.EnumNumber";
    case NativeType::kJsonValue: return "*structpb.Value";
    case NativeType::kJsonStruct: return "*structpb.Struct";
    case NativeType::kJsonList: return "*structpb.ListValue";
    case NativeType::kJsonValueList: return "[]*structpb.Value";
  }
  return "?";
}

namespace {

// JSON numbers hold integers exactly up to 2^53-1 (cel-go's maxIntJSON).
constexpr int64_t kMaxIntJson = (int64_t{1} << 53) - 1;

bool Fail(std::string* error, std::string msg) {
  *error = std::move(msg);
  return false;
}

// The quoted Go name cel-go and k8s.io/apiserver use in "type conversion error from 'X' to ..."
// for their own value types.
std::string_view LibraryTypeName(ValueKind k) {
  switch (k) {
    case ValueKind::kQuantity: return "Quantity";
    case ValueKind::kSemver: return "Semver";
    case ValueKind::kIP: return "IP";
    case ValueKind::kCIDR: return "CIDR";
    case ValueKind::kURL: return "URL";
    case ValueKind::kFormat: return "Format";
    case ValueKind::kDuration: return "Duration";
    case ValueKind::kTimestamp: return "Timestamp";
    default: return "";
  }
}

// String() of Kubernetes' value types, which their ConvertToNative gives for a string target.
std::string LibraryString(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kQuantity: return v.quantity()->Canonical();
    case ValueKind::kSemver: return v.semver()->String();
    case ValueKind::kIP: return v.ip()->String();
    case ValueKind::kCIDR: return v.cidr()->String();
    case ValueKind::kURL: return v.url()->String();
    default: return "";
  }
}

bool ConvertList(const Value& v, NativeType elem, Arena& arena, Value* out, std::string* error) {
  const ListValue& l = *v.list();
  Value* items = arena.NewArray<Value>(l.size());
  for (size_t i = 0; i < l.size(); ++i) {
    if (!ConvertToNative(l.Get(i), elem, arena, &items[i], error)) return false;
  }
  *out = Value::List(arena.New<ArrayList>(items, l.size()));
  return true;
}

// A map as map[string]*structpb.Value (cel-go's baseMap.ConvertToNative, Map case).
bool ConvertJsonMap(const Value& v, Arena& arena, Value* out, std::string* error) {
  const MapValue& m = *v.map();
  ArrayMap* json = arena.New<ArrayMap>();
  json->Reserve(arena, m.size());
  for (size_t i = 0; i < m.size(); ++i) {
    Value key, value;
    if (!ConvertToNative(m.KeyAt(i), NativeType::kString, arena, &key, error)) return false;
    if (!ConvertToNative(m.ValueAt(i), NativeType::kJsonValue, arena, &value, error)) return false;
    json->Put(arena, key, value);
  }
  *out = Value::Map(json);
  return true;
}

// cel-go's upperCamelCase: the Go field name a map key names when a map converts to a struct.
std::string UpperCamelCase(std::string_view s) {
  std::string out;
  bool upper = true;
  for (char c : s) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out.push_back(upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    upper = false;
  }
  return out;
}

// A map key as cel-go's ConvertToType(StringType) prints it.
std::string KeyString(const Value& k) {
  switch (k.kind()) {
    case ValueKind::kString: return std::string(k.str());
    case ValueKind::kInt: return std::to_string(k.int_value());
    case ValueKind::kUint: return std::to_string(k.uint_value());
    case ValueKind::kBool: return k.bool_value() ? "true" : "false";
    default: return LibraryString(k);
  }
}

// A map converted to the Go struct *structpb.ListValue by reflection: each key names an exported
// field; only `Values` exists.
bool ConvertMapToListValue(const Value& v, Arena& arena, Value* out, std::string* error) {
  const MapValue& m = *v.map();
  *out = Value::List(arena.New<ArrayList>(nullptr, 0));
  for (size_t i = 0; i < m.size(); ++i) {
    std::string name = UpperCamelCase(KeyString(m.KeyAt(i)));
    if (name != "Values") {
      return Fail(error, Cat("type conversion error, no such field '", name, "' in type 'structpb.ListValue'"));
    }
    if (!ConvertToNative(m.ValueAt(i), NativeType::kJsonValueList, arena, out, error)) return false;
  }
  return true;
}

}  // namespace

bool ConvertToNative(const Value& v, NativeType t, Arena& arena, Value* out, std::string* error) {
  const std::string_view tn = NativeTypeName(t);
  const bool json = t == NativeType::kJsonValue;
  switch (v.kind()) {
    case ValueKind::kNull:
      if (json) {
        *out = v;
        return true;
      }
      return Fail(error, Cat("type conversion error from 'null_type' to '", tn, "'"));
    case ValueKind::kBool:
      if (json || t == NativeType::kBool) {
        *out = v;
        return true;
      }
      return Fail(error, Cat("type conversion error from bool to '", tn, "'"));
    case ValueKind::kInt: {
      const int64_t i = v.int_value();
      switch (t) {
        case NativeType::kInt32:
        case NativeType::kEnumNumber:
          if (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()) {
            return Fail(error, "integer overflow");
          }
          *out = v;
          return true;
        case NativeType::kInt64: *out = v; return true;
        case NativeType::kJsonValue:
          *out = i >= -kMaxIntJson && i <= kMaxIntJson ? Value::Double(static_cast<double>(i))
                                                      : MakeString(arena, std::to_string(i));
          return true;
        default: return Fail(error, Cat("unsupported type conversion from 'int' to ", tn));
      }
    }
    case ValueKind::kUint: {
      const uint64_t u = v.uint_value();
      switch (t) {
        case NativeType::kUint8:
        case NativeType::kUint32:
          if (u > (t == NativeType::kUint8 ? 0xFFu : 0xFFFFFFFFu)) return Fail(error, "unsigned integer overflow");
          *out = v;
          return true;
        case NativeType::kUint64: *out = v; return true;
        case NativeType::kJsonValue:
          *out = u <= static_cast<uint64_t>(kMaxIntJson) ? Value::Double(static_cast<double>(u))
                                                        : MakeString(arena, std::to_string(u));
          return true;
        default: return Fail(error, Cat("unsupported type conversion from 'uint' to ", tn));
      }
    }
    case ValueKind::kDouble:
      if (t == NativeType::kFloat32) {
        *out = Value::Double(static_cast<double>(static_cast<float>(v.double_value())));
        return true;
      }
      if (json || t == NativeType::kFloat64) {
        *out = v;
        return true;
      }
      return Fail(error, Cat("type conversion error from Double to '", tn, "'"));
    case ValueKind::kString:
      if (json || t == NativeType::kString) {
        *out = v;
        return true;
      }
      return Fail(error, Cat("unsupported native conversion from string to '", tn, "'"));
    case ValueKind::kBytes:
      if (t == NativeType::kBytes) {
        *out = v;
        return true;
      }
      if (json) {
        // proto3 JSON (and Go's encoding/json): base64.StdEncoding.
        *out = MakeString(arena, absl::Base64Escape(absl::string_view(v.str().data(), v.str().size())));
        return true;
      }
      return Fail(error, Cat("type conversion error from Bytes to '", tn, "'"));
    case ValueKind::kList:
      switch (t) {
        case NativeType::kJsonValue:
        case NativeType::kJsonList:
        case NativeType::kJsonValueList: return ConvertList(v, NativeType::kJsonValue, arena, out, error);
        case NativeType::kBytes: {
          // []uint8 element by element: only uints up to 255 convert.
          Value list;
          if (!ConvertList(v, NativeType::kUint8, arena, &list, error)) return false;
          const ListValue& l = *list.list();
          std::string bytes;
          for (size_t i = 0; i < l.size(); ++i) bytes.push_back(static_cast<char>(l.Get(i).uint_value()));
          *out = Value::Bytes(arena.CopyString(bytes));
          return true;
        }
        default: return Fail(error, Cat("type conversion error from list to '", tn, "'"));
      }
    case ValueKind::kMap:
      switch (t) {
        case NativeType::kJsonValue:
        case NativeType::kJsonStruct: return ConvertJsonMap(v, arena, out, error);
        case NativeType::kJsonList: return ConvertMapToListValue(v, arena, out, error);
        default: return Fail(error, Cat("type conversion error from map to '", tn, "'"));
      }
    case ValueKind::kDuration:
    case ValueKind::kTimestamp:
      if (json) {
        *out = MakeString(arena, v.kind() == ValueKind::kDuration ? FormatDuration(v) : FormatTimestamp(v));
        return true;
      }
      return Fail(error, Cat("type conversion error from '", LibraryTypeName(v.kind()), "' to '", tn, "'"));
    case ValueKind::kType: return Fail(error, "type conversion not supported for 'type'");
    case ValueKind::kOptional:
      if (v.optional() == nullptr) return Fail(error, "optional.none() dereference");
      return ConvertToNative(v.optional()->value, t, arena, out, error);
    case ValueKind::kQuantity:
    case ValueKind::kSemver:
    case ValueKind::kIP:
    case ValueKind::kCIDR:
    case ValueKind::kURL:
      if (t == NativeType::kString) {
        *out = MakeString(arena, LibraryString(v));
        return true;
      }
      [[fallthrough]];
    case ValueKind::kFormat:
      return Fail(error, Cat("type conversion error from '", LibraryTypeName(v.kind()), "' to '", tn, "'"));
    case ValueKind::kMessage:
      // google.protobuf.Empty: to JSON through protojson ({}); into another message by proto merge.
      if (json) {
        *out = Value::Map(arena.New<ArrayMap>());
        return true;
      }
      if (t == NativeType::kJsonStruct || t == NativeType::kJsonList) {
        return Fail(error, Cat("type conversion error: pb.Merge() arguments must be the same type. got: ",
                               t == NativeType::kJsonStruct ? "google.protobuf.Struct" : "google.protobuf.ListValue",
                               ", ", v.str()));
      }
      return Fail(error, Cat("type conversion error from '*dynamicpb.Message' to '", tn, "'"));
    case ValueKind::kError: return Fail(error, std::string(v.error()->message));
  }
  return Fail(error, Cat("type conversion error to '", tn, "'"));
}

}  // namespace draforge::cel::internal
