// resource.k8s.io/v1 DeviceAttribute: one attribute value of a device.
#ifndef DRAFORGE_API_DEVICE_ATTRIBUTE_H_
#define DRAFORGE_API_DEVICE_ATTRIBUTE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace draforge::api {

// One attribute value of a device: exactly one of int, bool, string, version (or, with
// DRAListTypeAttributes, ints, bools, strings, versions) should be set; validation checks it.
//
// Why a class and not eight fields: a store of 100k devices holds a million attributes, and eight
// optional fields take about 200 bytes each although one is set. The common case (one scalar value)
// is kept in 16 bytes (a string as one length-prefixed block); anything else the input says (several fields at once, as Kubernetes'
// own fixtures write, or a list value) is kept out of line, so that decoding still loses nothing.
// Accessors are named after the JSON fields; the representation is invisible.
class DeviceAttribute {
 public:
  // All eight fields, as the API object has them (a field not set is nullopt). A list that is
  // present but empty (`versions: []`) is an empty list, not "not set": for upstream it is a list
  // value that CEL selectors can read, and encoding writes it back as [].
  struct Fields {
    std::optional<int64_t> int_value;
    std::optional<bool> bool_value;
    std::optional<std::string> string_value;
    std::optional<std::string> version_value;
    std::optional<std::vector<int64_t>> ints;
    std::optional<std::vector<bool>> bools;
    std::optional<std::vector<std::string>> strings;
    std::optional<std::vector<std::string>> versions;
    friend bool operator==(const Fields&, const Fields&) = default;
  };

  // No field set.
  DeviceAttribute() : int_(0) {}
  explicit DeviceAttribute(Fields fields);
  DeviceAttribute(const DeviceAttribute& other);
  DeviceAttribute(DeviceAttribute&& other) noexcept;
  DeviceAttribute& operator=(const DeviceAttribute& other);
  DeviceAttribute& operator=(DeviceAttribute&& other) noexcept;
  ~DeviceAttribute() { Reset(); }

  // An attribute with one value.
  static DeviceAttribute Int(int64_t value);
  static DeviceAttribute Bool(bool value);
  static DeviceAttribute String(std::string value);
  static DeviceAttribute Version(std::string value);

  // The fields (nullopt, or an empty list, when not set; has_ints() and friends tell an empty list
  // from no list). Views and references are valid until the attribute is changed or destroyed.
  std::optional<int64_t> int_value() const;
  std::optional<bool> bool_value() const;
  std::optional<std::string_view> string_value() const;
  std::optional<std::string_view> version_value() const;
  const std::vector<int64_t>& ints() const;
  const std::vector<bool>& bools() const;
  const std::vector<std::string>& strings() const;
  const std::vector<std::string>& versions() const;
  // Whether the list field is present, even as an empty list.
  bool has_ints() const { return type_ == Type::kFields && fields_->ints.has_value(); }
  bool has_bools() const { return type_ == Type::kFields && fields_->bools.has_value(); }
  bool has_strings() const { return type_ == Type::kFields && fields_->strings.has_value(); }
  bool has_versions() const { return type_ == Type::kFields && fields_->versions.has_value(); }
  // A copy of all eight fields.
  Fields fields() const;

  // Set (or, with nullopt, clear) one field, keeping the others. An empty list is set as an empty
  // list.
  void set_int_value(std::optional<int64_t> value);
  void set_bool_value(std::optional<bool> value);
  void set_string_value(std::optional<std::string> value);
  void set_version_value(std::optional<std::string> value);
  void set_ints(std::optional<std::vector<int64_t>> value);
  void set_bools(std::optional<std::vector<bool>> value);
  void set_strings(std::optional<std::vector<std::string>> value);
  void set_versions(std::optional<std::vector<std::string>> value);

  friend bool operator==(const DeviceAttribute& a, const DeviceAttribute& b);

 private:
  // kNone: nothing set; kInt..kVersion: exactly that scalar and nothing else; kFields: the rest.
  // The representation is canonical (the constructor from Fields picks it), so == compares it.
  enum class Type : uint8_t { kNone, kInt, kBool, kString, kVersion, kFields };
  void Reset();
  void CopyFrom(const DeviceAttribute& other);
  void StealFrom(DeviceAttribute& other);

  // A string value is one block, its length (uint32) then its bytes: a std::string would take 32
  // bytes more for every distinct value (a device's uuid is one per device).
  static char* NewStr(std::string_view s);
  static std::string_view StrView(const char* block);

  Type type_ = Type::kNone;
  union {
    int64_t int_;
    bool bool_;
    char* str_;       // kString, kVersion: owned, see NewStr
    Fields* fields_;  // kFields: owned
  };
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_DEVICE_ATTRIBUTE_H_
