// Validation of DRA objects as the Kubernetes 1.37 API server does it.
//
// Structure: for each kind there is a hand-written pass that mirrors
// pkg/apis/resource/validation/validation.go (function for function, in the same order, so that the
// errors come out in the same order) and a declarative pass that mirrors
// pkg/apis/resource/v1/zz_generated.validations.go (the rules of the v1 types' +k8s tags). Merge()
// then combines them as rest.ValidateDeclarativelyWithMigrationChecks does: a hand-written error
// marked "covered by declarative" is dropped when an enforced beta declarative error has the same
// type, origin and field, and the enforced declarative errors are appended. Alpha declarative rules
// are not enforced in 1.37 and are left out.
//
// Known differences from the API server (see also validation.h):
//   * Go iterates maps in random order, so the API server reports several bad map keys (labels,
//     attributes, ...) in varying order; DRAForge reports them in key order.
//   * Raw JSON (opaque parameters, device status data) is measured in its compact form; the API
//     server measures the bytes the client sent (kubectl sends compact JSON).
//   * An empty list and an absent list are the same in most of DRAForge's types (but for the few
//     fields without omitempty, see api/empty_spelling.h); the API server tells `devices: []` from
//     no devices in "only one of sharedCounters or devices", which therefore never fires for an
//     empty list here, and prints an explicitly empty list as [] where DRAForge prints null.
//     DeviceAttribute's list fields are the exception: DRAForge keeps `ints: []` as present, and
//     validates it as the API server does (a union member, "must not be empty if specified", and a
//     list attribute for the 64-device limit), while declarative validation counts only non-empty
//     lists as set.
//   * derivedAttributes expressions are checked for length and blankness like selectors; their
//     compilation and cost (per expression and the claim's total) are lib/cel's.
//   * When only generateName is set, the API server validates the generated name too (and names
//     the object by it); DRAForge validates the prefix only.
#include "api/validation.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/json_parse.h"
#include "api/qualified_name.h"
#include "api/quantity.h"
#include "common/status.h"
#include "rapidjson/document.h"

