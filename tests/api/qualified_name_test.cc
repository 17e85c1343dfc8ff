// Tests for lib/api/qualified_name.h: Kubernetes' name checks with their exact messages, and DRA
// qualified names.
#include "api/qualified_name.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draforge::api {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kLabelRegexMsg[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr char kSubdomainRegexMsg[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr char kLabelKeyNameMsg[] =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
constexpr char kCIdentifierMsg[] =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
    "characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
    "'[A-Za-z_][A-Za-z0-9_]*')";

// ---- Formatting helpers -------------------------------------------------------------------------------

TEST(RegexErrorTest, KubernetesPunctuation) {
  EXPECT_EQ(RegexError("bad", "[a-z]", {"a", "b"}), "bad (e.g. 'a',  or 'b', regex used for validation is '[a-z]')");
  EXPECT_EQ(RegexError("bad", "[a-z]", {}), "bad (regex used for validation is '[a-z]')");
}

TEST(MaxLenErrorTest, Units) {
  EXPECT_EQ(MaxLenError(63, LengthUnit::kCharacters), "must be no more than 63 characters");
  EXPECT_EQ(MaxLenError(63, LengthUnit::kBytes), "must be no more than 63 bytes");
}

// ---- DNS labels and subdomains ------------------------------------------------------------------------

TEST(DNS1123LabelTest, Valid) {
  for (const char* v : {"a", "0", "my-name", "123-abc", "a1-b2"}) EXPECT_THAT(IsDNS1123Label(v), IsEmpty()) << v;
  EXPECT_THAT(IsDNS1123Label(std::string(63, 'a')), IsEmpty());
}

TEST(DNS1123LabelTest, InvalidCharacters) {
  for (const char* v : {"", "-a", "a-", "A", "a_b", "a b"}) {
    EXPECT_THAT(IsDNS1123Label(v), ElementsAre(kLabelRegexMsg)) << v;
  }
}

TEST(DNS1123LabelTest, DotsGetTheirOwnMessage) {
  EXPECT_THAT(IsDNS1123Label("a.b"), ElementsAre("must not contain dots"));
  EXPECT_THAT(IsDNS1123Label("A.b"), ElementsAre(kLabelRegexMsg));
}

TEST(DNS1123LabelTest, TooLong) {
  EXPECT_THAT(IsDNS1123Label(std::string(64, 'a')), ElementsAre("must be no more than 63 characters"));
  EXPECT_THAT(IsDNS1123Label(std::string(64, 'a'), LengthUnit::kBytes), ElementsAre("must be no more than 63 bytes"));
}

TEST(DNS1123SubdomainTest, Valid) {
  for (const char* v : {"a", "example.com", "a-b.c-d.e", "0.0"}) EXPECT_THAT(IsDNS1123Subdomain(v), IsEmpty()) << v;
  EXPECT_THAT(IsDNS1123Subdomain(std::string(253, 'a')), IsEmpty());
}

TEST(DNS1123SubdomainTest, Invalid) {
  for (const char* v : {"", ".", "a.", ".a", "a..b", "Example.com", "a_b", "a-.b"}) {
    EXPECT_THAT(IsDNS1123Subdomain(v), ElementsAre(kSubdomainRegexMsg)) << v;
  }
}

TEST(DNS1123SubdomainTest, TooLongAndInvalid) {
  EXPECT_THAT(IsDNS1123Subdomain(std::string(254, 'a')), ElementsAre("must be no more than 253 characters"));
  EXPECT_THAT(IsDNS1123Subdomain(std::string(254, 'A'), LengthUnit::kBytes),
              ElementsAre("must be no more than 253 bytes", kSubdomainRegexMsg));
}

