#include "static_files.h"

#include <cctype>
#include <fstream>
#include <iterator>
#include <system_error>
#include <utility>

#include "http_encoding.h"

namespace draforge::server {

std::string ContentTypeForPath(std::string_view path) {
  const size_t slash = path.rfind('/');
  const size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) {
    return "application/octet-stream";
  }
  std::string ext(path.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Text types carry a charset: the dashboard's build writes UTF-8.
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {"html", "text/html; charset=utf-8"},
      {"htm", "text/html; charset=utf-8"},
      {"js", "text/javascript; charset=utf-8"},
      {"mjs", "text/javascript; charset=utf-8"},
      {"css", "text/css; charset=utf-8"},
      {"json", "application/json; charset=utf-8"},
      {"map", "application/json; charset=utf-8"},
      {"webmanifest", "application/manifest+json; charset=utf-8"},
      {"txt", "text/plain; charset=utf-8"},
      {"svg", "image/svg+xml"},
      {"png", "image/png"},
      {"jpg", "image/jpeg"},
      {"jpeg", "image/jpeg"},
      {"gif", "image/gif"},
      {"webp", "image/webp"},
      {"ico", "image/vnd.microsoft.icon"},
      {"woff", "font/woff"},
      {"woff2", "font/woff2"},
      {"ttf", "font/ttf"},
      {"wasm", "application/wasm"},
  };
  for (const auto& [e, type] : kTypes) {
    if (ext == e) return std::string(type);
  }
  return "application/octet-stream";
}

namespace {

// A segment of a relative path starts with '.': a dotfile (.env, .git/config, .htpasswd) that a
// deployment may leave in the folder but never means to publish. The dashboard has none.
bool HasHiddenSegment(std::string_view rel) {
  size_t start = 0;
  while (start < rel.size()) {
    if (rel[start] == '.') return true;
    const size_t slash = rel.find('/', start);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return false;
}

}  // namespace

StaticFiles::StaticFiles(std::filesystem::path root) : root_(std::move(root)) {}

Result<std::shared_ptr<const StaticFile>> StaticFiles::Get(std::string_view request_path) {
  if (root_.empty()) return Error{DRAFORGE_ENOTFOUND, "no static directory"};
  std::string rel(request_path);
  if (rel.empty() || rel.back() == '/') rel += "index.html";
  if (rel.find('\0') != std::string::npos || rel.find('\\') != std::string::npos) {
    return Error{DRAFORGE_EINVALID, "invalid path \"" + std::string(request_path) + "\""};
  }
  if (rel == ".." || rel.find("/../") != std::string::npos || rel.rfind("../", 0) == 0 ||
      (rel.size() >= 3 && rel.compare(rel.size() - 3, 3, "/..") == 0)) {
    return Error{DRAFORGE_EINVALID, "invalid path \"" + std::string(request_path) + "\""};
  }
  while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
  if (HasHiddenSegment(rel)) return Error{DRAFORGE_EUNSUPPORTED, "hidden file " + std::string(request_path)};

  // What the path resolves to, symbolic links followed, must still be a visible file under the
  // root: a link in the root must not publish /etc or a dotfile. The file read is the resolved
  // one, so a link changed after this check cannot redirect the read.
  std::error_code ec;
  const std::filesystem::path root = std::filesystem::canonical(root_, ec);
  if (ec) return Error{DRAFORGE_ENOTFOUND, "no static directory " + root_.string()};
  const std::filesystem::path path = std::filesystem::canonical(root / rel, ec);
  if (ec) return Error{DRAFORGE_ENOTFOUND, "no file " + std::string(request_path)};
  const std::filesystem::path inside = path.lexically_relative(root);
  if (inside.empty() || *inside.begin() == "..") {
    return Error{DRAFORGE_EUNSUPPORTED, "file " + std::string(request_path) + " resolves outside the static root"};
  }
  if (HasHiddenSegment(inside.generic_string())) {
    return Error{DRAFORGE_EUNSUPPORTED, "file " + std::string(request_path) + " resolves to a hidden file"};
  }

  if (!std::filesystem::is_regular_file(path, ec)) return Error{DRAFORGE_ENOTFOUND, "no file " + std::string(request_path)};
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Error{DRAFORGE_ENOTFOUND, "no file " + std::string(request_path)};
  const auto mtime = std::filesystem::last_write_time(path, ec);
  if (ec) return Error{DRAFORGE_ENOTFOUND, "no file " + std::string(request_path)};
  {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(rel);
        it != cache_.end() && it->second.path == path && it->second.size == size && it->second.mtime == mtime) {
      return it->second.file;
    }
  }
  // Read and compress outside the lock: other files stay servable meanwhile. Two first requests
  // for the same file may both do it; the answers are the same.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return Error{DRAFORGE_ENOTFOUND, "cannot read " + std::string(request_path)};
  auto file = std::make_shared<StaticFile>();
  file->content_type = ContentTypeForPath(rel);
  file->body = std::make_shared<const std::string>(std::move(bytes));
  if (IsCompressible(file->content_type) && file->body->size() >= kCompressMinBytes) {
    auto gz = Gzip(*file->body);
    if (gz && gz->size() < file->body->size()) file->gzip = std::make_shared<const std::string>(*std::move(gz));
  }
  std::lock_guard lock(mu_);
  if (cache_.size() < kMaxEntries || cache_.count(rel) > 0) cache_[rel] = Entry{path, mtime, size, file};
  return std::shared_ptr<const StaticFile>(std::move(file));
}

}  // namespace draforge::server
