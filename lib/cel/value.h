// cel::Value: the runtime values of the CEL interpreter.
//
// A Value is a 16-byte trivially-copyable tagged union. Scalars are held inline; strings, bytes,
// lists, maps, optionals, quantities, semvers and errors are *borrowed* pointers into one of:
//   - the compiled program (constants, owned by the AST),
//   - the device being evaluated (attribute strings, capacity quantities), or
//   - the per-evaluation Arena (results of string concatenation, list literals, ...).
// None of them is freed individually: the arena is reset after each evaluation. This is what lets
// evaluating a compiled selector against a device allocate nothing on the common paths.
#ifndef DRAFORGE_CEL_VALUE_H_
#define DRAFORGE_CEL_VALUE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/quantity.h"
#include "api/semver.h"
#include "cel/net.h"

namespace draforge::cel {

// A bump allocator whose memory is reused across evaluations. Objects with non-trivial destructors
// are destroyed by Reset(). Not thread-safe: one arena per evaluating thread.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() { Reset(); }

  void* Allocate(size_t size, size_t align);

  template <typename T, typename... Args>
  T* New(Args&&... args) {
    void* p = Allocate(sizeof(T), alignof(T));
    T* obj = new (p) T(std::forward<Args>(args)...);
    if constexpr (!std::is_trivially_destructible_v<T>) {
      destructors_.push_back({[](void* o) { static_cast<T*>(o)->~T(); }, obj});
    }
    return obj;
  }
  template <typename T>
  T* NewArray(size_t n) {
    static_assert(std::is_trivially_destructible_v<T>);
    return static_cast<T*>(Allocate(sizeof(T) * (n == 0 ? 1 : n), alignof(T)));
  }
  // Copies `s` into the arena.
  std::string_view CopyString(std::string_view s);

  // Destroys the objects and makes all memory available again (blocks are kept).
  void Reset();
  // Bytes handed out since the last Reset (for tests).
  size_t used() const { return used_; }

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    size_t size;
  };
  std::vector<Block> blocks_;
  size_t block_ = 0;   // current block
  size_t offset_ = 0;  // offset in the current block
  size_t used_ = 0;
  std::vector<std::pair<void (*)(void*), void*>> destructors_;
};

enum class ValueKind : uint8_t {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kType,
  kOptional,
  kQuantity,
  kSemver,
  kTimestamp,  // seconds since the Unix epoch (int), nanoseconds (size field) and its zone (TimestampZone)
  kDuration,   // nanoseconds (int), as Go's time.Duration that cel-go wraps
  kIP,         // net.IP (Kubernetes IP library)
  kCIDR,       // net.CIDR (Kubernetes CIDR library)
  kFormat,     // kubernetes.NamedFormat (Kubernetes format library): a constant of the library
  kURL,        // kubernetes.URL (Kubernetes URL library)
  kMessage,    // a protobuf message that does not unwrap to a CEL value (google.protobuf.Empty);
               // str(): its full name (static storage)
  kError,
};

class ListValue;
class MapValue;
struct NamedFormat;  // library_format.cc
struct Url;          // url.h
struct ErrorValue;
struct OptionalValue;

// The location of a timestamp as Go's time.Time keeps it, which decides how string() writes it and
// whether two timestamps of one instant are the same Go map key (time.Time == compares the
// *Location pointer): UTC (`Z`, timestamp(int)); Local (an offset equal to the local zone's,
// taken as UTC, the zone kube-scheduler's containers run in); a fixed zone of whole hours (Go
// caches one *Location per such offset); any other fixed zone (a new *Location per parse: never
// the same key as another parse's, which DRAForge approximates by the same offset).
enum class TimestampZone : uint8_t { kUTC, kLocal, kFixedHours, kFixedOther };

class Value {
 public:
  constexpr Value() : kind_(ValueKind::kNull), zone_(TimestampZone::kUTC), offset_minutes_(0), size_(0), i_(0) {}

