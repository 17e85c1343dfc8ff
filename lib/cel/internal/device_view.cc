// The CEL `device` variable of the DRA environment over a DeviceInput, as lazy map views (no
// per-device map construction). Shared by DeviceSelector and DerivedAttribute so both see exactly
// the same device.
#include "cel/internal/device_view.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "api/semver.h"
#include "cel/internal/str.h"

namespace draforge::cel::internal {
namespace {

// Per-evaluation state of one device: parsed semantic versions, by attribute index.
struct DeviceState {
  const DeviceInput* input;
  const api::Semver** semvers;  // scalar versions
  const api::Semver* const* semver_lists;  // first element of each version list
};

std::pair<std::string_view, std::string_view> SplitName(std::string_view name, std::string_view driver) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

template <typename T>
class VectorList final : public ListValue {
 public:
  explicit VectorList(const std::vector<T>* v) : v_(v) {}
  size_t size() const override { return v_->size(); }
  Value Get(size_t i) const override {
    if constexpr (std::is_same_v<T, int64_t>) return Value::Int((*v_)[i]);
    else if constexpr (std::is_same_v<T, bool>) return Value::Bool((*v_)[i]);
    else return Value::String((*v_)[i]);
  }

 private:
  const std::vector<T>* v_;
};

class SemverList final : public ListValue {
 public:
  SemverList(const api::Semver* items, size_t n) : items_(items), n_(n) {}
  size_t size() const override { return n_; }
  Value Get(size_t i) const override { return Value::Semver(&items_[i]); }

 private:
  const api::Semver* items_;
  size_t n_;
};

Value AttributeValue(const DeviceState& st, size_t index, Arena& arena) {
  const api::DeviceAttribute& a = (st.input->attributes->begin() + index)->second;
  // A list that is present but empty (`ints: []`) is an empty list, as for upstream.
  if (a.has_ints()) return Value::List(arena.New<VectorList<int64_t>>(&a.ints()));
  if (a.has_bools()) return Value::List(arena.New<VectorList<bool>>(&a.bools()));
  if (a.has_strings()) return Value::List(arena.New<VectorList<std::string>>(&a.strings()));
  if (a.has_versions()) return Value::List(arena.New<SemverList>(st.semver_lists[index], a.versions().size()));
  if (a.int_value()) return Value::Int(*a.int_value());
  if (a.bool_value()) return Value::Bool(*a.bool_value());
  if (a.string_value()) return Value::String(*a.string_value());
  return Value::Semver(st.semvers[index]);
}

const api::Quantity& ZeroQuantity() {
  static const api::Quantity* const kZero = new api::Quantity();
  return *kZero;
}

// The inner map of one domain: device.attributes["<domain>"] / device.capacity["<domain>"].
template <bool kCapacity>
class DomainMap final : public MapValue {
 public:
  DomainMap(const DeviceState* st, std::string_view domain, Arena* arena) : st_(st), domain_(domain), arena_(arena) {}

  size_t size() const override {
    Index();
    return n_;
  }
  bool Find(Value key, Value* out) const override {
    if (key.kind() != ValueKind::kString) return false;
    std::string_view id = key.str();
    const auto* m = Entries();
    if (m == nullptr) return false;
    // Unqualified names belong to the driver's domain. An ID never holds a '/': a qualified name
    // of another domain ("other.example.com/name") is not a key here.
    if (domain_ == st_->input->driver && id.find('/') == std::string_view::npos) {
      if (Lookup(id, out)) return true;
    }
    char buf[160];
    std::string big;
    std::string_view qualified;
    size_t need = domain_.size() + 1 + id.size();
    if (need <= sizeof buf) {
      std::memcpy(buf, domain_.data(), domain_.size());
      buf[domain_.size()] = '/';
      std::memcpy(buf + domain_.size() + 1, id.data(), id.size());
      qualified = std::string_view(buf, need);
    } else {
      big = Cat(domain_, "/", id);
      qualified = big;
    }
    return Lookup(qualified, out);
  }
  Value KeyAt(size_t i) const override {
    Index();
    auto [d, id] = SplitName(EntryName(index_[i]), st_->input->driver);
    return Value::String(id);
  }
  Value ValueAt(size_t i) const override {
    Index();
    return ValueOf(index_[i]);
  }

 private:
  const auto* Entries() const {
    if constexpr (kCapacity) return st_->input->capacity;
    else return st_->input->attributes;
  }
  std::string_view EntryName(size_t i) const { return (Entries()->begin() + i)->first; }
  Value ValueOf(size_t i) const {
    if constexpr (kCapacity) {
      const api::DeviceCapacity& c = (Entries()->begin() + i)->second;
      return Value::Quantity(c.value ? &*c.value : &ZeroQuantity());
    } else {
      return AttributeValue(*st_, i, *arena_);
    }
  }
  bool Lookup(std::string_view name, Value* out) const {
    const auto* m = Entries();
    auto it = std::lower_bound(m->begin(), m->end(), name,
                               [](const auto& e, std::string_view k) { return e.first < k; });
    if (it == m->end() || it->first != name) return false;
    *out = ValueOf(static_cast<size_t>(it - m->begin()));
    return true;
  }
  void Index() const {
    if (index_ != nullptr) return;
    const auto* m = Entries();
    size_t total = m == nullptr ? 0 : m->size();
    index_ = arena_->NewArray<size_t>(total);
    n_ = 0;
    for (size_t i = 0; i < total; ++i) {
      auto [d, id] = SplitName(EntryName(i), st_->input->driver);
      if (d == domain_) index_[n_++] = i;
    }
  }

