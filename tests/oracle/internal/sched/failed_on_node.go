//go:build !k8s134

package sched

import "k8s.io/dynamic-resource-allocation/structured"

// errFailedAllocationOnNode is the allocator's "invalid pools on this node" error (from 1.35).
var errFailedAllocationOnNode = structured.ErrFailedAllocationOnNode
