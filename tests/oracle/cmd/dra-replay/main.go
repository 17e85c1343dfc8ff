// Command dra-replay replays a cluster's pending pods with the Kubernetes 1.37 structured allocator
// (k8s.io/dynamic-resource-allocation/structured) the way kube-scheduler's DynamicResources plugin
// calls it, first fit: the upstream side of bench/run_replay, beside DRAForge's
// `draforge whatif replay` (alloc::Replay) on the same file.
//
//	dra-replay [--feature-gates A=true,B=false] [--sample-every K] FILE...
//
// Pending pods (no spec.nodeName, not Succeeded/Failed, not being deleted, the default scheduler)
// are taken in kube-scheduler's PrioritySort order: spec.priority descending, then
// metadata.creationTimestamp ascending, then "namespace/name" (DRAForge's tie-break). For each pod:
//   - its claims are resolved as PreFilter does: resourceClaimName is that claim, a template entry
//     is the claim named in status.resourceClaimStatuses or else the template's spec as the
//     resourceclaim controller would create it ("<pod>-<entry>");
//   - PreFilter's request/class checks (sched.PreFilterChecks), then structured.NewAllocator once
//     with the current allocated state and the long-lived cel.Cache (as the plugin's PreFilter);
//   - Allocate on every Node, in name order (the plugin's Filter, serialized; with
//     DRASchedulerFilterTimeout each call gets the 10 s Filter timeout as the plugin does), the
//     outcome mapped as Filter maps it (sched.FilterStatus);
//   - the first node that fits is chosen (first fit); its allocation results are committed: the
//     devices join the allocated state and the claims count as allocated.
//
// The other scheduler filters (NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit)
// are not run: bench/replay_scenario.py builds clusters on which they pass every node, and
// bench/run_replay checks that DRAForge's replay agrees. Claims that are already allocated, or
// shared by several pending pods, are not supported (exit 2): the benchmark's pods have claims of
// their own.
//
// --sample-every K (timing on a busy machine): per pod, Allocate still runs on every node up to the
// first that fits (so the placement is the same), and after it only on every K-th node (index % K
// == 0). Timed are NewAllocator and the Allocate calls on nodes with index % K == 0, and the
// estimate of the pod's time is NewAllocator + K x those; the calls made only to find the first fit
// are not timed.
//
// stdout, one JSON object: {"order": [pod keys], "placed": [{"pod", "node", "claims": [{"name":
// pod claim entry, "claim": "ns/name", "results": [{"request", "driver", "pool", "device"}]}]}],
// "pending": [pod keys]}. stderr, one JSON line: replay_ns (wall time of the replay, decoding
// excluded), cpu_ns (the process's CPU time over the same span, every thread: GC included),
// new_allocator_ns and allocate_ns (sums), allocate_calls, timed_allocate_calls, sample_every,
// estimated_ns (NewAllocator + K x the timed Allocate calls; replay_ns when K is 1), pods, nodes,
// allocator (stable/incubating/experimental), errors (Allocate calls that failed with an error).
// Exit 0, or 2 on bad input or usage.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"

	"draforge.dev/oracle/internal/gates"
	"draforge.dev/oracle/internal/input"
	"draforge.dev/oracle/internal/sched"
)

const filterTimeout = 10 * time.Second // DynamicResourcesArgs.filterTimeout's default

type result struct {
	Request string `json:"request"`
	Driver  string `json:"driver"`
	Pool    string `json:"pool"`
	Device  string `json:"device"`
}

type placedClaim struct {
	Name    string   `json:"name"`
	Claim   string   `json:"claim"`
	Results []result `json:"results"`
}

type placedPod struct {
	Pod    string        `json:"pod"`
	Node   string        `json:"node"`
	Claims []placedClaim `json:"claims"`
}

type output struct {
	Order   []string    `json:"order"`
	Placed  []placedPod `json:"placed"`
	Pending []string    `json:"pending"`
}

type stats struct {
	ReplayNs           int64  `json:"replay_ns"`
	CPUNs              int64  `json:"cpu_ns"`
	NewAllocatorNs     int64  `json:"new_allocator_ns"`
	AllocateNs         int64  `json:"allocate_ns"`
	AllocateCalls      int64  `json:"allocate_calls"`
	TimedAllocateCalls int64  `json:"timed_allocate_calls"`
	SampleEvery        int    `json:"sample_every"`
	EstimatedNs        int64  `json:"estimated_ns"`
	Pods               int    `json:"pods"`
	Nodes              int    `json:"nodes"`
	Allocator          string `json:"allocator"`
	Errors             int64  `json:"errors"`
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "dra-replay: "+format+"\n", args...)
	return 2
}

