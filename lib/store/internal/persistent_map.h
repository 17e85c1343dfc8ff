// A persistent (immutable, structurally shared) sorted map: the building block of store::Snapshot.
//
// Why: a Snapshot must be O(1) to publish and must never change under a reader, while the writer
// keeps changing the store. A treap whose nodes are immutable and shared through shared_ptr gives
// both: Set/Erase copy only the O(log n) nodes on the path from the root, every other node is shared
// with the previous versions, and a copy of the map is a pointer copy. Old versions stay valid as long
// as someone holds them.
//
// Keys are compared through their "view" (std::array<std::string_view, N>): a key is either a view
// key (ViewKey<N>, whose string_views point into a heap object held by the entry's value, so the key
// lives exactly as long as the value) or an owned key (OwnedKey<N>). Lookups take a ViewKey probe.
// Treap priorities are a hash of the key, so the tree shape is a pure function of the key set: no
// randomness, no global state.
//
// Thread-safety: a PersistentMap value is not synchronized; distinct copies (even ones that share
// nodes) may be used from different threads at the same time because shared nodes are never
// modified.
#ifndef DRAFORGE_STORE_INTERNAL_PERSISTENT_MAP_H_
#define DRAFORGE_STORE_INTERNAL_PERSISTENT_MAP_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace draforge::store::internal {

template <size_t N>
using ViewKey = std::array<std::string_view, N>;

template <size_t N>
struct OwnedKey {
  std::array<std::string, N> parts;

  OwnedKey() = default;
  explicit OwnedKey(const ViewKey<N>& view) {
    for (size_t i = 0; i < N; ++i) parts[i] = std::string(view[i]);
  }
};

template <size_t N>
inline const ViewKey<N>& KeyView(const ViewKey<N>& key) {
  return key;
}
template <size_t N>
inline ViewKey<N> KeyView(const OwnedKey<N>& key) {
  ViewKey<N> view;
  for (size_t i = 0; i < N; ++i) view[i] = key.parts[i];
  return view;
}

template <size_t N>
inline uint32_t KeyPriority(const ViewKey<N>& key) {
  // FNV-1a over the parts, with a separator so that ("ab","c") and ("a","bc") differ, then a final
  // avalanche (murmur3 fmix64) so that similar keys get unrelated priorities.
  uint64_t h = 1469598103934665603ULL;
  for (const std::string_view part : key) {
    for (const char c : part) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ULL;
    }
    h ^= 0xff;
    h *= 1099511628211ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return static_cast<uint32_t>(h);
}

// K is ViewKey<N> or OwnedKey<N>; V any copyable value (kept by value in the node).
template <typename K, typename V, size_t N>
class PersistentMap {
 public:
  using View = ViewKey<N>;

  struct Node {
    K key;
    V value;
    uint32_t priority;
    std::shared_ptr<const Node> left;
    std::shared_ptr<const Node> right;
  };
  using NodePtr = std::shared_ptr<const Node>;

  PersistentMap() = default;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The value stored under `key`, or nullptr. Valid as long as this map version (or a copy) lives.
  const V* Find(const View& key) const {
    const Node* n = FindNode(key);
    return n == nullptr ? nullptr : &n->value;
  }
  const Node* FindNode(const View& key) const {
    const Node* n = root_.get();
    while (n != nullptr) {
      const auto cmp = key <=> KeyView(n->key);
      if (cmp == 0) return n;
      n = cmp < 0 ? n->left.get() : n->right.get();
    }
    return nullptr;
  }

  // The smallest entry, or nullptr when empty.
  const Node* First() const {
    const Node* n = root_.get();
    if (n == nullptr) return nullptr;
    while (n->left != nullptr) n = n->left.get();
    return n;
  }

  // Inserts `key` or replaces both the key and the value of the entry that compares equal (so that a
  // view key can be re-anchored to a new value).
  void Set(K key, V value) {
    const View view = KeyView(key);
    const bool existed = FindNode(view) != nullptr;
    root_ = Insert(root_, view, KeyPriority(view), std::move(key), std::move(value));
    if (!existed) ++size_;
  }

