"""DRAForge: Kubernetes Dynamic Resource Allocation (resource.k8s.io/v1, Kubernetes 1.37) in Python.

Load objects into a :class:`Cluster`, take a :class:`Snapshot`, and ask it: ``graph()``,
``pools()``, ``allocate(claims, node)`` (kube-scheduler's structured allocator), ``explain(claim)``
(why a claim is pending), ``diagnostics()`` (every pending claim and anomaly), ``inventory``
(summary, pools, devices, claims as draforge-server serves them), ``place(pod)`` (on which nodes a
pod fits), ``how_many_more(claim)`` (how many more like it fit, and where) and ``replay()`` (the
pending pods placed one by one in kube-scheduler's queue order; :mod:`draforge.whatif` sweeps many
such what-ifs, on Dask too). Snapshots and results pickle. :mod:`draforge.kube` reads a
live cluster (``Cluster.from_kubeconfig()``, and ``kube.watch()`` to keep a Cluster current). :mod:`draforge.cel` compiles and evaluates DRA CEL selectors;
:mod:`draforge.cdi` generates, validates and writes CDI specs.

Errors: every failure raises :class:`draforge.Error`; bad input is also a ``ValueError``, a missing
object also a ``KeyError`` (see :mod:`draforge._errors`). "Does not fit" is a result, not an error.

The package is a thin layer over DRAForge's stable C ABI; long calls release the GIL.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import _draforge
from ._errors import (ApiError, Error, FileSystemError, InternalError, InvalidInputError, LimitError,
                      NotFoundError, UnavailableError, UnsupportedError)
from ._results import (AllocatedDevice, AllocationResult, ClaimConflict, Explanation, FunnelStep, Graph,
                       NodeGroup, NodeVerdict, Pool, RequestFunnel)
from . import cdi, cel, fragmentation, gang, kube, packages, preemption, whatif
from .inventory import Inventory
from .placement import HowManyMore, NodeCount, NodePlacement, PlacedCopy, Placement, PodClaim
from .fragmentation import DefragAdvice, DefragMove, FragmentationResult
from .gang import GangResult, GroupClaim
from .whatif import NodeReason, PendingPod, PlacedClaim, PlacedPod, ReplayResult
from .preemption import PreemptionCandidate, PreemptionResult, PreemptionVictim

__all__ = [
    "AllocatedDevice", "AllocationResult", "ApiError", "ClaimConflict", "Cluster", "DefragAdvice", "DefragMove",
    "Error", "Explanation", "FileSystemError", "FragmentationResult", "FunnelStep", "GangResult", "Graph",
    "GroupClaim", "HowManyMore", "InternalError", "InvalidInputError", "Inventory",
    "LimitError", "NodeCount", "NodeGroup", "NodePlacement", "NodeReason", "NodeVerdict", "NotFoundError",
    "PendingPod", "PlacedClaim", "PlacedCopy", "PlacedPod", "Placement", "PodClaim", "Pool", "PreemptionCandidate",
    "PreemptionResult", "PreemptionVictim", "ReplayResult", "RequestFunnel", "Snapshot", "UnavailableError",
    "UnsupportedError", "cdi", "cel", "fragmentation", "gang", "kube", "packages", "preemption", "whatif",
    "feature_gates", "kubernetes_version", "kubernetes_versions", "version",
]

__version__: str = _draforge.version()

if _draforge.header_version() != __version__:  # pragma: no cover - a broken installation
    raise ImportError(f"draforge: native module built for {_draforge.header_version()}, library is {__version__}")

Features = Union[None, str, Mapping[str, bool]]
PathLike = Union[str, "os.PathLike[str]"]


def version() -> str:
    """The DRAForge library version ("0.1.0")."""
    return _draforge.version()


def kubernetes_version() -> str:
    """The Kubernetes release whose API and feature-gate defaults DRAForge targets by default ("1.37")."""
    return _draforge.kubernetes_version()


def kubernetes_versions() -> List[Dict[str, Any]]:
    """The Kubernetes versions DRAForge reproduces (``kubernetes_version=`` of allocate, explain, place,
    how_many_more and feature_gates), oldest first: [{"version": "1.34", "latest": False,
    "allocatorVariant": ..., "servedVersions": {kind: [apiVersion, ...]}, "featureGates": [{"name",
    "default", "locked", "maturity"}, ...]}, ...] (draforge_kubernetes_versions_json)."""
    return json.loads(_draforge.kubernetes_versions_json())


def _gates(features: Features) -> str:
    if features is None:
        return ""
    if isinstance(features, str):
        return features
    if isinstance(features, Mapping):
        for k, v in features.items():
            if not isinstance(k, str) or not isinstance(v, bool):
                raise InvalidInputError(f"features: {k!r}: expected a gate name and a bool, got {v!r}", code=-1)
        return ",".join(f"{k}={'true' if v else 'false'}" for k, v in features.items())
    raise InvalidInputError(f"features: expected None, a str or a mapping of gate names to bools, got "
                            f"{type(features).__name__}", code=-1)


def feature_gates(features: Features = None, *, unlock_locked_gates: bool = False,
                  kubernetes_version: Optional[str] = None) -> Dict[str, bool]:
    """The effective feature gates: Kubernetes 1.37's defaults with ``features`` applied
    (``{"DRAListTypeAttributes": True}`` or ``"DRAListTypeAttributes=true"``).

    Raises InvalidInputError for an unknown gate, a bad value, or a locked gate changed without
    ``unlock_locked_gates``."""
    return json.loads(_draforge.feature_gates_json(_gates(features), unlock_locked_gates, kubernetes_version or ""))


_REF_KINDS = {"claim": "ResourceClaim", "pod": "Pod", "template": "ResourceClaimTemplate"}


def _ref(obj: Union[str, Mapping[str, Any]], what: str = "claim") -> str:
    """"ns/name" of a claim (or pod, or template: ``what``) given as a string or as a dict."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, Mapping):
        meta = obj.get("metadata") or {}
        return f'{meta.get("namespace") or "default"}/{meta.get("name", "")}'
    raise InvalidInputError(f"{what}: expected \"namespace/name\" or a {_REF_KINDS[what]} dict, got "
                            f"{type(obj).__name__}", code=-1)