func processCPUNs() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func key(ns, name string) string { return ns + "/" + name }

// pending is the replay's notion of a pod waiting for the scheduler (lib/alloc/replay.h).
func pending(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Spec.NodeName != "" {
		return false
	}
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	return p.Spec.SchedulerName == "" || p.Spec.SchedulerName == corev1.DefaultSchedulerName
}

// queue sorts the pending pods as kube-scheduler's PrioritySort does (priority, then the time the
// pod entered the queue: its creation offline), then by key.
func queue(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if pending(p) {
			out = append(out, p)
		}
	}
	prio := func(p *corev1.Pod) int32 {
		if p.Spec.Priority != nil {
			return *p.Spec.Priority
		}
		return 0
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if prio(a) != prio(b) {
			return prio(a) > prio(b)
		}
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return key(a.Namespace, a.Name) < key(b.Namespace, b.Name)
	})
	return out
}

type podClaims struct {
	entries []string
	claims  []*resourceapi.ResourceClaim
}

// resolve finds or instantiates the pod's claims. A claim already allocated or used by an earlier
// pod is an error (not supported, see the top).
func resolve(pod *corev1.Pod, claims map[string]*resourceapi.ResourceClaim, templates map[string]*resourceapi.ResourceClaimTemplate, used map[string]string) (podClaims, error) {
	var out podClaims
	statusName := map[string]*string{}
	for _, s := range pod.Status.ResourceClaimStatuses {
		statusName[s.Name] = s.ResourceClaimName
	}
	for _, e := range pod.Spec.ResourceClaims {
		var c *resourceapi.ResourceClaim
		switch {
		case e.ResourceClaimName != nil:
			c = claims[key(pod.Namespace, *e.ResourceClaimName)]
			if c == nil {
				return out, fmt.Errorf("pod %s: resourceclaim %s not found", key(pod.Namespace, pod.Name), *e.ResourceClaimName)
			}
		case e.ResourceClaimTemplateName != nil:
			if name, ok := statusName[e.Name]; ok && name != nil {
				c = claims[key(pod.Namespace, *name)]
			}
			if c == nil {
				t := templates[key(pod.Namespace, *e.ResourceClaimTemplateName)]
				if t == nil {
					return out, fmt.Errorf("pod %s: resourceclaimtemplate %s not found", key(pod.Namespace, pod.Name), *e.ResourceClaimTemplateName)
				}
				c = &resourceapi.ResourceClaim{
					ObjectMeta: metav1.ObjectMeta{Name: pod.Name + "-" + e.Name, Namespace: pod.Namespace},
					Spec:       *t.Spec.Spec.DeepCopy(),
				}
			}
		default:
			continue
		}
		k := key(c.Namespace, c.Name)
		if c.Status.Allocation != nil {
			return out, fmt.Errorf("pod %s: claim %s is already allocated (not supported)", key(pod.Namespace, pod.Name), k)
		}
		if by, ok := used[k]; ok {
			return out, fmt.Errorf("pod %s: claim %s is also used by pod %s (not supported)", key(pod.Namespace, pod.Name), k, by)
		}
		used[k] = key(pod.Namespace, pod.Name)
		out.entries = append(out.entries, e.Name)
		out.claims = append(out.claims, c)
	}
	return out, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("dra-replay", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var gateFlag gates.Flag
	fs.Var(&gateFlag, "feature-gates", "Kubernetes feature gates, A=true,B=false (repeatable)")
	sampleEvery := fs.Int("sample-every", 1, "time Allocate on every K-th node only (see the top of main.go)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "no input files")
	}
	if *sampleEvery < 1 {
		return usageError(stderr, "--sample-every must be >= 1")
	}
	kfs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(kfs)
	_ = kfs.Set("logtostderr", "false")
	_ = kfs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)

	fts, err := gateFlag.Apply()
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	objs, err := input.ReadFiles(fs.Args(), input.Options{Pods: true})
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	ctx := context.Background()
	classes, err := sched.NewClassLister(objs.Classes)
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	slices, err := sched.PatchedSlices(ctx, objs.Slices, objs.TaintRules, objs.Classes, fts, gates.TaintRules())
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	features := gates.AllocatorFeatures(fts)
	celCache := cel.NewCache(10, gates.CELFeatures(fts))
	state := sched.AllocatedState(objs.Claims, fts)
	nodes := append([]*corev1.Node(nil), objs.Nodes...)
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	claims := map[string]*resourceapi.ResourceClaim{}
	for _, c := range objs.Claims {
		claims[key(c.Namespace, c.Name)] = c
	}
	templates := map[string]*resourceapi.ResourceClaimTemplate{}
	for _, t := range objs.Templates {
		templates[key(t.Namespace, t.Name)] = t
	}
	pods := queue(objs.Pods)
	// Resolved before the clock starts: the scheduler has its claims in informers.
	resolved := make([]podClaims, len(pods))
	used := map[string]string{}
	for i, p := range pods {
		if resolved[i], err = resolve(p, claims, templates, used); err != nil {
			return usageError(stderr, "%v", err)
		}
	}

	out := output{Order: []string{}, Placed: []placedPod{}, Pending: []string{}}
	st := stats{SampleEvery: *sampleEvery, Pods: len(pods), Nodes: len(nodes)}
	timeout := fts.EnableDRASchedulerFilterTimeout && filterTimeout > 0
	start, cpu0 := time.Now(), processCPUNs()
	for i, pod := range pods {
		podKey := key(pod.Namespace, pod.Name)
		out.Order = append(out.Order, podKey)
		pc := resolved[i]
		if status := sched.PreFilterChecks(pc.claims, classes, fts); status != nil {
			out.Pending = append(out.Pending, podKey)
			continue
		}
		t0 := time.Now()
		allocator, err := structured.NewAllocator(ctx, features, state, classes, slices, celCache)
		st.NewAllocatorNs += time.Since(t0).Nanoseconds()
		if err != nil {
			st.Errors++
			out.Pending = append(out.Pending, podKey)
			continue
		}
		if st.Allocator == "" {
			st.Allocator = channel(allocator)
		}
		var chosen *corev1.Node
		var chosenResults []resourceapi.AllocationResult
		for j, node := range nodes {
			timed := j%*sampleEvery == 0
			if !timed && chosen != nil {
				continue
			}
			allocCtx, cancel := ctx, context.CancelFunc(func() {})
			if timeout {
				allocCtx, cancel = context.WithTimeout(ctx, filterTimeout)
			}
			t1 := time.Now()
			results, err := allocator.Allocate(allocCtx, node, pc.claims)
			if timed {
				st.AllocateNs += time.Since(t1).Nanoseconds()
				st.TimedAllocateCalls++
			}
			cancel()
			st.AllocateCalls++
			status := sched.FilterStatus(ctx, node.Name, len(pc.claims), results, err)
			if status != nil && status.Code == "error" {
				st.Errors++
			}
			if status == nil && chosen == nil {
				chosen, chosenResults = node, results
			}
		}
		if chosen == nil {
			out.Pending = append(out.Pending, podKey)
			continue
		}
		placed := placedPod{Pod: podKey, Node: chosen.Name, Claims: []placedClaim{}}
		for k, c := range pc.claims {
			pcl := placedClaim{Name: pc.entries[k], Claim: key(c.Namespace, c.Name), Results: []result{}}
			for _, r := range chosenResults[k].Devices.Results {
				pcl.Results = append(pcl.Results, result{r.Request, r.Driver, r.Pool, r.Device})
				// Commit, as the next PreFilter's allocated state would have it (foreachAllocatedDevice:
				// adminAccess results do not count; no shared devices in the benchmark's clusters).
				if r.AdminAccess == nil || !*r.AdminAccess {
					state.AllocatedDevices.Insert(structured.MakeDeviceID(r.Driver, r.Pool, r.Device))
				}
			}
			placed.Claims = append(placed.Claims, pcl)
		}
		out.Placed = append(out.Placed, placed)
	}
	st.ReplayNs, st.CPUNs = time.Since(start).Nanoseconds(), processCPUNs()-cpu0
	st.EstimatedNs = st.NewAllocatorNs + int64(*sampleEvery)*st.AllocateNs
	if *sampleEvery == 1 {
		st.EstimatedNs = st.ReplayNs
	}
	enc := json.NewEncoder(stderr)
	_ = enc.Encode(st)
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		return 2
	}
	return 0
}

// channel is the allocator implementation's name ("stable", "incubating", "experimental"); the type
// is internal to the module, so reflection is used.
func channel(a structured.Allocator) string {
	if m := reflect.ValueOf(a).MethodByName("Channel"); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 {
		return m.Call(nil)[0].String()
	}
	return ""
}
