// Command dra-list-claims lists every ResourceClaim (resource.k8s.io/v1, all
// namespaces) with client-go in pages of --limit, the way informers and
// kubectl do: k8s.io/client-go/tools/pager over the typed clientset, so every
// item is decoded into a resourceapi.ResourceClaim. It asks for JSON, or with
// --protobuf for application/vnd.kubernetes.protobuf (what client-go's typed
// clients ask for when nothing is configured); --disable-compression turns off gzip
// (client-go asks for it by default; DRAForge's client does not). Prints one
// JSON line: {"count","pages","wall_s","cpu_s","bytes","max_rss_bytes","content_type","gzip"}; cpu_s is the
// process's user+system CPU (getrusage, every thread, the garbage collector's
// included) from just before the first request to just after the last item was
// decoded; bytes is the response bodies after decompression. See ../../README.md.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	resourceapi "k8s.io/api/resource/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/pager"
)

const exitUsage = 2

func main() {
	kubeconfig := pflag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file")
	limit := pflag.Int64("limit", 500, "page size")
	protobuf := pflag.Bool("protobuf", false, "ask for application/vnd.kubernetes.protobuf")
	selector := pflag.String("selector", "", "label selector")
	noGzip := pflag.Bool("disable-compression", false, "do not ask the server for gzip")
	pflag.Parse()
	if *kubeconfig == "" || *limit < 0 {
		fmt.Fprintln(os.Stderr, "usage: dra-list-claims --kubeconfig FILE [--limit N] [--selector S] [--protobuf] [--disable-compression]")
		os.Exit(exitUsage)
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dra-list-claims:", err)
		os.Exit(exitUsage)
	}
	// client-go's generated clients ask for protobuf when nothing is set (UseProtobufAsDefault);
	// JSON must be asked for explicitly.
	if *protobuf {
		config.ContentType = "application/vnd.kubernetes.protobuf"
		config.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	} else {
		config.ContentType = "application/json"
		config.AcceptContentTypes = "application/json"
	}
	config.DisableCompression = *noGzip
	config.QPS = -1 // no client-side rate limit: one request per page, back to back
	var bytes atomic.Int64
	var contentType atomic.Value
	contentType.Store("")
	config.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return countingTransport{rt, &bytes, &contentType}
	}
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail(err)
	}
	ctx := context.Background()

	cpu0, wall0 := cpuSeconds(), time.Now()
	pages := 0
	p := pager.New(pager.SimplePageFunc(func(opts metav1.ListOptions) (runtime.Object, error) {
		pages++
		return cs.ResourceV1().ResourceClaims("").List(ctx, opts)
	}))
	p.PageSize = *limit
	obj, _, err := p.List(ctx, metav1.ListOptions{LabelSelector: *selector})
	if err != nil {
		fail(err)
	}
	wall, cpu := time.Since(wall0).Seconds(), cpuSeconds()-cpu0
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	count := 0
	switch list := obj.(type) {
	case *resourceapi.ResourceClaimList:
		count = len(list.Items)
	case *metainternalversion.List: // the pager joins pages into a generic list of the typed items
		for _, item := range list.Items {
			if _, ok := item.(*resourceapi.ResourceClaim); !ok {
				fail(fmt.Errorf("list item is a %T, not a ResourceClaim", item))
			}
			count++
		}
	default:
		fail(fmt.Errorf("the pager returned a %T", obj))
	}
	out, _ := json.Marshal(map[string]any{
		"count": count, "pages": pages, "wall_s": wall, "cpu_s": cpu, "bytes": bytes.Load(),
		"max_rss_bytes": ru.Maxrss * 1024,
		"content_type":  contentType.Load(), "gzip": !*noGzip,
	})
	fmt.Println(string(out))
}

// countingTransport adds the length of every response body read to *n and records the last
// response's Content-Type.
type countingTransport struct {
	next        http.RoundTripper
	n           *atomic.Int64
	contentType *atomic.Value
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if resp != nil && resp.Body != nil {
		resp.Body = countingBody{resp.Body, t.n}
		t.contentType.Store(resp.Header.Get("Content-Type"))
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	k, err := b.ReadCloser.Read(p)
	b.n.Add(int64(k))
	return k, err
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "dra-list-claims:", err)
	os.Exit(1)
}
