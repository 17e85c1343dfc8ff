// Tests for draforge::api::Semver. Expected results and messages are those of
// github.com/blang/semver/v4 Parse and of Kubernetes' CEL semver(s, true) normalisation; the cases
// include semver.org's lists of valid and invalid versions.
#include "api/semver.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "gtest/gtest.h"

namespace draforge::api {
namespace {

struct ParseCase {
  std::string_view input;
  bool ok;
  std::string_view result;  // String() when ok, else the error message
};

void CheckParse(const ParseCase& c, bool normalized) {
  SCOPED_TRACE(c.input);
  absl::StatusOr<Semver> v = normalized ? Semver::ParseNormalized(c.input) : Semver::Parse(c.input);
  if (!c.ok) {
    ASSERT_FALSE(v.ok()) << v->String();
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(SV(v.status().message()), c.result);
    return;
  }
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->String(), c.result);
  // The printed form parses strictly to the same version.
  absl::StatusOr<Semver> again = Semver::Parse(v->String());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->String(), c.result);
  EXPECT_EQ(again->Compare(*v), 0);
}

TEST(SemverTest, ParseValid) {
  // semver.org's valid examples, and the uint64 edges.
  constexpr ParseCase kCases[] = {
      {"1.2.3", true, "1.2.3"},
      {"0.0.0", true, "0.0.0"},
      {"0.0.4", true, "0.0.4"},
      {"10.20.30", true, "10.20.30"},
      {"1.1.2-prerelease+meta", true, "1.1.2-prerelease+meta"},
      {"1.1.2+meta", true, "1.1.2+meta"},
      {"1.1.2+meta-valid", true, "1.1.2+meta-valid"},
      {"1.0.0-alpha", true, "1.0.0-alpha"},
      {"1.0.0-beta", true, "1.0.0-beta"},
      {"1.0.0-alpha.beta", true, "1.0.0-alpha.beta"},
      {"1.0.0-alpha.beta.1", true, "1.0.0-alpha.beta.1"},
      {"1.0.0-alpha.1", true, "1.0.0-alpha.1"},
      {"1.0.0-alpha0.valid", true, "1.0.0-alpha0.valid"},
      {"1.0.0-alpha.0valid", true, "1.0.0-alpha.0valid"},
      {"1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay", true,
       "1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay"},
      {"1.0.0-rc.1+build.1", true, "1.0.0-rc.1+build.1"},
      {"2.0.0-rc.1+build.123", true, "2.0.0-rc.1+build.123"},
      {"1.2.3-beta", true, "1.2.3-beta"},
      {"10.2.3-DEV-SNAPSHOT", true, "10.2.3-DEV-SNAPSHOT"},
      {"1.2.3-SNAPSHOT-123", true, "1.2.3-SNAPSHOT-123"},
      {"1.0.0", true, "1.0.0"},
      {"2.0.0", true, "2.0.0"},
      {"1.1.7", true, "1.1.7"},
      {"2.0.0+build.1848", true, "2.0.0+build.1848"},
      {"2.0.1-alpha.1227", true, "2.0.1-alpha.1227"},
      {"1.0.0-alpha+beta", true, "1.0.0-alpha+beta"},
      {"1.2.3----RC-SNAPSHOT.12.9.1--.12+788", true, "1.2.3----RC-SNAPSHOT.12.9.1--.12+788"},
      {"1.2.3----R-S.12.9.1--.12+meta", true, "1.2.3----R-S.12.9.1--.12+meta"},
      {"1.2.3----RC-SNAPSHOT.12.9.1--.12", true, "1.2.3----RC-SNAPSHOT.12.9.1--.12"},
      {"1.0.0+0.build.1-rc.10000aaa-kk-0.1", true, "1.0.0+0.build.1-rc.10000aaa-kk-0.1"},
      {"18446744073709551615.18446744073709551615.18446744073709551615", true,
       "18446744073709551615.18446744073709551615.18446744073709551615"},
      {"1.0.0-0A.is.legal", true, "1.0.0-0A.is.legal"},
      {"1.0.0-x-y-z.--", true, "1.0.0-x-y-z.--"},
      {"1.0.0+001", true, "1.0.0+001"},
      {"1.0.0-0", true, "1.0.0-0"},
      {"1.0.0-18446744073709551615", true, "1.0.0-18446744073709551615"},
  };
  for (const ParseCase& c : kCases) CheckParse(c, /*normalized=*/false);
}

