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
