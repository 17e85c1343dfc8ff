"""Results of allocate, explain, graph and pools: small dataclasses with ``to_dict()``, and
``to_pandas()`` where pandas is installed."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional


def _pandas():
    try:
        import pandas  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas: pip install pandas") from e
    return pandas


@dataclass(frozen=True)
class AllocatedDevice:
    """One device of an allocation (one entry of status.allocation.devices.results)."""

    claim: str
    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool = False
    share_id: Optional[str] = None

    @property
    def device_id(self) -> str:
        """``driver/pool/device``, upstream's DeviceID.String()."""
        return f"{self.driver}/{self.pool}/{self.device}"


@dataclass(frozen=True)
class AllocationResult:
    """The outcome of :meth:`Snapshot.allocate`. "Does not fit" is a result (``outcome ==
    "unschedulable"``, with kube-scheduler's ``reasons``), never an exception."""

    outcome: str
    node: str
    allocations: Dict[str, Dict[str, Any]]
    reasons: List[str]
    search_steps: int

    @property
    def fits(self) -> bool:
        """True when every claim got devices."""
        return self.outcome == "allocated"

    def __bool__(self) -> bool:
        return self.fits

    @property
    def devices(self) -> List[AllocatedDevice]:
        """Every allocated device, claim by claim, in result order."""
        out = []
        for claim, allocation in self.allocations.items():
            for r in allocation.get("devices", {}).get("results", []):
                out.append(AllocatedDevice(claim=claim, request=r.get("request", ""), driver=r.get("driver", ""),
                                           pool=r.get("pool", ""), device=r.get("device", ""),
                                           admin_access=bool(r.get("adminAccess", False)),
                                           share_id=r.get("shareID")))
        return out

    def to_dict(self) -> Dict[str, Any]:
        """The result as the C ABI's JSON shape: outcome, node, allocations (status.allocation per
        claim, as Kubernetes writes it), reasons, searchSteps."""
        return {"outcome": self.outcome, "node": self.node, "allocations": self.allocations,
                "reasons": list(self.reasons), "searchSteps": self.search_steps}

    def to_pandas(self):
        """One row per allocated device (claim, request, driver, pool, device, admin_access, share_id)."""
        pd = _pandas()
        cols = ["claim", "request", "driver", "pool", "device", "admin_access", "share_id"]
        return pd.DataFrame([asdict(d) for d in self.devices], columns=cols)

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "AllocationResult":
        return cls(outcome=d["outcome"], node=d["node"], allocations=d.get("allocations", {}),
                   reasons=list(d.get("reasons", [])), search_steps=int(d.get("searchSteps", 0)))


@dataclass(frozen=True)
class FunnelStep:
    """One step of the explain funnel: how many devices remain after it, and what removed the others."""

    step: str
    remaining: int
    detail: str


@dataclass(frozen=True)
class RequestFunnel:
    """The funnel of one request ("req" or "req/sub")."""

    request: str
    device_class: str
    needed: int
    all_mode: bool
    admin_access: bool
    steps: List[FunnelStep]
    sentence: str
    first_short: Optional[str] = None
    first_empty: Optional[str] = None
    first_error: Optional[str] = None


@dataclass(frozen=True)
class ClaimConflict:
    """Why a claim does not fit when every request alone could: kind is "same-device", "counters",
    "capacity", "constraint" or "compatibility"."""

    kind: str
    requests: List[str]
    sentence: str
    subject: str = ""


@dataclass(frozen=True)
class NodeVerdict:
    """Whether the claim can be allocated on one node (explain without a node): ``outcome`` is
    "allocated" (it fits), "unschedulable" or "error"; ``reason`` is one sentence when it does not fit
    (the first request that falls short on the node, else the claim-level conflict), "" when it fits."""

    node: str
    fits: bool
    outcome: str
    reason: str = ""


@dataclass(frozen=True)
class NodeGroup:
    """Nodes a claim does not fit on for the same reason (explain without a node), the node's own
    name written as "the node" in ``reason``, so that many nodes read as a few groups."""

    reason: str
    nodes: List[str]


@dataclass(frozen=True)
class Explanation:
    """Why a claim is pending (:meth:`Snapshot.explain`). Without a node, ``nodes`` holds the verdict
    on every node (name order, at most 1000: ``nodes_total`` counts them all, ``nodes_truncated`` says
    some were not examined) and ``nodes_summary`` says on how many the claim fits
    ("claim default/pair fits on no node (0 of 1): node-1: ..."); ``node_groups`` gathers the nodes
    it does not fit on by reason (the short view of many nodes); with a node they are empty."""

    claim: str
    summary: str
    requests: List[RequestFunnel]
    node: Optional[str] = None
    outcome: Optional[str] = None
    conflicts: List[ClaimConflict] = field(default_factory=list)
    nodes: List[NodeVerdict] = field(default_factory=list)
    nodes_summary: str = ""
    nodes_total: int = 0
    nodes_truncated: bool = False
    node_source: str = ""
    node_groups: List[NodeGroup] = field(default_factory=list)

    @property
    def fits_on(self) -> List[str]:
        """The nodes the claim fits on (explain without a node), in name order."""
        return [v.node for v in self.nodes if v.fits]

    def __str__(self) -> str:
        return self.summary

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    def to_pandas(self):
        """One row per (request, funnel step): request, step, remaining, detail."""
        pd = _pandas()
        rows = [{"request": r.request, "step": s.step, "remaining": s.remaining, "detail": s.detail}
                for r in self.requests for s in r.steps]
        return pd.DataFrame(rows, columns=["request", "step", "remaining", "detail"])

    @classmethod
    def _from_json(cls, d: Dict[str, Any], groups: Optional[List[Dict[str, Any]]] = None) -> "Explanation":
        reqs = [RequestFunnel(request=r["request"], device_class=r["deviceClass"], needed=int(r["needed"]),
                              all_mode=bool(r.get("allMode", False)), admin_access=bool(r.get("adminAccess", False)),
                              steps=[FunnelStep(s["step"], int(s["remaining"]), s["detail"]) for s in r["steps"]],
                              sentence=r["sentence"], first_short=r.get("firstShortStep"),
                              first_empty=r.get("firstEmptyStep"), first_error=r.get("firstError"))
                for r in d.get("requests", [])]
        conflicts = [ClaimConflict(kind=c["kind"], requests=list(c["requests"]), sentence=c["sentence"],
                                   subject=c.get("subject", "")) for c in d.get("conflicts", [])]
        nodes = [NodeVerdict(node=v["node"], fits=bool(v["fits"]), outcome=v["outcome"], reason=v.get("reason", ""))
                 for v in d.get("nodes", [])]
        return cls(claim=d["claim"], summary=d["summary"], requests=reqs, node=d.get("node"),
                   outcome=d.get("outcome"), conflicts=conflicts, nodes=nodes,
                   nodes_summary=d.get("nodesSummary", ""), nodes_total=int(d.get("nodesTotal", 0)),
                   nodes_truncated=bool(d.get("nodesTruncated", False)), node_source=d.get("nodeSource", ""),
                   node_groups=[NodeGroup(reason=g["reason"], nodes=list(g["nodes"])) for g in groups or []])


