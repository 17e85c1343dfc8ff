// The CEL parser: a recursive-descent rendering of cel-spec's CEL.g4 with cel-go's macro expansion
// (parser/macro.go, ext/bindings.go, ext/comprehensions.go) and cel-go's limits.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cel/ast.h"
#include "cel/internal/lexer.h"
#include "cel/internal/str.h"
#include "cel/named_format.h"
#include "common/status.h"

namespace draforge::cel {

using internal::Cat;
using internal::Lexer;
using internal::Tok;
using internal::Token;

namespace {

constexpr std::string_view kPrimaryExpected =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, "
    "BYTES, IDENTIFIER}";

// The qualified functions of the Kubernetes format library: `format.named(...)` and the constants
// `format.dns1123Label()`, ...
bool IsFormatFunction(std::string_view fn) { return fn == "named" || FindNamedFormat(fn) != nullptr; }

bool IsReserved(std::string_view s) {
  static constexpr std::string_view kReserved[] = {
      "as", "break", "const", "continue", "else", "for", "function", "if", "import",
      "let", "loop", "package", "namespace", "return", "var", "void", "while"};
  for (auto r : kReserved) {
    if (s == r) return true;
  }
  return false;
}

struct ParseAbort {};

class Parser {
 public:
  Parser(std::string_view src, const ParserOptions& opts) : src_(src), lexer_(src), opts_(opts) {}

  absl::StatusOr<ParsedExpr> Run() {
    size_t code_points = 0;
    for (unsigned char c : src_) code_points += (c & 0xC0) != 0x80;
    if (code_points > opts_.expression_size_limit) {
      return absl::InvalidArgumentError(FormatErrors(
          src_, {{-1, Cat("expression code point size exceeds limit: size: ", code_points,
                                   ", limit ", opts_.expression_size_limit)}}));
    }
    std::unique_ptr<Expr> root;
    try {
      Advance();
      root = ParseExpr();
      if (tok_.kind != Tok::kEof) {
        Fail(tok_.offset, Cat("Syntax error: extraneous input '", internal::TokenDisplay(tok_),
                                       "' expecting <EOF>"));
      }
    } catch (const ParseAbort&) {
    }
    if (!errors_.empty()) return absl::InvalidArgumentError(FormatErrors(src_, errors_));
    ParsedExpr out;
    out.root = std::move(root);
    out.source = std::string(src_);
    out.next_id = next_id_;
    return out;
  }

 private:
  [[noreturn]] void Fail(int32_t offset, std::string msg) {
    errors_.push_back({offset, std::move(msg)});
    throw ParseAbort{};
  }
  [[noreturn]] void Unexpected(std::string_view expected) {
    Fail(tok_.offset, Cat("Syntax error: mismatched input '", internal::TokenDisplay(tok_),
                                   "' expecting ", expected));
  }

  void Advance() {
    tok_ = lexer_.Next();
    if (tok_.kind == Tok::kError) Fail(tok_.offset, "Syntax error: " + tok_.error);
  }
  void Expect(Tok k, std::string_view display) {
    if (tok_.kind != k) {
      if (tok_.kind == Tok::kEof && (k == Tok::kRParen)) {
        Fail(tok_.offset, Cat("Syntax error: missing ", display, " at '<EOF>'"));
      }
      Unexpected(display);
    }
    Advance();
  }

  struct DepthGuard {
    Parser* p;
    explicit DepthGuard(Parser* parser, int32_t offset) : p(parser) {
      if (++p->depth_ > p->opts_.max_recursion_depth) {
        p->Fail(offset, Cat("expression recursion limit exceeded: ", p->opts_.max_recursion_depth));
      }
    }
    ~DepthGuard() { --p->depth_; }
  };

  std::unique_ptr<Expr> NewExpr(ExprKind k, int32_t offset) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->id = next_id_++;
    e->offset = offset;
    return e;
  }
  std::unique_ptr<Expr> Call(int32_t offset, std::string fn, std::vector<std::unique_ptr<Expr>> args) {
    auto e = NewExpr(ExprKind::kCall, offset);
    e->name = std::move(fn);
    e->args = std::move(args);
    return e;
  }
  std::unique_ptr<Expr> Call1(int32_t offset, std::string fn, std::unique_ptr<Expr> a) {
    std::vector<std::unique_ptr<Expr>> v;
    v.push_back(std::move(a));
    return Call(offset, std::move(fn), std::move(v));
  }
  std::unique_ptr<Expr> Call2(int32_t offset, std::string fn, std::unique_ptr<Expr> a,
                              std::unique_ptr<Expr> b) {
    std::vector<std::unique_ptr<Expr>> v;
    v.push_back(std::move(a));
    v.push_back(std::move(b));
    return Call(offset, std::move(fn), std::move(v));
  }
  // A deep copy of a parsed expression with fresh ids (cel-go's MacroExprFactory.Copy).
  std::unique_ptr<Expr> Clone(const Expr& e) {
    auto c = NewExpr(e.kind, e.offset);
    c->text = e.text;
    c->constant = e.constant;
    // String and bytes constants point into their expression's own text.
    if (e.constant.kind() == ValueKind::kString && e.kind == ExprKind::kConst) c->constant = Value::String(c->text);
    if (e.constant.kind() == ValueKind::kBytes && e.kind == ExprKind::kConst) c->constant = Value::Bytes(c->text);
    c->name = e.name;
    c->test_only = e.test_only;
    c->receiver_style = e.receiver_style;
    c->optional_indices = e.optional_indices;
    c->field_names = e.field_names;
    c->field_offsets = e.field_offsets;
    c->iter_var = e.iter_var;
    c->iter_var2 = e.iter_var2;
    c->accu_var = e.accu_var;
    c->accumulates = e.accumulates;
    for (const auto& a : e.args) c->args.push_back(Clone(*a));
    return c;
  }
  std::unique_ptr<Expr> Ident(int32_t offset, std::string_view name) {
    auto e = NewExpr(ExprKind::kIdent, offset);
    e->name = std::string(name);
    return e;
  }
  std::unique_ptr<Expr> BoolConst(int32_t offset, bool b) {
    auto e = NewExpr(ExprKind::kConst, offset);
    e->constant = Value::Bool(b);
    return e;
  }
  std::unique_ptr<Expr> IntConst(int32_t offset, int64_t i) {
    auto e = NewExpr(ExprKind::kConst, offset);
    e->constant = Value::Int(i);
    return e;
  }

