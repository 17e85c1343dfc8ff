#include "alloc/internal/derived_attributes.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/semver.h"
#include "cel/program.h"
#include "cel/selector.h"
#include "cel/types.h"
#include "cel/value.h"
#include "common/status.h"

namespace draforge::alloc::internal {
namespace {

using cel::Arena;
using cel::ArrayList;
using cel::ArrayMap;
using cel::MapValue;
using cel::Value;
using cel::ValueKind;

// "domain/id" or, unqualified, the driver's domain (upstream parseQualifiedName).
std::pair<std::string_view, std::string_view> SplitName(std::string_view name, std::string_view driver) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

// device.attributes / device.capacity: domain -> map of ids. A domain the device does not have reads
// as an empty map (so `device.attributes["x"]["y"]` is "no such key: y"), while `in` and has() say
// it is absent: upstream's map with a default value.
class DomainsMap final : public MapValue {
 public:
  std::vector<std::pair<std::string_view, ArrayMap*>> domains;
  const ArrayMap* empty = nullptr;

  size_t size() const override { return domains.size(); }
  bool Find(Value key, Value* out) const override {
    if (key.kind() != ValueKind::kString) return false;
    for (const auto& [d, m] : domains) {
      if (d == key.str()) {
        *out = Value::Map(m);
        return true;
      }
    }
    *out = Value::Map(empty);
    return true;
  }
  bool Has(Value key) const override {
    if (key.kind() != ValueKind::kString) return false;
    for (const auto& [d, m] : domains) {
      if (d == key.str()) return true;
    }
    return false;
  }
  Value KeyAt(size_t i) const override { return Value::String(domains[i].first); }
  Value ValueAt(size_t i) const override { return Value::Map(domains[i].second); }

