//go:build k8s135 || k8s136

package sched

import "k8s.io/dynamic-resource-allocation/resourceslice/tracker"

// setTaintRules sets the tracker's EnableDeviceTaintRules.
func setTaintRules(opts *tracker.Options, on bool) { opts.EnableDeviceTaintRules = on }
