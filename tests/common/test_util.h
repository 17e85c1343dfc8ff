// Helpers shared by the test suites: locating ../shared/corpus and reading files.
#ifndef DRAFORGE_TESTS_COMMON_TEST_UTIL_H_
#define DRAFORGE_TESTS_COMMON_TEST_UTIL_H_

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace draforge::testing {

// The corpus folder: $DRAFORGE_CORPUS (set by meson test), else ../shared/corpus beside the checkout.
inline std::filesystem::path CorpusDir() {
  if (const char* env = std::getenv("DRAFORGE_CORPUS")) return env;
  return std::filesystem::path(__FILE__).parent_path() / ".." / ".." / ".." / "shared" / "corpus";
}

inline std::filesystem::path SourceRoot() {
  if (const char* env = std::getenv("DRAFORGE_SOURCE_ROOT")) return env;
  return std::filesystem::path(__FILE__).parent_path() / ".." / "..";
}

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every regular file below `dir` whose name ends with `suffix`, sorted.
inline std::vector<std::filesystem::path> FilesUnder(const std::filesystem::path& dir, const std::string& suffix) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace draforge::testing

#endif  // DRAFORGE_TESTS_COMMON_TEST_UTIL_H_
