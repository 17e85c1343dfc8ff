#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "alloc/internal/constraints.h"
#include "alloc/internal/sorted_strings.h"
#include "common/status.h"

namespace draforge::alloc::internal {
namespace {

class MatchAttribute : public Constraint {
 public:
  MatchAttribute(std::vector<std::string> requests, std::string attribute, bool list_types)
      : Constraint(std::move(requests), std::move(attribute), list_types) {}
  bool SameFor(const api::Device& a, const api::Device& b, std::string_view driver) const override;
  bool AddAttribute(std::string_view request, std::string_view sub, const api::DeviceAttribute* attr) override {
    if (!AppliesTo(request, sub)) return true;
    if (attr == nullptr) return false;
    if (list_types_) {
      std::vector<std::string> set = AttributeValueSet(*attr);
      if (set.empty()) return false;
      // A stack of running intersections, so that Remove restores the previous one (upstream
      // bug #140300 forgot to).
      if (!stack_.empty()) {
        if (!SortedIntersects(stack_.back(), set)) return false;
        set = SortedIntersection(stack_.back(), set);
      }
      stack_.push_back(std::move(set));
      return true;
    }
    const std::string value = AttributeScalar(*attr);
    if (count_ == 0) {
      reference_ = value;  // upstream accepts any type for the first device
      ++count_;
      return true;
    }
    if (value.empty() || value != reference_) return false;
    ++count_;
    return true;
  }
  void Remove(std::string_view request, std::string_view sub) override {
    if (!AppliesTo(request, sub)) return;
    if (list_types_) {
      if (!stack_.empty()) stack_.pop_back();
      return;
    }
    --count_;
  }

 private:
  int count_ = 0;
  std::string reference_;
  std::vector<std::vector<std::string>> stack_;
};

class DistinctAttribute : public Constraint {
 public:
  DistinctAttribute(std::vector<std::string> requests, std::string attribute, bool list_types,
                    DistinctAttributeMode mode)
      : Constraint(std::move(requests), std::move(attribute), list_types), mode_(mode) {}
  bool SameFor(const api::Device& a, const api::Device& b, std::string_view driver) const override;
  bool AddAttribute(std::string_view request, std::string_view sub, const api::DeviceAttribute* attr) override {
    if (!AppliesTo(request, sub)) return true;
    if (attr == nullptr) return false;
    switch (mode_) {
      case DistinctAttributeMode::kEveryDevice: return AddToEveryDevice(*attr);
      case DistinctAttributeMode::kLastOfRequest: return AddAsLastOfRequest(request, *attr);
      case DistinctAttributeMode::kLastOfRequestByIdentity: return AddByIdentity(request, attr);
    }
    return false;
  }
  void Remove(std::string_view request, std::string_view sub) override {
    if (!AppliesTo(request, sub)) return;
    if (mode_ == DistinctAttributeMode::kEveryDevice) {
      if (!values_.empty()) values_.pop_back();
      return;
    }
    // Upstream forgets the request's entry, even when other devices of the request stay.
    last_of_request_.erase(std::string(request));
    by_identity_.erase(std::string(request));
    --count_;
  }

 private:
  struct Entry {
    std::vector<std::string> set;
    std::string scalar;
  };
  Entry MakeEntry(const api::DeviceAttribute& attr) const {
    if (list_types_) return {AttributeValueSet(attr), std::string()};
    return {{}, AttributeScalar(attr)};
  }
  // Whether `e` may join devices whose entries are `others` (list types: disjoint sets; else
  // pairwise different scalars, an attribute without one clashing with any device).
  template <typename Range, typename Get>
  bool DistinctFrom(const Entry& e, const Range& others, Get get) const {
    for (const auto& item : others) {
      const Entry& o = get(item);
      if (list_types_ ? SortedIntersects(o.set, e.set) : (e.scalar.empty() || o.scalar == e.scalar)) return false;
    }
    return true;
  }

  // 1.37: every device added so far. Upstream's set comparison needs a value even for the first
  // device: an empty list (`ints: []`) is no value, so the device cannot take part, like one without
  // the attribute. The scalar comparison, by contrast, takes any first device.
  bool AddToEveryDevice(const api::DeviceAttribute& attr) {
    Entry e = MakeEntry(attr);
    if (list_types_ && e.set.empty()) return false;
    if (!DistinctFrom(e, values_, [](const Entry& x) -> const Entry& { return x; })) return false;
    values_.push_back(std::move(e));
    return true;
  }

  // 1.35 and 1.36 (Features::DistinctAttributeLastOfRequest): upstream keeps one attribute per
  // request, the one last added, and compares a new device with those only; the first device of the
  // constraint is taken whatever its value.
  bool AddAsLastOfRequest(std::string_view request, const api::DeviceAttribute& attr) {
    Entry e = MakeEntry(attr);
    if (count_ > 0) {
      if (list_types_ && e.set.empty()) return false;
      if (!DistinctFrom(e, last_of_request_, [](const auto& kv) -> const Entry& { return kv.second; })) return false;
    }
    last_of_request_[std::string(request)] = std::move(e);
    ++count_;
    return true;
  }

