#include "cel/types.h"

#include "absl/strings/str_cat.h"

namespace draforge::cel {

std::string FormatType(const Type& t) {
  if (t.wrapper) {
    Type primitive = t;
    primitive.wrapper = false;
    return absl::StrCat("wrapper(", FormatType(primitive), ")");
  }
  switch (t.kind) {
    case TypeKind::kDyn: return "dyn";
    case TypeKind::kAny: return "google.protobuf.Any";
    case TypeKind::kError: return "*error*";
    case TypeKind::kNull: return "null";  // cel-go's FormatCELType
    case TypeKind::kBool: return "bool";
    case TypeKind::kInt: return "int";
    case TypeKind::kUint: return "uint";
    case TypeKind::kDouble: return "double";
    case TypeKind::kString: return "string";
    case TypeKind::kBytes: return "bytes";
    case TypeKind::kDuration: return "google.protobuf.Duration";
    case TypeKind::kTimestamp: return "google.protobuf.Timestamp";
    case TypeKind::kList: return absl::StrCat("list(", FormatType(t.params[0]), ")");
    case TypeKind::kMap:
      return absl::StrCat("map(", FormatType(t.params[0]), ", ", FormatType(t.params[1]), ")");
    case TypeKind::kType:
      if (t.params.empty()) return "type";
      return absl::StrCat("type(", FormatType(t.params[0]), ")");
    case TypeKind::kOptional: return absl::StrCat("optional_type(", FormatType(t.params[0]), ")");
    case TypeKind::kOpaque:
    case TypeKind::kObject:
    case TypeKind::kTypeParam: return t.name;
  }
  return "?";
}

std::string FormatCheckerType(const Type& t) {
  if (!t.wrapper) {
    switch (t.kind) {
      case TypeKind::kAny: return "any";
      case TypeKind::kDuration: return "duration";
      case TypeKind::kTimestamp: return "timestamp";
      case TypeKind::kError: return "!error!";
      case TypeKind::kList: return absl::StrCat("list(", FormatCheckerType(t.params[0]), ")");
      case TypeKind::kMap:
        return absl::StrCat("map(", FormatCheckerType(t.params[0]), ", ", FormatCheckerType(t.params[1]), ")");
      case TypeKind::kType:
        if (!t.params.empty()) return absl::StrCat("type(", FormatCheckerType(t.params[0]), ")");
        break;
      case TypeKind::kOptional: return absl::StrCat("optional_type(", FormatCheckerType(t.params[0]), ")");
      default: break;
    }
  }
  return FormatType(t);
}

namespace {

bool Occurs(const std::string& param, const Type& t, const TypeSubst& subst) {
  if (t.kind == TypeKind::kTypeParam) {
    if (t.name == param) return true;
    auto it = subst.find(t.name);
    return it != subst.end() && Occurs(param, it->second, subst);
  }
  for (const Type& p : t.params) {
    if (Occurs(param, p, subst)) return true;
  }
  return false;
}

}  // namespace

bool IsAssignable(const Type& formal, const Type& actual, TypeSubst& subst) {
  // A type variable is assignable to itself (bound or not); the occurs check below must not see it.
  if (formal.kind == TypeKind::kTypeParam && actual.kind == TypeKind::kTypeParam && formal.name == actual.name) {
    return true;
  }
  // cel-go's isValidTypeSubstitution: a bound parameter accepts a type assignable to its binding,
  // and the binding becomes the more general of the two (int, then dyn: dyn), so that
  // `true ? 1 : dyn(2)` is dyn.
  auto substitute = [&subst](const std::string& param, const Type& other, bool other_is_formal) {
    auto it = subst.find(param);
    if (it != subst.end()) {
      Type bound = it->second;
      TypeSubst trial = subst;
      const bool ok = other_is_formal ? IsAssignable(other, bound, trial) : IsAssignable(bound, other, trial);
      if (!ok) return false;
      Type general = IsEqualOrLessSpecific(other, bound) ? other : bound;
      if (!Occurs(param, general, trial)) trial[param] = std::move(general);
      subst = std::move(trial);
      return true;
    }
    if (Occurs(param, other, subst)) return false;
    subst[param] = other;
    return true;
  };
  if (formal.kind == TypeKind::kTypeParam) return substitute(formal.name, actual, false);
  if (actual.kind == TypeKind::kTypeParam) return substitute(actual.name, formal, true);
  if (formal.IsDynLike() || actual.IsDynLike()) return true;
  if (formal.kind == TypeKind::kNull || actual.kind == TypeKind::kNull) {
    // null is assignable to null, and to the nullable kinds (Any is handled above).
    if (formal.kind == actual.kind) return true;
    const Type& other = formal.kind == TypeKind::kNull ? actual : formal;
    return other.wrapper || other.kind == TypeKind::kDuration || other.kind == TypeKind::kTimestamp ||
           other.kind == TypeKind::kObject;
  }
  if (formal.kind != actual.kind) return false;
  if (formal.kind == TypeKind::kOpaque || formal.kind == TypeKind::kObject) {
    if (formal.name != actual.name) return false;
  }
  // cel-go: any type value is assignable to any other (`type(1) == string` checks, and is false).
  if (formal.kind == TypeKind::kType) return true;
  if (formal.params.size() != actual.params.size()) return false;
  for (size_t i = 0; i < formal.params.size(); ++i) {
    if (!IsAssignable(formal.params[i], actual.params[i], subst)) return false;
  }
  return true;
}

Type Substitute(const Type& t, const TypeSubst& subst, bool free_to_dyn) {
  if (t.kind == TypeKind::kTypeParam) {
    auto it = subst.find(t.name);
    if (it != subst.end()) return Substitute(it->second, subst, free_to_dyn);
    return free_to_dyn ? Type::Dyn() : t;
  }
  if (t.params.empty()) return t;
  Type out = t;
  for (Type& p : out.params) p = Substitute(p, subst, free_to_dyn);
  return out;
}

bool IsEqualOrLessSpecific(const Type& a, const Type& b) {
  if (a.kind == TypeKind::kDyn || a.kind == TypeKind::kAny || a.kind == TypeKind::kTypeParam) return true;
  if (b.kind == TypeKind::kDyn || b.kind == TypeKind::kAny || b.kind == TypeKind::kTypeParam) return false;
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case TypeKind::kOpaque:
    case TypeKind::kList:
    case TypeKind::kMap:
      if (a.name != b.name || a.params.size() != b.params.size()) return false;
      for (size_t i = 0; i < a.params.size(); ++i) {
        if (!IsEqualOrLessSpecific(a.params[i], b.params[i])) return false;
      }
      return true;
    case TypeKind::kType: return true;
    default: return a == b;
  }
}

bool IsEquivalentType(const Type& a, const Type& b) {
  if (a.kind != b.kind || a.name != b.name || a.params.size() != b.params.size()) return false;
  for (size_t i = 0; i < a.params.size(); ++i) {
    if (!IsEquivalentType(a.params[i], b.params[i])) return false;
  }
  return true;
}

Type MostGeneral(const Type& a, const Type& b) {
  if (a == b) return a;
  if (a.IsDynLike()) return a;
  if (b.IsDynLike()) return b;
  if (a.kind == b.kind && a.params.size() == b.params.size() && a.name == b.name) {
    Type out = a;
    for (size_t i = 0; i < out.params.size(); ++i) out.params[i] = MostGeneral(a.params[i], b.params[i]);
    return out;
  }
  return Type::Dyn();
}

}  // namespace draforge::cel
