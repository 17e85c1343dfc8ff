// api::Map: the map type of DRA objects (attributes, capacity, counters, labels, ...).
#ifndef DRAFORGE_API_MAP_H_
#define DRAFORGE_API_MAP_H_

#include <algorithm>
#include <atomic>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <new>
#include <string>
#include <string_view>
#include <utility>

namespace draforge::api {

// A map from string keys to V, sorted by key.
//
// Why not std::map: DRA maps are small (a device has about ten attributes) and read far more often
// than written; a sorted array iterates in the order Go's encoding/json writes map keys (sorted),
// which keeps encoded output byte-identical.
//
// Why entries are shared nodes: across the devices of a cluster most entries are equal
// ("brand": "Nvidia", "memory": 80Gi), so a decoder may give many maps the same immutable entry
// (Node, reference-counted) instead of a copy each; that is what keeps a 100k-device store small.
// The map itself is one pointer to its array of entries, which is reference-counted too: copying a
// map shares the array, and a decoder gives equal maps (the capacity of every GPU of a model) one
// array. Sharing is invisible: a map is made private (its array, then the entry reached) before any
// change, and an entry reached through a non-const accessor (non-const Find, begin, end) is first
// made private to this map (copy-on-write). Reference counts are atomic, so maps that share entries
// may be copied, read and destroyed from several threads, as snapshots are; a single map is not
// synchronized for concurrent writes, like any container.
template <typename V>
class Map {
 public:
  using value_type = std::pair<std::string, V>;

