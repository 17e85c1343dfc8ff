// See live_heap.h. The replacement delete frees what the replacement new malloc'ed, which gcc
// cannot see.
#include "live_heap.h"

#include <atomic>
#include <cstdlib>
#include <new>

#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<int64_t> g_live_bytes{0};
}

void* operator new(size_t n) {
  void* p = std::malloc(n + 16);
  if (p == nullptr) throw std::bad_alloc();
  *static_cast<size_t*>(p) = n;
  g_live_bytes.fetch_add(static_cast<int64_t>(n), std::memory_order_relaxed);
  return static_cast<char*>(p) + 16;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  char* base = static_cast<char*>(p) - 16;
  g_live_bytes.fetch_sub(static_cast<int64_t>(*reinterpret_cast<size_t*>(base)), std::memory_order_relaxed);
  std::free(base);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }

namespace draforge::bench {

int64_t LiveHeapBytes() { return g_live_bytes.load(std::memory_order_relaxed); }

}  // namespace draforge::bench
