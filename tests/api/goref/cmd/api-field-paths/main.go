// Command api-field-paths prints every JSON field path of the resource.k8s.io kinds DRAForge models,
// in every version Kubernetes 1.37 serves, found by reflection over k8s.io/api's Go types:
//
//	<version> <Kind> <path>
//
// A path joins JSON field names with "."; "[]" marks the items of a list and "[*]" the values of a
// map ("spec.devices[].capacity[*].value"). A type with its own JSON encoding (Quantity, Time,
// RawExtension, FieldsV1) is a leaf. apiVersion and kind are left out (the codec, not the field
// tables, handles them). tests/api/codec_test.cc compares this list
// (tests/api/testdata/field-paths.txt) with the paths of DRAForge's field tables.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
)

var marshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

func isLeaf(t reflect.Type) bool {
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Map, reflect.Pointer:
		return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 // []byte is base64 text
	}
	return true
}

func walk(t reflect.Type, prefix string, depth int, out map[string]bool) {
	if depth > 40 {
		panic("type recursion at " + prefix)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if isLeaf(t) {
		out[prefix] = true
		return
	}
	switch t.Kind() {
	case reflect.Slice:
		walk(t.Elem(), prefix+"[]", depth+1, out)
		return
	case reflect.Map:
		walk(t.Elem(), prefix+"[*]", depth+1, out)
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && (name == "" || strings.Contains(","+opts+",", ",inline,")) {
			if f.Type.Name() == "TypeMeta" {
				continue
			}
			walk(f.Type, prefix, depth+1, out)
			continue
		}
		if name == "" {
			name = f.Name
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		walk(f.Type, path, depth+1, out)
	}
}

func main() {
	kinds := []struct {
		version string
		object  any
	}{
		{"v1", resourcev1.DeviceClass{}},
		{"v1", resourcev1.ResourceClaim{}},
		{"v1", resourcev1.ResourceClaimTemplate{}},
		{"v1", resourcev1.ResourceSlice{}},
		{"v1", resourcev1.DeviceTaintRule{}},
		{"v1beta2", resourcev1beta2.DeviceClass{}},
		{"v1beta2", resourcev1beta2.ResourceClaim{}},
		{"v1beta2", resourcev1beta2.ResourceClaimTemplate{}},
		{"v1beta2", resourcev1beta2.ResourceSlice{}},
		{"v1beta2", resourcev1beta2.DeviceTaintRule{}},
		{"v1beta1", resourcev1beta1.DeviceClass{}},
		{"v1beta1", resourcev1beta1.ResourceClaim{}},
		{"v1beta1", resourcev1beta1.ResourceClaimTemplate{}},
		{"v1beta1", resourcev1beta1.ResourceSlice{}},
		{"v1alpha3", resourcev1alpha3.DeviceTaintRule{}},
		{"v1alpha3", resourcev1alpha3.ResourcePoolStatusRequest{}},
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, k := range kinds {
		t := reflect.TypeOf(k.object)
		paths := map[string]bool{}
		walk(t, "", 0, paths)
		sorted := make([]string, 0, len(paths))
		for p := range paths {
			sorted = append(sorted, p)
		}
		sort.Strings(sorted)
		for _, p := range sorted {
			fmt.Fprintf(w, "%s %s %s\n", k.version, t.Name(), p)
		}
	}
}
