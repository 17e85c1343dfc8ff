// Lists every ResourceClaim (resource.k8s.io/v1, all namespaces) from a kube-apiserver with
// DRAForge's client, page by page, into typed api::ResourceClaim objects: the DRAForge side of
// "listing 100,000 claims from the API server in pages" (issue 23), run by
// bench/scale/list_claims.py beside client-go doing the same (tests/oracle/cmd/dra-list-claims).
//
//   list_claims_bench --kubeconfig=FILE [--limit=N] [--label-selector=S]
//
// Prints one JSON object on stdout: {"count","pages","wall_s","cpu_s","max_rss_bytes"}. cpu_s is the
// process's user+system CPU time (getrusage, every thread) from just before the first request to
// just after the last item was decoded, the same span dra-list-claims measures. Exit 1 on any error
// (a claim that does not decode is one), 2 on bad usage.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/codec.h"
#include "api/object.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/resource.h"

namespace {

using draforge::api::Kind;
namespace api = draforge::api;
namespace kube = draforge::kube;

double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto s = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6; };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

int Fail(const std::string& what, const std::string& message) {
  std::fprintf(stderr, "list_claims_bench: %s: %s\n", what.c_str(), message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string kubeconfig;
  int64_t limit = 500;
  std::string label_selector;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a.starts_with("--kubeconfig=")) {
      kubeconfig = a.substr(13);
    } else if (a.starts_with("--label-selector=")) {
      label_selector = a.substr(17);
    } else if (a.starts_with("--limit=")) {
      limit = std::stoll(std::string(a.substr(8)));
    } else {
      std::fprintf(stderr, "usage: list_claims_bench --kubeconfig=FILE [--limit=N] [--label-selector=S]\n");
      return 2;
    }
  }
  if (kubeconfig.empty() || limit < 0) {
    std::fprintf(stderr, "usage: list_claims_bench --kubeconfig=FILE [--limit=N] [--label-selector=S]\n");
    return 2;
  }
  auto config = kube::LoadKubeconfigFile(kubeconfig);
  if (!config.ok()) return Fail(kubeconfig, std::string(config.status().message()));
  auto client = kube::Client::Create(*std::move(config));
  if (!client.ok()) return Fail("client", std::string(client.status().message()));
  const kube::Resource claims = *kube::ResourceFor(Kind::kResourceClaim);

  const double cpu0 = CpuSeconds();
  const auto wall0 = std::chrono::steady_clock::now();
  kube::ListOptions options;
  options.limit = limit;
  options.label_selector = label_selector;
  auto list = (*client)->List(claims, "", options);
  if (!list.ok()) return Fail("list resourceclaims", std::string(list.status().message()));
  std::vector<api::ResourceClaim> decoded;
  const auto& items = list->list["items"];
  decoded.reserve(items.Size());
  for (const auto& item : items.GetArray()) {
    auto object = api::DecodeObject(item, api::DecodeOptions{}, nullptr);
    if (!object.ok()) return Fail("decode a claim", std::string(object.status().message()));
    auto* claim = std::get_if<api::ResourceClaim>(&object->value);
    if (claim == nullptr) return Fail("decode a claim", "the list holds an object that is not a ResourceClaim");
    decoded.push_back(std::move(*claim));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = CpuSeconds() - cpu0;
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("{\"count\":%zu,\"pages\":%d,\"wall_s\":%.6f,\"cpu_s\":%.6f,\"max_rss_bytes\":%ld}\n", decoded.size(),
              list->pages, wall, cpu, ru.ru_maxrss * 1024L);
  return 0;
}
