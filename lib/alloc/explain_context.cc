#include "alloc/explain_context.h"

#include "alloc/internal/explain_shared.h"
#include "alloc/placement.h"

namespace draforge::alloc {
namespace internal {
namespace {

AllocateOptions AgainstState(const Features& features, const AllocatedState* state) {
  AllocateOptions opts;
  opts.features = features;
  opts.allocated_state = state;
  return opts;
}

}  // namespace

ExplainShared::ExplainShared(const store::Snapshot& snapshot, const Features& features)
    : nodes(PlacementNodes(snapshot, &node_source)),
      allocated(AllocatedStateFromSnapshot(snapshot, {})),
      node_independent(snapshot),
      selectors(features, &snapshot),
      // The Allocator's snapshot is borrowed (an aliasing shared_ptr that owns nothing).
      allocator(std::shared_ptr<const store::Snapshot>(std::shared_ptr<const store::Snapshot>(), &snapshot),
                AgainstState(features, &allocated)) {}

}  // namespace internal

ExplainContext::ExplainContext(const store::Snapshot& snapshot, const Features& features)
    : snapshot_(snapshot), features_(features), shared_(std::make_unique<internal::ExplainShared>(snapshot, features)) {}

ExplainContext::~ExplainContext() = default;

bool ExplainContext::Fits(const store::Snapshot& snapshot, const Features& features) const {
  return &snapshot == &snapshot_ && features == features_;
}

}  // namespace draforge::alloc
