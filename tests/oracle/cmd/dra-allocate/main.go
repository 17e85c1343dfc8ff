// Command dra-allocate runs the Kubernetes 1.37 structured allocator
// (k8s.io/dynamic-resource-allocation/structured) on objects read from YAML
// or JSON files, the way kube-scheduler's DynamicResources plugin calls it
// for one pod and one node. See ../../README.md for the I/O contract.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	schedfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"draforge.dev/oracle/internal/gates"
	"draforge.dev/oracle/internal/input"
	"draforge.dev/oracle/internal/sched"
)

const (
	exitAllocated     = 0
	exitUnschedulable = 1
	exitUsage         = 2
	exitError         = 3
)

type output struct {
	Outcome     string                                  `json:"outcome"`
	Allocations map[string]resourceapi.AllocationResult `json:"allocations"`
	Reasons     []string                                `json:"reasons"`
	Error       string                                  `json:"error"`
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--batch" {
		os.Exit(runBatch(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "dra-allocate: "+format+"\n", args...)
	return exitUsage
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("dra-allocate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	nodeName := fs.String("node", "", "name of the node to allocate for (required)")
	claimNames := fs.StringArray("claim", nil, "NS/NAME of a claim to allocate (repeatable, in this order); default: all claims without status.allocation, sorted by namespace/name")
	var gateFlag gates.Flag
	fs.Var(&gateFlag, "feature-gates", "Kubernetes feature gates of the oracle's version, A=true,B=false (repeatable)")
	stats := fs.Bool("stats", false, "print timing and allocator counters as one JSON line on stderr")
	bench := fs.Int("bench", 0, "run NewAllocator+Allocate N more times and print {\"ns_per_op\",\"ops\"} on stderr")
	filterTimeout := fs.Duration("filter-timeout", 10*time.Second, "DynamicResourcesArgs.filterTimeout (0 disables; only used when DRASchedulerFilterTimeout is enabled)")
	lenient := fs.Bool("lenient", false, "accept unknown and duplicate fields in the input (default: strict, like kubectl)")
	allocatorOnly := fs.Bool("allocator-only", false, "skip the scheduler plugin's PreFilter request/class checks and call the allocator directly")
	verbosity := fs.Int("v", -1, "klog verbosity; logs go to stderr (default: no logs)")
	allNodes := fs.Bool("all-nodes", false, "the scheduler's Filter for one pod over every Node of the input (by name): NewAllocator once, Allocate per node; prints {\"nodes\",\"allocated_nodes\",\"fits_on\"} instead of one node's result (replaces --node)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: dra-allocate --node NODE [--claim NS/NAME]... [--feature-gates A=true,B=false] [--stats] [--bench N] FILE...\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitUsage
		}
		return exitUsage
	}
	setupLogging(*verbosity)
	if *nodeName == "" && !*allNodes {
		return usageError(stderr, "--node or --all-nodes is required")
	}
	if *nodeName != "" && *allNodes {
		return usageError(stderr, "--node and --all-nodes exclude each other")
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "no input files")
	}
	if *bench < 0 {
		return usageError(stderr, "--bench must be >= 0")
	}

	fts, err := gateFlag.Apply()
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	decodeStart, decodeCPU := time.Now(), processCPUNs()
	objs, err := input.ReadFiles(fs.Args(), input.Options{Lenient: *lenient})
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	decodeNs, decodeCPUNs := time.Since(decodeStart).Nanoseconds(), processCPUNs()-decodeCPU

	// Claims to allocate.
	var toAllocate []*resourceapi.ResourceClaim
	if len(*claimNames) > 0 {
		byName := map[string]*resourceapi.ResourceClaim{}
		for _, c := range objs.Claims {
			byName[c.Namespace+"/"+c.Name] = c
		}
		seen := map[string]bool{}
		for _, n := range *claimNames {
			key := n
			if !strings.Contains(n, "/") {
				key = metav1.NamespaceDefault + "/" + n
			}
			c, ok := byName[key]
			if !ok {
				return usageError(stderr, "--claim %s: no such ResourceClaim in the input", n)
			}
			if c.Status.Allocation != nil {
				return usageError(stderr, "--claim %s: the claim is already allocated", n)
			}
			if seen[key] {
				return usageError(stderr, "--claim %s given twice", n)
			}
			seen[key] = true
			toAllocate = append(toAllocate, c)
		}
	} else {
		for _, c := range objs.Claims {
			if c.Status.Allocation == nil {
				toAllocate = append(toAllocate, c)
			}
		}
	}

	var node *corev1.Node
	for _, n := range objs.Nodes {
		if n.Name == *nodeName {
			node = n
		}
	}
	if node == nil {
		node = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: *nodeName}}
	}

	ctx := context.Background()
	if *verbosity >= 0 {
		ctx = klog.NewContext(ctx, klog.Background())
	}

	r := newRunner(fts, objs, node, toAllocate, *filterTimeout, *allocatorOnly)
	out, st, err := r.prepare(ctx)
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	st.DecodeNs, st.DecodeCPUNs = decodeNs, decodeCPUNs
	if *allNodes {
		return r.runAllNodes(ctx, out, st, *stats, *bench, stdout, stderr)
	}
	preFiltered := out != nil
	if !preFiltered {
		out, st = r.allocateOnce(ctx)
	}
	if *stats {
		writeJSONLine(stderr, st)
	}
	// Like the scheduler, nothing is allocated when PreFilter already
	// rejected the pod or the allocator failed.
	if *bench > 0 && !preFiltered && out.Outcome != "error" {
		writeJSONLine(stderr, r.bench(ctx, *bench))
	}
	writeJSONLine(stdout, out)
	switch out.Outcome {
	case "allocated":
		return exitAllocated
	case "unschedulable":
		return exitUnschedulable
	default:
		return exitError
	}
}

