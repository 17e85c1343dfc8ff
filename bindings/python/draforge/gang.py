"""Gang placement (docs/whatif.md, "Gang placement"): can every member of a PodGroup
(scheduling.k8s.io/v1beta1) get a node at once, as kube-scheduler 1.37's pod group cycle decides it
(:meth:`draforge.Snapshot.gang`, the C ABI's draforge_gang_json)? Results pickle and give pandas
frames."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, NamedTuple

from ._results import _pandas
from .whatif import NodeReason, PendingPod, PlacedClaim, PlacedPod


@dataclass(frozen=True)
class GroupClaim:
    """One entry of the PodGroup's spec.resourceClaims: the ResourceClaim it is (``claim``,
    "ns/name"), where that came from (``source``: "claim", "template" or "template-instantiated"),
    whether it was allocated before (``existing``), the member whose placement allocated it
    (``allocated_by``), the placed ``members`` that share it and its device ``results``."""

    name: str
    claim: str
    source: str
    existing: bool
    allocated_by: str
    members: List[str] = field(default_factory=list)
    results: List[Dict[str, Any]] = field(default_factory=list)


class GangFrames(NamedTuple):
    """:meth:`GangResult.to_pandas`: ``members`` (one row per member: position in the cycle's order,
    pod, outcome "placed"/"unschedulable"/"not-tried"/"bound", node) and ``reasons`` (one row per
    unschedulable member and node, with the filter and reason)."""

    members: Any
    reasons: Any


MEMBER_COLUMNS = ["position", "pod", "outcome", "node", "devices"]
REASON_COLUMNS = ["pod", "node", "filter", "reason"]


@dataclass(frozen=True)
class GangResult:
    """A gang placement (:meth:`draforge.Snapshot.gang`). ``fits``: at least ``min_count`` members
    (``scheduled`` ones, already bound, included) get a node, and the ``placed`` ones would bind;
    otherwise nothing binds, ``placed`` is the placement the scheduler undoes, ``blocking`` names the
    member after whose failure minCount was out of reach and ``status`` gives the scheduler's words.
    Equal results compare equal, and a result pickles."""

    group: str
    policy: str
    min_count: int
    fits: bool
    status: str
    blocking: str
    scheduled: List[str]
    order: List[str]
    placed: List[PlacedPod]
    unschedulable: List[PendingPod]
    not_tried: List[str]
    group_claims: List[GroupClaim]

    @property
    def nodes(self) -> Dict[str, str]:
        """Member -> node, for the placed members."""
        return {p.pod: p.node for p in self.placed}

    def to_dict(self) -> Dict[str, Any]:
        """The C ABI's JSON shape (draforge_gang_json)."""
        return {"group": self.group, "policy": self.policy, "minCount": self.min_count, "fits": self.fits,
                "status": self.status, "blocking": self.blocking, "scheduled": list(self.scheduled),
                "order": list(self.order),
                "placed": [{"pod": p.pod, "node": p.node, "feasible": list(p.feasible),
                            "claims": [asdict(c) for c in p.claims]} for p in self.placed],
                "unschedulable": [{"pod": q.pod, "nodes": [asdict(n) for n in q.nodes]} for q in self.unschedulable],
                "notTried": list(self.not_tried),
                "groupClaims": [{"name": c.name, "claim": c.claim, "source": c.source, "existing": c.existing,
                                 "allocatedBy": c.allocated_by, "members": list(c.members),
                                 "results": list(c.results)} for c in self.group_claims]}

    def to_pandas(self) -> GangFrames:
        """(members, reasons) as two DataFrames, columns MEMBER_COLUMNS and REASON_COLUMNS."""
        pd = _pandas()
        position = {pod: i for i, pod in enumerate(self.order)}
        rows: List[Dict[str, Any]] = []
        for pod in self.scheduled:
            rows.append({"position": -1, "pod": pod, "outcome": "bound", "node": None, "devices": None})
        for p in self.placed:
            devices = [f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}" for c in p.claims for r in c.results]
            rows.append({"position": position.get(p.pod, -1), "pod": p.pod, "outcome": "placed", "node": p.node,
                         "devices": " ".join(devices)})
        for q in self.unschedulable:
            rows.append({"position": position.get(q.pod, -1), "pod": q.pod, "outcome": "unschedulable",
                         "node": None, "devices": None})
        for pod in self.not_tried:
            rows.append({"position": position.get(pod, -1), "pod": pod, "outcome": "not-tried", "node": None,
                         "devices": None})
        rows.sort(key=lambda r: r["position"])
        reasons = [{"pod": q.pod, "node": n.node, "filter": n.filter, "reason": n.reason}
                   for q in self.unschedulable for n in q.nodes]
        return GangFrames(members=pd.DataFrame(rows, columns=MEMBER_COLUMNS),
                          reasons=pd.DataFrame(reasons, columns=REASON_COLUMNS))

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "GangResult":
        placed = [PlacedPod(pod=p["pod"], node=p["node"],
                            claims=[PlacedClaim(claim=c["claim"], existing=bool(c.get("existing", False)),
                                                results=list(c.get("results", []))) for c in p.get("claims", [])],
                            feasible=list(p.get("feasible", [])))
                  for p in d.get("placed", [])]
        unschedulable = [PendingPod(pod=q["pod"], nodes=[NodeReason(node=n["node"], reason=n.get("reason", ""),
                                                                    filter=n.get("filter", ""))
                                                         for n in q.get("nodes", [])])
                         for q in d.get("unschedulable", [])]
        claims = [GroupClaim(name=c["name"], claim=c["claim"], source=c["source"], existing=bool(c.get("existing")),
                             allocated_by=c.get("allocatedBy", ""), members=list(c.get("members", [])),
                             results=list(c.get("results", []))) for c in d.get("groupClaims", [])]
        return cls(group=d["group"], policy=d["policy"], min_count=int(d["minCount"]), fits=bool(d["fits"]),
                   status=d.get("status", ""), blocking=d.get("blocking", ""), scheduled=list(d.get("scheduled", [])),
                   order=list(d.get("order", [])), placed=placed, unschedulable=unschedulable,
                   not_tried=list(d.get("notTried", [])), group_claims=claims)