TEST(DNS1123SubdomainCaselessTest, AcceptsUpperCase) {
  EXPECT_THAT(IsDNS1123SubdomainCaseless("Example.COM"), IsEmpty());
  EXPECT_THAT(IsDNS1123SubdomainCaseless("a_b"),
              ElementsAre("an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and "
                          "end with an alphanumeric character (e.g. 'Example.com', regex used for validation is "
                          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
}

// ---- Label keys and values ------------------------------------------------------------------------------

TEST(QualifiedNameTest, ValidLabelKeys) {
  for (const char* v : {"a", "MyName", "my.name", "123-abc", "a_b", "example.com/MyName", "k8s.io/a.b-c_d"}) {
    EXPECT_THAT(IsQualifiedName(v), IsEmpty()) << v;
  }
  EXPECT_THAT(IsQualifiedName(std::string(63, 'n')), IsEmpty());
}

TEST(QualifiedNameTest, BadName) {
  EXPECT_THAT(IsQualifiedName("a b"), ElementsAre(kLabelKeyNameMsg));
  EXPECT_THAT(IsQualifiedName("-a"), ElementsAre(kLabelKeyNameMsg));
}

TEST(QualifiedNameTest, EmptyNameGetsTwoMessages) {
  EXPECT_THAT(IsQualifiedName(""), ElementsAre("name part must be non-empty", kLabelKeyNameMsg));
  EXPECT_THAT(IsQualifiedName("a/"), ElementsAre("name part must be non-empty", kLabelKeyNameMsg));
}

TEST(QualifiedNameTest, EmptyPrefix) { EXPECT_THAT(IsQualifiedName("/x"), ElementsAre("prefix part must be non-empty")); }

TEST(QualifiedNameTest, BadPrefix) {
  EXPECT_THAT(IsQualifiedName("Example.com/x"), ElementsAre(std::string("prefix part ") + kSubdomainRegexMsg));
}

TEST(QualifiedNameTest, LongPrefixAndName) {
  EXPECT_THAT(IsQualifiedName(std::string(254, 'p') + "/" + std::string(64, 'n')),
              ElementsAre("prefix part must be no more than 253 bytes", "name part must be no more than 63 bytes"));
}

TEST(QualifiedNameTest, MoreThanOneSlash) {
  EXPECT_THAT(IsQualifiedName("a/b/c"),
              ElementsAre("a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start "
                          "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
                          "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
                          "subdomain prefix and '/' (e.g. 'example.com/MyName')"));
}

TEST(LabelValueTest, EmptyIsValid) {
  EXPECT_THAT(IsValidLabelValue(""), IsEmpty());
  EXPECT_THAT(IsValidLabelValue("my_value.1-A"), IsEmpty());
}

TEST(LabelValueTest, Invalid) {
  const std::string msg =
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
      "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
      "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  EXPECT_THAT(IsValidLabelValue("x y"), ElementsAre(msg));
  EXPECT_THAT(IsValidLabelValue("_a"), ElementsAre(msg));
  EXPECT_THAT(IsValidLabelValue(std::string(64, 'v')), ElementsAre("must be no more than 63 bytes"));
}

TEST(CIdentifierTest, ValidAndInvalid) {
  for (const char* v : {"a", "_", "my_name", "MY_NAME", "MyName1"}) EXPECT_THAT(IsCIdentifier(v), IsEmpty()) << v;
  for (const char* v : {"", "1a", "a-b", "a.b", "a b"}) EXPECT_THAT(IsCIdentifier(v), ElementsAre(kCIdentifierMsg)) << v;
}

// ---- Extended resource names ------------------------------------------------------------------------------

TEST(ExtendedResourceNameTest, Valid) {
  EXPECT_TRUE(IsExtendedResourceName("example.com/gpu"));
  EXPECT_THAT(ExtendedResourceNameErrors("example.com/gpu"), IsEmpty());
}

TEST(ExtendedResourceNameTest, Invalid) {
  EXPECT_FALSE(IsExtendedResourceName("gpu"));
  EXPECT_FALSE(IsExtendedResourceName("kubernetes.io/gpu"));
  EXPECT_FALSE(IsExtendedResourceName("node.kubernetes.io/gpu"));
  EXPECT_FALSE(IsExtendedResourceName("requests.example.com/gpu"));
  EXPECT_FALSE(IsExtendedResourceName("example.com/gpu_"));
  EXPECT_THAT(ExtendedResourceNameErrors("foo"),
              ElementsAre("a name must be a domain-prefixed path, such as 'example.com/my-prop'"));
  EXPECT_THAT(ExtendedResourceNameErrors("kubernetes.io/gpu"), ElementsAre("must not have \"kubernetes.io/\" domain"));
  EXPECT_THAT(ExtendedResourceNameErrors("example.com/gpu_"), ElementsAre(kLabelKeyNameMsg));
}

// ---- DRA names ------------------------------------------------------------------------------------------------

TEST(DriverNameTest, CaseInsensitiveSubdomain) {
  EXPECT_THAT(IsDriverName("gpu.example.com"), IsEmpty());
  EXPECT_THAT(IsDriverName("GPU.Example.COM"), IsEmpty());
  EXPECT_THAT(IsDriverName(""), ElementsAre("must be non-empty"));
  EXPECT_THAT(IsDriverName("Foo_Bar"), ElementsAre(kSubdomainRegexMsg));
  EXPECT_THAT(IsDriverName(std::string(64, 'a')), ElementsAre("must be no more than 63 bytes"));
}

TEST(PoolNameTest, SlashSeparatedSubdomains) {
  EXPECT_THAT(IsPoolName("pool"), IsEmpty());
  EXPECT_THAT(IsPoolName("example.com/rack-1/node.a"), IsEmpty());
  EXPECT_THAT(IsPoolName(""), ElementsAre("must be non-empty"));
  EXPECT_THAT(IsPoolName("a//b"), ElementsAre(kSubdomainRegexMsg));
  EXPECT_THAT(IsPoolName("a/"), ElementsAre(kSubdomainRegexMsg));
  EXPECT_THAT(IsPoolName(std::string(127, 'a') + "/" + std::string(127, 'b')), ElementsAre("must be no more than 253 bytes"));
}

TEST(DeviceNameTest, IsDNSLabel) {
  EXPECT_THAT(IsDeviceName("gpu-0"), IsEmpty());
  EXPECT_THAT(IsDeviceName("gpu.0"), ElementsAre("must not contain dots"));
  EXPECT_THAT(IsRequestName("Req"), ElementsAre(kLabelRegexMsg));
  EXPECT_THAT(IsCounterName("memory"), IsEmpty());
  EXPECT_THAT(IsDeviceClassName("gpu.example.com"), IsEmpty());
}

// ---- DRA qualified names ------------------------------------------------------------------------------------

TEST(SplitQualifiedNameTest, WithAndWithoutDomain) {
  EXPECT_EQ(SplitQualifiedName("model"), (QualifiedName{"", "model"}));
  EXPECT_EQ(SplitQualifiedName("gpu.example.com/model"), (QualifiedName{"gpu.example.com", "model"}));
  EXPECT_EQ(SplitQualifiedName("a/b/c"), (QualifiedName{"a", "b/c"}));
  EXPECT_EQ(SplitQualifiedName("/x"), (QualifiedName{"", "x"}));
}

TEST(QualifiedNameErrorsTest, Valid) {
  for (const char* v : {"model", "_x", "gpu.example.com/model", "Example.COM/x"}) {
    EXPECT_THAT(QualifiedNameErrors(v), IsEmpty()) << v;
  }
  EXPECT_THAT(QualifiedNameErrors(std::string(63, 'd') + "/" + std::string(32, 'i')), IsEmpty());
}

TEST(QualifiedNameErrorsTest, Problems) {
  EXPECT_THAT(QualifiedNameErrors("1bad"), ElementsAre(kCIdentifierMsg));
  EXPECT_THAT(QualifiedNameErrors("/x"), ElementsAre("the domain must not be empty"));
  EXPECT_THAT(QualifiedNameErrors("dom.com/"), ElementsAre("the name must not be empty"));
  EXPECT_THAT(QualifiedNameErrors(std::string(33, 'a')), ElementsAre("must be no more than 32 bytes"));
  EXPECT_THAT(QualifiedNameErrors("Dom_x.com/a"), ElementsAre(kSubdomainRegexMsg));
  EXPECT_THAT(QualifiedNameErrors(std::string(64, 'd') + "/a"), ElementsAre("must be no more than 63 bytes"));
}

TEST(QualifiedNameErrorsTest, MoreThanOneSlashIsNotCheckedByTheApiServer) {
  EXPECT_THAT(QualifiedNameErrors("a/b/c"), IsEmpty());
}

TEST(FullyQualifiedNameErrorsTest, DomainRequired) {
  EXPECT_THAT(FullyQualifiedNameErrors("gpu.example.com/model"), IsEmpty());
  EXPECT_THAT(FullyQualifiedNameErrors("model"),
              ElementsAre("a fully qualified name must be a domain and a name separated by a slash"));
}

TEST(ParseQualifiedNameTest, Valid) {
  auto q = ParseQualifiedName("gpu.example.com/model");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->domain, "gpu.example.com");
  EXPECT_EQ(q->id, "model");
  auto bare = ParseQualifiedName("model");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->domain, "");
  EXPECT_EQ(bare->id, "model");
}

