// The ResourceSlice tracker of Kubernetes 1.34 to 1.36 (untyped informers;
// DeviceTaintRules in v1alpha3 or v1beta2; a DeviceClass informer for the
// rules' class selectors).

//go:build k8s134 || k8s135 || k8s136

package sched

import (
	"context"
	"errors"
	"fmt"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	schedfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

	"draforge.dev/oracle/internal/gates"
	"draforge.dev/oracle/internal/taintapi"
)

type sliceInformer struct{ inf cache.SharedIndexInformer }

func (s sliceInformer) Informer() cache.SharedIndexInformer { return s.inf }
func (s sliceInformer) Lister() resourcelisters.ResourceSliceLister {
	return resourcelisters.NewResourceSliceLister(s.inf.GetIndexer())
}

type classInformer struct{ inf cache.SharedIndexInformer }

func (s classInformer) Informer() cache.SharedIndexInformer { return s.inf }
func (s classInformer) Lister() resourcelisters.DeviceClassLister {
	return resourcelisters.NewDeviceClassLister(s.inf.GetIndexer())
}

// PatchedSlices returns the ResourceSlices as the scheduler's DRA manager
// lists them (tracker.ListPatchedResourceSlices): with DeviceTaintRules
// enabled (DRADeviceTaints in 1.34, DRADeviceTaintRules later), the
// upstream tracker applies the taints of matching DeviceTaintRules.
func PatchedSlices(ctx context.Context, slices []*resourceapi.ResourceSlice, rules []*taintapi.DeviceTaintRule, classes []*resourceapi.DeviceClass, fts schedfeature.Features, enableDeviceTaintRules bool) ([]*resourceapi.ResourceSlice, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	sliceList := &resourceapi.ResourceSliceList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for _, s := range slices {
		sliceList.Items = append(sliceList.Items, *s)
	}
	sliceInf := cache.NewSharedIndexInformer(&staticLW{list: sliceList}, &resourceapi.ResourceSlice{}, 0, cache.Indexers{})
	opts := tracker.Options{
		EnableConsumableCapacity: gates.ConsumableCapacity(fts),
		SliceInformer:            sliceInformer{sliceInf},
	}
	setTaintRules(&opts, enableDeviceTaintRules)
	informers := []cache.SharedIndexInformer{sliceInf}
	if enableDeviceTaintRules {
		ruleList := &taintapi.DeviceTaintRuleList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
		for _, r := range rules {
			ruleList.Items = append(ruleList.Items, *r)
		}
		ruleInf := cache.NewSharedIndexInformer(&staticLW{list: ruleList}, &taintapi.DeviceTaintRule{}, 0, cache.Indexers{})
		opts.TaintInformer = taintapi.Informer{Inf: ruleInf}
		classList := &resourceapi.DeviceClassList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
		for _, c := range classes {
			classList.Items = append(classList.Items, *c)
		}
		classInf := cache.NewSharedIndexInformer(&staticLW{list: classList}, &resourceapi.DeviceClass{}, 0, cache.Indexers{})
		opts.ClassInformer = classInformer{classInf}
		informers = append(informers, ruleInf, classInf)
	}
	t, err := tracker.StartTracker(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("start ResourceSlice tracker: %w", err)
	}
	defer t.Stop()
	for _, inf := range informers {
		go inf.Run(ctx.Done())
	}
	// These trackers have no HasSyncedChecker, and WaitForCacheSync polls every 100ms, which was
	// most of an older version's parity run (the informers here sync within a millisecond or so).
	deadline := time.Now().Add(time.Minute)
	for !t.HasSynced() {
		if time.Now().After(deadline) {
			return nil, errors.New("ResourceSlice tracker did not sync")
		}
		time.Sleep(200 * time.Microsecond)
	}
	return t.ListPatchedResourceSlices()
}
