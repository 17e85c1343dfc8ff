// Tests for draforge::api::Quantity. The tables re-express the cases of apimachinery's
// pkg/api/resource/quantity_test.go (expected spellings and formats as apimachinery produces them),
// followed by DRAForge's own cases: lossless text, wide values, the parse bound, RoundUpToStep.
#include "api/quantity.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "common/status.h"
#include "gtest/gtest.h"
#include "../common/test_util.h"

namespace draforge::api {
namespace {

using F = Quantity::Format;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";
constexpr std::string_view kErrNumeric = "unable to parse numeric part of quantity";

Quantity Q(std::string_view text) {
  absl::StatusOr<Quantity> q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.status();
  return q.ok() ? *std::move(q) : Quantity();
}

struct ParseCase {
  std::string_view input;
  std::string_view canonical;
  F format;
};

// apimachinery TestQuantityParse: the accepted inputs (canonical spelling instead of the Go test's
// internal representation).
constexpr ParseCase kUpstreamParse[] = {
      {"0", "0", F::kDecimalSI},
      {"0n", "0", F::kDecimalSI},
      {"0u", "0", F::kDecimalSI},
      {"0m", "0", F::kDecimalSI},
      {"0Ki", "0", F::kBinarySI},
      {"0k", "0", F::kDecimalSI},
      {"0Mi", "0", F::kBinarySI},
      {"0M", "0", F::kDecimalSI},
      {"0Gi", "0", F::kBinarySI},
      {"0G", "0", F::kDecimalSI},
      {"0Ti", "0", F::kBinarySI},
      {"0T", "0", F::kDecimalSI},
      {"1", "1", F::kDecimalSI},
      {"1Ki", "1Ki", F::kBinarySI},
      {"8Ki", "8Ki", F::kBinarySI},
      {"7Mi", "7Mi", F::kBinarySI},
      {"6Gi", "6Gi", F::kBinarySI},
      {"5Ti", "5Ti", F::kBinarySI},
      {"4Pi", "4Pi", F::kBinarySI},
      {"3Ei", "3Ei", F::kBinarySI},
      {"10Ti", "10Ti", F::kBinarySI},
      {"100Ti", "100Ti", F::kBinarySI},
      {"5n", "5n", F::kDecimalSI},
      {"4u", "4u", F::kDecimalSI},
      {"3m", "3m", F::kDecimalSI},
      {"9", "9", F::kDecimalSI},
      {"8k", "8k", F::kDecimalSI},
      {"50k", "50k", F::kDecimalSI},
      {"7M", "7M", F::kDecimalSI},
      {"6G", "6G", F::kDecimalSI},
      {"5T", "5T", F::kDecimalSI},
      {"40T", "40T", F::kDecimalSI},
      {"300T", "300T", F::kDecimalSI},
      {"2P", "2P", F::kDecimalSI},
      {"1E", "1E", F::kDecimalSI},
      {"1E-3", "1e-3", F::kDecimalExponent},
      {"1e3", "1e3", F::kDecimalExponent},
      {"1E6", "1e6", F::kDecimalExponent},
      {"1e9", "1e9", F::kDecimalExponent},
      {"1E12", "1e12", F::kDecimalExponent},
      {"1e15", "1e15", F::kDecimalExponent},
      {"1E18", "1e18", F::kDecimalExponent},
      {"1e14", "100e12", F::kDecimalExponent},
      {"1e13", "10e12", F::kDecimalExponent},
      {"100.035k", "100035", F::kDecimalSI},
      {"0.001", "1m", F::kDecimalSI},
      {"0.0005k", "500m", F::kDecimalSI},
      {"0.005", "5m", F::kDecimalSI},
      {"0.05", "50m", F::kDecimalSI},
      {"0.5", "500m", F::kDecimalSI},
      {"0.00050k", "500m", F::kDecimalSI},
      {"0.00500", "5m", F::kDecimalSI},
      {"0.05000", "50m", F::kDecimalSI},
      {"0.50000", "500m", F::kDecimalSI},
      {"0.5e0", "500e-3", F::kDecimalExponent},
      {"0.5e-1", "50e-3", F::kDecimalExponent},
      {"0.5e-2", "5e-3", F::kDecimalExponent},
      {"10.035M", "10035k", F::kDecimalSI},
      {"1.2e3", "1200", F::kDecimalExponent},
      {"1.3E+6", "1300e3", F::kDecimalExponent},
      {"1.40e9", "1400e6", F::kDecimalExponent},
      {"1.53E12", "1530e9", F::kDecimalExponent},
      {"1.6e15", "1600e12", F::kDecimalExponent},
      {"1.7E18", "1700e15", F::kDecimalExponent},
      {"9.01", "9010m", F::kDecimalSI},
      {"8.1k", "8100", F::kDecimalSI},
      {"7.123456M", "7123456", F::kDecimalSI},
      {"6.987654321G", "6987654321", F::kDecimalSI},
      {"5.444T", "5444G", F::kDecimalSI},
      {"40.1T", "40100G", F::kDecimalSI},
      {"300.2T", "300200G", F::kDecimalSI},
      {"2.5P", "2500T", F::kDecimalSI},
      {"1.01E", "1010P", F::kDecimalSI},
      {"3.001n", "4n", F::kDecimalSI},
      {"1.1E-9", "2e-9", F::kDecimalExponent},
      {"0.0000000001", "1n", F::kDecimalSI},
      {"0.0000000005", "1n", F::kDecimalSI},
      {"0.00000000050", "1n", F::kDecimalSI},
      {"0.5e-9", "1e-9", F::kDecimalExponent},
      {"0.9n", "1n", F::kDecimalSI},
      {"0.00000012345", "124n", F::kDecimalSI},
      {"0.00000012354", "124n", F::kDecimalSI},
      {"9Ei", "9223372036854775807", F::kBinarySI},
      {"9223372036854775807Ki", "9223372036854775807", F::kBinarySI},
      {"12E", "12E", F::kDecimalSI},
      {"100.035Ki", "102435840m", F::kBinarySI},
      {"0.5Mi", "512Ki", F::kBinarySI},
      {"0.05Gi", "53687091200m", F::kBinarySI},
      {"0.025Ti", "27487790694400m", F::kBinarySI},
      {"0.000000000001Ki", "2n", F::kDecimalSI},
      {".001", "1m", F::kDecimalSI},
      {".0001k", "100m", F::kDecimalSI},
      {"1.", "1", F::kDecimalSI},
      {"1.G", "1G", F::kDecimalSI},
};

// apimachinery TestQuantityString: canonical spellings and their non-canonical alternates.
constexpr ParseCase kUpstreamString[] = {
      {"1Gi", "1Gi", F::kBinarySI},
      {"300Mi", "300Mi", F::kBinarySI},
      {"6Ki", "6Ki", F::kBinarySI},
      {"1001Gi", "1001Gi", F::kBinarySI},
      {"1Ti", "1Ti", F::kBinarySI},
      {"5", "5", F::kDecimalSI},
      {"500m", "500m", F::kDecimalSI},
      {"1G", "1G", F::kDecimalSI},
      {"1m", "1m", F::kDecimalSI},
      {"80m", "80m", F::kDecimalSI},
      {"1080m", "1080m", F::kDecimalSI},
      {"300M", "300M", F::kDecimalSI},
      {"1T", "1T", F::kDecimalSI},
      {"1234567M", "1234567M", F::kDecimalSI},
      {"1234567m", "1234567m", F::kDecimalSI},
      {"3k", "3k", F::kDecimalSI},
      {"1025", "1025", F::kDecimalSI},
      {"1e-3", "1e-3", F::kDecimalExponent},
      {"1e-9", "1e-9", F::kDecimalExponent},
      {"80e-3", "80e-3", F::kDecimalExponent},
      {"300e6", "300e6", F::kDecimalExponent},
      {"1e12", "1e12", F::kDecimalExponent},
      {"3e3", "3e3", F::kDecimalExponent},
      {"1n", "1n", F::kDecimalSI},
      {"80n", "80n", F::kDecimalSI},
      {"1080n", "1080n", F::kDecimalSI},
      {"1u", "1u", F::kDecimalSI},
      {"80u", "80u", F::kDecimalSI},
      {"1080u", "1080u", F::kDecimalSI},
      {"1024Mi", "1Gi", F::kBinarySI},
      {"307200Ki", "300Mi", F::kBinarySI},
      {"1025024Mi", "1001Gi", F::kBinarySI},
      {"1024Gi", "1Ti", F::kBinarySI},
      {"5000m", "5", F::kDecimalSI},
      {"1000M", "1G", F::kDecimalSI},
      {"0.001T", "1G", F::kDecimalSI},
      {"1000u", "1m", F::kDecimalSI},
      {"1.08", "1080m", F::kDecimalSI},
      {"1080000000n", "1080m", F::kDecimalSI},
      {".001e12", "1e9", F::kDecimalExponent},
      {"0.001e0", "1e-3", F::kDecimalExponent},
      {"1000e-12", "1e-9", F::kDecimalExponent},
      {"00", "0", F::kDecimalSI},
};

// apimachinery TestQuantityParseEmit (the rows not already above).
constexpr ParseCase kUpstreamEmit[] = {
      {"1Mi", "1Mi", F::kBinarySI},
      {".001Ki", "1024m", F::kBinarySI},
      {".000001Ki", "1024u", F::kDecimalSI},
      {".000000001Ki", "1024n", F::kDecimalSI},
      {".000000000001Ki", "2n", F::kDecimalSI},
};

// apimachinery TestParseQuantity: 18 to 20 digit values around the int64 boundaries.
constexpr ParseCase kUpstreamInt64Bounds[] = {
      {"-999999999999999999", "-999999999999999999", F::kDecimalSI},
      {"999999999999999999", "999999999999999999", F::kDecimalSI},
      {"-999999999999999999.0", "-999999999999999999", F::kDecimalSI},
      {"999999999999999999.0", "999999999999999999", F::kDecimalSI},
      {"-999999999999999999.1", "-999999999999999999100m", F::kDecimalSI},
      {"999999999999999999.1", "999999999999999999100m", F::kDecimalSI},
      {"-9999999999999999999", "-9999999999999999999", F::kDecimalSI},
      {"9999999999999999999", "9999999999999999999", F::kDecimalSI},
      {"-1E", "-1E", F::kDecimalSI},
      {"-1000000000000000000", "-1E", F::kDecimalSI},
      {"1000000000000000000", "1E", F::kDecimalSI},
      {"-9999999999999999999.0", "-9999999999999999999", F::kDecimalSI},
      {"9999999999999999999.0", "9999999999999999999", F::kDecimalSI},
      {"-1.0E", "-1E", F::kDecimalSI},
      {"1.0E", "1E", F::kDecimalSI},
      {"-1000000000000000000.0", "-1E", F::kDecimalSI},
      {"1000000000000000000.0", "1E", F::kDecimalSI},
      {"-9999999999999999999000m", "-9999999999999999999", F::kDecimalSI},
      {"9999999999999999999000m", "9999999999999999999", F::kDecimalSI},
      {"-9999999999999999999.1", "-9999999999999999999100m", F::kDecimalSI},
      {"9999999999999999999.1", "9999999999999999999100m", F::kDecimalSI},
      {"-1.0000000000000000001E", "-1000000000000000000100m", F::kDecimalSI},
      {"1.0000000000000000001E", "1000000000000000000100m", F::kDecimalSI},
      {"-1000000000000000000.1", "-1000000000000000000100m", F::kDecimalSI},
      {"1000000000000000000.1", "1000000000000000000100m", F::kDecimalSI},
      {"-1.000000000000000001E", "-1000000000000000001", F::kDecimalSI},
      {"1.000000000000000001E", "1000000000000000001", F::kDecimalSI},
      {"-1000000000000000001", "-1000000000000000001", F::kDecimalSI},
      {"1000000000000000001", "1000000000000000001", F::kDecimalSI},
      {"-10E", "-10E", F::kDecimalSI},
      {"10E", "10E", F::kDecimalSI},
      {"-10000000000000000000", "-10E", F::kDecimalSI},
      {"10000000000000000000", "10E", F::kDecimalSI},
      {"-10.0E", "-10E", F::kDecimalSI},
      {"10.0E", "10E", F::kDecimalSI},
      {"-10000000000000000000.0", "-10E", F::kDecimalSI},
      {"10000000000000000000.0", "10E", F::kDecimalSI},
      {"-10000000000000000000000m", "-10E", F::kDecimalSI},
      {"10000000000000000000000m", "10E", F::kDecimalSI},
      {"-10.0000000000000000001E", "-10000000000000000000100m", F::kDecimalSI},
      {"10.0000000000000000001E", "10000000000000000000100m", F::kDecimalSI},
      {"-10000000000000000000.1", "-10000000000000000000100m", F::kDecimalSI},
      {"10000000000000000000.1", "10000000000000000000100m", F::kDecimalSI},
      {"-10.000000000000000001E", "-10000000000000000001", F::kDecimalSI},
      {"10.000000000000000001E", "10000000000000000001", F::kDecimalSI},
      {"-10000000000000000001", "-10000000000000000001", F::kDecimalSI},
      {"10000000000000000001", "10000000000000000001", F::kDecimalSI},
      {"-9223372036854775809", "-9223372036854775809", F::kDecimalSI},
      {"9223372036854775806", "9223372036854775806", F::kDecimalSI},
      {"-9223372036854775809.0", "-9223372036854775809", F::kDecimalSI},
      {"9223372036854775806.0", "9223372036854775806", F::kDecimalSI},
      {"-9223372036854775809000m", "-9223372036854775809", F::kDecimalSI},
      {"9223372036854775806000m", "9223372036854775806", F::kDecimalSI},
      {"-9223372036854775809.1", "-9223372036854775809100m", F::kDecimalSI},
      {"9223372036854775806.1", "9223372036854775806100m", F::kDecimalSI},
      {"-9223372036854775808", "-9223372036854775808", F::kDecimalSI},
      {"9223372036854775807", "9223372036854775807", F::kDecimalSI},
      {"-9223372036854775808.0", "-9223372036854775808", F::kDecimalSI},
      {"9223372036854775807.0", "9223372036854775807", F::kDecimalSI},
      {"-9223372036854775808000m", "-9223372036854775808", F::kDecimalSI},
      {"9223372036854775807000m", "9223372036854775807", F::kDecimalSI},
      {"-9223372036854775808.1", "-9223372036854775808100m", F::kDecimalSI},
      {"9223372036854775807.1", "9223372036854775807100m", F::kDecimalSI},
      {"-9223372036854775807", "-9223372036854775807", F::kDecimalSI},
      {"9223372036854775808", "9223372036854775808", F::kDecimalSI},
      {"-9223372036854775807.0", "-9223372036854775807", F::kDecimalSI},
      {"9223372036854775808.0", "9223372036854775808", F::kDecimalSI},
      {"-9223372036854775807000m", "-9223372036854775807", F::kDecimalSI},
      {"9223372036854775808000m", "9223372036854775808", F::kDecimalSI},
      {"-9223372036854775807.1", "-9223372036854775807100m", F::kDecimalSI},
      {"9223372036854775808.1", "9223372036854775808100m", F::kDecimalSI},
};

// DRAForge cases: the examples of the brief, values past int64, binary caps and oddities of the
// grammar that apimachinery accepts ("Ki", "-", "." are zero).
constexpr ParseCase kExtras[] = {
      {"1.5Gi", "1536Mi", F::kBinarySI},
      {"1000m", "1", F::kDecimalSI},
      {"0.1", "100m", F::kDecimalSI},
      {"12e6", "12e6", F::kDecimalExponent},
      {"1.5e3", "1500", F::kDecimalExponent},
      {"100000000000000000000000Ei", "9223372036854775807", F::kBinarySI},
      {"1E+40", "10e39", F::kDecimalExponent},
      {"1000E", "1e21", F::kDecimalSI},
      {"5000E", "5e21", F::kDecimalSI},
      {"1000000E", "1e24", F::kDecimalSI},
      {"8Ei", "9223372036854775807", F::kBinarySI},
      {"7Ei", "7Ei", F::kBinarySI},
      {"-8Ei", "-9223372036854775807", F::kBinarySI},
      {"16Ei", "9223372036854775807", F::kBinarySI},
      {"0.5Ki", "512", F::kBinarySI},
      {"1.1Ki", "1126400m", F::kBinarySI},
      {"1023", "1023", F::kDecimalSI},
      {"1024", "1024", F::kDecimalSI},
      {"1025Ki", "1025Ki", F::kBinarySI},
      {"2048Ki", "2Mi", F::kBinarySI},
      {"1.0Ki", "1Ki", F::kBinarySI},
      {"+5", "5", F::kDecimalSI},
      {"05", "5", F::kDecimalSI},
      {"01Ki", "1Ki", F::kBinarySI},
      {"Ki", "0", F::kBinarySI},
      {"-", "0", F::kDecimalSI},
      {".", "0", F::kDecimalSI},
      {"-.", "0", F::kDecimalSI},
      {"+", "0", F::kDecimalSI},
      {"e3", "0", F::kDecimalExponent},
      {"0e400", "0", F::kDecimalExponent},
      {"1.5", "1500m", F::kDecimalSI},
      {"1500m", "1500m", F::kDecimalSI},
      {"1.5k", "1500", F::kDecimalSI},
      {"1500k", "1500k", F::kDecimalSI},
      {"10000k", "10M", F::kDecimalSI},
      {"1536Mi", "1536Mi", F::kBinarySI},
      {"0.001Ki", "1024m", F::kBinarySI},
      {"999999999999999999999999999999999999999", "999999999999999999999999999999999999999", F::kDecimalSI},
      {"123456789.123456789123", "123456789123456790n", F::kDecimalSI},
      {"-0", "0", F::kDecimalSI},
      {"-0Ki", "0", F::kBinarySI},
      {"0.0Ki", "0", F::kBinarySI},
      {"1E-9", "1e-9", F::kDecimalExponent},
      {"1e-10", "1e-9", F::kDecimalExponent},
      {"1.99n", "2n", F::kDecimalSI},
      {"18446744073709551616", "18446744073709551616", F::kDecimalSI},
      {"12345678901234567890.123456789012", "12345678901234567890123456790n", F::kDecimalSI},
      {"0.000000001", "1n", F::kDecimalSI},
      {"0.0000000011", "2n", F::kDecimalSI},
      {"1M", "1M", F::kDecimalSI},
      {"1000k", "1M", F::kDecimalSI},
      {"1000000", "1M", F::kDecimalSI},
      {"1e6", "1e6", F::kDecimalExponent},
      {"1P", "1P", F::kDecimalSI},
      {"2e18", "2e18", F::kDecimalExponent},
      {"3e19", "30e18", F::kDecimalExponent},
};

void CheckParse(const ParseCase& c) {
  SCOPED_TRACE(c.input);
  absl::StatusOr<Quantity> q = Quantity::Parse(c.input);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->CanonicalForm(), c.canonical);
  EXPECT_EQ(q->format(), c.format) << FormatName(q->format());
  // Lossless: String() gives back the input; Canonical() is the input (when apimachinery keeps it,
  // see QuantityGoSpelling) or the canonical form.
  EXPECT_EQ(q->String(), c.input);
  EXPECT_TRUE(q->Canonical() == c.input || q->Canonical() == c.canonical) << q->Canonical();
  EXPECT_EQ(q->HasOriginalText(), q->Canonical() != c.input);
  // The canonical spelling parses to the same value and is kept as is.
  absl::StatusOr<Quantity> again = Quantity::Parse(c.canonical);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *q);
  EXPECT_EQ(again->CanonicalForm(), c.canonical);
  EXPECT_FALSE(again->HasOriginalText());
  if (c.input.empty() || c.input[0] == '-' || c.input[0] == '+') return;
  // Signed variants, as the Go test does for every row.
  const Quantity negative = Q(std::string("-") + std::string(c.input));
  EXPECT_EQ(negative, q->Neg());
  EXPECT_EQ(negative.format(), c.format);
  EXPECT_EQ(negative.CanonicalForm(),
            c.canonical == "0" ? std::string("0") : "-" + std::string(c.canonical));
  const Quantity positive = Q(std::string("+") + std::string(c.input));
  EXPECT_EQ(positive, *q);
  EXPECT_EQ(positive.format(), c.format);
  EXPECT_EQ(positive.CanonicalForm(), c.canonical);
}