TEST(SemverTest, ParseInvalid) {
  // semver.org's invalid examples and more, with blang's messages.
  constexpr ParseCase kCases[] = {
      {"", false, "Version string empty"},
      {"1", false, "No Major.Minor.Patch elements found"},
      {"1.2", false, "No Major.Minor.Patch elements found"},
      {"1.2.3-0123", false, "Numeric PreRelease version must not contain leading zeroes \"0123\""},
      {"1.2.3-0123.0123", false, "Numeric PreRelease version must not contain leading zeroes \"0123\""},
      {"1.1.2+.123", false, "Build meta data is empty"},
      {"+invalid", false, "No Major.Minor.Patch elements found"},
      {"-invalid", false, "No Major.Minor.Patch elements found"},
      {"-invalid+invalid", false, "No Major.Minor.Patch elements found"},
      {"-invalid.01", false, "No Major.Minor.Patch elements found"},
      {"alpha", false, "No Major.Minor.Patch elements found"},
      {"alpha.beta", false, "No Major.Minor.Patch elements found"},
      {"alpha.beta.1", false, "Invalid character(s) found in major number \"alpha\""},
      {"alpha.1", false, "No Major.Minor.Patch elements found"},
      {"alpha+beta", false, "No Major.Minor.Patch elements found"},
      {"alpha_beta", false, "No Major.Minor.Patch elements found"},
      {"alpha.", false, "No Major.Minor.Patch elements found"},
      {"alpha..", false, "Invalid character(s) found in major number \"alpha\""},
      {"beta", false, "No Major.Minor.Patch elements found"},
      {"1.0.0-alpha_beta", false, "Invalid character(s) found in prerelease \"alpha_beta\""},
      {"-alpha.", false, "No Major.Minor.Patch elements found"},
      {"1.0.0-alpha..", false, "Prerelease is empty"},
      {"1.0.0-alpha..1", false, "Prerelease is empty"},
      {"01.1.1", false, "Major number must not contain leading zeroes \"01\""},
      {"1.01.1", false, "Minor number must not contain leading zeroes \"01\""},
      {"1.1.01", false, "Patch number must not contain leading zeroes \"01\""},
      {"1.2.3.DEV", false, "Invalid character(s) found in patch number \"3.DEV\""},
      {"1.2-SNAPSHOT", false, "No Major.Minor.Patch elements found"},
      {"1.2.31.2.3----RC-SNAPSHOT.12.09.1--..12+788", false,
       "Invalid character(s) found in patch number \"31.2.3\""},
      {"1.2-RC-SNAPSHOT", false, "No Major.Minor.Patch elements found"},
      {"-1.0.3-gamma+b7718", false, "Invalid character(s) found in major number \"-1\""},
      {"+justmeta", false, "No Major.Minor.Patch elements found"},
      {"9.8.7+meta+meta", false, "Invalid character(s) found in build meta data \"meta+meta\""},
      {"9.8.7-whatever+meta+meta", false, "Invalid character(s) found in build meta data \"meta+meta\""},
      {"99999999999999999999999.999999999999999999.99999999999999999", false,
       "strconv.ParseUint: parsing \"99999999999999999999999\": value out of range"},
      {"v1.2.3", false, "Invalid character(s) found in major number \"v1\""},
      {" 1.2.3", false, "Invalid character(s) found in major number \" 1\""},
      {"1.2.3 ", false, "Invalid character(s) found in patch number \"3 \""},
      {"1.2.3-", false, "Prerelease is empty"},
      {"1.2.3+", false, "Build meta data is empty"},
      {"1.0.0-18446744073709551616", false,
       "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"},
      {"1..3", false, "strconv.ParseUint: parsing \"\": invalid syntax"},
      {".2.3", false, "strconv.ParseUint: parsing \"\": invalid syntax"},
      {"1.2.", false, "strconv.ParseUint: parsing \"\": invalid syntax"},
      // Messages quote like Go's %q.
      {"1.2.3-a\"b", false, "Invalid character(s) found in prerelease \"a\\\"b\""},
      {"1.2.3+\\x", false, "Invalid character(s) found in build meta data \"\\\\x\""},
      {"1.2.3-\t", false, "Invalid character(s) found in prerelease \"\\t\""},
      {"1.2.3-\x01", false, "Invalid character(s) found in prerelease \"\\x01\""},
      {"1.2.3-\xff", false, "Invalid character(s) found in prerelease \"\\xff\""},
      {"1.2.3-\xc3\xa9", false, "Invalid character(s) found in prerelease \"\xc3\xa9\""},
  };
  for (const ParseCase& c : kCases) CheckParse(c, /*normalized=*/false);
}

