"""What-if (docs/whatif.md): the replay of a snapshot's pending pods in kube-scheduler's queue order
(:meth:`draforge.Snapshot.replay`, the C ABI's draforge_replay_json), and sweeps of many replay
variants, serially or on a Dask cluster (:func:`sweep`).

A variant is a :class:`Variant`: edits of the snapshot's objects (plain Python functions of the list
of object dicts, such as :class:`DeleteNode` and :class:`DeletePods`) and the replay's options
(policy, feature gates, Kubernetes version). :func:`sweep` runs each variant on a copy of one base
snapshot and collects one pandas frame; with a ``dask.distributed`` Client the variants run on its
workers, the base snapshot sent to each worker once (a Snapshot pickles as its objects).

>>> base = draforge.Cluster.from_files("cluster.yaml").snapshot()
>>> nodes = [n["metadata"]["name"] for n in base.objects("Node")]
>>> variants = [Variant(f"without {n}", edits=(DeleteNode(n),)) for n in nodes]
>>> frame = sweep(base, variants, client=distributed.Client("scheduler:8786"))
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple,
                    Union)

from ._errors import InvalidInputError
from ._results import _pandas

if TYPE_CHECKING:  # pragma: no cover
    from . import Snapshot

# The replay policies (draforge_replay_options.policy): how a pod's node is chosen among those that fit.
POLICIES = ("first-fit", "most-allocated", "least-allocated")

Features = Union[None, str, Mapping[str, bool]]
Objects = List[Dict[str, Any]]


@dataclass(frozen=True)
class PlacedClaim:
    """One claim of a placed pod: its name ("ns/name"; a template's claim gets the name the
    resourceclaim controller would give it), whether it ``existing`` (was allocated before the replay
    and kept), and its ``results`` (status.allocation.devices.results: dicts with request, driver,
    pool, device, ...)."""

    claim: str
    existing: bool
    results: List[Dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class PlacedPod:
    """A pending pod the replay started: the ``node`` the policy chose, its claims, and every node it
    fit on at its turn (``feasible``, by name: kube-scheduler may pick any of them)."""

    pod: str
    node: str
    claims: List[PlacedClaim] = field(default_factory=list)
    feasible: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class NodeReason:
    """Why a pod did not fit on one node: the kube-scheduler plugin that rejected it (``filter``:
    NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit or DynamicResources) and its
    words (``reason``: "cpu: 8 requested, 2 free (allocatable 4)", the placement's sentence...)."""

    node: str
    reason: str
    filter: str = ""


@dataclass(frozen=True)
class PendingPod:
    """A pod that fits on no node when its turn comes, with one reason per node (name order)."""

    pod: str
    nodes: List[NodeReason] = field(default_factory=list)

    def reason(self, node: str) -> str:
        """The reason on ``node``; KeyError when the replay did not consider it."""
        for n in self.nodes:
            if n.node == node:
                return n.reason
        raise KeyError(node)


class ReplayFrames(NamedTuple):
    """:meth:`ReplayResult.to_pandas`: ``placements`` (one row per device of a started pod; a pod
    without devices has one row with claim, request, driver, pool and device None) and ``pending``
    (one row per pending pod and node, with the reason)."""

    placements: Any
    pending: Any


# The frames' columns; `position` is the pod's place in the queue order (from 0).
PLACEMENT_COLUMNS = ["position", "pod", "node", "claim", "existing", "request", "driver", "pool", "device"]
PENDING_COLUMNS = ["position", "pod", "node", "filter", "reason"]


@dataclass(frozen=True)
class ReplayResult:
    """The replay of a snapshot's pending pods (:meth:`draforge.Snapshot.replay`): the ``policy``
    used, every pending pod in queue ``order``, the pods it ``placed`` and those still ``pending``
    (both in queue order). The snapshot itself is not changed. Equal replays compare equal, and a
    result pickles."""

    policy: str
    order: List[str]
    placed: List[PlacedPod]
    pending: List[PendingPod]

    @property
    def nodes(self) -> Dict[str, str]:
        """Pod -> node it was placed on, for the placed pods."""
        return {p.pod: p.node for p in self.placed}

    @property
    def pending_pods(self) -> List[str]:
        """The pods left pending, in queue order."""
        return [p.pod for p in self.pending]

    @property
    def all_placed(self) -> bool:
        """True when every pending pod was placed (the CLI's exit status 0)."""
        return not self.pending

    def pod(self, name: str) -> Union[PlacedPod, PendingPod]:
        """The outcome of pod ``name`` ("ns/name"); KeyError when it was not pending."""
        for p in self.placed:
            if p.pod == name:
                return p
        for q in self.pending:
            if q.pod == name:
                return q
        raise KeyError(name)

    def to_dict(self) -> Dict[str, Any]:
        """The C ABI's JSON shape (draforge_replay_json): policy, order, placed, pending."""
        return {"policy": self.policy, "order": list(self.order),
                "placed": [{"pod": p.pod, "node": p.node, "claims": [asdict(c) for c in p.claims],
                            "feasible": list(p.feasible)}
                           for p in self.placed],
                "pending": [{"pod": q.pod, "nodes": [asdict(n) for n in q.nodes]} for q in self.pending]}

    def to_pandas(self) -> ReplayFrames:
        """(placements, pending) as two DataFrames, columns PLACEMENT_COLUMNS and PENDING_COLUMNS."""
        pd = _pandas()
        return ReplayFrames(placements=pd.DataFrame(self._placement_rows(), columns=PLACEMENT_COLUMNS),
                            pending=pd.DataFrame(self._pending_rows(), columns=PENDING_COLUMNS))

    def _placement_rows(self) -> List[Dict[str, Any]]:
        position = {pod: i for i, pod in enumerate(self.order)}
        rows: List[Dict[str, Any]] = []
        for p in self.placed:
            before = len(rows)
            for c in p.claims:
                for r in c.results:
                    rows.append({"position": position.get(p.pod, -1), "pod": p.pod, "node": p.node, "claim": c.claim,
                                 "existing": c.existing, "request": r.get("request"), "driver": r.get("driver"),
                                 "pool": r.get("pool"), "device": r.get("device")})
            if len(rows) == before:
                rows.append({"position": position.get(p.pod, -1), "pod": p.pod, "node": p.node, "claim": None,
                             "existing": None, "request": None, "driver": None, "pool": None, "device": None})
        return rows

    def _pending_rows(self) -> List[Dict[str, Any]]:
        position = {pod: i for i, pod in enumerate(self.order)}
        pending: List[Dict[str, Any]] = []
        for q in self.pending:
            for n in q.nodes or [NodeReason(node=None, reason=None, filter=None)]:  # type: ignore[arg-type]
                pending.append({"position": position.get(q.pod, -1), "pod": q.pod, "node": n.node,
                                "filter": n.filter, "reason": n.reason})
        return pending

    def summary(self) -> Dict[str, Any]:
        """One row of :func:`sweep`'s summary frame: policy, pods (pending before the replay), placed,
        pending, devices (device results of the placed pods' claims, kept ones included)."""
        return {"policy": self.policy, "pods": len(self.order), "placed": len(self.placed),
                "pending": len(self.pending),
                "devices": sum(len(c.results) for p in self.placed for c in p.claims)}

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "ReplayResult":
        placed = [PlacedPod(pod=p["pod"], node=p["node"],
                            claims=[PlacedClaim(claim=c["claim"], existing=bool(c.get("existing", False)),
                                                results=list(c.get("results", []))) for c in p.get("claims", [])],
                            feasible=list(p.get("feasible", [])))
                  for p in d.get("placed", [])]
        pending = [PendingPod(pod=q["pod"], nodes=[NodeReason(node=n["node"], reason=n.get("reason", ""),
                                                              filter=n.get("filter", ""))
                                                   for n in q.get("nodes", [])])
                   for q in d.get("pending", [])]
        return cls(policy=d["policy"], order=list(d.get("order", [])), placed=placed, pending=pending)


# -- Edits of the C ABI (draforge_whatif_edit, :meth:`draforge.Snapshot.edit`): plain dicts. --------


class Edited(NamedTuple):
    """A snapshot after :meth:`draforge.Snapshot.edit`, and one sentence per edit saying what it did."""

    snapshot: "Snapshot"
    changes: List[str]


def add_nodes(like: str, count: int) -> Dict[str, Any]:
    """``count`` copies of Node ``like`` with copies of its node-local ResourceSlices (what a cluster
    autoscaler would add): named ``<like>-whatif-1``.."""
    return {"op": "add-nodes", "like": like, "count": count}


def add_template_nodes(node: Mapping[str, Any], count: int, slices: Sequence[Mapping[str, Any]] = (),
                       simulated_device_pools: Sequence[Mapping[str, Any]] = ()) -> Dict[str, Any]:
    """``count`` nodes of a template that is not in the snapshot (a node group's Node), named
    ``<name>-whatif-1``.., each with copies of ``slices`` (spec.nodeName the template's name) and of
    what each SimulatedDevicePool's driver profile publishes on such a node."""
    edit: Dict[str, Any] = {"op": "add-nodes", "count": count, "node": dict(node), "slices": list(slices)}
    if simulated_device_pools:
        edit["simulatedDevicePools"] = list(simulated_device_pools)
    return edit


def taint_devices(rule: Mapping[str, Any]) -> Dict[str, Any]:
    """A DeviceTaintRule (dict) added: its taint on the devices it selects."""
    return {"op": "taint-devices", "rule": dict(rule)}


def set_class_selectors(name: str, *expressions: str) -> Dict[str, Any]:
    """DeviceClass ``name``'s spec.selectors replaced by these CEL expressions."""
    return {"op": "set-class-selectors", "name": name, "selectors": [{"cel": {"expression": x}} for x in expressions]}


def drain_node(name: str) -> Dict[str, Any]:
    """``kubectl drain``: the node cordoned, its pods (but DaemonSet, mirror and terminal ones)
    pending again, their claims released."""
    return {"op": "drain-node", "name": name}


def delete_node(name: str) -> Dict[str, Any]:
    """The node and its node-local ResourceSlices gone; its pods pending again, claims released."""
    return {"op": "delete-node", "name": name}


def delete_claim(name: str) -> Dict[str, Any]:
    """ResourceClaim "ns/name" gone, its devices free."""
    return {"op": "delete-claim", "name": name}


def delete_pod(name: str) -> Dict[str, Any]:
    """Pod "ns/name" gone; claims reserved by nobody deallocated, the ones it owns deleted."""
    return {"op": "delete-pod", "name": name}


# -- Edits: pure functions of the object list, picklable (frozen dataclasses with __call__). --------


def _meta(o: Mapping[str, Any]) -> Mapping[str, Any]:
    return o.get("metadata") or {}


def is_pending(pod: Mapping[str, Any]) -> bool:
    """Whether the replay places ``pod`` (a Pod dict): no spec.nodeName, not terminal
    (status.phase Succeeded or Failed), not being deleted, and spec.schedulerName
    "default-scheduler" or unset."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    return (not spec.get("nodeName") and status.get("phase") not in ("Succeeded", "Failed")
            and not _meta(pod).get("deletionTimestamp")
            and spec.get("schedulerName", "default-scheduler") in ("", "default-scheduler"))


@dataclass(frozen=True)
class DeleteNode:
    """Deletes Node ``name``, the ResourceSlices local to it (spec.nodeName) and the pods bound to it,
    as after the node is deleted and the pod garbage collector has run. Claims keep their
    allocations (devices of the deleted slices are gone with them)."""

    name: str

    def __call__(self, objects: Objects) -> Objects:
        def keep(o: Mapping[str, Any]) -> bool:
            kind = o.get("kind")
            if kind == "Node":
                return _meta(o).get("name") != self.name
            if kind in ("ResourceSlice", "Pod"):
                return (o.get("spec") or {}).get("nodeName") != self.name
            return True

        return [o for o in objects if keep(o)]


@dataclass(frozen=True)
class DeletePods:
    """Deletes the pods that match every given criterion: ``namespace``, ``names`` (pod names, or
    "ns/name"), ``labels`` (each key with that value) and ``pending_only`` (only pods the replay
    would place: :func:`is_pending`). With no criterion but pending_only, every pending pod goes."""

    namespace: Optional[str] = None
    names: Tuple[str, ...] = ()
    labels: Tuple[Tuple[str, str], ...] = ()
    pending_only: bool = True

    def matches(self, o: Mapping[str, Any]) -> bool:
        if o.get("kind") != "Pod":
            return False
        meta = _meta(o)
        ns, name = meta.get("namespace") or "default", meta.get("name", "")
        if self.namespace is not None and ns != self.namespace:
            return False
        if self.names and name not in self.names and f"{ns}/{name}" not in self.names:
            return False
        pod_labels = meta.get("labels") or {}
        if any(pod_labels.get(k) != v for k, v in self.labels):
            return False
        return not self.pending_only or is_pending(o)

    def __call__(self, objects: Objects) -> Objects:
        return [o for o in objects if not self.matches(o)]


@dataclass(frozen=True)
class Variant:
    """One what-if: ``edits`` applied in turn to the base snapshot's objects (each a function from
    the list of object dicts to a new list; none: the base as it is), then a replay with ``policy``,
    ``features``, ``kubernetes_version``, ``max_steps`` and ``explain`` (as
    :meth:`draforge.Snapshot.replay`; ``explain=False`` skips the reasons' sentences, often most of
    the cost when many pods stay pending, and is right when only the counts matter).
    To run on a Dask cluster with worker processes, edits must pickle (cloudpickle: lambdas too)."""

    name: str
    edits: Tuple[Union[Mapping[str, Any], Callable[[Objects], Objects]], ...] = ()
    policy: str = "first-fit"
    features: Features = None
    kubernetes_version: Optional[str] = None
    max_steps: int = 0
    explain: bool = True

    def snapshot(self, base: "Snapshot") -> "Snapshot":
        """``base`` with the edits applied in order (``base`` itself when there are none). An edit
        that is a dict is one of the C ABI's (:func:`add_nodes`, :func:`drain_node`, ...; see
        :meth:`draforge.Snapshot.edit`); any other is a function of the object list."""
        if not self.edits:
            return base
        from . import Cluster  # the package imports this module

        snapshot: Optional["Snapshot"] = base
        objects: Objects = []
        for edit in self.edits:
            if isinstance(edit, Mapping):
                if snapshot is None:
                    cluster = Cluster()
                    cluster.apply(objects)
                    snapshot = cluster.snapshot()
                snapshot = snapshot.edit(edit).snapshot
            else:
                if snapshot is not None:
                    objects, snapshot = snapshot.objects(), None
                objects = edit(objects)
        if snapshot is None:
            cluster = Cluster()
            cluster.apply(objects)
            snapshot = cluster.snapshot()
        return snapshot

    def replay(self, base: "Snapshot") -> ReplayResult:
        """The replay of this variant of ``base``."""
        return self.snapshot(base).replay(policy=self.policy, features=self.features,
                                          kubernetes_version=self.kubernetes_version, max_steps=self.max_steps,
                                          explain=self.explain)


# The frames :func:`sweep` collects, and their columns (after the leading "variant").
SWEEP_FRAMES = ("summary", "placements", "pending")
SUMMARY_COLUMNS = ["policy", "pods", "placed", "pending", "devices"]
_COLUMNS = {"summary": SUMMARY_COLUMNS, "placements": PLACEMENT_COLUMNS, "pending": PENDING_COLUMNS}


def _rows(variants: Sequence[Variant], base: "Snapshot", frame: str) -> List[Dict[str, Any]]:
    """The rows of ``frame`` for ``variants`` run in turn: what one Dask task returns. Rows rather
    than frames, so that the one DataFrame is built once, the same way with or without Dask."""
    rows: List[Dict[str, Any]] = []
    for v in variants:
        r = v.replay(base)
        if frame == "summary":
            part = [r.summary()]
        elif frame == "placements":
            part = r._placement_rows()
        else:
            part = r._pending_rows()
        rows.extend({"variant": v.name, **row} for row in part)
    return rows


def _frame(rows: List[Dict[str, Any]], frame: str):
    return _pandas().DataFrame(rows, columns=["variant"] + _COLUMNS[frame])


def run_variants(base: "Snapshot", variants: Sequence[Variant], frame: str = "summary"):
    """The frame of ``variants`` (in order) run one after the other in this process: what
    :func:`sweep` computes without a client."""
    if frame not in SWEEP_FRAMES:
        raise InvalidInputError(f"frame: expected one of {', '.join(SWEEP_FRAMES)}, got {frame!r}", code=-1)
    return _frame(_rows(variants, base, frame), frame)


def sweep(base: "Snapshot", variants: Sequence[Variant], client: Any = None, *, frame: str = "summary",
          batch_size: Optional[int] = None):
    """Runs every variant of ``base`` and returns one DataFrame, variant by variant in the order given,
    with a leading ``variant`` column (the variant's name): ``frame`` "summary" (one row per variant:
    policy, pods, placed, pending, devices), "placements" or "pending" (the rows of
    :meth:`ReplayResult.to_pandas`).

    ``client``: a ``dask.distributed.Client`` (a LocalCluster's, or one connected to any scheduler
    address); None runs the variants here, one after the other. With a client, ``base`` is scattered
    to every worker once and the variants go in batches of ``batch_size`` (default: about four
    batches per worker thread) as tasks; the frame is the same as without a client. An error in a
    variant (an unknown policy or gate, ...) is raised here, as the draforge exception it was."""
    variants = list(variants)
    if client is None or not variants:
        return run_variants(base, variants, frame)
    if frame not in SWEEP_FRAMES:
        raise InvalidInputError(f"frame: expected one of {', '.join(SWEEP_FRAMES)}, got {frame!r}", code=-1)
    if batch_size is None:
        threads = sum(client.nthreads().values()) or 1
        batch_size = max(1, -(-len(variants) // (4 * threads)))
    if batch_size < 1:
        raise InvalidInputError(f"batch_size: expected a positive number, got {batch_size}", code=-1)
    batches = [variants[i:i + batch_size] for i in range(0, len(variants), batch_size)]
    [remote_base] = client.scatter([base], broadcast=True, hash=False)
    futures = [client.submit(_rows, batch, remote_base, frame, pure=False) for batch in batches]
    try:
        parts = client.gather(futures)
    finally:
        client.cancel(futures + [remote_base])
    return _frame([row for part in parts for row in part], frame)