TEST(QuantityParseTest, UpstreamParseTable) {
  for (const ParseCase& c : kUpstreamParse) CheckParse(c);
}

TEST(QuantityParseTest, UpstreamStringTable) {
  for (const ParseCase& c : kUpstreamString) CheckParse(c);
}

TEST(QuantityParseTest, UpstreamEmitTable) {
  for (const ParseCase& c : kUpstreamEmit) CheckParse(c);
}

TEST(QuantityParseTest, UpstreamInt64BoundsTable) {
  for (const ParseCase& c : kUpstreamInt64Bounds) CheckParse(c);
}

TEST(QuantityParseTest, Extras) {
  for (const ParseCase& c : kExtras) CheckParse(c);
}

TEST(QuantityParseTest, Errors) {
  struct Case {
    std::string_view input;
    std::string_view message;
  };
  constexpr Case kCases[] = {
      // apimachinery's invalid list.
      {"", kErrFormatWrong},
      {"1.1.M", kErrFormatWrong},
      {"1+1.0M", kErrFormatWrong},
      {"0.1mi", kErrSuffix},
      {"0.1am", kErrFormatWrong},
      {"aoeu", kErrFormatWrong},
      {".5i", kErrSuffix},
      {"1i", kErrSuffix},
      {"-3.01i", kErrSuffix},
      {"-3.01e-", kErrSuffix},
      {" 1", kErrFormatWrong},
      {"1 ", kErrFormatWrong},
      {"Non-Numeric", kErrFormatWrong},
      {"invalid", kErrFormatWrong},
      // More of the grammar.
      {"1.5.5", kErrFormatWrong},
      {"1Qi", kErrFormatWrong},
      {"1KI", kErrFormatWrong},
      {"1K", kErrSuffix},
      {"1Mb", kErrFormatWrong},
      {"1mm", kErrSuffix},
      {"1e", kErrSuffix},
      {"1e+", kErrSuffix},
      {"1E5x", kErrFormatWrong},
      {"1e5e", kErrFormatWrong},
      {"1ee5", kErrSuffix},
      {"1Ki5", kErrSuffix},
      {"+-1", kErrSuffix},
      {"1e99999999999999999999", kErrSuffix},
      {"1\t", kErrFormatWrong},
      {"1\xc2\xb5", kErrFormatWrong},  // "1µ": only ASCII u means micro
      // No digits: apimachinery's inf.Dec fallback cannot parse the number.
      {"e-10", kErrNumeric},
      {"-e-10", kErrNumeric},
      {".E-12", kErrNumeric},
      {"Pi", kErrNumeric},
      {"-.Ei", kErrNumeric},
      // DRAForge bounds.
      {"1e2147483648", "quantity's exponent is out of range"},
      {"1e-2147483649", "quantity's exponent is out of range"},
      {"1e4096", "quantity is too large"},
      {"1e2147483647", "quantity is too large"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.input);
    absl::StatusOr<Quantity> q = Quantity::Parse(c.input);
    ASSERT_FALSE(q.ok()) << q->CanonicalForm();
    EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(SV(q.status().message()), c.message);
  }
}