namespace draforge::api {

// ---- FieldError ------------------------------------------------------------------------------------

std::string_view FieldErrorTypeName(FieldError::Type type) {
  switch (type) {
    case FieldError::Type::kRequired:
      return "Required value";
    case FieldError::Type::kInvalid:
      return "Invalid value";
    case FieldError::Type::kDuplicate:
      return "Duplicate value";
    case FieldError::Type::kTooMany:
      return "Too many";
    case FieldError::Type::kTooLong:
      return "Too long";
    case FieldError::Type::kNotSupported:
      return "Unsupported value";
    case FieldError::Type::kForbidden:
      return "Forbidden";
    case FieldError::Type::kNotFound:
      return "Not found";
  }
  return "Invalid value";
}

std::string FieldError::Body() const {
  std::string s(FieldErrorTypeName(type));
  switch (type) {
    case Type::kRequired:
    case Type::kForbidden:
    case Type::kTooLong:
      break;
    default:
      if (!value.empty()) absl::StrAppend(&s, ": ", value);
  }
  if (!detail.empty()) absl::StrAppend(&s, ": ", detail);
  return s;
}

std::string FieldError::ToString() const { return absl::StrCat(field, ": ", Body()); }

namespace {

// Splits on every `sep` like Go's strings.Split (empty parts kept).
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}


// Decodes one UTF-8 sequence at s[i]; returns the code point and its length, or -1 for a bad byte.
std::pair<int32_t, size_t> DecodeUtf8(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {c, 1};
  size_t n = 0;
  int32_t cp = 0;
  int32_t min = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return {-1, 1};
  }
  if (i + n > s.size()) return {-1, 1};
  for (size_t k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return {-1, 1};
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {-1, 1};
  return {cp, n};
}

}  // namespace

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    auto [cp, n] = DecodeUtf8(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    if (cp < 0) {
      absl::StrAppend(&out, "\\x", absl::Hex(c, absl::kZeroPad2));
    } else if (cp == '"' || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\a') {
      out += "\\a";
    } else if (cp == '\b') {
      out += "\\b";
    } else if (cp == '\f') {
      out += "\\f";
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\v') {
      out += "\\v";
    } else if (cp < 0x20 || cp == 0x7F) {
      absl::StrAppend(&out, "\\x", absl::Hex(cp, absl::kZeroPad2));
    } else if (cp >= 0x80 && cp < 0xA0) {
      // C1 controls are not printable for Go's strconv.Quote.
      absl::StrAppend(&out, "\\u", absl::Hex(cp, absl::kZeroPad4));
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  out += '"';
  return out;
}

std::string GoJsonQuote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    auto [cp, n] = DecodeUtf8(s, i);
    if (cp < 0) {
      out += "\\ufffd";
    } else if (cp == '"' || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029) {
      absl::StrAppend(&out, "\\u", absl::Hex(cp, absl::kZeroPad4));
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  out += '"';
  return out;
}

namespace {

using Type = FieldError::Type;

// ---- Paths (field.Path.String()) -------------------------------------------------------------------

std::string Child(std::string_view path, std::string_view name) {
  if (path.empty()) return std::string(name);
  return absl::StrCat(AV(path), ".", AV(name));
}
std::string Index(std::string_view path, size_t i) { return absl::StrCat(AV(path), "[", i, "]"); }
std::string Key(std::string_view path, std::string_view key) { return absl::StrCat(AV(path), "[", AV(key), "]"); }

// ---- Rendering of bad values ----------------------------------------------------------------------

std::string Q(std::string_view s) { return GoQuote(s); }
std::string Num(int64_t v) { return absl::StrCat(v); }
std::string Bool(bool b) { return b ? "true" : "false"; }
constexpr char kNull[] = "null";
constexpr char kOmitted[] = "\"<value omitted>\"";

// A JSON array of strings as Go's json.Marshal writes a []string ("null" for an empty/nil slice).
std::string JsonStrings(const std::vector<std::string>& v) {
  if (v.empty()) return kNull;
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    out += GoJsonQuote(v[i]);
  }
  return out + "]";
}

// A small writer for Go's encoding/json output of the v1 types that appear as bad values.
class JsonObject {
 public:
  JsonObject& Raw(std::string_view key, std::string_view json) {
    out_ += first_ ? "{" : ",";
    first_ = false;
    absl::StrAppend(&out_, GoJsonQuote(key), ":", AV(json));
    return *this;
  }
  JsonObject& Str(std::string_view key, std::string_view value) { return Raw(key, GoJsonQuote(value)); }
  JsonObject& StrOmitEmpty(std::string_view key, std::string_view value) {
    return value.empty() ? *this : Str(key, value);
  }
  JsonObject& Int(std::string_view key, int64_t v) { return Raw(key, absl::StrCat(v)); }
  std::string Done() { return first_ ? "{}" : out_ + "}"; }

 private:
  std::string out_;
  bool first_ = true;
};

std::string JsonQuantity(const Quantity& q) { return GoJsonQuote(q.Canonical()); }

// The JSON of a RawJson as Go writes it: compact, keys as given (json.RawMessage).
std::string JsonRaw(const RawJson& raw) { return raw.json.empty() ? kNull : raw.json; }

// ---- Errors with the metadata the merge needs -----------------------------------------------------

struct Err {
  FieldError e;
  std::string origin;
  bool covered = false;  // hand-written error covered by declarative validation
  bool beta = false;     // declarative error at beta level

  Err&& Origin(std::string_view o) && {
    origin = std::string(o);
    return std::move(*this);
  }
  Err&& Covered() && {
    covered = true;
    return std::move(*this);
  }
  Err&& Beta() && {
    beta = true;
    return std::move(*this);
  }
};

Err MakeErr(std::string field, Type type, std::string value, std::string detail) {
  Err err;
  err.e.field = std::move(field);
  err.e.type = type;
  err.e.value = std::move(value);
  err.e.detail = std::move(detail);
  return err;
}

Err Required(std::string field, std::string detail = {}) {
  return MakeErr(std::move(field), Type::kRequired, {}, std::move(detail));
}
Err Invalid(std::string field, std::string value, std::string detail) {
  return MakeErr(std::move(field), Type::kInvalid, std::move(value), std::move(detail));
}
Err Duplicate(std::string field, std::string value) {
  return MakeErr(std::move(field), Type::kDuplicate, std::move(value), {});
}
Err Forbidden(std::string field, std::string detail) {
  return MakeErr(std::move(field), Type::kForbidden, {}, std::move(detail));
}
Err NotFound(std::string field, std::string value) {
  return MakeErr(std::move(field), Type::kNotFound, std::move(value), {});
}
// field.TooMany.
Err TooMany(std::string field, size_t actual, size_t max) {
  return MakeErr(std::move(field), Type::kTooMany, absl::StrCat(actual),
                 absl::StrCat("must have at most ", max, max == 1 ? " item" : " items"));
}
// field.TooLong (bytes).
Err TooLong(std::string field, size_t max) {
  return MakeErr(std::move(field), Type::kTooLong, {},
                 absl::StrCat("may not be more than ", max, max == 1 ? " byte" : " bytes"));
}
// field.TooLongCharacters.
Err TooLongCharacters(std::string field, size_t max) {
  return MakeErr(std::move(field), Type::kTooLong, {},
                 absl::StrCat("may not be more than ", max, max == 1 ? " character" : " characters"));
}
// field.NotSupported: `supported` in the order given.
Err NotSupported(std::string field, std::string value, const std::vector<std::string_view>& supported) {
  std::vector<std::string> quoted;
  for (auto s : supported) quoted.push_back(absl::StrCat("\"", AV(s), "\""));
  return MakeErr(std::move(field), Type::kNotSupported, std::move(value),
                 quoted.empty() ? std::string() : absl::StrCat("supported values: ", absl::StrJoin(quoted, ", ")));
}

using Errs = std::vector<Err>;

void Add(Errs& to, Err e) { to.push_back(std::move(e)); }
void Add(Errs& to, Errs from) {
  for (auto& e : from) to.push_back(std::move(e));
}
Errs& WithOrigin(Errs& errs, std::string_view origin) {
  for (auto& e : errs) e.origin = std::string(origin);
  return errs;
}
Errs& MarkCovered(Errs& errs) {
  for (auto& e : errs) e.covered = true;
  return errs;
}
Errs& MarkBeta(Errs& errs) {
  for (auto& e : errs) e.beta = true;
  return errs;
}
Errs& PrefixDetail(Errs& errs, std::string_view prefix) {
  for (auto& e : errs) e.e.detail = absl::StrCat(AV(prefix), e.e.detail);
  return errs;
}

// field.ErrorMatcher{}.ByType().ByOrigin().RequireOriginWhenInvalid().ByField().
bool Matches(const Err& handwritten, const Err& declarative) {
  if (handwritten.e.type != declarative.e.type) return false;
  if (handwritten.e.field != declarative.e.field) return false;
  if (handwritten.origin != declarative.origin) return false;
  if (handwritten.e.type == Type::kInvalid && handwritten.origin.empty()) return false;
  return true;
}

// rest.ValidateDeclarativelyWithMigrationChecks with DeclarativeValidationBeta on.
std::vector<FieldError> Merge(Errs handwritten, Errs declarative) {
  std::vector<FieldError> out;
  for (auto& h : handwritten) {
    bool replaced = false;
    if (h.covered) {
      for (const auto& d : declarative) {
        if (d.beta && Matches(h, d)) {
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out.push_back(std::move(h.e));
  }
  for (auto& d : declarative) out.push_back(std::move(d.e));
  return out;
}

// ---- Reading fields with the API server's defaults ------------------------------------------------

// O: std::optional<std::string> or BoxedOptional<std::string>.
template <typename O>
const std::string& Str(const O& s) {
  static const std::string kEmpty;
  return s ? *s : kEmpty;
}

std::string_view AllocationMode(const std::optional<std::string>& mode) {
  return mode && !mode->empty() ? std::string_view(*mode) : std::string_view(kAllocationModeExactCount);
}

// SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest: count 1 for ExactCount when unset
// (or 0: Go cannot tell them apart).
int64_t Count(const std::optional<std::string>& mode, const std::optional<int64_t>& count) {
  const int64_t c = count.value_or(0);
  if (AllocationMode(mode) == kAllocationModeExactCount && c == 0) return 1;
  return c;
}

std::string_view TolerationOperator(const DeviceToleration& t) {
  return t.operator_ && !t.operator_->empty() ? std::string_view(*t.operator_) : std::string_view("Equal");
}

// ---- Go JSON of v1 values (after defaulting) that declarative validation prints -------------------

std::string JsonToleration(const DeviceToleration& t) {
  JsonObject o;
  o.StrOmitEmpty("key", Str(t.key)).Str("operator", TolerationOperator(t)).StrOmitEmpty("value", Str(t.value));
  o.StrOmitEmpty("effect", Str(t.effect));
  if (t.toleration_seconds) o.Int("tolerationSeconds", *t.toleration_seconds);
  return o.Done();
}

std::string JsonList(size_t n, const std::function<std::string(size_t)>& item) {
  std::string out = "[";
  for (size_t i = 0; i < n; ++i) {
    if (i) out += ',';
    out += item(i);
  }
  return out + "]";
}

void JsonRequestBody(JsonObject& o, const std::optional<std::string>& class_name,
                     const std::vector<DeviceSelector>& selectors, const std::optional<std::string>& mode,
                     const std::optional<int64_t>& count, const std::optional<bool>& admin_access,
                     const std::vector<DeviceToleration>& tolerations,
                     const std::optional<CapacityRequirements>& capacity,
                     const std::vector<DeviceDerivedAttribute>& derived_attributes) {
  o.Str("deviceClassName", Str(class_name));
  if (!selectors.empty()) {
    o.Raw("selectors", JsonList(selectors.size(), [&](size_t i) {
            JsonObject s;
            if (selectors[i].cel) s.Raw("cel", JsonObject().Str("expression", Str(selectors[i].cel->expression)).Done());
            return s.Done();
          }));
  }
  o.Str("allocationMode", AllocationMode(mode));
  if (const int64_t c = Count(mode, count); c != 0) o.Int("count", c);
  if (admin_access) o.Raw("adminAccess", Bool(*admin_access));
  if (!tolerations.empty()) {
    o.Raw("tolerations", JsonList(tolerations.size(), [&](size_t i) { return JsonToleration(tolerations[i]); }));
  }
  if (capacity) {
    JsonObject c;
    if (!capacity->requests.empty()) {
      JsonObject r;
      for (const auto& [k, q] : capacity->requests) r.Raw(k, JsonQuantity(q));
      c.Raw("requests", r.Done());
    }
    o.Raw("capacity", c.Done());
  }
  if (!derived_attributes.empty()) {
    o.Raw("derivedAttributes", JsonList(derived_attributes.size(), [&](size_t i) {
            return JsonObject()
                .Str("name", Str(derived_attributes[i].name))
                .Str("expression", Str(derived_attributes[i].expression))
                .Done();
          }));
  }
}

std::string JsonSubRequest(const DeviceSubRequest& r) {
  JsonObject o;
  o.Str("name", Str(r.name));
  JsonRequestBody(o, r.device_class_name, r.selectors, r.allocation_mode, r.count, std::nullopt, r.tolerations,
                  r.capacity, r.derived_attributes);
  return o.Done();
}

std::string JsonRequest(const DeviceRequest& r) {
  JsonObject o;
  o.Str("name", Str(r.name));
  if (r.exactly) {
    JsonObject e;
    const auto& x = *r.exactly;
    JsonRequestBody(e, x.device_class_name, x.selectors, x.allocation_mode, x.count, x.admin_access, x.tolerations,
                    x.capacity, x.derived_attributes);
    o.Raw("exactly", e.Done());
  }
  if (!r.first_available.empty()) {
    o.Raw("firstAvailable", JsonList(r.first_available.size(),
                                     [&](size_t i) { return JsonSubRequest(r.first_available[i]); }));
  }
  return o.Done();
}

std::string JsonCounters(const Map<Counter>& counters) {
  JsonObject o;
  for (const auto& [k, c] : counters) {
    o.Raw(k, JsonObject().Raw("value", c.value ? JsonQuantity(*c.value) : GoJsonQuote("0")).Done());
  }
  return o.Done();
}

std::string JsonCounterSet(const CounterSet& s) {
  JsonObject o;
  o.Str("name", Str(s.name));
  if (!s.counters.empty()) o.Raw("counters", JsonCounters(s.counters));
  return o.Done();
}

std::string JsonCounterConsumption(const DeviceCounterConsumption& c) {
  JsonObject o;
  o.Str("counterSet", Str(c.counter_set));
  if (!c.counters.empty()) o.Raw("counters", JsonCounters(c.counters));
  if (!c.compatibility_groups.empty()) o.Raw("compatibilityGroups", JsonStrings(c.compatibility_groups));
  return o.Done();
}

std::string JsonConsumerReference(const ResourceClaimConsumerReference& r) {
  JsonObject o;
  o.StrOmitEmpty("apiGroup", Str(r.api_group)).Str("resource", Str(r.resource)).Str("name", Str(r.name));
  o.Str("uid", Str(r.uid));
  return o.Done();
}

std::string JsonCondition(const Condition& c) {
  JsonObject o;
  o.Str("type", Str(c.type)).Str("status", Str(c.status));
  if (c.observed_generation && *c.observed_generation != 0) o.Int("observedGeneration", *c.observed_generation);
  o.Raw("lastTransitionTime", c.last_transition_time ? GoJsonQuote(*c.last_transition_time) : kNull);
  o.Str("reason", Str(c.reason)).Str("message", Str(c.message));
  return o.Done();
}

std::string JsonDeviceStatus(const AllocatedDeviceStatus& d) {
  JsonObject o;
  o.Str("driver", Str(d.driver)).Str("pool", Str(d.pool)).Str("device", Str(d.device));
  if (d.share_id) o.Str("shareID", *d.share_id);
  // Go writes a nil slice as null and an empty one as [] (the field has no omitempty).
  const bool empty_list = d.conditions_spelling == EmptySpelling::kEmpty;
  o.Raw("conditions", d.conditions.empty() ? std::string(empty_list ? "[]" : kNull)
                                           : JsonList(d.conditions.size(),
                                                      [&](size_t i) { return JsonCondition(d.conditions[i]); }));
  if (d.data) o.Raw("data", JsonRaw(*d.data));
  if (d.network_data) {
    JsonObject n;
    n.StrOmitEmpty("interfaceName", Str(d.network_data->interface_name));
    if (!d.network_data->ips.empty()) n.Raw("ips", JsonStrings(d.network_data->ips));
    n.StrOmitEmpty("hardwareAddress", Str(d.network_data->hardware_address));
    o.Raw("networkData", n.Done());
  }
  return o.Done();
}

// Go's json of internal (untagged) types: field names as declared in Go.
std::string JsonInternalAttribute(const DeviceAttribute& a) {
  // Go prints a nil slice as null and an empty one as [].
  auto list = [](bool present, const auto& v, auto f) -> std::string {
    if (!present) return kNull;
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      out += f(v[i]);
    }
    return out + "]";
  };
  JsonObject o;
  o.Raw("IntValue", a.int_value() ? absl::StrCat(*a.int_value()) : kNull);
  o.Raw("BoolValue", a.bool_value() ? Bool(*a.bool_value()) : kNull);
  o.Raw("StringValue", a.string_value() ? GoJsonQuote(*a.string_value()) : kNull);
  o.Raw("VersionValue", a.version_value() ? GoJsonQuote(*a.version_value()) : kNull);
  o.Raw("IntValues", list(a.has_ints(), a.ints(), [](int64_t v) { return absl::StrCat(v); }));
  o.Raw("BoolValues", list(a.has_bools(), a.bools(), [](bool v) { return Bool(v); }));
  o.Raw("StringValues", list(a.has_strings(), a.strings(), [](const std::string& v) { return GoJsonQuote(v); }));
  o.Raw("VersionValues", list(a.has_versions(), a.versions(), [](const std::string& v) { return GoJsonQuote(v); }));
  return o.Done();
}

std::string JsonInternalRequirements(const std::vector<NodeSelectorRequirement>& reqs) {
  if (reqs.empty()) return kNull;
  return JsonList(reqs.size(), [&](size_t i) {
    JsonObject o;
    o.Str("Key", Str(reqs[i].key)).Str("Operator", Str(reqs[i].operator_)).Raw("Values", JsonStrings(reqs[i].values));
    return o.Done();
  });
}

std::string JsonInternalTerms(const std::vector<NodeSelectorTerm>& terms) {
  if (terms.empty()) return kNull;
  return JsonList(terms.size(), [&](size_t i) {
    JsonObject o;
    o.Raw("MatchExpressions", JsonInternalRequirements(terms[i].match_expressions));
    o.Raw("MatchFields", JsonInternalRequirements(terms[i].match_fields));
    return o.Done();
  });
}

// ---- Name checks as typed errors ------------------------------------------------------------------

constexpr std::string_view kOriginShortName = "format=k8s-short-name";
constexpr std::string_view kOriginLongName = "format=k8s-long-name";
constexpr std::string_view kOriginLongNameCaseless = "format=k8s-long-name-caseless";
constexpr std::string_view kOriginLabelKey = "format=k8s-label-key";
constexpr std::string_view kOriginLabelValue = "format=k8s-label-value";
constexpr std::string_view kOriginPoolName = "format=k8s-resource-pool-name";
constexpr std::string_view kOriginFQN = "format=k8s-resource-fully-qualified-name";
constexpr std::string_view kOriginUUID = "format=k8s-uuid";
constexpr std::string_view kOriginExtendedResourceName = "format=k8s-extended-resource-name";

Errs InvalidEach(const std::string& path, std::string_view value, const std::vector<std::string>& msgs,
                 std::string_view origin = {}) {
  Errs errs;
  for (const auto& m : msgs) Add(errs, Invalid(path, Q(value), m).Origin(origin));
  return errs;
}

// corevalidation.ValidateDNS1123Label / ValidateDNS1123Subdomain.
Errs ValidateDNS1123Label(std::string_view value, const std::string& path) {
  return InvalidEach(path, value, IsDNS1123Label(value), kOriginShortName);
}
Errs ValidateDNS1123Subdomain(std::string_view value, const std::string& path) {
  return InvalidEach(path, value, IsDNS1123Subdomain(value), kOriginLongName);
}

// metav1validation.ValidateLabelName.
Errs ValidateLabelName(std::string_view name, const std::string& path) {
  return InvalidEach(path, name, IsQualifiedName(name), kOriginLabelKey);
}

// resource validation's validateLabelValue (no origin).
Errs ValidateLabelValue(std::string_view value, const std::string& path) {
  return InvalidEach(path, value, IsValidLabelValue(value));
}

// corevalidation.ValidateCSIDriverName with its "covered" options.
struct DriverCovered {
  bool required = false, size = false, format = false;
};
Errs ValidateDriverName(std::string_view name, const std::string& path, DriverCovered cov = {}) {
  Errs errs;
  if (name.empty()) {
    Err e = Required(path);
    if (cov.required) e.covered = true;
    Add(errs, std::move(e));
    return errs;
  }
  if (name.size() > kDriverNameMaxLength) {
    Err e = TooLong(path, kDriverNameMaxLength);
    if (cov.size) {
      e.origin = "maxLength";
      e.covered = true;
    }
    Add(errs, std::move(e));
  }
  for (const auto& msg : IsDNS1123Subdomain(absl::AsciiStrToLower(AV(name)))) {
    Err e = Invalid(path, Q(name), msg);
    if (cov.format) {
      e.origin = std::string(kOriginLongNameCaseless);
      e.covered = true;
    }
    Add(errs, std::move(e));
  }
  return errs;
}

// validatePoolName.
Errs ValidatePoolName(std::string_view name, const std::string& path) {
  Errs errs;
  if (name.empty()) {
    Add(errs, Required(path));
    return errs;
  }
  if (name.size() > kPoolNameMaxLength) Add(errs, TooLong(path, kPoolNameMaxLength).Origin(kOriginPoolName));
  for (std::string_view part : Split(name, '/')) {
    Errs part_errs = ValidateDNS1123Subdomain(part, path);
    Add(errs, std::move(WithOrigin(part_errs, kOriginPoolName)));
  }
  return errs;
}

// validateNodeName: NameIsDNSSubdomain, no origin.
Errs ValidateNodeNameField(std::string_view name, const std::string& path) {
  return InvalidEach(path, name, IsDNS1123Subdomain(name));
}

// validateCIdentifier (hand-written).
Errs ValidateCIdentifier(std::string_view id, const std::string& path) {
  Errs errs;
  if (id.size() > kDeviceMaxIDLength) Add(errs, TooLong(path, kDeviceMaxIDLength));
  Add(errs, InvalidEach(path, id, IsCIdentifier(id)));
  return errs;
}

// validateQualifiedName (1.37: names with more than one '/' are not checked).
Errs ValidateQualifiedName(std::string_view name, const std::string& path) {
  Errs errs;
  std::vector<std::string_view> parts = Split(name, '/');
  if (parts.size() == 1) {
    Add(errs, ValidateCIdentifier(parts[0], path));
  } else if (parts.size() == 2) {
    if (parts[0].empty()) {
      Add(errs, Invalid(path, Q(""), "the domain must not be empty"));
    } else {
      Add(errs, ValidateDriverName(parts[0], path));
    }
    if (parts[1].empty()) {
      Add(errs, Invalid(path, Q(""), "the name must not be empty"));
    } else {
      Add(errs, ValidateCIdentifier(parts[1], path));
    }
  }
  return errs;
}

// validateFullyQualifiedName (all errors covered by declarative validation).
Errs ValidateFullyQualifiedName(std::string_view name, const std::string& path) {
  Errs errs = ValidateQualifiedName(name, path);
  if (name.find('/') == std::string_view::npos) {
    Add(errs, Invalid(path, Q(name), "a fully qualified name must be a domain and a name separated by a slash"));
  }
  WithOrigin(errs, kOriginFQN);
  return errs;
}

// ---- Declarative format checks (k8s.io/apimachinery/pkg/api/validate) -------------------------------

Errs DvShortName(std::string_view v, const std::string& path) {
  return InvalidEach(path, v, IsDNS1123Label(v, LengthUnit::kBytes), kOriginShortName);
}
Errs DvLongName(std::string_view v, const std::string& path) {
  return InvalidEach(path, v, IsDNS1123Subdomain(v, LengthUnit::kBytes), kOriginLongName);
}
Errs DvLongNameCaseless(std::string_view v, const std::string& path) {
  return InvalidEach(path, v, IsDNS1123SubdomainCaseless(v), kOriginLongNameCaseless);
}
Errs DvLabelKey(std::string_view v, const std::string& path) {
  return InvalidEach(path, v, IsQualifiedName(v), kOriginLabelKey);
}

size_t RuneCount(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size();) {
    i += DecodeUtf8(s, i).second;
    ++n;
  }
  return n;
}

// validate.MaxLength (characters).
Errs DvMaxLength(std::string_view v, size_t max, const std::string& path) {
  if (v.size() <= max) return {};
  const size_t minimum = (v.size() + 3) / 4;
  if (minimum > max || RuneCount(v) > max) {
    Errs errs;
    Add(errs, TooLongCharacters(path, max).Origin("maxLength"));
    return errs;
  }
  return {};
}

Errs DvMaxBytes(std::string_view v, size_t max, const std::string& path) {
  Errs errs;
  if (v.size() > max) Add(errs, TooLong(path, max).Origin("maxBytes"));
  return errs;
}

// validate.UUID.
Errs DvUUID(std::string_view v, const std::string& path) {
  bool ok = v.size() == 36;
  for (size_t i = 0; ok && i < v.size(); ++i) {
    const char c = v[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      ok = c == '-';
    } else {
      ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }
  }
  Errs errs;
  if (!ok) Add(errs, Invalid(path, Q(v), "must be a lowercase UUID in 8-4-4-4-12 format").Origin(kOriginUUID));
  return errs;
}

// validate.ResourcePoolName.
Errs DvResourcePoolName(std::string_view v, const std::string& path) {
  Errs errs;
  if (v.size() > kPoolNameMaxLength) Add(errs, TooLong(path, kPoolNameMaxLength));
  size_t i = 0;
  for (std::string_view part : Split(v, '/')) {
    if (part.empty()) {
      Add(errs, Invalid(path, Q(v), absl::StrCat("segment ", i, ": must not be empty")));
    } else {
      Errs part_errs = DvLongName(part, path);
      Add(errs, std::move(PrefixDetail(part_errs, absl::StrCat("segment ", i, ": "))));
    }
    ++i;
  }
  WithOrigin(errs, kOriginPoolName);
  return errs;
}

Errs DvCIdentifier(std::string_view id, const std::string& path) {
  Errs errs;
  if (id.size() > kDeviceMaxIDLength) Add(errs, TooLong(path, kDeviceMaxIDLength));
  Add(errs, InvalidEach(path, id, IsCIdentifier(id)));
  return errs;
}

// validate.ResourceFullyQualifiedName.
Errs DvResourceFullyQualifiedName(std::string_view s, const std::string& path) {
  Errs errs;
  std::vector<std::string_view> parts = Split(s, '/');
  if (parts.size() == 1) {
    Add(errs, DvCIdentifier(parts[0], path));
  } else if (parts.size() == 2) {
    if (parts[0].empty()) {
      Add(errs, Invalid(path, Q(""), "prefix must not be empty"));
    } else {
      if (parts[0].size() > kDeviceMaxDomainLength) Add(errs, TooLong(path, kDeviceMaxDomainLength));
      Errs prefix_errs = DvLongName(parts[0], path);
      Add(errs, std::move(PrefixDetail(prefix_errs, "prefix: ")));
    }
    if (parts[1].empty()) {
      Add(errs, Invalid(path, Q(""), "name must not be empty"));
    } else {
      Add(errs, DvCIdentifier(parts[1], path));
    }
  }
  if (s.find('/') == std::string_view::npos) {
    Add(errs, Invalid(path, Q(s), "a fully qualified name must be a domain and a name separated by a slash"));
  }
  WithOrigin(errs, kOriginFQN);
  return errs;
}

Errs DvEnum(std::string_view v, const std::vector<std::string_view>& sorted_values, const std::string& path) {
  Errs errs;
  if (std::find(sorted_values.begin(), sorted_values.end(), v) == sorted_values.end()) {
    Add(errs, NotSupported(path, Q(v), sorted_values));
  }
  return errs;
}

// validate.ValSliceUnique: every item equal to an earlier one, reported with `render(item)`.
template <typename T, typename Eq, typename Render>
Errs DvUnique(const std::vector<T>& items, const std::string& path, Eq eq, Render render) {
  Errs errs;
  for (size_t j = 1; j < items.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      if (eq(items[i], items[j])) {
        Add(errs, Duplicate(Index(path, j), render(items[j])));
        break;
      }
    }
  }
  return errs;
}

Errs StringsUnique(const std::vector<std::string>& items, const std::string& path) {
  return DvUnique(
      items, path, [](const std::string& a, const std::string& b) { return a == b; },
      [](const std::string& s) { return Q(s); });
}

// ---- Hand-written list helpers (validateSlice / validateSet) --------------------------------------

struct ListOpts {
  bool size_covered = false;
  bool uniqueness_covered = false;
};

// validateSlice: the size check short-circuits.
template <typename T, typename F>
Errs ValidateSlice(const std::vector<T>& items, int max, const std::string& path, F validate_item, ListOpts opts = {}) {
  Errs errs;
  if (max >= 0 && items.size() > static_cast<size_t>(max)) {
    Err e = TooMany(path, items.size(), max).Origin("maxItems");
    if (opts.size_covered) e.covered = true;
    Add(errs, std::move(e));
    return errs;
  }
  for (size_t i = 0; i < items.size(); ++i) Add(errs, validate_item(items[i], Index(path, i)));
  return errs;
}

// validateSet: items first, then duplicates of `key(item)`, reported with `render(key)`.
template <typename T, typename F, typename K, typename R>
Errs ValidateSet(const std::vector<T>& items, int max, const std::string& path, F validate_item, K key, R render,
                 ListOpts opts = {}) {
  Errs errs = ValidateSlice(items, max, path, validate_item, opts);
  if (max >= 0 && items.size() > static_cast<size_t>(max)) return errs;
  std::vector<decltype(key(items[0]))> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    auto k = key(items[i]);
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) {
      Err e = Duplicate(Index(path, i), render(k));
      if (opts.uniqueness_covered) e.covered = true;
      Add(errs, std::move(e));
    } else {
      seen.push_back(std::move(k));
    }
  }
  return errs;
}

Errs MaxItems(size_t n, size_t max, const std::string& path) {
  Errs errs;
  if (n > max) Add(errs, TooMany(path, n, max).Origin("maxItems").Beta());
  return errs;
}

// truncateIfTooLong for map keys in paths.
std::string TruncateKey(std::string_view key, size_t max) {
  if (max < 16) max = 16;
  if (key.size() <= max) return std::string(key);
  const size_t remaining = max - 3;
  return absl::StrCat(AV(key.substr(0, (remaining + 1) / 2)), "...", AV(key.substr(key.size() - remaining / 2)));
}

