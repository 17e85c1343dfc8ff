// Shared helpers of the lib/sim suites: reading pools and corpus files, encoding slices as the CLI
// prints them, allocating claims against expanded slices.
#ifndef DRAFORGE_TESTS_SIM_SIM_TEST_UTIL_H_
#define DRAFORGE_TESTS_SIM_SIM_TEST_UTIL_H_

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "api/yaml.h"
#include "common/status.h"
#include "sim/expand.h"
#include "sim/simulated_device_pool.h"

namespace draforge::sim::testing {

inline std::filesystem::path SourceRoot() {
  const char* root = std::getenv("DRAFORGE_SOURCE_ROOT");
  return root != nullptr ? std::filesystem::path(root) : std::filesystem::path(".");
}
inline std::filesystem::path TestData() { return SourceRoot() / "tests" / "sim" / "testdata"; }
inline std::filesystem::path Corpus() {
  const char* c = std::getenv("DRAFORGE_CORPUS");
  return c != nullptr ? std::filesystem::path(c) : SourceRoot() / ".." / "shared" / "corpus";
}

inline absl::StatusOr<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every object of a file (all must decode).
inline absl::StatusOr<std::vector<api::Object>> LoadObjects(const std::filesystem::path& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  ASSIGN_OR_RETURN(auto decoded, api::DecodeStream(text, api::DecodeOptions{}));
  std::vector<api::Object> out;
  for (auto& d : decoded) {
    if (!d.object.ok()) return absl::Status(d.object.status().code(), absl::StrCat(path.string(), ": ", d.object.status().message()));
    out.push_back(std::move(*d.object));
  }
  return out;
}

inline absl::StatusOr<SimulatedDevicePool> LoadPool(const std::filesystem::path& path) {
  ASSIGN_OR_RETURN(auto objects, LoadObjects(path));
  for (const api::Object& o : objects) {
    if (IsSimulatedDevicePool(o)) return DecodeSimulatedDevicePool(o);
  }
  return absl::NotFoundError(absl::StrCat(path.string(), " has no SimulatedDevicePool"));
}

// The slices as `draforge sim expand -o yaml` prints them: one YAML stream, one document per slice.
inline absl::StatusOr<std::string> SlicesYaml(const std::vector<api::ResourceSlice>& slices) {
  std::vector<rapidjson::Document> docs;
  for (const api::ResourceSlice& s : slices) {
    api::Object o;
    o.api_version = "resource.k8s.io/v1";
    o.value = s;
    ASSIGN_OR_RETURN(rapidjson::Document d, api::EncodeObject(o));
    docs.push_back(std::move(d));
  }
  std::vector<const rapidjson::Value*> values;
  for (const auto& d : docs) values.push_back(&d);
  return api::WriteYamlStream(values);
}

}  // namespace draforge::sim::testing

#endif  // DRAFORGE_TESTS_SIM_SIM_TEST_UTIL_H_
