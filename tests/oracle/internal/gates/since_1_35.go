// What 1.35 to 1.37 share: the scheduler's feature field for consumable
// capacity and the DRADeviceTaintRules gate (1.34: version_1_34.go).

//go:build !k8s134

package gates

import schedfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"

// ConsumableCapacity is the scheduler's DRAConsumableCapacity.
func ConsumableCapacity(fts schedfeature.Features) bool { return fts.EnableDRAConsumableCapacity }

// TaintRules is kube-scheduler's EnableDeviceTaintRules (the DRADeviceTaintRules gate).
func TaintRules() bool { return Enabled("DRADeviceTaintRules") }
