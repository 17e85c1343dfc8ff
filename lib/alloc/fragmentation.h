// Fragmentation: per pool, per node and across the cluster, the largest shape of each kind of device
// that still fits, against what is free, and a score saying how much of the free room is unusable
// for that shape without moving claims (docs/whatif.md, "Fragmentation", has the definitions and
// why they were chosen).
//
// Devices are grouped into kinds: devices of one driver with the same size, where the size is what
// the device consumes from shared counters (summed per counter name over its counter sets,
// DRAPartitionableDevices), or its capacity when it consumes no counter. A whole GPU and each
// partition profile are different kinds; identical GPUs without counters are one kind.
//
// For each kind, in each pool (the current generation of a complete, valid pool):
//   devices    devices of the kind;
//   allocated  those named by an allocation result without adminAccess (dedicated or shared);
//   tainted    the others with a NoSchedule or NoExecute taint (in the slice or a DeviceTaintRule);
//   free       the rest;
//   fit        the largest number of the kind one claim could get now: free devices taken one after
//              the other in slice order while their counter consumption still fits the pool's shared
//              counters minus what allocated devices consume (exact when each device draws on one
//              counter set, the partitionable GPU layout; greedy otherwise). No counters: free;
//   ideal      how many would fit if the counters left were in one place (allocated partitions packed
//              together): min(free, for every counter the kind consumes, floor(counter left over
//              the counter sets the kind draws on / what one device consumes));
//   score      1 - fit / ideal (0 when ideal is 0): the share of the room the free counters hold for
//              this kind that cannot be allocated without moving claims.
// A node's kinds sum those of the pools whose slices are node-local to it (spec.nodeName); a claim
// can take devices of several pools of its node. Across the cluster, per kind: the sum of the nodes'
// fit, the largest fit on one node (the largest shape of the kind that one pod can still get) and
// score = 1 - largest / sum (0 when the sum is 0): the share of the kind's usable devices that lie on
// other nodes than the best one ("4 GPUs on one node" when each node has 2 free).
//
// Consumable capacity (devices with allowMultipleAllocations, DRAConsumableCapacity): per pool and
// node, per capacity name: capacity, consumed (the results' consumedCapacity), free, the largest free
// on one device, and score = 1 - largest / free (0 when nothing is free).
#ifndef DRAFORGE_ALLOC_FRAGMENTATION_H_
#define DRAFORGE_ALLOC_FRAGMENTATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "alloc/features.h"
#include "api/quantity.h"
#include "store/cluster.h"

namespace draforge::alloc {

struct KindFragmentation {
  std::string driver;
  std::string kind;  // the first device of the kind, in (pool, slice, device) order: "gpu-0"
  std::string size;  // "memory=80Gi, multiprocessors=98"; capacity when no counter; "" for neither
  int64_t devices = 0;
  int64_t allocated = 0;
  int64_t tainted = 0;
  int64_t free = 0;
  int64_t fit = 0;
  int64_t ideal = 0;
  double score = 0;
};

// One shared counter of a pool.
struct CounterFree {
  std::string counter_set;
  std::string counter;
  api::Quantity capacity;
  api::Quantity consumed;  // by allocated devices
  api::Quantity free;      // capacity - consumed (negative when over-committed)
};

// One capacity of the pool's devices that allow multiple allocations.
struct CapacityFragmentation {
  std::string driver;
  std::string name;
  int64_t devices = 0;  // devices with this capacity
  api::Quantity capacity;
  api::Quantity consumed;
  api::Quantity free;
  api::Quantity largest;  // the most free on one device
  double score = 0;
};

struct PoolFragmentation {
  std::string driver;
  std::string pool;
  std::string node;  // spec.nodeName of the pool's slices (node-local pools); "" otherwise
  std::vector<KindFragmentation> kinds;  // by size's first device, in slice order
  std::vector<CounterFree> counters;     // by (counter set, counter)
  std::vector<CapacityFragmentation> capacity;
};

struct NodeFragmentation {
  std::string node;
  std::vector<KindFragmentation> kinds;  // by (driver, kind)
  std::vector<CapacityFragmentation> capacity;
};

struct ClusterKindFragmentation {
  std::string driver;
  std::string kind;
  std::string size;
  int64_t free = 0;          // summed over the nodes
  int64_t fit = 0;           // summed over the nodes
  int64_t largest_fit = 0;   // on one node
  std::string largest_node;  // the first node (by name) with largest_fit; "" when 0
  double score = 0;
};

struct FragmentationReport {
  std::vector<PoolFragmentation> pools;  // by (driver, pool)
  std::vector<NodeFragmentation> nodes;  // by name; nodes with node-local devices
  std::vector<ClusterKindFragmentation> kinds;  // by (driver, kind)
  // Pools left out: "driver/pool: incomplete" or "driver/pool: <invalid reason>".
  std::vector<std::string> skipped;
};

// The fragmentation of `snapshot` (see the top of this file). `features` decides which taints count
// (DRADeviceTaints, DRADeviceTaintRules). Never fails: a quantity that cannot be divided counts as
// no limit.
FragmentationReport Fragmentation(const store::Snapshot& snapshot, const Features& features = {});

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_FRAGMENTATION_H_
