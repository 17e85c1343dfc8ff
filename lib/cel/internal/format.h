// The clause parser of the strings extension's `<string>.format(<list>)` (cel-go ext, strings
// version 1-3, formatting.go), shared by the runtime formatter and the compile-time validator.
#ifndef DRAFORGE_CEL_INTERNAL_FORMAT_H_
#define DRAFORGE_CEL_INTERNAL_FORMAT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace draforge::cel::internal {

// What one format clause is applied to. Implementations either format a runtime value or check a
// static type.
class FormatArgs {
 public:
  virtual ~FormatArgs() = default;
  virtual size_t size() const = 0;
  // Formats argument `index` for `verb` (s, d, f, e, b, x, X, o) with `precision` (-1: none) into
  // `out`. Returns "" or the clause's error message ("decimal clause can only be used on integers,
  // was given double").
  virtual std::string Apply(size_t index, char verb, int precision, std::string* out) = 0;
};

struct FormatResult {
  std::string text;
  std::string error;       // empty on success; cel-go's message otherwise
  size_t args_used = 0;    // how many arguments the clauses consumed
  long error_arg = -1;     // the argument a type error is about, -1 for the call itself
};

// Interpolates `format` with `args`: `%%`, `%s`, `%d`, `%f`, `%e`, `%b`, `%x`, `%X`, `%o`, with an
// optional `.N` precision. Stops at the first error, with cel-go's message ("index 1 out of range",
// "unexpected end of string", "could not parse formatting clause: ...", "error during formatting:
// ...").
FormatResult InterpolateFormat(std::string_view format, FormatArgs& args);

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_FORMAT_H_
