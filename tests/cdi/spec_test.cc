// The CDI spec model, codec, minimum-version rule and validator, driven by the fixture documents in
// tests/cdi/fixtures/specs and the CDI project's own test documents in ../shared/cdi/testdata.
//
// Fixture naming: "valid-*" documents are accepted by the reference loader (kCompat, any released
// version), "invalid-*" are rejected; "valid-min-<version>-*" need exactly that minimum cdiVersion.
// Each fixture's .golden file holds the minimum version and every problem at three levels; set
// DRAFORGE_UPDATE_GOLDEN=1 to rewrite them after a deliberate change (then review the diff).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cdi/spec_codec.h"
#include "cdi/spec_validation.h"
#include "cdi/version.h"
#include "cdi_test_util.h"

namespace draforge::cdi {
namespace {

using ::testing::HasSubstr;
using testing::FixturesDir;
using testing::ListDir;
using testing::ReadFile;
using testing::SharedCdiDir;

std::string SpecsDir() { return FixturesDir() + "/specs"; }

bool IsDocument(const std::string& name) {
  return name.size() > 5 && (name.ends_with(".json") || name.ends_with(".yaml"));
}

std::vector<std::string> Fixtures() {
  std::vector<std::string> out;
  for (const std::string& n : ListDir(SpecsDir())) {
    if (IsDocument(n)) out.push_back(n);
  }
  return out;
}

ValidateOptions Options(Strictness s, const std::string& max) {
  ValidateOptions o;
  o.strictness = s;
  o.max_version = max;
  return o;
}

std::string Report(const std::string& text, Format format) {
  std::string out;
  Spec spec;
  DecodeOptions decode;
  decode.format = format;
  decode.strict = false;
  if (DecodeSpec(text, decode, &spec).empty()) {
    out += "minimum: " + MinimumVersion(spec) + "\n";
  } else {
    out += "minimum: - (does not decode)\n";
  }
  const struct {
    const char* label;
    Strictness strictness;
    const char* max;
  } levels[] = {{"compat, max 1.1.0", Strictness::kCompat, "1.1.0"},
                {"strict, max 1.1.0", Strictness::kStrict, "1.1.0"},
                {"strict, max 0.5.0", Strictness::kStrict, "0.5.0"}};
  for (const auto& level : levels) {
    std::vector<Problem> problems = ValidateDocument(text, format, Options(level.strictness, level.max));
    out += std::string(level.label) + ": " + (problems.empty() ? "valid" : "invalid") + "\n";
    for (const Problem& p : problems) out += "  " + FormatProblem(p) + "\n";
  }
  return out;
}

TEST(CdiFixtures, ThereAreFixtures) { EXPECT_GE(Fixtures().size(), 30u); }

TEST(CdiFixtures, MatchGoldenReports) {
  const bool update = testing::EnvOr("DRAFORGE_UPDATE_GOLDEN", "") == "1";
  for (const std::string& name : Fixtures()) {
    SCOPED_TRACE(name);
    std::string text;
    ASSERT_TRUE(ReadFile(SpecsDir() + "/" + name, &text));
    const std::string report = Report(text, FormatForFileName(name));
    const std::string golden_path = SpecsDir() + "/" + name.substr(0, name.rfind('.')) + ".golden";
    if (update) testing::WriteFile(golden_path, report);
    std::string golden;
    ASSERT_TRUE(ReadFile(golden_path, &golden)) << "missing " << golden_path;
    EXPECT_EQ(report, golden);
  }
}

TEST(CdiFixtures, ValidAndInvalidAsNamed) {
  for (const std::string& name : Fixtures()) {
    SCOPED_TRACE(name);
    std::string text;
    ASSERT_TRUE(ReadFile(SpecsDir() + "/" + name, &text));
    std::vector<Problem> problems =
        ValidateDocument(text, FormatForFileName(name), Options(Strictness::kCompat, kLatestVersion));
    if (name.starts_with("valid-")) {
      EXPECT_THAT(problems, ::testing::IsEmpty()) << FormatProblems(problems);
    } else {
      ASSERT_TRUE(name.starts_with("invalid-"));
      EXPECT_THAT(problems, ::testing::Not(::testing::IsEmpty()));
    }
  }
}

TEST(CdiFixtures, MinimumVersionAsNamed) {
  int checked = 0;
  for (const std::string& name : Fixtures()) {
    if (!name.starts_with("valid-min-")) continue;
    SCOPED_TRACE(name);
    const std::string want = name.substr(10, name.find('-', 10) - 10);
    std::string text;
    ASSERT_TRUE(ReadFile(SpecsDir() + "/" + name, &text));
    absl::StatusOr<Spec> spec = DecodeSpec(text);
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(MinimumVersion(*spec), want);
    EXPECT_EQ(spec->version, want);
    ++checked;
  }
  EXPECT_GE(checked, 12);
}

TEST(CdiFixtures, RoundTripLosesNothing) {
  for (const std::string& name : Fixtures()) {
    if (!name.starts_with("valid-")) continue;
    SCOPED_TRACE(name);
    std::string text;
    ASSERT_TRUE(ReadFile(SpecsDir() + "/" + name, &text));
    DecodeOptions options;
    options.format = FormatForFileName(name);
    options.strict = false;  // valid-compat-null.json has nulls, which read as unset
    absl::StatusOr<Spec> spec = DecodeSpec(text, options);
    ASSERT_TRUE(spec.ok()) << spec.status();
    const std::string encoded = EncodeSpec(*spec);
    absl::StatusOr<Spec> again = DecodeSpec(encoded);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(*again, *spec);
    EXPECT_EQ(EncodeSpec(*again), encoded);
  }
}

TEST(CdiTestdata, GoodDocumentsAreAccepted) {
  const std::string dir = SharedCdiDir() + "/testdata/good";
  std::vector<std::string> names = ListDir(dir);
  ASSERT_FALSE(names.empty()) << dir;
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    std::string text;
    ASSERT_TRUE(ReadFile(dir + "/" + name, &text));
    std::vector<Problem> problems =
        ValidateDocument(text, Format::kJson, Options(Strictness::kCompat, kLatestVersion));
    EXPECT_THAT(problems, ::testing::IsEmpty()) << FormatProblems(problems);
  }
}

TEST(CdiTestdata, BadDocumentsAreRejected) {
  const std::string dir = SharedCdiDir() + "/testdata/bad";
  std::vector<std::string> names = ListDir(dir);
  ASSERT_FALSE(names.empty()) << dir;
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    std::string text;
    ASSERT_TRUE(ReadFile(dir + "/" + name, &text));
    for (Strictness s : {Strictness::kCompat, Strictness::kStrict}) {
      EXPECT_THAT(ValidateDocument(text, Format::kJson, Options(s, kLatestVersion)), ::testing::Not(::testing::IsEmpty()));
    }
  }
}