  static Value Null() { return Value(); }
  static Value Bool(bool b) { Value v(ValueKind::kBool); v.b_ = b; return v; }
  static Value Int(int64_t i) { Value v(ValueKind::kInt); v.i_ = i; return v; }
  static Value Uint(uint64_t u) { Value v(ValueKind::kUint); v.u_ = u; return v; }
  static Value Double(double d) { Value v(ValueKind::kDouble); v.d_ = d; return v; }
  // The bytes of `s` must outlive the value (program constant, device data or arena).
  static Value String(std::string_view s) { return Str(ValueKind::kString, s); }
  static Value Bytes(std::string_view s) { return Str(ValueKind::kBytes, s); }
  static Value List(const ListValue* l) { Value v(ValueKind::kList); v.list_ = l; return v; }
  // A list made by `+` of two non-empty lists: cel-go's *types.concatList, whose Go type name its
  // errors print. Otherwise the same value.
  static Value ConcatList(const ListValue* l) { Value v = List(l); v.size_ = 1; return v; }
  bool is_concat_list() const { return kind_ == ValueKind::kList && size_ == 1; }
  static Value Map(const MapValue* m) { Value v(ValueKind::kMap); v.map_ = m; return v; }
  // A type value; `name` is a static string such as "int", "list", "kubernetes.Quantity".
  static Value Type(std::string_view name) { return Str(ValueKind::kType, name); }
  // An optional: `o` null means optional.none().
  static Value Optional(const OptionalValue* o) { Value v(ValueKind::kOptional); v.opt_ = o; return v; }
  static Value Quantity(const api::Quantity* q) { Value v(ValueKind::kQuantity); v.q_ = q; return v; }
  // A quantity as Kubernetes' add()/sub() return it: a *cel.Quantity in Go, which Quantity's Equal
  // does not accept (`q == q.add(0)` is "no such overload" upstream). Otherwise the same value.
  static Value QuantityPointer(const api::Quantity* q) { Value v = Quantity(q); v.size_ = 1; return v; }
  bool is_quantity_pointer() const { return kind_ == ValueKind::kQuantity && size_ == 1; }
  static Value Semver(const api::Semver* s) { Value v(ValueKind::kSemver); v.sv_ = s; return v; }
  // `offset_minutes`: the zone's offset east of UTC, which string() writes (0 for UTC and Local).
  static Value Timestamp(int64_t seconds, uint32_t nanos, TimestampZone zone = TimestampZone::kUTC,
                         int16_t offset_minutes = 0) {
    Value v(ValueKind::kTimestamp);
    v.i_ = seconds;
    v.size_ = nanos;
    v.zone_ = zone;
    v.offset_minutes_ = offset_minutes;
    return v;
  }
  static Value IP(const NetAddr* a) { Value v(ValueKind::kIP); v.ip_ = a; return v; }
  static Value CIDR(const NetPrefix* p) { Value v(ValueKind::kCIDR); v.cidr_ = p; return v; }
  // `f` is one of the format library's constants (static storage).
  static Value Format(const NamedFormat* f) { Value v(ValueKind::kFormat); v.fmt_ = f; return v; }
  static Value URL(const Url* u) { Value v(ValueKind::kURL); v.url_ = u; return v; }
  static Value Duration(int64_t nanos) { Value v(ValueKind::kDuration); v.i_ = nanos; return v; }
  // A message value of type `full_name` (static storage), e.g. "google.protobuf.Empty": the only
  // well-known message without fields, so its name is the whole value.
  static Value Message(std::string_view full_name) { return Str(ValueKind::kMessage, full_name); }
  static Value Error(const ErrorValue* e) { Value v(ValueKind::kError); v.err_ = e; return v; }

  ValueKind kind() const { return kind_; }
  bool IsError() const { return kind_ == ValueKind::kError; }
  bool IsNumber() const {
    return kind_ == ValueKind::kInt || kind_ == ValueKind::kUint || kind_ == ValueKind::kDouble;
  }

  bool bool_value() const { return b_; }
  int64_t int_value() const { return i_; }
  uint64_t uint_value() const { return u_; }
  double double_value() const { return d_; }
  std::string_view str() const { return std::string_view(str_, size_); }  // string, bytes, type, message
  const ListValue* list() const { return list_; }
  const MapValue* map() const { return map_; }
  const OptionalValue* optional() const { return opt_; }
  const api::Quantity* quantity() const { return q_; }
  const api::Semver* semver() const { return sv_; }
  const NetAddr* ip() const { return ip_; }
  const NetPrefix* cidr() const { return cidr_; }
  const NamedFormat* format() const { return fmt_; }
  const Url* url() const { return url_; }
  int64_t seconds() const { return i_; }       // timestamp
  uint32_t nanos() const { return size_; }     // timestamp, 0..999999999
  TimestampZone zone() const { return zone_; }          // timestamp
  int16_t offset_minutes() const { return offset_minutes_; }  // timestamp
  int64_t duration_nanos() const { return i_; }
  const ErrorValue* error() const { return err_; }

 private:
  explicit constexpr Value(ValueKind k)
      : kind_(k), zone_(TimestampZone::kUTC), offset_minutes_(0), size_(0), i_(0) {}
  static Value Str(ValueKind k, std::string_view s) {
    Value v(k);
    v.str_ = s.data();
    v.size_ = static_cast<uint32_t>(s.size());
    return v;
  }

  ValueKind kind_;
  TimestampZone zone_;       // timestamp; in the padding before size_
  int16_t offset_minutes_;  // timestamp
  uint32_t size_;
  union {
    bool b_;
    int64_t i_;
    uint64_t u_;
    double d_;
    const char* str_;
    const ListValue* list_;
    const MapValue* map_;
    const OptionalValue* opt_;
    const api::Quantity* q_;
    const api::Semver* sv_;
    const NetAddr* ip_;
    const NetPrefix* cidr_;
    const NamedFormat* fmt_;
    const Url* url_;
    const ErrorValue* err_;
  };
};
static_assert(sizeof(Value) == 16);
static_assert(std::is_trivially_copyable_v<Value>);