TEST(QuantityParseTest, BoundIsInclusive) {
  // 4096 integer digits are fine; the sign does not matter; a tiny value has no bound.
  EXPECT_EQ(Q("1e4095").CanonicalForm(), "1e4095");
  EXPECT_EQ(Q("-9.9e4095").CanonicalForm(), "-9900e4092");
  EXPECT_EQ(Q(std::string(4096, '9')).Sign(), 1);
  EXPECT_FALSE(Quantity::Parse(std::string(4097, '9')).ok());
  EXPECT_EQ(Q("1e-1000000000").CanonicalForm(), "1e-9");
  EXPECT_EQ(Q("0e1000000000").CanonicalForm(), "0");
}

TEST(QuantityParseTest, RoundsAwayFromZeroToNano) {
  EXPECT_EQ(Q("0.9n"), Q("1n"));
  EXPECT_EQ(Q("-0.9n"), Q("-1n"));
  EXPECT_EQ(Q("1.000000000000000000001"), Q("1000000001n"));
  EXPECT_EQ(Q("-1.000000000000000000001"), Q("-1000000001n"));
  EXPECT_EQ(Q("0.000000000000000000000"), Q("0"));
  EXPECT_EQ(Q("0.0000000010"), Q("1n"));
  EXPECT_EQ(Q("0.00000000100000000000000000001"), Q("2n"));
}

