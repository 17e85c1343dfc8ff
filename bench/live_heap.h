// Live heap bytes of a benchmark binary: bench/live_heap.cc replaces operator new/delete to count
// the bytes requested and not yet freed, so that a benchmark can measure what a structure keeps
// (malloc's own overhead is not counted). Link live_heap.cc into a benchmark binary only; the
// library never replaces operator new.
#ifndef DRAFORGE_BENCH_LIVE_HEAP_H_
#define DRAFORGE_BENCH_LIVE_HEAP_H_

#include <cstdint>

namespace draforge::bench {

// Bytes requested from operator new and not yet deleted, over the whole process.
int64_t LiveHeapBytes();

}  // namespace draforge::bench

#endif  // DRAFORGE_BENCH_LIVE_HEAP_H_
