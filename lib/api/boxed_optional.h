// api::BoxedOptional: an optional field that costs one pointer when not set, and whose value may be
// shared by many objects.
#ifndef DRAFORGE_API_BOXED_OPTIONAL_H_
#define DRAFORGE_API_BOXED_OPTIONAL_H_

#include <atomic>
#include <concepts>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

namespace draforge::api {

template <typename T>
class BoxedOptional;

template <typename T>
struct IsBoxedOptional : std::false_type {};
template <typename T>
struct IsBoxedOptional<BoxedOptional<T>> : std::true_type {};

// Holds a T or nothing, like std::optional<T>, with the same interface for what DRAForge's code
// uses (has_value, bool, *, ->, value, value_or, emplace, reset, = nullopt, ==).
//
// Why: a store of 100k devices holds 100k api::Device objects, and most of a Device's optional
// fields (nodeName, nodeSelector) are never set; std::optional<std::string> takes 40 bytes even
// then, and std::optional<NodeSelector> 32. A BoxedOptional is one pointer (null when not set).
// The value lives in a reference-counted, immutable block, so copies share it and a decoder may
// give every device the same block for an equal value (device names such as "gpu-0" repeat on
// every node). Sharing is invisible: non-const access (*, ->, value()) first makes the block
// private to this object (copy-on-write). Reference counts are atomic, so objects that share a
// block may be copied, read and destroyed from several threads; one object is not synchronized for
// concurrent writes, like std::optional.
template <typename T>
class BoxedOptional {
 public:
  using value_type = T;

  BoxedOptional() = default;
  BoxedOptional(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional
  BoxedOptional(const std::optional<T>& v) : rep_(v ? new Rep(*v) : nullptr) {}  // NOLINT
  BoxedOptional(std::optional<T>&& v) : rep_(v ? new Rep(std::move(*v)) : nullptr) {}  // NOLINT
  // From anything T is constructible from (a T, a string literal for T = std::string, ...).
  template <typename U = T>
    requires(std::is_constructible_v<T, U &&> && !IsBoxedOptional<std::remove_cvref_t<U>>::value &&
             !std::is_same_v<std::remove_cvref_t<U>, std::nullopt_t> &&
             !std::is_same_v<std::remove_cvref_t<U>, std::optional<T>>)
  BoxedOptional(U&& v) : rep_(new Rep(T(std::forward<U>(v)))) {}  // NOLINT(google-explicit-constructor)
  BoxedOptional(const BoxedOptional& other) : rep_(other.rep_) {
    if (rep_ != nullptr) rep_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  BoxedOptional(BoxedOptional&& other) noexcept : rep_(std::exchange(other.rep_, nullptr)) {}
  BoxedOptional& operator=(const BoxedOptional& other) {
    BoxedOptional copy(other);
    std::swap(rep_, copy.rep_);
    return *this;
  }
  BoxedOptional& operator=(BoxedOptional&& other) noexcept {
    if (this != &other) {
      reset();
      rep_ = std::exchange(other.rep_, nullptr);
    }
    return *this;
  }
  BoxedOptional& operator=(std::nullopt_t) {
    reset();
    return *this;
  }
  ~BoxedOptional() { reset(); }

  bool has_value() const { return rep_ != nullptr; }
  explicit operator bool() const { return rep_ != nullptr; }

  // The value; the object must hold one (as for std::optional, anything else is undefined).
  // References stay valid until this object is changed or destroyed.
  const T& operator*() const { return rep_->value; }
  T& operator*() { return Detach()->value; }
  const T* operator->() const { return &rep_->value; }
  T* operator->() { return &Detach()->value; }
  // The value; throws std::bad_optional_access when there is none, as std::optional does.
  const T& value() const {
    if (rep_ == nullptr) throw std::bad_optional_access();
    return rep_->value;
  }
  T& value() {
    if (rep_ == nullptr) throw std::bad_optional_access();
    return Detach()->value;
  }
  template <typename U>
  T value_or(U&& fallback) const {
    return rep_ != nullptr ? rep_->value : static_cast<T>(std::forward<U>(fallback));
  }
  // A copy as a std::optional, for code that takes one (it was the field's type before). Not an
  // implicit conversion on purpose: a reference or view into that temporary copy would dangle.
  std::optional<T> ToOptional() const { return rep_ != nullptr ? std::optional<T>(rep_->value) : std::nullopt; }

  // Replaces the value with T(args...); returns it (private to this object).
  template <typename... Args>
  T& emplace(Args&&... args) {
    Rep* r = new Rep(T(std::forward<Args>(args)...));
    reset();
    rep_ = r;
    return r->value;
  }
  void reset() {
    if (rep_ != nullptr && rep_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete rep_;
    rep_ = nullptr;
  }

  friend bool operator==(const BoxedOptional& a, const BoxedOptional& b) {
    if (a.rep_ == b.rep_) return true;
    if (a.rep_ == nullptr || b.rep_ == nullptr) return false;
    return a.rep_->value == b.rep_->value;
  }
  friend bool operator==(const BoxedOptional& a, std::nullopt_t) { return a.rep_ == nullptr; }
  friend bool operator==(const BoxedOptional& a, const std::optional<T>& b) {
    if (!a.has_value() || !b.has_value()) return a.has_value() == b.has_value();
    return *a == *b;
  }
  template <typename U>
    requires(!IsBoxedOptional<U>::value && !std::is_same_v<U, std::nullopt_t> &&
             !std::is_same_v<U, std::optional<T>> && std::equality_comparable_with<T, U>)
  friend bool operator==(const BoxedOptional& a, const U& b) {
    return a.has_value() && *a == b;
  }

 private:
  struct Rep {
    std::atomic<uint32_t> refs{1};
    T value;
    explicit Rep(T v) : value(std::move(v)) {}
  };
  // Makes the block private to this object before it is written.
  Rep* Detach() {
    if (rep_->refs.load(std::memory_order_acquire) != 1) {
      Rep* copy = new Rep(rep_->value);
      reset();
      rep_ = copy;
    }
    return rep_;
  }

  Rep* rep_ = nullptr;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_BOXED_OPTIONAL_H_
