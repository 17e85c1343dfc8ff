// Parser tests: valid syntax (rendered back through Unparse after macro expansion) and syntax
// errors with cel-go's wording and positions.
#include <string>

#include "cel/ast.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draforge::cel {
namespace {

std::string P(const char* src) {
  auto p = Parse(src);
  if (!p.ok()) return "ERR: " + std::string(p.status().message());
  return Unparse(*p->root);
}

TEST(ParserTest, Literals) {
  EXPECT_EQ(P("1"), "1");
  EXPECT_EQ(P("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(P("1u"), "1u");
  EXPECT_EQ(P("0x1F"), "31");
  EXPECT_EQ(P("0x1Fu"), "31u");
  EXPECT_EQ(P("1.5e3"), "1500");
  EXPECT_EQ(P(".5"), "0.5");
  EXPECT_EQ(P("'a\\tb'"), "\"a\tb\"");
  EXPECT_EQ(P("r'a\\tb'"), "\"a\\tb\"");
  EXPECT_EQ(P("'''a'b'''"), "\"a'b\"");
  EXPECT_EQ(P("b'\\xff'"), "b\"\xff\"");
  EXPECT_EQ(P("'\\u00e9'"), "\"\xc3\xa9\"");
  EXPECT_EQ(P("'\\101'"), "\"A\"");
  EXPECT_EQ(P("true"), "true");
  EXPECT_EQ(P("null"), "null");
  EXPECT_EQ(P("--1"), "1");
  EXPECT_EQ(P("!!x"), "x");
}

TEST(ParserTest, Precedence) {
  EXPECT_EQ(P("a || b && c"), "_||_(a, _&&_(b, c))");
  EXPECT_EQ(P("1 + 2 * 3"), "_+_(1, _*_(2, 3))");
  EXPECT_EQ(P("1 - 2 - 3"), "_-_(_-_(1, 2), 3)");
  EXPECT_EQ(P("a < b == c"), "_==_(_<_(a, b), c)");
  EXPECT_EQ(P("x in [1] ? 1 : 2"), "_?_:_(@in(x, [1]), 1, 2)");
  EXPECT_EQ(P("-x.y"), "-_(x.y)");
  EXPECT_EQ(P("!a"), "!_(a)");
  EXPECT_EQ(P("a.b[c].d(e)"), "_[_](a.b, c).d(e)");
  EXPECT_EQ(P("{'a': 1, 2: [3,]}"), "{\"a\": 1, 2: [3]}");
  EXPECT_EQ(P("a.?b"), "_?._(a, \"b\")");
  EXPECT_EQ(P("a[?0]"), "_[?_](a, 0)");
  EXPECT_EQ(P("optional.of(1)"), "optional.of(1)");
}

TEST(ParserTest, Macros) {
  EXPECT_EQ(P("has(a.b)"), "has(a.b)");
  EXPECT_EQ(P("l.all(x, x > 0)"),
            "__comprehension__(x, l, @result, true, @not_strictly_false(@result), _&&_(@result, _>_(x, 0)), @result)");
  EXPECT_EQ(P("cel.bind(v, 1, v)"), "__comprehension__(#unused, [], v, 1, false, v, v)");
  EXPECT_THAT(P("l.map(x, x)"), ::testing::HasSubstr("_+_(@result, [x])"));
  EXPECT_THAT(P("m.transformMap(k, v, v)"), ::testing::HasSubstr("cel.@mapInsert(@result, k, v)"));
}

TEST(ParserTest, Errors) {
  EXPECT_EQ(P("1 +"),
            "ERR: ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', "
            "'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 +\n | ...^");
  EXPECT_EQ(P("(1"), "ERR: ERROR: <input>:1:3: Syntax error: missing ')' at '<EOF>'\n | (1\n | ..^");
  EXPECT_EQ(P("1 2"), "ERR: ERROR: <input>:1:3: Syntax error: extraneous input '2' expecting <EOF>\n | 1 2\n | ..^");
  EXPECT_EQ(P("[1,2"), "ERR: ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {']', ','}\n | [1,2\n | ....^");
  EXPECT_EQ(P("a.b."), "ERR: ERROR: <input>:1:5: Syntax error: no viable alternative at input '.'\n | a.b.\n | ....^");
  EXPECT_EQ(P("true ? 1"), "ERR: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting ':'\n | true ? 1\n | ........^");
  EXPECT_EQ(P("as == 1"), "ERR: ERROR: <input>:1:1: reserved identifier: as\n | as == 1\n | ^");
  EXPECT_EQ(P("9223372036854775808"), "ERR: ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808\n | ^");
  EXPECT_EQ(P("18446744073709551616u"), "ERR: ERROR: <input>:1:1: invalid uint literal\n | 18446744073709551616u\n | ^");
  EXPECT_EQ(P("x.all(1, true)"), "ERR: ERROR: <input>:1:7: argument must be a simple name\n | x.all(1, true)\n | ......^");
  EXPECT_EQ(P("has(x)"), "ERR: ERROR: <input>:1:5: invalid argument to has() macro\n | has(x)\n | ....^");
  EXPECT_EQ(P("cel.bind(1, 2, 3)"),
            "ERR: ERROR: <input>:1:10: cel.bind() variable names must be simple identifiers\n | cel.bind(1, 2, 3)\n | .........^");
  EXPECT_THAT(P("\"abc"), ::testing::HasSubstr("ERROR: <input>:1:1: Syntax error: token recognition error at: '\"abc'"));
  EXPECT_THAT(P("a\n  + )"), ::testing::HasSubstr("<input>:2:5:"));
}

TEST(ParserTest, Limits) {
  std::string deep(300, '(');
  deep += "1";
  deep += std::string(300, ')');
  EXPECT_THAT(P(deep.c_str()), ::testing::HasSubstr("expression recursion limit exceeded: 250"));
  std::string chain = "1";
  for (int i = 0; i < 5000; ++i) chain += " + 1";
  EXPECT_THAT(P(chain.c_str()), ::testing::HasSubstr("expression recursion limit exceeded"));
  std::string big(100001, ' ');
  big[0] = '1';
  EXPECT_THAT(P(big.c_str()), ::testing::HasSubstr("expression code point size exceeds limit"));
}

}  // namespace
}  // namespace draforge::cel