@dataclass(frozen=True)
class Pool:
    """A ResourceSlice pool and its utilisation (devices of the current generation, and how many of
    them an allocation without adminAccess uses)."""

    driver: str
    pool: str
    generation: int
    slices: int
    resource_slice_count: int
    complete: bool
    invalid: bool
    invalid_reason: str
    node: str
    devices: int
    allocated: int

    @property
    def free(self) -> int:
        return self.devices - self.allocated

    @property
    def utilisation(self) -> float:
        """allocated / devices (0.0 for an empty pool)."""
        return self.allocated / self.devices if self.devices else 0.0

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "Pool":
        return cls(driver=d["driver"], pool=d["pool"], generation=int(d["generation"]), slices=int(d["slices"]),
                   resource_slice_count=int(d["resourceSliceCount"]), complete=bool(d["complete"]),
                   invalid=bool(d["invalid"]), invalid_reason=d["invalidReason"], node=d["node"],
                   devices=int(d["devices"]), allocated=int(d["allocated"]))


@dataclass(frozen=True)
class Graph:
    """The relationship graph (Pod -> ResourceClaim -> DeviceClass -> ResourceSlice -> Device ->
    Pool -> Node). ``nodes``, ``edges`` and ``requests`` are the dicts of the C ABI's graph JSON."""

    snapshot: Dict[str, Any]
    nodes: List[Dict[str, Any]]
    edges: List[Dict[str, Any]]
    requests: List[Dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        return {"snapshot": self.snapshot, "nodes": self.nodes, "edges": self.edges, "requests": self.requests}

    def node(self, node_id: str) -> Dict[str, Any]:
        """The node with this id ("ResourceClaim/ns/name"); KeyError when there is none."""
        for n in self.nodes:
            if n["id"] == node_id:
                return n
        raise KeyError(node_id)

    def successors(self, node_id: str, kind: Optional[str] = None) -> List[Dict[str, Any]]:
        """The nodes that edges from ``node_id`` lead to, in edge order, each once. ``kind`` keeps
        only edges of that kind: "podClaim", "podTemplate", "templateClass", "claimClass",
        "classSlice", "sliceDevice", "devicePool", "slicePool", "poolNode" or "allocation"
        (``g.successors("ResourceClaim/ns/c", "allocation")``: the devices allocated to a claim).
        KeyError when no node has this id."""
        return self._neighbours(node_id, kind, "from", "to")

    def predecessors(self, node_id: str, kind: Optional[str] = None) -> List[Dict[str, Any]]:
        """The nodes with an edge to ``node_id``, in edge order, each once; ``kind`` as for
        :meth:`successors` (``g.predecessors("Device/drv/pool/dev", "allocation")``: the claims
        holding a device). KeyError when no node has this id."""
        return self._neighbours(node_id, kind, "to", "from")

    def _neighbours(self, node_id: str, kind: Optional[str], here: str, there: str) -> List[Dict[str, Any]]:
        self.node(node_id)  # KeyError for an unknown id, rather than an empty answer
        by_id = {n["id"]: n for n in self.nodes}
        seen: List[str] = []
        for e in self.edges:
            if e[here] == node_id and (kind is None or e["kind"] == kind) and e[there] not in seen:
                seen.append(e[there])
        return [by_id[i] for i in seen]

    def to_networkx(self):
        """A networkx.MultiDiGraph: node attributes are the node dicts, edge attributes kind and label
        (and allocation for allocation edges)."""
        try:
            import networkx as nx
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("to_networkx() needs networkx: pip install networkx") from e
        g = nx.MultiDiGraph()
        for n in self.nodes:
            g.add_node(n["id"], **{k: v for k, v in n.items() if k != "id"})
        for e in self.edges:
            g.add_edge(e["from"], e["to"], key=f'{e["kind"]}:{e.get("label", "")}',
                       **{k: v for k, v in e.items() if k not in ("from", "to")})
        return g

    def to_pandas(self):
        """(nodes, edges) as two DataFrames."""
        pd = _pandas()
        return pd.DataFrame(self.nodes), pd.DataFrame(self.edges)

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "Graph":
        return cls(snapshot=d.get("snapshot", {}), nodes=d.get("nodes", []), edges=d.get("edges", []),
                   requests=d.get("requests", []))
