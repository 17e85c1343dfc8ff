// CEL selector evaluation for the allocator and explain: a compile cache and upstream's error texts.
#ifndef DRAFORGE_ALLOC_INTERNAL_SELECTORS_H_
#define DRAFORGE_ALLOC_INTERNAL_SELECTORS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "alloc/features.h"
#include "api/resource_claim.h"
#include "api/resource_common.h"
#include "api/resource_slice.h"
#include "cel/selector.h"
#include "store/cluster.h"

namespace draforge::alloc::internal {

// What a CEL expression sees of `device` of `driver` (borrowed: valid while the device is).
inline cel::DeviceInput DeviceInputFor(const api::Device& device, std::string_view driver,
                                       bool allow_multiple_allocations) {
  return cel::DeviceInput{driver, &device.attributes, &device.capacity, allow_multiple_allocations};
}

// Compiled selectors by expression (upstream cel.Cache), and what each compiled selector said about
// each device. Thread-safe.
//
// Why results are cached: a selector's result is a function of the expression and of the device
// object (its driver, attributes and capacity; the gates are fixed per cache), and the objects of a
// snapshot never change. A long-lived cache (alloc::Allocator's) then evaluates a DeviceClass's
// selector once per device instead of once per device, pod and node (DESIGN "Data flow" 3). Entries
// are keyed by the device's address, so a cache must not outlive the objects it was used with:
// alloc::Allocator keeps its snapshot alive; the others live for one call.
class SelectorCache {
 public:
  // One compiled expression and, for the devices of the snapshot the cache was made with, what it
  // said about each: 0 not evaluated yet, 1 false, 2 true, 3 a runtime error (kept in the map).
  // Atomic bytes, so that the allocator's hot path reads them without a lock.
  struct Entry {
    absl::StatusOr<std::shared_ptr<const cel::DeviceSelector>> program;
    std::unique_ptr<std::atomic<uint8_t>[]> results;  // null without a snapshot
  };

  // `snapshot` (optional; must outlive the cache): its devices get dense ordinals, and results for
  // them live in flat arrays. Results for other devices go to a map under a lock.
  explicit SelectorCache(const Features& features, const store::Snapshot* snapshot = nullptr);
  // The compiled expression, or its compile error (cached too). The pointer is shared with the cache.
  absl::StatusOr<std::shared_ptr<const cel::DeviceSelector>> Get(const std::string& expression);
  // The same as an entry, valid as long as the cache.
  const Entry& GetEntry(const std::string& expression);
  // The dense ordinal of the first device of a slice of the snapshot given at construction, or -1;
  // the slice's devices have consecutive ordinals from there.
  int FirstDeviceOrdinal(const api::ResourceSlice& slice) const;
  // selector.Evaluate on `device` (of `driver`), computed once per (selector, device).
  // `allow_multiple_allocations` must be the same for every call with one device (it is a function
  // of the device and the cache's gates).
  cel::SelectorResult Evaluate(const cel::DeviceSelector& selector, const api::Device& device,
                               std::string_view driver, bool allow_multiple_allocations);
  // The same through an entry (its program must be OK) and the device's ordinal (-1: none).
  cel::SelectorResult Evaluate(const Entry& entry, const api::Device& device, int ordinal, std::string_view driver,
                               bool allow_multiple_allocations);

 private:
  cel::CompileOptions options_;
  // std::shared_mutex, not absl::Mutex: the lookups are on the allocator's hot path, and Debian's
  // Abseil runs absl::Mutex's deadlock detection on every lock (a quarter of a small pod's time).
  std::shared_mutex mu_;  // guards the maps below
  absl::flat_hash_map<std::string, std::unique_ptr<Entry>> compiled_;
  // Set at construction, read-only afterwards.
  absl::flat_hash_map<const api::ResourceSlice*, int> first_ordinals_;
  size_t num_devices_ = 0;
  // true/false, or the runtime error (rare: kept out of line).
  absl::flat_hash_map<std::pair<const cel::DeviceSelector*, const api::Device*>, bool> results_;
  absl::flat_hash_map<std::pair<const cel::DeviceSelector*, const api::Device*>, absl::Status> errors_;
};

// The selectors of one owner, compiled (each entry the program or its compile error, reported only
// when evaluation reaches it, as upstream does).
// Inline: a class or request rarely has more than two selectors, and one is made per request and
// Allocate call.
using CompiledSelectors = absl::InlinedVector<const SelectorCache::Entry*, 2>;
CompiledSelectors CompileSelectors(SelectorCache& cache, const std::vector<api::DeviceSelector>& selectors);

// Who owns the selectors, for error messages: "class X" or "claim ns/name".
struct SelectorOwner {
  std::string_view kind;  // "class" or "claim"
  std::string_view name;  // borrowed for the call
};

// Evaluates `selectors` in order against `device` (of `driver`; `device_id` "driver/pool/device" for
// messages): true when all match. Errors, worded as upstream:
//   "<owner>: selector #i: CEL expression empty (unsupported selector type?)" is checked earlier;
//   "<owner>: selector #i: CEL compile error: ..."
//   "<owner>: selector #i on device D: CEL runtime error: ..." (+ the optional-chaining hint for
//   "no such key").
absl::StatusOr<bool> SelectorsMatch(SelectorCache& cache, const SelectorOwner& owner,
                                    const std::vector<api::DeviceSelector>& selectors, const api::Device& device,
                                    std::string_view driver, std::string_view device_id, const Features& features);

// The same with the selectors compiled beforehand (CompileSelectors of the same list); the device
// is named by (driver, pool, device name), joined only for an error message.
// `ordinal` is the device's ordinal (SelectorCache::FirstDeviceOrdinal), or -1.
absl::StatusOr<bool> SelectorsMatch(SelectorCache& cache, const SelectorOwner& owner, const CompiledSelectors& compiled,
                                    const api::Device& device, int ordinal, std::string_view driver,
                                    std::string_view pool, std::string_view device_name, const Features& features);

// resourceclaim.ToleratesTaint.
bool ToleratesTaint(const api::DeviceToleration& toleration, const api::DeviceTaint& taint);
// Whether a NoSchedule/NoExecute taint (`every_effect`: a taint of any effect, as 1.34 checks them:
// Features::EveryTaintEffectPrevents) is not tolerated by any of `tolerations`.
bool TaintPreventsAllocation(const std::vector<api::DeviceTaint>& taints,
                             const std::vector<api::DeviceToleration>& tolerations, bool every_effect = false);

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_SELECTORS_H_
