// The generic, schema-driven decoder from a RapidJSON DOM into api types. Internal to lib/api.
#ifndef DRAFORGE_API_INTERNAL_JSON_DECODE_H_
#define DRAFORGE_API_INTERNAL_JSON_DECODE_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "api/internal/schema.h"
#include "api/map.h"
#include "api/quantity.h"
#include "api/raw_json.h"
#include "common/status.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::api::internal {

std::string_view JsonTypeName(const rapidjson::Value& v);
std::string RawText(const rapidjson::Value& v);
// An error naming the first duplicated object key in `v` (recursively); `path` is the prefix for the
// message and is restored on return.
absl::Status CheckDuplicateKeys(const rapidjson::Value& v, std::string& path);

// Tracks the field path for messages: "spec.devices[3].attributes[model].int".
class DecodeContext {
 public:
  DecodeContext(bool strict, std::vector<std::string>* warnings) : strict_(strict), warnings_(warnings) {
    path_.reserve(32);
  }

  void PushField(std::string_view name) { path_.push_back({name, -1, false}); }
  void PushIndex(int index) { path_.push_back({{}, index, false}); }
  void PushKey(std::string_view key) { path_.push_back({key, -1, true}); }
  void Pop() { path_.pop_back(); }

  std::string Path() const {
    std::string out;
    for (const Segment& s : path_) {
      if (s.index >= 0) {
        absl::StrAppend(&out, "[", s.index, "]");
      } else if (s.is_key) {
        absl::StrAppend(&out, "[", AV(s.name), "]");
      } else {
        if (!out.empty()) out.push_back('.');
        out.append(s.name);
      }
    }
    return out;
  }

  absl::Status Error(std::string_view message) const {
    std::string path = Path();
    return absl::InvalidArgumentError(path.empty() ? std::string(message) : absl::StrCat(path, ": ", AV(message)));
  }
  absl::Status TypeError(std::string_view expected, const rapidjson::Value& got) const {
    return Error(absl::StrCat("expected ", AV(expected), ", got ", AV(JsonTypeName(got))));
  }
  absl::Status UnknownField(std::string_view name) {
    std::string full = Path();
    if (!full.empty()) full.push_back('.');
    full.append(name);
    if (strict_) return absl::InvalidArgumentError(absl::StrCat("unknown field \"", full, "\""));
    if (warnings_ != nullptr) warnings_->push_back(absl::StrCat("unknown field \"", full, "\""));
    return absl::OkStatus();
  }

 private:
  struct Segment {
    std::string_view name;
    int index;
    bool is_key;
  };
  bool strict_;
  std::vector<std::string>* warnings_;
  std::vector<Segment> path_;
};

inline std::string_view ToSV(const rapidjson::Value& v) { return {v.GetString(), v.GetStringLength()}; }

template <typename T>
absl::Status Decode(DecodeContext& ctx, const rapidjson::Value& v, T& out);

