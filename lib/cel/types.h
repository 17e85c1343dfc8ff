// cel::Type: the static types of the CEL checker (cel-go's types.Type, reduced to what the DRA
// environment needs).
#ifndef DRAFORGE_CEL_TYPES_H_
#define DRAFORGE_CEL_TYPES_H_

#include <map>
#include <string>
#include <vector>

namespace draforge::cel {

enum class TypeKind {
  kDyn,
  kAny,  // google.protobuf.Any: dynamic, but not a comprehension range (DRA attributes before 1.36)
  kError,
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,      // params[0]: element
  kMap,       // params[0]: key, params[1]: value
  kType,      // params[0]: the type (optional)
  kOptional,  // params[0]
  kOpaque,    // name: kubernetes.Quantity, kubernetes.Semver, net.IP, net.CIDR
  kObject,    // name: kubernetes.DRADevice
  kTypeParam, // name: A, B, K, V ...
  kDuration,
  kTimestamp,
};

struct Type {
  TypeKind kind = TypeKind::kDyn;
  std::string name;
  std::vector<Type> params;
  // A protobuf wrapper type (google.protobuf.Int32Value, ...): cel-go's nullable primitive, of the
  // primitive's kind ("wrapper(int)"), assignable to and from the primitive and from null.
  bool wrapper = false;

  static Type Dyn() { return {TypeKind::kDyn, "", {}}; }
  static Type Any() { return {TypeKind::kAny, "", {}}; }
  static Type Error() { return {TypeKind::kError, "", {}}; }
  static Type Null() { return {TypeKind::kNull, "", {}}; }
  static Type Bool() { return {TypeKind::kBool, "", {}}; }
  static Type Int() { return {TypeKind::kInt, "", {}}; }
  static Type Uint() { return {TypeKind::kUint, "", {}}; }
  static Type Double() { return {TypeKind::kDouble, "", {}}; }
  static Type String() { return {TypeKind::kString, "", {}}; }
  static Type Bytes() { return {TypeKind::kBytes, "", {}}; }
  static Type Duration() { return {TypeKind::kDuration, "", {}}; }
  static Type Timestamp() { return {TypeKind::kTimestamp, "", {}}; }
  static Type List(Type elem) { return {TypeKind::kList, "", {std::move(elem)}}; }
  static Type Map(Type k, Type v) { return {TypeKind::kMap, "", {std::move(k), std::move(v)}}; }
  static Type TypeOf(Type t) { return {TypeKind::kType, "", {std::move(t)}}; }
  static Type TypeType() { return {TypeKind::kType, "", {}}; }
  static Type Optional(Type t) { return {TypeKind::kOptional, "", {std::move(t)}}; }
  static Type Opaque(std::string n) { return {TypeKind::kOpaque, std::move(n), {}}; }
  static Type Object(std::string n) { return {TypeKind::kObject, std::move(n), {}}; }
  static Type Param(std::string n) { return {TypeKind::kTypeParam, std::move(n), {}}; }
  static Type Wrapper(Type primitive) {
    primitive.wrapper = true;
    return primitive;
  }
  static Type Quantity() { return Opaque("kubernetes.Quantity"); }
  static Type Semver() { return Opaque("kubernetes.Semver"); }
  static Type IP() { return Opaque("net.IP"); }
  static Type CIDR() { return Opaque("net.CIDR"); }

  bool IsDynLike() const {
    return kind == TypeKind::kDyn || kind == TypeKind::kAny || kind == TypeKind::kError;
  }
  friend bool operator==(const Type& a, const Type& b) {
    return a.kind == b.kind && a.name == b.name && a.params == b.params && a.wrapper == b.wrapper;
  }
};

// cel-go's Type.IsEquivalentType: kind, name and parameters agree (a wrapper is equivalent to its
// primitive). The homogeneous-literal validator compares element types with it.
bool IsEquivalentType(const Type& a, const Type& b);

// The type's declared name: "int", "list(string)", "map(string, dyn)", "kubernetes.Quantity",
// "google.protobuf.Duration", "wrapper(int)".
std::string FormatType(const Type& t);
// cel-go's checker.FormatCELType, which the checker's messages use: as FormatType, but "any",
// "duration", "timestamp" and "!error!" for those kinds (also as parameters).
std::string FormatCheckerType(const Type& t);

// Type parameter substitutions during overload resolution.
using TypeSubst = std::map<std::string, Type>;

// cel-go's isAssignable: can a value of type `actual` be passed where `formal` is expected?
// Binds type parameters in `subst`.
bool IsAssignable(const Type& formal, const Type& actual, TypeSubst& subst);
// cel-go's isEqualOrLessSpecific: `a` is `b` or less specific (dyn where `b` has a type).
bool IsEqualOrLessSpecific(const Type& a, const Type& b);
// Replaces bound type parameters; unbound ones become dyn when `free_to_dyn`.
Type Substitute(const Type& t, const TypeSubst& subst, bool free_to_dyn);
// The most general of two types (joins list element types in literals): equal types stay, else dyn.
Type MostGeneral(const Type& a, const Type& b);

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_TYPES_H_
