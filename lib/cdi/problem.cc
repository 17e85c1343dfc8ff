#include "cdi/problem.h"

namespace draforge::cdi {

std::string FormatProblem(const Problem& problem) { return problem.path + ": " + problem.message; }

std::string FormatProblems(const std::vector<Problem>& problems, bool one_line) {
  std::string out;
  for (const Problem& p : problems) {
    if (!out.empty()) out += one_line ? "; " : "\n";
    out += FormatProblem(p);
  }
  return out;
}

}  // namespace draforge::cdi
