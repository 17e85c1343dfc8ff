#include "api/codec.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/internal/conversion.h"
#include "api/internal/json_decode.h"
#include "api/internal/json_encode.h"
#include "api/internal/json_fast_decode.h"
#include "api/json_parse.h"
#include "api/yaml.h"
#include "common/status.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::api {
namespace internal {

std::string_view JsonTypeName(const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType: return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType: return "boolean";
    case rapidjson::kObjectType: return "object";
    case rapidjson::kArrayType: return "array";
    case rapidjson::kStringType: return "string";
    case rapidjson::kNumberType: return v.IsInt64() || v.IsUint64() ? "integer" : "number";
  }
  return "value";
}

std::string RawText(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

absl::Status CheckDuplicateKeys(const rapidjson::Value& v, std::string& path) {
  if (v.IsObject()) {
    const rapidjson::SizeType n = v.MemberCount();
    if (n <= 16) {
      // Small objects, the common case: compare pairs, no allocation.
      for (auto a = v.MemberBegin(); a != v.MemberEnd(); ++a) {
        for (auto b = v.MemberBegin(); b != a; ++b) {
          if (a->name == b->name) {
            return absl::InvalidArgumentError(absl::StrCat("duplicate key \"", AV(ToSV(a->name)), "\"",
                                                           path.empty() ? "" : " in ", path));
          }
        }
      }
    } else {
      absl::flat_hash_set<absl::string_view> seen;
      seen.reserve(n);
      for (const auto& m : v.GetObject()) {
        absl::string_view key(m.name.GetString(), m.name.GetStringLength());
        if (!seen.insert(key).second) {
          return absl::InvalidArgumentError(
              absl::StrCat("duplicate key \"", key, "\"", path.empty() ? "" : " in ", path));
        }
      }
    }
    for (const auto& m : v.GetObject()) {
      if (!m.value.IsObject() && !m.value.IsArray()) continue;
      const size_t len = path.size();
      absl::StrAppend(&path, path.empty() ? "" : ".", AV(ToSV(m.name)));
      RETURN_IF_ERROR(CheckDuplicateKeys(m.value, path));
      path.resize(len);
    }
  } else if (v.IsArray()) {
    int i = 0;
    for (const auto& item : v.GetArray()) {
      if (item.IsObject() || item.IsArray()) {
        const size_t len = path.size();
        absl::StrAppend(&path, "[", i, "]");
        RETURN_IF_ERROR(CheckDuplicateKeys(item, path));
        path.resize(len);
      }
      ++i;
    }
  }
  return absl::OkStatus();
}

}  // namespace internal

