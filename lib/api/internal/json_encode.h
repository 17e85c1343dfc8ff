// The generic, schema-driven encoder from api types to any RapidJSON SAX handler (a Writer for text,
// a Document for a DOM). Internal to lib/api.
#ifndef DRAFORGE_API_INTERNAL_JSON_ENCODE_H_
#define DRAFORGE_API_INTERNAL_JSON_ENCODE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/internal/json_decode.h"
#include "api/internal/schema.h"
#include "api/json_parse.h"
#include "api/map.h"
#include "api/quantity.h"
#include "api/raw_json.h"
#include "rapidjson/reader.h"

namespace draforge::api::internal {

// Whether a member would be written: set scalars and structs, non-empty lists and maps.
template <typename M>
bool IsSet(const M& m) {
  if constexpr (IsOptional<M>::value) {
    return m.has_value();
  } else if constexpr (IsVector<M>::value || IsMap<M>::value) {
    return !m.empty();
  } else if constexpr (std::is_same_v<M, ObjectMeta>) {
    return !(m == ObjectMeta{});
  } else {
    return true;
  }
}

template <typename H, typename T>
void Encode(H& h, const T& value);

template <typename H>
void EncodeRaw(H& h, const RawJson& raw) {
  // The text was parsed with the same cap when it was stored, so this cannot fail on depth.
  ParseJsonSax(raw.json, h);
}

template <typename H>
void EncodeScalar(H& h, const std::string& s) { h.String(s.data(), static_cast<rapidjson::SizeType>(s.size()), true); }
template <typename H>
void EncodeScalar(H& h, bool b) { h.Bool(b); }
template <typename H>
void EncodeScalar(H& h, int64_t i) { h.Int64(i); }
template <typename H>
void EncodeScalar(H& h, int32_t i) { h.Int(i); }
template <typename H>
void EncodeScalar(H& h, const Quantity& q) {
  std::string s = q.String();
  h.String(s.data(), static_cast<rapidjson::SizeType>(s.size()), true);
}
template <typename H>
void EncodeScalar(H& h, const RawJson& raw) { EncodeRaw(h, raw); }

// Writes the members of `value` into an object the caller has started; returns how many.
template <typename H, typename T>
rapidjson::SizeType EncodeFields(H& h, const T& value) {
  static constexpr auto kFields = Schema<T>::Fields();
  rapidjson::SizeType count = 0;
  std::apply(
      [&](const auto&... field) {
        (([&] {
           const auto& member = value.*(field.member);
           if (!IsSet(member)) {
             // A field without omitempty keeps the spelling its unset value was read with.
             if constexpr (HasSpelling<std::decay_t<decltype(field)>>) {
               const EmptySpelling spelling = value.*(field.spelling);
               if (spelling == EmptySpelling::kNull) {
                 h.Key(field.name.data(), static_cast<rapidjson::SizeType>(field.name.size()), false);
                 h.Null();
                 ++count;
               } else if (spelling == EmptySpelling::kEmpty && IsVector<std::decay_t<decltype(member)>>::value) {
                 h.Key(field.name.data(), static_cast<rapidjson::SizeType>(field.name.size()), false);
                 h.StartArray();
                 h.EndArray(0);
                 ++count;
               }
             }
             return;
           }
           h.Key(field.name.data(), static_cast<rapidjson::SizeType>(field.name.size()), false);
           Encode(h, member);
           ++count;
         }()),
         ...);
      },
      kFields);
  if constexpr (HasOther<T>::value) {
    for (const auto& [key, raw] : value.*(Schema<T>::kOther)) {
      h.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()), true);
      EncodeRaw(h, raw);
      ++count;
    }
  }
  return count;
}

template <typename H, typename T>
void EncodeStruct(H& h, const T& value) {
  h.StartObject();
  h.EndObject(EncodeFields(h, value));
}

// A DeviceAttribute is written as its eight fields, of which the set ones appear.
template <typename H>
void EncodeScalar(H& h, const DeviceAttribute& a) {
  EncodeStruct(h, a.fields());
}

template <typename H, typename T>
void Encode(H& h, const T& value) {
  if constexpr (IsOptional<T>::value) {
    Encode(h, *value);
  } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
    h.StartArray();
    for (bool b : value) h.Bool(b);
    h.EndArray(static_cast<rapidjson::SizeType>(value.size()));
  } else if constexpr (IsVector<T>::value) {
    h.StartArray();
    for (const auto& item : value) Encode(h, item);
    h.EndArray(static_cast<rapidjson::SizeType>(value.size()));
  } else if constexpr (IsMap<T>::value) {
    h.StartObject();
    for (const auto& [key, item] : value) {
      h.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()), true);
      Encode(h, item);
    }
    h.EndObject(static_cast<rapidjson::SizeType>(value.size()));
  } else if constexpr (IsStruct<T>::value) {
    EncodeStruct(h, value);
  } else {
    EncodeScalar(h, value);
  }
}

}  // namespace draforge::api::internal

#endif  // DRAFORGE_API_INTERNAL_JSON_ENCODE_H_
