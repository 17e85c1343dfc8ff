"""Container Device Interface (CDI) specs: what a DRA node plugin writes for the container runtime
for the claims allocated on its node, validated as strictly as runtimes read them, written
atomically (never a half-written file).

>>> specs = draforge.cdi.generate(cluster.snapshot(), "node-1")
>>> specs.write("/var/run/cdi")          # replaces each file whole; removes DRAForge's stale files
>>> draforge.cdi.validate(open("spec.json").read())
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _draforge


@dataclass(frozen=True)
class Problem:
    """One problem of a spec: a JSON path ("$.devices[0].name") and what is wrong."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class ValidationResult:
    """The outcome of :func:`validate`: an invalid document is a result, not an exception."""

    valid: bool
    problems: List[Problem]

    def __bool__(self) -> bool:
        return self.valid


@dataclass(frozen=True)
class ClaimSpec:
    """The spec of one claim and one driver: its file name, the CDI document, and the CDI device IDs
    per request (what NodePrepareResources returns to the kubelet)."""

    claim: str
    claim_uid: str
    driver: str
    file_name: str
    document: Dict[str, Any]
    cdi_device_ids: Dict[str, List[str]]

    def to_dict(self) -> Dict[str, Any]:
        return {"claim": self.claim, "claimUID": self.claim_uid, "driver": self.driver, "fileName": self.file_name,
                "document": self.document, "cdiDeviceIDs": self.cdi_device_ids}


@dataclass(frozen=True)
class ClaimFailure:
    """A claim whose spec could not be built (its previous file, if any, is kept by write())."""

    claim: str
    claim_uid: str
    driver: str
    file_name: str
    message: str


@dataclass(frozen=True)
class WriteReport:
    """What :meth:`NodeSpecs.write` did, by file name."""

    written: List[str]
    unchanged: List[str]
    removed: List[str]


class NodeSpecs:
    """The specs for one node (:func:`generate`)."""

    def __init__(self, node: str, native: "_draforge.CdiSpecs") -> None:
        self.node = node
        self._n = native
        summary = json.loads(native.json())
        self.specs: List[ClaimSpec] = [
            ClaimSpec(claim=s["claim"], claim_uid=s["claimUID"], driver=s["driver"], file_name=s["fileName"],
                      document=json.loads(native.document(i)),
                      cdi_device_ids={r["request"]: list(r["cdiDeviceIDs"]) for r in s["requests"]})
            for i, s in enumerate(summary["specs"])]
        self.failed: List[ClaimFailure] = [
            ClaimFailure(claim=f["claim"], claim_uid=f["claimUID"], driver=f["driver"], file_name=f["fileName"],
                         message=f["message"]) for f in summary["failed"]]

    def __len__(self) -> int:
        return len(self.specs)

    def write(self, directory: Union[str, "os.PathLike[str]"]) -> WriteReport:
        """Makes ``directory`` hold exactly these specs among the files DRAForge owns there: each file
        is replaced atomically, stale ones removed, other files never touched. A file that cannot be
        written keeps its previous document and raises draforge.Error after the others are done."""
        r = json.loads(self._n.write(os.fspath(directory)))
        return WriteReport(written=r["written"], unchanged=r["unchanged"], removed=r["removed"])

    def to_dict(self) -> Dict[str, Any]:
        return {"node": self.node, "specs": [s.to_dict() for s in self.specs],
                "failed": [vars(f) for f in self.failed]}


def generate(snapshot: Any, node: str, *, drivers: Optional[Sequence[str]] = None,
             max_version: Optional[str] = None) -> NodeSpecs:
    """The CDI specs for the claims of ``snapshot`` (a Snapshot or a Cluster) allocated on ``node``:
    one per (claim, driver). ``drivers`` limits them to some drivers; ``max_version`` is the newest
    cdiVersion the node's runtimes accept (default "0.5.0")."""
    snap = snapshot.snapshot() if hasattr(snapshot, "snapshot") else snapshot
    native = _draforge.cdi_generate(snap._s, node, ",".join(drivers or []), max_version or "")
    return NodeSpecs(node, native)


def validate(document: Union[str, bytes, Dict[str, Any]], *, yaml: Optional[bool] = None, compat: bool = False,
             max_version: Optional[str] = None) -> ValidationResult:
    """Validates one CDI spec document (JSON or YAML text, or a dict). ``compat``: what released
    container runtimes accept, instead of DRAForge's strict rules for what it writes.
    ``yaml``: the format (default: JSON when the text starts with '{')."""
    if isinstance(document, dict):
        text, is_yaml = json.dumps(document), False
    else:
        text = document.decode("utf-8") if isinstance(document, bytes) else document
        is_yaml = (not text.lstrip().startswith("{")) if yaml is None else yaml
    valid, problems = _draforge.cdi_validate(text, is_yaml, compat, max_version or "")
    return ValidationResult(valid, [Problem(p["path"], p["message"]) for p in json.loads(problems)])