TEST(CdiTestdata, ExplicitEmptyNamesEveryMissingField) {
  std::vector<Problem> problems = ValidateDocument("{}", Format::kJson);
  EXPECT_THAT(problems, ::testing::UnorderedElementsAre(Problem{"$", "missing required field \"cdiVersion\""},
                                                        Problem{"$", "missing required field \"kind\""},
                                                        Problem{"$", "missing required field \"devices\""}));
}

// A spec every level accepts, to vary one field at a time.
Spec Base() {
  Spec s;
  s.version = "0.3.0";
  s.kind = "k8s.gpu.example.com/claim";
  Device d;
  d.name = "gpu-0";
  d.container_edits.env = {"GPU=0"};
  s.devices.push_back(d);
  return s;
}

TEST(CdiMinimumVersion, EachRuleAtItsBoundary) {
  EXPECT_EQ(MinimumVersion(Base()), "0.3.0");
  Spec s = Base();
  s.container_edits.mounts.push_back({"/a", "/a", {}, ""});
  EXPECT_EQ(MinimumVersion(s), "0.3.0") << "a mount without type is 0.3.0";
  s.container_edits.mounts[0].type = "bind";
  EXPECT_EQ(MinimumVersion(s), "0.4.0");
  s = Base();
  s.devices[0].name = "0gpu";
  EXPECT_EQ(MinimumVersion(s), "0.5.0");
  s.devices[0].name = "gpu0";
  s.devices[0].container_edits.device_nodes.push_back({});
  s.devices[0].container_edits.device_nodes[0].path = "/dev/a";
  EXPECT_EQ(MinimumVersion(s), "0.3.0");
  s.devices[0].container_edits.device_nodes[0].host_path = "/dev/b";
  EXPECT_EQ(MinimumVersion(s), "0.5.0");
  s = Base();
  s.kind = "vendor.com/a.b";
  EXPECT_EQ(MinimumVersion(s), "0.6.0");
  s.kind = "vendor.com";  // no class: the dot is in the vendor, which needs nothing
  EXPECT_EQ(MinimumVersion(s), "0.3.0");
  s = Base();
  s.devices[0].annotations["a"] = "b";
  EXPECT_EQ(MinimumVersion(s), "0.6.0");
  s = Base();
  s.devices[0].container_edits.additional_gids = {0};
  EXPECT_EQ(MinimumVersion(s), "0.7.0");
  s = Base();
  s.container_edits.intel_rdt.emplace();
  EXPECT_EQ(MinimumVersion(s), "0.7.0") << "an empty intelRdt still needs 0.7.0";
  s.container_edits.intel_rdt->enable_cmt = true;
  EXPECT_EQ(MinimumVersion(s), "0.7.0");
  s.container_edits.intel_rdt->schemata.emplace();
  EXPECT_EQ(MinimumVersion(s), "1.1.0") << "an empty schemata list is present";
  s = Base();
  s.devices[0].container_edits.net_devices.push_back({"eth0", "net0"});
  s.devices[0].name = "0gpu";  // the newest rule wins
  EXPECT_EQ(MinimumVersion(s), "1.1.0");
}

