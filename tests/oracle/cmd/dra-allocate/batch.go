package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// batchRequest is one line of --batch input: the arguments of one
// dra-allocate run (everything but --batch itself).
type batchRequest struct {
	Args []string `json:"args"`
}

// batchResponse is one line of --batch output: what that run would have
// exited with and printed.
type batchResponse struct {
	Exit   int    `json:"exit"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// runBatch serves one run per input line, in order, so that a test driver
// pays the process start (about 30 ms: package init registers every
// Kubernetes type and feature gate) once instead of per scenario. Every run
// starts from the pristine feature gates: the global gate that --feature-gates
// sets is replaced by a copy taken before the first run, so one run's gates
// never leak into the next.
func runBatch(stdin io.Reader, stdout, stderr io.Writer) int {
	pristine := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 1<<20), 1<<30)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	for in.Scan() {
		line := bytes.TrimSpace(in.Bytes())
		if len(line) == 0 {
			continue
		}
		var req batchRequest
		if err := json.Unmarshal(line, &req); err != nil {
			fmt.Fprintf(stderr, "dra-allocate --batch: bad request line: %v\n", err)
			return exitUsage
		}
		utilfeature.DefaultMutableFeatureGate = pristine.DeepCopy()
		utilfeature.DefaultFeatureGate = utilfeature.DefaultMutableFeatureGate
		var o, e bytes.Buffer
		code := run(req.Args, &o, &e)
		writeJSONLine(out, batchResponse{Exit: code, Stdout: o.String(), Stderr: e.String()})
		if err := out.Flush(); err != nil {
			return exitError
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(stderr, "dra-allocate --batch: %v\n", err)
		return exitUsage
	}
	return 0
}