namespace {

using internal::DecodeContext;
using internal::ToSV;

constexpr std::string_view kGroupPrefix = "resource.k8s.io/";

struct GroupVersion {
  std::string_view group;  // "" for core
  std::string_view version;
};

GroupVersion SplitApiVersion(std::string_view api_version) {
  size_t slash = api_version.rfind('/');
  if (slash == std::string_view::npos) return {"", api_version};
  return {api_version.substr(0, slash), api_version.substr(slash + 1)};
}

std::optional<Kind> ResourceKind(std::string_view kind) {
  for (Kind k : {Kind::kDeviceClass, Kind::kResourceClaim, Kind::kResourceClaimTemplate, Kind::kResourceSlice,
                 Kind::kDeviceTaintRule, Kind::kResourcePoolStatusRequest}) {
    if (KindName(k) == kind) return k;
  }
  return std::nullopt;
}

// The label for messages: `ResourceSlice "gpu-node-1"`, `ResourceClaim "team-a/train"`.
std::string Describe(std::string_view kind, const rapidjson::Value& object) {
  std::string name, ns;
  if (object.IsObject()) {
    auto meta = object.FindMember("metadata");
    if (meta != object.MemberEnd() && meta->value.IsObject()) {
      auto n = meta->value.FindMember("name");
      if (n != meta->value.MemberEnd() && n->value.IsString()) name = std::string(ToSV(n->value));
      auto s = meta->value.FindMember("namespace");
      if (s != meta->value.MemberEnd() && s->value.IsString()) ns = std::string(ToSV(s->value));
      if (name.empty()) {
        auto g = meta->value.FindMember("generateName");
        if (g != meta->value.MemberEnd() && g->value.IsString()) name = absl::StrCat(AV(ToSV(g->value)), "*");
      }
    }
  }
  std::string who = ns.empty() ? name : absl::StrCat(ns, "/", name);
  if (who.empty()) return std::string(kind.empty() ? "object" : kind);
  return absl::StrCat(kind.empty() ? "object" : AV(kind), " \"", who, "\"");
}

template <typename T>
absl::Status DecodeTyped(const rapidjson::Value& v, const DecodeOptions& options, std::vector<std::string>* warnings,
                         T& out) {
  DecodeContext ctx(options.strict, warnings);
  return internal::DecodeStruct<T, /*kTopLevel=*/true>(ctx, v, out);
}

absl::Status UnsupportedVersion(std::string_view kind, std::string_view api_version,
                                const std::vector<std::string_view>& supported) {
  std::vector<std::string> full;
  for (auto v : supported) full.push_back(absl::StrCat(AV(kGroupPrefix), AV(v)));
  std::string why;
  if (api_version == "resource.k8s.io/v1alpha2") {
    why = " (classic DRA, removed in Kubernetes 1.31)";
  } else if (api_version == "resource.k8s.io/v1alpha3") {
    why = " (no longer served for this kind)";
  }
  return absl::FailedPreconditionError(absl::StrCat("unsupported apiVersion \"", AV(api_version), "\" for kind ", AV(kind),
                                                    why, "; supported: ", absl::StrJoin(full, ", ")));
}

absl::StatusOr<Object> DecodeObjectImpl(const rapidjson::Value& value, const DecodeOptions& options,
                                        std::vector<std::string>* warnings) {
  if (!value.IsObject()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a Kubernetes object, got ", AV(internal::JsonTypeName(value))));
  }
  auto api_version_it = value.FindMember("apiVersion");
  auto kind_it = value.FindMember("kind");
  std::string kind_str = kind_it != value.MemberEnd() && kind_it->value.IsString() ? std::string(ToSV(kind_it->value)) : "";
  const std::string who = Describe(kind_str, value);
  if (kind_it == value.MemberEnd() || !kind_it->value.IsString() || kind_str.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": kind: required field is not set"));
  }
  if (api_version_it == value.MemberEnd() || !api_version_it->value.IsString() ||
      api_version_it->value.GetStringLength() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": apiVersion: required field is not set"));
  }
  Object out;
  out.api_version = std::string(ToSV(api_version_it->value));
  const GroupVersion gv = SplitApiVersion(out.api_version);
  absl::Status status;

  if (gv.group == "resource.k8s.io") {
    std::optional<Kind> kind = ResourceKind(kind_str);
    if (!kind.has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat(who, ": unknown kind \"", kind_str, "\" in API group resource.k8s.io"));
    }
    const auto supported = SupportedVersions(*kind);
    if (std::find(supported.begin(), supported.end(), gv.version) == supported.end()) {
      return absl::Status(UnsupportedVersion(kind_str, out.api_version, supported).code(),
                          absl::StrCat(who, ": ", UnsupportedVersion(kind_str, out.api_version, supported).message()));
    }
    const rapidjson::Value* src = &value;
    rapidjson::Document converted;
    if (gv.version == "v1beta1") {
      converted.CopyFrom(value, converted.GetAllocator());
      internal::ConvertV1beta1ToV1(*kind, converted, converted.GetAllocator());
      src = &converted;
    }
    switch (*kind) {
      case Kind::kDeviceClass: status = DecodeTyped(*src, options, warnings, out.value.emplace<DeviceClass>()); break;
      case Kind::kResourceClaim: status = DecodeTyped(*src, options, warnings, out.value.emplace<ResourceClaim>()); break;
      case Kind::kResourceClaimTemplate:
        status = DecodeTyped(*src, options, warnings, out.value.emplace<ResourceClaimTemplate>());
        break;
      case Kind::kResourceSlice: status = DecodeTyped(*src, options, warnings, out.value.emplace<ResourceSlice>()); break;
      case Kind::kDeviceTaintRule:
        status = DecodeTyped(*src, options, warnings, out.value.emplace<DeviceTaintRule>());
        break;
      case Kind::kResourcePoolStatusRequest:
        status = DecodeTyped(*src, options, warnings, out.value.emplace<ResourcePoolStatusRequest>());
        break;
      default: break;
    }
  } else if (gv.group.empty() && gv.version == "v1" && kind_str == "Pod") {
    status = DecodeTyped(value, options, warnings, out.value.emplace<Pod>());
  } else if (gv.group.empty() && gv.version == "v1" && kind_str == "Node") {
    status = DecodeTyped(value, options, warnings, out.value.emplace<Node>());
  } else {
    OtherObject& other = out.value.emplace<OtherObject>();
    other.api_version = out.api_version;
    other.kind = kind_str;
    std::string path;
    if (absl::Status dup = internal::CheckDuplicateKeys(value, path); !dup.ok()) {
      return absl::Status(dup.code(), absl::StrCat(who, ": ", dup.message()));
    }
    other.raw.json = internal::RawText(value);
    auto meta = value.FindMember("metadata");
    if (meta != value.MemberEnd() && meta->value.IsObject()) {
      // Metadata of foreign kinds is read leniently: it only names the object.
      DecodeContext ctx(false, nullptr);
      status = internal::Decode(ctx, meta->value, other.metadata);
      if (!status.ok()) status = absl::InvalidArgumentError(absl::StrCat("metadata.", status.message()));
    }
  }
  if (!status.ok()) return absl::Status(status.code(), absl::StrCat(who, ": ", status.message()));
  if (warnings != nullptr) {
    for (auto& w : *warnings) {
      if (w.rfind(who, 0) != 0) w = absl::StrCat(who, ": ", w);
    }
  }
  return out;
}