inline absl::Status DecodeScalar(DecodeContext& ctx, const rapidjson::Value& v, std::string& out) {
  if (!v.IsString()) return ctx.TypeError("string", v);
  out.assign(v.GetString(), v.GetStringLength());
  return absl::OkStatus();
}
inline absl::Status DecodeScalar(DecodeContext& ctx, const rapidjson::Value& v, bool& out) {
  if (!v.IsBool()) return ctx.TypeError("boolean", v);
  out = v.GetBool();
  return absl::OkStatus();
}
inline absl::Status DecodeScalar(DecodeContext& ctx, const rapidjson::Value& v, int64_t& out) {
  if (!v.IsNumber()) return ctx.TypeError("integer", v);
  if (!v.IsInt64()) {
    if (v.IsUint64()) return ctx.Error(absl::StrCat("integer ", v.GetUint64(), " overflows int64"));
    return ctx.Error(absl::StrCat("expected integer, got number ", RawText(v)));
  }
  out = v.GetInt64();
  return absl::OkStatus();
}
inline absl::Status DecodeScalar(DecodeContext& ctx, const rapidjson::Value& v, int32_t& out) {
  int64_t wide = 0;
  RETURN_IF_ERROR(DecodeScalar(ctx, v, wide));
  if (wide < std::numeric_limits<int32_t>::min() || wide > std::numeric_limits<int32_t>::max()) {
    return ctx.Error(absl::StrCat("integer ", wide, " overflows int32"));
  }
  out = static_cast<int32_t>(wide);
  return absl::OkStatus();
}
inline absl::Status DecodeScalar(DecodeContext& ctx, const rapidjson::Value& v, Quantity& out) {
  // apimachinery's Quantity.UnmarshalJSON accepts a JSON string or a bare JSON number.
  std::string text;
  if (v.IsString()) {
    text.assign(v.GetString(), v.GetStringLength());
  } else if (v.IsNumber()) {
    text = RawText(v);
  } else {
    return ctx.TypeError("quantity string", v);
  }
  // Quantity.UnmarshalJSON trims surrounding white space before parsing.
  const size_t begin = text.find_first_not_of(" \t\n\v\f\r");
  text = begin == std::string::npos ? std::string() : text.substr(begin, text.find_last_not_of(" \t\n\v\f\r") - begin + 1);
  auto q = Quantity::Parse(text);
  if (!q.ok()) {
    return ctx.Error(absl::StrCat("invalid quantity \"", text, "\": ", q.status().message()));
  }
  out = *std::move(q);
  return absl::OkStatus();
}
inline absl::Status DecodeScalar(DecodeContext& ctx, const rapidjson::Value& v, RawJson& out) {
  if (v.IsObject() || v.IsArray()) {
    std::string path;
    if (absl::Status dup = CheckDuplicateKeys(v, path); !dup.ok()) return ctx.Error(SV(dup.message()));
  }
  out.json = RawText(v);
  return absl::OkStatus();
}

template <typename V>
absl::Status DecodeList(DecodeContext& ctx, const rapidjson::Value& v, std::vector<V>& out) {
  if (!v.IsArray()) return ctx.TypeError("array", v);
  out.clear();
  out.reserve(v.Size());
  int i = 0;
  for (const auto& item : v.GetArray()) {
    ctx.PushIndex(i++);
    V elem{};
    if (!item.IsNull()) RETURN_IF_ERROR(Decode(ctx, item, elem));
    out.push_back(std::move(elem));
    ctx.Pop();
  }
  return absl::OkStatus();
}

template <typename V>
absl::Status DecodeMap(DecodeContext& ctx, const rapidjson::Value& v, Map<V>& out) {
  if (!v.IsObject()) return ctx.TypeError("object", v);
  out = Map<V>();
  out.Reserve(v.MemberCount());
  for (const auto& m : v.GetObject()) {
    ctx.PushKey(ToSV(m.name));
    V elem{};
    if (!m.value.IsNull()) RETURN_IF_ERROR(Decode(ctx, m.value, elem));
    out.AppendUnsorted(std::string(ToSV(m.name)), std::move(elem));
    ctx.Pop();
  }
  out.ShrinkToFit();
  if (const std::string* dup = out.SortAndFindDuplicate()) {
    return ctx.Error(absl::StrCat("duplicate key \"", *dup, "\""));
  }
  return absl::OkStatus();
}

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};
template <typename T>
struct IsMap : std::false_type {};
template <typename T>
struct IsMap<Map<T>> : std::true_type {};

// For a field without omitempty, records how its value was spelled when it decoded to "unset": null,
// [] (an empty list) or, when it has a value or was absent, kAbsent (the encoder's default).
template <typename Field, typename C>
void NoteSpelling(const Field& field, C& out, bool was_null) {
  if constexpr (HasSpelling<Field>) {
    using M = typename Field::Member;
    EmptySpelling spelling = EmptySpelling::kAbsent;
    if (was_null) {
      spelling = EmptySpelling::kNull;
    } else if constexpr (IsVector<M>::value) {
      if ((out.*(field.member)).empty()) spelling = EmptySpelling::kEmpty;
    }
    out.*(field.spelling) = spelling;
  }
}

