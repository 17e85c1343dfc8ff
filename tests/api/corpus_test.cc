// Every file of ../shared/corpus, read in place: each object decodes or is refused with a clear
// message, and the counts match the corpus README.
#include <filesystem>
#include <map>
#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "../common/test_util.h"

namespace draforge::api {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct FolderCounts {
  int files = 0;
  int objects = 0;
  std::map<std::string, int> dra;  // "v1 DeviceClass" -> count, decoded or refused
  int refused = 0;
};

FolderCounts DecodeFolder(const fs::path& dir, bool recursive) {
  FolderCounts c;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const fs::path& path = entry.path();
    if (!recursive && path.parent_path() != dir) continue;
    const std::string ext = path.extension().string();
    if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
    SCOPED_TRACE(path.string());
    ++c.files;
    auto stream = DecodeStream(testing::ReadFile(path), {});
    EXPECT_TRUE(stream.ok()) << stream.status();
    if (!stream.ok()) continue;
    for (const DecodedObject& d : *stream) {
      ++c.objects;
      if (d.api_version.rfind("resource.k8s.io/", 0) == 0) ++c.dra[absl::StrCat(d.api_version.substr(16), " ", d.kind)];
      if (d.object.ok()) {
        EXPECT_EQ(d.object->api_version, d.api_version);
        EXPECT_EQ(d.object->kind_name(), d.kind);
        continue;
      }
      ++c.refused;
      // A refusal names the object (kind and name) and what is wrong with it.
      const std::string message(d.object.status().message());
      EXPECT_THAT(message, HasSubstr(d.kind.empty() ? "object" : d.kind));
      if (d.api_version == "resource.k8s.io/v1alpha2") {
        EXPECT_THAT(message, HasSubstr("unsupported apiVersion"));
      }
    }
  }
  return c;
}

TEST(Corpus, ApiFixturesDecode) {
  FolderCounts head = DecodeFolder(testing::CorpusDir() / "api-fixtures", false);
  EXPECT_EQ(head.files, 32);
  EXPECT_EQ(head.objects, 32);
  EXPECT_EQ(head.refused, 0);
  EXPECT_EQ(head.dra.size(), 16u);
  FolderCounts v136 = DecodeFolder(testing::CorpusDir() / "api-fixtures" / "v1.36.0", false);
  EXPECT_EQ(v136.objects, 36);
  EXPECT_EQ(v136.refused, 0);
  FolderCounts v135 = DecodeFolder(testing::CorpusDir() / "api-fixtures" / "v1.35.0", false);
  EXPECT_EQ(v135.objects, 26);
  EXPECT_EQ(v135.refused, 0);
}

TEST(Corpus, ManifestsDecodeOrAreRefusedClearly) {
  FolderCounts c = DecodeFolder(testing::CorpusDir() / "manifests", true);
  EXPECT_EQ(c.files, 188);
  EXPECT_EQ(c.objects, 416);
  const std::map<std::string, int> expected = {
      {"v1 DeviceClass", 10},         {"v1 ResourceClaim", 44},          {"v1 ResourceClaimTemplate", 79},
      {"v1beta2 DeviceClass", 3},     {"v1beta2 DeviceTaintRule", 4},    {"v1beta2 ResourceClaim", 2},
      {"v1beta2 ResourceClaimTemplate", 6}, {"v1beta1 DeviceClass", 3}, {"v1beta1 ResourceClaim", 7},
      {"v1beta1 ResourceClaimTemplate", 12}, {"v1alpha3 DeviceTaintRule", 3},
      {"v1alpha3 ResourceClaimTemplate", 4}, {"v1alpha3 ResourcePoolStatusRequest", 2},
      {"v1alpha2 ResourceClaim", 8},  {"v1alpha2 ResourceClaimTemplate", 3},
  };
  EXPECT_EQ(c.dra, expected);
}

TEST(Corpus, SlicesDecode) {
  FolderCounts c = DecodeFolder(testing::CorpusDir() / "slices", true);
  EXPECT_EQ(c.files, 18);
  const std::map<std::string, int> expected = {
      {"v1 ResourceSlice", 22}, {"v1beta1 ResourceSlice", 3}, {"v1alpha2 ResourceSlice", 1}};
  EXPECT_EQ(c.dra, expected);
}

