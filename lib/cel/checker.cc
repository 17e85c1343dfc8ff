// The CEL type checker (cel-go checker/checker.go) for the declared environment, plus the
// homogeneous-aggregate-literal and regex-literal validators the Kubernetes environment enables.
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cel/internal/format.h"
#include "cel/internal/str.h"
#include "cel/internal/values.h"
#include "common/status.h"
#include "cel/program.h"
#include "cel/well_known_types.h"
#include "re2/re2.h"

namespace draforge::cel {

using internal::Cat;

Env Env::Dra(const EnvOptions& options) {
  Env env;
  env.options = options;
  // The scheduler compiles selectors as stored expressions, and the stored environment ignores the
  // feature gates: it declares every device type version and the newest (list-typed `dyn`
  // attributes, allowMultipleAllocations) wins (k8s.io/dynamic-resource-allocation/cel newCompiler).
  // The gates only change what the device holds at run time.
  const bool lists = options.stored_expressions || options.list_type_attributes;
  Type attr = lists ? Type::Dyn() : Type::Any();
  auto& fields = env.object_fields["kubernetes.DRADevice"];
  fields["driver"] = Type::String();
  fields["attributes"] = Type::Map(Type::String(), Type::Map(Type::String(), attr));
  fields["capacity"] = Type::Map(Type::String(), Type::Map(Type::String(), Type::Quantity()));
  if (options.stored_expressions || options.consumable_capacity) fields["allowMultipleAllocations"] = Type::Bool();
  env.variables["device"] = Type::Object("kubernetes.DRADevice");
  return env;
}

class Checker {
 public:
  Checker(Program* p, const Env& env) : p_(p), env_(env), registry_(FunctionRegistry::Dra(env.options)) {}

  absl::Status Run() {
    Check(*p_->parsed_.root);
    if (errors_.empty()) Finalize(*p_->parsed_.root);
    if (errors_.empty()) Validate(*p_->parsed_.root);
    if (!errors_.empty()) return absl::InvalidArgumentError(FormatErrors(p_->parsed_.source, errors_));
    if (!instantiation_error_.empty()) {
      return absl::InvalidArgumentError(Cat("program instantiation failed: ", instantiation_error_));
    }
    return absl::OkStatus();
  }

 private:
  struct Scope {
    std::string name;
    int slot;
    Type type;
  };

  void Error(const Expr& e, std::string msg) { errors_.push_back({e.offset, std::move(msg)}); }

  Type Fresh() { return Type::Param(Cat("_var", next_var_++)); }