func setupLogging(verbosity int) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if verbosity < 0 {
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("alsologtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		klog.SetOutput(io.Discard)
		return
	}
	_ = fs.Set("v", fmt.Sprint(verbosity))
}

func writeJSONLine(w io.Writer, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	data = append(data, '\n')
	_, _ = w.Write(data)
}

type runner struct {
	fts           schedfeature.Features
	features      structured.Features
	objs          *input.Objects
	node          *corev1.Node
	claims        []*resourceapi.ResourceClaim
	filterTimeout time.Duration
	allocatorOnly bool

	// Prepared state, as kept by the scheduler between pods.
	celCache       *cel.Cache
	classes        *sched.ClassLister
	slices         []*resourceapi.ResourceSlice
	allocatedState structured.AllocatedState
	patchSlicesNs  int64
}

func newRunner(fts schedfeature.Features, objs *input.Objects, node *corev1.Node, claims []*resourceapi.ResourceClaim, filterTimeout time.Duration, allocatorOnly bool) *runner {
	return &runner{
		fts:           fts,
		features:      gates.AllocatorFeatures(fts),
		objs:          objs,
		node:          node,
		claims:        claims,
		filterTimeout: filterTimeout,
		allocatorOnly: allocatorOnly,
		// Same size and features as the DynamicResources plugin's cache.
		celCache: cel.NewCache(10, gates.CELFeatures(fts)),
	}
}

// stats is the --stats line.
type stats struct {
	Allocator                 string          `json:"allocator"`
	NewAllocatorNs            int64           `json:"new_allocator_ns"`
	AllocateNs                int64           `json:"allocate_ns"`
	NumAllocateOneInvocations *int64          `json:"num_allocate_one_invocations"`
	PatchSlicesNs             int64           `json:"patch_slices_ns"`
	Claims                    int             `json:"claims"`
	AllocatedClaims           int             `json:"allocated_claims"`
	Slices                    int             `json:"slices"`
	Devices                   int             `json:"devices"`
	TaintRules                int             `json:"device_taint_rules"`
	AllocatedDevices          int             `json:"allocated_devices"`
	AllocatedSharedDevices    int             `json:"allocated_shared_devices"`
	Features                  map[string]bool `json:"features"`
	Gates                     map[string]bool `json:"gates"`
	IgnoredKinds              map[string]int  `json:"ignored_kinds,omitempty"`
	DecodeNs                  int64           `json:"decode_ns"`     // reading and decoding the input files
	DecodeCPUNs               int64           `json:"decode_cpu_ns"` // the same in CPU time of every thread
}

func (r *runner) baseStats() stats {
	st := stats{
		Claims:        len(r.claims),
		Slices:        len(r.objs.Slices),
		TaintRules:    len(r.objs.TaintRules),
		Features:      map[string]bool{},
		Gates:         gates.DRAGates(),
		IgnoredKinds:  r.objs.IgnoredKind,
		PatchSlicesNs: r.patchSlicesNs,
	}
	for _, s := range r.objs.Slices {
		st.Devices += len(s.Spec.Devices)
	}
	for _, c := range r.objs.Claims {
		if c.Status.Allocation != nil {
			st.AllocatedClaims++
		}
	}
	st.AllocatedDevices = r.allocatedState.AllocatedDevices.Len()
	st.AllocatedSharedDevices = r.allocatedState.AllocatedSharedDeviceIDs.Len()
	for name := range r.features.Set() {
		st.Features[name] = true
	}
	return st
}

// prepare sets up what the scheduler has available before PreFilter:
// listers, allocated state and the patched slices. A non-nil output means
// PreFilter already decided the outcome.
func (r *runner) prepare(ctx context.Context) (*output, stats, error) {
	var err error
	r.classes, err = sched.NewClassLister(r.objs.Classes)
	if err != nil {
		return nil, stats{}, err
	}
	r.allocatedState = sched.AllocatedState(r.objs.Claims, r.fts)
	start := time.Now()
	r.slices, err = sched.PatchedSlices(ctx, r.objs.Slices, r.objs.TaintRules, r.objs.Classes, r.fts,
		// kube-scheduler: EnableDeviceTaintRules = DRADeviceTaintRules gate.
		gates.TaintRules())
	if err != nil {
		return nil, stats{}, err
	}
	r.patchSlicesNs = time.Since(start).Nanoseconds()
	st := r.baseStats()
	if !r.allocatorOnly {
		if status := sched.PreFilterChecks(r.claims, r.classes, r.fts); status != nil {
			return statusOutput(status), st, nil
		}
	}
	return nil, st, nil
}

