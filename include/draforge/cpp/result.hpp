// DRAForge C++ API: errors and results (header-only, C++17, over the C ABI).
//
// Every fallible call returns a draforge::Result<T>: a value or a draforge::Error. Nothing throws
// unless the caller opts in: `value()` throws draforge::Exception when the result holds an error
// (like std::expected::value), while `ok()`, `operator*`, `error()` and `value_or()` never throw.
#ifndef DRAFORGE_CPP_RESULT_HPP
#define DRAFORGE_CPP_RESULT_HPP

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "draforge/common.h"

namespace draforge {

// An error of the C ABI: its code (a draforge_error_code) and what the message names.
struct Error {
  int code = DRAFORGE_EINTERNAL;
  std::string message;
  std::string object;  // "Kind/name" or "Kind/namespace/name"; "" when about no one object
  std::string field;   // "spec.devices[0].name"; "" when no field
  // DRAFORGE_EAPI errors (kube.hpp): the API server's HTTP status (404, 409, ...) and metav1.Status
  // reason ("NotFound", "Conflict", "AlreadyExists", "Gone"); 0 and "" otherwise.
  int http_status = 0;
  std::string reason;
};

// Thrown only by Result<T>::value() (and Result<void>::value()) on an error.
class Exception : public std::runtime_error {
 public:
  explicit Exception(Error error) : std::runtime_error(error.message), error_(std::move(error)) {}
  const Error& error() const noexcept { return error_; }

 private:
  Error error_;
};

// A value of type T or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  // The value; throws draforge::Exception when this holds an error.
  T& value() & { Check(); return std::get<0>(v_); }
  const T& value() const& { Check(); return std::get<0>(v_); }
  T&& value() && { Check(); return std::get<0>(std::move(v_)); }
  // The value without a check: the caller has tested ok().
  T& operator*() & noexcept { return *std::get_if<0>(&v_); }
  const T& operator*() const& noexcept { return *std::get_if<0>(&v_); }
  T&& operator*() && noexcept { return std::move(*std::get_if<0>(&v_)); }
  T* operator->() noexcept { return std::get_if<0>(&v_); }
  const T* operator->() const noexcept { return std::get_if<0>(&v_); }
  template <typename U>
  T value_or(U&& fallback) const& { return ok() ? **this : static_cast<T>(std::forward<U>(fallback)); }

  // The error; only valid when !ok().
  const Error& error() const& noexcept { return *std::get_if<1>(&v_); }
  Error&& error() && noexcept { return std::move(*std::get_if<1>(&v_)); }

 private:
  void Check() const {
    if (!ok()) throw Exception(*std::get_if<1>(&v_));
  }
  std::variant<T, Error> v_;
};

// Success or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design

  bool ok() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  // Throws draforge::Exception when this holds an error.
  void value() const {
    if (!ok_) throw Exception(error_);
  }
  const Error& error() const& noexcept { return error_; }
  Error&& error() && noexcept { return std::move(error_); }

 private:
  Error error_;
  bool ok_ = true;
};

namespace detail {

// Takes ownership of a C error (destroying it) and returns it as an Error with code `rc`.
inline Error TakeError(int rc, draforge_error* e) {
  Error out;
  out.code = rc;
  if (e != nullptr) {
    out.message = draforge_error_message(e);
    out.object = draforge_error_object(e);
    out.field = draforge_error_field(e);
    draforge_error_destroy(e);
  } else {
    out.message = "draforge error " + std::to_string(rc);
  }
  return out;
}

// Moves a C buffer's bytes into a string and disposes of the buffer.
inline std::string TakeBuffer(draforge_buffer& b) {
  std::string s(b.ptr != nullptr ? b.ptr : "", b.size);
  draforge_buffer_dispose(&b);
  return s;
}

// Calls `fn(draforge_buffer*, draforge_error**)` and returns the buffer's bytes or the error.
template <typename Fn>
Result<std::string> BufferCall(Fn fn) {
  draforge_buffer buf{nullptr, 0};
  draforge_error* e = nullptr;
  const int rc = fn(&buf, &e);
  if (rc != DRAFORGE_OK) {
    draforge_buffer_dispose(&buf);
    return TakeError(rc, e);
  }
  return TakeBuffer(buf);
}

// Calls `fn(draforge_error**)` and returns success or the error.
template <typename Fn>
Result<void> VoidCall(Fn fn) {
  draforge_error* e = nullptr;
  const int rc = fn(&e);
  if (rc != DRAFORGE_OK) return TakeError(rc, e);
  return {};
}

// A NUL-terminated copy of a string_view for the C ABI (which takes const char*).
class CString {
 public:
  explicit CString(std::string_view s) : s_(s) {}
  const char* get() const noexcept { return s_.c_str(); }
  // NULL for "", for the C parameters where NULL means "the default".
  const char* or_null() const noexcept { return s_.empty() ? nullptr : s_.c_str(); }

 private:
  std::string s_;
};

// The deleter of a handle type: its destroy call.
template <typename T, void (*Destroy)(T*)>
struct HandleDeleter {
  void operator()(T* p) const noexcept { Destroy(p); }
};

}  // namespace detail
}  // namespace draforge

#endif  // DRAFORGE_CPP_RESULT_HPP
