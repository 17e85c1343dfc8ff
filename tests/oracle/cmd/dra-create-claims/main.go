// Command dra-create-claims creates N ResourceClaims (resource.k8s.io/v1) with
// client-go, concurrently, for the listing benchmark (bench/scale/list_claims.py).
// Each claim has one device request with a deviceClassName and a CEL selector;
// the claims are spread over --namespaces namespaces (created if missing). It
// is idempotent: claims that already exist (listed first, or AlreadyExists) are counted, not errors. Prints one
// JSON line: {"created","existed","namespaces","wall_s"}. See ../../README.md.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/pager"
)

const (
	exitUsage   = 2
	deviceClass = "gpu.bench.draforge.dev"
	label       = "bench.draforge.dev/list" // on every claim made here: what the listing smoke check selects
	selector    = `device.driver == "gpu.bench.draforge.dev" && device.attributes["gpu.bench.draforge.dev"].model == "a100" && device.capacity["gpu.bench.draforge.dev"].memory.compareTo(quantity("40Gi")) >= 0`
)

func main() {
	kubeconfig := pflag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file")
	count := pflag.Int("count", 100000, "number of ResourceClaims")
	namespaces := pflag.Int("namespaces", 20, "spread over this many namespaces (bench-0 ... bench-N-1)")
	workers := pflag.Int("workers", 32, "concurrent creators")
	qps := pflag.Float32("qps", 2000, "client-side rate limit (requests per second)")
	pflag.Parse()
	if *kubeconfig == "" || *count < 0 || *namespaces < 1 || *workers < 1 {
		fmt.Fprintln(os.Stderr, "usage: dra-create-claims --kubeconfig FILE [--count N] [--namespaces N] [--workers N] [--qps Q]")
		os.Exit(exitUsage)
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dra-create-claims:", err)
		os.Exit(exitUsage)
	}
	config.QPS = *qps
	config.Burst = int(*qps) * 2
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dra-create-claims:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	start := time.Now()

	// The class the claims name, so the objects are what a real cluster holds.
	class := &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: deviceClass},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{
			CEL: &resourceapi.CELDeviceSelector{Expression: `device.driver == "gpu.bench.draforge.dev"`},
		}}},
	}
	if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		fail(err)
	}
	for i := 0; i < *namespaces; i++ {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i)}}
		if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			fail(err)
		}
	}

	// Claims made by an earlier run are skipped without a request each: one list is far cheaper
	// than 100,000 AlreadyExists answers.
	have := map[string]bool{}
	p := pager.New(pager.SimplePageFunc(func(opts metav1.ListOptions) (runtime.Object, error) {
		return cs.ResourceV1().ResourceClaims("").List(ctx, opts)
	}))
	if err := p.EachListItem(ctx, metav1.ListOptions{LabelSelector: label + "=true"}, func(obj runtime.Object) error {
		c := obj.(*resourceapi.ResourceClaim)
		have[c.Namespace+"/"+c.Name] = true
		return nil
	}); err != nil {
		fail(err)
	}

	var next, created, existed atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= *count {
					return
				}
				ns := fmt.Sprintf("bench-%d", i%*namespaces)
				if have[fmt.Sprintf("%s/claim-%06d", ns, i)] {
					existed.Add(1)
					continue
				}
				_, err := cs.ResourceV1().ResourceClaims(ns).Create(ctx, claim(i), metav1.CreateOptions{})
				switch {
				case err == nil:
					created.Add(1)
				case apierrors.IsAlreadyExists(err):
					existed.Add(1)
				default:
					errOnce.Do(func() { firstErr = fmt.Errorf("claim %s/claim-%06d: %w", ns, i, err) })
					next.Store(int64(*count)) // stop every worker
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		fail(firstErr)
	}
	out, _ := json.Marshal(map[string]any{
		"created":    created.Load(),
		"existed":    existed.Load(),
		"namespaces": *namespaces,
		"wall_s":     time.Since(start).Seconds(),
	})
	fmt.Println(string(out))
}

// claim is the i-th claim: one GPU request of the bench class with a model and memory selector,
// labelled like a workload's claim.
func claim(i int) *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:   fmt.Sprintf("claim-%06d", i),
			Labels: map[string]string{"app.kubernetes.io/name": fmt.Sprintf("trainer-%d", i%1000), label: "true"},
		},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{
				Name: "gpu",
				Exactly: &resourceapi.ExactDeviceRequest{
					DeviceClassName: deviceClass,
					Selectors:       []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: selector}}},
					AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
					Count:           1,
				},
			}},
		}},
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "dra-create-claims:", err)
	os.Exit(1)
}
