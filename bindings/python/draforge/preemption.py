"""The preemption what-if (docs/whatif.md): which pods kube-scheduler's DefaultPreemption would evict
so that a pending pod can run, DRA-aware as KEP-5690 proposes (:meth:`draforge.Snapshot.preempt`,
the C ABI's draforge_whatif_preempt_json).

>>> r = draforge.Cluster.from_files("tests/cli/data/whatif/preempt-small.yaml").preempt("team-a/trainer")
>>> r.node, r.victim_pods
('node-b', ['team-a/render-1', 'team-a/render-2'])
>>> victims, nodes = r.to_pandas()
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, NamedTuple

from ._results import _pandas
from .whatif import NodeReason

# PreemptionResult.outcome values.
OUTCOMES = ("preempt", "fits", "not-eligible", "no-candidate")


@dataclass(frozen=True)
class PreemptionVictim:
    """A pod preemption would evict: its ``priority``, ``start_time`` (status.startTime, "" when
    unset), the claims its eviction frees (every pod using them is a victim) and those it uses that
    stay allocated, and the PodDisruptionBudget its eviction exceeds ("" when none)."""

    pod: str
    priority: int
    start_time: str = ""
    claims_freed: List[str] = field(default_factory=list)
    claims_kept: List[str] = field(default_factory=list)
    pdb_violated: str = ""


@dataclass(frozen=True)
class PreemptionCandidate:
    """A node where preemption makes the pod fit, with its victims (most important first)."""

    node: str
    victims: List[PreemptionVictim] = field(default_factory=list)
    pdb_violations: int = 0


class PreemptionFrames(NamedTuple):
    """:meth:`PreemptionResult.to_pandas`: ``victims`` (one row per victim of every candidate node,
    ``chosen`` True on the node picked) and ``nodes`` (one row per node that is not a candidate)."""

    victims: Any
    nodes: Any


VICTIM_COLUMNS = ["node", "chosen", "pod", "priority", "start_time", "claims_freed", "claims_kept", "pdb_violated"]
NODE_COLUMNS = ["node", "filter", "reason"]


@dataclass(frozen=True)
class PreemptionResult:
    """The answer for one pending pod: ``outcome`` ("preempt": ``node`` and ``victims``; "fits":
    ``fitting_nodes``; "not-eligible": preemptionPolicy Never; "no-candidate": ``nodes`` says why
    for every node), the rule that chose the node (``decided_by``), every ``candidates`` node and
    whether the answer is DRA-aware (``dra_aware``) or the released 1.37 scheduler's. Pickles."""

    pod: str
    priority: int
    outcome: str
    dra_aware: bool
    message: str = ""
    node: str = ""
    decided_by: str = ""
    pdb_violations: int = 0
    victims: List[PreemptionVictim] = field(default_factory=list)
    candidates: List[PreemptionCandidate] = field(default_factory=list)
    fitting_nodes: List[str] = field(default_factory=list)
    nodes: List[NodeReason] = field(default_factory=list)

    @property
    def victim_pods(self) -> List[str]:
        """The victims' "ns/name", most important first."""
        return [v.pod for v in self.victims]

    def to_dict(self) -> Dict[str, Any]:
        """The C ABI's JSON shape (draforge_whatif_preempt_json)."""
        def victim(v: PreemptionVictim) -> Dict[str, Any]:
            return {"pod": v.pod, "priority": v.priority, "startTime": v.start_time,
                    "claimsFreed": list(v.claims_freed), "claimsKept": list(v.claims_kept),
                    "pdbViolated": v.pdb_violated}
        return {"pod": self.pod, "priority": self.priority, "outcome": self.outcome, "draAware": self.dra_aware,
                "message": self.message, "node": self.node, "decidedBy": self.decided_by,
                "pdbViolations": self.pdb_violations, "victims": [victim(v) for v in self.victims],
                "candidates": [{"node": c.node, "pdbViolations": c.pdb_violations,
                                "victims": [victim(v) for v in c.victims]} for c in self.candidates],
                "fittingNodes": list(self.fitting_nodes),
                "nodes": [{"node": n.node, "filter": n.filter, "reason": n.reason} for n in self.nodes]}

    def to_pandas(self) -> PreemptionFrames:
        """(victims, nodes) as two DataFrames, columns VICTIM_COLUMNS and NODE_COLUMNS."""
        pd = _pandas()
        rows = [{"node": c.node, "chosen": c.node == self.node, "pod": v.pod, "priority": v.priority,
                 "start_time": v.start_time, "claims_freed": list(v.claims_freed),
                 "claims_kept": list(v.claims_kept), "pdb_violated": v.pdb_violated}
                for c in self.candidates for v in c.victims]
        nodes = [{"node": n.node, "filter": n.filter, "reason": n.reason} for n in self.nodes]
        return PreemptionFrames(victims=pd.DataFrame(rows, columns=VICTIM_COLUMNS),
                                nodes=pd.DataFrame(nodes, columns=NODE_COLUMNS))

    @classmethod
    def _from_json(cls, d: Dict[str, Any]) -> "PreemptionResult":
        def victims(items: List[Dict[str, Any]]) -> List[PreemptionVictim]:
            return [PreemptionVictim(pod=v["pod"], priority=int(v["priority"]), start_time=v.get("startTime", ""),
                                     claims_freed=list(v.get("claimsFreed", [])),
                                     claims_kept=list(v.get("claimsKept", [])), pdb_violated=v.get("pdbViolated", ""))
                    for v in items]
        return cls(pod=d["pod"], priority=int(d["priority"]), outcome=d["outcome"], dra_aware=bool(d["draAware"]),
                   message=d.get("message", ""), node=d.get("node", ""), decided_by=d.get("decidedBy", ""),
                   pdb_violations=int(d.get("pdbViolations", 0)), victims=victims(d.get("victims", [])),
                   candidates=[PreemptionCandidate(node=c["node"], victims=victims(c.get("victims", [])),
                                                   pdb_violations=int(c.get("pdbViolations", 0)))
                               for c in d.get("candidates", [])],
                   fitting_nodes=list(d.get("fittingNodes", [])),
                   nodes=[NodeReason(node=n["node"], reason=n.get("reason", ""), filter=n.get("filter", ""))
                          for n in d.get("nodes", [])])
