// Uses DRAForge's C++ API (linked statically from the subproject): reads objects from standard input
// and prints how many devices each driver publishes.
#include <iostream>
#include <iterator>
#include <map>
#include <string>

#include "api/codec.h"
#include "store/cluster.h"

int main() {
  const std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  auto decoded = draforge::api::DecodeStream(input, {});
  if (!decoded.ok()) {
    std::cerr << "error: " << decoded.status().message() << "\n";
    return 2;
  }
  draforge::store::Cluster cluster;
  for (auto& d : *decoded) {
    if (!d.object.ok() || !cluster.Apply(*std::move(d.object)).ok()) {
      std::cerr << "error: object " << d.index + 1 << ": " << d.object.status().message() << "\n";
      return 2;
    }
  }
  auto snapshot = cluster.snapshot();
  for (const auto& pool : snapshot->Pools()) {
    std::cout << pool.driver << "/" << pool.pool << ": " << pool.device_count << " devices\n";
  }
  return 0;
}
