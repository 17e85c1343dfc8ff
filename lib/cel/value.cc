#include "cel/value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cel/internal/go_calendar.h"
#include "cel/internal/values.h"
#include "cel/named_format.h"
#include "cel/url.h"

namespace draforge::cel {

void* Arena::Allocate(size_t size, size_t align) {
  for (;;) {
    if (block_ < blocks_.size()) {
      Block& b = blocks_[block_];
      size_t start = (offset_ + align - 1) & ~(align - 1);
      if (start + size <= b.size) {
        offset_ = start + size;
        used_ += size;
        return b.data.get() + start;
      }
      if (block_ + 1 < blocks_.size()) {
        ++block_;
        offset_ = 0;
        continue;
      }
    }
    size_t want = blocks_.empty() ? 4096 : blocks_.back().size * 2;
    while (want < size + align) want *= 2;
    blocks_.push_back(Block{std::unique_ptr<char[]>(new char[want]), want});
    block_ = blocks_.size() - 1;
    offset_ = 0;
  }
}

std::string_view Arena::CopyString(std::string_view s) {
  if (s.empty()) return std::string_view();
  char* p = static_cast<char*>(Allocate(s.size(), 1));
  std::memcpy(p, s.data(), s.size());
  return std::string_view(p, s.size());
}

void Arena::Reset() {
  for (auto it = destructors_.rbegin(); it != destructors_.rend(); ++it) it->first(it->second);
  destructors_.clear();
  block_ = 0;
  offset_ = 0;
  used_ = 0;
}

void MutableList::Append(Arena& arena, Value v) {
  if (size_ == capacity_) {
    size_t cap = capacity_ == 0 ? 8 : capacity_ * 2;
    Value* n = arena.NewArray<Value>(cap);
    if (size_ > 0) std::memcpy(static_cast<void*>(n), items_, size_ * sizeof(Value));
    items_ = n;
    capacity_ = cap;
  }
  items_[size_++] = v;
}

void MutableList::AppendAll(Arena& arena, const ListValue& l) {
  for (size_t i = 0, n = l.size(); i < n; ++i) Append(arena, l.Get(i));
}

namespace {

// Whether two values of one kind are the same key of a Go map keyed by the CEL value: cel-go's
// lists, maps, optionals, quantities, URLs and formats are pointers there, so only the same
// object is the same key (`{dyn([1]): 1, dyn([1]): 2}` has two entries); the others compare by
// value.
bool SameGoMapKey(const Value& a, const Value& b) {
  switch (a.kind()) {
    case ValueKind::kList: return a.list() == b.list();
    case ValueKind::kMap: return a.map() == b.map();
    case ValueKind::kOptional: return a.optional() == b.optional();
    case ValueKind::kQuantity: return a.quantity() == b.quantity();
    case ValueKind::kURL: return a.url() == b.url();
    case ValueKind::kFormat: return a.format() == b.format();
    // time.Time ==: the instant and the *Location (TimestampZone). A fixed zone that is not whole
    // hours is a new *Location per parse, so such a key is never found (DRAForge cannot tell a
    // value from a copy of itself, which upstream would find: `[t].all(x, x in {x: 1})`).
    case ValueKind::kTimestamp:
      return ValueEquals(a, b) && a.zone() == b.zone() && a.offset_minutes() == b.offset_minutes() &&
             a.zone() != TimestampZone::kFixedOther;
    default: return ValueEquals(a, b);
  }
}

// Key equality for map lookups of `b` among the stored keys `a` (heterogeneous: 1 finds 1u, and
// a double 1.0 finds 1 or 1u, but 1 never finds a double key).
bool KeyEquals(const Value& a, const Value& b) {
  if (a.kind() == b.kind()) {
    switch (a.kind()) {
      case ValueKind::kString: return a.str() == b.str();
      case ValueKind::kInt: return a.int_value() == b.int_value();
      case ValueKind::kUint: return a.uint_value() == b.uint_value();
      case ValueKind::kBool: return a.bool_value() == b.bool_value();
      default: return SameGoMapKey(a, b);
    }
  }
  // cel-go looks a double up as an int or uint too, but an int or uint never finds a double key
  // (types/map.go refValMapAccessor.Find: "map keys of type double are not supported").
  if (a.kind() == ValueKind::kDouble) return false;
  if (a.IsNumber() && b.IsNumber()) return ValueEquals(a, b);
  return false;
}

}  // namespace

bool ArrayMap::Find(Value key, Value* out) const {
  for (size_t i = 0; i < size_; ++i) {
    if (KeyEquals(keys_[i], key)) {
      *out = values_[i];
      return true;
    }
  }
  return false;
}

void ArrayMap::Reserve(Arena& arena, size_t n) {
  if (n <= capacity_) return;
  Value* k = arena.NewArray<Value>(n);
  Value* v = arena.NewArray<Value>(n);
  if (size_ > 0) {
    std::memcpy(static_cast<void*>(k), keys_, size_ * sizeof(Value));
    std::memcpy(static_cast<void*>(v), values_, size_ * sizeof(Value));
  }
  keys_ = k;
  values_ = v;
  capacity_ = n;
}

bool ArrayMap::Insert(Arena& arena, Value key, Value value) {
  Value existing;
  if (Find(key, &existing)) return false;
  if (size_ == capacity_) Reserve(arena, capacity_ == 0 ? 4 : capacity_ * 2);
  keys_[size_] = key;
  values_[size_] = value;
  ++size_;
  return true;
}

void ArrayMap::Put(Arena& arena, Value key, Value value) {
  for (size_t i = 0; i < size_; ++i) {
    if (keys_[i].kind() == key.kind() && SameGoMapKey(keys_[i], key)) {
      values_[i] = value;
      return;
    }
  }
  if (size_ == capacity_) Reserve(arena, capacity_ == 0 ? 4 : capacity_ * 2);
  keys_[size_] = key;
  values_[size_] = value;
  ++size_;
}

Value MakeError(Arena& arena, std::string_view message) {
  return Value::Error(arena.New<ErrorValue>(ErrorValue{arena.CopyString(message)}));
}

Value MakeString(Arena& arena, std::string_view s) { return Value::String(arena.CopyString(s)); }

namespace {

// Compares two numbers of possibly different kinds exactly. Returns -1, 0, 1 or 2 (NaN).
int CompareNumbers(const Value& a, const Value& b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  // cel-go's compareIntDouble / compareUintDouble: out-of-range doubles order first, otherwise the
  // integer is converted to double (so 9223372036854775807 == 9223372036854775808.0, as in cel-go).
  auto int_double = [&](int64_t i, double d) -> int {
    if (std::isnan(d)) return 2;
    if (d < -9223372036854775808.0) return 1;
    if (d > 9223372036854775807.0) return -1;
    return cmp(static_cast<double>(i), d);
  };
  auto uint_double = [&](uint64_t u, double d) -> int {
    if (std::isnan(d)) return 2;
    if (d < 0) return 1;
    if (d > 18446744073709551615.0) return -1;
    return cmp(static_cast<double>(u), d);
  };
  switch (a.kind()) {
    case ValueKind::kInt:
      switch (b.kind()) {
        case ValueKind::kInt: return cmp(a.int_value(), b.int_value());
        case ValueKind::kUint:
          if (a.int_value() < 0) return -1;
          return cmp(static_cast<uint64_t>(a.int_value()), b.uint_value());
        default: return int_double(a.int_value(), b.double_value());
      }
    case ValueKind::kUint:
      switch (b.kind()) {
        case ValueKind::kInt:
          if (b.int_value() < 0) return 1;
          return cmp(a.uint_value(), static_cast<uint64_t>(b.int_value()));
        case ValueKind::kUint: return cmp(a.uint_value(), b.uint_value());
        default: return uint_double(a.uint_value(), b.double_value());
      }
    default:
      switch (b.kind()) {
        case ValueKind::kInt: {
          int r = int_double(b.int_value(), a.double_value());
          return r == 2 ? 2 : -r;
        }
        case ValueKind::kUint: {
          int r = uint_double(b.uint_value(), a.double_value());
          return r == 2 ? 2 : -r;
        }
        default:
          if (std::isnan(a.double_value()) || std::isnan(b.double_value())) return 2;
          return cmp(a.double_value(), b.double_value());
      }
  }
}

}  // namespace

bool ValueEquals(const Value& a, const Value& b) {
  if (a.IsNumber() && b.IsNumber()) return CompareNumbers(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kNull: return true;
    case ValueKind::kBool: return a.bool_value() == b.bool_value();
    case ValueKind::kString:
    case ValueKind::kBytes:
    case ValueKind::kType: return a.str() == b.str();
    case ValueKind::kList: {
      size_t n = a.list()->size();
      if (n != b.list()->size()) return false;
      for (size_t i = 0; i < n; ++i) {
        if (!ValueEquals(a.list()->Get(i), b.list()->Get(i))) return false;
      }
      return true;
    }
    case ValueKind::kMap: {
      size_t n = a.map()->size();
      if (n != b.map()->size()) return false;
      for (size_t i = 0; i < n; ++i) {
        Value other;
        if (!b.map()->Find(a.map()->KeyAt(i), &other)) return false;
        if (!ValueEquals(a.map()->ValueAt(i), other)) return false;
      }
      return true;
    }
    case ValueKind::kOptional: {
      const OptionalValue* x = a.optional();
      const OptionalValue* y = b.optional();
      if (x == nullptr || y == nullptr) return x == y;
      return ValueEquals(x->value, y->value);
    }
    case ValueKind::kQuantity: return a.quantity()->Compare(*b.quantity()) == 0;
    case ValueKind::kSemver: return a.semver()->Compare(*b.semver()) == 0;
    case ValueKind::kIP: return *a.ip() == *b.ip();
    case ValueKind::kCIDR: return *a.cidr() == *b.cidr();
    case ValueKind::kFormat: return a.format()->go_name == b.format()->go_name;
    case ValueKind::kURL: return a.url()->String() == b.url()->String();
    case ValueKind::kMessage: return a.str() == b.str();  // google.protobuf.Empty: no fields
    case ValueKind::kTimestamp: return a.seconds() == b.seconds() && a.nanos() == b.nanos();
    case ValueKind::kDuration: return a.duration_nanos() == b.duration_nanos();
    default: return false;
  }
}

int CompareValues(const Value& a, const Value& b) {
  if (a.IsNumber() && b.IsNumber()) return CompareNumbers(a, b);
  if (a.kind() != b.kind()) return 2;
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  switch (a.kind()) {
    case ValueKind::kBool: return cmp(a.bool_value(), b.bool_value());
    case ValueKind::kString:
    case ValueKind::kBytes: {
      int c = a.str().compare(b.str());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case ValueKind::kQuantity: return a.quantity()->Compare(*b.quantity());
    case ValueKind::kSemver: return a.semver()->Compare(*b.semver());
    case ValueKind::kTimestamp: {
      // Go's Time.Before/After compare the seconds since year 1 in a wrapping int64: only a
      // timestamp built from seconds near the int64 limits (google.protobuf.Timestamp{seconds: s})
      // orders differently from its instant (internal/go_calendar.h).
      return a.seconds() != b.seconds()
                 ? cmp(internal::GoInternalSeconds(a.seconds()), internal::GoInternalSeconds(b.seconds()))
                 : cmp(a.nanos(), b.nanos());
    }
    case ValueKind::kDuration: return cmp(a.duration_nanos(), b.duration_nanos());
    default: return 2;
  }
}

std::string_view TypeName(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return "null_type";
    case ValueKind::kBool: return "bool";
    case ValueKind::kInt: return "int";
    case ValueKind::kUint: return "uint";
    case ValueKind::kDouble: return "double";
    case ValueKind::kString: return "string";
    case ValueKind::kBytes: return "bytes";
    case ValueKind::kList: return "list";
    case ValueKind::kMap: return "map";
    case ValueKind::kType: return "type";
    case ValueKind::kOptional: return "optional_type";
    case ValueKind::kQuantity: return "kubernetes.Quantity";
    case ValueKind::kSemver: return "kubernetes.Semver";
    case ValueKind::kIP: return "net.IP";
    case ValueKind::kCIDR: return "net.CIDR";
    case ValueKind::kFormat: return "kubernetes.NamedFormat";
    case ValueKind::kURL: return "kubernetes.URL";
    case ValueKind::kMessage: return v.str();
    case ValueKind::kTimestamp: return "google.protobuf.Timestamp";
    case ValueKind::kDuration: return "google.protobuf.Duration";
    case ValueKind::kError: return "*types.Err";
  }
  return "unknown";
}

std::string_view UnhashableKeyPanic(const Value& key) {
  switch (key.kind()) {
    case ValueKind::kSemver: return "internal error: runtime error: hash of unhashable type cel.Semver";
    case ValueKind::kBytes: return "internal error: runtime error: hash of unhashable type types.Bytes";
    default: return {};
  }
}

std::string_view GoTypeName(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return "types.Null";
    case ValueKind::kBool: return "types.Bool";
    case ValueKind::kInt: return "types.Int";
    case ValueKind::kUint: return "types.Uint";
    case ValueKind::kDouble: return "types.Double";
    case ValueKind::kString: return "types.String";
    case ValueKind::kBytes: return "types.Bytes";
    case ValueKind::kList: return v.is_concat_list() ? "*types.concatList" : "*types.baseList";
    case ValueKind::kMap: return "*types.baseMap";
    case ValueKind::kType: return "*types.Type";
    case ValueKind::kOptional: return "*types.Optional";
    case ValueKind::kQuantity: return "cel.Quantity";
    case ValueKind::kSemver: return "cel.Semver";
    case ValueKind::kIP: return "cel.IP";
    case ValueKind::kCIDR: return "cel.CIDR";
    case ValueKind::kFormat: return "cel.Format";
    case ValueKind::kURL: return "cel.URL";
    case ValueKind::kMessage: return "*types.protoObj";
    case ValueKind::kTimestamp: return "types.Timestamp";
    case ValueKind::kDuration: return "types.Duration";
    case ValueKind::kError: return "*types.Err";
  }
  return "unknown";
}

