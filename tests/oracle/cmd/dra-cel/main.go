// Command dra-cel compiles and evaluates DRA device selector expressions with
// k8s.io/dynamic-resource-allocation/cel exactly as kube-scheduler 1.37 does.
// It reads JSON lines on stdin and writes one JSON line per input line. See
// ../../README.md for the I/O contract.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	celgo "github.com/google/cel-go/cel"
	"github.com/spf13/pflag"
	resourceapi "k8s.io/api/resource/v1"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	dracel "k8s.io/dynamic-resource-allocation/cel"

	"draforge.dev/oracle/internal/celfmt"
	"draforge.dev/oracle/internal/gates"
)

const exitUsage = 2

type inputLine struct {
	Expression *string      `json:"expression"`
	Device     *deviceInput `json:"device"`
}

type deviceInput struct {
	Driver                   string                                                    `json:"driver"`
	Attributes               map[resourceapi.QualifiedName]resourceapi.DeviceAttribute `json:"attributes"`
	Capacity                 map[resourceapi.QualifiedName]resourceapi.DeviceCapacity  `json:"capacity"`
	AllowMultipleAllocations *bool                                                     `json:"allowMultipleAllocations"`
}

// outputLine is one of {"compileError"}, {"runtimeError"} or
// {"result", "cost", "estimatedCost"} (see MarshalJSON).
type outputLine struct {
	CompileError  *string
	RuntimeError  *string
	Result        *string
	Cost          *uint64
	EstimatedCost *uint64 // nil (JSON null) if the estimate failed
}

func (o outputLine) MarshalJSON() ([]byte, error) {
	switch {
	case o.CompileError != nil:
		return json.Marshal(struct {
			CompileError string `json:"compileError"`
		}{*o.CompileError})
	case o.RuntimeError != nil:
		return json.Marshal(struct {
			RuntimeError string `json:"runtimeError"`
		}{*o.RuntimeError})
	default:
		return json.Marshal(struct {
			Result        string  `json:"result"`
			Cost          uint64  `json:"cost"`
			EstimatedCost *uint64 `json:"estimatedCost"`
		}{*o.Result, derefU(o.Cost), o.EstimatedCost})
	}
}