struct ValueCase {
  std::string_view input;
  int64_t value;
  int64_t milli;
  std::optional<int64_t> as_int64;
};

TEST(QuantityValueTest, ValueMilliValueAsInt64) {
  // Value and MilliValue round away from zero and saturate past int64; AsInt64 only for integers.
  constexpr ValueCase kCases[] = {
      {"0", 0, 0, 0},
      {"1", 1, 1000, 1},
      {"1.5", 2, 1500, std::nullopt},
      {"-1.5", -2, -1500, std::nullopt},
      {"0.0001", 1, 1, std::nullopt},
      {"1n", 1, 1, std::nullopt},
      {"-1n", -1, -1, std::nullopt},
      {"100m", 1, 100, std::nullopt},
      {"1000m", 1, 1000, 1},
      {"1Gi", 1073741824, 1073741824000, 1073741824},
      {"1.1Ki", 1127, 1126400, std::nullopt},
      {"1e3", 1000, 1000000, 1000},
      {"-1e3", -1000, -1000000, -1000},
      {"1.5e3", 1500, 1500000, 1500},
      {"1000000000000000000", 1000000000000000000, kInt64Max, 1000000000000000000},
      {"9223372036854775807", kInt64Max, kInt64Max, kInt64Max},
      {"-9223372036854775808", kInt64Min, kInt64Min, kInt64Min},
      {"9223372036854775808", kInt64Max, kInt64Max, std::nullopt},
      {"-9223372036854775809", kInt64Min, kInt64Min, std::nullopt},
      {"1E+40", kInt64Max, kInt64Max, std::nullopt},
      {"9223372036854775.807", 9223372036854776, kInt64Max, std::nullopt},
      {"9223372036854775.808", 9223372036854776, kInt64Max, std::nullopt},
      {"-9223372036854775.808", -9223372036854776, kInt64Min, std::nullopt},
      {"-9223372036854775.809", -9223372036854776, kInt64Min, std::nullopt},
      {"8Ei", kInt64Max, kInt64Max, kInt64Max},
      {"12E", kInt64Max, kInt64Max, std::nullopt},
      {"0.999999999", 1, 1000, std::nullopt},
      {"9.000000001", 10, 9001, std::nullopt},
  };
  for (const ValueCase& c : kCases) {
    SCOPED_TRACE(c.input);
    const Quantity q = Q(c.input);
    EXPECT_EQ(q.Value(), c.value);
    EXPECT_EQ(q.MilliValue(), c.milli);
    EXPECT_EQ(q.AsInt64(), c.as_int64);
  }
}

TEST(QuantityValueTest, IsInteger) {
  for (std::string_view text : {"0", "1", "1000m", "1Gi", "1E+40", "-9223372036854775809", "1.0"}) {
    EXPECT_TRUE(Q(text).IsInteger()) << text;
  }
  for (std::string_view text : {"1n", "1.5", "-0.5", "1.1Ki", "100000000000000000000000.1"}) {
    EXPECT_FALSE(Q(text).IsInteger()) << text;
  }
}

TEST(QuantityValueTest, UpstreamScaledValue) {
  // apimachinery TestScaledValue, for the scales DRAForge exposes.
  EXPECT_EQ(Q("1n").Value(), 1);
  EXPECT_EQ(Q("1n").MilliValue(), 1);
  EXPECT_EQ(Q("1u").Value(), 1);
  EXPECT_EQ(Q("1u").MilliValue(), 1);
  EXPECT_EQ(Q("1m").Value(), 1);
  EXPECT_EQ(Q("1m").MilliValue(), 1);
  EXPECT_EQ(Q("1").MilliValue(), 1000);
  EXPECT_EQ(Q("1").Value(), 1);
}

TEST(QuantityValueTest, SignAndZero) {
  EXPECT_EQ(Q("0").Sign(), 0);
  EXPECT_TRUE(Q("0Ki").IsZero());
  EXPECT_TRUE(Q("-0").IsZero());
  EXPECT_EQ(Q("-1n").Sign(), -1);
  EXPECT_EQ(Q("1E+40").Sign(), 1);
  EXPECT_EQ(Q("-100000000000000000000000").Sign(), -1);
  EXPECT_TRUE(Quantity().IsZero());
  EXPECT_EQ(Quantity().CanonicalForm(), "0");
  EXPECT_EQ(Quantity().format(), F::kDecimalSI);
}

