//go:build k8s134

package sched

// errFailedAllocationOnNode: 1.34's allocator has no ErrFailedAllocationOnNode (every allocator
// error is an error there).
var errFailedAllocationOnNode error