// Decodes the members of a JSON object into `out`. For a top-level object (kTopLevel), apiVersion
// and kind are read by the caller and skipped here.
template <typename T, bool kTopLevel = false>
absl::Status DecodeStruct(DecodeContext& ctx, const rapidjson::Value& v, T& out) {
  if (!v.IsObject()) return ctx.TypeError("object", v);
  static constexpr auto kFields = Schema<T>::Fields();
  uint64_t seen = 0;
  for (const auto& m : v.GetObject()) {
    const std::string_view key = ToSV(m.name);
    if constexpr (kTopLevel) {
      if (key == "apiVersion" || key == "kind") continue;
    }
    bool matched = false;
    absl::Status status;
    int index = 0;
    std::apply(
        [&](const auto&... field) {
          (([&] {
             if (matched) return;
             const int my_index = index++;
             if (field.name != key) return;
             matched = true;
             if (seen & (uint64_t{1} << my_index)) {
               status = ctx.Error(absl::StrCat("duplicate field \"", AV(key), "\""));
               return;
             }
             seen |= uint64_t{1} << my_index;
             ctx.PushField(field.name);
             auto& member = out.*(field.member);
             using M = std::remove_reference_t<decltype(member)>;
             if (m.value.IsNull()) {
               member = M{};  // JSON null means "not set", as in Go.
             } else {
               status = Decode(ctx, m.value, member);
             }
             NoteSpelling(field, out, m.value.IsNull());
             ctx.Pop();
           }()),
           ...);
        },
        kFields);
    RETURN_IF_ERROR(status);
    if (matched) continue;
    if constexpr (HasOther<T>::value) {
      auto& other = out.*(Schema<T>::kOther);
      for (const auto& kv : other) {
        if (kv.first == key) return ctx.Error(absl::StrCat("duplicate field \"", AV(key), "\""));
      }
      RawJson raw;
      ctx.PushField(key);
      absl::Status raw_status = DecodeScalar(ctx, m.value, raw);
      ctx.Pop();
      RETURN_IF_ERROR(raw_status);
      other.emplace_back(std::string(key), std::move(raw));
    } else {
      RETURN_IF_ERROR(ctx.UnknownField(key));
    }
  }
  return absl::OkStatus();
}

// A DeviceAttribute is read as its eight fields, then stored compactly.
inline absl::Status DecodeScalar(DecodeContext& ctx, const rapidjson::Value& v, DeviceAttribute& out) {
  DeviceAttribute::Fields fields;
  RETURN_IF_ERROR(DecodeStruct(ctx, v, fields));
  out = DeviceAttribute(std::move(fields));
  return absl::OkStatus();
}

template <typename T>
absl::Status Decode(DecodeContext& ctx, const rapidjson::Value& v, T& out) {
  if constexpr (IsOptional<T>::value) {
    typename T::value_type inner{};
    RETURN_IF_ERROR(Decode(ctx, v, inner));
    out = std::move(inner);
    return absl::OkStatus();
  } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
    if (!v.IsArray()) return ctx.TypeError("array", v);
    out.clear();
    int i = 0;
    for (const auto& item : v.GetArray()) {
      ctx.PushIndex(i++);
      bool b = false;
      if (!item.IsNull()) RETURN_IF_ERROR(DecodeScalar(ctx, item, b));
      out.push_back(b);
      ctx.Pop();
    }
    return absl::OkStatus();
  } else if constexpr (IsVector<T>::value) {
    return DecodeList(ctx, v, out);
  } else if constexpr (IsMap<T>::value) {
    return DecodeMap(ctx, v, out);
  } else if constexpr (IsStruct<T>::value) {
    return DecodeStruct(ctx, v, out);
  } else {
    return DecodeScalar(ctx, v, out);
  }
}

}  // namespace draforge::api::internal

#endif  // DRAFORGE_API_INTERNAL_JSON_DECODE_H_
