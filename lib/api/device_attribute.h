// resource.k8s.io/v1 DeviceAttribute: one attribute value of a device.
#ifndef DRAFORGE_API_DEVICE_ATTRIBUTE_H_
#define DRAFORGE_API_DEVICE_ATTRIBUTE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace draforge::api {

// One attribute value of a device: exactly one of int, bool, string, version (or, with
// DRAListTypeAttributes, ints, bools, strings, versions) should be set; validation checks it.
//
// Why a class and not eight fields: a store of 100k devices holds a million attributes, and eight
// optional fields take about 200 bytes each although one is set. The common case (one scalar value)
// is kept inline in 16 bytes; anything else the input says (several fields at once, as Kubernetes'
// own fixtures write, or a list value) is kept out of line, so that decoding still loses nothing.
// Accessors are named after the JSON fields; the representation is invisible.
class DeviceAttribute {
 public:
  // All eight fields, as the API object has them (a field not set is nullopt or empty).
  struct Fields {
    std::optional<int64_t> int_value;
    std::optional<bool> bool_value;
    std::optional<std::string> string_value;
    std::optional<std::string> version_value;
    std::vector<int64_t> ints;
    std::vector<bool> bools;
    std::vector<std::string> strings;
    std::vector<std::string> versions;
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

  // The fields. Pointers and references are valid until the attribute is changed or destroyed;
  // string_value()/version_value() return null and the lists are empty when not set.
  std::optional<int64_t> int_value() const;
  std::optional<bool> bool_value() const;
  const std::string* string_value() const;
  const std::string* version_value() const;
  const std::vector<int64_t>& ints() const;
  const std::vector<bool>& bools() const;
  const std::vector<std::string>& strings() const;
  const std::vector<std::string>& versions() const;
  // A copy of all eight fields.
  Fields fields() const;

  // Set (or, with nullopt / an empty list, clear) one field, keeping the others.
  void set_int_value(std::optional<int64_t> value);
  void set_bool_value(std::optional<bool> value);
  void set_string_value(std::optional<std::string> value);
  void set_version_value(std::optional<std::string> value);
  void set_ints(std::vector<int64_t> value);
  void set_bools(std::vector<bool> value);
  void set_strings(std::vector<std::string> value);
  void set_versions(std::vector<std::string> value);

  friend bool operator==(const DeviceAttribute& a, const DeviceAttribute& b);

 private:
  // kNone: nothing set; kInt..kVersion: exactly that scalar and nothing else; kFields: the rest.
  // The representation is canonical (the constructor from Fields picks it), so == compares it.
  enum class Type : uint8_t { kNone, kInt, kBool, kString, kVersion, kFields };
  void Reset();
  void CopyFrom(const DeviceAttribute& other);
  void StealFrom(DeviceAttribute& other);

  Type type_ = Type::kNone;
  union {
    int64_t int_;
    bool bool_;
    std::string* str_;  // kString, kVersion: owned
    Fields* fields_;    // kFields: owned
  };
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_DEVICE_ATTRIBUTE_H_