def _labels(node_labels: Optional[Mapping[str, str]]) -> Optional[str]:
    return None if node_labels is None else json.dumps(dict(node_labels))


def _snapshot_from_objects(objects_json: str) -> "Snapshot":
    """The Snapshot of a new Cluster holding ``objects_json`` (a JSON array of objects): how a
    pickled Snapshot is rebuilt."""
    c = Cluster()
    c._c.apply(objects_json)
    return c.snapshot()


class Snapshot:
    """An immutable view of a :class:`Cluster`. Safe to share between threads; stays valid after
    the cluster changes or is gone.

    A snapshot pickles as its objects (:meth:`objects`, every kind DRAForge models) and unpickles
    as a snapshot of a new Cluster holding them; snapshots compare equal when their objects are
    equal. Opaque kinds (Namespaces, ResourceQuotas, custom resources) are not carried, and the
    generation and resource_version start again."""

    def __init__(self, native: "_draforge.Snapshot") -> None:
        self._s = native

    def __reduce__(self):
        return (_snapshot_from_objects, (self._s.objects_json(None),))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Snapshot):
            return NotImplemented
        return other._s is self._s or self.objects() == other.objects()

    __hash__ = None  # type: ignore[assignment]  # equal by content, which is not cheap to hash

    @property
    def generation(self) -> int:
        """Number of changes published before this snapshot (0 for an empty cluster)."""
        return self._s.generation

    def count(self, kind: str) -> int:
        """Number of stored objects of ``kind`` ("ResourceSlice", "pods", ...); 0 for unknown kinds."""
        return self._s.count(kind)

    def objects(self, kind: Optional[str] = None) -> List[Dict[str, Any]]:
        """Stored objects of ``kind`` (None: every kind DRAForge models) as resource.k8s.io/v1 dicts,
        sorted by (namespace, name). UnsupportedError for an unknown kind."""
        return json.loads(self._s.objects_json(kind))

    def get(self, kind: str, name: str, namespace: Optional[str] = None) -> Dict[str, Any]:
        """One object as a dict; NotFoundError (a KeyError) when it is not stored."""
        return json.loads(self._s.get_json(kind, namespace or "", name))

    @property
    def resource_version(self) -> str:
        """The resourceVersion of the last change applied ("" when none carried one)."""
        return self._s.resource_version

    @property
    def inventory(self) -> Inventory:
        """Summary, pools, devices, claims and changes, as draforge-server serves them."""
        return Inventory(self._s)

    def graph(self, *, all_devices: bool = True, namespace: Optional[str] = None, node: Optional[str] = None,
              driver: Optional[str] = None) -> Graph:
        """The relationship graph. ``all_devices=False`` keeps only devices that allocations name.
        ``namespace``, ``node``, ``driver`` keep only the parts connected to them (as ``draforge
        graph -n/--node/--driver`` and the server's /api/v1/graph do)."""
        if namespace is None and node is None and driver is None:
            return Graph._from_json(json.loads(self._s.graph_json(all_devices)))
        return Graph._from_json(json.loads(self._s.inventory_graph_json(namespace, node, driver, all_devices)))

    def render_graph(self, format: str = "dot", *, namespace: Optional[str] = None, node: Optional[str] = None,
                     driver: Optional[str] = None, all_devices: bool = True) -> str:
        """The relationship graph as text, as ``draforge graph -o`` prints it: ``format`` "dot"
        (Graphviz), "text" (a tree per pod, then the claims no pod references) or "json"; filtered
        as :meth:`graph` is. InvalidInputError for another format."""
        if format not in _draforge.GRAPH_FORMATS:
            raise InvalidInputError(f"format: expected one of {', '.join(_draforge.GRAPH_FORMATS)}, got {format!r}",
                                    code=-1)
        return self._s.render_graph(_draforge.GRAPH_FORMATS[format], namespace, node, driver, all_devices)

    def diagnostics(self, *, namespace: Optional[str] = None) -> Dict[str, Any]:
        """Diagnostics, in draforge-server's schema: every pending claim of ``namespace`` (None: all)
        with what it waits for, explain's funnel per request, conflicts and the verdict on every node
        (``pending``), and the lifecycle anomalies (``anomalies``). Costs one explain per pending
        claim."""
        return json.loads(self._s.diagnostics_json(namespace))

    def diagnose(self, claim: Union[str, Mapping[str, Any]]) -> Dict[str, Any]:
        """The diagnosis of one pending claim ("ns/name", a name in "default", or a claim dict): the
        ``pending`` entry of :meth:`diagnostics` for it, at the cost of one explain. NotFoundError
        for an unknown claim, InvalidInputError for one that is allocated."""
        return json.loads(self._s.claim_diagnosis_json(_ref(claim)))["diagnosis"]

    def pools(self) -> List[Pool]:
        """Every ResourceSlice pool with device and allocated counts, sorted by (driver, pool)."""
        return [Pool._from_json(p) for p in json.loads(self._s.pools_json())]

    def allocate(self, claims: Union[str, Mapping[str, Any], Sequence[Union[str, Mapping[str, Any]]]], node: str, *,
                 features: Features = None, node_labels: Optional[Mapping[str, str]] = None,
                 unlock_locked_gates: bool = False, max_steps: int = 0,
                 prune_search: bool = True, kubernetes_version: Optional[str] = None) -> AllocationResult:
        """Allocates ``claims`` ("ns/name", a name in "default", or claim dicts already in the
        cluster), all or none, on ``node`` as kube-scheduler does.

        ``features``: gates on top of the defaults of ``kubernetes_version`` ("1.34" to "1.37";
        None: 1.37), whose kube-scheduler is reproduced (docs/versions.md). ``node_labels``: the node's labels (default:
        those of the Node object of that name, if stored). ``max_steps``: abort with LimitError after
        this many search steps (0: no limit). ``prune_search``: True (the default) skips the parts of
        the search that provably cannot succeed; False runs kube-scheduler's search step for step, so
        that ``search_steps`` equals upstream's count. The outcome, the devices and the reasons are
        the same either way; only ``search_steps`` (and so where ``max_steps`` stops) differs.

        Returns an AllocationResult (``.fits`` False when the claims do not fit: not an error).
        Raises NotFoundError for an unknown claim, InvalidInputError for bad input (a missing
        DeviceClass, a CEL runtime error, bad options)."""
        if isinstance(claims, (str, Mapping)):
            claims = [claims]
        refs = [_ref(c) for c in claims]
        out = self._s.allocate(refs, node, _gates(features), unlock_locked_gates, _labels(node_labels), max_steps,
                               prune_search, kubernetes_version or "")
        return AllocationResult._from_json(json.loads(out))

    def explain(self, claim: Union[str, Mapping[str, Any]], node: Optional[str] = None, *, features: Features = None,
                node_labels: Optional[Mapping[str, str]] = None, unlock_locked_gates: bool = False,
                kubernetes_version: Optional[str] = None) -> Explanation:
        """Why ``claim`` is pending: per request, the funnel from every published device to those
        usable on ``node`` (None: the node step is skipped), and a sentence. Without a node, also the
        verdict on every node (``Explanation.nodes``: where it fits, and why not elsewhere).
        NotFoundError for an unknown claim."""
        out, groups = self._s.explain(_ref(claim), node, _gates(features), unlock_locked_gates, _labels(node_labels),
                                      kubernetes_version or "")
        return Explanation._from_json(json.loads(out), json.loads(groups))

    def place(self, pod: Union[str, Mapping[str, Any]], *, features: Features = None, unlock_locked_gates: bool = False,
              max_steps: int = 0, kubernetes_version: Optional[str] = None) -> Placement:
        """On which nodes pod ``pod`` ("ns/name", a name in "default", or a pod dict) fits: its claims
        are resolved as kube-scheduler's DRA PreFilter does (a template's claim not created yet is
        built in memory) and allocated together on every node against the snapshot's allocated state;
        claims already allocated pin the node. Only DRA is considered (not affinity, taints or
        resources). ``max_steps`` bounds the search per node (a node past it has outcome "error").

        Returns a Placement (``.fitting_nodes``, ``.node(name).why``): a pod that fits nowhere is a
        result, not an error. NotFoundError for a pod not in the snapshot, InvalidInputError for bad
        options."""
        out = self._s.place_pod_json(_ref(pod, "pod"), _gates(features), unlock_locked_gates, max_steps,
                                     kubernetes_version or "")
        return Placement._from_json(json.loads(out))

    def how_many_more(self, claim: Union[None, str, Mapping[str, Any]] = None, *,
                      template: Union[None, str, Mapping[str, Any]] = None,
                      pod: Union[None, str, Mapping[str, Any]] = None, cap: int = 0, features: Features = None,
                      unlock_locked_gates: bool = False, max_steps: int = 0,
                      kubernetes_version: Optional[str] = None) -> HowManyMore:
        """How many more claims like ``claim`` (or like the claims of ResourceClaimTemplate
        ``template``, or units like pod ``pod``; give exactly one) fit, and where: copies are
        allocated one at a time, node by node in name order, until no node takes another or ``cap``
        (0: 1000) are placed. Greedy and deterministic. ``max_steps`` bounds each allocation attempt.
        A pod unit is a copy of every claim of the pod plus the pod's requests, which must fit each
        Node's allocatable minus the pods bound there (``nodes[i].limited_by`` says which side
        stopped a node).

        Returns a HowManyMore (``.total``, ``.per_node``, ``.nodes[i].why``). NotFoundError for an
        unknown claim, template or pod, InvalidInputError for more or fewer than one, a negative cap
        or bad options."""
        given = [x for x in (claim, template, pod) if x is not None]
        if len(given) != 1:
            raise InvalidInputError("how_many_more: give exactly one of claim=, template= and pod=", code=-1)
        if claim is not None:
            kind, name = _draforge.PROTOTYPE_CLAIM, _ref(claim)
        elif template is not None:
            kind, name = _draforge.PROTOTYPE_TEMPLATE, _ref(template, "template")
        else:
            kind, name = _draforge.PROTOTYPE_POD, _ref(pod, "pod")
        out = self._s.how_many_more_json(kind, name, cap, _gates(features), unlock_locked_gates, max_steps,
                                         kubernetes_version or "")
        return HowManyMore._from_json(json.loads(out))

    def replay(self, policy: str = "first-fit", *, features: Features = None, unlock_locked_gates: bool = False,
               max_steps: int = 0, kubernetes_version: Optional[str] = None, explain: bool = True) -> ReplayResult:
        """Replays the pending pods (no spec.nodeName, not terminal, not being deleted, the default
        scheduler) in kube-scheduler's queue order (priority, then creation time, then name), one at a
        time, on a copy of this snapshot, which is not changed: every node is judged as :meth:`place`
        judges it plus the pod's cpu/memory/pods requests against the Node's allocatable; ``policy``
        ("first-fit", "most-allocated" or "least-allocated"; see draforge.whatif.POLICIES) picks among
        the nodes that fit; the pod's binding and its claims' allocations are committed before the
        next pod. Nodes go through kube-scheduler's filters first (NodeUnschedulable, TaintToleration,
        NodeAffinity, NodeResourcesFit); preemption is not considered. ``max_steps`` bounds the
        search per pod and node; ``explain=False`` gives the allocator's reasons only (faster).

        Returns a ReplayResult (``.placed``, ``.pending``, ``.to_pandas()``): pods left pending are a
        result, not an error. InvalidInputError for an unknown policy or gate, bad options, a
        malformed priority, creation time or resource list (the message names the object)."""
        if not isinstance(policy, str):
            raise InvalidInputError(f"policy: expected one of {', '.join(whatif.POLICIES)}, got {policy!r}", code=-1)
        out = self._s.replay_json(policy, explain, _gates(features), unlock_locked_gates, max_steps,
                                  kubernetes_version or "")
        return ReplayResult._from_json(json.loads(out))

    def gang(self, group: str, *, workload: Optional[str] = None, template: Optional[str] = None,
             policy: str = "first-fit", features: Features = None, unlock_locked_gates: bool = False,
             max_steps: int = 0, kubernetes_version: Optional[str] = None, explain: bool = True) -> GangResult:
        """Places the pending members of PodGroup ``group`` ("ns/name"; scheduling.k8s.io/v1beta1, the
        pods whose spec.schedulingGroup.podGroupName names it) all or nothing, as kube-scheduler 1.37's
        pod group cycle does, on a copy of this snapshot: one member at a time (priority, creation
        time, name), each judged as :meth:`replay` judges a pod and committed before the next, until
        gang.minCount is out of reach. Claims the PodGroup declares (spec.resourceClaims) are
        allocated once, by the first member, and shared by the others on that node. ``workload`` and
        ``template``: build the PodGroup from that Workload's podGroupTemplate when it does not exist.

        Returns a GangResult (``.fits``, ``.blocking``, ``.placed``, ``.unschedulable``,
        ``.to_pandas()``): a gang that does not fit is a result, not an error. InvalidInputError for a
        malformed group name, PodGroup, Workload or member, bad options; KeyError for a PodGroup,
        Workload, template or group claim template that does not exist."""
        if (workload is None) != (template is None):
            raise InvalidInputError("workload and template come together", code=-1)
        wt = f"{workload}/{template}" if workload is not None else ""
        out = self._s.gang_json(group, wt, policy, explain, _gates(features), unlock_locked_gates, max_steps,
                                kubernetes_version or "")
        return GangResult._from_json(json.loads(out))


    def replay_after(self, policy: str = "first-fit", *, features: Features = None,
                     unlock_locked_gates: bool = False, max_steps: int = 0,
                     kubernetes_version: Optional[str] = None, explain: bool = True) -> "whatif.Replayed":
        """:meth:`replay`, and the cluster after it (draforge_replay_after): ``Replayed(result,
        after)``, ``after`` a Snapshot with every placed pod bound, its claims allocated and
        reserved, its template claims created; pending pods as they were."""
        if not isinstance(policy, str):
            raise InvalidInputError(f"policy: expected one of {', '.join(whatif.POLICIES)}, got {policy!r}", code=-1)
        after, out = self._s.replay_after(policy, explain, _gates(features), unlock_locked_gates, max_steps,
                                          kubernetes_version or "")
        return whatif.Replayed(ReplayResult._from_json(json.loads(out)), Snapshot(after))

    def fragmentation(self, shape: Union[None, str, Mapping[str, Any], Sequence[Mapping[str, Any]]] = None, *,
                      shape_pod: Optional[str] = None, max_moves: int = 3, max_candidates: int = 16,
                      max_trials: int = 1000, features: Features = None, unlock_locked_gates: bool = False,
                      max_steps: int = 0, kubernetes_version: Optional[str] = None) -> FragmentationResult:
        """How fragmented this snapshot's devices are (per node, pool and across the cluster) and,
        with ``shape`` (YAML/JSON text, an object dict or a list of them: a Pod with its claims or
        templates, a ResourceClaim or a ResourceClaimTemplate) or ``shape_pod`` ("ns/name" of a pod of
        the snapshot), the defrag advice: the fewest moves (pods deleted and created again pinned to a
        node, their claims allocated again there) after which the shape is placed, each replayed on
        a copy after the moves before it; the search is bounded by ``max_moves``, ``max_candidates``
        (consumer groups per node) and ``max_trials`` (sets of moves). The snapshot is not changed.

        Returns a FragmentationResult (``.advice``, ``.to_pandas()``); no advice found is a result,
        not an error. InvalidInputError for bad options, gates or shape; NotFoundError for an unknown
        ``shape_pod``."""
        if shape is None:
            text = ""
        elif isinstance(shape, str):
            text = shape
        elif isinstance(shape, Mapping):
            text = json.dumps(shape)
        else:
            text = "\n---\n".join(json.dumps(o) for o in shape)
        out = self._s.fragmentation_json(text, shape_pod or "", max_moves, max_candidates, max_trials, _gates(features),
                                         unlock_locked_gates, max_steps, kubernetes_version or "")
        return FragmentationResult._from_json(json.loads(out))

    def preempt(self, pod: str, *, dra_aware: bool = True, features: Features = None,
                unlock_locked_gates: bool = False, max_steps: int = 0, kubernetes_version: Optional[str] = None,
                explain: bool = True) -> PreemptionResult:
        """The pods kube-scheduler's DefaultPreemption would evict so that pending pod ``pod``
        ("ns/name" or "name") can run, computed on a copy of this snapshot: lower-priority pods only,
        PodDisruptionBudgets respected, preemptionPolicy Never honoured, victims reprieved one by one
        as upstream does, and the node picked as upstream picks it (docs/whatif.md). DRA-aware as
        KEP-5690 proposes (a claim's devices are freed only when every pod using it is a victim);
        ``dra_aware=False`` answers for Kubernetes 1.37 as released, which never frees devices by
        preemption.

        Returns a PreemptionResult (``.outcome``, ``.node``, ``.victims``, ``.to_pandas()``): no node
        working is a result, not an error. NotFoundError for an unknown pod; InvalidInputError for a
        pod that is not pending, bad options or gates, or a malformed object (named)."""
        out = self._s.whatif_preempt_json(pod, dra_aware, explain, _gates(features), unlock_locked_gates, max_steps,
                                          kubernetes_version or "")
        return PreemptionResult._from_json(json.loads(out))


    def edit(self, *edits: Mapping[str, Any]) -> "whatif.Edited":
        """A copy of this snapshot (which is not changed) with the C ABI's what-if edits applied in
        order (draforge_whatif_edit; docs/whatif.md): dicts such as ``{"op": "add-nodes", "like":
        "node-a", "count": 10}``, ``{"op": "drain-node", "name": "node-b"}``, ``{"op": "delete-node",
        ...}``, ``{"op": "delete-claim", "name": "ns/claim"}``, ``{"op": "delete-pod", "name":
        "ns/pod"}`` (:func:`draforge.whatif.add_nodes` and friends build them). Returns
        ``Edited(snapshot, changes)``, ``changes`` one sentence per edit. InvalidInputError for a
        malformed edit, NotFoundError for a node, claim or pod that is not there."""
        out, changes = self._s.whatif_edit(json.dumps(list(edits)))
        return whatif.Edited(Snapshot(out), json.loads(changes) if changes else [])