namespace {

[[maybe_unused]] std::string FormatDouble(double d) {
  // Go's strconv.FormatFloat(d, 'g', -1, 64) as used by cel-go for error text.
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  return buf;
}

}  // namespace

std::string DebugString(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return "null";
    case ValueKind::kBool: return v.bool_value() ? "true" : "false";
    case ValueKind::kInt: return absl::StrCat(v.int_value());
    case ValueKind::kUint: return absl::StrCat(v.uint_value(), "u");
    case ValueKind::kDouble: return internal::FormatGoDouble(v.double_value());
    case ValueKind::kString: return absl::StrCat("\"", std::string(v.str()), "\"");
    case ValueKind::kBytes: return absl::StrCat("b\"", std::string(v.str()), "\"");
    case ValueKind::kType: return std::string(v.str());
    case ValueKind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < v.list()->size(); ++i) {
        if (i) out += ", ";
        out += DebugString(v.list()->Get(i));
      }
      return out + "]";
    }
    case ValueKind::kMap: {
      std::string out = "{";
      for (size_t i = 0; i < v.map()->size(); ++i) {
        if (i) out += ", ";
        out += DebugString(v.map()->KeyAt(i)) + ": " + DebugString(v.map()->ValueAt(i));
      }
      return out + "}";
    }
    case ValueKind::kOptional:
      return v.optional() ? "optional(" + DebugString(v.optional()->value) + ")" : "optional.none()";
    case ValueKind::kQuantity: return v.quantity()->String();
    case ValueKind::kSemver: return v.semver()->String();
    case ValueKind::kIP: return v.ip()->String();
    case ValueKind::kCIDR: return v.cidr()->String();
    case ValueKind::kFormat: return FormatValueString(*v.format());
    case ValueKind::kURL: return v.url()->String();
    case ValueKind::kMessage: return "";  // Go's %v of an empty message
    case ValueKind::kTimestamp: return internal::FormatTimestamp(v);
    case ValueKind::kDuration: return internal::FormatDuration(v);
    case ValueKind::kError: return std::string(v.error()->message);
  }
  return "";
}

}  // namespace draforge::cel
