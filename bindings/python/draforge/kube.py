"""A live Kubernetes cluster: where to find it (client-go's kubeconfig rules), and a source that
keeps a :class:`draforge.Cluster` equal to the API server's objects (list + watch, as an informer).

>>> client = draforge.kube.Client()                    # --kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster
>>> cluster = draforge.Cluster()
>>> with draforge.kube.watch(cluster, client, on_change=print) as source:
...     source.wait_synced(30)
...     cluster.snapshot().diagnostics()

The library reads no environment variable: this module passes it the process's ($KUBECONFIG,
$HOME, KUBERNETES_SERVICE_HOST/PORT, and the environment exec credential plugins run with), or the
``environ`` mapping given instead.
"""
from __future__ import annotations

import atexit
import json
import os
import weakref
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, Sequence, Union

from . import _draforge
from ._errors import from_c, Error

if TYPE_CHECKING:  # pragma: no cover
    from . import Cluster

PathLike = Union[str, "os.PathLike[str]"]


def _config(kubeconfig: Optional[PathLike], context: Optional[str], timeout: float,
            environ: Optional[Mapping[str, str]]) -> "_draforge.KubeConfig":
    env = os.environ if environ is None else environ
    c = _draforge.KubeConfig()
    c.kubeconfig = os.fspath(kubeconfig) if kubeconfig is not None else None
    c.kubeconfig_env = env.get("KUBECONFIG")
    c.home = env.get("HOME")
    c.context = context
    c.service_host = env.get("KUBERNETES_SERVICE_HOST")
    c.service_port = env.get("KUBERNETES_SERVICE_PORT")
    c.environment = [f"{k}={v}" for k, v in env.items()]
    c.timeout_ms = int(timeout * 1000)
    return c


def resolve_config(kubeconfig: Optional[PathLike] = None, *, context: Optional[str] = None,
                   environ: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    """Which configuration the loading rules pick, without connecting: ``{"source": "kubeconfig" |
    "KUBECONFIG" | "home" | "in-cluster" | "none", "files", "server", "context", "namespace",
    "exec"}``. Nothing configured is ``"source": "none"``, not an error; credentials are never
    included. InvalidInputError names the file, context, cluster or user of a broken kubeconfig;
    NotFoundError a missing explicit one."""
    return json.loads(_draforge.kube_config_resolve(_config(kubeconfig, context, 30.0, environ)))


class Client:
    """A connection to one API server, found by client-go's rules: ``kubeconfig`` (kubectl's
    --kubeconfig), else $KUBECONFIG (merged), else ~/.kube/config, else in-cluster. ``context``
    picks the kubeconfig context; ``timeout`` is the per-request timeout in seconds. Nothing is sent
    until a call. May be used from several threads."""

    def __init__(self, kubeconfig: Optional[PathLike] = None, *, context: Optional[str] = None,
                 timeout: float = 30.0, environ: Optional[Mapping[str, str]] = None) -> None:
        self._c = _draforge.KubeClient(_config(kubeconfig, context, timeout, environ))

    @property
    def server(self) -> str:
        """The server URL ("https://host:port")."""
        return self._c.server

    @property
    def namespace(self) -> str:
        """The configuration's default namespace (the context's, the pod's, or "default")."""
        return self._c.namespace

    @property
    def context(self) -> str:
        """The kubeconfig context in use ("" in-cluster)."""
        return self._c.context

    def server_version(self) -> Dict[str, Any]:
        """GET /version (``{"major", "minor", "gitVersion", ...}``). UnavailableError when the server
        cannot be reached, ApiError when it answers with an error status."""
        return json.loads(self._c.server_version_json())

    def list_cluster_state(self, namespace: Optional[str] = None) -> Dict[str, Any]:
        """Every object of the DRA kinds, Pods and Nodes, read once: ``{"draVersion", "objects",
        "skipped"}`` (objects that do not decode are named in ``skipped``, not an error)."""
        return json.loads(self._c.list_cluster_state_json(namespace))


_running: "weakref.WeakSet[Source]" = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    # A source thread must not call into an interpreter that is shutting down.
    for s in list(_running):
        s.stop()


class Source:
    """A running list + watch that keeps a Cluster equal to the API server (see :func:`watch`).
    Usable as a context manager (stops on exit)."""

    def __init__(self, native: "_draforge.KubeSource") -> None:
        self._s = native
        _running.add(self)

    @property
    def synced(self) -> bool:
        """True once every kind has been listed into the cluster (an informer's HasSynced)."""
        return self._s.synced

    def wait_synced(self, timeout: float) -> bool:
        """Waits until synced or ``timeout`` seconds passed; returns :attr:`synced`."""
        return self._s.wait_synced(int(timeout * 1000))

    @property
    def error(self) -> Optional[Error]:
        """The latest list/watch failure, None while every kind's latest attempt succeeded. The
        source keeps retrying."""
        e = self._s.last_error()
        if e is None:
            return None
        code, message, obj, field, status, reason = e
        return from_c(code, message, obj, field, status_code=status, reason=reason)

    @property
    def dra_version(self) -> str:
        """The resource.k8s.io version in use ("v1")."""
        return self._s.dra_version

    def stats(self) -> Dict[str, int]:
        """Counters: lists, relistsGone, watches, shortWatches, events, decodeErrors, errors."""
        return json.loads(self._s.stats_json())

    def stop(self) -> None:
        """Ends the watches and joins the threads; no on_change runs after it returns. Idempotent."""
        self._s.stop()
        _running.discard(self)

    def __enter__(self) -> "Source":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def watch(cluster: "Cluster", client: Optional[Client] = None, *, namespace: Optional[str] = None,
          kinds: Optional[Sequence[str]] = None, custom_resources: Optional[Sequence[str]] = None,
          on_change: Optional[Callable[[str], None]] = None) -> Source:
    """Starts keeping ``cluster`` equal to the API server's objects: DeviceClasses, ResourceSlices,
    ResourceClaims, ResourceClaimTemplates, DeviceTaintRules, Pods and Nodes (or ``kinds``),
    of ``namespace`` (None: all), plus ``custom_resources`` ("group/version/resource") kept as
    opaque objects. ``client`` defaults to ``Client()``. ``on_change(kind)`` runs on a source
    thread after each applied change (take a snapshot there or signal another thread); an exception
    it raises goes to sys.unraisablehook. UnavailableError or ApiError when discovery fails."""
    client = client or Client()
    native = _draforge.KubeSource(client._c, cluster._c, namespace, ",".join(kinds) if kinds else None,
                                  ",".join(custom_resources) if custom_resources else None, on_change)
    return Source(native)