  // expr: conditionalOr ('?' conditionalOr ':' expr)?
  std::unique_ptr<Expr> ParseExpr() {
    DepthGuard g(this, tok_.offset);
    auto cond = ParseOr();
    if (tok_.kind != Tok::kQuestion) return cond;
    int32_t off = tok_.offset;
    Advance();
    auto a = ParseOr();
    Expect(Tok::kColon, "':'");
    auto b = ParseExpr();
    std::vector<std::unique_ptr<Expr>> v;
    v.push_back(std::move(cond));
    v.push_back(std::move(a));
    v.push_back(std::move(b));
    return Call(off, "_?_:_", std::move(v));
  }

  // Logical chains are balanced as cel-go's parser helper does.
  std::unique_ptr<Expr> Balance(std::string_view fn, std::vector<std::unique_ptr<Expr>>& terms,
                                std::vector<int32_t>& ops, size_t lo, size_t hi) {
    if (lo == hi) return std::move(terms[lo]);
    size_t mid = (lo + hi + 1) / 2;
    auto left = Balance(fn, terms, ops, lo, mid - 1);
    auto right = Balance(fn, terms, ops, mid, hi);
    return Call2(ops[mid - 1], std::string(fn), std::move(left), std::move(right));
  }

  std::unique_ptr<Expr> ParseOr() {
    std::vector<std::unique_ptr<Expr>> terms;
    std::vector<int32_t> ops;
    terms.push_back(ParseAnd());
    while (tok_.kind == Tok::kOr) {
      ops.push_back(tok_.offset);
      Advance();
      DepthGuard g(this, tok_.offset);
      terms.push_back(ParseAnd());
    }
    depth_ -= 0;
    return Balance("_||_", terms, ops, 0, terms.size() - 1);
  }

  std::unique_ptr<Expr> ParseAnd() {
    std::vector<std::unique_ptr<Expr>> terms;
    std::vector<int32_t> ops;
    terms.push_back(ParseRelation());
    while (tok_.kind == Tok::kAnd) {
      ops.push_back(tok_.offset);
      Advance();
      DepthGuard g(this, tok_.offset);
      terms.push_back(ParseRelation());
    }
    return Balance("_&&_", terms, ops, 0, terms.size() - 1);
  }

  std::unique_ptr<Expr> ParseRelation() {
    auto left = ParseAdd();
    int chain = 0;
    for (;;) {
      std::string fn;
      switch (tok_.kind) {
        case Tok::kLt: fn = "_<_"; break;
        case Tok::kLe: fn = "_<=_"; break;
        case Tok::kGt: fn = "_>_"; break;
        case Tok::kGe: fn = "_>=_"; break;
        case Tok::kEq: fn = "_==_"; break;
        case Tok::kNe: fn = "_!=_"; break;
        case Tok::kIn: fn = "@in"; break;
        default: depth_ -= chain; return left;
      }
      int32_t off = tok_.offset;
      Advance();
      if (++depth_ > opts_.max_recursion_depth) {
        Fail(off, Cat("expression recursion limit exceeded: ", opts_.max_recursion_depth));
      }
      ++chain;
      auto right = ParseAdd();
      left = Call2(off, fn, std::move(left), std::move(right));
    }
  }

  std::unique_ptr<Expr> ParseAdd() {
    auto left = ParseMul();
    int chain = 0;
    for (;;) {
      std::string fn;
      if (tok_.kind == Tok::kPlus) fn = "_+_";
      else if (tok_.kind == Tok::kMinus) fn = "_-_";
      else {
        depth_ -= chain;
        return left;
      }
      int32_t off = tok_.offset;
      Advance();
      if (++depth_ > opts_.max_recursion_depth) {
        Fail(off, Cat("expression recursion limit exceeded: ", opts_.max_recursion_depth));
      }
      ++chain;
      auto right = ParseMul();
      left = Call2(off, fn, std::move(left), std::move(right));
    }
  }

