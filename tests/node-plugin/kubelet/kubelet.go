package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	pluginwatcherapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/dra"
	draplugin "k8s.io/kubernetes/pkg/kubelet/cm/dra/plugin"
	"k8s.io/kubernetes/pkg/kubelet/config"
	"k8s.io/kubernetes/pkg/kubelet/pluginmanager"
)

type harnessOptions struct {
	kubeconfig      string
	nodeName        string
	registrationDir string
	stateDir        string
	cdiDir          string
	verbosity       string
}

// harness is one kubelet's DRA side: the DRA manager with its registration
// handler added to a plugin manager that watches the registration directory,
// wired as kubelet.go and cm/container_manager_linux.go wire them.
type harness struct {
	opts      harnessOptions
	client    kubernetes.Interface
	manager   *dra.Manager
	plugins   *draplugin.DRAPluginManager
	stopWatch chan struct{}

	mu sync.Mutex
	// Pods as they were when prepared, by "namespace/name": kubelet unprepares
	// a pod it still holds even when the API server has deleted it.
	pods map[string]*v1.Pod
}

func startHarness(ctx context.Context, opts harnessOptions) (*harness, error) {
	restConfig, err := clientcmd.BuildConfigFromFlags("", opts.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", opts.kubeconfig, err)
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", opts.kubeconfig, err)
	}
	h := &harness{opts: opts, client: client, stopWatch: make(chan struct{}), pods: map[string]*v1.Pod{}}

	h.manager, err = dra.NewManager(klog.FromContext(ctx), client, opts.stateDir)
	if err != nil {
		return nil, fmt.Errorf("DRA manager with state in %s: %w", opts.stateDir, err)
	}
	getNode := func(ctx context.Context) (*v1.Node, error) {
		return client.CoreV1().Nodes().Get(ctx, opts.nodeName, metav1.GetOptions{})
	}
	// Sources never ready: kubelet's reconcile loop then never unprepares a pod
	// on its own, so every unprepare the runner sees is one it asked for.
	neverReady := config.NewSourcesReady(func(sets.Set[string]) bool { return false })
	if err := h.manager.Start(ctx, h.activePods, getNode, neverReady); err != nil {
		return nil, fmt.Errorf("starting the DRA manager: %w", err)
	}
	handler := h.manager.GetWatcherHandler()
	plugins, ok := handler.(*draplugin.DRAPluginManager)
	if !ok {
		return nil, fmt.Errorf("kubelet's DRA registration handler is a %T, not a *plugin.DRAPluginManager", handler)
	}
	h.plugins = plugins

	pm := pluginmanager.NewPluginManager(opts.registrationDir, &record.FakeRecorder{})
	pm.AddHandler(pluginwatcherapi.DRAPlugin, handler)
	go pm.Run(ctx, neverReady, h.stopWatch)
	return h, nil
}

func (h *harness) stop() {
	close(h.stopWatch)
	h.manager.Stop()
}

// activePods is what kubelet would list as running on the node: the pods
// prepared and not yet unprepared.
func (h *harness) activePods() []*v1.Pod {
	h.mu.Lock()
	defer h.mu.Unlock()
	pods := make([]*v1.Pod, 0, len(h.pods))
	for _, p := range h.pods {
		pods = append(pods, p)
	}
	return pods
}

func (h *harness) run(ctx context.Context, words []string) map[string]any {
	answer := map[string]any{"cmd": strings.Join(words, " ")}
	var err error
	switch {
	case words[0] == "wait-registered" && len(words) == 3:
		err = h.waitRegistered(ctx, words[1], words[2], answer)
	case words[0] == "prepare" && len(words) == 2:
		err = h.prepare(ctx, words[1], answer)
	case words[0] == "unprepare" && len(words) == 2:
		err = h.unprepare(ctx, words[1])
	case words[0] == "inject" && len(words) >= 3:
		// The runtime's half alone, on any directory: lets the runner prove
		// that the overwrite detection finds a known collision.
		for k, v := range injectLikeARuntime(words[1], words[2:]) {
			answer[k] = v
		}
	default:
		err = fmt.Errorf("unknown command %q (wait-registered DRIVER SECONDS | prepare NS/POD | unprepare NS/POD | inject CDI_DIR CDI_ID... | quit)", strings.Join(words, " "))
	}
	answer["ok"] = err == nil
	if err != nil {
		answer["error"] = err.Error()
	}
	return answer
}

// waitRegistered polls kubelet's own view: GetPlugin succeeds once the plugin
// manager has called GetInfo on the registration socket, validated the
// versions and handed the endpoint to the DRA manager.
func (h *harness) waitRegistered(ctx context.Context, driver, seconds string, answer map[string]any) error {
	limit, err := strconv.ParseFloat(seconds, 64)
	if err != nil {
		return fmt.Errorf("wait-registered %s: seconds %q: %w", driver, seconds, err)
	}
	deadline := time.Now().Add(time.Duration(limit * float64(time.Second)))
	for {
		_, err := h.plugins.GetPlugin(driver)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			answer["timedOut"] = true
			return fmt.Errorf("after %ss: %w", seconds, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (h *harness) pod(ctx context.Context, ref string) (*v1.Pod, error) {
	namespace, name, found := strings.Cut(ref, "/")
	if !found {
		return nil, fmt.Errorf("pod %q: want NAMESPACE/NAME", ref)
	}
	pod, err := h.client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("pod %s: %w", ref, err)
	}
	return pod, nil
}

// prepare does what kubelet's SyncPod does before it creates a pod's
// containers: PrepareResources, then GetResources per container; the CDI
// IDs are then injected as the container runtime would (resolve.go).
func (h *harness) prepare(ctx context.Context, ref string, answer map[string]any) error {
	pod, err := h.pod(ctx, ref)
	if err != nil {
		return err
	}
	if err := h.manager.PrepareResources(ctx, pod); err != nil {
		return err
	}
	h.mu.Lock()
	h.pods[ref] = pod
	h.mu.Unlock()
	containers := []map[string]any{}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		info, err := h.manager.GetResources(pod, c)
		if err != nil {
			return fmt.Errorf("container %s: %w", c.Name, err)
		}
		ids := []string{}
		for _, d := range info.CDIDevices {
			ids = append(ids, d.Name)
		}
		result := injectLikeARuntime(h.opts.cdiDir, ids)
		result["name"] = c.Name
		result["cdiDevices"] = ids
		containers = append(containers, result)
	}
	answer["containers"] = containers
	return nil
}

// unprepare is kubelet's teardown of a terminated pod. It uses the pod as it
// was prepared when there is one, so a pod already deleted from the API
// server is unprepared the way kubelet does it.
func (h *harness) unprepare(ctx context.Context, ref string) error {
	h.mu.Lock()
	pod := h.pods[ref]
	h.mu.Unlock()
	if pod == nil {
		var err error
		if pod, err = h.pod(ctx, ref); err != nil {
			return err
		}
	}
	if err := h.manager.UnprepareResources(ctx, pod); err != nil {
		return err
	}
	h.mu.Lock()
	delete(h.pods, ref)
	h.mu.Unlock()
	return nil
}