TEST(CdiMinimumVersion, NeverAboveTheCeilingSilently) {
  Spec s = Base();
  s.devices[0].annotations["a"] = "b";
  s.version = "0.6.0";
  std::vector<Problem> problems = Validate(s, Options(Strictness::kStrict, "0.5.0"));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].path, "$.devices[0].annotations");
  EXPECT_THAT(problems[0].message, HasSubstr("requires cdiVersion 0.6.0, above the maximum 0.5.0"));
  s.version = "0.5.0";
  problems = Validate(s, Options(Strictness::kStrict, "0.5.0"));
  EXPECT_THAT(FormatProblems(problems), HasSubstr("$.cdiVersion: the spec version must be at least 0.6.0"));
}

TEST(CdiValidate, StrictWantsExactlyTheMinimum) {
  Spec s = Base();
  s.version = "0.5.0";
  EXPECT_THAT(Validate(s, Options(Strictness::kCompat, "1.1.0")), ::testing::IsEmpty());
  std::vector<Problem> problems = Validate(s, Options(Strictness::kStrict, "1.1.0"));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, "$.cdiVersion");
  EXPECT_THAT(problems[0].message, HasSubstr("must be 0.3.0"));
}

TEST(CdiValidate, VersionAboveCeilingIsRefusedInBothLevels) {
  Spec s = Base();
  s.version = "0.6.0";
  for (Strictness level : {Strictness::kCompat, Strictness::kStrict}) {
    EXPECT_THAT(FormatProblems(Validate(s, Options(level, "0.5.0"))),
                HasSubstr("$.cdiVersion: version \"0.6.0\" is above the maximum 0.5.0"));
  }
}

TEST(CdiValidate, UnknownCeilingIsAProblemNotACrash) {
  EXPECT_THAT(FormatProblems(Validate(Base(), Options(Strictness::kStrict, "9.9"))),
              HasSubstr("is not a known CDI version"));
}

TEST(CdiValidate, KindLengthLimitsInStrictOnly) {
  Spec s = Base();
  s.kind = std::string(254, 'a') + "/claim";
  EXPECT_THAT(Validate(s, Options(Strictness::kCompat, "1.1.0")), ::testing::IsEmpty());
  EXPECT_THAT(FormatProblems(Validate(s, Options(Strictness::kStrict, "1.1.0"))), HasSubstr("$.kind: vendor"));
  s.kind = "vendor.com/" + std::string(64, 'c');
  EXPECT_THAT(FormatProblems(Validate(s, Options(Strictness::kStrict, "1.1.0"))), HasSubstr("longer than 63"));
}

TEST(CdiValidate, AnnotationsTotalSizeInStrict) {
  Spec s = Base();
  s.version = "0.6.0";
  s.annotations["big"] = std::string(256 * 1024, 'x');
  EXPECT_THAT(Validate(s, Options(Strictness::kCompat, "1.1.0")), ::testing::IsEmpty());
  EXPECT_THAT(FormatProblems(Validate(s, Options(Strictness::kStrict, "1.1.0"))),
              HasSubstr("$.annotations: annotations total 262147 bytes, above the limit of 262144"));
}