  void Check(Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst:
        switch (e.constant.kind()) {
          case ValueKind::kNull: e.type = Type::Null(); break;
          case ValueKind::kBool: e.type = Type::Bool(); break;
          case ValueKind::kInt: e.type = Type::Int(); break;
          case ValueKind::kUint: e.type = Type::Uint(); break;
          case ValueKind::kDouble: e.type = Type::Double(); break;
          case ValueKind::kString: e.type = Type::String(); break;
          case ValueKind::kBytes: e.type = Type::Bytes(); break;
          default: e.type = Type::Dyn();
        }
        return;
      case ExprKind::kIdent: {
        // A leading dot names the root scope (cel-go): `.device`, `.int`; comprehension and bind
        // variables are not in it (`[1].map(x, .x)` is an undeclared reference).
        const bool root = !e.name.empty() && e.name[0] == '.';
        const std::string name = root ? e.name.substr(1) : e.name;
        for (auto it = scopes_.rbegin(); it != scopes_.rend() && !root; ++it) {
          if (it->name == e.name) {
            e.slot = it->slot;
            e.type = it->type;
            return;
          }
        }
        auto v = env_.variables.find(name);
        if (v != env_.variables.end()) {
          e.type = v->second;
          int idx = -1;
          for (size_t i = 0; i < p_->globals_.size(); ++i) {
            if (p_->globals_[i] == name) idx = static_cast<int>(i);
          }
          if (idx < 0) {
            idx = static_cast<int>(p_->globals_.size());
            p_->globals_.push_back(name);
          }
          e.slot = -2 - idx;  // globals are encoded as -2 - index
          return;
        }
        if (auto t = TypeIdent(name)) {
          e.kind = ExprKind::kConst;
          e.text = name;  // "optional_type" prints without its parameter
          e.constant = Value::Type(e.text);
          e.type = Type::TypeOf(*t);
          return;
        }
        Error(e, Cat("undeclared reference to '", e.name, "' (in container '')"));
        e.type = Type::Error();
        return;
      }
      case ExprKind::kSelect: {
        if (auto t = QualifiedTypeIdent(e)) {
          // `net.IP`, `net.CIDR`: the type names the IP and CIDR libraries declare;
          // `google.protobuf.Timestamp`, ...: the well-known types cel-go's registry declares.
          if (t->kind == TypeKind::kInt) {
            // google.protobuf.NullValue.NULL_VALUE: an enum constant, which cel-go folds to 0.
            e.kind = ExprKind::kConst;
            e.constant = Value::Int(0);
            e.text = "google.protobuf.NullValue.NULL_VALUE";  // cost.cc charges it as the identifier it was
            e.type = Type::Int();
            e.args.clear();
            return;
          }
          e.kind = ExprKind::kConst;
          e.text = FormatType(*t);
          e.constant = Value::Type(e.text);
          e.type = Type::TypeOf(*t);
          e.args.clear();
          return;
        }
        Check(*e.args[0]);
        Type t = Resolve(e.args[0]->type);
        e.type = SelectType(e, t, e.name);
        if (e.test_only) e.type = Type::Bool();
        return;
      }
      case ExprKind::kCall:
        CheckCall(e);
        return;
      case ExprKind::kList: {
        Type elem;
        bool first = true;
        for (size_t i = 0; i < e.args.size(); ++i) {
          Check(*e.args[i]);
          Type t = e.args[i]->type;
          if (IsOptionalIndex(e, i)) {
            t = Resolve(t);
            if (t.kind == TypeKind::kOptional) {
              t = t.params[0];
            } else if (!t.IsDynLike()) {
              Error(*e.args[i], Cat("expected type 'optional_type(", FormatCheckerType(t), ")' but found '",
                                    FormatCheckerType(t), "'"));
            }
          }
          elem = first ? t : Join(elem, t);
          first = false;
        }
        e.type = Type::List(first ? Fresh() : elem);
        return;
      }
      case ExprKind::kMap: {
        Type k, v;
        bool first = true;
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
          Check(*e.args[i]);
          Check(*e.args[i + 1]);
          Type kt = e.args[i]->type;
          Type vt = e.args[i + 1]->type;
          if (IsOptionalIndex(e, i / 2)) {
            vt = Resolve(vt);
            if (vt.kind == TypeKind::kOptional) vt = vt.params[0];
          }
          if (first) {
            k = kt;
            v = vt;
          } else {
            k = Join(k, kt);
            v = Join(v, vt);
          }
          first = false;
        }
        e.type = first ? Type::Map(Fresh(), Fresh()) : Type::Map(k, v);
        return;
      }
      case ExprKind::kComprehension:
        CheckComprehension(e);
        return;
      case ExprKind::kStruct:
        CheckStruct(e);
        return;
    }
  }

  // cel-go's checkCreateStruct: the type name resolves to a message (no container: only full
  // names, a leading dot allowed); each field value checks first, then the field is looked up and
  // the value's type must be assignable to it. Field errors sit at the field's ':'.
  void CheckStruct(Expr& e) {
    std::string_view name = e.name;
    if (!name.empty() && name[0] == '.') name.remove_prefix(1);
    bool not_a_message = false;
    std::optional<MessageConstruction> c = ResolveMessageConstruction(name, &not_a_message);
    if (!c && !not_a_message) {
      Error(e, Cat("undeclared reference to '", e.name, "' (in container '')"));
      e.type = Type::Error();
      return;
    }
    if (!c) Error(e, Cat("'", name, "' is not a message type"));
    e.type = c ? c->type : Type::Error();
    e.message = c && c->known_at_runtime ? c->fields_of : nullptr;
    // The checker looks fields up under the name the result type maps back to (Int32Value's as
    // Int64Value's): same names and checked types, so the construction's own table serves.
    for (size_t i = 0; i < e.args.size(); ++i) {
      Expr& value = *e.args[i];
      Check(value);
      const int32_t at = e.field_offsets[i];
      const MessageField* f = c ? c->fields_of->FindField(e.field_names[i]) : nullptr;
      std::optional<Type> ft = f != nullptr ? std::optional<Type>(FieldType(*f)) : std::nullopt;
      if (!ft) errors_.push_back({at, Cat("undefined field '", e.field_names[i], "'")});
      // Unresolved, as cel-go checks it: a literal's type parameter can still widen to the field's type.
      Type vt = value.type;
      if (vt.kind == TypeKind::kTypeParam) vt = Resolve(vt);
      if (IsOptionalIndex(e, i)) {
        if (vt.kind == TypeKind::kOptional) {
          vt = vt.params[0];
        } else if (!vt.IsDynLike()) {
          Error(value, Cat("expected type '", FormatCheckerType(Type::Optional(vt)), "' but found '", FormatCheckerType(vt), "'"));
        }
      }
      Type field_type = ft ? *ft : Type::Error();
      TypeSubst trial = subst_;
      if (IsAssignable(field_type, vt, trial)) {
        subst_ = std::move(trial);
      } else {
        errors_.push_back({at, Cat("expected type of field '", e.field_names[i], "' is '", FormatCheckerType(field_type),
                                   "' but provided type is '", FormatCheckerType(vt), "'")});
      }
    }
  }

  static std::optional<Type> TypeIdent(const std::string& n) {
    if (n == "int") return Type::Int();
    if (n == "uint") return Type::Uint();
    if (n == "double") return Type::Double();
    if (n == "string") return Type::String();
    if (n == "bytes") return Type::Bytes();
    if (n == "bool") return Type::Bool();
    if (n == "null_type") return Type::Null();
    if (n == "list") return Type::List(Type::Dyn());
    if (n == "map") return Type::Map(Type::Dyn(), Type::Dyn());
    if (n == "type") return Type::TypeType();
    if (n == "dyn") return Type::Dyn();
    // cel-go's OptionalTypes() declares the type identifier, unparameterised.
    if (n == "optional_type") return Type::Optional(Type::Dyn());
    return std::nullopt;
  }

  // A qualified type name written as a selection on an undeclared identifier, or nothing.
  // An enum constant comes back as Type::Int() (the caller folds it to its value).
  std::optional<Type> QualifiedTypeIdent(const Expr& e) {
    if (e.test_only) return std::nullopt;
    // Flatten the selection chain `a.b.c` into its qualified name; the root must be an identifier
    // that no variable or comprehension shadows.
    std::string name = e.name;
    const Expr* x = &e;
    while (x->kind == ExprKind::kSelect && x->args.size() == 1 && !x->test_only) {
      x = x->args[0].get();
      if (x->kind == ExprKind::kIdent) {
        name = Cat(x->name, ".", name);
        break;
      }
      if (x->kind != ExprKind::kSelect) return std::nullopt;
      name = Cat(x->name, ".", name);
    }
    if (x->kind != ExprKind::kIdent) return std::nullopt;
    // A leading dot (`.google.protobuf.Duration`) names the root scope: no local shadows it.
    const bool root = !x->name.empty() && x->name[0] == '.';
    if (root) name.erase(0, 1);
    for (const auto& s : scopes_) {
      if (!root && s.name == x->name) return std::nullopt;
    }
    if (env_.variables.count(root ? x->name.substr(1) : x->name) != 0) return std::nullopt;
    if (name == "net.IP") return Type::IP();
    if (name == "net.CIDR") return Type::CIDR();
    // The well-known types that cel-go's default registry resolves as identifiers (the wrappers,
    // Any, Struct, Value and ListValue are declared too but fail at program planning upstream:
    // "reference to undefined type"; they stay undeclared here).
    if (name == "google.protobuf.Timestamp") return Type::Timestamp();
    if (name == "google.protobuf.Duration") return Type::Duration();
    if (name == "google.protobuf.Empty") return Type::Object(name);
    if (name == "google.protobuf.NullValue.NULL_VALUE") return Type::Int();
    bool not_a_message;
    if (auto c = ResolveMessageConstruction(name, &not_a_message); c && c->known_at_runtime) {
      // The other well-known messages check as type names, but cel-go's planner has no runtime type
      // for them: "reference to undefined type", an error of program instantiation.
      if (instantiation_error_.empty()) instantiation_error_ = Cat("reference to undefined type: ", name);
      return c->type;
    }
    return std::nullopt;
  }

  static bool IsOptionalIndex(const Expr& e, size_t i) {
    for (int32_t x : e.optional_indices) {
      if (static_cast<size_t>(x) == i) return true;
    }
    return false;
  }

  // cel-go's joinTypes for the elements of a literal: when the previous element type is
  // assignable to the current one, the more general of the two (a type parameter stays a
  // parameter, so that a later use can still widen it); otherwise dyn (the homogeneous-literal
  // validator then reports the mismatch).
  Type Join(const Type& previous, const Type& current) {
    TypeSubst trial = subst_;
    if (IsAssignable(current, previous, trial)) {
      subst_ = std::move(trial);
      return IsEqualOrLessSpecific(previous, current) ? previous : current;
    }
    return Type::Dyn();
  }

  Type Resolve(const Type& t) { return Substitute(t, subst_, false); }

  Type SelectType(const Expr& e, const Type& t, const std::string& field) {
    switch (t.kind) {
      case TypeKind::kObject: {
        auto obj = env_.object_fields.find(t.name);
        if (obj != env_.object_fields.end()) {
          auto f = obj->second.find(field);
          if (f != obj->second.end()) return f->second;
        }
        Error(e, Cat("undefined field '", field, "'"));
        return Type::Error();
      }
      case TypeKind::kMap:
        // Maps yield their value type whatever their key type (cel-go checkSelectField): `{0: 1}.x`
        // checks, and fails with "no such key" at run time.
        return t.params[1];
      case TypeKind::kDyn:
      case TypeKind::kAny:
      case TypeKind::kError:
      case TypeKind::kTypeParam:
        return Type::Dyn();
      case TypeKind::kOptional: {
        // Optional chaining: a field of an optional value is an optional field (cel-go).
        Type inner = Resolve(t.params[0]);
        if (inner.kind == TypeKind::kTypeParam) return Type::Optional(Type::Dyn());
        Type f = SelectType(e, inner, field);
        return f.kind == TypeKind::kError ? f : Type::Optional(f);
      }
      default:
        Error(e, Cat("type '", FormatCheckerType(t), "' does not support field selection"));
        return Type::Error();
    }
  }

  void CheckCall(Expr& e) {
    for (auto& a : e.args) Check(*a);
    const Function* fn = registry_.Find(e.name);
    if (fn == nullptr) {
      Error(e, Cat("undeclared reference to '", e.name, "' (in container '')"));
      e.type = Type::Error();
      return;
    }
    e.function = fn;
    // Optional field selection on objects/maps has a precise result type.
    if (e.name == "_?._") {
      Type t = Resolve(e.args[0]->type);
      Type ft = SelectType(e, t, std::string(e.args[1]->constant.str()));
      e.type = Type::Optional(ft);
      e.overloads = {0};
      return;
    }
    // The arguments' types as checked, type parameters unresolved (cel-go's getType): matching an
    // overload may widen a parameter's binding (int, then dyn), and that must reach every node
    // typed with the parameter, e.g. the elements of `[?optional.none(), 0]` when the list meets a
    // list(dyn); the homogeneous-literal validator then sees dyn and int, as upstream.
    std::vector<Type> arg_types;
    for (auto& a : e.args) arg_types.push_back(a->type);
    if (!e.receiver_style && (e.name == "_&&_" || e.name == "_||_")) {
      CheckLogical(e, arg_types);
      return;
    }
    Type result;
    bool found = false;
    for (size_t i = 0; i < fn->overloads.size(); ++i) {
      const Overload& o = fn->overloads[i];
      if (o.member != e.receiver_style || o.params.size() != arg_types.size()) continue;
      // Instantiate the overload's type parameters freshly for this call.
      TypeSubst renamed;
      std::vector<Type> params;
      for (const Type& p : o.params) params.push_back(Rename(p, renamed));
      Type res = Rename(o.result, renamed);
      TypeSubst trial = subst_;
      bool ok = true;
      for (size_t k = 0; k < params.size() && ok; ++k) ok = IsAssignable(params[k], arg_types[k], trial);
      if (!ok) continue;
      e.overloads.push_back(static_cast<int>(i));
      Type rt = Substitute(res, trial, false);
      if (!found) {
        subst_ = std::move(trial);
        result = rt;
        found = true;
      } else if (!(result == rt)) {
        result = Type::Dyn();
      }
    }
    if (!found) {
      std::string args;
      size_t start = e.receiver_style ? 1 : 0;
      for (size_t k = start; k < arg_types.size(); ++k) {
        if (k > start) args += ", ";
        args += FormatCheckerType(Substitute(arg_types[k], subst_, true));
      }
      if (e.receiver_style) {
        Error(e, Cat("found no matching overload for '", e.name, "' applied to '",
                     FormatCheckerType(Substitute(arg_types[0], subst_, true)), ".(", args, ")'"));
      } else {
        Error(e, Cat("found no matching overload for '", e.name, "' applied to '(", args, ")'"));
      }
      e.type = Type::Error();
      return;
    }
    e.type = result;
  }

  // cel-go checks the logical operators apart from overload resolution (they may be variadic):
  // every operand that is not assignable to bool is an error of its own, "expected type 'bool' but
  // found 'T'" at that operand, which API validation shows to users.
  void CheckLogical(Expr& e, const std::vector<Type>& arg_types) {
    bool ok = true;
    for (size_t k = 0; k < arg_types.size(); ++k) {
      TypeSubst trial = subst_;
      if (IsAssignable(Type::Bool(), arg_types[k], trial)) {
        subst_ = std::move(trial);
        continue;
      }
      Error(*e.args[k], Cat("expected type 'bool' but found '", FormatCheckerType(Substitute(arg_types[k], subst_, true)),
                            "'"));
      ok = false;
    }
    e.overloads = {0};
    e.type = ok ? Type::Bool() : Type::Error();
  }

  Type Rename(const Type& t, TypeSubst& renamed) {
    if (t.kind == TypeKind::kTypeParam) {
      auto it = renamed.find(t.name);
      if (it == renamed.end()) it = renamed.emplace(t.name, Fresh()).first;
      return it->second;
    }
    if (t.params.empty()) return t;
    Type out = t;
    for (Type& p : out.params) p = Rename(p, renamed);
    return out;
  }

  void CheckComprehension(Expr& e) {
    Expr& range = *e.args[kIterRange];
    Check(range);
    Type rt = Resolve(range.type);
    Type v1, v2;
    bool two = !e.iter_var2.empty();
    switch (rt.kind) {
      case TypeKind::kList:
        if (two) {
          v1 = Type::Int();
          v2 = rt.params[0];
        } else {
          v1 = rt.params[0];
        }
        break;
      case TypeKind::kMap:
        v1 = rt.params[0];
        v2 = rt.params[1];
        break;
      case TypeKind::kDyn:
      case TypeKind::kError:
      case TypeKind::kTypeParam:
        v1 = Type::Dyn();
        v2 = Type::Dyn();
        break;
      default:
        Error(range, Cat("expression of type '", FormatCheckerType(rt),
                         "' cannot be range of a comprehension (must be list, map, or dynamic)"));
        v1 = Type::Dyn();
        v2 = Type::Dyn();
    }
    Check(*e.args[kAccuInit]);
    Type accu = Resolve(e.args[kAccuInit]->type);
    int base = static_cast<int>(scopes_.size());
    e.slot = next_slot_;
    int accu_slot = next_slot_++;
    int v1_slot = next_slot_++;
    int v2_slot = two ? next_slot_++ : -1;
    if (next_slot_ > p_->max_slots_) p_->max_slots_ = next_slot_;
    scopes_.push_back({e.accu_var, accu_slot, accu});
    scopes_.push_back({e.iter_var, v1_slot, v1});
    if (two) scopes_.push_back({e.iter_var2, v2_slot, v2});
    Check(*e.args[kLoopCondition]);
    Check(*e.args[kLoopStep]);
    Type step = Resolve(e.args[kLoopStep]->type);
    TypeSubst trial = subst_;
    if (IsAssignable(accu, step, trial)) {
      subst_ = std::move(trial);
    } else {
      Error(*e.args[kLoopStep], Cat("expected type '", FormatCheckerType(accu), "' but found '", FormatCheckerType(step), "'"));
    }
    scopes_.resize(base + 1);
    scopes_.back().type = Resolve(accu);
    Check(*e.args[kResult]);
    scopes_.resize(base);
    next_slot_ = e.slot;
    e.type = e.args[kResult]->type;
  }

  // Substitutes all type variables; unbound ones become dyn.
  void Finalize(Expr& e) {
    e.type = Substitute(e.type, subst_, true);
    for (auto& a : e.args) Finalize(*a);
  }

  // Kubernetes validators: homogeneous aggregate literals, regex literals.
  // cel-go's type name of a static type in format errors (Type.TypeName(): no parameters).
  static std::string FormatTypeName(const Type& t) {
    switch (t.kind) {
      case TypeKind::kList: return "list";
      case TypeKind::kMap: return "map";
      case TypeKind::kOptional: return "optional_type";
      case TypeKind::kType: return "type";
      case TypeKind::kNull: return "null_type";
      default: return FormatType(t);
    }
  }

  // The strings extension's format validator (ext/formatting.go stringFormatValidator): a constant
  // format string applied to a list literal is checked at compile time against the elements'
  // static types.
  class StaticFormatArgs final : public internal::FormatArgs {
   public:
    explicit StaticFormatArgs(const Expr& list) : list_(list) {}
    size_t size() const override { return list_.args.size(); }
    std::string Apply(size_t index, char verb, int, std::string*) override {
      const Expr& arg = *list_.args[index];
      bad_ = &arg;
      auto one_of = [&](std::initializer_list<TypeKind> kinds) {
        if (arg.type.kind == TypeKind::kDyn) return true;
        for (TypeKind k : kinds) {
          if (arg.type.kind == k) return true;
        }
        return false;
      };
      const std::string given = FormatTypeName(arg.type);
      switch (verb) {
        case 's':
          if (!VerifyString(arg)) {
            return Cat("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
                       "durations, and timestamps, was given ", FormatTypeName(bad_->type));
          }
          return "";
        case 'd':
          return one_of({TypeKind::kInt, TypeKind::kUint}) ? "" : Cat("decimal clause can only be used on integers, was given ", given);
        case 'f':
          return one_of({TypeKind::kDouble, TypeKind::kString}) ? "" : Cat("fixed-point clause can only be used on doubles, was given ", given);
        case 'e':
          return one_of({TypeKind::kDouble, TypeKind::kString}) ? "" : Cat("scientific clause can only be used on doubles, was given ", given);
        case 'b':
          return one_of({TypeKind::kInt, TypeKind::kUint, TypeKind::kBool}) ? "" : Cat("only integers and bools can be formatted as binary, was given ", given);
        case 'x': case 'X':
          return one_of({TypeKind::kInt, TypeKind::kUint, TypeKind::kString, TypeKind::kBytes})
                     ? "" : Cat("only integers, byte buffers, and strings can be formatted as hex, was given ", given);
        case 'o':
          return one_of({TypeKind::kInt, TypeKind::kUint}) ? "" : Cat("octal clause can only be used on integers, was given ", given);
      }
      return "";
    }
    const Expr* bad() const { return bad_; }

   private:
    bool VerifyString(const Expr& sub) {
      switch (sub.type.kind) {
        case TypeKind::kDyn: case TypeKind::kList: case TypeKind::kMap: case TypeKind::kInt: case TypeKind::kUint:
        case TypeKind::kDouble: case TypeKind::kBool: case TypeKind::kString: case TypeKind::kTimestamp:
        case TypeKind::kBytes: case TypeKind::kDuration: case TypeKind::kType: case TypeKind::kNull: break;
        default: bad_ = &sub; return false;
      }
      if (sub.kind == ExprKind::kList || sub.kind == ExprKind::kMap) {
        for (const auto& a : sub.args) {
          if (!VerifyString(*a)) return false;
        }
      }
      return true;
    }
    const Expr& list_;
    const Expr* bad_ = nullptr;
  };

  void ValidateFormat(const Expr& e) {
    const Expr& target = *e.args[0];
    const Expr& list = *e.args[1];
    if (target.kind != ExprKind::kConst || target.constant.kind() != ValueKind::kString ||
        list.kind != ExprKind::kList) {
      return;
    }
    StaticFormatArgs args(list);
    internal::FormatResult r = internal::InterpolateFormat(target.constant.str(), args);
    if (!r.error.empty()) {
      Error(r.error_arg >= 0 && args.bad() != nullptr ? *args.bad() : e, r.error);
      return;
    }
    if (list.args.size() > r.args_used) {
      Error(e, Cat("too many arguments supplied to string.format (expected ", r.args_used, ", got ",
                   list.args.size(), ")"));
    }
  }

  // Go's regexp/syntax error for a pattern RE2 rejects: "error parsing regexp: <code>: `<fragment>`",
  // with Go's wording of each code; the fragment is RE2's, which is Go's in the common cases.
  static std::string GoRegexpError(const re2::RE2& re) {
    std::string_view code;
    std::string arg = re.error_arg();
    switch (re.error_code()) {
      case re2::RE2::ErrorMissingBracket: code = "missing closing ]"; break;
      case re2::RE2::ErrorMissingParen: code = "missing closing )"; break;
      case re2::RE2::ErrorUnexpectedParen: code = "unexpected )"; break;
      case re2::RE2::ErrorTrailingBackslash: code = "trailing backslash at end of expression"; arg.clear(); break;
      case re2::RE2::ErrorRepeatArgument: code = "missing argument to repetition operator"; break;
      case re2::RE2::ErrorRepeatSize: code = "invalid repeat count"; break;
      case re2::RE2::ErrorRepeatOp: code = "invalid nested repetition operator"; break;
      case re2::RE2::ErrorBadPerlOp: code = "invalid or unsupported Perl syntax"; break;
      case re2::RE2::ErrorBadUTF8: code = "invalid UTF-8"; break;
      case re2::RE2::ErrorBadNamedCapture: code = "invalid named capture"; break;
      case re2::RE2::ErrorBadCharClass: code = "invalid character class"; break;
      case re2::RE2::ErrorBadCharRange: code = "invalid character class range"; break;
      case re2::RE2::ErrorBadEscape: code = "invalid escape sequence"; break;
      case re2::RE2::ErrorPatternTooLarge: code = "expression too large"; break;
      default: code = "regexp/syntax: internal error"; break;
    }
    return Cat("error parsing regexp: ", code, ": `", arg, "`");
  }

  // The homogeneous aggregate literal validator (cel-go ValidateHomogeneousAggregateLiterals):
  // runs on a literal before its elements, as cel-go visits the AST top-down.
  void ValidateAggregate(Expr& e) {
    if (e.kind == ExprKind::kList) {
      const Type* first = nullptr;
      Type ft;
      for (size_t i = 0; i < e.args.size(); ++i) {
        Type t = e.args[i]->type;
        if (IsOptionalIndex(e, i) && t.kind == TypeKind::kOptional) t = t.params[0];
        if (first == nullptr) {
          ft = t;
          first = &ft;
          continue;
        }
        if (!IsEquivalentType(ft, t)) {
          Error(*e.args[i], Cat("expected type '", FormatCheckerType(ft), "' but found '", FormatCheckerType(t), "'"));
          break;
        }
      }
    } else if (e.kind == ExprKind::kMap) {
      for (int part = 0; part < 2; ++part) {
        bool have = false;
        Type ft;
        for (size_t i = part; i < e.args.size(); i += 2) {
          Type t = e.args[i]->type;
          if (part == 1 && IsOptionalIndex(e, i / 2) && t.kind == TypeKind::kOptional) t = t.params[0];
          if (!have) {
            ft = t;
            have = true;
            continue;
          }
          if (!IsEquivalentType(ft, t)) {
            Error(*e.args[i], Cat("expected type '", FormatCheckerType(ft), "' but found '", FormatCheckerType(t), "'"));
            break;
          }
        }
      }
    }
  }

  void Validate(Expr& e) {
    // Literals anywhere inside a format() call are exempt from the homogeneity check (cel-go's
    // strings extension registers format as an exempt function).
    const bool format = e.kind == ExprKind::kCall && e.name == "format" && e.receiver_style && e.args.size() == 2;
    if (format_depth_ == 0) ValidateAggregate(e);
    if (format) ++format_depth_;
    for (auto& a : e.args) Validate(*a);
    if (format) {
      --format_depth_;
      ValidateFormat(e);
    }
    // cel-go's ValidateTimestampLiterals / ValidateDurationLiterals.
    if (e.kind == ExprKind::kCall && (e.name == "timestamp" || e.name == "duration") && !e.receiver_style &&
        e.args.size() == 1 && e.args[0]->kind == ExprKind::kConst) {
      const Value& arg = e.args[0]->constant;
      bool ts = e.name == "timestamp";
      bool literal = arg.kind() == ValueKind::kString || (ts && arg.kind() == ValueKind::kInt);
      if (literal && !(ts ? internal::IsValidTimestampLiteral(arg) : internal::IsValidDurationLiteral(arg))) {
        Error(*e.args[0], ts ? "invalid timestamp argument" : "invalid duration argument");
      }
    }
    if (e.kind == ExprKind::kCall) {
      bool regex_fn = e.name == "matches" || e.name == "find" || e.name == "findAll";
      size_t idx = 1;
      if (regex_fn && e.args.size() > idx && e.args[idx]->kind == ExprKind::kConst &&
          e.args[idx]->constant.kind() == ValueKind::kString) {
        std::string_view pat = e.args[idx]->constant.str();
        if (p_->regexes_.find(pat) == p_->regexes_.end()) {
          re2::RE2::Options opts;
          opts.set_log_errors(false);
          auto re = std::make_unique<re2::RE2>(re2::StringPiece(pat.data(), pat.size()), opts);
          if (!re->ok()) {
            // cel-go's regex literal validator covers the receiver-style matches() only; the
            // global matches() and the Kubernetes find()/findAll() precompile a constant pattern
            // when the program is planned, and fail there with Go's regexp error.
            if (e.name == "matches" && e.receiver_style) {
              Error(*e.args[idx], "invalid matches argument");
            } else if (instantiation_error_.empty()) {
              instantiation_error_ = GoRegexpError(*re);
            }
            return;
          }
          p_->regexes_.emplace(std::string(pat), std::move(re));
        }
      }
    }
  }

  Program* p_;
  const Env& env_;
  const FunctionRegistry& registry_;
  std::vector<SourceError> errors_;
  std::vector<Scope> scopes_;
  TypeSubst subst_;
  int next_var_ = 0;
  int next_slot_ = 0;
  int format_depth_ = 0;  // Validate: how many format() calls enclose the current node
  // The first error of cel-go's planner (program instantiation), reported when the checker found
  // none: a well-known type name it cannot resolve, a constant regex it cannot compile.
  std::string instantiation_error_;
};

