// The ResourceSlice tracker of Kubernetes 1.37 (typed informers, v1 DeviceTaintRules).

//go:build !k8s134 && !k8s135 && !k8s136

package sched

import (
	"context"
	"errors"
	"fmt"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourceinformers "k8s.io/client-go/informers/resource/v1"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	schedfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"draforge.dev/oracle/internal/gates"
	"draforge.dev/oracle/internal/taintapi"
)

type sliceInformer struct{ inf cache.SharedIndexInformer }

func (s sliceInformer) Informer() cache.SharedIndexInformer { return s.inf }
func (s sliceInformer) TypedInformer() resourceinformers.ResourceSliceIndexInformer {
	return resourceinformers.ToResourceSliceIndexInformer(s.inf)
}
func (s sliceInformer) Lister() resourcelisters.ResourceSliceLister {
	return resourcelisters.NewResourceSliceLister(s.inf.GetIndexer())
}

// PatchedSlices returns the ResourceSlices as the scheduler's DRA manager
// lists them (ResourceSlices().ListWithDeviceTaintRules(), i.e.
// tracker.ListPatchedResourceSlices): with DRADeviceTaintRules on, the
// upstream tracker applies the taints of matching DeviceTaintRules to the
// devices; with it off, the slices are listed unmodified and rules are not
// even watched. The tracker options are those of pkg/scheduler/scheduler.go.
func PatchedSlices(ctx context.Context, slices []*resourceapi.ResourceSlice, rules []*taintapi.DeviceTaintRule, _ []*resourceapi.DeviceClass, fts schedfeature.Features, enableDeviceTaintRules bool) ([]*resourceapi.ResourceSlice, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	sliceList := &resourceapi.ResourceSliceList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for _, s := range slices {
		sliceList.Items = append(sliceList.Items, *s)
	}
	sliceInf := cache.NewSharedIndexInformer(&staticLW{list: sliceList}, &resourceapi.ResourceSlice{}, 0, cache.Indexers{})
	opts := tracker.Options{
		EnableDeviceTaintRules:   enableDeviceTaintRules,
		EnableConsumableCapacity: gates.ConsumableCapacity(fts),
		SliceInformer:            sliceInformer{sliceInf},
	}
	informers := []cache.SharedIndexInformer{sliceInf}
	if enableDeviceTaintRules {
		ruleList := &resourceapi.DeviceTaintRuleList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
		for _, r := range rules {
			ruleList.Items = append(ruleList.Items, *r)
		}
		ruleInf := cache.NewSharedIndexInformer(&staticLW{list: ruleList}, &resourceapi.DeviceTaintRule{}, 0, cache.Indexers{})
		opts.TaintInformer = taintapi.Informer{Inf: ruleInf}
		informers = append(informers, ruleInf)
	}
	t, err := tracker.StartTracker(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("start ResourceSlice tracker: %w", err)
	}
	defer t.Stop()
	for _, inf := range informers {
		go inf.Run(ctx.Done())
	}
	// The tracker is synced once its own event handlers on the informers
	// are synced (or, without DeviceTaintRules, once the slice informer is).
	// Waiting on the channel avoids WaitForCacheSync's 100ms polling.
	select {
	case <-t.HasSyncedChecker().Done():
	case <-time.After(time.Minute):
		return nil, errors.New("ResourceSlice tracker did not sync")
	}
	return t.ListPatchedResourceSlices()
}