  // One entry; nodes are immutable while shared (refs > 1).
  struct Node {
    std::atomic<uint32_t> refs{1};
    value_type kv;
    explicit Node(value_type v) : kv(std::move(v)) {}
  };
  // A new node with one reference, owned by the caller (pass it to AppendNode or Unref it).
  static Node* NewNode(std::string key, V value) { return new Node(value_type(std::move(key), std::move(value))); }
  static void Ref(Node* n) { n->refs.fetch_add(1, std::memory_order_relaxed); }
  static void Unref(Node* n) {
    if (n->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete n;
  }

  template <bool kConst>
  class Iter {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Map::value_type;
    using difference_type = std::ptrdiff_t;
    using reference = std::conditional_t<kConst, const value_type&, value_type&>;
    using pointer = std::conditional_t<kConst, const value_type*, value_type*>;

    Iter() = default;
    explicit Iter(Node* const* p) : p_(p) {}
    // iterator -> const_iterator
    template <bool kOther, typename = std::enable_if_t<kConst && !kOther>>
    Iter(const Iter<kOther>& other) : p_(other.raw()) {}  // NOLINT(google-explicit-constructor)

    reference operator*() const { return (*p_)->kv; }
    pointer operator->() const { return &(*p_)->kv; }
    reference operator[](difference_type n) const { return p_[n]->kv; }
    Iter& operator++() { ++p_; return *this; }
    Iter operator++(int) { Iter t = *this; ++p_; return t; }
    Iter& operator--() { --p_; return *this; }
    Iter operator--(int) { Iter t = *this; --p_; return t; }
    Iter& operator+=(difference_type n) { p_ += n; return *this; }
    Iter& operator-=(difference_type n) { p_ -= n; return *this; }
    friend Iter operator+(Iter a, difference_type n) { return Iter(a.p_ + n); }
    friend Iter operator+(difference_type n, Iter a) { return Iter(a.p_ + n); }
    friend Iter operator-(Iter a, difference_type n) { return Iter(a.p_ - n); }
    friend difference_type operator-(Iter a, Iter b) { return a.p_ - b.p_; }
    friend bool operator==(Iter a, Iter b) { return a.p_ == b.p_; }
    friend auto operator<=>(Iter a, Iter b) { return a.p_ <=> b.p_; }
    Node* const* raw() const { return p_; }

   private:
    Node* const* p_ = nullptr;
  };
  using const_iterator = Iter<true>;
  using iterator = Iter<false>;

  Map() = default;
  Map(std::initializer_list<value_type> init) {
    for (const auto& kv : init) Set(kv.first, kv.second);
  }
  Map(const Map& other) : rep_(other.rep_) {
    if (rep_ != nullptr) rep_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  Map(Map&& other) noexcept : rep_(std::exchange(other.rep_, nullptr)) {}
  Map& operator=(const Map& other) {
    if (this != &other) {
      Map copy(other);
      std::swap(rep_, copy.rep_);
    }
    return *this;
  }
  Map& operator=(Map&& other) noexcept {
    if (this != &other) {
      Clear();
      rep_ = std::exchange(other.rep_, nullptr);
    }
    return *this;
  }
  ~Map() { Clear(); }

  bool empty() const { return size() == 0; }
  size_t size() const { return rep_ == nullptr ? 0 : rep_->size; }
  const_iterator begin() const { return const_iterator(data()); }
  const_iterator end() const { return const_iterator(data() + size()); }
  iterator begin() {
    Unshare();
    DetachAll();
    return iterator(data());
  }
  iterator end() {
    Unshare();
    DetachAll();
    return iterator(data() + size());
  }

  // Returns the value of `key`, or nullptr. The pointer is invalidated by the next insertion.
  const V* Find(std::string_view key) const {
    const size_t i = LowerBound(key);
    return i < size() && rep_->nodes[i]->kv.first == key ? &rep_->nodes[i]->kv.second : nullptr;
  }
  V* Find(std::string_view key) {
    const size_t i = LowerBound(key);
    if (i == size() || rep_->nodes[i]->kv.first != key) return nullptr;
    Unshare();
    return &Detach(i)->kv.second;
  }
  bool Contains(std::string_view key) const { return Find(key) != nullptr; }

  // Inserts or replaces `key`.
  V& Set(std::string_view key, V value) {
    Unshare();
    const size_t i = LowerBound(key);
    if (i < size() && rep_->nodes[i]->kv.first == key) {
      Node* n = NewNode(std::string(key), std::move(value));
      Unref(rep_->nodes[i]);
      rep_->nodes[i] = n;
      return n->kv.second;
    }
    Node* n = NewNode(std::string(key), std::move(value));
    Grow(size() + 1);
    std::move_backward(rep_->nodes + i, rep_->nodes + rep_->size, rep_->nodes + rep_->size + 1);
    rep_->nodes[i] = n;
    ++rep_->size;
    return n->kv.second;
  }
  bool Erase(std::string_view key) {
    const size_t i = LowerBound(key);
    if (i == size() || rep_->nodes[i]->kv.first != key) return false;
    Unshare();
    Unref(rep_->nodes[i]);
    std::move(rep_->nodes + i + 1, rep_->nodes + rep_->size, rep_->nodes + i);
    --rep_->size;
    return true;
  }

  // Bulk construction for decoders: append in any order, then Sort() once. Returns the first
  // duplicated key after sorting, if any (the caller reports it).
  void Reserve(size_t n) {
    Unshare();
    Grow(n);
  }
  void AppendUnsorted(std::string key, V value) { AppendNode(NewNode(std::move(key), std::move(value))); }
  // Appends `node`, taking over one reference (a decoder shares equal entries this way).
  void AppendNode(Node* node) {
    Unshare();
    if (rep_ == nullptr || rep_->size == rep_->cap) Grow(size() < 4 ? 4 : size() * 2);
    rep_->nodes[rep_->size++] = node;
  }
  const std::string* SortAndFindDuplicate() {
    if (size() < 2) return nullptr;
    Unshare();
    std::stable_sort(rep_->nodes, rep_->nodes + rep_->size,
                     [](const Node* a, const Node* b) { return a->kv.first < b->kv.first; });
    for (size_t i = 1; i < rep_->size; ++i) {
      if (rep_->nodes[i]->kv.first == rep_->nodes[i - 1]->kv.first) return &rep_->nodes[i]->kv.first;
    }
    return nullptr;
  }
  // Gives back room reserved beyond size() (decoders call it once a map is complete).
  void ShrinkToFit() {
    Unshare();
    if (rep_ != nullptr && rep_->cap > rep_->size) Reallocate(rep_->size);
  }

  friend bool operator==(const Map& a, const Map& b) {
    if (a.rep_ == b.rep_) return true;
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      const Node* x = a.rep_->nodes[i];
      const Node* y = b.rep_->nodes[i];
      if (x != y && !(x->kv == y->kv)) return false;
    }
    return true;
  }

 private:
  // The entries, in one allocation: a header and `cap` node pointers. Shared by copies of the map
  // (refs > 1) until one of them changes.
  struct Rep {
    std::atomic<uint32_t> refs;
    uint32_t size;
    uint32_t cap;
    Node* nodes[1];
  };
  static size_t RepBytes(size_t cap) { return offsetof(Rep, nodes) + cap * sizeof(Node*); }

  Node* const* data() const { return rep_ == nullptr ? nullptr : rep_->nodes; }
  size_t LowerBound(std::string_view key) const {
    size_t lo = 0, hi = size();
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (std::string_view(rep_->nodes[mid]->kv.first) < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  // Room for at least `n` entries.
  void Grow(size_t n) {
    if (n == 0 || (rep_ != nullptr && rep_->cap >= n)) return;
    Reallocate(n);
  }
  // Called on a private array (refs == 1) only.
  void Reallocate(size_t cap) {
    if (cap == 0) {
      ::operator delete(rep_);
      rep_ = nullptr;
      return;
    }
    Rep* r = static_cast<Rep*>(::operator new(RepBytes(cap)));
    new (&r->refs) std::atomic<uint32_t>(1);
    r->size = static_cast<uint32_t>(size());
    r->cap = static_cast<uint32_t>(cap);
    if (rep_ != nullptr) std::copy(rep_->nodes, rep_->nodes + rep_->size, r->nodes);
    ::operator delete(rep_);
    rep_ = r;
  }
  // Makes the array private to this map before it is changed: a copy that references every entry.
  void Unshare() {
    if (rep_ == nullptr || rep_->refs.load(std::memory_order_acquire) == 1) return;
    Rep* r = static_cast<Rep*>(::operator new(RepBytes(rep_->size)));
    new (&r->refs) std::atomic<uint32_t>(1);
    r->size = rep_->size;
    r->cap = rep_->size;
    for (size_t i = 0; i < rep_->size; ++i) {
      Ref(rep_->nodes[i]);
      r->nodes[i] = rep_->nodes[i];
    }
    Clear();
    rep_ = r;
  }
  // Makes entry i private to this map before it is written (the array is private already).
  Node* Detach(size_t i) {
    Node* n = rep_->nodes[i];
    if (n->refs.load(std::memory_order_acquire) != 1) {
      Node* copy = new Node(n->kv);
      Unref(n);
      rep_->nodes[i] = copy;
      n = copy;
    }
    return n;
  }
  void DetachAll() {
    for (size_t i = 0; i < size(); ++i) Detach(i);
  }
  void Clear() {
    if (rep_ == nullptr) return;
    if (rep_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      for (size_t i = 0; i < rep_->size; ++i) Unref(rep_->nodes[i]);
      ::operator delete(rep_);
    }
    rep_ = nullptr;
  }

  Rep* rep_ = nullptr;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_MAP_H_
