# shellcheck shell=bash disable=SC2034  # variables are used by the scripts that source this
# Shared settings for tests/cluster/{build,up,down,smoke}. Sourced, never run.
#
# Everything version-specific is derived from the committed tools modules
# (k8s-1.37/go.mod, etcd-3.6/go.mod), so bumping a version means editing one
# go.mod (tests/cluster/update-modules) and nothing else here.

CLUSTER_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$CLUSTER_SRC/../.." && pwd)

# Which tools modules to use. One directory per Kubernetes minor / etcd minor,
# so that a second minor can be added next to the first one.
K8S_MODULE_DIR=${DRAFORGE_K8S_MODULE_DIR:-$CLUSTER_SRC/k8s-1.37}
ETCD_MODULE_DIR=${DRAFORGE_ETCD_MODULE_DIR:-$CLUSTER_SRC/etcd-3.6}

# Cache root: binaries, Go build cache and module cache. Defaults to the repo's
# ignored .cache/; CI on a fresh clone should point DRAFORGE_CACHE at a folder
# that survives between runs (e.g. $HOME/.cache/draforge) to skip the cold build.
CACHE_ROOT=${DRAFORGE_CACHE:-$REPO/.cache}

# Read "<module> vX.Y.Z" from a go.mod's require lines (no go command needed,
# so up/down work on a machine that only has the cached binaries).
cluster_module_version() {
  local gomod=$1 module=$2 v
  v=$(sed -n "s|^[[:space:]]*\(require[[:space:]]\+\)\?${module//./\\.} \(v[^ ]*\).*|\2|p" "$gomod" | head -n1)
  if [[ -z $v ]]; then
    echo "error: no version of $module in $gomod" >&2
    return 1
  fi
  echo "$v"
}

K8S_VERSION=$(cluster_module_version "$K8S_MODULE_DIR/go.mod" k8s.io/kubernetes)
ETCD_VERSION=$(cluster_module_version "$ETCD_MODULE_DIR/go.mod" go.etcd.io/etcd/server/v3)

K8S_BIN_DIR=$CACHE_ROOT/cluster/$K8S_VERSION/bin
ETCD_BIN_DIR=$CACHE_ROOT/cluster/etcd-$ETCD_VERSION/bin

K8S_BINARIES=(kube-apiserver kube-scheduler kube-controller-manager kubectl)
ETCD_BINARIES=(etcd)

# "v1.37.2" -> "1.37": feature gates and runtime-config are per minor.
K8S_MINOR=$(echo "$K8S_VERSION" | sed -n 's/^v\([0-9]\+\.[0-9]\+\).*/\1/p')

cluster_log() { echo "[cluster] $*" >&2; }
cluster_die() { echo "[cluster] error: $*" >&2; exit 1; }

# go_build_env: the Go settings of every Go tool the test suites build
# (tests/cluster/build, tests/node-plugin/build). They are part of each stamp,
# so changing them forces a rebuild, and one GOCACHE/GOMODCACHE under
# $CACHE_ROOT/go keeps the packages the tools share compiled once.
go_build_env() {
  # -trimpath: reproducible, path-independent binaries (and build-cache hits
  #   from any checkout location).
  # CGO_ENABLED=0: upstream builds its binaries statically; no C toolchain needed.
  # GOTOOLCHAIN=local: a go line newer than the installed Go must fail loudly
  #   instead of silently downloading another toolchain.
  # -modcacherw: module cache folders stay writable, so `rm -rf .cache` works.
  # -buildvcs=false: the tools modules are not the repo being described.
  export GOTOOLCHAIN=local
  export CGO_ENABLED=0
  export GOFLAGS="-trimpath -modcacherw -buildvcs=false"
  export GOCACHE=$CACHE_ROOT/go/build
  export GOMODCACHE=$CACHE_ROOT/go/mod
  # The module proxy is the only network these machines have: drop the
  # "direct" (VCS) fallback so a missing module fails at once instead of hanging.
  GOPROXY=$(go env GOPROXY)
  GOPROXY=${GOPROXY%%,direct*}
  GOPROXY=${GOPROXY%%|direct*}
  export GOPROXY
}

# go_stamp_of MODULE_DIR EXTRA...: a hash of everything that determines the output.
go_stamp_of() {
  local dir=$1
  shift
  { cat "$dir/go.mod" "$dir/go.sum"; go env GOVERSION 2>/dev/null || true; printf '%s\n' "$@" "$GOFLAGS" "$CGO_ENABLED"; } \
    | sha256sum | cut -d' ' -f1
}

# go_up_to_date BIN_DIR STAMP BINARIES...: all binaries there and built from STAMP.
go_up_to_date() {
  local bindir=$1 stamp=$2 b
  shift 2
  [[ -f $bindir/.stamp && $(cat "$bindir/.stamp") == "$stamp" ]] || return 1
  for b in "$@"; do [[ -x $bindir/$b ]] || return 1; done
}

# go_build_into BIN_DIR STAMP MODULE_DIR OUT -- GO-BUILD-ARGS...
# OUT is the binary's name for a single package, or "" for several main
# packages (then `go build -o dir/` writes one binary per package).
# Builds into a temporary folder next to BIN_DIR and renames it into place, so
# an interrupted build never leaves a half-filled bin/ that looks complete.
go_build_into() {
  local bindir=$1 stamp=$2 moddir=$3 out=$4
  shift 5
  local parent tmp start
  parent=$(dirname "$bindir")
  mkdir -p "$parent"
  tmp=$(mktemp -d "$parent/.bin.tmp.XXXXXX")
  start=$SECONDS
  # nice -n 19: the machine has 2 cores and other work (the C++ build, tests)
  # runs at the same time; the Go build must not starve it.
  if ! (cd "$moddir" && nice -n 19 go build -o "$tmp/$out" "$@"); then
    rm -rf "$tmp"
    cluster_die "go build failed in $moddir"
  fi
  echo "$stamp" >"$tmp/.stamp"
  chmod 755 "$tmp" # mktemp made it 0700; other users may run the binaries
  rm -rf "$bindir"
  mv "$tmp" "$bindir"
  "${GO_BUILD_SAY:-cluster_log}" "built $(cd "$bindir" && echo *) in $((SECONDS - start)) s -> $bindir"
}
