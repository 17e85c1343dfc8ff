// DRAForge C++ API: writing files crash-safely (draforge_file_write_atomic).
#ifndef DRAFORGE_CPP_FILES_HPP
#define DRAFORGE_CPP_FILES_HPP

#include <string_view>

#include "draforge/cpp/result.hpp"
#include "draforge/files.h"

namespace draforge {

// Replaces the file `path` by `data` with permission bits `mode`, atomically and durably: readers
// see the previous complete file or the new one, also after a crash. The directory must exist.
inline Result<void> WriteFileAtomic(std::string_view path, std::string_view data, unsigned int mode = 0644) {
  detail::CString p(path);
  return detail::VoidCall(
      [&](draforge_error** e) { return draforge_file_write_atomic(p.get(), data.data(), data.size(), mode, e); });
}

}  // namespace draforge

#endif  // DRAFORGE_CPP_FILES_HPP
