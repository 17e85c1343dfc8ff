// Code that differs between Kubernetes versions: the scheduler's
// feature-gate mapping of Kubernetes 1.37 (k8s.io/kubernetes v1.37.2,
// pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go).
// Copied rather than imported because that package pulls in the whole
// scheduler framework.

//go:build !k8s134 && !k8s135 && !k8s136

package gates

import (
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	schedfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// Version is the Kubernetes minor version this oracle was built for.
const Version = "1.37"

// AllocatorFeatures of the 1.37 DynamicResources plugin.
func AllocatorFeatures(fts schedfeature.Features) structured.Features {
	return structured.Features{
		AdminAccess:             fts.EnableDRAAdminAccess,
		PrioritizedList:         fts.EnableDRAPrioritizedList,
		PartitionableDevices:    fts.EnableDRAPartitionableDevices,
		DeviceTaints:            fts.EnableDRADeviceTaints,
		DeviceBindingAndStatus:  fts.EnableDRADeviceBindingConditions && fts.EnableDRAResourceClaimDeviceStatus,
		ConsumableCapacity:      fts.EnableDRAConsumableCapacity,
		FractionalCapacityRange: fts.EnableDRAFractionalCapacityRange,
		ListTypeAttributes:      fts.EnableDRAListTypeAttributes,
		OptionalNodeOperations:  fts.EnableDRAOptionalNodeOperations,
		DerivedAttributes:       fts.EnableDRADerivedAttributes,
		CompatibilityGroups:     fts.EnableDRADeviceCompatibilityGroups,
	}
}

// CELFeatures mirrors how the DynamicResources plugin constructs its CEL cache (New).
func CELFeatures(fts schedfeature.Features) cel.Features {
	return cel.Features{
		EnableConsumableCapacity: fts.EnableDRAConsumableCapacity,
		EnableListTypeAttributes: fts.EnableDRAListTypeAttributes,
	}
}