TEST(CdiDecode, RejectsOversizedAndEmptyDocuments) {
  DecodeOptions o;
  o.max_bytes = 10;
  Spec s;
  EXPECT_THAT(FormatProblems(DecodeSpec(std::string(11, ' '), o, &s)), HasSubstr("above the limit of 10"));
  EXPECT_THAT(FormatProblems(DecodeSpec("  \n", DecodeOptions{}, &s)), HasSubstr("empty document"));
  o = DecodeOptions{};
  o.format = Format::kYaml;
  EXPECT_THAT(FormatProblems(DecodeSpec("a: 1\n---\nb: 2\n", o, &s)),
              HasSubstr("expected exactly one YAML document"));
}

TEST(CdiDecode, InvalidUtf8IsAProblem) {
  Spec s;
  std::vector<Problem> p = DecodeSpec("{\"cdiVersion\": \"\xff\"}", DecodeOptions{}, &s);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_THAT(p[0].message, HasSubstr("invalid JSON"));
}

// Nesting deeper than api::kMaxJsonDepth is refused at the parse, as everywhere DRAForge reads JSON;
// up to it the decoder names the first wrong value.
TEST(CdiDecode, DeepNestingIsAProblemNotACrash) {
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  EXPECT_THAT(FormatProblems(ValidateDocument(deep, Format::kJson)),
              HasSubstr("invalid JSON at byte 512: nesting is deeper than 512 levels"));
  auto edits = [](int depth) {
    return "{\"cdiVersion\":\"0.3.0\",\"kind\":\"a.com/b\",\"devices\":[{\"name\":\"x\",\"containerEdits\":{\"env\":" +
           std::string(depth, '[') + std::string(depth, ']') + "}}]}";
  };
  EXPECT_THAT(FormatProblems(ValidateDocument(edits(1000000), Format::kJson)),
              HasSubstr("nesting is deeper than 512 levels"));
  // The spec, devices, the device and containerEdits take 4 levels.
  EXPECT_THAT(FormatProblems(ValidateDocument(edits(512 - 4), Format::kJson)),
              HasSubstr("$.devices[0].containerEdits.env[0]: expected string, got array"));
}

// Every prefix and many one-byte corruptions of every fixture: problems or a valid spec, never a
// crash, and a truncated JSON document is never accepted.
TEST(CdiDecode, DamagedDocumentsAreProblemsNotCrashes) {
  size_t documents = 0;
  for (const std::string& name : Fixtures()) {
    std::string text;
    ASSERT_TRUE(ReadFile(SpecsDir() + "/" + name, &text));
    const Format format = FormatForFileName(name);
    const size_t end = text.find_last_not_of(" \n");
    for (size_t cut = 0; cut < end; cut += 7) {
      std::vector<Problem> problems = ValidateDocument(text.substr(0, cut), format);
      // (Cutting the garbage off invalid-trailing-garbage.json leaves a whole document.)
      if (format == Format::kJson && name != "invalid-trailing-garbage.json") {
        EXPECT_FALSE(problems.empty()) << name << " cut at " << cut;
      }
      ++documents;
    }
    for (size_t i = 0; i < text.size(); i += 5) {
      std::string damaged = text;
      damaged[i] = static_cast<char>(damaged[i] ^ (0x55 + i % 7));
      ValidateDocument(damaged, format);
      ++documents;
    }
  }
  EXPECT_GT(documents, 1000u);
}

TEST(CdiQualifiedName, IsKindEqualsName) {
  EXPECT_EQ(QualifiedDeviceName("k8s.gpu.example.com/claim", "uid-gpu-0"), "k8s.gpu.example.com/claim=uid-gpu-0");
  EXPECT_EQ(SplitKind("a/b/c").vendor, "a");
  EXPECT_EQ(SplitKind("a/b/c").cdi_class, "b/c");
}

TEST(CdiVersions, CompareAndKnown) {
  EXPECT_EQ(CompareVersions("0.10.0", "0.9.0"), 1);
  EXPECT_EQ(CompareVersions("v1.1.0", "1.1.0"), 0);
  EXPECT_EQ(CompareVersions("1.1", "1.1.0"), std::nullopt);
  EXPECT_EQ(CompareVersions("01.1.0", "1.1.0"), std::nullopt);
  EXPECT_TRUE(IsKnownVersion("v0.3.0", true));
  EXPECT_FALSE(IsKnownVersion("v0.3.0"));
  EXPECT_FALSE(IsKnownVersion("0.9.0", true));
}

}  // namespace
}  // namespace draforge::cdi