func derefU(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

// benchLine is one --bench result on stderr.
type benchLine struct {
	Expression    string  `json:"expression"`
	Devices       int     `json:"devices"`
	Evaluations   int     `json:"evaluations"`
	NsPerEval     int64   `json:"ns_per_eval"`
	DevicesPerSec float64 `json:"devices_per_sec"`
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

type evaluator struct {
	envType  environment.Type
	cache    *dracel.Cache
	features dracel.Features
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("dra-cel", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var gateFlag gates.Flag
	fs.Var(&gateFlag, "feature-gates", "Kubernetes 1.37 feature gates, A=true,B=false (repeatable)")
	bench := fs.Int("bench", 0, "evaluate each expression against its devices N times and print devices/second per expression on stderr")
	env := fs.String("env", "stored", "CEL environment: 'stored' (what the scheduler uses) or 'new' (what API validation uses for new expressions)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: dra-cel [--feature-gates A=true,B=false] [--env stored|new] [--bench N] < lines.jsonl\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "dra-cel: unexpected arguments %q (input is read from stdin)\n", fs.Args())
		return exitUsage
	}
	if *bench < 0 {
		fmt.Fprintln(stderr, "dra-cel: --bench must be >= 0")
		return exitUsage
	}
	fts, err := gateFlag.Apply()
	if err != nil {
		fmt.Fprintf(stderr, "dra-cel: %v\n", err)
		return exitUsage
	}
	ev := &evaluator{features: gates.CELFeatures(fts)}
	switch *env {
	case "stored":
		ev.envType = environment.StoredExpressions
	case "new":
		ev.envType = environment.NewExpressions
	default:
		fmt.Fprintf(stderr, "dra-cel: --env must be 'stored' or 'new'\n")
		return exitUsage
	}
	// Same size and features as the DynamicResources plugin's cache.
	ev.cache = dracel.NewCache(10, ev.features)

	type benchItem struct {
		expression string
		compiled   dracel.CompilationResult
		devices    []dracel.Device
	}
	var benchItems []*benchItem
	benchIndex := map[string]*benchItem{}

	ctx := context.Background()
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	scanner := bufio.NewScanner(stdin)
	scanner.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	for lineNo := 1; scanner.Scan(); lineNo++ {
		line := bytes.TrimSpace(scanner.Bytes())
		if len(line) == 0 {
			continue
		}
		var in inputLine
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			out.Flush()
			fmt.Fprintf(stderr, "dra-cel: line %d: %v\n", lineNo, err)
			return exitUsage
		}
		if in.Expression == nil {
			out.Flush()
			fmt.Fprintf(stderr, "dra-cel: line %d: missing \"expression\"\n", lineNo)
			return exitUsage
		}
		var res outputLine
		if in.Device == nil {
			res = ev.evalWithoutDevice(ctx, *in.Expression)
		} else {
			device := dracel.Device{
				Driver:                   in.Device.Driver,
				AllowMultipleAllocations: in.Device.AllowMultipleAllocations,
				Attributes:               in.Device.Attributes,
				Capacity:                 in.Device.Capacity,
			}
			var compiled dracel.CompilationResult
			res, compiled = ev.evalSelector(ctx, *in.Expression, device)
			if *bench > 0 && compiled.Error == nil {
				item := benchIndex[*in.Expression]
				if item == nil {
					item = &benchItem{expression: *in.Expression, compiled: compiled}
					benchIndex[*in.Expression] = item
					benchItems = append(benchItems, item)
				}
				item.devices = append(item.devices, device)
			}
		}
		data, err := json.Marshal(res)
		if err != nil {
			panic(err)
		}
		out.Write(data)
		out.WriteByte('\n')
		// Flush per line so that the tool can be driven interactively.
		out.Flush()
	}
	if err := scanner.Err(); err != nil {
		fmt.Fprintf(stderr, "dra-cel: reading stdin: %v\n", err)
		return exitUsage
	}

	for _, item := range benchItems {
		// One untimed pass to warm up.
		for _, d := range item.devices {
			_, _, _ = item.compiled.DeviceMatches(ctx, d)
		}
		evals := *bench * len(item.devices)
		start := time.Now()
		for i := 0; i < *bench; i++ {
			for _, d := range item.devices {
				_, _, _ = item.compiled.DeviceMatches(ctx, d)
			}
		}
		elapsed := time.Since(start)
		line, _ := json.Marshal(benchLine{
			Expression:    item.expression,
			Devices:       len(item.devices),
			Evaluations:   evals,
			NsPerEval:     elapsed.Nanoseconds() / int64(evals),
			DevicesPerSec: float64(evals) / elapsed.Seconds(),
		})
		fmt.Fprintln(stderr, string(line))
	}
	return 0
}

// compileSelector compiles like the scheduler: through the CEL cache
// (StoredExpressions, no cost estimation). With --env new it compiles for
// the NewExpressions environment instead, as API validation does for new
// or changed expressions.
func (ev *evaluator) compileSelector(expression string) dracel.CompilationResult {
	if ev.envType == environment.StoredExpressions {
		return ev.cache.GetOrCompile(expression)
	}
	envType := ev.envType
	return dracel.GetCompiler(ev.features).CompileCELExpression(expression, dracel.Options{EnvType: &envType, DisableCostEstimation: true})
}

// estimate returns the worst-case cost estimate the package computes when
// cost estimation is enabled (as API validation does), or nil if that fails.
func (ev *evaluator) estimate(expression string, derived bool) *uint64 {
	envType := ev.envType
	r := dracel.GetCompiler(ev.features).CompileCELExpression(expression, dracel.Options{EnvType: &envType, DerivedAttribute: derived})
	if r.Error != nil {
		return nil
	}
	c := r.MaxCost
	return &c
}

func compileError(err *apiservercel.Error) outputLine {
	s := err.Error()
	return outputLine{CompileError: &s}
}

func runtimeError(err error) outputLine {
	s := err.Error()
	return outputLine{RuntimeError: &s}
}

func (ev *evaluator) evalSelector(ctx context.Context, expression string, device dracel.Device) (outputLine, dracel.CompilationResult) {
	compiled := ev.compileSelector(expression)
	if compiled.Error != nil {
		return compileError(compiled.Error), compiled
	}
	matches, details, err := compiled.DeviceMatches(ctx, device)
	if err != nil {
		return runtimeError(err), compiled
	}
	result := "false"
	if matches {
		result = "true"
	}
	return outputLine{Result: &result, Cost: actualCost(details), EstimatedCost: ev.estimate(expression, false)}, compiled
}

func actualCost(details *celgo.EvalDetails) *uint64 {
	var zero uint64
	if details == nil || details.ActualCost() == nil {
		return &zero
	}
	c := *details.ActualCost()
	return &c
}

func isOutputTypeError(err *apiservercel.Error) bool {
	return err.Type == apiservercel.ErrorTypeInvalid && strings.HasPrefix(err.Detail, "must evaluate to")
}

// evalWithoutDevice compiles in the same environment but accepts any result
// type, then evaluates with the "device" variable unbound:
//  1. as a selector (bool or dyn result) through the same path as the
//     scheduler;
//  2. otherwise as a derived attribute (the package's other compile mode:
//     scalars and lists of scalars);
//  3. otherwise with the package's environment (taken from a successful
//     compilation) and the same program options, but without the result-type
//     check. The cost estimate then uses the Kubernetes CEL cost estimator
//     without the package's device size estimator.
func (ev *evaluator) evalWithoutDevice(ctx context.Context, expression string) outputLine {
	compiled := ev.compileSelector(expression)
	var estimated *uint64
	var program celgo.Program
	switch {
	case compiled.Error == nil:
		program = compiled.Program
		estimated = ev.estimate(expression, false)
	case isOutputTypeError(compiled.Error):
		envType := ev.envType
		derived := dracel.GetCompiler(ev.features).CompileCELExpression(expression, dracel.Options{EnvType: &envType, DerivedAttribute: true})
		if derived.Error == nil {
			program = derived.Program
			c := derived.MaxCost
			estimated = &c
			break
		}
		if !isOutputTypeError(derived.Error) {
			return compileError(derived.Error)
		}
		var errOut *outputLine
		program, estimated, errOut = ev.compileAnyType(expression)
		if errOut != nil {
			return *errOut
		}
	default:
		return compileError(compiled.Error)
	}
	val, details, err := program.ContextEval(ctx, map[string]any{})
	if err != nil {
		return runtimeError(err)
	}
	result := celfmt.Format(val)
	return outputLine{Result: &result, Cost: actualCost(details), EstimatedCost: estimated}
}

func (ev *evaluator) compileAnyType(expression string) (celgo.Program, *uint64, *outputLine) {
	base := ev.compileSelector("true")
	if base.Error != nil || base.Environment == nil {
		o := compileError(&apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: "cannot obtain the CEL environment"})
		return nil, nil, &o
	}
	env := base.Environment
	ast, issues := env.Compile(expression)
	if issues != nil && issues.Err() != nil {
		o := compileError(&apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: "compilation failed: " + issues.String()})
		return nil, nil, &o
	}
	prog, err := env.Program(ast,
		celgo.CostLimit(resourceapi.CELSelectorExpressionMaxCost),
		celgo.InterruptCheckFrequency(celconfig.CheckFrequency),
	)
	if err != nil {
		o := compileError(&apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: "program instantiation failed: " + err.Error()})
		return nil, nil, &o
	}
	var estimated *uint64
	if est, err := env.EstimateCost(ast, &library.CostEstimator{}); err == nil {
		estimated = &est.Max
	}
	return prog, estimated, nil
}
