// cel::Expr: the CEL abstract syntax tree (cel-go's ast.Expr), after macro expansion, annotated by
// the checker.
#ifndef DRAFORGE_CEL_AST_H_
#define DRAFORGE_CEL_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cel/types.h"
#include "cel/value.h"

namespace draforge::cel {

enum class ExprKind {
  kConst,
  kIdent,
  kSelect,  // args[0].name; test_only for has()
  kCall,    // function(args...), receiver-style calls have the target as args[0]
  kList,    // args = elements; optional_indices for `[?x]`
  kMap,     // args = key0, value0, key1, value1, ...; optional_indices are entry indices
  kComprehension,  // args = iter_range, accu_init, loop_condition, loop_step, result
  kStruct,  // message construction `name{f0: args[0], ...}`: name as written (a leading dot kept),
            // field_names/field_offsets per field; optional_indices for `?f: x`
};

struct MessageType;  // well_known_types.h

// Indices of a comprehension's children in Expr::args.
inline constexpr int kIterRange = 0;
inline constexpr int kAccuInit = 1;
inline constexpr int kLoopCondition = 2;
inline constexpr int kLoopStep = 3;
inline constexpr int kResult = 4;

// The accumulator variable of macro expansions (cel-go's AccumulatorName).
inline constexpr std::string_view kAccumulatorName = "@result";

struct Expr {
  ExprKind kind = ExprKind::kConst;
  int64_t id = 0;
  int32_t offset = 0;  // byte offset in the source, for error positions

  Value constant;     // kConst; strings point into `text`
  std::string text;   // kConst string/bytes storage
  std::string name;   // kIdent name, kSelect field, kCall function
  bool test_only = false;      // kSelect: has()
  bool receiver_style = false; // kCall: target.f(...)
  std::vector<std::unique_ptr<Expr>> args;
  std::vector<int32_t> optional_indices;
  // kStruct: the field names, and the offset of each field's ':' (cel-go positions field errors there).
  std::vector<std::string> field_names;
  std::vector<int32_t> field_offsets;

  // kComprehension
  std::string iter_var;
  std::string iter_var2;  // two-variable comprehensions
  std::string accu_var;
  // Set by the parser on `@result + [x]` steps of list-building macros and `cel.@mapInsert` calls:
  // the interpreter appends in place.
  bool accumulates = false;

  // Checker annotations.
  Type type;
  int slot = -1;           // kIdent: comprehension variable slot; kComprehension: first slot
  int overload_group = -1; // kCall: function id (see functions.h)
  const void* function = nullptr;  // kCall: resolved Function (functions.h)
  std::vector<int> overloads;      // kCall: candidate overload indices in Function
  const MessageType* message = nullptr;  // kStruct: the resolved message type
  // Plan annotations (Program::PlanCalls), so that evaluation never looks at function names:
  uint8_t call_kind = 0;   // kCall: interpreter.cc CallKind (special forms vs strict calls)
  uint8_t cost_class = 0;  // kCall: interpreter.cc CostClass (how the runtime cost is computed)
  // kCall: planned as cel-go's evalVarArgs: arguments are evaluated in order and an error stops the
  // call before the next argument, which leaves the call uncharged.
  bool early_exit = false;
};

// A parsed expression with its source (for error messages).
struct ParsedExpr {
  std::unique_ptr<Expr> root;
  std::string source;
  int64_t next_id = 1;
};

struct ParserOptions {
  int max_recursion_depth = 250;         // cel-go's default
  size_t expression_size_limit = 100000; // code points, cel-go's default
  int error_recovery_limit = 30;
};

// Parses `source` and expands macros. Errors (InvalidArgument) are formatted as cel-go's
// issues.String(): "ERROR: <input>:1:5: Syntax error: ...\n | source\n | ....^".
absl::StatusOr<ParsedExpr> Parse(std::string_view source, const ParserOptions& options = {});

// One error with its position.
struct SourceError {
  int32_t offset;  // byte offset; -1 for none
  std::string message;
};
// Formats errors as cel-go's Errors.ToDisplayString.
std::string FormatErrors(std::string_view source, const std::vector<SourceError>& errors);

// Renders an expression back to CEL text (cel-go's unparser, roughly); for tests and debugging.
std::string Unparse(const Expr& e);

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_AST_H_