// ---- Object metadata ------------------------------------------------------------------------------

// NameIsDNSSubdomain with prefix=true masks a trailing dash.
std::string MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') return absl::StrCat(AV(name.substr(0, name.size() - 2)), "a");
  return std::string(name);
}

bool IsStandardFinalizer(std::string_view f) {
  return f == "kubernetes" || f == "orphan" || f == "foregroundDeletion";
}

struct MetaOptions {
  bool namespaced = false;
  // DeviceClass validates its name with validate.LongName (covered by declarative validation) and
  // ignores generateName (ValidateObjectMetaWithOpts).
  bool device_class = false;
  // Kinds whose generation the API server resets on create (all but claims and templates).
  bool generation_reset = true;
};

// Kubernetes resets or fills these on create, so they are not checked: managedFields (replaced by
// the field manager), uid/creationTimestamp/resourceVersion (set by the server), metadata.namespace
// of cluster-scoped kinds (cleared) and of namespaced kinds when unset (taken from the request).
Errs ValidateObjectMeta(const ObjectMeta& meta, MetaOptions opts) {
  Errs errs;
  const std::string name = Str(meta.name);
  const std::string generate_name = Str(meta.generate_name);
  if (!generate_name.empty() && (!opts.device_class || name.empty())) {
    // The API server generates the name from generateName before validating it; DeviceClass only
    // validates the result, which fails exactly when the prefix does.
    Add(errs, InvalidEach("metadata.generateName", generate_name, IsDNS1123Subdomain(MaskTrailingDash(generate_name))));
  }
  if (name.empty()) {
    if (generate_name.empty()) Add(errs, Required("metadata.name", "name or generateName is required"));
  } else if (opts.device_class) {
    Errs name_errs = DvLongName(name, "metadata.name");
    Add(errs, std::move(MarkCovered(name_errs)));
  } else {
    Add(errs, InvalidEach("metadata.name", name, IsDNS1123Subdomain(name)));
  }
  if (opts.namespaced && meta.namespace_ && !meta.namespace_->empty()) {
    Add(errs, InvalidEach("metadata.namespace", *meta.namespace_, IsDNS1123Label(*meta.namespace_)));
  }
  if (!opts.generation_reset && meta.generation && *meta.generation < 0) {
    Add(errs, Invalid("metadata.generation", Num(*meta.generation), "must be greater than or equal to 0")
                  .Origin("minimum")
                  .Covered());
  }
  for (const auto& [k, v] : meta.labels) {
    Add(errs, ValidateLabelName(k, "metadata.labels"));
    Add(errs, InvalidEach("metadata.labels", v, IsValidLabelValue(v), kOriginLabelValue));
  }
  size_t annotation_bytes = 0;
  for (const auto& [k, v] : meta.annotations) {
    Add(errs, InvalidEach("metadata.annotations", k, IsQualifiedName(absl::AsciiStrToLower(AV(k))), kOriginLabelKey));
    annotation_bytes += k.size() + v.size();
  }
  if (annotation_bytes > 256 * 1024) Add(errs, TooLong("metadata.annotations", 256 * 1024));
  std::string first_controller;
  for (size_t i = 0; i < meta.owner_references.size(); ++i) {
    const OwnerReference& ref = meta.owner_references[i];
    const std::string path = Index("metadata.ownerReferences", i);
    const std::string api_version = Str(ref.api_version);
    std::string group, version;
    bool gv_error = false;
    if (!api_version.empty() && api_version != "/") {
      std::vector<std::string_view> gv = Split(api_version, '/');
      if (gv.size() == 1) {
        version = std::string(gv[0]);
      } else if (gv.size() == 2) {
        group = std::string(gv[0]), version = std::string(gv[1]);
      } else {
        gv_error = true;
      }
    }
    if (api_version.empty()) {
      Add(errs, Required(Child(path, "apiVersion"), "must not be empty").Covered());
    } else if (gv_error || version.empty()) {
      Add(errs, Invalid(Child(path, "apiVersion"), Q(api_version), "must be <group>/<version> or <version>"));
    }
    if (Str(ref.kind).empty()) Add(errs, Required(Child(path, "kind"), "must not be empty").Covered());
    if (Str(ref.name).empty()) Add(errs, Required(Child(path, "name"), "must not be empty").Covered());
    if (Str(ref.uid).empty()) Add(errs, Required(Child(path, "uid"), "must not be empty").Covered());
    if (ref.controller.value_or(false)) {
      const std::string current = absl::StrCat(Str(ref.kind), "/", Str(ref.name));
      if (!first_controller.empty()) {
        std::string refs = JsonList(meta.owner_references.size(), [&](size_t k) {
          const OwnerReference& r = meta.owner_references[k];
          JsonObject o;
          o.Str("apiVersion", Str(r.api_version)).Str("kind", Str(r.kind)).Str("name", Str(r.name));
          o.Str("uid", Str(r.uid));
          if (r.controller) o.Raw("controller", Bool(*r.controller));
          if (r.block_owner_deletion) o.Raw("blockOwnerDeletion", Bool(*r.block_owner_deletion));
          return o.Done();
        });
        Add(errs, Invalid("metadata.ownerReferences", refs,
                          absl::StrCat("Only one reference can have Controller set to true. Found \"true\" in "
                                       "references for ",
                                       first_controller, " and ", current)));
      } else {
        first_controller = current;
      }
    }
  }
  bool orphan = false, foreground = false;
  for (const auto& f : meta.finalizers) {
    Add(errs, InvalidEach("metadata.finalizers", f, IsQualifiedName(f)));
    orphan |= f == "orphan";
    foreground |= f == "foregroundDeletion";
  }
  if (orphan && foreground) {
    Add(errs, Invalid("metadata.finalizers", JsonStrings(meta.finalizers),
                      "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  for (size_t i = 0; i < meta.finalizers.size(); ++i) {
    const std::string& f = meta.finalizers[i];
    if (f.find('/') == std::string::npos && !IsStandardFinalizer(f)) {
      Add(errs, Invalid(Index("metadata.finalizers", i), Q(f), "name is neither a standard finalizer name nor is it "
                                                               "fully qualified"));
    }
  }
  return errs;
}

// ---- Node selectors -------------------------------------------------------------------------------

Errs ValidateNodeSelectorRequirement(const NodeSelectorRequirement& rq, const std::string& path) {
  Errs errs;
  const std::string op = Str(rq.operator_);
  if (op == "In" || op == "NotIn") {
    if (rq.values.empty()) {
      Add(errs, Required(Child(path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!rq.values.empty()) {
      Add(errs, Forbidden(Child(path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    }
  } else if (op == "Gt" || op == "Lt") {
    if (rq.values.size() != 1) {
      Add(errs, Required(Child(path, "values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
    }
  } else {
    Add(errs, Invalid(Child(path, "operator"), Q(op), "not a valid selector operator"));
  }
  Add(errs, ValidateLabelName(Str(rq.key), Child(path, "key")));
  for (size_t i = 0; i < rq.values.size(); ++i) {
    Add(errs, InvalidEach(Index(Child(path, "values"), i), rq.values[i], IsValidLabelValue(rq.values[i]),
                          kOriginLabelValue));
  }
  return errs;
}

Errs ValidateNodeFieldSelectorRequirement(const NodeSelectorRequirement& rq, const std::string& path) {
  Errs errs;
  const std::string op = Str(rq.operator_);
  if (op == "In" || op == "NotIn") {
    if (rq.values.size() != 1) {
      Add(errs, Required(Child(path, "values"),
                         "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else {
    Add(errs, Invalid(Child(path, "operator"), Q(op), "not a valid selector operator"));
  }
  if (Str(rq.key) != "metadata.name") {
    Add(errs, Invalid(Child(path, "key"), Q(Str(rq.key)), "not a valid field selector key"));
  } else {
    for (size_t i = 0; i < rq.values.size(); ++i) {
      Add(errs, InvalidEach(Index(Child(path, "values"), i), rq.values[i], IsDNS1123Subdomain(rq.values[i])));
    }
  }
  return errs;
}

Errs ValidateNodeSelectorErrs(const NodeSelector& selector, const std::string& path) {
  Errs errs;
  const std::string terms_path = Child(path, "nodeSelectorTerms");
  if (selector.node_selector_terms.empty()) {
    Add(errs, Required(terms_path, "must have at least one node selector term"));
    return errs;
  }
  for (size_t i = 0; i < selector.node_selector_terms.size(); ++i) {
    const NodeSelectorTerm& term = selector.node_selector_terms[i];
    const std::string term_path = Index(terms_path, i);
    for (size_t j = 0; j < term.match_expressions.size(); ++j) {
      Add(errs, ValidateNodeSelectorRequirement(term.match_expressions[j], Index(Child(term_path, "matchExpressions"), j)));
    }
    for (size_t j = 0; j < term.match_fields.size(); ++j) {
      Add(errs, ValidateNodeFieldSelectorRequirement(term.match_fields[j], Index(Child(term_path, "matchFields"), j)));
    }
  }
  return errs;
}

// ---- Shared DRA pieces (hand-written) ---------------------------------------------------------------

// The message of the CEL compiler for an expression that is only blanks (cel-go's parser error at
// the end of input). Other syntax errors need the CEL module.
std::optional<std::string> BlankExpressionError(std::string_view expr) {
  for (char c : expr) {
    if (c != ' ') return std::nullopt;
  }
  const size_t n = expr.size();
  std::string msg = absl::StrCat(
      "compilation failed: ERROR: <input>:1:", n == 0 ? 0 : n + 1,
      ": Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', "
      "NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}");
  // cel-go appends the source line and a caret under the error position.
  if (n > 0) absl::StrAppend(&msg, "\n | ", std::string(n, ' '), "\n | ", std::string(n, '.'), "^");
  return msg;
}

Errs ValidateCELExpression(std::string_view expr, const std::string& path) {
  Errs errs;
  if (expr.size() > static_cast<size_t>(kCELSelectorExpressionMaxLength)) {
    Add(errs, TooLong(path, kCELSelectorExpressionMaxLength));
    return errs;
  }
  if (auto msg = BlankExpressionError(expr)) Add(errs, Invalid(path, Q(expr), *msg));
  return errs;
}

Errs ValidateSelector(const DeviceSelector& selector, const std::string& path) {
  Errs errs;
  if (!selector.cel) {
    Add(errs, Required(Child(path, "cel")));
  } else {
    Add(errs, ValidateCELExpression(Str(selector.cel->expression), Child(Child(path, "cel"), "expression")));
  }
  return errs;
}

Errs ValidateSelectorSlice(const std::vector<DeviceSelector>& selectors, const std::string& path) {
  return ValidateSlice(selectors, kDeviceSelectorsMaxSize, path, ValidateSelector, {.size_covered = true});
}

// validateRawExtension with stored=false.
Errs ValidateRawExtension(const std::optional<RawJson>& raw, const std::string& path, size_t max) {
  Errs errs;
  if (!raw || raw->json.empty() || raw->json == "null") {
    Add(errs, Required(path));
    return errs;
  }
  if (raw->json.size() > max) {
    Add(errs, TooLong(path, max));
    return errs;
  }
  rapidjson::Document doc;
  if (JsonParseResult parsed = ParseJsonInto<rapidjson::kParseDefaultFlags>(doc, raw->json); !parsed.ok()) {
    Add(errs, Invalid(path, kOmitted, absl::StrCat("error parsing data as JSON: ", parsed.Message())));
  } else if (doc.IsNull()) {
    Add(errs, Required(path));
  } else if (!doc.IsObject()) {
    Add(errs, Invalid(path, kOmitted, "must be a valid JSON object"));
  }
  return errs;
}

Errs ValidateOpaqueConfiguration(const OpaqueDeviceConfiguration& config, const std::string& path) {
  Errs errs = ValidateDriverName(Str(config.driver), Child(path, "driver"), {true, true, true});
  Add(errs, ValidateRawExtension(config.parameters, Child(path, "parameters"), kOpaqueParametersMaxLength));
  return errs;
}

Errs ValidateDeviceConfiguration(const std::optional<OpaqueDeviceConfiguration>& opaque, const std::string& path) {
  Errs errs;
  if (!opaque) {
    Add(errs, Required(Child(path, "opaque")));
  } else {
    Add(errs, ValidateOpaqueConfiguration(*opaque, Child(path, "opaque")));
  }
  return errs;
}

const std::vector<std::string_view> kTaintEffects = {"NoExecute", "NoSchedule", "None"};
const std::vector<std::string_view> kTolerationOperators = {"Equal", "Exists"};

bool IsTaintEffect(std::string_view e) {
  return std::find(kTaintEffects.begin(), kTaintEffects.end(), e) != kTaintEffects.end();
}

Errs ValidateDeviceToleration(const DeviceToleration& t, const std::string& path) {
  Errs errs;
  const std::string key = Str(t.key);
  if (!key.empty()) {
    Errs key_errs = ValidateLabelName(key, Child(path, "key"));
    Add(errs, std::move(MarkCovered(key_errs)));
  }
  const std::string_view op = TolerationOperator(t);
  const std::string value = Str(t.value);
  if (op == "Exists") {
    if (!value.empty()) Add(errs, Invalid(Child(path, "value"), Q(value), "must be empty for operator `Exists`"));
  } else if (op == "Equal") {
    Add(errs, ValidateLabelValue(value, Child(path, "value")));
  } else {
    Add(errs, NotSupported(Child(path, "operator"), Q(op), kTolerationOperators).Covered());
  }
  const std::string effect = Str(t.effect);
  if (!effect.empty() && !IsTaintEffect(effect)) {
    Add(errs, NotSupported(Child(path, "effect"), Q(effect), kTaintEffects).Covered());
  }
  return errs;
}

Errs ValidateDeviceTaint(const DeviceTaint& taint, const std::string& path) {
  Errs errs = ValidateLabelName(Str(taint.key), Child(path, "key"));
  const std::string value = Str(taint.value);
  if (!value.empty()) Add(errs, ValidateLabelValue(value, Child(path, "value")));
  const std::string effect = Str(taint.effect);
  if (effect.empty()) {
    Add(errs, Required(Child(path, "effect")).Covered());
  } else if (!IsTaintEffect(effect)) {
    Add(errs, NotSupported(Child(path, "effect"), Q(effect), kTaintEffects).Covered());
  }
  return errs;
}

Errs ValidateDeviceBindingParameters(const std::vector<std::string>& conditions,
                                     const std::vector<std::string>& failure_conditions, const std::string& path) {
  Errs errs;
  const std::string cpath = Child(path, "bindingConditions");
  const std::string fpath = Child(path, "bindingFailureConditions");
  Add(errs, ValidateSlice(conditions, kBindingConditionsMaxSize, cpath, ValidateLabelName, {.size_covered = true}));
  Add(errs, ValidateSlice(failure_conditions, kBindingFailureConditionsMaxSize, fpath, ValidateLabelName,
                          {.size_covered = true}));
  std::set<std::string> seen;
  for (size_t i = 0; i < conditions.size(); ++i) {
    if (!seen.insert(conditions[i]).second) Add(errs, Duplicate(Index(cpath, i), Q(conditions[i])));
  }
  std::set<std::string> seen_failure;
  for (size_t i = 0; i < failure_conditions.size(); ++i) {
    if (!seen_failure.insert(failure_conditions[i]).second) {
      Add(errs, Duplicate(Index(fpath, i), Q(failure_conditions[i])));
    }
    if (seen.count(failure_conditions[i])) {
      Add(errs, Invalid(Index(fpath, i), Q(failure_conditions[i]),
                        "bindingFailureConditions must not overlap with bindingConditions"));
    }
  }
  if (conditions.empty() && !failure_conditions.empty()) {
    Add(errs, Invalid(cpath, JsonStrings(conditions), "bindingConditions are required to use bindingFailureConditions"));
  }
  if (failure_conditions.empty() && !conditions.empty()) {
    Add(errs, Invalid(fpath, JsonStrings(failure_conditions), "bindingFailureConditions are required to use bindingConditions"));
  }
  return errs;
}

Errs ValidateSkipNodeOperations(const std::vector<std::string>& ops, const std::string& path) {
  Errs errs;
  auto has = [&](std::string_view op) { return std::find(ops.begin(), ops.end(), op) != ops.end(); };
  if (has("NodePrepareResources") && !has("NodeUnprepareResources") && !has("*")) {
    Add(errs, Invalid(path, JsonStrings(ops), "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped"));
  }
  return errs;
}

const std::vector<std::string_view> kSkipNodeOperations = {"*", "NodePrepareResources", "NodeUnprepareResources"};

Errs DvSkipNodeOperations(const std::vector<std::string>& ops, const std::string& path) {
  Errs errs = StringsUnique(ops, path);
  for (size_t i = 0; i < ops.size(); ++i) Add(errs, DvEnum(ops[i], kSkipNodeOperations, Index(path, i)));
  return errs;
}

// ---- Declarative pieces shared by several kinds ---------------------------------------------------

Errs DvOpaque(const std::optional<OpaqueDeviceConfiguration>& opaque, const std::string& path) {
  Errs errs;
  if (!opaque) return errs;
  const std::string driver = Str(opaque->driver);
  const std::string dpath = Child(Child(path, "opaque"), "driver");
  if (driver.empty()) {
    Add(errs, Required(dpath).Beta());
    return errs;
  }
  Add(errs, DvLongNameCaseless(driver, dpath));
  Add(errs, DvMaxLength(driver, kDriverNameMaxLength, dpath));
  return MarkBeta(errs);
}

Errs DvToleration(const DeviceToleration& t, const std::string& path) {
  Errs errs;
  const std::string key = Str(t.key);
  if (!key.empty()) {
    Errs k = DvLabelKey(key, Child(path, "key"));
    Add(errs, std::move(MarkBeta(k)));
  }
  Errs op = DvEnum(TolerationOperator(t), kTolerationOperators, Child(path, "operator"));
  Add(errs, std::move(MarkBeta(op)));
  const std::string effect = Str(t.effect);
  if (!effect.empty()) {
    Errs e = DvEnum(effect, kTaintEffects, Child(path, "effect"));
    Add(errs, std::move(MarkBeta(e)));
  }
  return errs;
}

Errs DvTolerations(const std::vector<DeviceToleration>& tolerations, const std::string& path) {
  Errs errs;
  for (size_t i = 0; i < tolerations.size(); ++i) Add(errs, DvToleration(tolerations[i], Index(path, i)));
  return errs;
}

Errs DvAllocationMode(const std::optional<std::string>& mode, const std::string& path) {
  Errs errs = DvEnum(AllocationMode(mode), {"All", "ExactCount"}, path);
  return MarkBeta(errs);
}

// ---- ResourceClaim spec -----------------------------------------------------------------------------

// requestNames: request name -> subrequest names (nullopt when the request has no firstAvailable).
using RequestNames = std::vector<std::pair<std::string, std::optional<std::vector<std::string>>>>;

RequestNames GatherRequestNames(const DeviceClaim& claim) {
  RequestNames names;
  for (const auto& r : claim.requests) {
    std::optional<std::vector<std::string>> subs;
    if (!r.first_available.empty()) {
      subs.emplace();
      for (const auto& s : r.first_available) subs->push_back(Str(s.name));
    }
    // A later request of the same name replaces the earlier one (a Go map assignment).
    auto it = std::find_if(names.begin(), names.end(), [&](const auto& p) { return p.first == Str(r.name); });
    if (it != names.end()) {
      it->second = std::move(subs);
    } else {
      names.emplace_back(Str(r.name), std::move(subs));
    }
  }
  return names;
}

bool HasRequestName(const RequestNames& names, std::string_view ref) {
  std::vector<std::string_view> segments = Split(ref, '/');
  if (segments.size() > 2) return false;
  auto it = std::find_if(names.begin(), names.end(), [&](const auto& p) { return p.first == segments[0]; });
  if (it == names.end()) return false;
  if (segments.size() == 1) return true;
  if (!it->second) return false;
  return std::find(it->second->begin(), it->second->end(), segments[1]) != it->second->end();
}

constexpr std::string_view kRequestRefMsg =
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

Errs ValidateRequestNameRef(const std::string& name, const std::string& path, const RequestNames& names) {
  Errs errs;
  std::vector<std::string_view> segments = Split(name, '/');
  if (segments.size() > 2) {
    Add(errs, Invalid(path, Q(name), std::string(kRequestRefMsg)));
    return errs;
  }
  for (auto seg : segments) Add(errs, ValidateDNS1123Label(seg, path));
  if (!HasRequestName(names, name)) Add(errs, Invalid(path, Q(name), std::string(kRequestRefMsg)));
  return errs;
}

Errs ValidateRequestRefSet(const std::vector<std::string>& refs, const std::string& path, const RequestNames& names) {
  return ValidateSet(
      refs, kDeviceRequestsMaxSize, path,
      [&](const std::string& ref, const std::string& p) { return ValidateRequestNameRef(ref, p, names); },
      [](const std::string& s) { return s; }, [](const std::string& s) { return Q(s); },
      {.size_covered = true, .uniqueness_covered = true});
}

Errs ValidateDeviceClassRef(const std::string& name, const std::string& path) {
  Errs errs;
  if (name.empty()) {
    Add(errs, Required(path));
  } else {
    Add(errs, ValidateDNS1123Subdomain(name, path));
  }
  return errs;
}

Errs ValidateAllocationMode(const std::optional<std::string>& mode, const std::optional<int64_t>& count,
                            const std::string& mode_path, const std::string& count_path) {
  Errs errs;
  const std::string_view m = AllocationMode(mode);
  const int64_t c = Count(mode, count);
  if (m == kAllocationModeAll) {
    if (c != 0) Add(errs, Invalid(count_path, Num(c), "must not be specified when allocationMode is 'All'"));
  } else if (m == kAllocationModeExactCount) {
    if (c <= 0) Add(errs, Invalid(count_path, Num(c), "must be greater than zero"));
  } else {
    Add(errs, NotSupported(mode_path, Q(m), {"All", "ExactCount"}).Covered());
  }
  return errs;
}

// gatherConstraintAttributes: the attribute names that matchAttribute/distinctAttribute constraints
// use, by the request or "request/subrequest" they name ("" for constraints over all requests).
using ConstraintAttributes = std::map<std::string, std::set<std::string>, std::less<>>;

ConstraintAttributes GatherConstraintAttributes(const std::vector<DeviceConstraint>& constraints) {
  ConstraintAttributes attrs;
  for (const DeviceConstraint& c : constraints) {
    const std::optional<std::string>& name = c.match_attribute ? c.match_attribute : c.distinct_attribute;
    if (!name) continue;
    if (c.requests.empty()) {
      attrs[""].insert(*name);
    } else {
      for (const std::string& r : c.requests) attrs[r].insert(*name);
    }
  }
  return attrs;
}

// isAttributeUsedByConstraint: by a constraint over all requests, over this (sub)request, or over the
// parent request of a subrequest.
bool IsAttributeUsedByConstraint(const std::string& attr, std::string_view request, const ConstraintAttributes& attrs) {
  auto uses = [&](std::string_view key) {
    auto it = attrs.find(key);
    return it != attrs.end() && it->second.count(attr) > 0;
  };
  if (uses("") || uses(request)) return true;
  const size_t slash = request.find('/');
  return slash != std::string_view::npos && uses(request.substr(0, slash));
}

// validateDeviceDerivedAttributes: items, then names unique (validateSet without a size limit; the
// limit of 32 is declarative). CEL compilation and cost are lib/cel's (see validation.h).
Errs ValidateDerivedAttributes(const std::vector<DeviceDerivedAttribute>& attrs, const std::string& path,
                               std::string_view request, const ConstraintAttributes& constraint_attrs) {
  return ValidateSet(
      attrs, -1, path,
      [&](const DeviceDerivedAttribute& a, const std::string& p) {
        Errs errs;
        const std::string& name = Str(a.name);
        if (!name.empty() && !IsAttributeUsedByConstraint(name, request, constraint_attrs)) {
          Add(errs, Invalid(Child(p, "name"), Q(name),
                            "must be referenced by at least one matchAttribute or distinctAttribute constraint "
                            "targeting this request"));
        }
        const std::string& expr = Str(a.expression);
        if (!expr.empty()) Add(errs, ValidateCELExpression(expr, Child(p, "expression")));
        return errs;
      },
      [](const DeviceDerivedAttribute& a) { return Str(a.name); }, [](const std::string& s) { return Q(s); });
}

Errs ValidateSubRequest(const DeviceSubRequest& r, const std::string& path, std::string_view parent,
                        const ConstraintAttributes& constraint_attrs) {
  Errs errs = ValidateDNS1123Label(Str(r.name), Child(path, "name"));
  Errs class_errs = ValidateDeviceClassRef(Str(r.device_class_name), Child(path, "deviceClassName"));
  Add(errs, std::move(MarkCovered(class_errs)));
  Add(errs, ValidateSelectorSlice(r.selectors, Child(path, "selectors")));
  Add(errs, ValidateDerivedAttributes(r.derived_attributes, Child(path, "derivedAttributes"),
                                      absl::StrCat(AV(parent), "/", Str(r.name)), constraint_attrs));
  Add(errs, ValidateAllocationMode(r.allocation_mode, r.count, Child(path, "allocationMode"), Child(path, "count")));
  for (size_t i = 0; i < r.tolerations.size(); ++i) {
    Add(errs, ValidateDeviceToleration(r.tolerations[i], Index(Child(path, "tolerations"), i)));
  }
  return errs;
}

Errs ValidateExactRequest(const ExactDeviceRequest& r, const std::string& path, std::string_view request,
                          const ConstraintAttributes& constraint_attrs) {
  Errs errs = ValidateDeviceClassRef(Str(r.device_class_name), Child(path, "deviceClassName"));
  Add(errs, ValidateSelectorSlice(r.selectors, Child(path, "selectors")));
  Add(errs, ValidateDerivedAttributes(r.derived_attributes, Child(path, "derivedAttributes"), request,
                                      constraint_attrs));
  Add(errs, ValidateAllocationMode(r.allocation_mode, r.count, Child(path, "allocationMode"), Child(path, "count")));
  for (size_t i = 0; i < r.tolerations.size(); ++i) {
    Add(errs, ValidateDeviceToleration(r.tolerations[i], Index(Child(path, "tolerations"), i)));
  }
  return errs;
}

Errs ValidateDeviceRequest(const DeviceRequest& r, const std::string& path, const ConstraintAttributes& constraint_attrs) {
  Errs errs = ValidateDNS1123Label(Str(r.name), Child(path, "name"));
  const bool has_first = !r.first_available.empty();
  const bool has_exactly = r.exactly.has_value();
  if (!has_first && !has_exactly) {
    Add(errs, Required(path, "exactly one of `exactly` or `firstAvailable` is required"));
  } else if (has_first && has_exactly) {
    Add(errs, Invalid(path, kNull, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"));
  } else if (has_first) {
    Add(errs, ValidateSet(
                  r.first_available, kFirstAvailableDeviceRequestMaxSize, Child(path, "firstAvailable"),
                  [&](const DeviceSubRequest& s, const std::string& p) {
                    return ValidateSubRequest(s, p, Str(r.name), constraint_attrs);
                  },
                  [](const DeviceSubRequest& s) { return Str(s.name); }, [](const std::string& s) { return Q(s); },
                  {.size_covered = true, .uniqueness_covered = true}));
  } else {
    Add(errs, ValidateExactRequest(*r.exactly, Child(path, "exactly"), Str(r.name), constraint_attrs));
  }
  return errs;
}

Errs ValidateDeviceConstraint(const DeviceConstraint& c, const std::string& path, const RequestNames& names) {
  Errs errs = ValidateRequestRefSet(c.requests, Child(path, "requests"), names);
  if (c.match_attribute) {
    Errs e = ValidateFullyQualifiedName(*c.match_attribute, Child(path, "matchAttribute"));
    Add(errs, std::move(MarkCovered(e)));
  } else if (c.distinct_attribute) {
    Errs e = ValidateFullyQualifiedName(*c.distinct_attribute, Child(path, "distinctAttribute"));
    Add(errs, std::move(MarkCovered(e)));
  } else {
    Add(errs, Required(path, "exactly one of \"matchAttribute\" or \"distinctAttribute\" is required, but multiple "
                             "fields are set"));
  }
  return errs;
}

Errs ValidateDeviceClaimHandwritten(const DeviceClaim& claim, const std::string& path) {
  Errs errs;
  const RequestNames names = GatherRequestNames(claim);
  const ConstraintAttributes constraint_attrs = GatherConstraintAttributes(claim.constraints);
  Add(errs, ValidateSet(
                claim.requests, kDeviceRequestsMaxSize, Child(path, "requests"),
                [&](const DeviceRequest& r, const std::string& p) { return ValidateDeviceRequest(r, p, constraint_attrs); },
                [](const DeviceRequest& r) { return Str(r.name); }, [](const std::string& s) { return Q(s); },
                {.size_covered = true, .uniqueness_covered = true}));
  Add(errs, ValidateSlice(
                claim.constraints, kDeviceConstraintsMaxSize, Child(path, "constraints"),
                [&](const DeviceConstraint& c, const std::string& p) { return ValidateDeviceConstraint(c, p, names); },
                {.size_covered = true}));
  Add(errs, ValidateSlice(
                claim.config, kDeviceConfigMaxSize, Child(path, "config"),
                [&](const DeviceClaimConfiguration& c, const std::string& p) {
                  Errs e = ValidateRequestRefSet(c.requests, Child(p, "requests"), names);
                  Add(e, ValidateDeviceConfiguration(c.opaque, p));
                  return e;
                },
                {.size_covered = true}));
  return errs;
}

// The declarative rules of a request's derivedAttributes: +k8s:maxItems=32 (short-circuits), then
// each item's name (+k8s:required, +k8s:format=k8s-resource-fully-qualified-name) and expression
// (+k8s:required). Standard (enforced) rules.
Errs DvDerivedAttributes(const std::vector<DeviceDerivedAttribute>& attrs, const std::string& path) {
  if (attrs.size() > static_cast<size_t>(kDeviceDerivedAttributesMaxSize)) {
    return MaxItems(attrs.size(), kDeviceDerivedAttributesMaxSize, path);
  }
  Errs errs;
  for (size_t i = 0; i < attrs.size(); ++i) {
    const std::string p = Index(path, i);
    const std::string& name = Str(attrs[i].name);
    if (name.empty()) {
      Add(errs, Required(Child(p, "name")));
    } else {
      Add(errs, DvResourceFullyQualifiedName(name, Child(p, "name")));
    }
    if (Str(attrs[i].expression).empty()) Add(errs, Required(Child(p, "expression")));
  }
  return MarkBeta(errs);
}

Errs DvSubRequest(const DeviceSubRequest& r, const std::string& path) {
  Errs errs;
  const std::string class_name = Str(r.device_class_name);
  if (class_name.empty()) {
    Add(errs, Required(Child(path, "deviceClassName")).Beta());
  } else {
    Errs e = DvLongName(class_name, Child(path, "deviceClassName"));
    Add(errs, std::move(MarkBeta(e)));
  }
  Add(errs, MaxItems(r.selectors.size(), kDeviceSelectorsMaxSize, Child(path, "selectors")));
  Add(errs, DvAllocationMode(r.allocation_mode, Child(path, "allocationMode")));
  Add(errs, DvTolerations(r.tolerations, Child(path, "tolerations")));
  Add(errs, DvDerivedAttributes(r.derived_attributes, Child(path, "derivedAttributes")));
  return errs;
}

Errs DvDeviceClaim(const DeviceClaim& claim, const std::string& path) {
  Errs errs;
  const std::string rpath = Child(path, "requests");
  if (claim.requests.size() > static_cast<size_t>(kDeviceRequestsMaxSize)) {
    Add(errs, MaxItems(claim.requests.size(), kDeviceRequestsMaxSize, rpath));
  } else {
    Errs dups = DvUnique(
        claim.requests, rpath, [](const DeviceRequest& a, const DeviceRequest& b) { return Str(a.name) == Str(b.name); },
        JsonRequest);
    Add(errs, std::move(MarkBeta(dups)));
    for (size_t i = 0; i < claim.requests.size(); ++i) {
      const DeviceRequest& r = claim.requests[i];
      const std::string p = Index(rpath, i);
      if (r.exactly) {
        const std::string ep = Child(p, "exactly");
        Add(errs, MaxItems(r.exactly->selectors.size(), kDeviceSelectorsMaxSize, Child(ep, "selectors")));
        Add(errs, DvAllocationMode(r.exactly->allocation_mode, Child(ep, "allocationMode")));
        Add(errs, DvTolerations(r.exactly->tolerations, Child(ep, "tolerations")));
        Add(errs, DvDerivedAttributes(r.exactly->derived_attributes, Child(ep, "derivedAttributes")));
      }
      const std::string fpath = Child(p, "firstAvailable");
      if (r.first_available.size() > static_cast<size_t>(kFirstAvailableDeviceRequestMaxSize)) {
        Add(errs, MaxItems(r.first_available.size(), kFirstAvailableDeviceRequestMaxSize, fpath));
        continue;
      }
      Errs sub_dups = DvUnique(
          r.first_available, fpath,
          [](const DeviceSubRequest& a, const DeviceSubRequest& b) { return Str(a.name) == Str(b.name); }, JsonSubRequest);
      Add(errs, std::move(MarkBeta(sub_dups)));
      for (size_t j = 0; j < r.first_available.size(); ++j) {
        Add(errs, DvSubRequest(r.first_available[j], Index(fpath, j)));
      }
    }
  }
  const std::string cpath = Child(path, "constraints");
  if (claim.constraints.size() > static_cast<size_t>(kDeviceConstraintsMaxSize)) {
    Add(errs, MaxItems(claim.constraints.size(), kDeviceConstraintsMaxSize, cpath));
  } else {
    for (size_t i = 0; i < claim.constraints.size(); ++i) {
      const DeviceConstraint& c = claim.constraints[i];
      const std::string p = Index(cpath, i);
      const std::string reqs = Child(p, "requests");
      if (c.requests.size() > static_cast<size_t>(kDeviceRequestsMaxSize)) {
        Add(errs, MaxItems(c.requests.size(), kDeviceRequestsMaxSize, reqs));
      } else {
        Errs d = StringsUnique(c.requests, reqs);
        Add(errs, std::move(MarkBeta(d)));
      }
      if (c.match_attribute) {
        Errs e = DvResourceFullyQualifiedName(*c.match_attribute, Child(p, "matchAttribute"));
        Add(errs, std::move(MarkBeta(e)));
      }
      if (c.distinct_attribute) {
        Errs e = DvResourceFullyQualifiedName(*c.distinct_attribute, Child(p, "distinctAttribute"));
        Add(errs, std::move(MarkBeta(e)));
      }
    }
  }
  const std::string gpath = Child(path, "config");
  if (claim.config.size() > static_cast<size_t>(kDeviceConfigMaxSize)) {
    Add(errs, MaxItems(claim.config.size(), kDeviceConfigMaxSize, gpath));
  } else {
    for (size_t i = 0; i < claim.config.size(); ++i) {
      const DeviceClaimConfiguration& c = claim.config[i];
      const std::string p = Index(gpath, i);
      const std::string reqs = Child(p, "requests");
      if (c.requests.size() > static_cast<size_t>(kDeviceRequestsMaxSize)) {
        Add(errs, MaxItems(c.requests.size(), kDeviceRequestsMaxSize, reqs));
      } else {
        Errs d = StringsUnique(c.requests, reqs);
        Add(errs, std::move(MarkBeta(d)));
      }
      Add(errs, DvOpaque(c.opaque, p));
    }
  }
  return errs;
}

// ---- ResourceClaim status ---------------------------------------------------------------------------

// structured.SharedDeviceID as a set key, and as Go prints it in "must be an allocated device".
using SharedDeviceID = std::tuple<std::string, std::string, std::string, std::optional<std::string>>;

std::string RenderSharedDeviceID(const SharedDeviceID& id) {
  // A struct of UniqueStrings, which marshal as their string value ("" for no share ID).
  JsonObject o;
  o.Str("Driver", std::get<0>(id)).Str("Pool", std::get<1>(id)).Str("Device", std::get<2>(id));
  o.Str("ShareID", std::get<3>(id).value_or(""));
  return o.Done();
}
// Parses an IP address as Go's netutils.ParseIPSloppy does (IPv4 octets may have leading zeros)
// into 16 bytes; `is_v4` reports whether it is an IPv4 (or IPv4-mapped) address.
bool ParseIPSloppy(std::string_view s, unsigned char out[16], bool& v4_literal) {
  v4_literal = false;
  if (s.find(':') == std::string_view::npos) {
    std::vector<std::string_view> parts = Split(s, '.');
    if (parts.size() != 4) return false;
    std::fill(out, out + 10, 0);
    out[10] = out[11] = 0xff;
    for (size_t i = 0; i < 4; ++i) {
      if (parts[i].empty() || parts[i].size() > 3) return false;
      int v = 0;
      for (char c : parts[i]) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
      }
      if (v > 255) return false;
      out[12 + i] = static_cast<unsigned char>(v);
    }
    v4_literal = true;
    return true;
  }
  const std::string text(s);
  return inet_pton(AF_INET6, text.c_str(), out) == 1;
}

bool IsV4Mapped(const unsigned char ip[16]) {
  for (int i = 0; i < 10; ++i) {
    if (ip[i] != 0) return false;
  }
  return ip[10] == 0xff && ip[11] == 0xff;
}

// Go's net.IP.String().
std::string FormatIP(const unsigned char ip[16]) {
  if (IsV4Mapped(ip)) return absl::StrCat(ip[12], ".", ip[13], ".", ip[14], ".", ip[15]);
  // RFC 5952: the longest run (>= 2) of zero groups becomes "::", lowercase hex.
  int groups[8];
  for (int i = 0; i < 8; ++i) groups[i] = (ip[2 * i] << 8) | ip[2 * i + 1];
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (groups[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && groups[j] == 0) ++j;
    if (j - i > best_len) best = i, best_len = j - i;
    i = j;
  }
  if (best_len < 2) best = -1;
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    absl::StrAppend(&out, absl::Hex(groups[i]));
  }
  return out;
}

// validation.IsValidInterfaceAddress.
Errs ValidateInterfaceAddress(const std::string& value, const std::string& path) {
  Errs errs;
  const size_t slash = value.find('/');
  unsigned char ip[16];
  bool v4_literal = false;
  int prefix = -1;
  bool ok = slash != std::string::npos && ParseIPSloppy(std::string_view(value).substr(0, slash), ip, v4_literal);
  if (ok) {
    std::string_view bits = std::string_view(value).substr(slash + 1);
    ok = !bits.empty() && bits.size() <= 3 && std::all_of(bits.begin(), bits.end(), absl::ascii_isdigit) &&
         (bits.size() == 1 || bits[0] != '0');
    if (ok) {
      prefix = std::stoi(std::string(bits));
      ok = prefix <= (v4_literal ? 32 : 128);
    }
  }
  if (!ok) {
    Add(errs, Invalid(path, Q(value), "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"));
    return errs;
  }
  int mask = prefix;
  if (!v4_literal && IsV4Mapped(ip) && mask > 32) mask -= 96;
  const std::string canonical = absl::StrCat(FormatIP(ip), "/", mask);
  if (value != canonical) {
    Add(errs, Invalid(path, Q(value), absl::StrCat("must be in canonical form (", GoQuote(canonical), ")")));
  }
  return errs;
}

// metav1validation.ValidateConditions.
Errs ValidateConditions(const std::vector<Condition>& conditions, const std::string& path) {
  Errs errs;
  std::set<std::string> types;
  for (size_t i = 0; i < conditions.size(); ++i) {
    const Condition& c = conditions[i];
    const std::string p = Index(path, i);
    const std::string type = Str(c.type);
    if (!types.insert(type).second) Add(errs, Duplicate(p, Q(type)).Covered());
    if (type.empty()) {
      Add(errs, Required(Child(p, "type"), "is required").Covered());
    } else {
      Add(errs, ValidateLabelName(type, Child(p, "type")));
    }
    const std::string status = Str(c.status);
    if (status.empty()) {
      Add(errs, Required(Child(p, "status")).Covered());
    } else if (status != "True" && status != "False" && status != "Unknown") {
      Add(errs, NotSupported(Child(p, "status"), Q(status), {"False", "True", "Unknown"}).Covered());
    }
    if (c.observed_generation && *c.observed_generation < 0) {
      Add(errs, Invalid(Child(p, "observedGeneration"), Num(*c.observed_generation), "must be greater than or equal to zero")
                    .Origin("minimum")
                    .Covered());
    }
    if (!c.last_transition_time || c.last_transition_time->empty()) {
      Add(errs, Required(Child(p, "lastTransitionTime")).Covered());
    }
    const std::string reason = Str(c.reason);
    if (reason.empty()) {
      Add(errs, Required(Child(p, "reason")).Covered());
    } else {
      bool ok = absl::ascii_isalpha(static_cast<unsigned char>(reason.front()));
      for (char ch : reason) ok = ok && (absl::ascii_isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == ',' || ch == ':');
      const char last = reason.back();
      ok = ok && (absl::ascii_isalnum(static_cast<unsigned char>(last)) || last == '_');
      if (!ok) {
        Add(errs, Invalid(Child(p, "reason"), Q(reason),
                          RegexError("a condition reason must start with alphabetic character, optionally followed by a "
                                     "string of alphanumeric characters or '_,:', and must end with an alphanumeric "
                                     "character or '_'",
                                     "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?",
                                     {"my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB"})));
      }
      if (reason.size() > 1024) Add(errs, TooLong(Child(p, "reason"), 1024).Origin("maxBytes").Covered());
    }
    if (Str(c.message).size() > 32 * 1024) Add(errs, TooLong(Child(p, "message"), 32 * 1024));
  }
  return errs;
}

Errs ValidateDeviceRequestAllocationResult(const DeviceRequestAllocationResult& r, const std::string& path,
                                           const RequestNames& names) {
  Errs errs = ValidateRequestNameRef(Str(r.request), Child(path, "request"), names);
  Add(errs, ValidateDriverName(Str(r.driver), Child(path, "driver"), {true, true, true}));
  Errs pool = ValidatePoolName(Str(r.pool), Child(path, "pool"));
  Add(errs, std::move(MarkCovered(pool)));
  Add(errs, ValidateDNS1123Label(Str(r.device), Child(path, "device")));
  Add(errs, ValidateDeviceBindingParameters(r.binding_conditions, r.binding_failure_conditions, path));
  for (size_t i = 0; i < r.tolerations.size(); ++i) {
    Add(errs, ValidateDeviceToleration(r.tolerations[i], Index(Child(path, "tolerations"), i)));
  }
  if (r.share_id) {
    Errs e = DvUUID(*r.share_id, Child(path, "shareID"));  // same verdict as validateUID; covered either way
    for (auto& x : e) x.e.detail = "uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters";
    Add(errs, std::move(MarkCovered(e)));
  }
  Add(errs, ValidateSkipNodeOperations(r.skip_node_operations, Child(path, "skipNodeOperations")));
  return errs;
}

Errs ValidateAllocationConfig(const DeviceAllocationConfiguration& c, const std::string& path, const RequestNames& names) {
  Errs errs;
  const std::string source = Str(c.source);
  if (source.empty()) {
    Add(errs, Required(Child(path, "source")).Covered());
  } else if (source != "FromClaim" && source != "FromClass") {
    Add(errs, NotSupported(Child(path, "source"), Q(source), {"FromClaim", "FromClass"}).Covered());
  }
  Add(errs, ValidateRequestRefSet(c.requests, Child(path, "requests"), names));
  Add(errs, ValidateDeviceConfiguration(c.opaque, path));
  return errs;
}

Errs ValidateNetworkDeviceData(const std::optional<NetworkDeviceData>& data, const std::string& path) {
  Errs errs;
  if (!data) return errs;
  if (Str(data->interface_name).size() > static_cast<size_t>(kNetworkDeviceDataInterfaceNameMaxLength)) {
    Add(errs, TooLong(Child(path, "interfaceName"), kNetworkDeviceDataInterfaceNameMaxLength).Origin("maxBytes").Covered());
  }
  if (Str(data->hardware_address).size() > static_cast<size_t>(kNetworkDeviceDataHardwareAddressMaxLength)) {
    Add(errs, TooLong(Child(path, "hardwareAddress"), kNetworkDeviceDataHardwareAddressMaxLength)
                  .Origin("maxBytes")
                  .Covered());
  }
  Add(errs, ValidateSet(
                data->ips, kNetworkDeviceDataMaxIPs, Child(path, "ips"), ValidateInterfaceAddress,
                [](const std::string& s) { return s; }, [](const std::string& s) { return Q(s); },
                {.size_covered = true, .uniqueness_covered = true}));
  return errs;
}

SharedDeviceID DeviceStatusID(const AllocatedDeviceStatus& d) {
  return {Str(d.driver), Str(d.pool), Str(d.device), d.share_id};
}

Errs ValidateDeviceStatus(const AllocatedDeviceStatus& d, const std::string& path, const std::vector<SharedDeviceID>& allocated) {
  Errs errs = ValidateDriverName(Str(d.driver), Child(path, "driver"));
  Add(errs, ValidatePoolName(Str(d.pool), Child(path, "pool")));
  Add(errs, ValidateDNS1123Label(Str(d.device), Child(path, "device")));
  if (d.share_id) {
    Errs e = DvUUID(*d.share_id, Child(path, "shareID"));
    Add(errs, std::move(MarkCovered(e)));
  }
  const SharedDeviceID id = DeviceStatusID(d);
  if (std::find(allocated.begin(), allocated.end(), id) == allocated.end()) {
    Add(errs, Invalid(path, RenderSharedDeviceID(id), "must be an allocated device in the claim"));
  }
  if (d.conditions.size() > static_cast<size_t>(kAllocatedDeviceStatusMaxConditions)) {
    Add(errs, TooMany(Child(path, "conditions"), d.conditions.size(), kAllocatedDeviceStatusMaxConditions));
  }
  Add(errs, ValidateConditions(d.conditions, Child(path, "conditions")));
  if (d.data && !d.data->json.empty() && d.data->json != "null") {
    Add(errs, ValidateRawExtension(d.data, Child(path, "data"), kAllocatedDeviceStatusDataMaxLength));
  }
  Add(errs, ValidateNetworkDeviceData(d.network_data, Child(path, "networkData")));
  return errs;
}

Errs ValidateClaimStatusHandwritten(const ResourceClaimStatus& status, const RequestNames& names) {
  Errs errs;
  Add(errs, ValidateSet(
                status.reserved_for, kResourceClaimReservedForMaxSize, "status.reservedFor",
                [](const ResourceClaimConsumerReference& ref, const std::string& p) {
                  Errs e;
                  if (Str(ref.resource).empty()) Add(e, Required(Child(p, "resource")));
                  if (Str(ref.name).empty()) Add(e, Required(Child(p, "name")));
                  if (Str(ref.uid).empty()) Add(e, Required(Child(p, "uid")));
                  return e;
                },
                [](const ResourceClaimConsumerReference& ref) { return Str(ref.uid); },
                [](const std::string& s) { return Q(s); }, {.size_covered = true, .uniqueness_covered = true}));
  std::vector<SharedDeviceID> allocated;
  if (status.allocation && status.allocation->devices) {
    for (const auto& r : status.allocation->devices->results) {
      allocated.emplace_back(Str(r.driver), Str(r.pool), Str(r.device), r.share_id);
    }
  }
  Add(errs, ValidateSet(
                status.devices, -1, "status.devices",
                [&](const AllocatedDeviceStatus& d, const std::string& p) { return ValidateDeviceStatus(d, p, allocated); },
                DeviceStatusID, RenderSharedDeviceID,
                {.uniqueness_covered = true}));
  if (!status.reserved_for.empty() && !status.allocation) {
    Add(errs, Forbidden("status.reservedFor", "may not be specified when `allocated` is not set"));
  }
  if (status.allocation) {
    const std::string path = "status.allocation";
    const std::string dpath = Child(path, "devices");
    static const DeviceAllocationResult kEmpty;
    const DeviceAllocationResult& devices = status.allocation->devices ? *status.allocation->devices : kEmpty;
    Add(errs, ValidateSlice(
                  devices.results, kAllocationResultsMaxSize, Child(dpath, "results"),
                  [&](const DeviceRequestAllocationResult& r, const std::string& p) {
                    return ValidateDeviceRequestAllocationResult(r, p, names);
                  },
                  {.size_covered = true}));
    Add(errs, ValidateSlice(
                  devices.config, 2 * kDeviceConfigMaxSize, Child(dpath, "config"),
                  [&](const DeviceAllocationConfiguration& c, const std::string& p) {
                    return ValidateAllocationConfig(c, p, names);
                  },
                  {.size_covered = true}));
    if (status.allocation->node_selector) {
      Add(errs, ValidateNodeSelectorErrs(*status.allocation->node_selector, Child(path, "nodeSelector")));
    }
  }
  return errs;
}

Errs DvClaimStatus(const ResourceClaimStatus& status) {
  Errs errs;
  if (status.allocation && status.allocation->devices) {
    const DeviceAllocationResult& devices = *status.allocation->devices;
    const std::string rpath = "status.allocation.devices.results";
    if (devices.results.size() > static_cast<size_t>(kAllocationResultsMaxSize)) {
      Add(errs, MaxItems(devices.results.size(), kAllocationResultsMaxSize, rpath));
    } else {
      for (size_t i = 0; i < devices.results.size(); ++i) {
        const DeviceRequestAllocationResult& r = devices.results[i];
        const std::string p = Index(rpath, i);
        const std::string driver = Str(r.driver);
        if (driver.empty()) {
          Add(errs, Required(Child(p, "driver")).Beta());
        } else {
          Errs e = DvLongNameCaseless(driver, Child(p, "driver"));
          Add(e, DvMaxLength(driver, kDriverNameMaxLength, Child(p, "driver")));
          Add(errs, std::move(MarkBeta(e)));
        }
        const std::string pool = Str(r.pool);
        if (pool.empty()) {
          Add(errs, Required(Child(p, "pool")).Beta());
        } else {
          Errs e = DvResourcePoolName(pool, Child(p, "pool"));
          Add(errs, std::move(MarkBeta(e)));
        }
        Add(errs, DvTolerations(r.tolerations, Child(p, "tolerations")));
        Add(errs, MaxItems(r.binding_conditions.size(), kBindingConditionsMaxSize, Child(p, "bindingConditions")));
        Add(errs, MaxItems(r.binding_failure_conditions.size(), kBindingFailureConditionsMaxSize,
                           Child(p, "bindingFailureConditions")));
        if (r.share_id) {
          Errs e = DvUUID(*r.share_id, Child(p, "shareID"));
          Add(errs, std::move(MarkBeta(e)));
        }
        Add(errs, DvSkipNodeOperations(r.skip_node_operations, Child(p, "skipNodeOperations")));
      }
    }
    const std::string cpath = "status.allocation.devices.config";
    if (devices.config.size() > static_cast<size_t>(2 * kDeviceConfigMaxSize)) {
      Add(errs, MaxItems(devices.config.size(), 2 * kDeviceConfigMaxSize, cpath));
    } else {
      for (size_t i = 0; i < devices.config.size(); ++i) {
        const DeviceAllocationConfiguration& c = devices.config[i];
        const std::string p = Index(cpath, i);
        const std::string source = Str(c.source);
        if (source.empty()) {
          Add(errs, Required(Child(p, "source")).Beta());
        } else {
          Errs e = DvEnum(source, {"FromClaim", "FromClass"}, Child(p, "source"));
          Add(errs, std::move(MarkBeta(e)));
        }
        const std::string reqs = Child(p, "requests");
        if (c.requests.size() > static_cast<size_t>(kDeviceRequestsMaxSize)) {
          Add(errs, MaxItems(c.requests.size(), kDeviceRequestsMaxSize, reqs));
        } else {
          Errs d = StringsUnique(c.requests, reqs);
          Add(errs, std::move(MarkBeta(d)));
        }
        Add(errs, DvOpaque(c.opaque, p));
      }
    }
  }
  if (status.reserved_for.size() > static_cast<size_t>(kResourceClaimReservedForMaxSize)) {
    Add(errs, MaxItems(status.reserved_for.size(), kResourceClaimReservedForMaxSize, "status.reservedFor"));
  } else {
    Errs d = DvUnique(
        status.reserved_for, "status.reservedFor",
        [](const ResourceClaimConsumerReference& a, const ResourceClaimConsumerReference& b) { return Str(a.uid) == Str(b.uid); },
        JsonConsumerReference);
    Add(errs, std::move(MarkBeta(d)));
  }
  Errs d = DvUnique(
      status.devices, "status.devices",
      [](const AllocatedDeviceStatus& a, const AllocatedDeviceStatus& b) { return DeviceStatusID(a) == DeviceStatusID(b); },
      JsonDeviceStatus);
  Add(errs, std::move(MarkBeta(d)));
  for (size_t i = 0; i < status.devices.size(); ++i) {
    const AllocatedDeviceStatus& dev = status.devices[i];
    const std::string p = Index("status.devices", i);
    if (dev.share_id) {
      Errs e = DvUUID(*dev.share_id, Child(p, "shareID"));
      Add(errs, std::move(MarkBeta(e)));
    }
    if (dev.network_data) {
      const std::string np = Child(p, "networkData");
      Errs e = DvMaxBytes(Str(dev.network_data->interface_name), kNetworkDeviceDataInterfaceNameMaxLength,
                          Child(np, "interfaceName"));
      Add(errs, std::move(MarkBeta(e)));
      const auto& ips = dev.network_data->ips;
      if (ips.size() > static_cast<size_t>(kNetworkDeviceDataMaxIPs)) {
        Add(errs, MaxItems(ips.size(), kNetworkDeviceDataMaxIPs, Child(np, "ips")));
      } else {
        Errs u = StringsUnique(ips, Child(np, "ips"));
        Add(errs, std::move(MarkBeta(u)));
      }
      Errs h = DvMaxBytes(Str(dev.network_data->hardware_address), kNetworkDeviceDataHardwareAddressMaxLength,
                          Child(np, "hardwareAddress"));
      Add(errs, std::move(MarkBeta(h)));
    }
  }
  return errs;
}

// ---- ResourceSlice ---------------------------------------------------------------------------------

// semver 2.0.0 as resource validation's semverRe.
bool IsNumericIdentifier(std::string_view s) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), absl::ascii_isdigit)) return false;
  return s.size() == 1 || s[0] != '0';
}
bool IsAlnumHyphen(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-'; });
}
bool IsSemver(std::string_view v) {
  const size_t plus = v.find('+');
  std::string_view build;
  if (plus != std::string_view::npos) {
    build = v.substr(plus + 1);
    v = v.substr(0, plus);
    for (std::string_view id : Split(build, '.')) {
      if (!IsAlnumHyphen(id)) return false;
    }
  }
  const size_t dash = v.find('-');
  if (dash != std::string_view::npos) {
    std::string_view pre = v.substr(dash + 1);
    v = v.substr(0, dash);
    for (std::string_view id : Split(pre, '.')) {
      if (!IsAlnumHyphen(id)) return false;
      const bool all_digits = std::all_of(id.begin(), id.end(), absl::ascii_isdigit);
      if (all_digits && !IsNumericIdentifier(id)) return false;
    }
  }
  std::vector<std::string_view> core = Split(v, '.');
  if (core.size() != 3) return false;
  return std::all_of(core.begin(), core.end(), IsNumericIdentifier);
}

Errs ValidateDeviceAttribute(const DeviceAttribute& a, const std::string& path) {
  Errs errs;
  int fields = 0;
  if (a.bool_value()) ++fields;
  if (a.int_value()) ++fields;
  if (a.string_value()) {
    ++fields;
    if (a.string_value()->size() > static_cast<size_t>(kDeviceAttributeMaxValueLength)) {
      Add(errs, TooLong(Child(path, "string"), kDeviceAttributeMaxValueLength));
    }
  }
  auto version_errs = [&](const std::string& v, const std::string& p) {
    if (!IsSemver(v)) Add(errs, Invalid(p, Q(v), "must be a string compatible with semver.org spec 2.0.0"));
    if (v.size() > static_cast<size_t>(kDeviceAttributeMaxValueLength)) Add(errs, TooLong(p, kDeviceAttributeMaxValueLength));
  };
  if (a.version_value()) {
    ++fields;
    version_errs(std::string(*a.version_value()), Child(path, "version"));
  }
  // A list field that is present counts, even empty (hand-written validation compares with nil;
  // the declarative union, DvDeviceAttribute, looks at the length).
  auto empty_list = [&](const char* field) {
    Add(errs, Invalid(Child(path, field), "[]", "must not be empty if specified"));
  };
  if (a.has_bools()) {
    ++fields;
    if (a.bools().empty()) empty_list("bools");
  }
  if (a.has_ints()) {
    ++fields;
    if (a.ints().empty()) empty_list("ints");
  }
  if (a.has_strings()) {
    ++fields;
    if (a.strings().empty()) empty_list("strings");
    for (size_t i = 0; i < a.strings().size(); ++i) {
      if (a.strings()[i].size() > static_cast<size_t>(kDeviceAttributeMaxValueLength)) {
        Add(errs, TooLong(Index(Child(path, "strings"), i), kDeviceAttributeMaxValueLength).Origin("maxBytes").Covered());
      }
    }
  }
  if (a.has_versions()) {
    ++fields;
    if (a.versions().empty()) empty_list("versions");
    for (size_t i = 0; i < a.versions().size(); ++i) version_errs(a.versions()[i], Index(Child(path, "versions"), i));
  }
  if (fields == 0) {
    Add(errs, Invalid(path, Q(""), "exactly one value must be specified").Origin("union").Covered());
  } else if (fields > 1) {
    Add(errs, Invalid(path, JsonInternalAttribute(a), "exactly one value must be specified").Origin("union").Covered());
  }
  return errs;
}

Errs DvDeviceAttribute(const DeviceAttribute& a, const std::string& path) {
  std::vector<std::string> set;
  if (a.int_value()) set.push_back("int");
  if (a.bool_value()) set.push_back("bool");
  if (a.string_value()) set.push_back("string");
  if (a.version_value()) set.push_back("version");
  if (!a.ints().empty()) set.push_back("ints");
  if (!a.bools().empty()) set.push_back("bools");
  if (!a.strings().empty()) set.push_back("strings");
  if (!a.versions().empty()) set.push_back("versions");
  constexpr std::string_view kAll = "`int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`";
  Errs errs;
  if (set.size() > 1) {
    Add(errs, Invalid(path, Q(absl::StrCat("{", absl::StrJoin(set, ", "), "}")), absl::StrCat("must specify exactly one of: ", AV(kAll)))
                  .Origin("union")
                  .Beta());
  } else if (set.empty()) {
    Add(errs, Invalid(path, Q(""), absl::StrCat("must specify one of: ", AV(kAll))).Origin("union").Beta());
  }
  return errs;
}

// The plain decimal spelling of a quantity's value, as inf.Dec prints Quantity.AsDec() ("1Gi" ->
// "1073741824"). apimachinery keeps the scale the text was written with, so a fractional value may
// carry trailing zeros there ("1500m" -> "1.500"); here fractions are written without them.
std::string DecimalString(const Quantity& q) {
  if (auto v = q.AsInt64()) return absl::StrCat(*v);
  const int64_t milli = q.MilliValue();
  if (q.Compare(Quantity::FromMilli(milli, q.format())) != 0 || milli == std::numeric_limits<int64_t>::min()) {
    return q.Canonical();
  }
  const uint64_t abs = milli < 0 ? static_cast<uint64_t>(-milli) : static_cast<uint64_t>(milli);
  std::string frac = absl::StrCat(absl::Dec(abs % 1000, absl::kZeroPad3));
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return absl::StrCat(milli < 0 ? "-" : "", abs / 1000, frac.empty() ? "" : ".", frac);
}

Errs ValidateRequestPolicyRange(const Quantity& def, const Quantity& capacity, const CapacityRequestPolicyRange& range,
                                const std::string& path) {
  Errs errs;
  if (!range.min) {
    Add(errs, Required(Child(path, "min"), "required when validRange is defined"));
    return errs;
  }
  const Quantity& min = *range.min;
  if (min.Compare(capacity) > 0) {
    Add(errs, Invalid(Child(path, "min"), Q(min.Canonical()), absl::StrCat("min is larger than capacity value: ", capacity.Canonical())));
  }
  if (def.Compare(min) < 0) {
    Add(errs, Invalid(Child(path, "default"), Q(def.Canonical()), absl::StrCat("default is less than min: ", min.Canonical())));
  }
  if (range.max) {
    const Quantity& max = *range.max;
    if (min.Compare(max) > 0) {
      Add(errs, Invalid(Child(path, "max"), Q(min.Canonical()), absl::StrCat("min is larger than max: ", max.Canonical())));
    }
    if (max.Compare(capacity) > 0) {
      Add(errs, Invalid(Child(path, "max"), Q(max.Canonical()), absl::StrCat("max is larger than capacity value: ", capacity.Canonical())));
    }
    if (def.Compare(max) > 0) {
      Add(errs, Invalid(Child(path, "default"), Q(def.Canonical()), absl::StrCat("default is more than max: ", max.Canonical())));
    }
  }
  // DRAFractionalCapacityRange (on): milli arithmetic when anything is fractional.
  const bool use_milli = !def.IsInteger() || !min.IsInteger() || (range.max && !range.max->IsInteger()) ||
                         (range.step && !range.step->IsInteger());
  const std::vector<std::pair<const Quantity*, std::string_view>> all = {
      {&def, "default"}, {&min, "min"}, {range.max ? &*range.max : nullptr, "max"}, {range.step ? &*range.step : nullptr, "step"}};
  if (use_milli) {
    bool unsafe = false;
    for (const auto& [q, name] : all) {
      if (q == nullptr) continue;
      if (q->Compare(Quantity::FromMilli(q->MilliValue(), q->format())) != 0) {
        Add(errs, Invalid(Child(path, name), Q(q->Canonical()), "value cannot be represented as a milli value"));
        unsafe = true;
      }
    }
    if (unsafe) return errs;
  }
  if (range.step) {
    const Quantity& step = *range.step;
    if (step.Sign() <= 0) {
      Add(errs, Invalid(Child(path, "step"), Q(step.Canonical()), "must be greater than zero"));
      return errs;
    }
    const Quantity added = min.Add(step);
    if (added.Compare(capacity) > 0) {
      Add(errs, Invalid(Child(path, "step"), Q(step.Canonical()),
                        absl::StrCat("one step ", added.Canonical(), " is larger than capacity value: ", capacity.Canonical())));
    }
    bool unsafe = false;
    if (!use_milli) {
      const Quantity int64_max = Quantity::FromInt64(std::numeric_limits<int64_t>::max(), Quantity::Format::kDecimalSI);
      for (const auto& [q, name] : all) {
        if (q == nullptr) continue;
        if (q->Sign() < 0) {
          Add(errs, Invalid(Child(path, name), Q(q->Canonical()), "must be greater than or equal to 0"));
          unsafe = true;
        } else if (q->Compare(int64_max) > 0) {
          Add(errs, Invalid(Child(path, name), Q(q->Canonical()), "must not be larger than 9223372036854775807"));
          unsafe = true;
        }
      }
    }
    if (!unsafe) {
      auto check = [&](const Quantity& value) {
        const auto v = static_cast<uint64_t>(use_milli ? value.MilliValue() : value.Value());
        const auto m = static_cast<uint64_t>(use_milli ? min.MilliValue() : min.Value());
        const int64_t s = use_milli ? step.MilliValue() : step.Value();
        const auto diff = static_cast<int64_t>(v - m);  // Go's int64 arithmetic wraps
        if (s != 0 && diff % s != 0) {
          Add(errs, Invalid(Child(path, "step"), Q(value.Canonical()),
                            absl::StrCat("value is not a multiple of a given step (", step.Canonical(), ") from (",
                                         min.Canonical(), ")")));
        }
      };
      check(def);
      if (range.max) check(*range.max);
    }
  }
  return errs;
}

Errs ValidateRequestPolicy(const Quantity& capacity, const CapacityRequestPolicy& policy, const std::string& path) {
  Errs errs;
  if (!policy.valid_values.empty() && policy.valid_range) {
    Add(errs, Forbidden(path, "exactly one policy can be specified, cannot specify \"validValues\" and \"validRange\" at the same time"));
    return errs;
  }
  if (!policy.valid_values.empty()) {
    if (!policy.default_) {
      Add(errs, Required(Child(path, "default"), "required when validValues is defined"));
      return errs;
    }
    const Quantity& def = *policy.default_;
    const std::string vpath = Child(path, "validValues");
    const auto& values = policy.valid_values;
    for (size_t i = 0; i + 1 < values.size(); ++i) {
      if (values[i].Compare(values[i + 1]) > 0) {
        Add(errs, Invalid(Index(vpath, i + 1), Q(values[i + 1].Canonical()), "values must be sorted in ascending order"));
      }
    }
    bool found_default = false;
    Add(errs, ValidateSet(
                  values, kCapacityRequestPolicyDiscreteMaxOptions, vpath,
                  [&](const Quantity& option, const std::string& p) {
                    Errs e;
                    if (option.Compare(capacity) > 0) {
                      Add(e, Invalid(p, Q(option.Canonical()), absl::StrCat("option is larger than capacity value: ", capacity.Canonical())));
                    }
                    if (option.Compare(def) == 0) found_default = true;
                    return e;
                  },
                  [](const Quantity& q) { return q; },
                  // quantityKeyAsDec: the exact decimal value.
                  [](const Quantity& q) { return Q(DecimalString(q)); }));
    if (!found_default) {
      Add(errs, Invalid(vpath, Q(def.Canonical()), "default value is not valid according to the requestPolicy"));
    }
  } else if (policy.valid_range) {
    if (!policy.default_) {
      Add(errs, Required(Child(path, "default"), "required when validRange is defined"));
      return errs;
    }
    Add(errs, ValidateRequestPolicyRange(*policy.default_, capacity, *policy.valid_range, Child(path, "validRange")));
  }
  return errs;
}

constexpr size_t kAttributeAndCapacityMaxKeyLength = kDeviceMaxDomainLength + 1 + kDeviceMaxIDLength;

Errs ValidateCounterMap(const Map<Counter>& counters, const std::string& path) {
  Errs errs;
  if (counters.empty()) {
    Add(errs, Required(path).Covered());
    return errs;
  }
  if (counters.size() > static_cast<size_t>(kResourceSliceMaxCountersPerCounterSet)) {
    Add(errs, TooMany(path, counters.size(), kResourceSliceMaxCountersPerCounterSet));
    return errs;
  }
  for (const auto& [k, c] : counters) {
    Errs e = ValidateDNS1123Label(k, path);
    Add(errs, std::move(MarkCovered(e)));
  }
  return errs;
}

Errs ValidateCounterSetName(const std::string& name, const std::string& path) {
  Errs errs;
  if (name.empty()) {
    Add(errs, Required(path).Covered());
  } else {
    Errs e = ValidateDNS1123Label(name, path);
    Add(errs, std::move(MarkCovered(e)));
  }
  return errs;
}

bool IsNodeAllocatableResourceName(std::string_view name) {
  return name == "cpu" || name == "memory" || name.substr(0, 10) == "hugepages-";
}

Errs ValidateNodeAllocatableResources(const Map<NodeAllocatableResource>& resources, const Map<DeviceCapacity>& capacity,
                                      const std::string& path) {
  Errs errs;
  for (const auto& [name, res] : resources) {
    const std::string kp = Key(path, name);
    if (!IsNodeAllocatableResourceName(name)) Add(errs, Invalid(kp, Q(name), "must be a node allocatable resource name"));
    if (!res.mapping && !res.overhead) Add(errs, Required(kp, "at least one of mapping or overhead must be set"));
    if (res.mapping) {
      const auto& m = *res.mapping;
      const std::string mp = Child(kp, "mapping");
      if (m.capacity_key) {
        if (m.capacity_key->empty()) {
          Add(errs, Invalid(Child(mp, "capacityKey"), Q(""), "capacityKey must not be an empty string"));
        } else if (!capacity.Contains(*m.capacity_key)) {
          Add(errs, NotFound(Child(mp, "capacityKey"), Q(*m.capacity_key)));
        }
        if (!m.capacity_multiplier) {
          Add(errs, Required(Child(mp, "capacityMultiplier"), "capacityMultiplier is required when capacityKey is set")
                        .Origin("dependentRequired")
                        .Covered());
        } else if (m.capacity_multiplier->Sign() <= 0) {
          Add(errs, Invalid(Child(mp, "capacityMultiplier"), Q(m.capacity_multiplier->Canonical()), "must be positive"));
        }
      }
      if (m.device_multiplier && m.device_multiplier->Sign() <= 0) {
        Add(errs, Invalid(Child(mp, "deviceMultiplier"), Q(m.device_multiplier->Canonical()), "must be positive"));
      }
      if (m.capacity_multiplier && !m.capacity_key) {
        Add(errs, Required(Child(mp, "capacityKey"), "capacityKey is required when capacityMultiplier is set")
                      .Origin("dependentRequired")
                      .Covered());
      }
    }
    if (res.overhead) {
      const auto& o = *res.overhead;
      const std::string op = Child(kp, "overhead");
      if (!o.per_pod && !o.per_container) {
        Add(errs, Invalid(op, Q(""), "at least one of perPod or perContainer must be set"));
      } else {
        if (o.per_pod && o.per_pod->Sign() < 0) {
          Add(errs, Invalid(Child(op, "perPod"), Q(o.per_pod->Canonical()), "must be non-negative"));
        }
        if (o.per_container && o.per_container->Sign() < 0) {
          Add(errs, Invalid(Child(op, "perContainer"), Q(o.per_container->Canonical()), "must be non-negative"));
        }
      }
    }
  }
  return errs;
}

Errs ValidateDevice(const Device& d, const std::string& path, bool per_device_node_selection) {
  Errs errs = ValidateDNS1123Label(Str(d.name), Child(path, "name"));
  const size_t total = d.attributes.size() + d.capacity.size();
  if (total > static_cast<size_t>(kResourceSliceMaxAttributesAndCapacitiesPerDevice)) {
    Add(errs, Invalid(path, Num(static_cast<int64_t>(total)),
                      absl::StrCat("the total number of attributes and capacities must not exceed ",
                                   kResourceSliceMaxAttributesAndCapacitiesPerDevice)));
  }
  size_t values = 0;
  for (const auto& [k, a] : d.attributes) {
    const size_t items = a.bools().size() + a.ints().size() + a.strings().size() + a.versions().size();
    values += items == 0 ? 1 : items;
  }
  if (values > static_cast<size_t>(kResourceSliceMaxAttributeValuesPerDevice)) {
    Add(errs, Invalid(path, Num(static_cast<int64_t>(values)),
                      absl::StrCat("the total number of attribute values must not exceed ",
                                   kResourceSliceMaxAttributeValuesPerDevice)));
  }
  const std::string apath = Child(path, "attributes");
  for (const auto& [k, a] : d.attributes) {
    Add(errs, ValidateQualifiedName(k, apath));
    Add(errs, ValidateDeviceAttribute(a, Key(apath, TruncateKey(k, kAttributeAndCapacityMaxKeyLength))));
  }
  const std::string cpath = Child(path, "capacity");
  const bool multi = d.allow_multiple_allocations.value_or(false);
  for (const auto& [k, c] : d.capacity) {
    Add(errs, ValidateQualifiedName(k, cpath));
    if (c.request_policy) {
      const std::string kp = Key(cpath, TruncateKey(k, kAttributeAndCapacityMaxKeyLength));
      if (multi) {
        Add(errs, ValidateRequestPolicy(c.value.value_or(Quantity()), *c.request_policy, Child(kp, "requestPolicy")));
      } else {
        Add(errs, Forbidden(Child(kp, "requestPolicy"), "allowMultipleAllocations must be true"));
      }
    }
  }
  Add(errs, ValidateSlice(d.taints.vector(), kDeviceTaintsMaxLength, Child(path, "taints"), ValidateDeviceTaint));
  Add(errs, ValidateSet(
                d.consumes_counters.vector(), kResourceSliceMaxDeviceCounterConsumptionsPerDevice, Child(path, "consumesCounters"),
                [](const DeviceCounterConsumption& c, const std::string& p) {
                  Errs e = ValidateCounterSetName(Str(c.counter_set), Child(p, "counterSet"));
                  Add(e, ValidateCounterMap(c.counters, Child(p, "counters")));
                  return e;
                },
                [](const DeviceCounterConsumption& c) { return Str(c.counter_set); },
                [](const std::string& s) { return Q(s); }, {.size_covered = true, .uniqueness_covered = true}));
  if (per_device_node_selection) {
    std::vector<std::string> set;
    if (d.node_name) {
      if (!d.node_name->empty()) {
        set.push_back("`nodeName`");
        Add(errs, ValidateNodeNameField(*d.node_name, Child(path, "nodeName")));
      } else {
        Add(errs, Invalid(Child(path, "nodeName"), Q(""), "must not be empty"));
      }
    }
    if (d.node_selector) {
      set.push_back("`nodeSelector`");
      Add(errs, ValidateNodeSelectorErrs(*d.node_selector, Child(path, "nodeSelector")));
    }
    if (d.all_nodes) {
      if (*d.all_nodes) {
        set.push_back("`allNodes`");
      } else {
        Add(errs, Invalid(Child(path, "allNodes"), Bool(false), "must be either unset or set to true"));
      }
    }
    constexpr std::string_view kMsg =
        "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to "
        "true in the ResourceSlice spec";
    if (set.empty()) {
      Add(errs, Required(path, std::string(kMsg)));
    } else if (set.size() > 1) {
      Add(errs, Invalid(path, Q(absl::StrCat("{", absl::StrJoin(set, ", "), "}")), std::string(kMsg)));
    }
  } else if (d.node_name || d.node_selector || d.all_nodes) {
    Add(errs, Invalid(path, kNull,
                      "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to "
                      "true in the ResourceSlice spec"));
  }
  Add(errs, ValidateDeviceBindingParameters(d.binding_conditions, d.binding_failure_conditions, path));
  Add(errs, ValidateNodeAllocatableResources(d.node_allocatable_resources, d.capacity, Child(path, "nodeAllocatableResources")));
  return errs;
}

bool HaveConsumesCounters(const ResourceSliceSpec& spec) {
  return std::any_of(spec.devices.begin(), spec.devices.end(), [](const Device& d) { return !d.consumes_counters.empty(); });
}

Errs ValidatePartitionTypeAttribute(const ResourceSliceSpec& spec) {
  Errs errs;
  const std::string& name = *spec.partition_type_attribute;
  if (!HaveConsumesCounters(spec)) {
    Add(errs, Invalid("spec.partitionTypeAttribute", Q(name), "may only be set on a slice which declares devices that consume counters"));
    return errs;
  }
  if (!ValidateFullyQualifiedName(name, "").empty()) return errs;
  const std::string prefix = absl::StrCat(Str(spec.driver), "/");
  const std::string bare = name.substr(0, prefix.size()) == prefix ? name.substr(prefix.size()) : name;
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    const Device& d = spec.devices[i];
    if (d.consumes_counters.empty()) continue;
    const std::string ap = Key(Child(Index("spec.devices", i), "attributes"), name);
    const DeviceAttribute* a = d.attributes.Find(name);
    if (a == nullptr && !bare.empty()) a = d.attributes.Find(bare);
    if (a == nullptr) {
      Add(errs, Required(ap, "device consumes counters and `partitionTypeAttribute` names this attribute, so it must be set"));
    } else if (!a->string_value()) {
      Add(errs, Invalid(ap, JsonInternalAttribute(*a), "must be a string value because `partitionTypeAttribute` names this attribute"));
    }
  }
  return errs;
}

Errs ValidateSliceSpecHandwritten(const ResourceSliceSpec& spec) {
  const std::string path = "spec";
  Errs errs = ValidateDriverName(Str(spec.driver), Child(path, "driver"));
  {
    static const ResourcePool kEmptyPool;
    const ResourcePool& pool = spec.pool ? *spec.pool : kEmptyPool;
    const std::string pp = Child(path, "pool");
    Add(errs, ValidatePoolName(Str(pool.name), Child(pp, "name")));
    const int64_t count = pool.resource_slice_count.value_or(0);
    if (count <= 0) Add(errs, Invalid(Child(pp, "resourceSliceCount"), Num(count), "must be greater than zero"));
    const int64_t gen = pool.generation.value_or(0);
    if (gen < 0) Add(errs, Invalid(Child(pp, "generation"), Num(gen), "must be greater than or equal to zero"));
  }
  std::vector<std::string> set;
  if (spec.node_name) {
    if (!spec.node_name->empty()) {
      set.push_back("`nodeName`");
      Add(errs, ValidateNodeNameField(*spec.node_name, Child(path, "nodeName")));
    } else {
      Add(errs, Invalid(Child(path, "nodeName"), Q(""), "must be either unset or set to a non-empty string"));
    }
  }
  if (spec.node_selector) {
    set.push_back("`nodeSelector`");
    Add(errs, ValidateNodeSelectorErrs(*spec.node_selector, Child(path, "nodeSelector")));
    if (spec.node_selector->node_selector_terms.size() != 1) {
      Add(errs, Invalid("spec.nodeSelector.nodeSelectorTerms", JsonInternalTerms(spec.node_selector->node_selector_terms),
                        "must have exactly one node selector term"));
    }
  }
  if (spec.all_nodes) {
    if (*spec.all_nodes) {
      set.push_back("`allNodes`");
    } else {
      Add(errs, Invalid(Child(path, "allNodes"), Bool(false), "must be either unset or set to true"));
    }
  }
  if (spec.per_device_node_selection) {
    if (*spec.per_device_node_selection) {
      set.push_back("`perDeviceNodeSelection`");
    } else {
      Add(errs, Invalid(Child(path, "perDeviceNodeSelection"), Bool(false), "must be either unset or set to true"));
    }
  }
  if (set.empty()) {
    Add(errs, Required(path, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"));
  } else if (set.size() > 1) {
    Add(errs, Invalid(path, Q(absl::StrCat("{", absl::StrJoin(set, ", "), "}")),
                      "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but "
                      "multiple fields are set"));
  }
  if (!spec.shared_counters.empty() && !spec.devices.empty()) {
    Add(errs, Invalid(path, Q(""), "only one of `sharedCounters` or `devices` is allowed"));
  }
  bool advanced = HaveConsumesCounters(spec);
  for (const Device& d : spec.devices) {
    advanced |= !d.taints.empty();
    // haveListAttributes: a list that is present, even empty.
    for (const auto& [k, a] : d.attributes) advanced |= a.has_bools() || a.has_ints() || a.has_strings() || a.has_versions();
  }
  const int max_devices = advanced ? kResourceSliceMaxDevicesWithTaintsOrConsumesCounters : kResourceSliceMaxDevices;
  const bool per_device = spec.per_device_node_selection.value_or(false);
  Add(errs, ValidateSet(
                spec.devices, max_devices, Child(path, "devices"),
                [&](const Device& d, const std::string& p) { return ValidateDevice(d, p, per_device); },
                [](const Device& d) { return Str(d.name); }, [](const std::string& s) { return Q(s); }));
  Add(errs, ValidateSet(
                spec.shared_counters, kResourceSliceMaxSharedCounters, Child(path, "sharedCounters"),
                [](const CounterSet& s, const std::string& p) {
                  Errs e = ValidateCounterSetName(Str(s.name), Child(p, "name"));
                  Add(e, ValidateCounterMap(s.counters, Child(p, "counters")));
                  return e;
                },
                [](const CounterSet& s) { return Str(s.name); }, [](const std::string& s) { return Q(s); },
                {.size_covered = true, .uniqueness_covered = true}));
  if (spec.partition_type_attribute) Add(errs, ValidatePartitionTypeAttribute(spec));
  Add(errs, ValidateSkipNodeOperations(spec.skip_node_operations, Child(path, "skipNodeOperations")));
  return errs;
}

Errs DvCounterMapKeys(const Map<Counter>& counters, const std::string& path) {
  Errs errs;
  if (counters.empty()) {
    Add(errs, Required(path).Beta());
    return errs;
  }
  for (const auto& [k, c] : counters) Add(errs, DvShortName(k, path));
  return MarkBeta(errs);
}

Errs DvCounterSetName(const std::string& name, const std::string& path) {
  Errs errs;
  if (name.empty()) {
    Add(errs, Required(path).Beta());
    return errs;
  }
  errs = DvShortName(name, path);
  return MarkBeta(errs);
}

// DeviceCounterConsumption.compatibilityGroups: +k8s:maxItems=2 (short-circuits), each a short
// name, +k8s:unique=set. Standard (enforced) declarative rules without a hand-written twin.
Errs DvCompatibilityGroups(const std::vector<std::string>& groups, const std::string& path) {
  Errs errs;
  if (groups.size() > static_cast<size_t>(kDeviceCompatibilityGroupsMaxSize)) {
    return MaxItems(groups.size(), kDeviceCompatibilityGroupsMaxSize, path);
  }
  for (size_t i = 0; i < groups.size(); ++i) Add(errs, DvShortName(groups[i], Index(path, i)));
  Add(errs, StringsUnique(groups, path));
  return MarkBeta(errs);
}

Errs DvSliceSpec(const ResourceSliceSpec& spec) {
  Errs errs;
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    const Device& d = spec.devices[i];
    const std::string p = Index("spec.devices", i);
    for (const auto& [k, a] : d.attributes) Add(errs, DvDeviceAttribute(a, Key(Child(p, "attributes"), k)));
    const std::string cc = Child(p, "consumesCounters");
    if (d.consumes_counters.size() > static_cast<size_t>(kResourceSliceMaxDeviceCounterConsumptionsPerDevice)) {
      Add(errs, MaxItems(d.consumes_counters.size(), kResourceSliceMaxDeviceCounterConsumptionsPerDevice, cc));
    } else {
      Errs u = DvUnique(
          d.consumes_counters.vector(), cc,
          [](const DeviceCounterConsumption& a, const DeviceCounterConsumption& b) { return Str(a.counter_set) == Str(b.counter_set); },
          JsonCounterConsumption);
      Add(errs, std::move(MarkBeta(u)));
      for (size_t j = 0; j < d.consumes_counters.size(); ++j) {
        const std::string cp = Index(cc, j);
        Add(errs, DvCounterSetName(Str(d.consumes_counters[j].counter_set), Child(cp, "counterSet")));
        Add(errs, DvCounterMapKeys(d.consumes_counters[j].counters, Child(cp, "counters")));
        Add(errs, DvCompatibilityGroups(d.consumes_counters[j].compatibility_groups, Child(cp, "compatibilityGroups")));
      }
    }
    for (size_t j = 0; j < d.taints.size(); ++j) {
      const std::string ep = Child(Index(Child(p, "taints"), j), "effect");
      const std::string effect = Str(d.taints[j].effect);
      if (effect.empty()) {
        Add(errs, Required(ep).Beta());
      } else {
        Errs e = DvEnum(effect, kTaintEffects, ep);
        Add(errs, std::move(MarkBeta(e)));
      }
    }
    Add(errs, MaxItems(d.binding_conditions.size(), kBindingConditionsMaxSize, Child(p, "bindingConditions")));
    Add(errs, MaxItems(d.binding_failure_conditions.size(), kBindingFailureConditionsMaxSize, Child(p, "bindingFailureConditions")));
    for (const auto& [name, res] : d.node_allocatable_resources) {
      if (!res.mapping) continue;
      const std::string mp = Child(Key(Child(p, "nodeAllocatableResources"), name), "mapping");
      const bool key = res.mapping->capacity_key.has_value();
      const bool mult = res.mapping->device_multiplier.has_value();
      if (key && mult) {
        Add(errs, Invalid(mp, Q("{capacityKey, deviceMultiplier}"), "must specify exactly one of: `capacityKey`, `deviceMultiplier`")
                      .Origin("union"));
      } else if (!key && !mult) {
        Add(errs, Invalid(mp, Q(""), "must specify one of: `capacityKey`, `deviceMultiplier`").Origin("union"));
      }
    }
  }
  const std::string sc = "spec.sharedCounters";
  if (spec.shared_counters.size() > static_cast<size_t>(kResourceSliceMaxSharedCounters)) {
    Add(errs, MaxItems(spec.shared_counters.size(), kResourceSliceMaxSharedCounters, sc));
  } else {
    Errs u = DvUnique(
        spec.shared_counters, sc, [](const CounterSet& a, const CounterSet& b) { return Str(a.name) == Str(b.name); },
        JsonCounterSet);
    Add(errs, std::move(MarkBeta(u)));
    for (size_t i = 0; i < spec.shared_counters.size(); ++i) {
      const std::string p = Index(sc, i);
      Add(errs, DvCounterSetName(Str(spec.shared_counters[i].name), Child(p, "name")));
      Add(errs, DvCounterMapKeys(spec.shared_counters[i].counters, Child(p, "counters")));
    }
  }
  if (spec.partition_type_attribute) {
    Add(errs, DvResourceFullyQualifiedName(*spec.partition_type_attribute, "spec.partitionTypeAttribute"));
  }
  Add(errs, DvSkipNodeOperations(spec.skip_node_operations, "spec.skipNodeOperations"));
  return errs;
}

// ---- DeviceClass --------------------------------------------------------------------------------------

Errs ValidateDeviceClassSpecHandwritten(const DeviceClassSpec& spec) {
  Errs errs = ValidateSlice(spec.selectors, kDeviceSelectorsMaxSize, "spec.selectors", ValidateSelector, {.size_covered = true});
  Add(errs, ValidateSlice(
                spec.config, kDeviceConfigMaxSize, "spec.config",
                [](const DeviceClassConfiguration& c, const std::string& p) { return ValidateDeviceConfiguration(c.opaque, p); },
                {.size_covered = true}));
  if (spec.extended_resource_name && !IsExtendedResourceName(*spec.extended_resource_name)) {
    Add(errs, Invalid("spec.extendedResourceName", Q(*spec.extended_resource_name), "must be a valid extended resource name")
                  .Origin(kOriginExtendedResourceName)
                  .Covered());
  }
  return errs;
}

Errs DvDeviceClassSpec(const DeviceClassSpec& spec) {
  Errs errs = MaxItems(spec.selectors.size(), kDeviceSelectorsMaxSize, "spec.selectors");
  if (spec.config.size() > static_cast<size_t>(kDeviceConfigMaxSize)) {
    Add(errs, MaxItems(spec.config.size(), kDeviceConfigMaxSize, "spec.config"));
  } else {
    for (size_t i = 0; i < spec.config.size(); ++i) Add(errs, DvOpaque(spec.config[i].opaque, Index("spec.config", i)));
  }
  if (spec.extended_resource_name) {
    Errs e = InvalidEach("spec.extendedResourceName", *spec.extended_resource_name,
                         ExtendedResourceNameErrors(*spec.extended_resource_name), kOriginExtendedResourceName);
    Add(errs, std::move(MarkBeta(e)));
  }
  return errs;
}

// ---- DeviceTaintRule ------------------------------------------------------------------------------------

Errs ValidateDeviceTaintRuleHandwritten(const DeviceTaintRule& rule) {
  Errs errs = ValidateObjectMeta(rule.metadata, {});
  static const DeviceTaintRuleSpec kEmptySpec;
  const DeviceTaintRuleSpec& spec = rule.spec ? *rule.spec : kEmptySpec;
  if (spec.device_selector) {
    const DeviceTaintSelector& s = *spec.device_selector;
    if (s.driver) Add(errs, ValidateDriverName(*s.driver, "spec.deviceSelector.driver"));
    if (s.pool) Add(errs, ValidatePoolName(*s.pool, "spec.deviceSelector.pool"));
    if (s.device) Add(errs, ValidateDNS1123Label(*s.device, "spec.deviceSelector.device"));
  }
  static const DeviceTaint kEmptyTaint;
  Add(errs, ValidateDeviceTaint(spec.taint ? *spec.taint : kEmptyTaint, "spec.taint"));
  if (rule.status) {
    // Status is validated on status updates (the API server drops it on create).
    Add(errs, ValidateConditions(rule.status->conditions, "status.conditions"));
    if (rule.status->conditions.size() > static_cast<size_t>(kDeviceTaintRuleStatusMaxConditions)) {
      Add(errs, TooMany("status.conditions", rule.status->conditions.size(), kDeviceTaintRuleStatusMaxConditions));
    }
  }
  return errs;
}

Errs DvDeviceTaintRule(const DeviceTaintRule& rule) {
  Errs errs;
  const std::string effect = rule.spec && rule.spec->taint ? Str(rule.spec->taint->effect) : std::string();
  if (effect.empty()) {
    Add(errs, Required("spec.taint.effect").Beta());
  } else {
    Errs e = DvEnum(effect, kTaintEffects, "spec.taint.effect");
    Add(errs, std::move(MarkBeta(e)));
  }
  return errs;
}

}  // namespace

// ---- Public entry points ----------------------------------------------------------------------------------

std::vector<FieldError> ValidateNodeSelector(const NodeSelector& selector, std::string_view path) {
  return Merge(ValidateNodeSelectorErrs(selector, std::string(path)), {});
}

std::vector<FieldError> ValidateDeviceClass(const DeviceClass& device_class) {
  Errs hw = ValidateObjectMeta(device_class.metadata, {.device_class = true});
  static const DeviceClassSpec kEmpty;
  const DeviceClassSpec& spec = device_class.spec ? *device_class.spec : kEmpty;
  Add(hw, ValidateDeviceClassSpecHandwritten(spec));
  Errs dv;
  const std::string name = Str(device_class.metadata.name);
  if (!name.empty()) {
    Errs e = DvLongName(name, "metadata.name");
    Add(dv, std::move(MarkBeta(e)));
  }
  Add(dv, DvDeviceClassSpec(spec));
  return Merge(std::move(hw), std::move(dv));
}

namespace {

constexpr char kAdminAccessMsg[] =
    "admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace";

bool IsAdminNamespace(const Map<std::string>& labels) {
  const std::string* v = labels.Find("resource.kubernetes.io/admin-access");
  return v != nullptr && *v == "true";
}

// resourceutils.AuthorizedForAdmin: the first request with adminAccess: true, reported at
// spec.devices.requests[i].adminAccess (also for templates, whose requests live under spec.spec).
Errs AdminAccessErrors(const DeviceClaim& devices, const Map<std::string>& namespace_labels) {
  Errs errs;
  for (size_t i = 0; i < devices.requests.size(); ++i) {
    const auto& exactly = devices.requests[i].exactly;
    if (exactly && exactly->admin_access.value_or(false)) {
      if (!IsAdminNamespace(namespace_labels)) {
        Add(errs, Forbidden(Child(Index("spec.devices.requests", i), "adminAccess"), kAdminAccessMsg));
      }
      break;
    }
  }
  return errs;
}

// resourceutils.AuthorizedForAdminStatus for a claim that had no allocation before.
Errs AdminAccessStatusErrors(const std::vector<DeviceRequestAllocationResult>& results,
                             const Map<std::string>& namespace_labels) {
  Errs errs;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].admin_access.value_or(false)) {
      if (!IsAdminNamespace(namespace_labels)) {
        Add(errs, Forbidden(Child(Index("status.allocation.devices.results", i), "adminAccess"), kAdminAccessMsg));
      }
      break;
    }
  }
  return errs;
}

Errs ClaimSpecHandwritten(const std::optional<ResourceClaimSpec>& spec, const std::string& path) {
  static const DeviceClaim kEmpty;
  const DeviceClaim& devices = spec && spec->devices ? *spec->devices : kEmpty;
  return ValidateDeviceClaimHandwritten(devices, Child(path, "devices"));
}

Errs ClaimSpecDeclarative(const std::optional<ResourceClaimSpec>& spec, const std::string& path) {
  static const DeviceClaim kEmpty;
  const DeviceClaim& devices = spec && spec->devices ? *spec->devices : kEmpty;
  return DvDeviceClaim(devices, Child(path, "devices"));
}

}  // namespace

std::vector<FieldError> ValidateResourceClaim(const ResourceClaim& claim, const ValidationOptions& options) {
  Errs hw;
  if (options.namespace_labels) {
    static const DeviceClaim kEmpty;
    const DeviceClaim& devices = claim.spec && claim.spec->devices ? *claim.spec->devices : kEmpty;
    Add(hw, AdminAccessErrors(devices, *options.namespace_labels));
    if (claim.status && claim.status->allocation && claim.status->allocation->devices) {
      Add(hw, AdminAccessStatusErrors(claim.status->allocation->devices->results, *options.namespace_labels));
    }
  }
  Add(hw, ValidateObjectMeta(claim.metadata, {.namespaced = true, .generation_reset = false}));
  Add(hw, ClaimSpecHandwritten(claim.spec, "spec"));
  Errs dv = ClaimSpecDeclarative(claim.spec, "spec");
  if (claim.status) {
    static const DeviceClaim kEmpty;
    const DeviceClaim& devices = claim.spec && claim.spec->devices ? *claim.spec->devices : kEmpty;
    Add(hw, ValidateClaimStatusHandwritten(*claim.status, GatherRequestNames(devices)));
    Add(dv, DvClaimStatus(*claim.status));
  }
  return Merge(std::move(hw), std::move(dv));
}

std::vector<FieldError> ValidateResourceClaimTemplate(const ResourceClaimTemplate& claim_template,
                                                      const ValidationOptions& options) {
  Errs hw;
  if (options.namespace_labels && claim_template.spec && claim_template.spec->spec &&
      claim_template.spec->spec->devices) {
    Add(hw, AdminAccessErrors(*claim_template.spec->spec->devices, *options.namespace_labels));
  }
  Add(hw, ValidateObjectMeta(claim_template.metadata, {.namespaced = true, .generation_reset = false}));
  std::optional<ResourceClaimSpec> spec;
  if (claim_template.spec) {
    if (claim_template.spec->metadata) {
      const ObjectMeta& m = *claim_template.spec->metadata;
      for (const auto& [k, v] : m.annotations) {
        Add(hw, InvalidEach("spec.metadata.annotations", k, IsQualifiedName(absl::AsciiStrToLower(AV(k))), kOriginLabelKey));
      }
      size_t bytes = 0;
      for (const auto& [k, v] : m.annotations) bytes += k.size() + v.size();
      if (bytes > 256 * 1024) Add(hw, TooLong("spec.metadata.annotations", 256 * 1024));
      for (const auto& [k, v] : m.labels) {
        Add(hw, ValidateLabelName(k, "spec.metadata.labels"));
        Add(hw, InvalidEach("spec.metadata.labels", v, IsValidLabelValue(v), kOriginLabelValue));
      }
      // Every other ObjectMeta field "cannot be set" (validateFieldAllowList, in Go field order).
      auto forbid = [&](bool set, std::string_view name) {
        if (set) Add(hw, Forbidden(Child("spec.metadata", name), "cannot be set"));
      };
      forbid(m.name.has_value() && !m.name->empty(), "name");
      forbid(m.generate_name.has_value() && !m.generate_name->empty(), "generateName");
      forbid(m.namespace_.has_value() && !m.namespace_->empty(), "namespace");
      forbid(m.self_link.has_value() && !m.self_link->empty(), "selfLink");
      forbid(m.uid.has_value() && !m.uid->empty(), "uID");
      forbid(m.resource_version.has_value() && !m.resource_version->empty(), "resourceVersion");
      forbid(m.generation.value_or(0) != 0, "generation");
      forbid(m.creation_timestamp.has_value(), "creationTimestamp");
      forbid(m.deletion_timestamp.has_value(), "deletionTimestamp");
      forbid(m.deletion_grace_period_seconds.has_value(), "deletionGracePeriodSeconds");
      forbid(!m.owner_references.empty(), "ownerReferences");
      forbid(!m.finalizers.empty(), "finalizers");
      forbid(!m.managed_fields.empty(), "managedFields");
    }
    spec = claim_template.spec->spec;
  }
  Add(hw, ClaimSpecHandwritten(spec, "spec.spec"));
  Errs dv = ClaimSpecDeclarative(spec, "spec.spec");
  return Merge(std::move(hw), std::move(dv));
}

std::vector<FieldError> ValidateResourceSlice(const ResourceSlice& slice) {
  Errs hw = ValidateObjectMeta(slice.metadata, {});
  static const ResourceSliceSpec kEmpty;
  const ResourceSliceSpec& spec = slice.spec ? *slice.spec : kEmpty;
  Add(hw, ValidateSliceSpecHandwritten(spec));
  return Merge(std::move(hw), DvSliceSpec(spec));
}

std::vector<FieldError> ValidateDeviceTaintRule(const DeviceTaintRule& rule) {
  return Merge(ValidateDeviceTaintRuleHandwritten(rule), DvDeviceTaintRule(rule));
}

std::vector<FieldError> Validate(const Object& object, const ValidationOptions& options) {
  switch (object.kind()) {
    case Kind::kDeviceClass:
      return ValidateDeviceClass(std::get<DeviceClass>(object.value));
    case Kind::kResourceClaim:
      return ValidateResourceClaim(std::get<ResourceClaim>(object.value), options);
    case Kind::kResourceClaimTemplate:
      return ValidateResourceClaimTemplate(std::get<ResourceClaimTemplate>(object.value), options);
    case Kind::kResourceSlice:
      return ValidateResourceSlice(std::get<ResourceSlice>(object.value));
    case Kind::kDeviceTaintRule:
      return ValidateDeviceTaintRule(std::get<DeviceTaintRule>(object.value));
    default:
      return {};
  }
}

std::string FormatInvalid(std::string_view kind, std::string_view group, std::string_view name,
                          const std::vector<FieldError>& errors) {
  if (errors.empty()) return "";
  // field.ErrorList.ToAggregate drops repeated messages; a single message has no brackets.
  std::vector<std::string> messages;
  for (const auto& e : errors) {
    std::string m = e.ToString();
    if (std::find(messages.begin(), messages.end(), m) == messages.end()) messages.push_back(std::move(m));
  }
  const std::string qualified_kind = group.empty() ? std::string(kind) : absl::StrCat(AV(kind), ".", AV(group));
  std::string list = messages.size() == 1 ? messages[0] : absl::StrCat("[", absl::StrJoin(messages, ", "), "]");
  return absl::StrCat(qualified_kind, " ", GoQuote(name), " is invalid: ", list);
}

std::string FormatInvalid(const Object& object, const std::vector<FieldError>& errors) {
  std::string_view group = kGroup;
  if (object.kind() == Kind::kPod || object.kind() == Kind::kNode) {
    group = "";
  } else if (object.kind() == Kind::kOther) {
    // "apps/v1" -> "apps"; "v1" (the core group) -> "".
    const std::string_view api_version = object.api_version;
    const size_t slash = api_version.find('/');
    group = slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  }
  return FormatInvalid(object.kind_name(), group, Str(object.metadata().name), errors);
}

}  // namespace draforge::api
