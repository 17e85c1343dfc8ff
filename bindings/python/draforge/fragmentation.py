"""Fragmentation and defrag advice (docs/whatif.md, "Fragmentation" and "Defrag advice"):
:meth:`draforge.Snapshot.fragmentation`, the C ABI's draforge_fragmentation_json.

Devices are grouped into kinds (driver and size: counters consumed, else capacity). Per node (and
pool) and kind: devices, allocated, tainted, free, ``fit`` (how many one claim could get now against
the free devices and shared counters), ``ideal`` (how many the free counters would hold if packed)
and ``score`` = 1 - fit/ideal. Across the cluster, per kind: the largest fit on one node and
``score`` = 1 - largest/sum. With a shape, the advice: the fewest moves (pods deleted and created
again pinned to a node, their claims allocated again there) after which the shape is placed.

>>> r = snapshot.fragmentation(shape_pod="team-a/pair")
>>> r.advice.moves[0].to_node
'node-b'
>>> kinds, cluster, moves = r.to_pandas()
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, NamedTuple, Optional

from ._results import _pandas

# The frames' columns.
KIND_COLUMNS = ["node", "pool", "driver", "kind", "size", "devices", "allocated", "tainted", "free", "fit", "ideal",
                "score"]
CLUSTER_COLUMNS = ["driver", "kind", "size", "free", "fit", "largest_fit", "largest_node", "score"]
MOVE_COLUMNS = ["step", "pod", "claims", "from_node", "to_node", "from_devices", "to_devices"]


@dataclass(frozen=True)
class DefragMove:
    """One move: the ``pods`` rescheduled together (they share claims), their allocated ``claims``
    before and ``claims_after`` (a template's claim is made again), from which node and devices to
    which ("driver/pool/device")."""

    pods: List[str]
    claims: List[str]
    claims_after: List[str]
    from_node: str
    to_node: str
    from_devices: List[str] = field(default_factory=list)
    to_devices: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class DefragAdvice:
    """The advice for ``shape``: whether it ``fits_now`` (then no move), else ``blocked`` (node ->
    "Filter: reason" as replay says it), whether moves were ``found``, the ``node`` where room is
    made, the ``moves`` in order, where the shape then goes (``shape_node``, ``shape_claims``: claim
    -> status.allocation.devices.results), the search bounds and how many sets were tried, and
    ``why`` when nothing was found."""

    shape: str
    fits_now: bool
    found: bool
    node: str
    moves: List[DefragMove]
    shape_node: str
    shape_claims: Dict[str, List[Dict[str, Any]]]
    blocked: Dict[str, str]
    search: Dict[str, Any]
    why: str

    @property
    def ok(self) -> bool:
        """True when the shape fits now or after the moves (the CLI's exit status 0)."""
        return self.fits_now or self.found


class FragmentationFrames(NamedTuple):
    """:meth:`FragmentationResult.to_pandas`: ``kinds`` (one row per node and kind, and per kind of a
    pool that is not node-local, with ``node`` None), ``cluster`` (one row per kind) and ``moves``
    (one row per pod of each advised move; empty without advice)."""

    kinds: Any
    cluster: Any
    moves: Any


@dataclass(frozen=True)
class FragmentationResult:
    """draforge_fragmentation_json as Python objects: ``pools``, ``nodes``, ``kinds`` (the C ABI's
    dicts), ``skipped`` pools and the ``advice`` (None without a shape). Pickles; equal results
    compare equal."""

    pools: List[Dict[str, Any]]
    nodes: List[Dict[str, Any]]
    kinds: List[Dict[str, Any]]
    skipped: List[str]
    advice: Optional[DefragAdvice]
    raw: Dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    def node(self, name: str) -> Dict[str, Any]:
        """The entry of node ``name``; KeyError when it has no node-local devices."""
        for n in self.nodes:
            if n["node"] == name:
                return n
        raise KeyError(name)

    def to_dict(self) -> Dict[str, Any]:
        """The C ABI's JSON object."""
        return dict(self.raw)

    def to_pandas(self) -> FragmentationFrames:
        """(kinds, cluster, moves) as DataFrames with KIND_COLUMNS, CLUSTER_COLUMNS, MOVE_COLUMNS."""
        pd = _pandas()
        kinds = []
        for n in self.nodes:
            for k in n["kinds"]:
                kinds.append({"node": n["node"], "pool": None, **{c: k[c] for c in KIND_COLUMNS[2:]}})
        for p in self.pools:
            if p["node"]:
                continue
            for k in p["kinds"]:
                kinds.append({"node": None, "pool": p["pool"], **{c: k[c] for c in KIND_COLUMNS[2:]}})
        cluster = [{"driver": k["driver"], "kind": k["kind"], "size": k["size"], "free": k["free"], "fit": k["fit"],
                    "largest_fit": k["largestFit"], "largest_node": k["largestNode"] or None, "score": k["score"]}
                   for k in self.kinds]
        moves = []
        if self.advice is not None:
            for i, m in enumerate(self.advice.moves):
                for pod in m.pods:
                    moves.append({"step": i + 1, "pod": pod, "claims": ", ".join(m.claims), "from_node": m.from_node,
                                  "to_node": m.to_node, "from_devices": ", ".join(m.from_devices),
                                  "to_devices": ", ".join(m.to_devices)})
        return FragmentationFrames(kinds=pd.DataFrame(kinds, columns=KIND_COLUMNS),
                                   cluster=pd.DataFrame(cluster, columns=CLUSTER_COLUMNS),
                                   moves=pd.DataFrame(moves, columns=MOVE_COLUMNS))

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "FragmentationResult":
        advice = None
        a = d.get("advice")
        if a is not None:
            moves = [DefragMove(pods=list(m["pods"]), claims=list(m["claims"]), claims_after=list(m["claimsAfter"]),
                                from_node=m["fromNode"], to_node=m["toNode"], from_devices=list(m["fromDevices"]),
                                to_devices=list(m["toDevices"]))
                     for m in a.get("moves", [])]
            advice = DefragAdvice(shape=a["shape"], fits_now=bool(a["fitsNow"]), found=bool(a["found"]),
                                  node=a.get("node", ""), moves=moves, shape_node=a.get("shapeNode", ""),
                                  shape_claims={c["claim"]: list(c["results"]) for c in a.get("shapeClaims", [])},
                                  blocked={b["node"]: f"{b['filter']}: {b['reason']}" for b in a.get("blocked", [])},
                                  search=dict(a.get("search", {})), why=a.get("why", ""))
        return cls(pools=list(d.get("pools", [])), nodes=list(d.get("nodes", [])), kinds=list(d.get("kinds", [])),
                   skipped=list(d.get("skipped", [])), advice=advice, raw=d)
