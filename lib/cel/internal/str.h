// Cat(): string concatenation that accepts std::string_view (Debian's Abseil does not).
#ifndef DRAFORGE_CEL_INTERNAL_STR_H_
#define DRAFORGE_CEL_INTERNAL_STR_H_

#include <string>
#include <string_view>
#include <type_traits>

namespace draforge::cel::internal {

inline void AppendPiece(std::string& out, std::string_view s) { out.append(s.data(), s.size()); }
inline void AppendPiece(std::string& out, const char* s) { out.append(s); }
inline void AppendPiece(std::string& out, const std::string& s) { out.append(s); }
inline void AppendPiece(std::string& out, char c) { out.push_back(c); }
template <typename T, typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, char>>>
inline void AppendPiece(std::string& out, T v) { out.append(std::to_string(v)); }

template <typename... A>
std::string Cat(const A&... a) {
  std::string out;
  (AppendPiece(out, a), ...);
  return out;
}

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_STR_H_
