// Command kubelet-dra-harness runs kubelet's own DRA code (the plugin manager
// of pkg/kubelet/pluginmanager and the DRA manager of pkg/kubelet/cm/dra, from
// k8s.io/kubernetes at the version in go.mod) against a real API server, so
// that tests/node-plugin/run can prove draforge-node-plugin with the client
// kubelet really is, not a hand-written one.
//
// It is driven by a line protocol on stdin, one command per line, and answers
// each with one JSON object per line on stdout (kubelet's logs go to stderr):
//
//	wait-registered DRIVER SECONDS   until kubelet's DRA manager knows DRIVER
//	prepare NAMESPACE/POD            PrepareResources(pod), GetResources per
//	                                 container, then the CDI IDs injected into
//	                                 an OCI spec by the official CDI library
//	unprepare NAMESPACE/POD          UnprepareResources(pod)
//	inject CDI_DIR CDI_ID...         only the runtime's half: inject these IDs
//	                                 from CDI_DIR (what prepare reports per
//	                                 container, without kubelet)
//	quit
//
// Every answer has "ok" and, when not ok, "error" (kubelet's own error text).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"k8s.io/klog/v2"
)

func main() {
	var opts harnessOptions
	flag.StringVar(&opts.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the API server (default $KUBECONFIG)")
	flag.StringVar(&opts.nodeName, "node", "", "name of the Node this kubelet runs as (required)")
	flag.StringVar(&opts.registrationDir, "registration-dir", "", "kubelet's plugins_registry directory, watched for registration sockets (required)")
	flag.StringVar(&opts.stateDir, "state-dir", "", "where kubelet's DRA manager keeps its checkpoint (required; a fresh one is a kubelet that lost its state)")
	flag.StringVar(&opts.cdiDir, "cdi-dir", "", "the CDI spec directory the container runtime reads (required)")
	klogFlags := flag.NewFlagSet("klog", flag.ExitOnError)
	klog.InitFlags(klogFlags)
	flag.StringVar(&opts.verbosity, "v", "2", "kubelet log verbosity (klog -v)")
	flag.Parse()
	for name, value := range map[string]string{"--node": opts.nodeName, "--registration-dir": opts.registrationDir,
		"--state-dir": opts.stateDir, "--cdi-dir": opts.cdiDir, "--kubeconfig": opts.kubeconfig} {
		if value == "" {
			fmt.Fprintf(os.Stderr, "kubelet-dra-harness: %s is required\n", name)
			os.Exit(2)
		}
	}
	if err := klogFlags.Set("v", opts.verbosity); err != nil {
		fmt.Fprintf(os.Stderr, "kubelet-dra-harness: -v %s: %v\n", opts.verbosity, err)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx = klog.NewContext(ctx, klog.Background())

	h, err := startHarness(ctx, opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubelet-dra-harness: %v\n", err)
		os.Exit(1)
	}
	defer h.stop()
	// The runner waits for this line before its first command: both managers run.
	emit(map[string]any{"ok": true, "started": true, "node": opts.nodeName})

	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		words := strings.Fields(lines.Text())
		if len(words) == 0 {
			continue
		}
		if words[0] == "quit" {
			emit(map[string]any{"ok": true, "cmd": "quit"})
			return
		}
		emit(h.run(ctx, words))
	}
}

// emit writes one answer as one line; the runner reads them in order.
func emit(answer any) {
	line, err := json.Marshal(answer)
	if err != nil {
		line, _ = json.Marshal(map[string]any{"ok": false, "error": "encoding the answer: " + err.Error()})
	}
	fmt.Println(string(line))
}
