// A problem found in a CDI spec: where (a JSON path) and what.
#ifndef DRAFORGE_CDI_PROBLEM_H_
#define DRAFORGE_CDI_PROBLEM_H_

#include <string>
#include <vector>

namespace draforge::cdi {

struct Problem {
  // JSONPath of the offending value from the document root: "$", "$.kind",
  // "$.devices[2].containerEdits.env[0]", "$.annotations[\"a/b\"]".
  std::string path;
  std::string message;
  friend bool operator==(const Problem&, const Problem&) = default;
};

// "<path>: <message>".
std::string FormatProblem(const Problem& problem);
// The problems, one FormatProblem per line, "; "-joined when `one_line`.
std::string FormatProblems(const std::vector<Problem>& problems, bool one_line = true);

}  // namespace draforge::cdi

#endif  // DRAFORGE_CDI_PROBLEM_H_
