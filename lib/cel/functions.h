// The function declarations and implementations of the DRA CEL environment: cel-go's standard
// library plus the Kubernetes and cel-go extension libraries the DRA environment enables.
#ifndef DRAFORGE_CEL_FUNCTIONS_H_
#define DRAFORGE_CEL_FUNCTIONS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cel/types.h"
#include "cel/value.h"

namespace re2 {
class RE2;
}

namespace draforge::cel {

// Per-evaluation state passed to function implementations.
struct EvalContext {
  Arena* arena = nullptr;
  // Precompiled constant regular expressions of the program (pattern -> RE2), may be null.
  const std::map<std::string, std::unique_ptr<re2::RE2>, std::less<>>* regexes = nullptr;
  // Set by a function that meets what is a Go panic in cel-go (recovered by cel-go's Program as
  // "internal error: ..."): the whole evaluation then fails with this message, which && and ||
  // cannot absorb. Must point at storage that outlives the evaluation (a literal).
  std::string_view panic;
};

using FunctionImpl = Value (*)(EvalContext& ctx, const Value* args);

struct Overload {
  std::string id;           // cel-go / Kubernetes overload id ("add_int64", "quantity_is_greater_than")
  std::vector<Type> params; // the receiver first for member overloads
  Type result;
  bool member = false;
  FunctionImpl impl = nullptr;  // null: handled by the interpreter itself
  // Runtime kinds selecting this overload (ValueKind, or -1 for any).
  std::vector<int> kinds;
  // Non-strict: receives error arguments (none in this environment besides the logical operators).
};

struct Function {
  std::string name;
  std::vector<Overload> overloads;
};

struct EnvOptions {
  bool list_type_attributes = true;
  bool consumable_capacity = true;
  // Stored expressions ignore the two gates above when declaring types and functions.
  bool stored_expressions = true;
};

class FunctionRegistry {
 public:
  const Function* Find(std::string_view name) const;
  void Add(std::string_view function, std::string id, std::vector<Type> params, Type result, bool member,
           FunctionImpl impl);

  // The registry of the DRA environment (built once, immutable).
  static const FunctionRegistry& Dra(const EnvOptions& options);

 private:
  std::map<std::string, Function, std::less<>> functions_;
};

// Library registration (one per library_*.cc).
void RegisterStandardLibrary(FunctionRegistry& r);
void RegisterStringsLibrary(FunctionRegistry& r);
void RegisterStringsFormat(FunctionRegistry& r);  // library_strings_format.cc
void RegisterTimeLibrary(FunctionRegistry& r);    // library_time.cc
void RegisterKubernetesLibraries(FunctionRegistry& r, const EnvOptions& options);
void RegisterNetLibraries(FunctionRegistry& r);   // library_net.cc: IP and CIDR
void RegisterListsExtension(FunctionRegistry& r); // library_lists.cc: ext.Lists
void RegisterFormatLibrary(FunctionRegistry& r);  // library_format.cc: format.named, validate
void RegisterUrlLibrary(FunctionRegistry& r);     // library_url.cc: url, isURL, getScheme, ...

// The runtime ValueKind a declared parameter type requires, or -1.
int RuntimeKind(const Type& t);

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_FUNCTIONS_H_
