// Package input reads Kubernetes YAML/JSON files into resource.k8s.io/v1
// objects the way kube-apiserver would store and serve them.
//
// resource.k8s.io objects of any served version (v1, v1beta2, v1beta1,
// v1alpha3) are decoded with the API server's own scheme from
// k8s.io/kubernetes/pkg/apis/resource/install: the versioned object is
// defaulted (SetDefaults_*), converted to the internal type and then to v1,
// which is exactly the path an object takes when it is created through the
// API and read back as v1. core/v1 Nodes are decoded as plain JSON (only
// their name, labels and fields are used for node selectors). Every other
// kind is ignored.
package input

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	resourceinstall "k8s.io/kubernetes/pkg/apis/resource/install"
	"sigs.k8s.io/yaml"

	"draforge.dev/oracle/internal/taintapi"
)

// Objects holds everything found in the input files.
type Objects struct {
	Claims     []*resourceapi.ResourceClaim
	Slices     []*resourceapi.ResourceSlice
	Classes    []*resourceapi.DeviceClass
	TaintRules []*taintapi.DeviceTaintRule
	Nodes      []*corev1.Node
	// Pods and ResourceClaimTemplates: only with Options.Pods.
	Pods        []*corev1.Pod
	Templates   []*resourceapi.ResourceClaimTemplate
	IgnoredKind map[string]int // "apiVersion/kind" -> count

	seen          map[string]string // kind/ns/name -> source
	keepTemplates bool
}

// Options control decoding.
type Options struct {
	// Lenient accepts unknown and duplicate fields (kube-apiserver's
	// fieldValidation=Ignore). Default is strict, as kubectl does by default.
	Lenient bool
	// Pods keeps core/v1 Pods and ResourceClaimTemplates (dra-replay); without it they are ignored
	// kinds like any other.
	Pods bool
}

var (
	scheme        = runtime.NewScheme()
	strictCodecs  serializer.CodecFactory
	lenientCodecs serializer.CodecFactory
)

func init() {
	resourceinstall.Install(scheme)
	strictCodecs = serializer.NewCodecFactory(scheme, serializer.EnableStrict)
	lenientCodecs = serializer.NewCodecFactory(scheme)
}

// ReadFiles reads all files ("-" is stdin).
func ReadFiles(paths []string, opts Options) (*Objects, error) {
	objs := &Objects{IgnoredKind: map[string]int{}, seen: map[string]string{}, keepTemplates: opts.Pods}
	for _, path := range paths {
		var r io.Reader
		if path == "-" {
			r = os.Stdin
		} else {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			r = f
		}
		if err := objs.read(r, path, opts); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(objs.Claims, func(i, j int) bool {
		a, b := objs.Claims[i], objs.Claims[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return objs, nil
}

func (o *Objects) read(r io.Reader, path string, opts Options) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(r))
	for docIndex := 1; ; docIndex++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", path, docIndex, err)
		}
		src := fmt.Sprintf("%s: document %d", path, docIndex)
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var data []byte
		if opts.Lenient {
			data, err = yaml.YAMLToJSON(doc)
		} else {
			data, err = yaml.YAMLToJSONStrict(doc)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		if err := o.add(data, src, opts); err != nil {
			return err
		}
	}
}

func (o *Objects) add(data []byte, src string, opts Options) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	var tm metav1.TypeMeta
	if err := json.Unmarshal(data, &tm); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	gv, err := schema.ParseGroupVersion(tm.APIVersion)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	switch {
	case tm.Kind == "":
		return fmt.Errorf("%s: object has no kind", src)
	case gv.Group == "" && gv.Version == "v1" && tm.Kind == "List":
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(data, &list); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		for i, item := range list.Items {
			if err := o.add(item, fmt.Sprintf("%s, item %d", src, i), opts); err != nil {
				return err
			}
		}
		return nil
	case gv.Group == "" && gv.Version == "v1" && tm.Kind == "Node":
		var node corev1.Node
		if err := json.Unmarshal(data, &node); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		return o.addObject(&node, src)
	case gv.Group == "" && gv.Version == "v1" && tm.Kind == "Pod" && opts.Pods:
		var pod corev1.Pod
		if err := json.Unmarshal(data, &pod); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		if pod.Namespace == "" {
			pod.Namespace = metav1.NamespaceDefault
		}
		return o.addObject(&pod, src)
	case gv.Group == resourceapi.GroupName:
		return o.addResource(data, src, opts)
	default:
		o.IgnoredKind[tm.APIVersion+"/"+tm.Kind]++
		return nil
	}
}