TEST(QuantityFloatTest, MatchesApimachineryBitForBit) {
  struct Case {
    std::string_view input;
    double value;
  };
  // apimachinery TestStringQuantityAsApproximateFloat64 and TestQuantityAsApproximateFloat64
  // (large and infinite values), then values where apimachinery's mantissa * Pow10(exponent) is one
  // ulp away from the nearest double; the expected values are what apimachinery returns.
  constexpr Case kCases[] = {
      {"0", 0},
      {"1", 1},
      {"2Ki", 2048},
      {"1.1Ki", 1126.4e+0},
      {"1Mi", 1.048576e+06},
      {"2Gi", 2.147483648e+09},
      {"7Mi", 7 * 1024 * 1024},
      {"9223372036854775807", 9223372036854775807.0},
      {"9Ei", 9223372036854775807.0},
      {"12E", 1.2e19},
      {"12e500", HUGE_VAL},
      {"-12e500", -HUGE_VAL},
      {"1E+40", 1e+40},
      {"952378Gi", 1.0226080908574721e+15},
      {"828494.70Mi", 8.687396585472001e+11},
      {"430985811n", 0.43098581100000005},
      {"954222u", 0.9542219999999999},
      {"100m", 0.1},
      {"1.5", 1.5},
      {"-1.1Ki", -1126.4},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.input);
    EXPECT_EQ(Q(c.input).AsApproximateFloat64(), c.value);
  }
  // apimachinery multiplies 0 by Pow10(400) = +Inf.
  EXPECT_TRUE(std::isnan(Q("0e400").AsApproximateFloat64()));
}

struct CompareCase {
  std::string_view a;
  std::string_view b;
  int expect;
};

TEST(QuantityCompareTest, Table) {
  constexpr CompareCase kCases[] = {
      // apimachinery TestQuantityCmp.
      {"0", "0", 0},
      {"100m", "50m", 1},
      {"50m", "100m", -1},
      {"10000T", "100Gi", 1},
      // apimachinery TestQuantityCmpInt64AndDec, written as text.
      {"9.01", "9.01", 0},
      {"9.0", "9.01", -1},
      {"9.01", "9.00", 1},
      {"0", "0e-1", 0},
      {"0e1", "0", 0},
      {"800m", "1", -1},
      {"800m", "790m", 1},
      {"9223372036854775807", "0.1", 1},
      {"92233720368547758070", "1", 1},
      {"92233720368547758070", "10", 1},
      {"92233720368547758070", "0", 1},
      {"922.3372036854775807", "1k", -1},
      {"-9223372036854775808", "0", -1},
      {"-9.223372036854775808", "-1", -1},
      {"-0.9223372036854775808", "-1", 1},
      {"10.00000000000000000", "10", 0},
      {"10.00000000000000000", "-10", 1},
      {"-10.00000000000000000", "-10", 0},
      {"10.00000000000000000", "1", 1},
      {"10.00000000000000001", "10", 1},  // rounded up to 10.000000001
      {"10.000000001", "10", 1},
      {"9.999999999", "10", -1},
      // Formats and remembered text do not matter.
      {"1Ki", "1024", 0},
      {"1024Mi", "1Gi", 0},
      {"1000m", "1", 0},
      {"1e3", "1k", 0},
      {"1.5Gi", "1536Mi", 0},
      {"8Ei", "9223372036854775807", 0},
      // Signs, widths and exponents far apart.
      {"-1", "1", -1},
      {"-1n", "0", -1},
      {"1n", "-1E", 1},
      {"1E+40", "9223372036854775807", 1},
      {"-1E+40", "-9223372036854775807", -1},
      {"1e30", "1000000000000000000000000000001", -1},
      {"100000000000000000000000", "1e23", 0},
      {"100000000000000000000001", "1e23", 1},
      {"1e-9", "1n", 0},
      {"1e20", "99999999999999999999", 1},
      {"123456789012345678901234567890", "123456789012345678901234567891", -1},
      {"-123456789012345678901234567890", "-123456789012345678901234567891", 1},
  };
  for (const CompareCase& c : kCases) {
    SCOPED_TRACE(std::string(c.a) + " vs " + std::string(c.b));
    const Quantity a = Q(c.a);
    const Quantity b = Q(c.b);
    EXPECT_EQ(a.Compare(b), c.expect);
    EXPECT_EQ(b.Compare(a), -c.expect);
    EXPECT_EQ(a == b, c.expect == 0);
    EXPECT_EQ(a < b, c.expect < 0);
    EXPECT_EQ(a > b, c.expect > 0);
  }
}

TEST(QuantityCompareTest, HashAgreesWithEquality) {
  absl::flat_hash_set<Quantity> set = {Q("1"), Q("1Ki"), Q("1E+40"), Q("100000000000000000000000")};
  EXPECT_TRUE(set.contains(Q("1000m")));
  EXPECT_TRUE(set.contains(Q("1024")));
  EXPECT_TRUE(set.contains(Q("10e39")));
  EXPECT_TRUE(set.contains(Q("1e23")));
  EXPECT_FALSE(set.contains(Q("2")));
  EXPECT_EQ(absl::Hash<Quantity>()(Q("1.5Gi")), absl::Hash<Quantity>()(Q("1536Mi")));
  EXPECT_EQ(absl::Hash<Quantity>()(Q("-9223372036854775808")),
            absl::Hash<Quantity>()(Quantity::FromInt64(kInt64Min, F::kDecimalSI)));
}

struct ArithmeticCase {
  std::string_view a;
  std::string_view b;
  std::string_view canonical;
  F format;
};

TEST(QuantityArithmeticTest, Add) {
  // The result takes a's format, or b's when a is zero (apimachinery's Add); the expected values
  // are apimachinery's.
  constexpr ArithmeticCase kCases[] = {
        {"100m", "1Gi", "1073741824100m", F::kDecimalSI},
        {"1Gi", "100m", "1073741824100m", F::kBinarySI},
        {"0", "1Gi", "1Gi", F::kBinarySI},
        {"1Gi", "0", "1Gi", F::kBinarySI},
        {"0", "100m", "100m", F::kDecimalSI},
        {"100m", "0", "100m", F::kDecimalSI},
        {"0Ki", "5", "5", F::kDecimalSI},
        {"1.5", "1.5", "3", F::kDecimalSI},
        {"999m", "1m", "1", F::kDecimalSI},
        {"1Ki", "1Ki", "2Ki", F::kBinarySI},
        {"1Ki", "-1Ki", "0", F::kBinarySI},
        {"1e3", "1k", "2e3", F::kDecimalExponent},
        {"1k", "1e3", "2k", F::kDecimalSI},
        {"1E", "1E", "2E", F::kDecimalSI},
        {"9223372036854775807", "1", "9223372036854775808", F::kDecimalSI},
        {"-9223372036854775807", "-2", "-9223372036854775809", F::kDecimalSI},
        {"1E", "1n", "1000000000000000000000000001n", F::kDecimalSI},
        {"100000000000000000000000", "-1", "99999999999999999999999", F::kDecimalSI},
        {"1e30", "1e-9", "1000000000000000000000000000000000000001e-9", F::kDecimalExponent},
        {"1n", "-1n", "0", F::kDecimalSI},
        {"5Gi", "-1n", "5368709119999999999n", F::kBinarySI},
        {"7Ei", "7Ei", "14Ei", F::kBinarySI},
        {"12e6", "1", "12000001", F::kDecimalExponent},
        {"0.5", "0.5", "1", F::kDecimalSI},
  };
  for (const ArithmeticCase& c : kCases) {
    SCOPED_TRACE(std::string(c.a) + " + " + std::string(c.b));
    const Quantity sum = Q(c.a).Add(Q(c.b));
    EXPECT_EQ(sum.CanonicalForm(), c.canonical);
    EXPECT_EQ(sum.format(), c.format);
    EXPECT_FALSE(sum.HasOriginalText());
    EXPECT_EQ(sum.String(), c.canonical);
  }
}