bool IsList(const rapidjson::Value& v) {
  if (!v.IsObject()) return false;
  auto kind = v.FindMember("kind");
  auto items = v.FindMember("items");
  if (kind == v.MemberEnd() || !kind->value.IsString() || items == v.MemberEnd()) return false;
  std::string_view k = ToSV(kind->value);
  return k.size() >= 4 && k.substr(k.size() - 4) == "List";
}

void AppendDecoded(const rapidjson::Value& v, int line, const DecodeOptions& options,
                   std::vector<DecodedObject>& out) {
  if (IsList(v)) {
    const auto& items = v.FindMember("items")->value;
    if (!items.IsArray()) {
      DecodedObject d;
      d.index = static_cast<int>(out.size());
      d.line = line;
      d.object = absl::InvalidArgumentError(absl::StrCat(Describe(ToSV(v["kind"]), v), ": items: expected array, got ",
                                                         AV(internal::JsonTypeName(items))));
      out.push_back(std::move(d));
      return;
    }
    for (const auto& item : items.GetArray()) AppendDecoded(item, line, options, out);
    return;
  }
  DecodedObject d;
  d.index = static_cast<int>(out.size());
  d.line = line;
  if (v.IsObject()) {
    if (auto it = v.FindMember("apiVersion"); it != v.MemberEnd() && it->value.IsString()) {
      d.api_version = std::string(ToSV(it->value));
    }
    if (auto it = v.FindMember("kind"); it != v.MemberEnd() && it->value.IsString()) d.kind = std::string(ToSV(it->value));
  }
  d.object = DecodeObjectImpl(v, options, &d.warnings);
  out.push_back(std::move(d));
}

