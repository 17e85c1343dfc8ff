// Code that differs between Kubernetes versions: the scheduler's
// feature-gate mapping of Kubernetes 1.34 (k8s.io/kubernetes v1.34.4,
// pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go).
// Copied rather than imported because that package pulls in the whole
// scheduler framework.

//go:build k8s134

package gates

import (
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	schedfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// Version is the Kubernetes minor version this oracle was built for.
const Version = "1.34"

// AllocatorFeatures: 1.34 passes binding conditions and device status separately.
func AllocatorFeatures(fts schedfeature.Features) structured.Features {
	return structured.Features{
		AdminAccess:          fts.EnableDRAAdminAccess,
		PrioritizedList:      fts.EnableDRAPrioritizedList,
		PartitionableDevices: fts.EnablePartitionableDevices,
		DeviceTaints:         fts.EnableDRADeviceTaints,
		DeviceBinding:        fts.EnableDRADeviceBindingConditions,
		DeviceStatus:         fts.EnableDRAResourceClaimDeviceStatus,
		ConsumableCapacity:   fts.EnableConsumableCapacity,
	}
}

// CELFeatures mirrors how the DynamicResources plugin constructs its CEL cache.
func CELFeatures(fts schedfeature.Features) cel.Features {
	return cel.Features{EnableConsumableCapacity: fts.EnableConsumableCapacity}
}

// ConsumableCapacity is the scheduler's DRAConsumableCapacity.
func ConsumableCapacity(fts schedfeature.Features) bool { return fts.EnableConsumableCapacity }

// TaintRules: 1.34 has no DRADeviceTaintRules; DeviceTaintRules apply with DRADeviceTaints.
func TaintRules() bool { return Enabled("DRADeviceTaints") }
