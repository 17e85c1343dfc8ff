// Command dra-node-filters runs kube-scheduler's NodeAffinity PreFilter and the NodeUnschedulable,
// TaintToleration and NodeAffinity filters (in the default profile's order, default feature gates)
// on each {"pod": Pod, "node": Node} of a JSON array (FILE, or - for stdin) and prints one line per
// case: "" when every filter passes, else "Plugin|status message" of the first that rejects.
// tests/parity/node_filter_parity.py compares it with `draforge whatif replay`.
//
//	dra-node-filters FILE
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	config "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeunschedulable"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/tainttoleration"
)

type tc struct {
	Pod  v1.Pod  `json:"pod"`
	Node v1.Node `json:"node"`
}

func main() {
	var cases []tc
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dra-node-filters FILE|-")
		os.Exit(2)
	}
	var b []byte
	var err error
	if os.Args[1] == "-" {
		b, err = io.ReadAll(os.Stdin)
	} else {
		b, err = os.ReadFile(os.Args[1])
	}
	if err == nil {
		err = json.Unmarshal(b, &cases)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dra-node-filters:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	fts := feature.Features{}
	nu, _ := nodeunschedulable.New(ctx, nil, nil, fts)
	tt, _ := tainttoleration.New(ctx, nil, nil, fts)
	na, err := nodeaffinity.New(ctx, &config.NodeAffinityArgs{}, nil, fts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dra-node-filters:", err)
		os.Exit(2)
	}
	for i := range cases {
		pod, node := &cases[i].Pod, &cases[i].Node
		ni := framework.NewNodeInfo()
		ni.SetNode(node)
		state := framework.NewCycleState()
		out := ""
		res, st := na.(fwk.PreFilterPlugin).PreFilter(ctx, state, pod, []fwk.NodeInfo{ni})
		if !st.IsSuccess() && !st.IsSkip() {
			out = "NodeAffinity|" + st.Message()
		} else if res != nil && !res.AllNodes() && !res.NodeNames.Has(node.Name) {
			out = "NodeAffinity|node(s) didn't satisfy plugin(s) [NodeAffinity]"
		}
		if out == "" {
			for _, p := range []fwk.FilterPlugin{nu.(fwk.FilterPlugin), tt.(fwk.FilterPlugin), na.(fwk.FilterPlugin)} {
				if p == na && st.IsSkip() {
					continue
				}
				if s := p.Filter(ctx, state, pod, ni); !s.IsSuccess() {
					out = p.Name() + "|" + s.Message()
					break
				}
			}
		}
		fmt.Println(out)
	}
}
