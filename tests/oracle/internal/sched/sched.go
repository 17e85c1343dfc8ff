// Package sched reproduces the pieces of kube-scheduler 1.37's
// DynamicResources plugin (k8s.io/kubernetes v1.37.2,
// pkg/scheduler/framework/plugins/dynamicresources) that surround the call
// to the structured allocator: how the allocated state is gathered from
// ResourceClaims, how ResourceSlices with DeviceTaintRules applied are
// listed, how DeviceClasses are looked up, the PreFilter checks of requests
// and classes, and how Filter maps the allocator's outcome to a status.
//
// Small functions are copied (marked as such); the ResourceSlice tracker
// that applies DeviceTaintRules is the real upstream one
// (k8s.io/dynamic-resource-allocation/resourceslice/tracker), fed by
// informers over the static input.
package sched

import (
	"context"
	"errors"
	"fmt"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/watch"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	schedfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/utils/ptr"

	"draforge.dev/oracle/internal/gates"
)

// foreachAllocatedDevice is a copy of the function of the same name in
// dynamicresources/allocateddevices.go (v1.37.2).
func foreachAllocatedDevice(claim *resourceapi.ResourceClaim,
	dedicatedDeviceCallback func(deviceID structured.DeviceID),
	enabledConsumableCapacity bool,
	sharedDeviceCallback func(structured.SharedDeviceID),
	consumedCapacityCallback func(structured.DeviceConsumedCapacity)) {
	if claim.Status.Allocation == nil {
		return
	}
	for _, result := range claim.Status.Allocation.Devices.Results {
		if ptr.Deref(result.AdminAccess, false) {
			// Is not considered as allocated.
			continue
		}
		deviceID := structured.MakeDeviceID(result.Driver, result.Pool, result.Device)
		if enabledConsumableCapacity {
			shared := result.ShareID != nil
			if shared {
				sharedDeviceID := structured.MakeSharedDeviceID(deviceID, result.ShareID)
				sharedDeviceCallback(sharedDeviceID)
				if result.ConsumedCapacity != nil {
					deviceConsumedCapacity := structured.NewDeviceConsumedCapacity(deviceID, result.ConsumedCapacity)
					consumedCapacityCallback(deviceConsumedCapacity)
				}
				continue
			}
		}
		dedicatedDeviceCallback(deviceID)
	}
}

// AllocatedState builds the allocator's view of already allocated devices
// from all claims that have status.allocation, like the plugin's PreFilter
// does via GatherAllocatedState (DRAConsumableCapacity on) or
// ListAllAllocatedDevices (off). Results with adminAccess are skipped.
// With DRAConsumableCapacity off, shared results count as dedicated.
func AllocatedState(claims []*resourceapi.ResourceClaim, fts schedfeature.Features) structured.AllocatedState {
	enabledCC := gates.ConsumableCapacity(fts)
	state := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	for _, claim := range claims {
		foreachAllocatedDevice(claim,
			func(id structured.DeviceID) { state.AllocatedDevices.Insert(id) },
			enabledCC,
			func(id structured.SharedDeviceID) { state.AllocatedSharedDeviceIDs.Insert(id) },
			func(c structured.DeviceConsumedCapacity) { state.AggregatedCapacity.Insert(c) },
		)
	}
	return state
}

// staticLW serves a fixed list and a watch that never delivers events.
type staticLW struct {
	list runtime.Object
}

func (s *staticLW) List(metav1.ListOptions) (runtime.Object, error) {
	return s.list.DeepCopyObject(), nil
}

func (s *staticLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	return watch.NewFake(), nil
}

// IsWatchListSemanticsUnSupported makes the reflector use plain list+watch.
func (s *staticLW) IsWatchListSemanticsUnSupported() bool { return true }

// ClassLister mirrors the DRA manager's deviceClassLister (an informer
// lister), including its NotFound errors.
type ClassLister struct {
	lister resourcelisters.DeviceClassLister
}

func NewClassLister(classes []*resourceapi.DeviceClass) (*ClassLister, error) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, c := range classes {
		if err := indexer.Add(c); err != nil {
			return nil, err
		}
	}
	return &ClassLister{lister: resourcelisters.NewDeviceClassLister(indexer)}, nil
}

func (l *ClassLister) Get(name string) (*resourceapi.DeviceClass, error) {
	return l.lister.Get(name)
}

func (l *ClassLister) List() ([]*resourceapi.DeviceClass, error) {
	return l.lister.List(labels.Everything())
}

// Status is a simplified framework status: Code is "unschedulable" or
// "error".
type Status struct {
	Code   string
	Reason string
}

func unschedulable(reason string) *Status { return &Status{Code: "unschedulable", Reason: reason} }
func statusError(err error) *Status       { return &Status{Code: "error", Reason: err.Error()} }

// PreFilterChecks repeats the request/class checks that PreFilter makes for
// every claim which still needs to be allocated (dynamicresources.go,
// PreFilter and validateDeviceClass, v1.37.2). They run before the allocator
// is created.
func PreFilterChecks(claims []*resourceapi.ResourceClaim, classes *ClassLister, fts schedfeature.Features) *Status {
	for _, claim := range claims {
		for _, request := range claim.Spec.Devices.Requests {
			switch {
			case request.Exactly != nil:
				if status := validateDeviceClass(classes, request.Exactly.DeviceClassName, request.Name); status != nil {
					return status
				}
			case len(request.FirstAvailable) > 0:
				if !fts.EnableDRAPrioritizedList {
					return unschedulable(fmt.Sprintf("resource claim %s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled", klog.KObj(claim), request.Name))
				}
				for _, subRequest := range request.FirstAvailable {
					qualRequestName := strings.Join([]string{request.Name, subRequest.Name}, "/")
					if status := validateDeviceClass(classes, subRequest.DeviceClassName, qualRequestName); status != nil {
						return status
					}
				}
			default:
				return unschedulable(fmt.Sprintf("resource claim %s, request %s: unknown request type", klog.KObj(claim), request.Name))
			}
		}
	}
	return nil
}

func validateDeviceClass(classes *ClassLister, deviceClassName, requestName string) *Status {
	if deviceClassName == "" {
		return statusError(fmt.Errorf("request %s: unsupported request type", requestName))
	}
	_, err := classes.Get(deviceClassName)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return unschedulable(fmt.Sprintf("request %s: device class %s does not exist", requestName, deviceClassName))
		}
	}
	return nil
}

// FilterStatus maps the allocator's result like Filter does
// (dynamicresources.go, v1.37.2). nil means success.
func FilterStatus(ctx context.Context, nodeName string, numClaims int, results []resourceapi.AllocationResult, err error) *Status {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return statusError(fmt.Errorf("node %s: timed out trying to allocate devices", nodeName))
	case errFailedAllocationOnNode != nil && errors.Is(err, errFailedAllocationOnNode):
		return unschedulable(err.Error())
	case ctx.Err() != nil:
		return unschedulable(fmt.Sprintf("asked by caller to stop allocating devices: %v", context.Cause(ctx)))
	case err != nil:
		return statusError(err)
	}
	if len(results) != numClaims {
		return unschedulable("cannot allocate all claims")
	}
	return nil
}