  std::unique_ptr<Expr> ParseMul() {
    auto left = ParseUnary();
    int chain = 0;
    for (;;) {
      std::string fn;
      if (tok_.kind == Tok::kStar) fn = "_*_";
      else if (tok_.kind == Tok::kSlash) fn = "_/_";
      else if (tok_.kind == Tok::kPercent) fn = "_%_";
      else {
        depth_ -= chain;
        return left;
      }
      int32_t off = tok_.offset;
      Advance();
      if (++depth_ > opts_.max_recursion_depth) {
        Fail(off, Cat("expression recursion limit exceeded: ", opts_.max_recursion_depth));
      }
      ++chain;
      auto right = ParseUnary();
      left = Call2(off, fn, std::move(left), std::move(right));
    }
  }

  std::unique_ptr<Expr> ParseUnary() {
    if (tok_.kind == Tok::kNot) {
      int32_t off = tok_.offset;
      int n = 0;
      while (tok_.kind == Tok::kNot) {
        ++n;
        Advance();
      }
      DepthGuard g(this, off);
      auto operand = ParseMember();
      if (n % 2 == 0) return operand;
      return Call1(off, "!_", std::move(operand));
    }
    if (tok_.kind == Tok::kMinus) {
      int32_t off = tok_.offset;
      int n = 0;
      while (tok_.kind == Tok::kMinus) {
        ++n;
        off = tok_.offset;
        Advance();
      }
      DepthGuard g(this, off);
      std::unique_ptr<Expr> operand;
      if (tok_.kind == Tok::kInt || tok_.kind == Tok::kDouble) {
        // The signs fold into the literal, as cel-go's parser does ("--1" is the constant 1).
        operand = ParsePrimaryAfterNumber(/*negative=*/n % 2 == 1, off);
        operand = ParseMemberSuffix(std::move(operand));
        n = 0;
      } else {
        operand = ParseMember();
      }
      if (n % 2 == 0) return operand;
      return Call1(off, "-_", std::move(operand));
    }
    return ParseMember();
  }

  std::unique_ptr<Expr> ParseMember() { return ParseMemberSuffix(ParsePrimary()); }

  std::unique_ptr<Expr> ParseMemberSuffix(std::unique_ptr<Expr> operand) {
    int chain = 0;
    struct Restore {
      Parser* p;
      int* chain;
      ~Restore() { p->depth_ -= *chain; }
    } restore{this, &chain};
    for (;;) {
      if (tok_.kind == Tok::kDot) {
        int32_t off = tok_.offset;
        Advance();
        if (++depth_ > opts_.max_recursion_depth) {
          Fail(off, Cat("expression recursion limit exceeded: ", opts_.max_recursion_depth));
        }
        ++chain;
        bool opt = false;
        if (tok_.kind == Tok::kQuestion) {
          opt = true;
          Advance();
        }
        if (tok_.kind == Tok::kEscIdent) {
          // a.`b-c`: a field selection only (cel-go's grammar has no escaped method names).
          std::string field = tok_.value;
          Advance();
          if (opt) {
            auto name = NewExpr(ExprKind::kConst, off);
            name->text = field;
            name->constant = Value::String(name->text);
            operand = Call2(off, "_?._", std::move(operand), std::move(name));
          } else {
            auto sel = NewExpr(ExprKind::kSelect, off);
            sel->name = field;
            sel->args.push_back(std::move(operand));
            operand = std::move(sel);
          }
          continue;
        }
        if (tok_.kind != Tok::kIdent) {
          if (tok_.kind == Tok::kEof || tok_.kind == Tok::kIn || tok_.kind == Tok::kTrue ||
              tok_.kind == Tok::kFalse || tok_.kind == Tok::kNull) {
            Fail(tok_.offset, Cat("Syntax error: no viable alternative at input '.",
                                           tok_.kind == Tok::kEof ? "" : std::string(tok_.text), "'"));
          }
          Unexpected("IDENTIFIER");
        }
        std::string field(tok_.text);
        int32_t field_off = tok_.offset;
        Advance();
        if (!opt && tok_.kind == Tok::kLParen) {
          int32_t open = tok_.offset;
          Advance();
          auto args = ParseArgs(Tok::kRParen, "')'");
          operand = ReceiverCallOrMacro(open, field, std::move(operand), std::move(args));
          continue;
        }
        (void)field_off;
        if (opt) {
          auto name = NewExpr(ExprKind::kConst, off);
          name->text = field;
          name->constant = Value::String(name->text);
          operand = Call2(off, "_?._", std::move(operand), std::move(name));
        } else {
          auto sel = NewExpr(ExprKind::kSelect, off);
          sel->name = field;
          sel->args.push_back(std::move(operand));
          operand = std::move(sel);
        }
        continue;
      }
      if (tok_.kind == Tok::kLBracket) {
        int32_t off = tok_.offset;
        Advance();
        if (++depth_ > opts_.max_recursion_depth) {
          Fail(off, Cat("expression recursion limit exceeded: ", opts_.max_recursion_depth));
        }
        ++chain;
        bool opt = false;
        if (tok_.kind == Tok::kQuestion) {
          opt = true;
          Advance();
        }
        auto index = ParseExpr();
        if (tok_.kind != Tok::kRBracket) Unexpected("']'");
        Advance();
        operand = Call2(off, opt ? "_[?_]" : "_[_]", std::move(operand), std::move(index));
        continue;
      }
      return operand;
    }
  }

