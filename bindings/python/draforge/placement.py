"""Results of cluster-wide placement (draforge/place.h): on which nodes a pod fits
(:meth:`draforge.Snapshot.place`), and how many more claims like one fit, and where
(:meth:`draforge.Snapshot.how_many_more`). Only DRA is considered: node affinity, taints and
resources are not. "Does not fit" is a result, never an exception."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional

from ._results import _pandas


@dataclass(frozen=True)
class PodClaim:
    """One entry of the pod's spec.resourceClaims, resolved as the scheduler's PreFilter does.
    ``source`` is "claim" (resourceClaimName), "template" (the template's claim, already created) or
    "template-instantiated" (not created yet: built in memory from the template); ``found`` is False
    for a claim or template that is not in the snapshot."""

    name: str
    claim: str
    source: str
    allocated: bool
    found: bool
    template: str = ""


@dataclass(frozen=True)
class NodePlacement:
    """The pod on one node: ``outcome`` "allocated" (it fits; ``allocations`` maps each claim to its
    status.allocation and whether it was ``existing``), "unschedulable" (``reasons`` are
    kube-scheduler's, ``why`` one readable sentence) or "error" (``error``: the allocator failed on
    this node, e.g. a CEL runtime error or max_steps)."""

    node: str
    fits: bool
    outcome: str
    reasons: List[str] = field(default_factory=list)
    why: str = ""
    error: str = ""
    allocations: List[Dict[str, Any]] = field(default_factory=list)
    search_steps: int = 0


@dataclass(frozen=True)
class Placement:
    """On which nodes pod ``pod`` fits (:meth:`draforge.Snapshot.place`). ``nodes`` holds every node
    in name order; ``node_source`` says where the node list came from ("nodes": the Node objects,
    "slices": the nodes node-local ResourceSlices name). ``unresolvable`` lists pod-level problems
    that make every node fail (a claim or template that is not found, ...)."""

    pod: str
    node_source: str
    claims: List[PodClaim]
    fitting_nodes: List[str]
    unresolvable: List[str]
    nodes: List[NodePlacement]

    @property
    def fits(self) -> bool:
        """True when the pod fits on at least one node."""
        return bool(self.fitting_nodes)

    def __bool__(self) -> bool:
        return self.fits

    def node(self, name: str) -> NodePlacement:
        """The verdict on node ``name``; KeyError when the placement did not consider it."""
        for n in self.nodes:
            if n.node == name:
                return n
        raise KeyError(name)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    def to_pandas(self):
        """One row per node: node, fits, outcome, why, search_steps."""
        pd = _pandas()
        cols = ["node", "fits", "outcome", "why", "search_steps"]
        return pd.DataFrame([{c: getattr(n, c) for c in cols} for n in self.nodes], columns=cols)

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "Placement":
        claims = [PodClaim(name=c["name"], claim=c["claim"], source=c["source"], allocated=bool(c["allocated"]),
                           found=bool(c["found"]), template=c.get("template", "")) for c in d.get("claims", [])]
        nodes = [NodePlacement(node=n["node"], fits=bool(n["fits"]), outcome=n["outcome"],
                               reasons=list(n.get("reasons", [])), why=n.get("why", ""), error=n.get("error", ""),
                               allocations=list(n.get("allocations", [])), search_steps=int(n.get("searchSteps", 0)))
                 for n in d.get("nodes", [])]
        return cls(pod=d["pod"], node_source=d.get("nodeSource", ""), claims=claims,
                   fitting_nodes=list(d.get("fittingNodes", [])), unresolvable=list(d.get("unresolvable", [])),
                   nodes=nodes)


@dataclass(frozen=True)
class NodeCount:
    """How many copies went to one node, and (when the node was exhausted) why the next did not fit:
    ``reasons`` are the allocator's, ``why`` the explain funnel's sentence."""

    node: str
    count: int
    reasons: List[str] = field(default_factory=list)
    why: str = ""
    # Pod prototypes and packages: "devices", or the resource ("cpu", "memory", "pods") that stopped
    # the node; "" otherwise.
    limited_by: str = ""


@dataclass(frozen=True)
class PlacedCopy:
    """One copy placed: its name ("ns/<name>-more-<i>"), node and status.allocation."""

    claim: str
    node: str
    allocation: Dict[str, Any]


@dataclass(frozen=True)
class HowManyMore:
    """How many more claims like ``prototype`` fit (:meth:`draforge.Snapshot.how_many_more`):
    ``total`` copies, placed greedily node by node in name order. ``stop`` says why counting ended:
    "exhausted" (no node takes another), "cap" (``cap`` copies placed), "error" (the allocator failed:
    ``error`` on ``error_node``) or "no-nodes"."""

    prototype: str
    total: int
    cap: int
    stop: str
    nodes: List[NodeCount]
    copies: List[PlacedCopy]
    error: str = ""
    error_node: str = ""
    # Pod prototypes and packages: whether node resources were checked (not when the nodes come
    # from slices). With a quota: how many units the namespace's ResourceQuotas admit (None: no
    # quota limits them) and the binding quota in words.
    resources_checked: bool = False
    quota_units: Optional[int] = None
    quota_why: str = ""

    def __int__(self) -> int:
        return self.total

    @property
    def per_node(self) -> Dict[str, int]:
        """Copies per node, every node included (0 where none fit)."""
        return {n.node: n.count for n in self.nodes}

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    def to_pandas(self):
        """One row per node: node, count, why."""
        pd = _pandas()
        return pd.DataFrame([{"node": n.node, "count": n.count, "why": n.why} for n in self.nodes],
                            columns=["node", "count", "why"])

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "HowManyMore":
        nodes = [NodeCount(node=n["node"], count=int(n["count"]), reasons=list(n.get("reasons", [])),
                           why=n.get("why", ""), limited_by=n.get("limitedBy", "")) for n in d.get("nodes", [])]
        quota = d.get("quota", {})
        copies = [PlacedCopy(claim=c["claim"], node=c["node"], allocation=c.get("allocation", {}))
                  for c in d.get("copies", [])]
        return cls(prototype=d["prototype"], total=int(d["total"]), cap=int(d["cap"]), stop=d["stop"], nodes=nodes,
                   copies=copies, error=d.get("error", ""), error_node=d.get("errorNode", ""),
                   resources_checked=bool(d.get("resourcesChecked", False)), quota_units=quota.get("units"),
                   quota_why=quota.get("why", ""))


__all__ = ["HowManyMore", "NodeCount", "NodePlacement", "PlacedCopy", "Placement", "PodClaim"]
