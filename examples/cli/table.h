// Plain-text tables as kubectl prints them: upper-case headers, columns separated by three spaces.
#ifndef DRAFORGE_EXAMPLES_CLI_TABLE_H_
#define DRAFORGE_EXAMPLES_CLI_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

namespace draforge::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  void Print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace draforge::cli

#endif  // DRAFORGE_EXAMPLES_CLI_TABLE_H_