TEST(QuantityArithmeticTest, Sub) {
  constexpr ArithmeticCase kCases[] = {
        {"1Gi", "512Mi", "512Mi", F::kBinarySI},
        {"100m", "1Gi", "-1073741823900m", F::kDecimalSI},
        {"0", "1Gi", "-1Gi", F::kBinarySI},
        {"0", "100m", "-100m", F::kDecimalSI},
        {"1Gi", "0", "1Gi", F::kBinarySI},
        {"10", "10", "0", F::kDecimalSI},
        {"10", "1e1", "0", F::kDecimalSI},
        {"1", "1n", "999999999n", F::kDecimalSI},
        {"-9223372036854775807", "2", "-9223372036854775809", F::kDecimalSI},
        {"1E", "1n", "999999999999999999999999999n", F::kDecimalSI},
        {"100000000000000000000000", "100000000000000000000000", "0", F::kDecimalSI},
        {"0", "-9223372036854775808", "9223372036854775808", F::kDecimalSI},
        {"1e3", "1500m", "998500e-3", F::kDecimalExponent},
        {"2Ki", "1.5Ki", "512", F::kBinarySI},
  };
  for (const ArithmeticCase& c : kCases) {
    SCOPED_TRACE(std::string(c.a) + " - " + std::string(c.b));
    const Quantity difference = Q(c.a).Sub(Q(c.b));
    EXPECT_EQ(difference.CanonicalForm(), c.canonical);
    EXPECT_EQ(difference.format(), c.format);
    EXPECT_FALSE(difference.HasOriginalText());
  }
}

TEST(QuantityArithmeticTest, UpstreamAddSubFormats) {
  // apimachinery TestAdd / TestSub: the format of a non-zero receiver wins.
  const Quantity ten = Quantity::FromInt64(10, F::kDecimalSI);
  const Quantity ten_binary = Quantity::FromInt64(10, F::kBinarySI);
  const Quantity one_binary = Quantity::FromInt64(1, F::kBinarySI);
  const Quantity one = Quantity::FromInt64(1, F::kDecimalSI);
  EXPECT_EQ(ten.Add(Q("1e1")), Q("20"));
  EXPECT_EQ(ten.Add(one_binary).format(), F::kDecimalSI);
  EXPECT_EQ(ten_binary.Add(one).format(), F::kBinarySI);
  EXPECT_EQ(ten.Sub(Q("1e1")), Q("0"));
  EXPECT_EQ(ten.Sub(one_binary).format(), F::kDecimalSI);
  EXPECT_EQ(ten_binary.Sub(one), Q("9"));
  EXPECT_EQ(ten_binary.Sub(one).format(), F::kBinarySI);
  EXPECT_EQ(Quantity().Sub(Q("50")), Q("-50"));
  EXPECT_EQ(Q("50").Sub(Quantity()), Q("50"));
  EXPECT_EQ(Quantity().Add(Quantity()), Q("0"));
}

TEST(QuantityArithmeticTest, UpstreamZeroPreservesSuffix) {
  // apimachinery TestQuantityAddZeroPreservesSuffix / TestQuantitySubZeroPreservesSuffix.
  for (std::string_view text : {"100m", "1Gi"}) {
    SCOPED_TRACE(text);
    const Quantity value = Q(text);
    const Quantity zero = Q("0");
    EXPECT_EQ(value.Add(zero).String(), text);
    EXPECT_EQ(zero.Add(value).String(), text);
    EXPECT_EQ(value.Sub(zero).String(), text);
    EXPECT_EQ(zero.Sub(value).String(), value.Neg().String());
    EXPECT_EQ(zero.Sub(value).String(), "-" + std::string(text));
  }
}

TEST(QuantityArithmeticTest, UpstreamNeg) {
  EXPECT_EQ(Q("9.01").Neg().CanonicalForm(), "-9010m");
  EXPECT_EQ(Q("-10").Neg(), Q("10"));
  EXPECT_EQ(Q("0").Neg().CanonicalForm(), "0");
  EXPECT_EQ(Quantity::FromInt64(10, F::kBinarySI).Neg().format(), F::kBinarySI);
  // -INT64_MIN does not fit an int64 and must not wrap.
  EXPECT_EQ(Quantity::FromInt64(kInt64Min, F::kDecimalSI).Neg().CanonicalForm(), "9223372036854775808");
  EXPECT_EQ(Quantity().Sub(Quantity::FromInt64(kInt64Min, F::kBinarySI)).CanonicalForm(), "8Ei");
  // As in apimachinery, that spelling does not parse back to 2^63: binary values are capped.
  EXPECT_EQ(Q("8Ei").CanonicalForm(), "9223372036854775807");
  EXPECT_EQ(Quantity::FromInt64(kInt64Min, F::kBinarySI).CanonicalForm(), "-8Ei");
  EXPECT_EQ(Q("1").Sub(Quantity::FromInt64(kInt64Min, F::kDecimalSI)).CanonicalForm(),
            "9223372036854775809");
}

struct MulCase {
  std::string_view a;
  int64_t factor;
  std::string_view canonical;
  F format;
};

TEST(QuantityArithmeticTest, Mul) {
  // apimachinery TestMul's cases, including the int64 edges, plus wide products.
  constexpr MulCase kCases[] = {
        {"1Gi", 3, "3Gi", F::kBinarySI},
        {"100m", 10, "1", F::kDecimalSI},
        {"100m", -10, "-1", F::kDecimalSI},
        {"1", 0, "0", F::kDecimalSI},
        {"-50", -50, "2500", F::kDecimalSI},
        {"9223372036854775807", 2, "18446744073709551614", F::kDecimalSI},
        {"9223372036854775807", 10, "92233720368547758070", F::kDecimalSI},
        {"-9223372036854775807", -10, "92233720368547758070", F::kDecimalSI},
        {"1.5Gi", 2, "3Gi", F::kBinarySI},
        {"1e3", 1000, "1e6", F::kDecimalExponent},
        {"12345678901234567890", 98765432109876, "1219326311370211245941227861481640", F::kDecimalSI},
        {"1n", 1000000000, "1", F::kDecimalSI},
        {"1Ki", 1024, "1Mi", F::kBinarySI},
      {"10", 10, "100", F::kDecimalSI},
      {"10", 1, "10", F::kDecimalSI},
      {"0", 50, "0", F::kDecimalSI},
      {"50", 0, "0", F::kDecimalSI},
      {"9223372036854775807", 0, "0", F::kDecimalSI},
      {"9223372036854775807", -1, "-9223372036854775807", F::kDecimalSI},
      {"4611686018427387903", 2, "9223372036854775806", F::kDecimalSI},
      {"-4611686018427387904", 2, "-9223372036854775808", F::kDecimalSI},
      {"-9223372036854775808", -1, "9223372036854775808", F::kDecimalSI},
      {"-9223372036854775808", 2, "-18446744073709551616", F::kDecimalSI},
      {"-9223372036854775808", -10, "92233720368547758080", F::kDecimalSI},
      {"-9223372036854775808", kInt64Min, "85070591730234615865843651857942052864", F::kDecimalSI},
      {"100000000000000000000000", -3, "-300e21", F::kDecimalSI},
  };
  for (const MulCase& c : kCases) {
    SCOPED_TRACE(std::string(c.a) + " * " + std::to_string(c.factor));
    const Quantity product = Q(c.a).Mul(c.factor);
    EXPECT_EQ(product.CanonicalForm(), c.canonical);
    EXPECT_EQ(product.format(), c.format);
  }
}

