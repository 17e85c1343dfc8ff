// api::BoxedVector: a list field that costs one pointer when empty.
#ifndef DRAFORGE_API_BOXED_VECTOR_H_
#define DRAFORGE_API_BOXED_VECTOR_H_

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace draforge::api {

// A list of T with std::vector's interface for what DRAForge's code uses (iteration, size, empty,
// [], front/back, push_back, emplace_back, insert, erase, clear, reserve, ==), and an implicit view
// as `const std::vector<T>&` for functions that take one.
//
// Why: a store of 100k devices holds 100k api::Device objects, and a Device has four lists that
// are almost always empty (consumesCounters, taints, bindingConditions, bindingFailureConditions);
// a std::vector takes 24 bytes even then. A BoxedVector is one pointer, null while the list is
// empty, to a std::vector on the heap. Copies are deep, as std::vector's.
template <typename T>
class BoxedVector {
 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;
  using reference = T&;
  using const_reference = const T&;

  BoxedVector() = default;
  BoxedVector(std::initializer_list<T> init) { Assign(std::vector<T>(init)); }
  BoxedVector(std::vector<T> v) { Assign(std::move(v)); }  // NOLINT(google-explicit-constructor)
  BoxedVector(const BoxedVector& other) : v_(other.v_ ? std::make_unique<std::vector<T>>(*other.v_) : nullptr) {}
  BoxedVector(BoxedVector&& other) noexcept = default;
  BoxedVector& operator=(const BoxedVector& other) {
    if (this != &other) v_ = other.v_ ? std::make_unique<std::vector<T>>(*other.v_) : nullptr;
    return *this;
  }
  BoxedVector& operator=(BoxedVector&& other) noexcept = default;
  BoxedVector& operator=(std::vector<T> v) {
    Assign(std::move(v));
    return *this;
  }
  // `device.taints = {a, b}` would otherwise be ambiguous between the two overloads above.
  BoxedVector& operator=(std::initializer_list<T> init) {
    Assign(std::vector<T>(init));
    return *this;
  }
  ~BoxedVector() = default;

  // The list as a std::vector (an empty one while there is none); valid until this list changes.
  const std::vector<T>& vector() const { return v_ ? *v_ : Empty(); }
  operator const std::vector<T>&() const { return vector(); }  // NOLINT(google-explicit-constructor)

  bool empty() const { return !v_ || v_->empty(); }
  size_t size() const { return v_ ? v_->size() : 0; }
  const_iterator begin() const { return vector().begin(); }
  const_iterator end() const { return vector().end(); }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }
  iterator begin() { return v_ ? v_->begin() : iterator(); }
  iterator end() { return v_ ? v_->end() : iterator(); }
  const T& operator[](size_t i) const { return (*v_)[i]; }
  T& operator[](size_t i) { return (*v_)[i]; }
  const T& at(size_t i) const { return vector().at(i); }
  T& at(size_t i) { return Mutable().at(i); }
  const T& front() const { return v_->front(); }
  T& front() { return v_->front(); }
  const T& back() const { return v_->back(); }
  T& back() { return v_->back(); }
  const T* data() const { return v_ ? v_->data() : nullptr; }

  void push_back(const T& value) { Mutable().push_back(value); }
  void push_back(T&& value) { Mutable().push_back(std::move(value)); }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    return Mutable().emplace_back(std::forward<Args>(args)...);
  }
  void pop_back() {
    v_->pop_back();
    if (v_->empty()) v_.reset();
  }
  // Iterators of an empty BoxedVector are begin() == end(); inserting there starts the list.
  iterator insert(const_iterator pos, const T& value) {
    const auto at = Offset(pos);
    return Mutable().insert(v_->begin() + at, value);
  }
  iterator insert(const_iterator pos, T&& value) {
    const auto at = Offset(pos);
    return Mutable().insert(v_->begin() + at, std::move(value));
  }
  template <typename It>
  iterator insert(const_iterator pos, It first, It last) {
    const auto at = Offset(pos);
    return Mutable().insert(v_->begin() + at, first, last);
  }
  iterator erase(const_iterator pos) { return v_->erase(pos); }
  iterator erase(const_iterator first, const_iterator last) {
    if (first == last) return begin() + Offset(first);
    return v_->erase(first, last);
  }
  void clear() { v_.reset(); }
  void reserve(size_t n) {
    if (n > 0) Mutable().reserve(n);
  }
  void resize(size_t n) {
    if (n == 0) {
      v_.reset();
    } else {
      Mutable().resize(n);
    }
  }
  void shrink_to_fit() {
    if (v_) v_->shrink_to_fit();
  }

  friend bool operator==(const BoxedVector& a, const BoxedVector& b) { return a.vector() == b.vector(); }
  friend bool operator==(const BoxedVector& a, const std::vector<T>& b) { return a.vector() == b; }

 private:
  static const std::vector<T>& Empty() {
    // Immutable and never destroyed: what an empty list reads as.
    static const std::vector<T>* const kEmpty = new std::vector<T>();
    return *kEmpty;
  }
  std::vector<T>& Mutable() {
    if (!v_) v_ = std::make_unique<std::vector<T>>();
    return *v_;
  }
  void Assign(std::vector<T> v) {
    if (v.empty()) {
      v_.reset();
    } else {
      v_ = std::make_unique<std::vector<T>>(std::move(v));
    }
  }
  ptrdiff_t Offset(const_iterator pos) const { return v_ ? pos - v_->cbegin() : 0; }

  std::unique_ptr<std::vector<T>> v_;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_BOXED_VECTOR_H_
