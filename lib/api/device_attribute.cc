#include "api/device_attribute.h"

#include <cstdint>
#include <cstring>
#include <utility>

namespace draforge::api {

char* DeviceAttribute::NewStr(std::string_view s) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  char* block = new char[sizeof(n) + s.size()];
  std::memcpy(block, &n, sizeof(n));
  if (!s.empty()) std::memcpy(block + sizeof(n), s.data(), s.size());
  return block;
}

std::string_view DeviceAttribute::StrView(const char* block) {
  uint32_t n = 0;
  std::memcpy(&n, block, sizeof(n));
  return std::string_view(block + sizeof(n), n);
}

DeviceAttribute::DeviceAttribute(Fields fields) : int_(0) {
  const int scalars = fields.int_value.has_value() + fields.bool_value.has_value() +
                      fields.string_value.has_value() + fields.version_value.has_value();
  const bool lists = fields.ints.has_value() || fields.bools.has_value() || fields.strings.has_value() ||
                     fields.versions.has_value();
  if (lists || scalars > 1) {
    type_ = Type::kFields;
    fields_ = new Fields(std::move(fields));
  } else if (fields.int_value) {
    type_ = Type::kInt;
    int_ = *fields.int_value;
  } else if (fields.bool_value) {
    type_ = Type::kBool;
    bool_ = *fields.bool_value;
  } else if (fields.string_value) {
    type_ = Type::kString;
    str_ = NewStr(*fields.string_value);
  } else if (fields.version_value) {
    type_ = Type::kVersion;
    str_ = NewStr(*fields.version_value);
  }
}

DeviceAttribute::DeviceAttribute(const DeviceAttribute& other) : int_(0) { CopyFrom(other); }

DeviceAttribute::DeviceAttribute(DeviceAttribute&& other) noexcept : int_(0) { StealFrom(other); }

DeviceAttribute& DeviceAttribute::operator=(const DeviceAttribute& other) {
  if (this != &other) {
    Reset();
    CopyFrom(other);
  }
  return *this;
}

DeviceAttribute& DeviceAttribute::operator=(DeviceAttribute&& other) noexcept {
  if (this != &other) {
    Reset();
    StealFrom(other);
  }
  return *this;
}

void DeviceAttribute::Reset() {
  if (type_ == Type::kString || type_ == Type::kVersion) delete[] str_;
  if (type_ == Type::kFields) delete fields_;
  type_ = Type::kNone;
  int_ = 0;
}

void DeviceAttribute::CopyFrom(const DeviceAttribute& other) {
  type_ = other.type_;
  switch (type_) {
    case Type::kString:
    case Type::kVersion: str_ = NewStr(StrView(other.str_)); break;
    case Type::kFields: fields_ = new Fields(*other.fields_); break;
    case Type::kNone: int_ = 0; break;
    case Type::kInt: int_ = other.int_; break;
    case Type::kBool: bool_ = other.bool_; break;
  }
}

void DeviceAttribute::StealFrom(DeviceAttribute& other) {
  type_ = other.type_;
  switch (type_) {
    case Type::kNone: int_ = 0; break;
    case Type::kInt: int_ = other.int_; break;
    case Type::kBool: bool_ = other.bool_; break;
    case Type::kString:
    case Type::kVersion: str_ = other.str_; break;
    case Type::kFields: fields_ = other.fields_; break;
  }
  other.type_ = Type::kNone;
  other.int_ = 0;
}

DeviceAttribute DeviceAttribute::Int(int64_t value) {
  DeviceAttribute a;
  a.type_ = Type::kInt;
  a.int_ = value;
  return a;
}

DeviceAttribute DeviceAttribute::Bool(bool value) {
  DeviceAttribute a;
  a.type_ = Type::kBool;
  a.bool_ = value;
  return a;
}

DeviceAttribute DeviceAttribute::String(std::string value) {
  DeviceAttribute a;
  a.type_ = Type::kString;
  a.str_ = NewStr(value);
  return a;
}

DeviceAttribute DeviceAttribute::Version(std::string value) {
  DeviceAttribute a;
  a.type_ = Type::kVersion;
  a.str_ = NewStr(value);
  return a;
}