TEST(QuantityArithmeticTest, AddSubRoundTrip) {
  // apimachinery TestAddSubRoundTrip / TestAddSubRoundTripAcrossScales, with a fixed seed.
  std::mt19937_64 random(42);
  for (int scale = -9; scale <= 10; ++scale) {
    Quantity sum;
    std::vector<Quantity> terms;
    for (int i = 0; i < 100; ++i) {
      const auto value = static_cast<int64_t>(random() >> 1);
      const int term_scale = scale == 10 ? static_cast<int>(value % 19) - 9 : scale;
      terms.push_back(Q(std::to_string(value) + "e" + std::to_string(term_scale)));
      sum = sum.Add(terms.back());
    }
    for (const Quantity& term : terms) sum = sum.Sub(term);
    EXPECT_TRUE(sum.IsZero()) << scale << ": " << sum.CanonicalForm();
  }
}

TEST(QuantityArithmeticTest, NegateRoundTrip) {
  std::mt19937_64 random(7);
  for (int i = 0; i < 200; ++i) {
    const Quantity q = Q(std::to_string(static_cast<int64_t>(random())) + "e" +
                         std::to_string(static_cast<int>(random() % 21) - 9));
    EXPECT_EQ(q.Neg().Neg(), q);
    EXPECT_EQ(q.Add(q.Neg()).Sign(), 0);
  }
}

TEST(QuantityConstructTest, UpstreamNewQuantity) {
  // apimachinery TestNewSet.
  struct Case {
    int64_t value;
    F format;
    std::string_view canonical;
  };
  constexpr Case kCases[] = {
      {1, F::kDecimalSI, "1"},
      {1000, F::kDecimalSI, "1k"},
      {1234000, F::kDecimalSI, "1234k"},
      {1024, F::kBinarySI, "1Ki"},
      {1000000, F::kDecimalExponent, "1e6"},
      {1024 * 1024, F::kBinarySI, "1Mi"},
      {0, F::kBinarySI, "0"},
      {-1024, F::kBinarySI, "-1Ki"},
      {kInt64Max, F::kDecimalSI, "9223372036854775807"},
      {kInt64Min, F::kDecimalSI, "-9223372036854775808"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.canonical);
    const Quantity q = Quantity::FromInt64(c.value, c.format);
    EXPECT_EQ(q.CanonicalForm(), c.canonical);
    EXPECT_EQ(q.String(), c.canonical);
    EXPECT_EQ(q.format(), c.format);
    EXPECT_EQ(q.Value(), c.value);
    EXPECT_EQ(q.AsInt64(), c.value);
    EXPECT_EQ(Q(c.canonical), q);
  }
}

TEST(QuantityConstructTest, UpstreamNewMilliQuantity) {
  // apimachinery TestMilliNewSet: a binary value below 1024 is spelled as decimal.
  struct Case {
    int64_t milli;
    F format;
    std::string_view canonical;
  };
  constexpr Case kCases[] = {
      {1, F::kDecimalSI, "1m"},
      {1000, F::kDecimalSI, "1"},
      {1234000, F::kDecimalSI, "1234"},
      {1024, F::kBinarySI, "1024m"},
      {1000000, F::kDecimalExponent, "1e3"},
      {1024 * 1024, F::kBinarySI, "1048576m"},
      {1024 * 1000, F::kBinarySI, "1Ki"},
      {-1500, F::kDecimalSI, "-1500m"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.canonical);
    const Quantity q = Quantity::FromMilli(c.milli, c.format);
    EXPECT_EQ(q.CanonicalForm(), c.canonical);
    EXPECT_EQ(q.format(), c.format);
    EXPECT_EQ(q.MilliValue(), c.milli);
  }
}

TEST(QuantityTextTest, LosslessString) {
  const Quantity q = Q("1.5Gi");
  EXPECT_EQ(q.String(), "1.5Gi");
  EXPECT_EQ(q.CanonicalForm(), "1536Mi");
  EXPECT_TRUE(q.HasOriginalText());
  // Copies and moves keep the text.
  Quantity copy = q;
  EXPECT_EQ(copy.String(), "1.5Gi");
  Quantity moved = std::move(copy);
  EXPECT_EQ(moved.String(), "1.5Gi");
  copy = moved;
  EXPECT_EQ(copy.String(), "1.5Gi");
  // Canonical text is not stored.
  EXPECT_FALSE(Q("1536Mi").HasOriginalText());
  // apimachinery also keeps some non-canonical spellings ("+5", "05"); so does String().
  EXPECT_EQ(Q("+5").String(), "+5");
  EXPECT_EQ(Q("05").String(), "05");
  EXPECT_EQ(Q("05").CanonicalForm(), "5");
  // Arithmetic drops the text.
  EXPECT_EQ(q.Add(Q("0")).String(), "1536Mi");
  EXPECT_EQ(q.Mul(1).String(), "1536Mi");
  EXPECT_EQ(q.Neg().String(), "-1536Mi");
  // Equality ignores the text and the format.
  EXPECT_EQ(Q("1.5Gi"), Q("1610612736"));
  // A wide value keeps its text too.
  const Quantity wide = Q("1.0E+40");
  EXPECT_EQ(wide.String(), "1.0E+40");
  EXPECT_EQ(wide.CanonicalForm(), "10e39");
}

TEST(QuantityTextTest, CanonicalPastSuffixes) {
  // A decimal SI exponent past E has no suffix: exponent notation keeps the value.
  EXPECT_EQ(Q("1000E").CanonicalForm(), "1e21");
  EXPECT_EQ(Q("1000E").format(), F::kDecimalSI);
  EXPECT_EQ(Q("10E").CanonicalForm(), "10E");
  EXPECT_EQ(Q("999E").CanonicalForm(), "999E");
  // A binary value past Ei keeps the Ei suffix.
  EXPECT_EQ(Q("1Ei").Mul(1024).CanonicalForm(), "1024Ei");
  EXPECT_EQ(Q("1Ei").Mul(1024).Mul(1024).CanonicalForm(), "1048576Ei");
  EXPECT_EQ(Q("1Ei").Mul(3).CanonicalForm(), "3Ei");
  // Binary values with a fraction, or below 1024, are spelled as decimal.
  EXPECT_EQ(Q("1023").Add(Quantity::FromInt64(0, F::kBinarySI)).CanonicalForm(), "1023");
  EXPECT_EQ(Quantity::FromInt64(1023, F::kBinarySI).CanonicalForm(), "1023");
  EXPECT_EQ(Quantity::FromInt64(-1023, F::kBinarySI).CanonicalForm(), "-1023");
  EXPECT_EQ(Q("1.5Ki").Add(Q("1m")).CanonicalForm(), "1536001m");
}