std::pair<int, int> LineColumn(std::string_view text, size_t offset) {
  int line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// --- The fast path of DecodeStream for JSON text (see internal/json_fast_decode.h). ---

template <typename T>
bool FastTyped(internal::FastJson& j, Object& object) {
  return internal::FastDecodeMembers<T, /*kTopLevel=*/true>(j, object.value.emplace<T>());
}

// Reads the first two members of an object when they are apiVersion and kind (in either order) with
// string values, as the API server and kubectl write them. Leaves the lexer after them.
bool FastTypeMeta(internal::FastJson& j, std::string& api_version, std::string& kind) {
  if (!j.BeginObject()) return false;
  bool have_version = false, have_kind = false;
  for (int i = 0; i < 2; ++i) {
    std::string_view key, value;
    bool done = false;
    if (!j.NextKey(key, done) || done) return false;
    const bool is_version = key == "apiVersion";
    if (!is_version && key != "kind") return false;
    if (!j.String(value)) return false;
    j.MemberDone();
    bool& have = is_version ? have_version : have_kind;
    if (have) return false;
    have = true;
    (is_version ? api_version : kind).assign(value.data(), value.size());
  }
  return true;
}

bool EndsWithList(std::string_view kind) { return kind.size() >= 4 && kind.substr(kind.size() - 4) == "List"; }

// Decodes one object of the kinds and versions decoded without conversion, or returns false (then
// the object is decoded through the DOM).
bool TryFastObject(internal::FastJson& j, int line, std::vector<DecodedObject>& out) {
  std::string api_version, kind_str;
  if (!FastTypeMeta(j, api_version, kind_str)) return false;
  if (api_version.empty() || kind_str.empty() || EndsWithList(kind_str)) return false;
  Object object;
  object.api_version = api_version;
  const GroupVersion gv = SplitApiVersion(api_version);
  bool ok = false;
  if (gv.group == "resource.k8s.io") {
    const std::optional<Kind> kind = ResourceKind(kind_str);
    if (!kind.has_value() || gv.version == "v1beta1") return false;  // v1beta1 is converted on the DOM
    const auto supported = SupportedVersions(*kind);
    if (std::find(supported.begin(), supported.end(), gv.version) == supported.end()) return false;
    switch (*kind) {
      case Kind::kDeviceClass: ok = FastTyped<DeviceClass>(j, object); break;
      case Kind::kResourceClaim: ok = FastTyped<ResourceClaim>(j, object); break;
      case Kind::kResourceClaimTemplate: ok = FastTyped<ResourceClaimTemplate>(j, object); break;
      case Kind::kResourceSlice: ok = FastTyped<ResourceSlice>(j, object); break;
      case Kind::kDeviceTaintRule: ok = FastTyped<DeviceTaintRule>(j, object); break;
      case Kind::kResourcePoolStatusRequest: ok = FastTyped<ResourcePoolStatusRequest>(j, object); break;
      default: return false;
    }
  } else if (gv.group.empty() && gv.version == "v1" && kind_str == "Pod") {
    ok = FastTyped<Pod>(j, object);
  } else if (gv.group.empty() && gv.version == "v1" && kind_str == "Node") {
    ok = FastTyped<Node>(j, object);
  }
  if (!ok) return false;
  DecodedObject d;
  d.index = static_cast<int>(out.size());
  d.line = line;
  d.api_version = std::move(api_version);
  d.kind = std::move(kind_str);
  d.object = std::move(object);
  out.push_back(std::move(d));
  return true;
}

// Decodes the value at the lexer's position as AppendDecoded does. Returns false only when the text
// is not JSON the fast lexer accepts (then the whole text goes through the DOM).
bool FastAppend(internal::FastJson& j, int line, const DecodeOptions& options, std::vector<DecodedObject>& out) {
  j.Peek();
  const size_t start = j.pos();
  const int depth = j.depth();
  if (TryFastObject(j, line, out)) return true;
  j.set_pos(start, depth);
  if (!j.SkipValue()) return false;
  const std::string_view span = j.text().substr(start, j.pos() - start);
  rapidjson::Document doc;
  if (!ParseJsonInto(doc, span, kMaxJsonDepth - depth).ok()) return false;
  AppendDecoded(doc, line, options, out);
  return true;
}

// DecodeStream's JSON branch without a DOM of the whole text: a top-level array, a List whose
// first members are apiVersion, kind and items, or one object. Returns false when the text must be
// decoded through the DOM instead (`out` is then unspecified).
bool FastDecodeJson(std::string_view text, size_t first, const DecodeOptions& options,
                    std::vector<DecodedObject>& out) {
  internal::FastJson j(text);
  j.set_pos(first, 0);
  const int line = LineColumn(text, first).first;
  if (j.Peek() == '[') {
    if (!j.BeginArray()) return false;
    for (;;) {
      bool done = false;
      if (!j.NextElement(done)) return false;
      if (done) break;
      if (!FastAppend(j, line, options, out)) return false;
      j.MemberDone();
    }
    return j.AtEnd();
  }
  std::string api_version, kind;
  if (FastTypeMeta(j, api_version, kind) && EndsWithList(kind)) {
    std::string_view key;
    bool done = false;
    if (!j.NextKey(key, done) || done || key != "items" || !j.BeginArray()) return false;
    for (;;) {
      if (!j.NextElement(done)) return false;
      if (done) break;
      if (!FastAppend(j, line, options, out)) return false;
      j.MemberDone();
    }
    j.MemberDone();
    // The List's other members (metadata) are not read, as in the DOM path.
    for (;;) {
      if (!j.NextKey(key, done)) return false;
      if (done) break;
      if (!j.SkipValue()) return false;
      j.MemberDone();
    }
    return j.AtEnd();
  }
  j.set_pos(first, 0);
  if (!FastAppend(j, line, options, out)) return false;
  return j.AtEnd();
}

}  // namespace

