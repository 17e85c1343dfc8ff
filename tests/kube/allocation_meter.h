// Replaces the global operator new of the test binary that links allocation_meter.cc, to record
// the largest single allocation: a test can then assert that memory stayed bounded.
#ifndef DRAFORGE_TESTS_KUBE_ALLOCATION_METER_H_
#define DRAFORGE_TESTS_KUBE_ALLOCATION_METER_H_

#include <cstddef>

namespace draforge::allocation_meter {

// The largest size passed to operator new since the last ResetLargestAllocation(), in any thread.
size_t LargestAllocation();
void ResetLargestAllocation();

}  // namespace draforge::allocation_meter

#endif  // DRAFORGE_TESTS_KUBE_ALLOCATION_METER_H_
