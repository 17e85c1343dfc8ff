package main

import (
	"fmt"
	"sort"
	"strings"

	oci "github.com/opencontainers/runtime-spec/specs-go"
	"tags.cncf.io/container-device-interface/pkg/cdi"
)

// injectLikeARuntime resolves CDI device IDs the way containerd and CRI-O do
// (a cdi.Cache over the spec directory, InjectDevices into the container's
// OCI spec) and reports what the container would get.
//
// The CDI library gives no warning when two edits set the same environment
// variable, mount point or device node: its spec editor silently keeps the
// last one (internal/ociedit addEnv, RemoveMount/RemoveDevice before Add). So
// "overwrites" is computed here: each edit source in injection order (a
// spec's common edits once, then each device's) is applied alone to an empty
// OCI spec, and a key set by two sources to different values is an overwrite
// (a runtime would lose one device's value).
func injectLikeARuntime(cdiDir string, ids []string) map[string]any {
	result := map[string]any{}
	cache, err := cdi.NewCache(cdi.WithSpecDirs(cdiDir), cdi.WithAutoRefresh(false))
	if err != nil {
		// NewCache reports the spec files it could not use; the cache is still usable.
		result["cacheError"] = err.Error()
	}
	if cache == nil {
		return result
	}
	specErrors := map[string][]string{}
	for path, errs := range cache.GetErrors() {
		for _, e := range errs {
			specErrors[path] = append(specErrors[path], e.Error())
		}
	}
	result["specErrors"] = specErrors

	spec := &oci.Spec{Process: &oci.Process{Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin"}}, Linux: &oci.Linux{}}
	unresolved, err := cache.InjectDevices(spec, ids...)
	if unresolved == nil {
		unresolved = []string{}
	}
	result["unresolved"] = unresolved
	if err != nil {
		result["injectError"] = err.Error()
	}
	result["env"] = spec.Process.Env
	mounts := []map[string]string{}
	for _, m := range spec.Mounts {
		mounts = append(mounts, map[string]string{"containerPath": m.Destination, "hostPath": m.Source})
	}
	result["mounts"] = mounts
	nodes := []string{}
	for _, d := range spec.Linux.Devices {
		nodes = append(nodes, d.Path)
	}
	result["deviceNodes"] = nodes
	files := map[string]string{}
	for _, id := range ids {
		if d := cache.GetDevice(id); d != nil {
			files[id] = d.GetSpec().GetPath()
		}
	}
	result["specFiles"] = files
	result["overwrites"] = overwrites(cache, ids)
	return result
}

// assignment: one source setting one key (env name, mount point, device path).
type assignment struct{ source, value string }

func overwrites(cache *cdi.Cache, ids []string) []map[string]any {
	seen := map[string][]assignment{} // "env:NAME" -> who set it, in order
	var order []string
	record := func(source string, apply func(*oci.Spec) error) {
		alone := &oci.Spec{Process: &oci.Process{}, Linux: &oci.Linux{}}
		if err := apply(alone); err != nil {
			return // InjectDevices reported it already
		}
		for _, env := range alone.Process.Env {
			name, value, _ := strings.Cut(env, "=")
			key := "env:" + name
			if _, ok := seen[key]; !ok {
				order = append(order, key)
			}
			seen[key] = append(seen[key], assignment{source, value})
		}
		for _, m := range alone.Mounts {
			key := "mount:" + m.Destination
			if _, ok := seen[key]; !ok {
				order = append(order, key)
			}
			seen[key] = append(seen[key], assignment{source, m.Source})
		}
		for _, d := range alone.Linux.Devices {
			key := "deviceNode:" + d.Path
			if _, ok := seen[key]; !ok {
				order = append(order, key)
			}
			seen[key] = append(seen[key], assignment{source, fmt.Sprintf("%s %d:%d", d.Type, d.Major, d.Minor)})
		}
	}
	specsDone := map[*cdi.Spec]bool{}
	for _, id := range ids {
		d := cache.GetDevice(id)
		if d == nil {
			continue
		}
		if s := d.GetSpec(); !specsDone[s] {
			specsDone[s] = true
			record(s.GetPath(), s.ApplyEdits)
		}
		record(id, d.ApplyEdits)
	}
	out := []map[string]any{}
	for _, key := range order {
		values := map[string]bool{}
		for _, a := range seen[key] {
			values[a.value] = true
		}
		if len(values) < 2 {
			continue
		}
		sources, vals := []string{}, []string{}
		for _, a := range seen[key] {
			sources = append(sources, a.source)
			vals = append(vals, a.value)
		}
		kind, name, _ := strings.Cut(key, ":")
		out = append(out, map[string]any{"kind": kind, "name": name, "sources": sources, "values": vals,
			"kept": vals[len(vals)-1]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i]["name"].(string) < out[j]["name"].(string) })
	return out
}