std::vector<std::string_view> SupportedVersions(Kind kind) {
  switch (kind) {
    case Kind::kDeviceClass:
    case Kind::kResourceClaim:
    case Kind::kResourceClaimTemplate:
    case Kind::kResourceSlice: return {"v1", "v1beta2", "v1beta1"};
    case Kind::kDeviceTaintRule: return {"v1", "v1beta2", "v1alpha3"};
    case Kind::kResourcePoolStatusRequest: return {"v1alpha3"};
    default: return {};
  }
}

absl::StatusOr<Object> DecodeObject(const rapidjson::Value& value, const DecodeOptions& options,
                                    std::vector<std::string>* warnings) {
  if (IsList(value)) return absl::InvalidArgumentError("expected one object, got a List (use DecodeStream)");
  return DecodeObjectImpl(value, options, warnings);
}

absl::StatusOr<rapidjson::Document> ParseJson(std::string_view text, bool check_duplicate_keys) {
  rapidjson::Document doc;
  // kParseStopWhenDoneFlag is not used: trailing content after the value is an error.
  JsonParseResult parsed = ParseJsonInto(doc, text);
  if (!parsed.ok()) {
    auto [line, col] = LineColumn(text, parsed.offset);
    return absl::InvalidArgumentError(absl::StrCat("json: line ", line, ", column ", col, ": ", parsed.Message()));
  }
  if (check_duplicate_keys) {
    std::string path;
    RETURN_IF_ERROR(internal::CheckDuplicateKeys(doc, path));
  }
  return doc;
}