  // Parses `a, b, c` up to `close` (consumed).
  std::vector<std::unique_ptr<Expr>> ParseArgs(Tok close, std::string_view close_display) {
    std::vector<std::unique_ptr<Expr>> args;
    if (tok_.kind == close) {
      Advance();
      return args;
    }
    for (;;) {
      args.push_back(ParseExpr());
      if (tok_.kind == Tok::kComma) {
        Advance();
        continue;
      }
      if (tok_.kind == close) {
        Advance();
        return args;
      }
      if (tok_.kind == Tok::kEof && close == Tok::kRParen) {
        Fail(tok_.offset, "Syntax error: missing ')' at '<EOF>'");
      }
      Unexpected(Cat("{", close_display, ", ','}"));
    }
  }

  std::unique_ptr<Expr> ParsePrimaryAfterNumber(bool negative, int32_t sign_off) {
    int32_t off = negative ? sign_off : tok_.offset;
    auto e = NewExpr(ExprKind::kConst, off);
    std::string text = (negative ? "-" : "") + std::string(tok_.text);
    if (tok_.kind == Tok::kInt) {
      errno = 0;
      char* end = nullptr;
      long long v;
      bool hex = tok_.text.size() > 2 && (tok_.text[1] == 'x' || tok_.text[1] == 'X');
      if (hex) {
        std::string digits = (negative ? "-" : "") + std::string(tok_.text.substr(2));
        v = std::strtoll(digits.c_str(), &end, 16);
      } else {
        v = std::strtoll(text.c_str(), &end, 10);
      }
      if (errno == ERANGE) Fail(off, "invalid int literal");
      e->constant = Value::Int(v);
    } else {
      e->constant = Value::Double(std::strtod(text.c_str(), nullptr));
    }
    Advance();
    return e;
  }

  std::unique_ptr<Expr> ParsePrimary() {
    DepthGuard g(this, tok_.offset);
    int32_t off = tok_.offset;
    switch (tok_.kind) {
      case Tok::kInt:
      case Tok::kDouble:
        return ParsePrimaryAfterNumber(false, off);
      case Tok::kUint: {
        auto e = NewExpr(ExprKind::kConst, off);
        errno = 0;
        std::string digits(tok_.text);
        unsigned long long v;
        if (digits.size() > 2 && (digits[1] == 'x' || digits[1] == 'X')) {
          v = std::strtoull(digits.c_str() + 2, nullptr, 16);
        } else {
          v = std::strtoull(digits.c_str(), nullptr, 10);
        }
        if (errno == ERANGE) Fail(off, "invalid uint literal");
        e->constant = Value::Uint(v);
        Advance();
        return e;
      }
      case Tok::kString:
      case Tok::kBytes: {
        auto e = NewExpr(ExprKind::kConst, off);
        e->text = std::move(tok_.value);
        if (tok_.kind == Tok::kString) {
          e->constant = Value::String(e->text);
        } else {
          e->constant = Value::Bytes(e->text);
        }
        Advance();
        return e;
      }
      case Tok::kTrue:
      case Tok::kFalse: {
        auto e = BoolConst(off, tok_.kind == Tok::kTrue);
        Advance();
        return e;
      }
      case Tok::kNull: {
        auto e = NewExpr(ExprKind::kConst, off);
        e->constant = Value::Null();
        Advance();
        return e;
      }
      case Tok::kLParen: {
        Advance();
        auto e = ParseExpr();
        if (tok_.kind != Tok::kRParen) {
          if (tok_.kind == Tok::kEof) Fail(tok_.offset, "Syntax error: missing ')' at '<EOF>'");
          Unexpected("')'");
        }
        Advance();
        return e;
      }
      case Tok::kLBracket: {
        Advance();
        auto e = NewExpr(ExprKind::kList, off);
        if (tok_.kind == Tok::kRBracket) {
          Advance();
          return e;
        }
        for (;;) {
          if (tok_.kind == Tok::kQuestion) {
            Advance();
            e->optional_indices.push_back(static_cast<int32_t>(e->args.size()));
          }
          e->args.push_back(ParseExpr());
          if (tok_.kind == Tok::kComma) {
            Advance();
            if (tok_.kind == Tok::kRBracket) {  // trailing comma
              Advance();
              return e;
            }
            continue;
          }
          if (tok_.kind == Tok::kRBracket) {
            Advance();
            return e;
          }
          Unexpected("{']', ','}");
        }
      }
      case Tok::kLBrace: {
        Advance();
        auto e = NewExpr(ExprKind::kMap, off);
        if (tok_.kind == Tok::kRBrace) {
          Advance();
          return e;
        }
        for (;;) {
          if (tok_.kind == Tok::kQuestion) {
            Advance();
            e->optional_indices.push_back(static_cast<int32_t>(e->args.size() / 2));
          }
          e->args.push_back(ParseExpr());
          if (tok_.kind != Tok::kColon) Unexpected("':'");
          Advance();
          e->args.push_back(ParseExpr());
          if (tok_.kind == Tok::kComma) {
            Advance();
            if (tok_.kind == Tok::kRBrace) {
              Advance();
              return e;
            }
            continue;
          }
          if (tok_.kind == Tok::kRBrace) {
            Advance();
            return e;
          }
          Unexpected("{'}', ','}");
        }
      }
      case Tok::kDot:
      case Tok::kIdent: {
        bool leading_dot = tok_.kind == Tok::kDot;
        if (leading_dot) {
          Advance();
          if (tok_.kind != Tok::kIdent) Unexpected("IDENTIFIER");
        }
        std::string name(tok_.text);
        int32_t id_off = tok_.offset;
        if (IsReserved(name)) Fail(id_off, "reserved identifier: " + name);
        Advance();
        if (leading_dot) name = "." + name;
        if (tok_.kind == Tok::kLParen) {
          int32_t open = tok_.offset;
          Advance();
          auto args = ParseArgs(Tok::kRParen, "')'");
          return GlobalCallOrMacro(open, name, std::move(args));
        }
        if (StartsMessage()) return ParseMessage(std::move(name));
        return Ident(id_off, name);
      }
      case Tok::kEof:
        Unexpected(kPrimaryExpected);
      default:
        Fail(tok_.offset, Cat("Syntax error: extraneous input '", internal::TokenDisplay(tok_),
                                       "' expecting ", kPrimaryExpected));
    }
    return nullptr;
  }

