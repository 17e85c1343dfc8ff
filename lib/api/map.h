// api::Map: the map type of DRA objects (attributes, capacity, counters, labels, ...).
#ifndef DRAFORGE_API_MAP_H_
#define DRAFORGE_API_MAP_H_

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace draforge::api {

// A map from string keys to V kept as a vector sorted by key.
//
// Why not std::map: DRA maps are small (a device has about ten attributes) and read far more often
// than written; a sorted vector costs one allocation instead of one per entry and iterates in the
// order Go's encoding/json writes map keys (sorted), which keeps encoded output byte-identical.
template <typename V>
class Map {
 public:
  using value_type = std::pair<std::string, V>;
  using const_iterator = typename std::vector<value_type>::const_iterator;
  using iterator = typename std::vector<value_type>::iterator;

  Map() = default;
  Map(std::initializer_list<value_type> init) {
    for (const auto& kv : init) Set(kv.first, kv.second);
  }

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }

  // Returns the value of `key`, or nullptr. The pointer is invalidated by the next insertion.
  const V* Find(std::string_view key) const {
    auto it = LowerBound(key);
    return it != entries_.end() && it->first == key ? &it->second : nullptr;
  }
  V* Find(std::string_view key) {
    auto it = LowerBound(key);
    return it != entries_.end() && it->first == key ? &it->second : nullptr;
  }
  bool Contains(std::string_view key) const { return Find(key) != nullptr; }

  // Inserts or replaces `key`.
  V& Set(std::string_view key, V value) {
    auto it = LowerBound(key);
    if (it != entries_.end() && it->first == key) {
      it->second = std::move(value);
      return it->second;
    }
    return entries_.insert(it, value_type(std::string(key), std::move(value)))->second;
  }
  bool Erase(std::string_view key) {
    auto it = LowerBound(key);
    if (it == entries_.end() || it->first != key) return false;
    entries_.erase(it);
    return true;
  }

  // Bulk construction for decoders: append in any order, then Sort() once. Returns the first
  // duplicated key after sorting, if any (the caller reports it).
  void Reserve(size_t n) { entries_.reserve(n); }
  void AppendUnsorted(std::string key, V value) { entries_.emplace_back(std::move(key), std::move(value)); }
  const std::string* SortAndFindDuplicate() {
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const value_type& a, const value_type& b) { return a.first < b.first; });
    for (size_t i = 1; i < entries_.size(); ++i) {
      if (entries_[i].first == entries_[i - 1].first) return &entries_[i].first;
    }
    return nullptr;
  }

  friend bool operator==(const Map& a, const Map& b) { return a.entries_ == b.entries_; }

 private:
  const_iterator LowerBound(std::string_view key) const {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const value_type& e, std::string_view k) { return e.first < k; });
  }
  iterator LowerBound(std::string_view key) {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const value_type& e, std::string_view k) { return e.first < k; });
  }

  std::vector<value_type> entries_;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_MAP_H_