TEST(ParseQualifiedNameTest, Invalid) {
  auto q = ParseQualifiedName("1bad");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(q.status().message()), ::testing::StartsWith("invalid qualified name \"1bad\": a valid C identifier"));
  auto slashes = ParseQualifiedName("a/b/c");
  ASSERT_FALSE(slashes.ok());
  EXPECT_THAT(std::string(slashes.status().message()), ::testing::HasSubstr("must not contain more than one slash"));
}

TEST(ParseFullyQualifiedNameTest, NeedsDomain) {
  EXPECT_TRUE(ParseFullyQualifiedName("a.com/b").ok());
  auto q = ParseFullyQualifiedName("b");
  ASSERT_FALSE(q.ok());
  EXPECT_THAT(std::string(q.status().message()), ::testing::HasSubstr("a fully qualified name must be a domain"));
}

TEST(FullyQualifiedTest, BareNamesBelongToTheDriver) {
  EXPECT_EQ(FullyQualified("model", "gpu.example.com"), "gpu.example.com/model");
  EXPECT_EQ(FullyQualified("other.com/model", "gpu.example.com"), "other.com/model");
}

TEST(FindQualifiedTest, ExactKeyFirstThenBareIdInDriverDomain) {
  Map<int> attrs;
  attrs.Set("model", 1);
  attrs.Set("gpu.example.com/model", 2);
  attrs.Set("memory", 3);
  ASSERT_NE(FindQualified(attrs, "gpu.example.com/model", "gpu.example.com"), nullptr);
  EXPECT_EQ(*FindQualified(attrs, "gpu.example.com/model", "gpu.example.com"), 2);
  ASSERT_NE(FindQualified(attrs, "gpu.example.com/memory", "gpu.example.com"), nullptr);
  EXPECT_EQ(*FindQualified(attrs, "gpu.example.com/memory", "gpu.example.com"), 3);
  EXPECT_EQ(FindQualified(attrs, "other.com/memory", "gpu.example.com"), nullptr);
  EXPECT_EQ(FindQualified(attrs, "memory2", "gpu.example.com"), nullptr);
}

}  // namespace
}  // namespace draforge::api