  // Whether the tokens from here are `(. IDENT)* {`: the rest of a message construction's type
  // name (CEL.g4's CreateMessage alternative of `primary`), looked at without consuming anything.
  bool StartsMessage() const {
    if (tok_.kind == Tok::kLBrace) return true;
    if (tok_.kind != Tok::kDot) return false;
    Lexer probe = lexer_;
    for (;;) {
      if (probe.Next().kind != Tok::kIdent) return false;
      Token t = probe.Next();
      if (t.kind == Tok::kLBrace) return true;
      if (t.kind != Tok::kDot) return false;
    }
  }

  // `name(.IDENT)* { [?]field: expr, ... }` with the first identifier consumed into `name`. The
  // expression sits at the '{' and each field at its ':', as cel-go places them.
  std::unique_ptr<Expr> ParseMessage(std::string name) {
    while (tok_.kind == Tok::kDot) {
      Advance();
      name += ".";
      name += tok_.text;
      Advance();
    }
    auto e = NewExpr(ExprKind::kStruct, tok_.offset);
    e->name = std::move(name);
    Advance();  // '{'
    constexpr std::string_view kFieldExpected = "{'}', '?', IDENTIFIER, ESC_IDENTIFIER}";
    for (;;) {
      if (tok_.kind == Tok::kRBrace) {
        Advance();
        return e;
      }
      if (tok_.kind == Tok::kQuestion) {
        Advance();
        e->optional_indices.push_back(static_cast<int32_t>(e->args.size()));
        if (tok_.kind != Tok::kIdent && tok_.kind != Tok::kEscIdent) Unexpected("{IDENTIFIER, ESC_IDENTIFIER}");
      }
      if (tok_.kind == Tok::kIdent) {
        e->field_names.emplace_back(tok_.text);
      } else if (tok_.kind == Tok::kEscIdent) {
        e->field_names.push_back(tok_.value);
      } else {
        Unexpected(kFieldExpected);
      }
      Advance();
      if (tok_.kind != Tok::kColon) Unexpected("':'");
      e->field_offsets.push_back(tok_.offset);
      Advance();
      e->args.push_back(ParseExpr());
      if (tok_.kind == Tok::kComma) {
        Advance();
        continue;
      }
      if (tok_.kind != Tok::kRBrace) Unexpected("{'}', ','}");
    }
  }

  // ---- Macros ----

  std::unique_ptr<Expr> Comprehension(int32_t off, std::string iter_var, std::string iter_var2,
                                      std::unique_ptr<Expr> range, std::string accu,
                                      std::unique_ptr<Expr> init, std::unique_ptr<Expr> cond,
                                      std::unique_ptr<Expr> step, std::unique_ptr<Expr> result) {
    auto e = NewExpr(ExprKind::kComprehension, off);
    e->iter_var = std::move(iter_var);
    e->iter_var2 = std::move(iter_var2);
    e->accu_var = std::move(accu);
    e->args.push_back(std::move(range));
    e->args.push_back(std::move(init));
    e->args.push_back(std::move(cond));
    e->args.push_back(std::move(step));
    e->args.push_back(std::move(result));
    return e;
  }

  std::string SimpleName(const Expr& e) {
    if (e.kind != ExprKind::kIdent || (!e.name.empty() && e.name[0] == '.')) {
      Fail(e.offset, "argument must be a simple name");
    }
    return e.name;
  }

  std::unique_ptr<Expr> Accu(int32_t off) { return Ident(off, kAccumulatorName); }

