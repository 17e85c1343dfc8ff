// What explaining many claims of one snapshot shares, so that each explanation costs about its own
// nodes' work instead of the cluster's: the nodes that get a verdict, the allocated state of every
// claim, the node-independent slices with their node selectors compiled, the compiled CEL selectors
// and one Allocator. analysis::DiagnosePendingClaims builds one per call; without it, explaining
// each pending claim of a 10,000-node cluster recomputed all of this (docs/performance.md).
#ifndef DRAFORGE_ALLOC_EXPLAIN_CONTEXT_H_
#define DRAFORGE_ALLOC_EXPLAIN_CONTEXT_H_

#include <memory>

#include "alloc/features.h"
#include "store/cluster.h"

namespace draforge::alloc {

namespace internal {
struct ExplainShared;
}  // namespace internal

class ExplainContext {
 public:
  // Borrows `snapshot`, which must outlive the context; `features` are those of the explanations.
  ExplainContext(const store::Snapshot& snapshot, const Features& features);
  ~ExplainContext();
  ExplainContext(const ExplainContext&) = delete;
  ExplainContext& operator=(const ExplainContext&) = delete;

  // Whether explanations of `snapshot` with `features` may use this context.
  bool Fits(const store::Snapshot& snapshot, const Features& features) const;
  internal::ExplainShared& shared() const { return *shared_; }

 private:
  const store::Snapshot& snapshot_;
  const Features features_;
  std::unique_ptr<internal::ExplainShared> shared_;
};

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_EXPLAIN_CONTEXT_H_