class Cluster:
    """A mutable store of Kubernetes objects (DRA kinds, Pods, Nodes; other kinds kept opaque).
    Methods may be called from several threads. Read through :meth:`snapshot`; the shortcuts
    ``graph``, ``pools``, ``allocate``, ``explain`` use the current snapshot."""

    def __init__(self, default_namespace: str = "default") -> None:
        self._c = _draforge.Cluster(default_namespace)

    @classmethod
    def from_files(cls, *paths: Union[PathLike, Iterable[PathLike]], default_namespace: str = "default") -> "Cluster":
        """A cluster loaded from YAML/JSON files or directories (every .yaml, .yml, .json in it).
        Each file is all or nothing. NotFoundError for an unreadable path."""
        c = cls(default_namespace)
        for p in paths:
            if isinstance(p, (str, os.PathLike)):
                c.apply_file(p)
            else:
                for q in p:
                    c.apply_file(q)
        return c

    @classmethod
    def from_kubeconfig(cls, kubeconfig: Optional[PathLike] = None, *, context: Optional[str] = None,
                        namespace: Optional[str] = None, environ: Optional[Mapping[str, str]] = None,
                        default_namespace: str = "default") -> "Cluster":
        """A cluster loaded once from a live API server (found by client-go's rules: ``kubeconfig``,
        $KUBECONFIG, ~/.kube/config, in-cluster): every DRA object, Pod and Node of ``namespace``
        (None: all). To keep it current, use :func:`draforge.kube.watch`. UnavailableError when the
        server cannot be reached, ApiError when it refuses (a 403 names the verb and resource)."""
        state = kube.Client(kubeconfig, context=context, environ=environ).list_cluster_state(namespace)
        c = cls(default_namespace)
        c.apply(state["objects"])
        return c

    @classmethod
    def from_yaml(cls, text: str, *, default_namespace: str = "default") -> "Cluster":
        """A cluster loaded from YAML or JSON text (one object, documents separated by ---, or Lists)."""
        c = cls(default_namespace)
        c.apply(text)
        return c

    def apply(self, objects: Union[str, bytes, Mapping[str, Any], Sequence[Mapping[str, Any]]]) -> int:
        """Adds or updates objects given as YAML/JSON text, a dict, or a list of dicts; all or nothing.
        Returns how many objects were read. InvalidInputError (a ValueError) names the object and
        field of the first that does not decode."""
        if isinstance(objects, bytes):
            text = objects.decode("utf-8")
        elif isinstance(objects, str):
            text = objects
        elif isinstance(objects, Mapping):
            text = json.dumps(objects)
        elif isinstance(objects, Sequence):
            text = json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)})
        else:
            raise InvalidInputError(f"apply: expected YAML/JSON text, a dict or a list of dicts, got "
                                    f"{type(objects).__name__}", code=-1)
        return self._c.apply(text)

    def apply_file(self, path: PathLike) -> int:
        """Adds or updates the objects of a file or directory; all or nothing. Returns the count."""
        return self._c.apply_file(os.fspath(path))

    def delete(self, kind: str, name: str, namespace: Optional[str] = None) -> bool:
        """Deletes an object; True when one was removed, False when none was stored."""
        return self._c.delete(kind, namespace, name)

    def snapshot(self) -> Snapshot:
        """The current snapshot (O(1))."""
        return Snapshot(self._c.snapshot())

    def graph(self, *, all_devices: bool = True, namespace: Optional[str] = None, node: Optional[str] = None,
              driver: Optional[str] = None) -> Graph:
        return self.snapshot().graph(all_devices=all_devices, namespace=namespace, node=node, driver=driver)

    def render_graph(self, format: str = "dot", **kwargs: Any) -> str:
        return self.snapshot().render_graph(format, **kwargs)

    @property
    def inventory(self) -> Inventory:
        """The inventory views of the current snapshot."""
        return self.snapshot().inventory

    def diagnostics(self, *, namespace: Optional[str] = None) -> Dict[str, Any]:
        return self.snapshot().diagnostics(namespace=namespace)

    def diagnose(self, claim: Any) -> Dict[str, Any]:
        return self.snapshot().diagnose(claim)

    def pools(self) -> List[Pool]:
        return self.snapshot().pools()

    def objects(self, kind: Optional[str] = None) -> List[Dict[str, Any]]:
        return self.snapshot().objects(kind)

    def get(self, kind: str, name: str, namespace: Optional[str] = None) -> Dict[str, Any]:
        return self.snapshot().get(kind, name, namespace)

    def allocate(self, claims: Any, node: str, **kwargs: Any) -> AllocationResult:
        return self.snapshot().allocate(claims, node, **kwargs)

    def explain(self, claim: Any, node: Optional[str] = None, **kwargs: Any) -> Explanation:
        return self.snapshot().explain(claim, node, **kwargs)

    def place(self, pod: Any, **kwargs: Any) -> Placement:
        return self.snapshot().place(pod, **kwargs)

    def how_many_more(self, claim: Any = None, **kwargs: Any) -> HowManyMore:
        return self.snapshot().how_many_more(claim, **kwargs)

    def replay(self, policy: str = "first-fit", **kwargs: Any) -> ReplayResult:
        return self.snapshot().replay(policy, **kwargs)

    def gang(self, group: str, **kwargs: Any) -> GangResult:
        return self.snapshot().gang(group, **kwargs)

    def fragmentation(self, shape: Any = None, **kwargs: Any) -> FragmentationResult:
        return self.snapshot().fragmentation(shape, **kwargs)
    def preempt(self, pod: str, **kwargs: Any) -> PreemptionResult:
        return self.snapshot().preempt(pod, **kwargs)


Cluster.graph.__doc__ = Snapshot.graph.__doc__
Cluster.pools.__doc__ = Snapshot.pools.__doc__
Cluster.objects.__doc__ = Snapshot.objects.__doc__
Cluster.get.__doc__ = Snapshot.get.__doc__
Cluster.allocate.__doc__ = Snapshot.allocate.__doc__
Cluster.explain.__doc__ = Snapshot.explain.__doc__
Cluster.diagnostics.__doc__ = Snapshot.diagnostics.__doc__
Cluster.diagnose.__doc__ = Snapshot.diagnose.__doc__
Cluster.render_graph.__doc__ = Snapshot.render_graph.__doc__
Cluster.place.__doc__ = Snapshot.place.__doc__
Cluster.how_many_more.__doc__ = Snapshot.how_many_more.__doc__
Cluster.replay.__doc__ = Snapshot.replay.__doc__
Cluster.gang.__doc__ = Snapshot.gang.__doc__
Cluster.fragmentation.__doc__ = Snapshot.fragmentation.__doc__
Cluster.preempt.__doc__ = Snapshot.preempt.__doc__