  // `@result + [elem]` (appended in place by the interpreter).
  std::unique_ptr<Expr> AppendStep(int32_t off, std::unique_ptr<Expr> elem) {
    auto list = NewExpr(ExprKind::kList, off);
    list->args.push_back(std::move(elem));
    auto c = Call2(off, "_+_", Accu(off), std::move(list));
    c->accumulates = true;
    return c;
  }

  std::unique_ptr<Expr> GlobalCallOrMacro(int32_t off, const std::string& fn,
                                          std::vector<std::unique_ptr<Expr>> args) {
    if (fn == "has" && args.size() == 1) {
      if (args[0]->kind != ExprKind::kSelect || args[0]->test_only) {
        Fail(args[0]->offset, "invalid argument to has() macro");
      }
      auto sel = std::move(args[0]);
      sel->test_only = true;
      // cel-go gives the presence test the macro call's id/position.
      sel->offset = off;
      return sel;
    }
    return Call(off, fn, std::move(args));
  }

  std::unique_ptr<Expr> ReceiverCallOrMacro(int32_t off, const std::string& fn, std::unique_ptr<Expr> target,
                                            std::vector<std::unique_ptr<Expr>> args) {
    const size_t n = args.size();
    // Namespaced functions: cel.bind, optional.of, ...
    if (target->kind == ExprKind::kIdent) {
      if (target->name == "cel" && fn == "bind" && n == 3) {
        if (args[0]->kind != ExprKind::kIdent) {
          Fail(args[0]->offset, "cel.bind() variable names must be simple identifiers");
        }
        std::string var = args[0]->name;
        auto range = NewExpr(ExprKind::kList, off);
        return Comprehension(off, "#unused", "", std::move(range), var, std::move(args[1]),
                             BoolConst(off, false), Ident(off, var), std::move(args[2]));
      }
      if ((target->name == "optional" && (fn == "of" || fn == "none" || fn == "ofNonZeroValue")) ||
          (target->name == "sets" && (fn == "contains" || fn == "equivalent" || fn == "intersects")) ||
          (target->name == "strings" && fn == "quote") || (target->name == "ip" && fn == "isCanonical") ||
          (target->name == "lists" && fn == "range") || (target->name == "format" && IsFormatFunction(fn))) {
        return Call(off, target->name + "." + fn, std::move(args));
      }
    }
    if (fn == "sortBy" && n == 2) {
      // ext.Lists: cel.bind(@__sortBy_input__, target,
      //   @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(v, key))).
      if (target->kind != ExprKind::kList && target->kind != ExprKind::kSelect && target->kind != ExprKind::kIdent &&
          target->kind != ExprKind::kComprehension && target->kind != ExprKind::kCall) {
        Fail(target->offset, "sortBy can only be applied to a list, identifier, comprehension, call or select expression");
      }
      if (args[0]->kind != ExprKind::kIdent) Fail(args[0]->offset, "argument is not an identifier");
      constexpr std::string_view kInput = "@__sortBy_input__";
      auto keys = ReceiverCallOrMacro(off, "map", Ident(off, kInput), std::move(args));
      auto sorted = Call2(off, "@sortByAssociatedKeys", Ident(off, kInput), std::move(keys));
      sorted->receiver_style = true;
      return Comprehension(off, "#unused", "", NewExpr(ExprKind::kList, off), std::string(kInput), std::move(target),
                           BoolConst(off, false), Ident(off, kInput), std::move(sorted));
    }
    if ((fn == "optMap" || fn == "optFlatMap") && n == 2) {
      // cel-go's optional macros: target.hasValue() ? [optional.of](cel.bind(v, target.value(), e))
      // : optional.none().
      if (args[0]->kind != ExprKind::kIdent) {
        Fail(args[0]->offset, fn + "() variable name must be a simple identifier");
      }
      std::string var = args[0]->name;
      auto value = Call1(off, "value", Clone(*target));
      value->receiver_style = true;
      std::unique_ptr<Expr> mapped =
          Comprehension(off, "#unused", "", NewExpr(ExprKind::kList, off), var, std::move(value),
                        BoolConst(off, false), Ident(off, var), std::move(args[1]));
      if (fn == "optMap") mapped = Call1(off, "optional.of", std::move(mapped));
      auto has = Call1(off, "hasValue", std::move(target));
      has->receiver_style = true;
      std::vector<std::unique_ptr<Expr>> v;
      v.push_back(std::move(has));
      v.push_back(std::move(mapped));
      v.push_back(Call(off, "optional.none", {}));
      return Call(off, "_?_:_", std::move(v));
    }
    if ((fn == "all" || fn == "exists" || fn == "exists_one" || fn == "existsOne") && n == 2) {
      std::string v = SimpleName(*args[0]);
      if (v == kAccumulatorName) Fail(args[0]->offset, "iteration variable overwrites accumulator variable");
      if (fn == "all") {
        auto step = Call2(off, "_&&_", Accu(off), std::move(args[1]));
        return Comprehension(off, v, "", std::move(target), std::string(kAccumulatorName),
                             BoolConst(off, true), Call1(off, "@not_strictly_false", Accu(off)),
                             std::move(step), Accu(off));
      }
      if (fn == "exists") {
        auto step = Call2(off, "_||_", Accu(off), std::move(args[1]));
        return Comprehension(off, v, "", std::move(target), std::string(kAccumulatorName),
                             BoolConst(off, false),
                             Call1(off, "@not_strictly_false", Call1(off, "!_", Accu(off))),
                             std::move(step), Accu(off));
      }
      return ExistsOne(off, v, "", std::move(target), std::move(args[1]));
    }
    if ((fn == "all" || fn == "exists" || fn == "existsOne" || fn == "exists_one") && n == 3) {
      std::string k = SimpleName(*args[0]);
      std::string v = SimpleName(*args[1]);
      CheckTwoVars(*args[0], k, v);
      if (fn == "all") {
        auto step = Call2(off, "_&&_", Accu(off), std::move(args[2]));
        return Comprehension(off, k, v, std::move(target), std::string(kAccumulatorName),
                             BoolConst(off, true), Call1(off, "@not_strictly_false", Accu(off)),
                             std::move(step), Accu(off));
      }
      if (fn == "exists") {
        auto step = Call2(off, "_||_", Accu(off), std::move(args[2]));
        return Comprehension(off, k, v, std::move(target), std::string(kAccumulatorName),
                             BoolConst(off, false),
                             Call1(off, "@not_strictly_false", Call1(off, "!_", Accu(off))),
                             std::move(step), Accu(off));
      }
      return ExistsOne(off, k, v, std::move(target), std::move(args[2]));
    }
    if (fn == "map" && (n == 2 || n == 3)) {
      std::string v = SimpleName(*args[0]);
      std::unique_ptr<Expr> step;
      if (n == 2) {
        step = AppendStep(off, std::move(args[1]));
      } else {
        std::vector<std::unique_ptr<Expr>> t;
        t.push_back(std::move(args[1]));
        t.push_back(AppendStep(off, std::move(args[2])));
        t.push_back(Accu(off));
        step = Call(off, "_?_:_", std::move(t));
      }
      return Comprehension(off, v, "", std::move(target), std::string(kAccumulatorName),
                           NewExpr(ExprKind::kList, off), BoolConst(off, true), std::move(step), Accu(off));
    }
    if (fn == "filter" && n == 2) {
      std::string v = SimpleName(*args[0]);
      std::vector<std::unique_ptr<Expr>> t;
      t.push_back(std::move(args[1]));
      t.push_back(AppendStep(off, Ident(off, v)));
      t.push_back(Accu(off));
      auto step = Call(off, "_?_:_", std::move(t));
      return Comprehension(off, v, "", std::move(target), std::string(kAccumulatorName),
                           NewExpr(ExprKind::kList, off), BoolConst(off, true), std::move(step), Accu(off));
    }
    if ((fn == "transformList" || fn == "transformMap" || fn == "transformMapEntry") && (n == 3 || n == 4)) {
      std::string k = SimpleName(*args[0]);
      std::string v = SimpleName(*args[1]);
      CheckTwoVars(*args[0], k, v);
      std::unique_ptr<Expr> filter;
      std::unique_ptr<Expr> transform;
      if (n == 4) {
        filter = std::move(args[2]);
        transform = std::move(args[3]);
      } else {
        transform = std::move(args[2]);
      }
      std::unique_ptr<Expr> step;
      std::unique_ptr<Expr> init;
      if (fn == "transformList") {
        step = AppendStep(off, std::move(transform));
        init = NewExpr(ExprKind::kList, off);
      } else {
        std::vector<std::unique_ptr<Expr>> a;
        a.push_back(Accu(off));
        if (fn == "transformMap") a.push_back(Ident(off, k));
        a.push_back(std::move(transform));
        step = Call(off, "cel.@mapInsert", std::move(a));
        step->accumulates = true;
        init = NewExpr(ExprKind::kMap, off);
      }
      if (filter) {
        std::vector<std::unique_ptr<Expr>> t;
        t.push_back(std::move(filter));
        t.push_back(std::move(step));
        t.push_back(Accu(off));
        step = Call(off, "_?_:_", std::move(t));
      }
      return Comprehension(off, k, v, std::move(target), std::string(kAccumulatorName), std::move(init),
                           BoolConst(off, true), std::move(step), Accu(off));
    }
    args.insert(args.begin(), std::move(target));
    auto c = Call(off, fn, std::move(args));
    c->receiver_style = true;
    return c;
  }