  const DeviceState* st_;
  std::string_view domain_;
  Arena* arena_;
  mutable size_t* index_ = nullptr;
  mutable size_t n_ = 0;
};

// device.attributes / device.capacity: domain -> DomainMap. Unknown domains are empty maps (Find
// succeeds), but `in` and has() report them absent, as upstream's mapper does.
template <bool kCapacity>
class OuterMap final : public MapValue {
 public:
  OuterMap(const DeviceState* st, Arena* arena) : st_(st), arena_(arena) {}
  size_t size() const override {
    Index();
    return n_;
  }
  bool Find(Value key, Value* out) const override {
    if (key.kind() != ValueKind::kString) return false;
    *out = Value::Map(arena_->New<DomainMap<kCapacity>>(st_, key.str(), arena_));
    return true;
  }
  bool Has(Value key) const override {
    if (key.kind() != ValueKind::kString) return false;
    Index();
    for (size_t i = 0; i < n_; ++i) {
      if (domains_[i] == key.str()) return true;
    }
    return false;
  }
  Value KeyAt(size_t i) const override {
    Index();
    return Value::String(domains_[i]);
  }
  Value ValueAt(size_t i) const override {
    Index();
    return Value::Map(arena_->New<DomainMap<kCapacity>>(st_, domains_[i], arena_));
  }

 private:
  const auto* Entries() const {
    if constexpr (kCapacity) return st_->input->capacity;
    else return st_->input->attributes;
  }
  void Index() const {
    if (domains_ != nullptr) return;
    const auto* m = Entries();
    size_t total = m == nullptr ? 0 : m->size();
    domains_ = arena_->NewArray<std::string_view>(total);
    n_ = 0;
    if (m == nullptr) return;
    for (const auto& e : *m) {
      auto [d, id] = SplitName(e.first, st_->input->driver);
      bool seen = false;
      for (size_t k = 0; k < n_ && !seen; ++k) seen = domains_[k] == d;
      if (!seen) domains_[n_++] = d;
    }
  }
  const DeviceState* st_;
  Arena* arena_;
  mutable std::string_view* domains_ = nullptr;
  mutable size_t n_ = 0;
};

class DeviceMap final : public MapValue {
 public:
  DeviceMap(const DeviceState* st, Arena* arena) : st_(st), arena_(arena) {}
  size_t size() const override { return 4; }
  bool Find(Value key, Value* out) const override {
    if (key.kind() != ValueKind::kString) return false;
    std::string_view k = key.str();
    if (k == "driver") *out = Value::String(st_->input->driver);
    else if (k == "attributes") *out = Value::Map(arena_->New<OuterMap<false>>(st_, arena_));
    else if (k == "capacity") *out = Value::Map(arena_->New<OuterMap<true>>(st_, arena_));
    else if (k == "allowMultipleAllocations") *out = Value::Bool(st_->input->allow_multiple_allocations);
    else return false;
    return true;
  }
  Value KeyAt(size_t i) const override {
    static constexpr std::string_view kKeys[] = {"driver", "attributes", "capacity", "allowMultipleAllocations"};
    return Value::String(kKeys[i]);
  }
  Value ValueAt(size_t i) const override {
    Value v;
    Find(KeyAt(i), &v);
    return v;
  }

 private:
  const DeviceState* st_;
  Arena* arena_;
};

}  // namespace

absl::StatusOr<Value> DeviceValue(const DeviceInput& device, Arena& arena, bool list_values) {
  auto* st = arena.New<DeviceState>();
  st->input = &device;
  size_t n = device.attributes ? device.attributes->size() : 0;
  auto** semvers = arena.NewArray<const api::Semver*>(n);
  auto** lists = arena.NewArray<const api::Semver*>(n);
  // Upstream converts every attribute before evaluating: a bad one fails the whole device.
  for (size_t i = 0; i < n; ++i) {
    const auto& [name, a] = *(device.attributes->begin() + i);
    semvers[i] = nullptr;
    lists[i] = nullptr;
    // Without list values a list is no supported value: only the scalar fields below count.
    if (list_values && (a.has_ints() || a.has_bools() || a.has_strings())) continue;
    if (list_values && a.has_versions()) {
      api::Semver* items = static_cast<api::Semver*>(arena.Allocate(sizeof(api::Semver) * a.versions().size(),
                                                                    alignof(api::Semver)));
      for (size_t k = 0; k < a.versions().size(); ++k) {
        auto v = api::Semver::Parse(a.versions()[k]);
        if (!v.ok()) {
          for (size_t j = 0; j < k; ++j) items[j].~Semver();
          return absl::InvalidArgumentError(
              Cat("attribute ", name, ": parse semantic version: ", std::string(v.status().message())));
        }
        new (&items[k]) api::Semver(*std::move(v));
      }
      // Register destruction of the array elements.
      struct Holder {
        api::Semver* items;
        size_t n;
        ~Holder() {
          for (size_t j = 0; j < n; ++j) items[j].~Semver();
        }
      };
      arena.New<Holder>(items, a.versions().size());
      lists[i] = items;
      continue;
    }
    if (a.int_value() || a.bool_value() || a.string_value()) continue;
    if (a.version_value()) {
      auto v = api::Semver::Parse(*a.version_value());
      if (!v.ok()) {
        return absl::InvalidArgumentError(
            Cat("attribute ", name, ": parse semantic version: ", std::string(v.status().message())));
      }
      semvers[i] = arena.New<api::Semver>(*std::move(v));
      continue;
    }
    return absl::InvalidArgumentError(Cat("attribute ", name, ": unsupported attribute value"));
  }
  st->semvers = semvers;
  st->semver_lists = lists;
  return Value::Map(arena.New<DeviceMap>(st, &arena));
}

}  // namespace draforge::cel::internal