std::optional<int64_t> DeviceAttribute::int_value() const {
  if (type_ == Type::kInt) return int_;
  if (type_ == Type::kFields) return fields_->int_value;
  return std::nullopt;
}

std::optional<bool> DeviceAttribute::bool_value() const {
  if (type_ == Type::kBool) return bool_;
  if (type_ == Type::kFields) return fields_->bool_value;
  return std::nullopt;
}

std::optional<std::string_view> DeviceAttribute::string_value() const {
  if (type_ == Type::kString) return StrView(str_);
  if (type_ == Type::kFields && fields_->string_value) return std::string_view(*fields_->string_value);
  return std::nullopt;
}

std::optional<std::string_view> DeviceAttribute::version_value() const {
  if (type_ == Type::kVersion) return StrView(str_);
  if (type_ == Type::kFields && fields_->version_value) return std::string_view(*fields_->version_value);
  return std::nullopt;
}

namespace {
// What the list accessors return for an attribute without lists; never destroyed.
template <typename T>
const std::vector<T>& Empty() {
  static const std::vector<T>* const kEmpty = new std::vector<T>();
  return *kEmpty;
}
}  // namespace

const std::vector<int64_t>& DeviceAttribute::ints() const {
  return type_ == Type::kFields && fields_->ints ? *fields_->ints : Empty<int64_t>();
}
const std::vector<bool>& DeviceAttribute::bools() const {
  return type_ == Type::kFields && fields_->bools ? *fields_->bools : Empty<bool>();
}
const std::vector<std::string>& DeviceAttribute::strings() const {
  return type_ == Type::kFields && fields_->strings ? *fields_->strings : Empty<std::string>();
}
const std::vector<std::string>& DeviceAttribute::versions() const {
  return type_ == Type::kFields && fields_->versions ? *fields_->versions : Empty<std::string>();
}

DeviceAttribute::Fields DeviceAttribute::fields() const {
  if (type_ == Type::kFields) return *fields_;
  Fields f;
  f.int_value = int_value();
  f.bool_value = bool_value();
  if (auto s = string_value()) f.string_value = std::string(*s);
  if (auto s = version_value()) f.version_value = std::string(*s);
  return f;
}

void DeviceAttribute::set_int_value(std::optional<int64_t> value) {
  Fields f = fields();
  f.int_value = value;
  *this = DeviceAttribute(std::move(f));
}
void DeviceAttribute::set_bool_value(std::optional<bool> value) {
  Fields f = fields();
  f.bool_value = value;
  *this = DeviceAttribute(std::move(f));
}
void DeviceAttribute::set_string_value(std::optional<std::string> value) {
  Fields f = fields();
  f.string_value = std::move(value);
  *this = DeviceAttribute(std::move(f));
}
void DeviceAttribute::set_version_value(std::optional<std::string> value) {
  Fields f = fields();
  f.version_value = std::move(value);
  *this = DeviceAttribute(std::move(f));
}
void DeviceAttribute::set_ints(std::optional<std::vector<int64_t>> value) {
  Fields f = fields();
  f.ints = std::move(value);
  *this = DeviceAttribute(std::move(f));
}
void DeviceAttribute::set_bools(std::optional<std::vector<bool>> value) {
  Fields f = fields();
  f.bools = std::move(value);
  *this = DeviceAttribute(std::move(f));
}
void DeviceAttribute::set_strings(std::optional<std::vector<std::string>> value) {
  Fields f = fields();
  f.strings = std::move(value);
  *this = DeviceAttribute(std::move(f));
}
void DeviceAttribute::set_versions(std::optional<std::vector<std::string>> value) {
  Fields f = fields();
  f.versions = std::move(value);
  *this = DeviceAttribute(std::move(f));
}

bool operator==(const DeviceAttribute& a, const DeviceAttribute& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case DeviceAttribute::Type::kNone: return true;
    case DeviceAttribute::Type::kInt: return a.int_ == b.int_;
    case DeviceAttribute::Type::kBool: return a.bool_ == b.bool_;
    case DeviceAttribute::Type::kString:
    case DeviceAttribute::Type::kVersion: return DeviceAttribute::StrView(a.str_) == DeviceAttribute::StrView(b.str_);
    case DeviceAttribute::Type::kFields: return *a.fields_ == *b.fields_;
  }
  return false;
}

}  // namespace draforge::api
