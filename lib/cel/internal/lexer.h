// The CEL lexer (cel-spec langdef.md "Syntax", the lexical part of CEL.g4).
#ifndef DRAFORGE_CEL_INTERNAL_LEXER_H_
#define DRAFORGE_CEL_INTERNAL_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace draforge::cel::internal {

enum class Tok {
  kEof,
  kError,  // unrecognized character (text = the offending text)
  kIdent,
  kEscIdent,  // a backtick-quoted field name (value: the name without the backticks)
  kInt,     // text: digits (decimal or 0x hex), without sign
  kUint,    // text: digits without the u suffix
  kDouble,  // text: the literal
  kString,  // value: decoded
  kBytes,   // value: decoded
  kTrue,
  kFalse,
  kNull,
  kIn,
  kLParen, kRParen, kLBracket, kRBracket, kLBrace, kRBrace,
  kDot, kComma, kColon, kQuestion,
  kEq, kNe, kLt, kLe, kGt, kGe, kAnd, kOr, kNot,
  kPlus, kMinus, kStar, kSlash, kPercent,
};

struct Token {
  Tok kind = Tok::kEof;
  int32_t offset = 0;       // byte offset of the first character
  std::string_view text;    // the source text of the token
  std::string value;        // decoded string/bytes literal
  std::string error;        // kError / bad literal: message
};

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}
  // Returns the next token; whitespace and comments (// to end of line) are skipped.
  Token Next();

 private:
  Token LexNumber(size_t start);
  Token LexString(size_t start, bool raw, bool bytes);
  std::string_view src_;
  size_t pos_ = 0;
};

// The display text of a token kind for "mismatched input" messages.
std::string TokenDisplay(const Token& t);

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_LEXER_H_
