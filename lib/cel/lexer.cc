#include "cel/internal/lexer.h"

#include <cstring>

namespace draforge::cel::internal {

namespace {

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int HexVal(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

Token Lexer::Next() {
  // Skip whitespace and comments.
  for (;;) {
    while (pos_ < src_.size() && (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\n' ||
                                  src_[pos_] == '\r' || src_[pos_] == '\f')) {
      ++pos_;
    }
    if (pos_ + 1 < src_.size() && src_[pos_] == '/' && src_[pos_ + 1] == '/') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      continue;
    }
    break;
  }
  Token t;
  t.offset = static_cast<int32_t>(pos_);
  if (pos_ >= src_.size()) {
    t.kind = Tok::kEof;
    t.text = "<EOF>";
    return t;
  }
  const size_t start = pos_;
  const char c = src_[pos_];
  auto peek = [&](size_t k) -> char { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; };
  auto op = [&](Tok k, size_t len) {
    t.kind = k;
    t.text = src_.substr(start, len);
    pos_ += len;
    return t;
  };
  // String prefixes: r, R, b, B and combinations.
  if (c == 'r' || c == 'R' || c == 'b' || c == 'B') {
    bool raw = false, bytes = false;
    size_t p = pos_;
    for (int i = 0; i < 2 && p < src_.size(); ++i) {
      char d = src_[p];
      if ((d == 'r' || d == 'R') && !raw) {
        raw = true;
        ++p;
      } else if ((d == 'b' || d == 'B') && !bytes) {
        bytes = true;
        ++p;
      } else {
        break;
      }
    }
    if (p < src_.size() && (src_[p] == '"' || src_[p] == '\'')) {
      pos_ = p;
      return LexString(start, raw, bytes);
    }
  }
  if (IsIdentStart(c)) {
    while (pos_ < src_.size() && (IsIdentStart(src_[pos_]) || IsDigit(src_[pos_]))) ++pos_;
    t.text = src_.substr(start, pos_ - start);
    if (t.text == "true") t.kind = Tok::kTrue;
    else if (t.text == "false") t.kind = Tok::kFalse;
    else if (t.text == "null") t.kind = Tok::kNull;
    else if (t.text == "in") t.kind = Tok::kIn;
    else t.kind = Tok::kIdent;
    return t;
  }
  if (c == '`') {
    // cel-go's ESC_IDENTIFIER: letters, digits and `_.-/ ` between backticks, for field selection.
    size_t p = pos_ + 1;
    while (p < src_.size() && (IsIdentStart(src_[p]) || IsDigit(src_[p]) || src_[p] == '.' || src_[p] == '-' ||
                               src_[p] == '/' || src_[p] == ' ')) {
      ++p;
    }
    if (p > pos_ + 1 && p < src_.size() && src_[p] == '`') {
      pos_ = p + 1;
      t.kind = Tok::kEscIdent;
      t.text = src_.substr(start, pos_ - start);
      t.value = std::string(src_.substr(start + 1, p - start - 1));
      return t;
    }
    // ANTLR's error names everything it consumed, up to and including the first character that
    // cannot continue the name.
    size_t len = 0;
    if (p < src_.size()) {
      unsigned char uc = static_cast<unsigned char>(src_[p]);
      len = uc >= 0xF0 ? 4 : uc >= 0xE0 ? 3 : uc >= 0xC0 ? 2 : 1;
      if (p + len > src_.size()) len = src_.size() - p;
    }
    pos_ = p + len;
    t.kind = Tok::kError;
    t.text = src_.substr(start, pos_ - start);
    t.error = "token recognition error at: '" + std::string(t.text) + "'";
    return t;
  }
  if (IsDigit(c) || (c == '.' && IsDigit(peek(1)))) return LexNumber(start);
  if (c == '"' || c == '\'') return LexString(start, false, false);
  switch (c) {
    case '(': return op(Tok::kLParen, 1);
    case ')': return op(Tok::kRParen, 1);
    case '[': return op(Tok::kLBracket, 1);
    case ']': return op(Tok::kRBracket, 1);
    case '{': return op(Tok::kLBrace, 1);
    case '}': return op(Tok::kRBrace, 1);
    case '.': return op(Tok::kDot, 1);
    case ',': return op(Tok::kComma, 1);
    case ':': return op(Tok::kColon, 1);
    case '?': return op(Tok::kQuestion, 1);
    case '+': return op(Tok::kPlus, 1);
    case '-': return op(Tok::kMinus, 1);
    case '*': return op(Tok::kStar, 1);
    case '/': return op(Tok::kSlash, 1);
    case '%': return op(Tok::kPercent, 1);
    case '=':
      if (peek(1) == '=') return op(Tok::kEq, 2);
      break;
    case '!':
      if (peek(1) == '=') return op(Tok::kNe, 2);
      return op(Tok::kNot, 1);
    case '<':
      if (peek(1) == '=') return op(Tok::kLe, 2);
      return op(Tok::kLt, 1);
    case '>':
      if (peek(1) == '=') return op(Tok::kGe, 2);
      return op(Tok::kGt, 1);
    case '&':
      if (peek(1) == '&') return op(Tok::kAnd, 2);
      break;
    case '|':
      if (peek(1) == '|') return op(Tok::kOr, 2);
      break;
    default:
      break;
  }
  // Unrecognized: one UTF-8 character.
  size_t len = 1;
  unsigned char uc = static_cast<unsigned char>(c);
  if (uc >= 0xF0) len = 4;
  else if (uc >= 0xE0) len = 3;
  else if (uc >= 0xC0) len = 2;
  if (pos_ + len > src_.size()) len = src_.size() - pos_;
  t.kind = Tok::kError;
  t.text = src_.substr(start, len);
  t.error = "token recognition error at: '" + std::string(t.text) + "'";
  pos_ += len;
  return t;
}

Token Lexer::LexNumber(size_t start) {
  Token t;
  t.offset = static_cast<int32_t>(start);
  auto at = [&](size_t p) -> char { return p < src_.size() ? src_[p] : '\0'; };
  size_t p = start;
  if (at(p) == '0' && (at(p + 1) == 'x' || at(p + 1) == 'X') && IsHex(at(p + 2))) {
    p += 2;
    while (IsHex(at(p))) ++p;
    if (at(p) == 'u' || at(p) == 'U') {
      t.kind = Tok::kUint;
      t.text = src_.substr(start, p - start);
      pos_ = p + 1;
      return t;
    }
    t.kind = Tok::kInt;
    t.text = src_.substr(start, p - start);
    pos_ = p;
    return t;
  }
  bool is_double = false;
  while (IsDigit(at(p))) ++p;
  if (at(p) == '.' && IsDigit(at(p + 1))) {
    is_double = true;
    ++p;
    while (IsDigit(at(p))) ++p;
  }
  if (at(p) == 'e' || at(p) == 'E') {
    size_t q = p + 1;
    if (at(q) == '+' || at(q) == '-') ++q;
    if (IsDigit(at(q))) {
      is_double = true;
      while (IsDigit(at(q))) ++q;
      p = q;
    }
  }
  if (!is_double && (at(p) == 'u' || at(p) == 'U')) {
    t.kind = Tok::kUint;
    t.text = src_.substr(start, p - start);
    pos_ = p + 1;
    return t;
  }
  t.kind = is_double ? Tok::kDouble : Tok::kInt;
  t.text = src_.substr(start, p - start);
  pos_ = p;
  return t;
}

Token Lexer::LexString(size_t start, bool raw, bool bytes) {
  Token t;
  t.offset = static_cast<int32_t>(start);
  t.kind = bytes ? Tok::kBytes : Tok::kString;
  const char q = src_[pos_];
  bool triple = pos_ + 2 < src_.size() && src_[pos_ + 1] == q && src_[pos_ + 2] == q;
  pos_ += triple ? 3 : 1;
  std::string& out = t.value;
  auto fail = [&](const std::string& msg) {
    t.kind = Tok::kError;
    t.error = msg;
    t.text = src_.substr(start, pos_ - start);
    return t;
  };
  for (;;) {
    if (pos_ >= src_.size()) {
      pos_ = src_.size();
      t.kind = Tok::kError;
      t.text = src_.substr(start, 1);
      t.error = "token recognition error at: '" + std::string(src_.substr(start, pos_ - start)) + "'";
      return t;
    }
    char c = src_[pos_];
    if (triple) {
      if (c == q && pos_ + 2 < src_.size() + 0 && src_[pos_ + 1] == q && src_[pos_ + 2] == q) {
        pos_ += 3;
        break;
      }
    } else {
      if (c == q) {
        ++pos_;
        break;
      }
      if (c == '\n' || c == '\r') {
        t.kind = Tok::kError;
        t.text = src_.substr(start, 1);
        t.error = "token recognition error at: '" + std::string(src_.substr(start, pos_ - start + 1)) + "'";
        pos_ = start + 1;
        return t;
      }
    }
    if (c != '\\' || raw) {
      out += c;
      ++pos_;
      continue;
    }
    // Escape sequence.
    if (pos_ + 1 >= src_.size()) return fail("invalid escape sequence");
    char e = src_[pos_ + 1];
    pos_ += 2;
    switch (e) {
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case '`': out += '`'; break;
      case '?': out += '?'; break;
      case 'x':
      case 'X': {
        if (pos_ + 2 > src_.size() || !IsHex(src_[pos_]) || !IsHex(src_[pos_ + 1])) {
          return fail("invalid escape sequence");
        }
        uint32_t v = HexVal(src_[pos_]) * 16 + HexVal(src_[pos_ + 1]);
        pos_ += 2;
        if (bytes) out += static_cast<char>(v);
        else AppendUtf8(out, v);
        break;
      }
      case 'u':
      case 'U': {
        if (bytes) return fail("invalid escape sequence");
        int n = e == 'u' ? 4 : 8;
        if (pos_ + n > src_.size()) return fail("invalid escape sequence");
        uint32_t v = 0;
        for (int i = 0; i < n; ++i) {
          if (!IsHex(src_[pos_ + i])) return fail("invalid escape sequence");
          v = v * 16 + HexVal(src_[pos_ + i]);
        }
        pos_ += n;
        if (v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) return fail("invalid unicode code point");
        AppendUtf8(out, v);
        break;
      }
      case '0': case '1': case '2': case '3': {
        if (pos_ + 2 > src_.size() || src_[pos_] < '0' || src_[pos_] > '7' || src_[pos_ + 1] < '0' ||
            src_[pos_ + 1] > '7') {
          return fail("invalid escape sequence");
        }
        uint32_t v = (e - '0') * 64 + (src_[pos_] - '0') * 8 + (src_[pos_ + 1] - '0');
        pos_ += 2;
        if (bytes) out += static_cast<char>(v);
        else AppendUtf8(out, v);
        break;
      }
      default:
        return fail("invalid escape sequence");
    }
  }
  t.text = src_.substr(start, pos_ - start);
  return t;
}

std::string TokenDisplay(const Token& t) {
  if (t.kind == Tok::kEof) return "<EOF>";
  return std::string(t.text);
}

}  // namespace draforge::cel::internal