  // Removes `key`; returns whether it was present.
  bool Erase(const View& key) {
    if (FindNode(key) == nullptr) return false;
    root_ = Remove(root_, key);
    --size_;
    return true;
  }

  // Calls f(key, value) for every entry in key order.
  template <typename F>
  void ForEach(F&& f) const {
    Walk(root_.get(), f);
  }

  // Calls f(key, value) in key order for the entries whose key is >= `lower`, until f returns false.
  template <typename F>
  void ForEachFrom(const View& lower, F&& f) const {
    WalkFrom(root_.get(), lower, f);
  }

 private:
  static NodePtr Make(const Node& n, NodePtr left, NodePtr right) {
    return std::make_shared<const Node>(Node{n.key, n.value, n.priority, std::move(left), std::move(right)});
  }

  // Splits `t` (which does not contain `key`) into the entries < key and > key.
  static std::pair<NodePtr, NodePtr> Split(const NodePtr& t, const View& key) {
    if (t == nullptr) return {nullptr, nullptr};
    if (key < KeyView(t->key)) {
      auto [l, r] = Split(t->left, key);
      return {std::move(l), Make(*t, std::move(r), t->right)};
    }
    auto [l, r] = Split(t->right, key);
    return {Make(*t, t->left, std::move(l)), std::move(r)};
  }

  // Joins two treaps where every key of `a` is smaller than every key of `b`.
  static NodePtr Merge(const NodePtr& a, const NodePtr& b) {
    if (a == nullptr) return b;
    if (b == nullptr) return a;
    if (a->priority >= b->priority) return Make(*a, a->left, Merge(a->right, b));
    return Make(*b, Merge(a, b->left), b->right);
  }

  static NodePtr Insert(const NodePtr& t, const View& view, uint32_t priority, K&& key, V&& value) {
    if (t == nullptr) {
      return std::make_shared<const Node>(Node{std::move(key), std::move(value), priority, nullptr, nullptr});
    }
    const auto cmp = view <=> KeyView(t->key);
    if (cmp == 0) {
      return std::make_shared<const Node>(Node{std::move(key), std::move(value), t->priority, t->left, t->right});
    }
    if (priority > t->priority) {
      // The new key becomes the root of this subtree. It cannot be present below: a key's priority is
      // a function of the key, and every node below `t` has a priority <= t->priority.
      auto [l, r] = Split(t, view);
      return std::make_shared<const Node>(Node{std::move(key), std::move(value), priority, std::move(l), std::move(r)});
    }
    if (cmp < 0) return Make(*t, Insert(t->left, view, priority, std::move(key), std::move(value)), t->right);
    return Make(*t, t->left, Insert(t->right, view, priority, std::move(key), std::move(value)));
  }

  static NodePtr Remove(const NodePtr& t, const View& key) {
    const auto cmp = key <=> KeyView(t->key);
    if (cmp == 0) return Merge(t->left, t->right);
    if (cmp < 0) return Make(*t, Remove(t->left, key), t->right);
    return Make(*t, t->left, Remove(t->right, key));
  }

  template <typename F>
  static void Walk(const Node* n, F& f) {
    if (n == nullptr) return;
    Walk(n->left.get(), f);
    f(n->key, n->value);
    Walk(n->right.get(), f);
  }

  template <typename F>
  static bool WalkFrom(const Node* n, const View& lower, F& f) {
    if (n == nullptr) return true;
    if (KeyView(n->key) < lower) return WalkFrom(n->right.get(), lower, f);
    if (!WalkFrom(n->left.get(), lower, f)) return false;
    if (!f(n->key, n->value)) return false;
    return WalkFrom(n->right.get(), lower, f);
  }

  NodePtr root_;
  size_t size_ = 0;
};

}  // namespace draforge::store::internal

#endif  // DRAFORGE_STORE_INTERNAL_PERSISTENT_MAP_H_