struct ErrorValue {
  std::string_view message;
};

struct OptionalValue {
  Value value;
};

// A list: either a plain array of Values or a view over device data.
class ListValue {
 public:
  virtual ~ListValue() = default;
  virtual size_t size() const = 0;
  // Precondition: i < size().
  virtual Value Get(size_t i) const = 0;
};

// A list backed by an array of Values (arena or program owned). Also used for mutable
// comprehension accumulators (`capacity` > size).
class ArrayList final : public ListValue {
 public:
  ArrayList(const Value* items, size_t n) : items_(items), size_(n) {}
  size_t size() const override { return size_; }
  Value Get(size_t i) const override { return items_[i]; }
  const Value* items() const { return items_; }

 private:
  friend class MutableList;
  const Value* items_;
  size_t size_;
};

// A growable list used by comprehension accumulators (`@result + [x]` appends in place).
class MutableList final : public ListValue {
 public:
  size_t size() const override { return size_; }
  Value Get(size_t i) const override { return items_[i]; }
  void Append(Arena& arena, Value v);
  void AppendAll(Arena& arena, const ListValue& l);

 private:
  Value* items_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// A map. Keys are bool, int, uint or string values; int/uint/double keys compare numerically as
// CEL's heterogeneous equality requires.
class MapValue {
 public:
  virtual ~MapValue() = default;
  virtual size_t size() const = 0;
  // Looks up `key`; returns false when absent.
  virtual bool Find(Value key, Value* out) const = 0;
  // Presence for `in` and has(); differs from Find only for maps with a default value.
  virtual bool Has(Value key) const {
    Value v;
    return Find(key, &v);
  }
  // Entries in iteration order. Precondition: i < size().
  virtual Value KeyAt(size_t i) const = 0;
  virtual Value ValueAt(size_t i) const = 0;
  // Whether cel-go keeps this map in a Go map keyed by the CEL value (map literals, transformMap
  // results), where looking up a key Go cannot hash panics (see UnhashableKeyPanic).
  virtual bool KeyedByGoValue() const { return false; }
};

// A map backed by arrays (map literals, transformMap accumulators). Lookup is linear: CEL maps built
// by expressions are small, and linear search avoids hashing heterogeneous keys.
class ArrayMap final : public MapValue {
 public:
  size_t size() const override { return size_; }
  bool Find(Value key, Value* out) const override;
  Value KeyAt(size_t i) const override { return keys_[i]; }
  Value ValueAt(size_t i) const override { return values_[i]; }
  // Returns false if the key already exists.
  bool Insert(Arena& arena, Value key, Value value);
  // Map literal construction as cel-go does it (a Go map keyed by the value): a repeated key of the
  // same kind replaces the earlier value in place; keys of different kinds never collide.
  void Put(Arena& arena, Value key, Value value);
  void Reserve(Arena& arena, size_t n);
  bool KeyedByGoValue() const override { return keyed_by_go_value_; }
  void set_keyed_by_go_value() { keyed_by_go_value_ = true; }

 private:
  bool keyed_by_go_value_ = false;
  Value* keys_ = nullptr;
  Value* values_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Helpers shared by the interpreter and the libraries.

// The message of the Go panic that cel-go's Program recovers when `key` is used as a Go map key and
// Go cannot hash its type (a Semver or bytes: they hold slices), e.g. `v in ["a"]` (planned as a
// set lookup) or `v in {"a": 1}`; empty when the key is hashable. A literal: it outlives any
// evaluation.
std::string_view UnhashableKeyPanic(const Value& key);

// An error value whose message is copied into the arena.
Value MakeError(Arena& arena, std::string_view message);
// A string value whose bytes are copied into the arena.
Value MakeString(Arena& arena, std::string_view s);

// CEL heterogeneous equality: true/false, or nullopt-like kError never (errors are handled by the
// caller). Numbers compare across int/uint/double; lists and maps deeply; different kinds are unequal.
bool ValueEquals(const Value& a, const Value& b);

// The CEL type name of a value ("int", "list", "kubernetes.Quantity", ...).
std::string_view TypeName(const Value& v);
// The Go type cel-go reports in "got '%T', expected iterable type" ("types.Int", "cel.Semver").
std::string_view GoTypeName(const Value& v);

// Total order used by sort-dependent library functions and `<`: -1, 0, 1, or 2 when incomparable.
int CompareValues(const Value& a, const Value& b);

// Formats a value as cel-go's String() does for error messages and the strings extension
// (`"abc"`, `1`, `[1, 2]`).
std::string DebugString(const Value& v);

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_VALUE_H_
