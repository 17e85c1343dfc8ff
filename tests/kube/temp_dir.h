// A scratch folder for the lib/kube tests (kubeconfig files, exec plugin scripts), removed with
// everything in it when the object goes.
#ifndef DRAFORGE_TESTS_KUBE_TEMP_DIR_H_
#define DRAFORGE_TESTS_KUBE_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace draforge::kube::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "draforge_kube_test.XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `text` to `name` (relative to the folder) and returns its path.
  std::string Write(const std::string& name, const std::string& text) const {
    std::string p = Path(name);
    std::ofstream(p) << text;
    return p;
  }
  // Writes an executable script (mode 0700) and returns its path.
  std::string Script(const std::string& name, const std::string& text) const {
    std::string p = Write(name, text);
    std::filesystem::permissions(p, std::filesystem::perms::owner_all);
    return p;
  }
  std::string Path(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace draforge::kube::testing

#endif  // DRAFORGE_TESTS_KUBE_TEMP_DIR_H_
