// Package gates turns a --feature-gates string into the feature values the
// Kubernetes scheduler derives from its own feature gates. What differs
// between Kubernetes versions (the scheduler's feature struct, the
// allocator's and CEL's) is in version_1_3x.go, one file per version chosen
// by build tag (k8s134, k8s135, k8s136; none: 1.37), each built against its
// own go.mod (versions/1.3x/go.mod, tests/oracle/build).
//
// The gate table, the defaults at the 1.37 emulation version (minimum
// compatibility version 1.36), the lock-to-default rules and the gate
// dependencies all come from k8s.io/kubernetes/pkg/features at v1.37.2,
// registered into the same global gate instance kube-scheduler uses
// (k8s.io/apiserver/pkg/util/feature.DefaultMutableFeatureGate). An unknown
// gate, an attempt to change a locked gate or a violated dependency is an
// error, exactly as for kube-scheduler's --feature-gates flag.
package gates

import (
	"fmt"
	"strings"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	_ "k8s.io/kubernetes/pkg/features" // registers all Kubernetes feature gates
	schedfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// Flag collects one or more --feature-gates values (comma-separated
// key=value lists). Later settings override earlier ones.
type Flag struct {
	parts []string
}

func (f *Flag) String() string { return strings.Join(f.parts, ",") }

func (f *Flag) Type() string { return "mapStringBool" }

func (f *Flag) Set(v string) error {
	f.parts = append(f.parts, v)
	return nil
}

// Apply sets the collected gates on the global feature gate and returns
// the scheduler's view of them.
func (f *Flag) Apply() (schedfeature.Features, error) {
	if s := f.String(); s != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(s); err != nil {
			return schedfeature.Features{}, fmt.Errorf("--feature-gates: %w", err)
		}
	}
	return schedfeature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate), nil
}

// DRAGates lists the effective values of all gates whose name starts with
// "DRA" or equals "DynamicResourceAllocation", for --stats output.
func DRAGates() map[string]bool {
	out := map[string]bool{}
	for name := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		n := string(name)
		if strings.HasPrefix(n, "DRA") || n == "DynamicResourceAllocation" {
			out[n] = utilfeature.DefaultFeatureGate.Enabled(name)
		}
	}
	return out
}

// Enabled reports the effective value of a gate after Apply.
func Enabled(name string) bool {
	return utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(name))
}