TEST(QuantityDivisionTest, FloorDivAndMod) {
  struct Case {
    std::string_view a;
    std::string_view b;
    std::string_view quotient;
    std::string_view remainder;
  };
  constexpr Case kCases[] = {
      {"10", "3", "3", "1"},
      {"-10", "3", "-4", "2"},
      {"10", "-3", "-4", "-2"},
      {"-10", "-3", "3", "-1"},
      {"1Gi", "1Mi", "1024", "0"},
      {"1.5", "500m", "3", "0"},
      {"1", "300m", "3", "100m"},
      {"1E+40", "1n", "10e48", "0"},
      {"100000000000000000000001", "7", "14285714285714285714285", "6"},
      {"123456789012345678901234567890123456789012345", "98765432109876543210987654321",
       "1249999988609375", "14062500001529706789152970"},
      {"0", "5", "0", "0"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.a) + " / " + std::string(c.b));
    const std::optional<Quantity> quotient = Q(c.a).FloorDiv(Q(c.b));
    const std::optional<Quantity> remainder = Q(c.a).Mod(Q(c.b));
    ASSERT_TRUE(quotient.has_value());
    ASSERT_TRUE(remainder.has_value());
    EXPECT_EQ(quotient->CanonicalForm(), c.quotient);
    EXPECT_EQ(remainder->CanonicalForm(), c.remainder);
    EXPECT_TRUE(quotient->IsInteger());
    if (std::optional<int64_t> k = quotient->AsInt64()) {
      EXPECT_EQ(Q(c.b).Mul(*k).Add(*remainder), Q(c.a));
    }
  }
  EXPECT_FALSE(Q("1").FloorDiv(Q("0")).has_value());
  EXPECT_FALSE(Q("1").Mod(Q("0n")).has_value());
}

TEST(QuantityDivisionTest, RoundUpToStep) {
  struct Case {
    std::string_view value;
    std::string_view min;
    std::string_view step;
    std::string_view canonical;
    F format;
  };
  constexpr Case kCases[] = {
      {"1Gi", "1Gi", "1Gi", "1Gi", F::kBinarySI},
      {"1.5Gi", "1Gi", "1Gi", "2Gi", F::kBinarySI},
      {"500Mi", "1Gi", "1Gi", "1Gi", F::kBinarySI},         // below min: min
      {"2049Mi", "1Gi", "512Mi", "2560Mi", F::kBinarySI},
      {"10", "1", "3", "10", F::kDecimalSI},
      {"11", "1", "3", "13", F::kDecimalSI},
      {"1100m", "0", "250m", "1250m", F::kDecimalSI},
      {"1", "0", "1n", "1", F::kDecimalSI},
      {"1000000000000000000001", "0", "1E", "1001E", F::kDecimalSI},
      {"1e30", "1n", "7", "1000000000000000000000000000006000000001n", F::kDecimalSI},
      {"5", "1", "2e0", "5", F::kDecimalExponent},
      {"6", "1", "2e0", "7", F::kDecimalExponent},
      {"7", "1", "0", "7", F::kDecimalSI},                     // no step can reach past min
      {"7", "1", "-2", "7", F::kDecimalSI},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.value) + " " + std::string(c.min) + " " + std::string(c.step));
    const Quantity rounded = Quantity::RoundUpToStep(Q(c.value), Q(c.min), Q(c.step));
    EXPECT_EQ(rounded.CanonicalForm(), c.canonical);
    EXPECT_EQ(rounded.format(), c.format);
  }
  // Below min, min itself comes back, remembered text included.
  EXPECT_EQ(Quantity::RoundUpToStep(Q("1"), Q("1.5Gi"), Q("1Gi")).String(), "1.5Gi");
}

TEST(QuantityRepresentationTest, IsSmall) {
  // The store keeps millions of quantities: the value is 16 bytes, the text and any mantissa wider
  // than int64 live on the heap.
  EXPECT_EQ(sizeof(Quantity), 16u);
}

TEST(QuantityRepresentationTest, FormatNames) {
  EXPECT_EQ(FormatName(F::kDecimalExponent), "DecimalExponent");
  EXPECT_EQ(FormatName(F::kBinarySI), "BinarySI");
  EXPECT_EQ(FormatName(F::kDecimalSI), "DecimalSI");
}

}  // namespace
}  // namespace draforge::api

namespace draforge::api {
namespace {

// apimachinery keeps the input text of ParseQuantity when it already looks canonical, and then
// String() and MarshalJSON write it verbatim (a consumedCapacity copied from a requestPolicy default
// keeps "+1"); Canonical() must agree with Go on every text. testdata/quantity-spelling.tsv is
// k8s.io/apimachinery v0.37.2's output on ~17,000 texts (tests/api/goref/run regenerates and checks
// it).
TEST(QuantityGoSpelling, CanonicalIsApimachineryString) {
  const std::string table =
      testing::ReadFile(testing::SourceRoot() / "tests" / "api" / "testdata" / "quantity-spelling.tsv");
  int checked = 0, kept = 0, known = 0, mismatches = 0;
  std::istringstream lines(table);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    const std::string input = line.substr(0, tab);
    const std::string go = line.substr(tab + 1);
    absl::StatusOr<Quantity> q = Quantity::Parse(input);
    if (go == "!") {
      EXPECT_FALSE(q.ok()) << input;
      continue;
    }
    ASSERT_TRUE(q.ok()) << input << ": " << q.status();
    ++checked;
    if (go == input && q->CanonicalForm() != input) ++kept;
    const std::string canonical = q->Canonical();
    if (q->format() == Quantity::Format::kDecimalSI && canonical.find('e') != std::string::npos &&
        go == canonical.substr(0, canonical.find('e'))) {
      // Known divergence (tests/parity/known-divergences/quantity-exponent-21-spelling.yaml): a
      // DecimalSI value beyond the E suffix loses its exponent in apimachinery ("1000E" -> "1");
      // DRAForge writes "1e21".
      ++known;
      continue;
    }
    if (canonical != go && ++mismatches <= 20) {
      ADD_FAILURE() << input << ": Canonical() " << q->Canonical() << ", apimachinery " << go;
    }
    // The round-trip text is unaffected, and a copy keeps the spelling (as Go's value copy does).
    EXPECT_EQ(q->String(), input);
    const Quantity copy = *q;
    EXPECT_EQ(copy.Canonical(), q->Canonical());
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(checked, 10000);
  EXPECT_GT(kept, 1000);  // the table does exercise kept non-canonical spellings
  EXPECT_LT(known, 100);
}

TEST(QuantityGoSpelling, KeptAndReformattedExamples) {
  // Kept: the fixture of tests/parity/regressions/consumed-capacity-kept-spelling.yaml.
  for (const char* text : {"+1", "1.500", "010", "07Mi", "+5Gi", "1e0", "1E3", "100.035k"}) {
    EXPECT_EQ(Q(text).Canonical(), text);
    EXPECT_FALSE(Q(text).HasOriginalText()) << text;
  }
  // Re-formatted: a scale not a multiple of 3, digits ending in 000 or starting with 0 after the
  // sign, a binary value that is a multiple of 8, a fraction with a binary suffix, more than 18 digits.
  EXPECT_EQ(Q("1.5").Canonical(), "1500m");
  EXPECT_EQ(Q("1.000").Canonical(), "1");
  EXPECT_EQ(Q("1000k").Canonical(), "1M");
  EXPECT_EQ(Q("0.5").Canonical(), "500m");
  EXPECT_EQ(Q("1024Mi").Canonical(), "1Gi");
  EXPECT_EQ(Q("8Ki").Canonical(), "8Ki");
  EXPECT_EQ(Q("+8Ki").Canonical(), "8Ki");
  EXPECT_EQ(Q("1.5Gi").Canonical(), "1536Mi");
  EXPECT_EQ(Q("-0").Canonical(), "0");
  EXPECT_TRUE(Q("1.5").HasOriginalText());
  // Arithmetic results have no kept text.
  EXPECT_EQ(Q("+1").Add(Q("0")).Canonical(), "1");
  EXPECT_EQ(Q("+1").Mul(1).Canonical(), "1");
}

}  // namespace
}  // namespace draforge::api