absl::StatusOr<std::unique_ptr<Program>> Program::Compile(std::string_view source, const Env& env) {
  auto parsed = Parse(source);
  if (!parsed.ok()) return parsed.status();
  std::unique_ptr<Program> p(new Program());
  p->parsed_ = *std::move(parsed);
  p->env_copy_ = env;
  p->env_ = &p->env_copy_;
  Checker c(p.get(), p->env_copy_);
  absl::Status s = c.Run();
  if (!s.ok()) return s;
  // The estimate sees the program as checked, before planning folds conversions.
  p->estimated_cost_ = p->ComputeEstimatedCost();
  RETURN_IF_ERROR(p->FoldConversions(*p->parsed_.root));
  RETURN_IF_ERROR(p->CheckConstantQualifiers(*p->parsed_.root));
  PlanCalls(*p->parsed_.root);
  return p;
}

// cel-go evaluates type conversions of constants when it plans the program: they cost nothing at
// runtime, and a failing one is an error of program instantiation.
// Bottom-up, so that a folded literal or conversion makes its parent constant too: cel-go plans
// `[dyn([1])]` and `type({})` as constants.
absl::Status Program::FoldConversions(Expr& e) {
  for (auto& a : e.args) RETURN_IF_ERROR(FoldConversions(*a));
  if (e.kind == ExprKind::kList || e.kind == ExprKind::kMap) {
    FoldConstants(e);
    return absl::OkStatus();
  }
  if (e.kind != ExprKind::kCall || e.args.size() != 1) return absl::OkStatus();
  Value arg;
  if (e.args[0]->kind == ExprKind::kConst) {
    arg = e.args[0]->constant;
  } else if (auto folded = folded_.find(e.args[0].get()); folded != folded_.end()) {
    arg = folded->second;
  } else {
    return absl::OkStatus();
  }
  const std::string& n = e.name;
  if (n != "int" && n != "uint" && n != "double" && n != "string" && n != "bytes" && n != "bool" && n != "type" &&
      n != "dyn" && n != "timestamp" && n != "duration") {
    return absl::OkStatus();
  }
  const Function* f = static_cast<const Function*>(e.function);
  if (f == nullptr) return absl::OkStatus();
  for (int idx : e.overloads) {
    const Overload& o = f->overloads[idx];
    if (o.impl == nullptr || (o.kinds[0] >= 0 && o.kinds[0] != static_cast<int>(arg.kind()))) continue;
    EvalContext ctx;
    ctx.arena = &constants_;
    Value v = o.impl(ctx, &arg);
    if (v.IsError()) {
      std::string_view msg = v.error()->message;
      if (msg == "integer overflow" || msg == "unsigned integer overflow" ||
          msg == "invalid UTF-8 in bytes, cannot convert to string") {
        return absl::InvalidArgumentError(Cat("program instantiation failed: ", msg));
      }
      return absl::InvalidArgumentError(Cat("program instantiation failed: type conversion error from '",
                                            TypeName(arg), "' to '", n, "'"));
    }
    if (v.kind() == ValueKind::kString || v.kind() == ValueKind::kBytes || v.kind() == ValueKind::kType) {
      e.text = std::string(v.str());
      v = v.kind() == ValueKind::kString ? Value::String(e.text)
                                         : (v.kind() == ValueKind::kBytes ? Value::Bytes(e.text) : Value::Type(e.text));
    }
    e.kind = ExprKind::kConst;
    e.constant = v;
    for (auto& a : e.args) folded_operands_.push_back(std::move(a));
    e.args.clear();
    return absl::OkStatus();
  }
  // No overload takes the constant (its static type was dyn): cel-go's planner reports it.
  bool any_accepts = false;
  for (int idx : e.overloads) {
    const Overload& o = f->overloads[idx];
    any_accepts = any_accepts || o.kinds.empty() || o.kinds[0] < 0 || o.kinds[0] == static_cast<int>(arg.kind());
  }
  if (!any_accepts && n != "dyn" && n != "type") {
    return absl::InvalidArgumentError(Cat("program instantiation failed: no such overload: ", n, "(", TypeName(arg), ")"));
  }
  return absl::OkStatus();
}