// addResource decodes a resource.k8s.io object like kube-apiserver does
// (versioned -> defaulted -> internal) and converts it to v1.
func (o *Objects) addResource(data []byte, src string, opts Options) error {
	codecs := strictCodecs
	if opts.Lenient {
		codecs = lenientCodecs
	}
	internal, gvk, err := codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		if runtime.IsNotRegisteredError(err) && gvk != nil {
			o.IgnoredKind[gvk.GroupVersion().String()+"/"+gvk.Kind]++
			return nil
		}
		return fmt.Errorf("%s: %w", src, err)
	}
	target := resourceapi.SchemeGroupVersion
	if gvk != nil && (gvk.Kind == "DeviceTaintRule" || gvk.Kind == "DeviceTaintRuleList") {
		// The version the scheduler's tracker reads DeviceTaintRules in (v1 from 1.37).
		target = taintapi.SchemeGroupVersion
	}
	external, err := scheme.ConvertToVersion(internal, target)
	if err != nil {
		if runtime.IsNotRegisteredError(err) {
			// A kind that has no v1 version.
			o.IgnoredKind[gvk.GroupVersion().String()+"/"+gvk.Kind]++
			return nil
		}
		return fmt.Errorf("%s: convert to %s: %w", src, resourceapi.SchemeGroupVersion, err)
	}
	scheme.Default(external)
	switch obj := external.(type) {
	case *resourceapi.ResourceClaimList:
		for i := range obj.Items {
			if err := o.addObject(&obj.Items[i], fmt.Sprintf("%s, item %d", src, i)); err != nil {
				return err
			}
		}
	case *resourceapi.ResourceSliceList:
		for i := range obj.Items {
			if err := o.addObject(&obj.Items[i], fmt.Sprintf("%s, item %d", src, i)); err != nil {
				return err
			}
		}
	case *resourceapi.DeviceClassList:
		for i := range obj.Items {
			if err := o.addObject(&obj.Items[i], fmt.Sprintf("%s, item %d", src, i)); err != nil {
				return err
			}
		}
	case *taintapi.DeviceTaintRuleList:
		for i := range obj.Items {
			if err := o.addObject(&obj.Items[i], fmt.Sprintf("%s, item %d", src, i)); err != nil {
				return err
			}
		}
	default:
		return o.addObject(external, src)
	}
	return nil
}

func (o *Objects) addObject(obj runtime.Object, src string) error {
	var kind string
	var meta *metav1.ObjectMeta
	switch obj := obj.(type) {
	case *resourceapi.ResourceClaim:
		kind, meta = "ResourceClaim", &obj.ObjectMeta
		if meta.Namespace == "" {
			meta.Namespace = metav1.NamespaceDefault
		}
	case *resourceapi.ResourceSlice:
		kind, meta = "ResourceSlice", &obj.ObjectMeta
	case *resourceapi.DeviceClass:
		kind, meta = "DeviceClass", &obj.ObjectMeta
	case *taintapi.DeviceTaintRule:
		kind, meta = "DeviceTaintRule", &obj.ObjectMeta
	case *corev1.Node:
		kind, meta = "Node", &obj.ObjectMeta
	case *corev1.Pod:
		kind, meta = "Pod", &obj.ObjectMeta
	case *resourceapi.ResourceClaimTemplate:
		if !o.keepTemplates {
			o.ignore(obj)
			return nil
		}
		kind, meta = "ResourceClaimTemplate", &obj.ObjectMeta
		if meta.Namespace == "" {
			meta.Namespace = metav1.NamespaceDefault
		}
	default:
		o.ignore(obj)
		return nil
	}
	if kind != "ResourceClaim" && kind != "Pod" && kind != "ResourceClaimTemplate" {
		meta.Namespace = ""
	}
	if meta.Name == "" {
		return fmt.Errorf("%s: %s has no metadata.name", src, kind)
	}
	key := kind + "/" + meta.Namespace + "/" + meta.Name
	if prev, ok := o.seen[key]; ok {
		return fmt.Errorf("%s: duplicate %s %q (first defined in %s)", src, kind, qualified(meta), prev)
	}
	o.seen[key] = src
	switch obj := obj.(type) {
	case *resourceapi.ResourceClaim:
		o.Claims = append(o.Claims, obj)
	case *resourceapi.ResourceSlice:
		o.Slices = append(o.Slices, obj)
	case *resourceapi.DeviceClass:
		o.Classes = append(o.Classes, obj)
	case *taintapi.DeviceTaintRule:
		o.TaintRules = append(o.TaintRules, obj)
	case *corev1.Node:
		o.Nodes = append(o.Nodes, obj)
	case *corev1.Pod:
		o.Pods = append(o.Pods, obj)
	case *resourceapi.ResourceClaimTemplate:
		o.Templates = append(o.Templates, obj)
	}
	return nil
}

// ignore counts an object of a kind that is not used.
func (o *Objects) ignore(obj runtime.Object) {
	gvks, _, _ := scheme.ObjectKinds(obj)
	name := fmt.Sprintf("%T", obj)
	if len(gvks) > 0 {
		name = gvks[0].GroupVersion().String() + "/" + gvks[0].Kind
	}
	o.IgnoredKind[name]++
}

func qualified(meta *metav1.ObjectMeta) string {
	if meta.Namespace != "" {
		return meta.Namespace + "/" + meta.Name
	}
	return meta.Name
}
