// What the C ABI's test files share: the small scenarios several of them load, a temporary
// directory, and the CDI fixture (a claim allocated on node-1 and a directory to write specs to).
// Public headers only, as every caller of the ABI.
#ifndef DRAFORGE_TESTS_CAPI_FIXTURES_H_
#define DRAFORGE_TESTS_CAPI_FIXTURES_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "draforge/draforge.h"

namespace draforge_test {

// Class gpu.example.com (every device of that driver) and node-1's two GPUs, gpu-0 and gpu-1
// (model a100) in slice node-1-gpus, pool node-1: the start of most scenarios here.
inline constexpr char kNode1Gpus[] = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {model: {string: a100}}
  - name: gpu-1
    attributes: {model: {string: a100}}
)";

// Claim team-a/two: request gpus, two devices of class gpu.example.com (all of node-1's).
inline constexpr char kClaimTwo[] = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two, namespace: team-a}
spec:
  devices:
    requests:
    - name: gpus
      exactly: {deviceClassName: gpu.example.com, count: 2}
)";

// A file of tests/capi/data, found through $DRAFORGE_SOURCE_ROOT (meson test sets it) or, without
// it, relative to the working directory.
inline std::string DataFile(const std::string& name) {
  const char* root = std::getenv("DRAFORGE_SOURCE_ROOT");
  return std::string(root != nullptr ? root : ".") + "/tests/capi/data/" + name;
}


// The bytes of an owned buffer; the buffer is disposed.
inline std::string Take(draforge_buffer& b) {
  std::string s(b.ptr ? b.ptr : "", b.size);
  draforge_buffer_dispose(&b);
  return s;
}

// A fresh directory under the system's temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "draforge-capi-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    if (!path_.empty()) std::filesystem::remove_all(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Path(const std::string& name) const { return path_ + "/" + name; }
  // Writes `text` to `name` (parent folders created); returns its path.
  std::string Write(const std::string& name, const std::string& text) const {
    std::filesystem::create_directories(std::filesystem::path(Path(name)).parent_path());
    std::ofstream(Path(name)) << text;
    return Path(name);
  }

 private:
  std::string path_;
};

// A cluster loaded with a scenario and its snapshot, destroyed after the test. Tests that expect an
// error leave it in error_.
class ClusterFixture : public ::testing::Test {
 protected:
  explicit ClusterFixture(std::string scenario) : scenario_(std::move(scenario)) {}
  void SetUp() override {
    ASSERT_EQ(draforge_cluster_create(&cluster_, nullptr, nullptr), DRAFORGE_OK);
    draforge_error* e = nullptr;
    const int rc = draforge_cluster_apply(cluster_, scenario_.data(), scenario_.size(), &applied_, &e);
    const std::string why = e != nullptr ? draforge_error_message(e) : "";
    draforge_error_destroy(e);
    ASSERT_EQ(rc, DRAFORGE_OK) << why;
    ASSERT_EQ(draforge_cluster_snapshot(&snapshot_, cluster_, nullptr), DRAFORGE_OK);
  }
  void TearDown() override {
    draforge_snapshot_destroy(snapshot_);
    draforge_cluster_destroy(cluster_);
    draforge_error_destroy(error_);
  }

  const std::string scenario_;
  size_t applied_ = 0;  // how many objects the scenario holds
  draforge_cluster* cluster_ = nullptr;
  draforge_snapshot* snapshot_ = nullptr;
  draforge_error* error_ = nullptr;
};

// A snapshot of data/train-allocated.yaml (claim team-a/train holding node-1's two GPUs; the
// cluster is not kept) and an empty directory for CDI specs.
class CdiFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.empty()) << "mkdtemp failed";
    draforge_cluster* c = nullptr;
    ASSERT_EQ(draforge_cluster_create(&c, nullptr, nullptr), DRAFORGE_OK);
    draforge_error* e = nullptr;
    const int applied = draforge_cluster_apply_file(c, DataFile("train-allocated.yaml").c_str(), nullptr, &e);
    const std::string why = e != nullptr ? draforge_error_message(e) : "";
    draforge_error_destroy(e);
    if (applied == DRAFORGE_OK) draforge_cluster_snapshot(&snapshot_, c, nullptr);
    draforge_cluster_destroy(c);
    ASSERT_EQ(applied, DRAFORGE_OK) << why;
    ASSERT_NE(snapshot_, nullptr);
  }
  void TearDown() override { draforge_snapshot_destroy(snapshot_); }

  draforge_snapshot* snapshot_ = nullptr;
  TempDir temp_;
  const std::string dir_ = temp_.path();
};

}  // namespace draforge_test

#endif  // DRAFORGE_TESTS_CAPI_FIXTURES_H_
