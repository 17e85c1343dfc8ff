"""Package catalogs: the fixed shapes in which a platform sells capacity (a package ID expands to a
pod's CPU and memory and N devices of one DeviceClass), how many more units of each fit, and the
inventory fields a platform reports. docs/packages.md describes the catalog; these functions wrap
draforge/package.h."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional, Union

from . import _draforge
from .placement import HowManyMore

PathOrText = Union[str, "os.PathLike[str]"]


def _catalog_text(catalog: PathOrText) -> str:
    """A catalog given as its text (anything with a newline or starting with '{') or as a path."""
    if isinstance(catalog, os.PathLike) or ("\n" not in catalog and not catalog.lstrip().startswith("{")):
        with open(catalog, encoding="utf-8") as f:
            return f.read()
    return catalog


@dataclass(frozen=True)
class Package:
    """One package of a catalog."""

    id: str
    spec_name: str
    cpu: str
    memory: str
    gpu: int
    device_class_name: str = ""
    claim_request_name: str = ""
    count: int = 0


@dataclass(frozen=True)
class CatalogCheck:
    """A valid catalog's packages, and its problems against a cluster (empty when none, or when no
    snapshot was given)."""

    packages: List[Package]
    problems: List[str]

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class PackageCapacity:
    """How many more units of one package fit: ``capacity.total`` cluster-wide,
    ``capacity.per_node`` per node, ``capacity.nodes[i].why`` / ``.limited_by`` what stopped a node."""

    id: str
    spec_name: str
    cpu: str
    memory: str
    gpu: int
    device_class_name: str
    capacity: HowManyMore

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def validate_catalog(catalog: PathOrText, snapshot: Any = None) -> CatalogCheck:
    """Parses and validates ``catalog`` (a path or the YAML/JSON text); with a ``snapshot``
    (draforge.Snapshot) also checks that every DeviceClass it names exists. Raises
    InvalidInputError listing every problem with its field path for a catalog that does not
    validate."""
    handle = None if snapshot is None else snapshot._s
    d = json.loads(_draforge.package_validate_json(_catalog_text(catalog), handle))
    packages = [Package(id=p["id"], spec_name=p["specName"], cpu=p["cpu"], memory=p["memory"], gpu=int(p["gpu"]),
                        device_class_name=p["deviceClassName"], claim_request_name=p["claimRequestName"],
                        count=int(p["count"])) for p in d["packages"]]
    return CatalogCheck(packages=packages, problems=list(d["problems"]))


def expand_package(catalog: PathOrText, id: str, name: str, *, image: str,
                   namespace: str = "default") -> List[Dict[str, Any]]:
    """The objects one unit of package ``id`` is made of, as the API server would accept them: the
    ResourceClaim ``<name>-<claimRequestName>`` (none for a CPU-only package) and the Pod ``name``
    that uses it. NotFoundError for an unknown id, InvalidInputError for a bad catalog, name,
    namespace or image."""
    d = json.loads(_draforge.package_expand_json(_catalog_text(catalog), id, name, namespace, image))
    return list(d["objects"])


def package_capacity(snapshot: Any, catalog: PathOrText, *, id: Optional[str] = None,
                     namespace: Optional[str] = None, quota: bool = False, cap: int = 0,
                     features: Union[None, str, Dict[str, bool]] = None, unlock_locked_gates: bool = False,
                     max_steps: int = 0) -> List[PackageCapacity]:
    """How many more units of each package (or only ``id``) fit in ``snapshot`` now, per node and
    cluster-wide: devices through the allocator, cpu/memory/pod slots against each Node's
    allocatable minus the pods bound there, and with ``quota`` the ResourceQuotas of ``namespace``.
    One engine with :meth:`draforge.Snapshot.how_many_more`. NotFoundError for an unknown id,
    InvalidInputError for a bad catalog or options."""
    from . import _gates  # the package's one spelling of feature gates (imported late: no cycle)

    gates = _gates(features)
    out = snapshot._s.package_capacity_json(_catalog_text(catalog), id or "", namespace or "", quota, cap, gates,
                                            unlock_locked_gates, max_steps)
    result = []
    for p in json.loads(out)["packages"]:
        result.append(PackageCapacity(id=p["id"], spec_name=p["specName"], cpu=p["cpu"], memory=p["memory"],
                                      gpu=int(p["gpu"]), device_class_name=p["deviceClassName"],
                                      capacity=HowManyMore._from_json(p["capacity"])))
    return result


def platform_inventory(snapshot: Any) -> Dict[str, Any]:
    """The inventory fields a platform reports, from observed state only: ``totalGpuAllocatable``,
    ``draClaimCount``, ``draAllocatedClaims``, ``draAllocatedDevices``, ``draResourceSlices``,
    ``draDevices`` and ``namespaces`` (the claim fields per namespace)."""
    return json.loads(snapshot._s.package_inventory_json())


__all__ = ["CatalogCheck", "Package", "PackageCapacity", "expand_package", "package_capacity", "platform_inventory",
           "validate_catalog"]