  ArrayMap* Domain(Arena& arena, std::string_view domain) {
    for (auto& [d, m] : domains) {
      if (d == domain) return m;
    }
    domains.emplace_back(domain, arena.New<ArrayMap>());
    return domains.back().second;
  }
};

absl::StatusOr<const api::Semver*> ParseSemver(Arena& arena, std::string_view name, std::string_view text) {
  auto v = api::Semver::Parse(text);
  if (!v.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute ", AV(name), ": parse semantic version: ", v.status().message()));
  }
  return arena.New<api::Semver>(*std::move(v));
}

template <typename T, typename F>
Value ListOf(Arena& arena, const std::vector<T>& items, F make) {
  Value* values = arena.NewArray<Value>(items.size());
  for (size_t i = 0; i < items.size(); ++i) values[i] = make(items[i]);
  return Value::List(arena.New<ArrayList>(values, items.size()));
}

// The CEL value of one attribute. Upstream converts every attribute before evaluating, so a bad
// one fails the device even if the expression does not read it.
absl::StatusOr<Value> AttributeValue(Arena& arena, std::string_view name, const api::DeviceAttribute& a) {
  if (!a.ints().empty()) return ListOf(arena, a.ints(), [](int64_t v) { return Value::Int(v); });
  if (!a.bools().empty()) return ListOf(arena, a.bools(), [](bool v) { return Value::Bool(v); });
  if (!a.strings().empty()) return ListOf(arena, a.strings(), [](const std::string& v) { return Value::String(v); });
  if (!a.versions().empty()) {
    Value* values = arena.NewArray<Value>(a.versions().size());
    for (size_t i = 0; i < a.versions().size(); ++i) {
      ASSIGN_OR_RETURN(const api::Semver* s, ParseSemver(arena, name, a.versions()[i]));
      values[i] = Value::Semver(s);
    }
    return Value::List(arena.New<ArrayList>(values, a.versions().size()));
  }
  if (auto i = a.int_value()) return Value::Int(*i);
  if (auto b = a.bool_value()) return Value::Bool(*b);
  if (const std::string* s = a.string_value()) return Value::String(*s);
  if (const std::string* v = a.version_value()) {
    ASSIGN_OR_RETURN(const api::Semver* s, ParseSemver(arena, name, *v));
    return Value::Semver(s);
  }
  return absl::InvalidArgumentError(absl::StrCat("attribute ", AV(name), ": unsupported attribute value"));
}

const api::Quantity& ZeroQuantity() {
  static const api::Quantity* const kZero = new api::Quantity();
  return *kZero;
}

// The Go type cel-go's Value() gives, for upstream's "unsupported CEL return type: %T".
std::string_view GoNativeType(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kUint: return "uint64";
    case ValueKind::kDouble: return "float64";
    case ValueKind::kBytes: return "[]uint8";
    case ValueKind::kNull: return "structpb.NullValue";
    case ValueKind::kMap: return "map[ref.Val]ref.Val";
    case ValueKind::kQuantity: return "resource.Quantity";
    case ValueKind::kTimestamp: return "time.Time";
    case ValueKind::kDuration: return "time.Duration";
    case ValueKind::kBool: return "bool";
    case ValueKind::kInt: return "int64";
    case ValueKind::kString: return "string";
    case ValueKind::kSemver: return "semver.Version";
    default: return cel::GoTypeName(v);
  }
}

// Upstream valToDeviceAttribute: a scalar, or a list whose first element fixes the type.
absl::StatusOr<api::DeviceAttribute> ToAttribute(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kBool: return api::DeviceAttribute::Bool(v.bool_value());
    case ValueKind::kInt: return api::DeviceAttribute::Int(v.int_value());
    case ValueKind::kString: return api::DeviceAttribute::String(std::string(v.str()));
    case ValueKind::kSemver: return api::DeviceAttribute::Version(v.semver()->String());
    case ValueKind::kList: break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("unsupported CEL return type: ", AV(GoNativeType(v))));
  }
  const cel::ListValue& list = *v.list();
  api::DeviceAttribute::Fields fields;
  if (list.size() == 0) return api::DeviceAttribute(std::move(fields));  // upstream: an empty string list
  const ValueKind kind = list.Get(0).kind();
  auto mismatch = [&](size_t i, std::string_view want) {
    return absl::InvalidArgumentError(absl::StrCat("expected list element at index ", i, " to be ", AV(want),
                                                   ", got ", AV(GoNativeType(list.Get(i)))));
  };
  for (size_t i = 0; i < list.size(); ++i) {
    const Value e = list.Get(i);
    switch (kind) {
      case ValueKind::kBool:
        if (e.kind() != kind) return mismatch(i, "bool");
        fields.bools.push_back(e.bool_value());
        break;
      case ValueKind::kInt:
        if (e.kind() != kind) return mismatch(i, "int");
        fields.ints.push_back(e.int_value());
        break;
      case ValueKind::kString:
        if (e.kind() != kind) return mismatch(i, "string");
        fields.strings.emplace_back(e.str());
        break;
      case ValueKind::kSemver:
        if (e.kind() != kind) return mismatch(i, "semver");
        fields.versions.push_back(e.semver()->String());
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("unsupported list element type: ", AV(GoNativeType(list.Get(0)))));
    }
  }
  return api::DeviceAttribute(std::move(fields));
}

bool AllowedElementType(const cel::Type& t) {
  switch (t.kind) {
    case cel::TypeKind::kBool:
    case cel::TypeKind::kInt:
    case cel::TypeKind::kString:
    case cel::TypeKind::kAny:
    case cel::TypeKind::kDyn:
      return true;
    case cel::TypeKind::kOpaque:
      return t == cel::Type::Semver();
    default:
      return false;
  }
}

}  // namespace

struct DerivedAttributeProgram::Impl {
  cel::Env env;
  std::unique_ptr<cel::Program> program;
};

DerivedAttributeProgram::DerivedAttributeProgram(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DerivedAttributeProgram::~DerivedAttributeProgram() = default;

absl::StatusOr<std::shared_ptr<const DerivedAttributeProgram>> DerivedAttributeProgram::Compile(
    std::string_view expression) {
  auto impl = std::make_unique<Impl>();
  // The scheduler compiles stored expressions: the gates do not change what compiles, and lists are
  // always allowed as results (so disabling DRAListTypeAttributes cannot break stored claims).
  cel::EnvOptions options;
  options.stored_expressions = true;
  impl->env = cel::Env::Dra(options);
  auto program = cel::Program::Compile(expression, impl->env);
  if (!program.ok()) {
    std::string msg(program.status().message());
    if (msg.rfind("program instantiation failed", 0) == 0) return absl::InvalidArgumentError(msg);
    return absl::InvalidArgumentError(absl::StrCat("compilation failed: ", msg));
  }
  const cel::Type& t = (*program)->result_type();
  const bool allowed =
      AllowedElementType(t) || (t.kind == cel::TypeKind::kList && t.params.size() == 1 && AllowedElementType(t.params[0]));
  if (!allowed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "must evaluate to a primitive scalar (string, integer, boolean, semver) or a list of these scalars, not ",
        cel::FormatType(t)));
  }
  impl->program = *std::move(program);
  return std::shared_ptr<const DerivedAttributeProgram>(new DerivedAttributeProgram(std::move(impl)));
}

