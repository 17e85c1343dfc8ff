// The dashboard's static files, read and compressed once per file version.
#ifndef DRAFORGE_EXAMPLES_SERVER_STATIC_FILES_H_
#define DRAFORGE_EXAMPLES_SERVER_STATIC_FILES_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "draforge/draforge.hpp"

namespace draforge::server {

// One file as it is served.
struct StaticFile {
  std::string content_type;                 // e.g. "text/javascript; charset=utf-8"
  std::shared_ptr<const std::string> body;  // the file's bytes
  // The gzip form, or null when the type is not compressible or the file is small
  // (http_encoding.h: kCompressMinBytes).
  std::shared_ptr<const std::string> gzip;
};

// Serves files under a root folder. Each file is read and compressed on its first request and
// again only when its size or modification time changes (a rebuilt dashboard is picked up without
// a restart). Thread-safe.
class StaticFiles {
 public:
  // `root` may be empty: every lookup is then NotFound.
  explicit StaticFiles(std::filesystem::path root);

  // The file for a decoded request path ("/", "/assets/app.js"; a path ending in "/" means its
  // index.html). Returns a shared, immutable file (valid as long as the caller holds it).
  // Errors (draforge::Error codes): DRAFORGE_EINVALID for a path that could leave the root (a ".."
  // segment, a backslash, a NUL); DRAFORGE_EUNSUPPORTED for a file that is never served: a segment
  // of the path starts with '.' (dotfiles, dot-folders), or the path resolves (symbolic links
  // followed) outside the root or to such a file; DRAFORGE_ENOTFOUND when no regular file is there
  // or it cannot be read.
  Result<std::shared_ptr<const StaticFile>> Get(std::string_view request_path);

 private:
  struct Entry {
    std::filesystem::path path;  // the resolved file: a link pointed elsewhere is a new file
    std::filesystem::file_time_type mtime;
    uintmax_t size = 0;
    std::shared_ptr<const StaticFile> file;
  };
  static constexpr size_t kMaxEntries = 1024;  // bounds memory if clients ask for many files

  const std::filesystem::path root_;
  std::mutex mu_;
  std::map<std::string, Entry> cache_;
};

// The Content-Type for a file name by its extension ("application/octet-stream" if unknown).
std::string ContentTypeForPath(std::string_view path);

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_STATIC_FILES_H_
