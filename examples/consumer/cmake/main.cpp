// place-claim: loads objects (a scenario, a cluster dump) and allocates claims on a node with the
// C++ API over an installed libdraforge; when they do not fit, prints kube-scheduler's reason and
// DRAForge's explanation of why.
//
//   place-claim NODE NS/CLAIM[,NS/CLAIM...] FILE...
//
// Exit status: 0 the claims fit, 1 they do not, 2 bad input.
#include <cstdio>
#include <string>
#include <vector>

#include "draforge/draforge.hpp"

namespace {

std::vector<std::string> SplitClaims(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t comma; (comma = list.find(',', start)) != std::string::npos; start = comma + 1) {
    out.push_back(list.substr(start, comma - start));
  }
  out.push_back(list.substr(start));
  return out;
}

int Fail(const draforge::Error& error) {
  std::fprintf(stderr, "error: %s\n", error.message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s NODE NS/CLAIM[,NS/CLAIM...] FILE...\n", argv[0]);
    return 2;
  }
  std::printf("draforge %s (Kubernetes %s)\n", std::string(draforge::LibraryVersion()).c_str(),
              std::string(draforge::KubernetesVersion()).c_str());
  auto cluster = draforge::Cluster::Create();
  if (!cluster) return Fail(cluster.error());
  for (int i = 3; i < argc; ++i) {
    auto loaded = cluster->ApplyFile(argv[i]);
    if (!loaded) return Fail(loaded.error());
  }
  auto snapshot = cluster->snapshot();
  if (!snapshot) return Fail(snapshot.error());

  const std::string node = argv[1];
  const std::vector<std::string> claims = SplitClaims(argv[2]);
  auto result = draforge::Allocate(*snapshot, claims, node);
  if (!result) return Fail(result.error());
  if (!result->allocated()) {
    for (const std::string& reason : result->reasons()) std::printf("does not fit on %s: %s\n", node.c_str(), reason.c_str());
    for (const std::string& claim : claims) {
      auto why = draforge::Explain(*snapshot, claim, node);
      if (!why) return Fail(why.error());
      std::printf("why %s: %s\n", claim.c_str(), std::string(why->summary()).c_str());
    }
    return 1;
  }
  for (size_t i = 0; i < result->claim_count(); ++i) {
    // status.allocation as the API server would store it: the devices by driver, pool and name.
    auto allocation = result->AllocationJson(i);
    if (!allocation) return Fail(allocation.error());
    std::printf("allocated %s on %s: %s\n", std::string(result->claim(i)).c_str(), node.c_str(), allocation->c_str());
  }
  return 0;
}