  void CheckTwoVars(const Expr& at, const std::string& k, const std::string& v) {
    if (k == kAccumulatorName || v == kAccumulatorName) {
      Fail(at.offset, "iteration variable overwrites accumulator variable");
    }
    if (k == v) Fail(at.offset, "duplicate variable name: " + k);
  }

  std::unique_ptr<Expr> ExistsOne(int32_t off, const std::string& k, const std::string& v,
                                  std::unique_ptr<Expr> target, std::unique_ptr<Expr> pred) {
    std::vector<std::unique_ptr<Expr>> t;
    t.push_back(std::move(pred));
    t.push_back(Call2(off, "_+_", Accu(off), IntConst(off, 1)));
    t.push_back(Accu(off));
    auto step = Call(off, "_?_:_", std::move(t));
    return Comprehension(off, k, v, std::move(target), std::string(kAccumulatorName), IntConst(off, 0),
                         BoolConst(off, true), std::move(step),
                         Call2(off, "_==_", Accu(off), IntConst(off, 1)));
  }

  std::string_view src_;
  Lexer lexer_;
  ParserOptions opts_;
  Token tok_;
  std::vector<SourceError> errors_;
  int64_t next_id_ = 1;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<ParsedExpr> Parse(std::string_view source, const ParserOptions& options) {
  Parser p(source, options);
  return p.Run();
}

std::string FormatErrors(std::string_view source, const std::vector<SourceError>& unsorted) {
  // cel-go prints its errors sorted by line and column (stable: errors at one place keep their
  // order); an offset orders them the same way, and an unknown location (-1) comes first.
  std::vector<SourceError> errors = unsorted;
  std::stable_sort(errors.begin(), errors.end(),
                   [](const SourceError& a, const SourceError& b) { return a.offset < b.offset; });
  std::string out;
  for (const SourceError& e : errors) {
    if (!out.empty()) out += "\n";
    if (e.offset < 0) {
      out += Cat("ERROR: <input>:-1:0: ", e.message);
      continue;
    }
    // Line and column (1-based line, 1-based column counted in code points).
    int line = 1;
    size_t line_start = 0;
    size_t off = std::min<size_t>(static_cast<size_t>(e.offset), source.size());
    for (size_t i = 0; i < off; ++i) {
      if (source[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    int col = 0;
    for (size_t i = line_start; i < off; ++i) col += (static_cast<unsigned char>(source[i]) & 0xC0) != 0x80;
    out += Cat("ERROR: <input>:", line, ":", col + 1, ": ", e.message);
    size_t line_end = source.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = source.size();
    std::string_view text = source.substr(line_start, line_end - line_start);
    // cel-go's snippet: tabs shown as spaces, no snippet for a line beyond 16384 bytes, and a
    // character of more than one UTF-8 byte marked with a full-width dot or caret (U+FF0E, U+FF3E)
    // so that the caret stays under it.
    if (text.size() > 16384) continue;
    std::string snippet(text);
    std::replace(snippet.begin(), snippet.end(), '\t', ' ');
    std::string marks;
    size_t i = 0;
    const auto next_is_wide = [&] {
      const auto c = static_cast<unsigned char>(snippet[i]);
      const size_t len = c < 0xC0 ? 1 : (c < 0xE0 ? 2 : (c < 0xF0 ? 3 : 4));
      i = std::min(snippet.size(), i + len);
      return len > 1;
    };
    for (int k = 0; k < col && i < snippet.size(); ++k) marks += next_is_wide() ? "\uff0e" : ".";
    marks += i < snippet.size() && next_is_wide() ? "\uff3e" : "^";
    out += Cat("\n | ", snippet, "\n | ", marks);
  }
  return out;
}

namespace {
void UnparseTo(const Expr& e, std::string& out) {
  switch (e.kind) {
    case ExprKind::kConst:
      if (e.constant.kind() == ValueKind::kString) {
        out += "\"" + e.text + "\"";
      } else if (e.constant.kind() == ValueKind::kBytes) {
        out += "b\"" + e.text + "\"";
      } else {
        out += DebugString(e.constant);
      }
      return;
    case ExprKind::kIdent: out += e.name; return;
    case ExprKind::kSelect:
      if (e.test_only) out += "has(";
      UnparseTo(*e.args[0], out);
      out += "." + e.name;
      if (e.test_only) out += ")";
      return;
    case ExprKind::kCall: {
      size_t start = 0;
      if (e.receiver_style) {
        UnparseTo(*e.args[0], out);
        out += ".";
        start = 1;
      }
      out += e.name + "(";
      for (size_t i = start; i < e.args.size(); ++i) {
        if (i > start) out += ", ";
        UnparseTo(*e.args[i], out);
      }
      out += ")";
      return;
    }
    case ExprKind::kList:
      out += "[";
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) out += ", ";
        UnparseTo(*e.args[i], out);
      }
      out += "]";
      return;
    case ExprKind::kMap:
      out += "{";
      for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
        if (i) out += ", ";
        UnparseTo(*e.args[i], out);
        out += ": ";
        UnparseTo(*e.args[i + 1], out);
      }
      out += "}";
      return;
    case ExprKind::kStruct:
      out += e.name + "{";
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) out += ", ";
        out += e.field_names[i] + ": ";
        UnparseTo(*e.args[i], out);
      }
      out += "}";
      return;
    case ExprKind::kComprehension:
      out += "__comprehension__(" + e.iter_var + (e.iter_var2.empty() ? "" : ", " + e.iter_var2) + ", ";
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) out += ", ";
        if (i == 1) out += e.accu_var + ", ";
        UnparseTo(*e.args[i], out);
      }
      out += ")";
      return;
  }
}
}  // namespace

std::string Unparse(const Expr& e) {
  std::string out;
  UnparseTo(e, out);
  return out;
}

}  // namespace draforge::cel
