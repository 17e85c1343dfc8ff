//go:build k8s134

package sched

import "k8s.io/dynamic-resource-allocation/resourceslice/tracker"

// setTaintRules: 1.34's tracker applies DeviceTaintRules with DRADeviceTaints.
func setTaintRules(opts *tracker.Options, on bool) { opts.EnableDeviceTaints = on }