absl::StatusOr<api::DeviceAttribute> DerivedAttributeProgram::Evaluate(const api::Device& device,
                                                                      std::string_view driver) const {
  // One arena per call: evaluation happens at most once per device and expression, so reuse across
  // calls (and the thread_local that would need) buys nothing.
  Arena arena;
  auto* attributes = arena.New<DomainsMap>();
  attributes->empty = arena.New<ArrayMap>();
  // Unqualified names first: where both "x" and "<driver>/x" exist, the unqualified one is what the
  // selector environment finds first too.
  for (bool qualified : {false, true}) {
    for (const auto& [name, a] : device.attributes) {
      if ((name.find('/') != std::string::npos) != qualified) continue;
      auto [domain, id] = SplitName(name, driver);
      ASSIGN_OR_RETURN(Value value, AttributeValue(arena, name, a));
      attributes->Domain(arena, domain)->Insert(arena, Value::String(id), value);
    }
  }
  auto* capacity = arena.New<DomainsMap>();
  capacity->empty = attributes->empty;
  for (bool qualified : {false, true}) {
    for (const auto& [name, c] : device.capacity) {
      if ((name.find('/') != std::string::npos) != qualified) continue;
      auto [domain, id] = SplitName(name, driver);
      capacity->Domain(arena, domain)
          ->Insert(arena, Value::String(id), Value::Quantity(c.value ? &*c.value : &ZeroQuantity()));
    }
  }
  auto* device_map = arena.New<ArrayMap>();
  device_map->Insert(arena, Value::String("driver"), Value::String(driver));
  device_map->Insert(arena, Value::String("attributes"), Value::Map(attributes));
  device_map->Insert(arena, Value::String("capacity"), Value::Map(capacity));
  device_map->Insert(arena, Value::String("allowMultipleAllocations"),
                     Value::Bool(device.allow_multiple_allocations.value_or(false)));
  Value device_value = Value::Map(device_map);
  cel::Activation activation;
  activation.globals = &device_value;
  cel::EvalResult r = impl_->program->Eval(activation, arena, static_cast<uint64_t>(cel::kSelectorMaxCost));
  if (r.value.IsError()) return absl::InvalidArgumentError(std::string(r.value.error()->message));
  return ToAttribute(r.value);
}

absl::StatusOr<const api::DeviceAttribute*> DerivedAttributeCache::Lookup(
    const std::vector<api::DeviceDerivedAttribute>& derived, std::string_view name, int device_index,
    const api::Device& device, std::string_view driver, std::string_view device_id) {
  // Upstream keeps them in a map by name: with a repeated name (API validation forbids it), the
  // last one wins.
  const api::DeviceDerivedAttribute* found = nullptr;
  for (const api::DeviceDerivedAttribute& d : derived) {
    if (d.name.value_or("") == name) found = &d;
  }
  if (found == nullptr) return nullptr;
  const std::string& expression = found->expression ? *found->expression : std::string();
  auto key = std::make_pair(device_index, expression);
  if (auto it = values_.find(key); it != values_.end()) return &it->second;
  auto p = programs_.find(expression);
  if (p == programs_.end()) p = programs_.emplace(expression, DerivedAttributeProgram::Compile(expression)).first;
  if (!p->second.ok()) {
    return absl::Status(p->second.status().code(), absl::StrCat("compile derived attribute ", AV(name), " failed: ",
                                                                p->second.status().message()));
  }
  auto value = (*p->second)->Evaluate(device, driver);
  if (!value.ok()) {
    return absl::Status(value.status().code(), absl::StrCat("evaluate derived attribute ", AV(name), " on device ",
                                                            AV(device_id), " failed: ", value.status().message()));
  }
  return &values_.emplace(std::move(key), *std::move(value)).first->second;
}

}  // namespace draforge::alloc::internal
