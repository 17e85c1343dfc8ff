// Uses DRAForge built as a Meson subproject, through the C++ API over the C ABI
// (draforge/draforge.hpp): reads objects from standard input and prints how many of each kind there
// are.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "draforge/draforge.hpp"

int main() {
  const std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  auto cluster = draforge::Cluster::Create();
  if (!cluster) return 2;
  auto applied = cluster->Apply(input);
  if (!applied) {
    std::cerr << "error: " << applied.error().message << "\n";
    return 2;
  }
  auto snapshot = cluster->snapshot();
  if (!snapshot) return 2;
  for (const char* kind : {"Node", "ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "Pod"}) {
    std::cout << kind << ": " << snapshot->count(kind) << "\n";
  }
  return 0;
}
