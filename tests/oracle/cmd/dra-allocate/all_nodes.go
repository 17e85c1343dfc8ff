package main

import (
	"context"
	"io"
	"sort"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/dynamic-resource-allocation/structured"

	"draforge.dev/oracle/internal/sched"
)

// allNodesOutput is --all-nodes' stdout: on which Nodes the pod's claims fit.
type allNodesOutput struct {
	Nodes          int      `json:"nodes"`
	AllocatedNodes int      `json:"allocated_nodes"`
	FitsOn         []string `json:"fits_on"`
	Outcome        string   `json:"outcome"` // "filtered", or PreFilter's / NewAllocator's "unschedulable" / "error"
	Error          string   `json:"error,omitempty"`
}

// allNodesBench is --all-nodes --bench N's stderr line: one op = one pod's PreFilter + Filter over
// every node.
type allNodesBench struct {
	NsPerOp             int64 `json:"ns_per_op"`
	Ops                 int   `json:"ops"`
	Nodes               int   `json:"nodes"`
	NewAllocatorNsPerOp int64 `json:"new_allocator_ns_per_op"`
	AllocateNsPerOp     int64 `json:"allocate_ns_per_op"`
	// CPU time of the whole process per op (every thread: the garbage collector's included), for
	// comparisons on a loaded machine, where wall time mostly measures waiting.
	CPUNsPerOp int64 `json:"cpu_ns_per_op"`
}

// processCPUNs is the CPU time the process has used so far (user + system, all threads).
func processCPUNs() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// sortedNodes are the input's Nodes by name, the order the comparison uses (the scheduler's own
// order does not change the work).
func (r *runner) sortedNodes() []*corev1.Node {
	nodes := append([]*corev1.Node(nil), r.objs.Nodes...)
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	return nodes
}

// filterAllNodes is what kube-scheduler's DynamicResources plugin does for one pod in one
// scheduling cycle, serialized: NewAllocator (PreFilter) once, Allocate (Filter) per node. The
// scheduler runs Filter on 16 goroutines; the work is the same.
func (r *runner) filterAllNodes(ctx context.Context, nodes []*corev1.Node, fits *[]string) (newNs, allocNs int64, err error) {
	t0 := time.Now()
	allocator, err := structured.NewAllocator(ctx, r.features, r.allocatedState, r.classes, r.slices, r.celCache)
	t1 := time.Now()
	if err != nil {
		return t1.Sub(t0).Nanoseconds(), 0, err
	}
	for _, node := range nodes {
		results, aerr := allocator.Allocate(ctx, node, r.claims)
		if fits != nil && sched.FilterStatus(ctx, node.Name, len(r.claims), results, aerr) == nil {
			*fits = append(*fits, node.Name)
		}
	}
	return t1.Sub(t0).Nanoseconds(), time.Since(t1).Nanoseconds(), nil
}

func (r *runner) runAllNodes(ctx context.Context, pre *output, st stats, printStats bool, bench int, stdout, stderr io.Writer) int {
	nodes := r.sortedNodes()
	out := allNodesOutput{Nodes: len(nodes), FitsOn: []string{}, Outcome: "filtered"}
	if pre != nil {
		out.Outcome, out.Error = pre.Outcome, pre.Error
	} else {
		newNs, allocNs, err := r.filterAllNodes(ctx, nodes, &out.FitsOn)
		st.NewAllocatorNs, st.AllocateNs = newNs, allocNs
		if err != nil {
			out.Outcome, out.Error = "error", err.Error()
		}
	}
	out.AllocatedNodes = len(out.FitsOn)
	if printStats {
		writeJSONLine(stderr, st)
	}
	if bench > 0 && out.Outcome == "filtered" {
		var newSum, allocSum int64
		cpu0 := processCPUNs()
		for i := 0; i < bench; i++ {
			newNs, allocNs, _ := r.filterAllNodes(ctx, nodes, nil)
			newSum += newNs
			allocSum += allocNs
		}
		n := int64(bench)
		writeJSONLine(stderr, allNodesBench{NsPerOp: (newSum + allocSum) / n, Ops: bench, Nodes: len(nodes),
			NewAllocatorNsPerOp: newSum / n, AllocateNsPerOp: allocSum / n, CPUNsPerOp: (processCPUNs() - cpu0) / n})
	}
	writeJSONLine(stdout, out)
	if out.Outcome == "error" {
		return exitError
	}
	return exitAllocated
}
