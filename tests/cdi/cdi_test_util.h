// Helpers shared by the CDI tests: where the fixtures are, reading files, temporary directories.
#ifndef DRAFORGE_TESTS_CDI_CDI_TEST_UTIL_H_
#define DRAFORGE_TESTS_CDI_CDI_TEST_UTIL_H_

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace draforge::cdi::testing {

inline std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

// tests/cdi/fixtures in the source tree.
inline std::string FixturesDir() { return EnvOr("DRAFORGE_SOURCE_ROOT", ".") + "/tests/cdi/fixtures"; }
// ../shared/cdi (the CDI schema and its test documents).
inline std::string SharedCdiDir() {
  return EnvOr("DRAFORGE_CDI_SHARED", EnvOr("DRAFORGE_SOURCE_ROOT", ".") + "/../shared/cdi");
}

inline bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Names in `dir` (not "." / ".."), sorted.
inline std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

inline void RemoveTree(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    for (const std::string& name : ListDir(path)) RemoveTree(path + "/" + name);
    rmdir(path.c_str());
  } else {
    unlink(path.c_str());
  }
}

// A fresh directory under TMPDIR, removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    std::string pattern = EnvOr("TMPDIR", "/tmp") + "/draforge-cdi-test.XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    path_ = mkdtemp(buf.data()) != nullptr ? std::string(buf.data()) : std::string();
  }
  ~TempDir() {
    if (!path_.empty()) RemoveTree(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace draforge::cdi::testing

#endif  // DRAFORGE_TESTS_CDI_CDI_TEST_UTIL_H_