absl::Status Program::CheckConstantQualifiers(const Expr& e) const {
  for (const auto& a : e.args) RETURN_IF_ERROR(CheckConstantQualifiers(*a));
  if (e.kind != ExprKind::kCall || (e.name != "_[_]" && e.name != "_[?_]") || e.args.size() != 2) {
    return absl::OkStatus();
  }
  // dyn() is the identity for the planner: `m[dyn(b'')]` has a constant key too.
  const Expr* key = e.args[1].get();
  while (key->kind == ExprKind::kCall && key->name == "dyn" && !key->receiver_style && key->args.size() == 1) {
    key = key->args[0].get();
  }
  Value v;
  if (key->kind == ExprKind::kConst) {
    v = key->constant;
  } else if (auto it = folded_.find(key); it != folded_.end()) {
    v = it->second;
  } else {
    return absl::OkStatus();
  }
  switch (v.kind()) {
    case ValueKind::kString:
    case ValueKind::kInt:
    case ValueKind::kUint:
    case ValueKind::kBool:
    case ValueKind::kDouble:
      return absl::OkStatus();
    default:
      return absl::InvalidArgumentError(
          Cat("program instantiation failed: invalid qualifier type: ", GoTypeName(v)));
  }
}

// cel-go plans list and map literals whose elements are all constants as constants (no runtime
// cost).
bool Program::FoldConstants(const Expr& e) {
  bool all = true;
  for (const auto& a : e.args) all = all && (a->kind == ExprKind::kConst || folded_.count(a.get()) != 0);
  if (e.kind == ExprKind::kConst) return true;
  if ((e.kind != ExprKind::kList && e.kind != ExprKind::kMap) || !all || !e.optional_indices.empty()) return false;
  auto value_of = [&](const Expr& x) { return x.kind == ExprKind::kConst ? x.constant : folded_.at(&x); };
  if (e.kind == ExprKind::kList) {
    Value* items = constants_.NewArray<Value>(e.args.size());
    for (size_t i = 0; i < e.args.size(); ++i) items[i] = value_of(*e.args[i]);
    folded_[&e] = Value::List(constants_.New<ArrayList>(items, e.args.size()));
    return true;
  }
  ArrayMap* m = constants_.New<ArrayMap>();
  m->set_keyed_by_go_value();
  for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
    Value k = value_of(*e.args[i]);
    // The constant keys a Go map takes: cel-go folds `{1.5: 1}`, `{null: 1}` and, its conversions
    // being constants, `{timestamp(0): 1}` and `{dyn(int): 1}` too.
    switch (k.kind()) {
      case ValueKind::kString:
      case ValueKind::kInt:
      case ValueKind::kUint:
      case ValueKind::kBool:
      case ValueKind::kDouble:
      case ValueKind::kNull:
      case ValueKind::kTimestamp:
      case ValueKind::kDuration:
      case ValueKind::kType:
        break;
      default:
        return false;
    }
    m->Put(constants_, k, value_of(*e.args[i + 1]));
  }
  folded_[&e] = Value::Map(m);
  return true;
}

}  // namespace draforge::cel