func statusOutput(status *sched.Status) *output {
	out := &output{Outcome: status.Code, Allocations: map[string]resourceapi.AllocationResult{}, Reasons: []string{}}
	if status.Code == "error" {
		out.Error = status.Reason
	} else {
		out.Reasons = append(out.Reasons, status.Reason)
	}
	return out
}

// allocateOnce does what PreFilter (NewAllocator) and Filter (Allocate) do
// for one pod on one node.
func (r *runner) allocateOnce(ctx context.Context) (*output, stats) {
	st := r.baseStats()
	start := time.Now()
	allocator, err := structured.NewAllocator(ctx, r.features, r.allocatedState, r.classes, r.slices, r.celCache)
	st.NewAllocatorNs = time.Since(start).Nanoseconds()
	if err != nil {
		return statusOutput(&sched.Status{Code: "error", Reason: err.Error()}), st
	}
	st.Allocator, st.NumAllocateOneInvocations = allocatorInfo(allocator)

	allocCtx := ctx
	if r.fts.EnableDRASchedulerFilterTimeout && r.filterTimeout > 0 {
		c, cancel := context.WithTimeout(allocCtx, r.filterTimeout)
		defer cancel()
		allocCtx = c
	}
	start = time.Now()
	results, err := allocateRecovering(allocCtx, allocator, r.node, r.claims)
	st.AllocateNs = time.Since(start).Nanoseconds()
	_, st.NumAllocateOneInvocations = allocatorInfo(allocator)

	if status := sched.FilterStatus(ctx, r.node.Name, len(r.claims), results, err); status != nil {
		return statusOutput(status), st
	}
	out := &output{Outcome: "allocated", Allocations: map[string]resourceapi.AllocationResult{}, Reasons: []string{}}
	for i, claim := range r.claims {
		result := results[i]
		result.AllocationTimestamp = nil
		out.Allocations[claim.Namespace+"/"+claim.Name] = result
	}
	return out, st
}

// allocateRecovering is allocator.Allocate with a panic turned into an error ("allocator panicked:
// ..."): Kubernetes 1.34's experimental allocator indexes a slice's devices with the request's device
// index when it re-checks consumable capacity, which panics (and would crash kube-scheduler) when the
// index is past the slice's devices. Reported as an error outcome, the run goes on.
func allocateRecovering(ctx context.Context, allocator structured.Allocator, node *corev1.Node, claims []*resourceapi.ResourceClaim) (results []resourceapi.AllocationResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			results, err = nil, fmt.Errorf("allocator panicked: %v", p)
		}
	}()
	return allocator.Allocate(ctx, node, claims)
}

// allocatorInfo reads the implementation's channel ("stable",
// "incubating", "experimental") and, where implemented, its
// allocateOne invocation counter. The types live in an internal package,
// so reflection is used.
func allocatorInfo(a structured.Allocator) (string, *int64) {
	v := reflect.ValueOf(a)
	var channel string
	if m := v.MethodByName("Channel"); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 {
		channel = m.Call(nil)[0].String()
	}
	if m := v.MethodByName("GetStats"); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 {
		s := m.Call(nil)[0]
		if s.Kind() == reflect.Struct {
			if f := s.FieldByName("NumAllocateOneInvocations"); f.IsValid() && f.CanInt() {
				n := f.Int()
				return channel, &n
			}
		}
	}
	return channel, nil
}

type benchResult struct {
	NsPerOp             int64 `json:"ns_per_op"`
	Ops                 int   `json:"ops"`
	NewAllocatorNsPerOp int64 `json:"new_allocator_ns_per_op"`
	AllocateNsPerOp     int64 `json:"allocate_ns_per_op"`
}

// bench repeats NewAllocator+Allocate n times with a fresh allocator each
// time and the long-lived CEL cache, as the scheduler does for successive
// pods. ns_per_op covers both calls.
func (r *runner) bench(ctx context.Context, n int) benchResult {
	var newNs, allocNs int64
	for i := 0; i < n; i++ {
		allocCtx := ctx
		var cancel context.CancelFunc = func() {}
		if r.fts.EnableDRASchedulerFilterTimeout && r.filterTimeout > 0 {
			allocCtx, cancel = context.WithTimeout(ctx, r.filterTimeout)
		}
		t0 := time.Now()
		allocator, err := structured.NewAllocator(ctx, r.features, r.allocatedState, r.classes, r.slices, r.celCache)
		t1 := time.Now()
		if err == nil {
			_, _ = allocator.Allocate(allocCtx, r.node, r.claims)
		}
		t2 := time.Now()
		cancel()
		newNs += t1.Sub(t0).Nanoseconds()
		allocNs += t2.Sub(t1).Nanoseconds()
	}
	return benchResult{
		NsPerOp:             (newNs + allocNs) / int64(n),
		Ops:                 n,
		NewAllocatorNsPerOp: newNs / int64(n),
		AllocateNsPerOp:     allocNs / int64(n),
	}
}