// Decodes `text` with and without the DOM-free JSON path and expects the same stream: objects,
// errors and warnings. Returns how many objects decoded.
int ExpectFastPathAgrees(const std::string& text) {
  DecodeOptions fast;
  fast.max_bytes = size_t{64} << 20;
  DecodeOptions dom = fast;
  dom.allow_fast_path = false;
  auto a = DecodeStream(text, fast);
  auto b = DecodeStream(text, dom);
  EXPECT_EQ(a.status(), b.status());
  if (!a.ok() || !b.ok()) return 0;
  EXPECT_EQ(a->size(), b->size());
  int decoded = 0;
  for (size_t i = 0; i < a->size() && i < b->size(); ++i) {
    const DecodedObject& x = (*a)[i];
    const DecodedObject& y = (*b)[i];
    SCOPED_TRACE(absl::StrCat("object ", i, " ", x.kind));
    EXPECT_EQ(x.index, y.index);
    EXPECT_EQ(x.line, y.line);
    EXPECT_EQ(x.api_version, y.api_version);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.warnings, y.warnings);
    EXPECT_EQ(x.object.status(), y.object.status());
    if (x.object.ok() && y.object.ok()) {
      EXPECT_TRUE(*x.object == *y.object);
      ++decoded;
    }
  }
  return decoded;
}

// Every corpus file as JSON (JSON files as they are; every object of every file re-encoded, as a
// List and as a top-level array): the DOM-free path decodes exactly what the DOM decoder decodes.
TEST(Corpus, JsonFastPathAgreesWithDomDecoder) {
  int files = 0, decoded = 0;
  for (const auto& entry : fs::recursive_directory_iterator(testing::CorpusDir())) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    const std::string text = testing::ReadFile(entry.path());
    ++files;
    if (ext == ".json") decoded += ExpectFastPathAgrees(text);
    auto stream = DecodeStream(text, {});
    if (!stream.ok()) continue;
    std::string items;
    for (const DecodedObject& d : *stream) {
      if (!d.object.ok()) continue;
      auto doc = EncodeObject(*d.object);
      if (!doc.ok()) continue;
      absl::StrAppend(&items, items.empty() ? "" : ",", WriteJson(*doc, false));
    }
    if (items.empty()) continue;
    decoded += ExpectFastPathAgrees(absl::StrCat(R"({"apiVersion":"v1","kind":"List","items":[)", items, "]}"));
    decoded += ExpectFastPathAgrees(absl::StrCat("[", items, "]"));
  }
  EXPECT_GT(files, 200);
  EXPECT_GT(decoded, 500);
}

TEST(Corpus, WithdrawnVersionsAreRefusedNamingTheVersion) {
  auto stream = DecodeStream(
      testing::ReadFile(testing::CorpusDir() / "slices" / "dra-example-driver-2024-04-readme-resourceslice-list-v1alpha2.yaml"), {});
  ASSERT_TRUE(stream.ok());
  ASSERT_FALSE(stream->empty());
  ASSERT_FALSE(stream->front().object.ok());
  EXPECT_THAT(std::string(stream->front().object.status().message()),
              HasSubstr("unsupported apiVersion \"resource.k8s.io/v1alpha2\""));
}

TEST(Corpus, TemplatesParseAfterIndexSubstitution) {
  const fs::path dir = testing::CorpusDir() / "manifests" / "k8s-scheduler-perf" / "templated";
  int parsed = 0, skipped = 0;
  static const std::regex index_re("\\{\\{ ?\\.Index ?\\}\\}");
  for (const auto& path : testing::FilesUnder(dir, ".yaml.tmpl")) {
    SCOPED_TRACE(path.string());
    std::string text = std::regex_replace(testing::ReadFile(path), index_re, "7");
    if (text.find("{{") != std::string::npos) {
      ++skipped;  // range, Mod, DivideInt: real templates, not YAML
      continue;
    }
    auto stream = DecodeStream(text, {});
    ASSERT_TRUE(stream.ok()) << stream.status();
    for (const auto& d : *stream) {
      // ResourceSlicePatch was proposed for v1alpha3 but is not a kind of the 1.37 API: refused by name.
      if (d.kind == "ResourceSlicePatch") {
        EXPECT_THAT(std::string(d.object.status().message()), HasSubstr("unknown kind \"ResourceSlicePatch\""));
      } else {
        EXPECT_TRUE(d.object.ok()) << d.object.status();
      }
    }
    ++parsed;
  }
  EXPECT_EQ(parsed, 18);
  EXPECT_EQ(skipped, 3);
}

}  // namespace
}  // namespace draforge::api
