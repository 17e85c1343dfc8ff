// allocate (C++): like allocate.c, with RAII over the C ABI, for the claims of one pod: they are
// allocated together (all or none), as kube-scheduler does for a pod.
//
//   allocate-cpp NODE NS/CLAIM[,NS/CLAIM...] FILE...
//
// Build against an installed DRAForge:
//   c++ -std=c++17 allocate.cpp $(pkg-config --cflags --libs draforge) -o allocate-cpp
//
// Exit status: 0 the claims fit, 1 they do not, 2 bad input.
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "draforge/draforge.h"

namespace {

// Owns what the C ABI hands out; each deleter is the handle's destroy call.
struct Deleter {
  void operator()(draforge_cluster* p) const { draforge_cluster_destroy(p); }
  void operator()(draforge_snapshot* p) const { draforge_snapshot_destroy(p); }
  void operator()(draforge_allocation_result* p) const { draforge_allocation_result_destroy(p); }
};
template <typename T>
using Owned = std::unique_ptr<T, Deleter>;

// A C error as an exception on this side of the boundary.
struct Error : std::runtime_error {
  Error(int code, draforge_error* e)
      : std::runtime_error(e ? draforge_error_message(e) : "error " + std::to_string(code)), code(code) {
    draforge_error_destroy(e);
  }
  int code;
};

void Check(int rc, draforge_error* e) {
  if (rc != DRAFORGE_OK) throw Error(rc, e);
}

std::string Take(draforge_buffer& b) {
  std::string s(b.ptr ? b.ptr : "", b.size);
  draforge_buffer_dispose(&b);
  return s;
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t comma; (comma = s.find(',', start)) != std::string::npos; start = comma + 1) {
    out.push_back(s.substr(start, comma - start));
  }
  out.push_back(s.substr(start));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s NODE NS/CLAIM[,NS/CLAIM...] FILE...\n", argv[0]);
    return 2;
  }
  try {
    draforge_cluster* raw = nullptr;
    draforge_error* e = nullptr;
    int rc = draforge_cluster_create(&raw, nullptr, &e);
    Check(rc, e);
    Owned<draforge_cluster> cluster(raw);
    for (int i = 3; i < argc; ++i) {
      rc = draforge_cluster_apply_file(cluster.get(), argv[i], nullptr, &e);
      Check(rc, e);
    }
    draforge_snapshot* snap = nullptr;
    rc = draforge_cluster_snapshot(&snap, cluster.get(), &e);
    Check(rc, e);
    Owned<draforge_snapshot> snapshot(snap);

    const std::vector<std::string> names = Split(argv[2]);
    std::vector<const char*> claims;
    for (const auto& n : names) claims.push_back(n.c_str());
    draforge_allocate_options options = DRAFORGE_ALLOCATE_OPTIONS_INIT;
    draforge_allocation_result* r = nullptr;
    rc = draforge_allocate(&r, snapshot.get(), claims.data(), claims.size(), argv[1], &options, &e);
    Check(rc, e);
    Owned<draforge_allocation_result> result(r);
    if (draforge_allocation_result_outcome(result.get()) != DRAFORGE_OUTCOME_ALLOCATED) {
      std::printf("does not fit on %s: %s\n", argv[1], draforge_allocation_result_reason(result.get(), 0));
      return 1;
    }
    draforge_buffer b = {nullptr, 0};
    rc = draforge_allocation_result_json(&b, result.get(), &e);
    Check(rc, e);
    std::printf("%s\n", Take(b).c_str());
    return 0;
  } catch (const Error& err) {
    std::fprintf(stderr, "error: %s\n", err.what());
    return 2;
  }
}