TEST(SemverTest, ParseNormalized) {
  // Kubernetes CEL semver(s, true).
  constexpr ParseCase kCases[] = {
      {"v1.2.3", true, "1.2.3"},
      {"1", true, "1.0.0"},
      {"1.2", true, "1.2.0"},
      {"v1", true, "1.0.0"},
      {"01.02.03", true, "1.2.3"},
      {"1.0.00-rc", true, "1.0.0-rc"},
      {"1-rc", false, "short version cannot contain PreRelease/Build meta data"},
      {"1.2+b", false, "short version cannot contain PreRelease/Build meta data"},
      {"v1.2.3-alpha", true, "1.2.3-alpha"},
      {"vv1.2.3", false, "Invalid character(s) found in major number \"0v1\""},
      {"V1.2.3", false, "Invalid character(s) found in major number \"0V1\""},
      {"0001.0002", true, "1.2.0"},
      {"1.2.3-01", false, "Numeric PreRelease version must not contain leading zeroes \"01\""},
      {"1.02.3+build", true, "1.2.3+build"},
      {" 1.2.3", false, "Invalid character(s) found in major number \"0 1\""},
      {"1.2.0003-alpha.1", true, "1.2.3-alpha.1"},
      {"", false, "strconv.ParseUint: parsing \"\": invalid syntax"},
      {"v", false, "strconv.ParseUint: parsing \"\": invalid syntax"},
      {"1.0", true, "1.0.0"},
      {"00", true, "0.0.0"},
      {"0.0", true, "0.0.0"},
      {"v01.002.0003-rc.1+build.01", true, "1.2.3-rc.1+build.01"},
      {"1.2.3", true, "1.2.3"},
      {"v1.2.3.4", false, "Invalid character(s) found in patch number \"3.4\""},
  };
  for (const ParseCase& c : kCases) CheckParse(c, /*normalized=*/true);
}