absl::StatusOr<std::vector<DecodedObject>> DecodeStream(std::string_view text, const DecodeOptions& options) {
  if (text.size() > options.max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat("input is ", text.size(), " bytes, more than the limit of ",
                                                     options.max_bytes, " bytes"));
  }
  size_t first = text.find_first_not_of(" \t\r\n");
  std::vector<DecodedObject> out;
  if (first == std::string_view::npos) return out;
  if (text[first] == '{' || text[first] == '[') {
    // Duplicate keys are found while decoding: by the typed decoder in modelled fields, and by
    // CheckDuplicateKeys in the opaque parts, so the whole document is not walked twice.
    if (options.allow_fast_path && FastDecodeJson(text, first, options, out)) return out;
    out.clear();
    ASSIGN_OR_RETURN(rapidjson::Document doc, ParseJson(text, /*check_duplicate_keys=*/false));
    const int line = LineColumn(text, first).first;
    if (doc.IsArray()) {
      for (const auto& item : doc.GetArray()) AppendDecoded(item, line, options, out);
    } else {
      AppendDecoded(doc, line, options, out);
    }
    return out;
  }
  YamlLimits limits;
  limits.max_input_bytes = options.max_bytes;
  ASSIGN_OR_RETURN(std::vector<YamlDocument> docs, ParseYamlStream(text, limits));
  for (const YamlDocument& d : docs) {
    if (d.json.IsNull()) continue;
    AppendDecoded(d.json, d.line, options, out);
  }
  return out;
}

namespace {

template <typename H>
void EncodeTop(H& h, const Object& object, std::string_view api_version) {
  rapidjson::SizeType members = 0;
  h.StartObject();
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, OtherObject>) {
          (void)v;
        } else {
          const std::string_view kind = KindName(object.kind());
          h.Key("kind", 4, false);
          h.String(kind.data(), static_cast<rapidjson::SizeType>(kind.size()), true);
          h.Key("apiVersion", 10, false);
          h.String(api_version.data(), static_cast<rapidjson::SizeType>(api_version.size()), true);
          members = 2 + internal::EncodeFields(h, v);
        }
      },
      object.value);
  h.EndObject(members);
}

}  // namespace

absl::StatusOr<rapidjson::Document> EncodeObject(const Object& object, std::string_view api_version) {
  rapidjson::Document doc;
  if (const auto* other = std::get_if<OtherObject>(&object.value)) {
    if (!api_version.empty() && api_version != other->api_version) {
      return absl::FailedPreconditionError(absl::StrCat("cannot convert ", other->kind, " from ", other->api_version,
                                                        " to ", AV(api_version), ": DRAForge does not model this kind"));
    }
    if (!ParseJsonInto(doc, other->raw.json).ok()) return absl::InternalError("stored raw JSON does not parse");
    return doc;
  }
  std::string target(api_version.empty() ? std::string_view(object.api_version) : api_version);
  const Kind kind = object.kind();
  const auto supported = SupportedVersions(kind);
  GroupVersion gv = SplitApiVersion(target);
  if (!supported.empty()) {
    if (target.empty()) target = absl::StrCat(AV(kGroupPrefix), AV(supported.front()));
    gv = SplitApiVersion(target);
    if (gv.group != "resource.k8s.io" || std::find(supported.begin(), supported.end(), gv.version) == supported.end()) {
      return UnsupportedVersion(KindName(kind), target, supported);
    }
  } else if (target != "v1") {
    return absl::FailedPreconditionError(
        absl::StrCat("unsupported apiVersion \"", target, "\" for kind ", AV(KindName(kind)), "; supported: v1"));
  }
  auto generate = [&](auto& handler) {
    EncodeTop(handler, object, target);
    return true;
  };
  doc.Populate(generate);
  if (gv.version == "v1beta1") internal::ConvertV1ToV1beta1(kind, doc, doc.GetAllocator());
  return doc;
}

std::string WriteJson(const rapidjson::Value& value, bool pretty) {
  rapidjson::StringBuffer buf;
  if (pretty) {
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
    w.SetIndent(' ', 2);
    value.Accept(w);
  } else {
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    value.Accept(w);
  }
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace draforge::api
