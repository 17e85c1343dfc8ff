// In a file of its own so no caller inlines these next to a call of operator new (GCC would then
// warn that free() releases what "operator new" returned, which is this malloc).
#include "allocation_meter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<size_t> largest{0};
}  // namespace

namespace draforge::allocation_meter {
size_t LargestAllocation() { return largest.load(); }
void ResetLargestAllocation() { largest.store(0); }
}  // namespace draforge::allocation_meter

void* operator new(size_t n) {
  size_t seen = largest.load(std::memory_order_relaxed);
  while (n > seen && !largest.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
