// Package taintapi names the DeviceTaintRule API the scheduler's
// ResourceSlice tracker reads in each Kubernetes version: v1alpha3 in 1.34
// and 1.35, v1beta2 in 1.36, v1 in 1.37 (one file per version, by build tag).

//go:build k8s136

package taintapi

import (
	api "k8s.io/api/resource/v1beta2"
	listers "k8s.io/client-go/listers/resource/v1beta2"
	"k8s.io/client-go/tools/cache"
)

// DeviceTaintRule is the version's DeviceTaintRule type.
type DeviceTaintRule = api.DeviceTaintRule

// DeviceTaintRuleList is its list type.
type DeviceTaintRuleList = api.DeviceTaintRuleList

// SchemeGroupVersion is the API version the tracker reads it in.
var SchemeGroupVersion = api.SchemeGroupVersion

// Informer adapts a shared informer over DeviceTaintRules to the
// version's typed informer interface.
type Informer struct{ Inf cache.SharedIndexInformer }

func (s Informer) Informer() cache.SharedIndexInformer { return s.Inf }
func (s Informer) Lister() listers.DeviceTaintRuleLister {
	return listers.NewDeviceTaintRuleLister(s.Inf.GetIndexer())
}
