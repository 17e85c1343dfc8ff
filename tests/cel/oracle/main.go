// Differential oracle: reads CEL selector expressions (one per line) and prints what
// k8s.io/dynamic-resource-allocation/cel (cel-go) says: outcome, estimated cost, runtime cost, value or
// error, for a fixed device. Used to record tests/cel/cel_conformance_test.cc (see make_table.py).
// Run: cd tests/cel/oracle && go build -o /tmp/oracle . && /tmp/oracle < exprs.txt
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

func main() {
	comp := dracel.GetCompiler(dracel.Features{EnableConsumableCapacity: true, EnableListTypeAttributes: true})
	attrs := map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
		"name":                     {BoolValue: ptr.To(true)},
		"model":                    {StringValue: ptr.To("a100")},
		"memory":                   {IntValue: ptr.To(int64(40))},
		"version":                  {VersionValue: ptr.To("1.2.3")},
		"ints": {IntValues: []int64{3, 1, 2}},
		"strs": {StringValues: []string{"a", "b"}},
		"other.example.com/name":   {StringValue: ptr.To("other")},
	}
	capacity := map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
		"memory": {Value: resource.MustParse("1Gi")},
		"cores":  {Value: resource.MustParse("8")},
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		expr := sc.Text()
		if strings.TrimSpace(expr) == "" {
			continue
		}
		r := comp.CompileCELExpression(expr, dracel.Options{})
		if r.Error != nil {
			fmt.Printf("COMPILE_ERROR\t%q\t%q\n", expr, r.Error.Error())
			continue
		}
		m, details, err := r.DeviceMatches(context.Background(), dracel.Device{Driver: "dra.example.com", Attributes: attrs, Capacity: capacity, AllowMultipleAllocations: ptr.To(false)})
		cost := int64(0)
		if details != nil {
			if p := details.ActualCost(); p != nil { cost = int64(*p) }
		}
		if err != nil {
			fmt.Printf("RUNTIME_ERROR\t%q\test=%d\tcost=%d\t%q\n", expr, r.MaxCost, cost, err.Error())
			continue
		}
		fmt.Printf("OK\t%q\test=%d\tcost=%d\t%v\n", expr, r.MaxCost, cost, m)
	}
}
