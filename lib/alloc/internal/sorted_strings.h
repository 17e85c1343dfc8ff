// Set operations on sorted, duplicate-free string lists: the attribute value sets of
// matchAttribute/distinctAttribute and the compatibility groups of a counter set.
#ifndef DRAFORGE_ALLOC_INTERNAL_SORTED_STRINGS_H_
#define DRAFORGE_ALLOC_INTERNAL_SORTED_STRINGS_H_

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

namespace draforge::alloc::internal {

// Whether sorted `a` and `b` share an element, without building the intersection.
inline bool SortedIntersects(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      return true;
    }
  }
  return false;
}

// The elements sorted `a` and `b` share, sorted.
inline std::vector<std::string> SortedIntersection(const std::vector<std::string>& a,
                                                   const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_SORTED_STRINGS_H_