  // 1.34 (Features::DistinctAttributeByIdentity): the attribute last added for each request, compared
  // by address, so only the same device twice clashes.
  bool AddByIdentity(std::string_view request, const api::DeviceAttribute* attr) {
    if (count_ > 0) {
      for (const auto& [unused, last] : by_identity_) {
        if (last == attr) return false;
      }
    }
    by_identity_[std::string(request)] = attr;
    ++count_;
    return true;
  }

  DistinctAttributeMode mode_;
  int count_ = 0;
  std::map<std::string, const api::DeviceAttribute*> by_identity_;
  std::map<std::string, Entry> last_of_request_;
  std::vector<Entry> values_;
};

}  // namespace

std::vector<std::string> AttributeValueSet(const api::DeviceAttribute& a) {
  std::vector<std::string> out;
  if (!a.ints().empty()) {
    for (int64_t v : a.ints()) out.push_back(absl::StrCat("i:", v));
  } else if (!a.bools().empty()) {
    for (bool v : a.bools()) out.push_back(v ? "b:true" : "b:false");
  } else if (!a.strings().empty()) {
    for (const auto& v : a.strings()) out.push_back("s:" + v);
  } else if (!a.versions().empty()) {
    for (const auto& v : a.versions()) out.push_back("v:" + v);
  } else if (a.int_value()) {
    // The scalar fields in upstream attributeAsSet's order (int, bool, string, version), which is
    // not the scalar comparison's (AttributeScalar): it decides for an attribute that sets several
    // fields, which the apiserver rejects but the allocator may still be handed.
    out.push_back(absl::StrCat("i:", *a.int_value()));
  } else if (a.bool_value()) {
    out.push_back(*a.bool_value() ? "b:true" : "b:false");
  } else if (a.string_value()) {
    out.push_back(std::string("s:").append(*a.string_value()));
  } else if (a.version_value()) {
    out.push_back(std::string("v:").append(*a.version_value()));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string AttributeScalar(const api::DeviceAttribute& a) {
  // Upstream's switch order: string, int, bool, version.
  if (a.string_value()) return std::string("s:").append(*a.string_value());
  if (a.int_value()) return absl::StrCat("i:", *a.int_value());
  if (a.bool_value()) return *a.bool_value() ? "b:true" : "b:false";
  if (a.version_value()) return std::string("v:").append(*a.version_value());
  return "";
}

const api::DeviceAttribute* LookupAttribute(const api::Device& device, std::string_view driver,
                                            std::string_view fqn) {
  if (const auto* a = device.attributes.Find(fqn)) return a;
  const size_t slash = fqn.find('/');
  if (slash == std::string_view::npos || fqn.substr(0, slash) != driver) return nullptr;
  return device.attributes.Find(fqn.substr(slash + 1));
}

namespace {

// Both constraints read one attribute through LookupAttribute and nothing else of the device.
bool SameAttribute(const api::Device& a, const api::Device& b, std::string_view driver, std::string_view attribute) {
  const api::DeviceAttribute* x = LookupAttribute(a, driver, attribute);
  const api::DeviceAttribute* y = LookupAttribute(b, driver, attribute);
  if (x == nullptr || y == nullptr) return x == y;
  return *x == *y;
}

}  // namespace

bool Constraint::AppliesTo(std::string_view request, std::string_view sub) const {
  if (requests_.empty()) return true;
  for (const std::string& r : requests_) {
    if (r == request) return true;
    if (!sub.empty() && r.size() == request.size() + 1 + sub.size() && r.compare(0, request.size(), request) == 0 &&
        r[request.size()] == '/' && r.compare(request.size() + 1, std::string::npos, sub) == 0) {
      return true;
    }
  }
  return false;
}

bool MatchAttribute::SameFor(const api::Device& a, const api::Device& b, std::string_view driver) const {
  return SameAttribute(a, b, driver, attribute_);
}

bool DistinctAttribute::SameFor(const api::Device& a, const api::Device& b, std::string_view driver) const {
  return SameAttribute(a, b, driver, attribute_);
}

std::unique_ptr<Constraint> NewMatchAttribute(std::vector<std::string> requests, std::string attribute,
                                              bool list_types) {
  return std::unique_ptr<Constraint>(new MatchAttribute(std::move(requests), std::move(attribute), list_types));
}

std::unique_ptr<Constraint> NewDistinctAttribute(std::vector<std::string> requests, std::string attribute,
                                                 bool list_types, DistinctAttributeMode mode) {
  return std::unique_ptr<Constraint>(
      new DistinctAttribute(std::move(requests), std::move(attribute), list_types, mode));
}

}  // namespace draforge::alloc::internal