TEST(SemverTest, Compare) {
  struct Case {
    std::string_view a;
    std::string_view b;
    int expect;
  };
  constexpr Case kCases[] = {
      // semver.org's precedence example, pairwise.
      {"1.0.0-alpha", "1.0.0-alpha.1", -1},
      {"1.0.0-alpha.1", "1.0.0-alpha.beta", -1},
      {"1.0.0-alpha.beta", "1.0.0-beta", -1},
      {"1.0.0-beta", "1.0.0-beta.2", -1},
      {"1.0.0-beta.2", "1.0.0-beta.11", -1},
      {"1.0.0-beta.11", "1.0.0-rc.1", -1},
      {"1.0.0-rc.1", "1.0.0", -1},
      {"1.0.0", "1.0.1", -1},
      {"1.0.1", "1.1.0", -1},
      {"1.1.0", "2.0.0", -1},
      {"2.0.0", "2.1.0", -1},
      {"2.1.0", "2.1.1", -1},
      {"2.1.1", "10.0.0", -1},
      // Build metadata does not count.
      {"1.0.0+a", "1.0.0+b", 0},
      {"1.0.0-rc.1+a", "1.0.0-rc.1", 0},
      // Alphanumeric identifiers compare bytewise; numeric ones as numbers, before alphanumeric.
      {"1.0.0-Alpha", "1.0.0-alpha", -1},
      {"1.0.0-1", "1.0.0-a", -1},
      {"1.0.0-9", "1.0.0-10", -1},
      {"1.0.0-0", "1.0.0--", -1},
      {"1.0.0-a.b", "1.0.0-a", 1},
      {"1.0.0-a.1", "1.0.0-a.a", -1},
      {"1.0.0-alpha.10", "1.0.0-alpha.9", 1},
      {"1.0.0-rc.1", "1.0.0-rc.1", 0},
      {"18446744073709551615.0.0", "18446744073709551614.99.99", 1},
      {"1.0.0-18446744073709551615", "1.0.0-18446744073709551614", 1},
      {"0.0.0", "0.0.0-0", 1},
      {"1.2.3-a-b", "1.2.3-a", 1},
      {"1.2.3-Z", "1.2.3-a", -1},
      {"1.2.3-zz", "1.2.3-z", 1},
      {"1.10.0", "1.9.0", 1},
      {"1.0.10", "1.0.9", 1},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.a) + " vs " + std::string(c.b));
    absl::StatusOr<Semver> a = Semver::Parse(c.a);
    absl::StatusOr<Semver> b = Semver::Parse(c.b);
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(a->Compare(*b), c.expect);
    EXPECT_EQ(b->Compare(*a), -c.expect);
    EXPECT_EQ(*a == *b, c.expect == 0);
    EXPECT_EQ(*a < *b, c.expect < 0);
    EXPECT_EQ(*a > *b, c.expect > 0);
  }
}

TEST(SemverTest, Accessors) {
  absl::StatusOr<Semver> v = Semver::Parse("1.22.333-rc.1.x-y+build.007");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->major(), 1u);
  EXPECT_EQ(v->minor(), 22u);
  EXPECT_EQ(v->patch(), 333u);
  ASSERT_EQ(v->prerelease().size(), 3u);
  EXPECT_EQ(v->prerelease()[0].text, "rc");
  EXPECT_FALSE(v->prerelease()[0].numeric);
  EXPECT_EQ(v->prerelease()[1].text, "1");
  EXPECT_TRUE(v->prerelease()[1].numeric);
  EXPECT_EQ(v->prerelease()[1].number, 1u);
  EXPECT_EQ(v->prerelease()[2].text, "x-y");
  ASSERT_EQ(v->build().size(), 2u);
  EXPECT_EQ(v->build()[0], "build");
  EXPECT_EQ(v->build()[1], "007");
  EXPECT_EQ(v->String(), "1.22.333-rc.1.x-y+build.007");

  absl::StatusOr<Semver> max = Semver::Parse("18446744073709551615.0.1");
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_EQ(max->major(), UINT64_MAX);
  EXPECT_EQ(max->patch(), 1u);

  const Semver zero;
  EXPECT_EQ(zero.String(), "0.0.0");
  EXPECT_EQ(zero.Compare(*Semver::Parse("0.0.0")), 0);
  EXPECT_TRUE(zero.prerelease().empty());
}

TEST(SemverTest, NormalizedEqualsStrict) {
  // Normalisation only ever changes the text before a strict parse.
  for (std::string_view text : {"1.2.3", "1.0.0-alpha.1+b", "0.0.0", "10.20.30-rc.1"}) {
    absl::StatusOr<Semver> strict = Semver::Parse(text);
    absl::StatusOr<Semver> normalized = Semver::ParseNormalized(text);
    ASSERT_TRUE(strict.ok()) << text;
    ASSERT_TRUE(normalized.ok()) << text;
    EXPECT_EQ(strict->String(), normalized->String());
  }
  EXPECT_EQ(*Semver::ParseNormalized("v1.2"), *Semver::Parse("1.2.0"));
}

}  // namespace
}  // namespace draforge::api
