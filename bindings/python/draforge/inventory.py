"""Inventory views of a snapshot: what an operator asks first (counts and utilisation, pools,
devices, claims, what changed). Each is a dict in the schema of the draforge-server route that
serves it (examples/server/openapi.json, installed as share/draforge/openapi.json), so a notebook,
the CLI and the server read the same documents. Every view starts with
``"snapshot": {"generation": N, "resourceVersion": "..."}``.

>>> inv = cluster.snapshot().inventory
>>> inv.summary()["counts"]
>>> inv.devices(driver="gpu.example.com", allocated=False)["items"]
>>> inv.claims(state="pending")
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, Optional

from . import _draforge

if TYPE_CHECKING:  # pragma: no cover
    from . import Snapshot

# The claim states of :meth:`Inventory.claims`.
CLAIM_STATES = ("pending", "allocated", "reserved")


class Inventory:
    """The inventory views of one snapshot (``Snapshot.inventory``). Immutable like the snapshot;
    the calls release the GIL and may run from several threads."""

    def __init__(self, native: "_draforge.Snapshot") -> None:
        self._s = native

    def summary(self) -> Dict[str, Any]:
        """Summary: object counts (with ``anomalies``) and utilisation per driver and per pool."""
        return json.loads(self._s.summary_json())

    def pools(self, *, driver: Optional[str] = None, node: Optional[str] = None) -> Dict[str, Any]:
        """PoolList: the pools of ``driver`` whose slices are local to ``node`` (None: any), sorted by
        (driver, pool), each with slices, completeness, validity, devices, allocated and tainted
        devices, utilisation and shared counters. (``Snapshot.pools()`` is the older, smaller view.)"""
        return json.loads(self._s.inventory_pools_json(driver, node))

    def pool_status(self, driver: str, *, pool: Optional[str] = None, limit: int = 0,
                    default_partition_type_attribute: Optional[str] = None,
                    now: Optional[str] = None) -> Dict[str, Any]:
        """ResourcePoolStatusRequestStatus (resource.k8s.io/v1alpha3, KEP-5677): pool availability
        as kube-controller-manager computes it for a request with this spec (``limit`` 0: 100;
        ``now``: the condition's lastTransitionTime, None: the current time). Per pool: totalDevices,
        allocatedDevices, availableDevices, unavailableDevices, partitionSummary, shareableSummary,
        validationError; no ``snapshot`` member (the dict is the status upstream writes; see
        docs/pool-availability.md). InvalidInputError for an empty driver or a limit outside 0..1000."""
        return json.loads(self._s.pool_status_json(driver, pool, limit, default_partition_type_attribute, now))

    def devices(self, *, driver: Optional[str] = None, pool: Optional[str] = None, node: Optional[str] = None,
                allocated: Optional[bool] = None, offset: int = 0, limit: int = 0) -> Dict[str, Any]:
        """DeviceList: devices of the pools' current generation that match (None: any;
        ``allocated`` True: held by a claim, False: free), sorted by (driver, pool, device); the page
        ``items[offset:offset + limit]`` and ``total`` counting every match. ``limit`` 0 means 1,000;
        over 10,000 is an InvalidInputError."""
        which = _draforge.INVENTORY_ANY if allocated is None else int(bool(allocated))
        return json.loads(self._s.devices_json(driver, pool, node, which, offset, limit))

    def claims(self, *, namespace: Optional[str] = None, state: Optional[str] = None) -> Dict[str, Any]:
        """ClaimList: the ResourceClaims of ``namespace`` in ``state`` ("pending", "allocated" (not
        reserved) or "reserved"; None: any), with requests, allocation, reservedFor, consuming pods
        and status. InvalidInputError for another state."""
        return json.loads(self._s.claims_json(namespace, state))

    def changes_since(self, before: "Snapshot") -> Dict[str, Any]:
        """ChangeEvent: the objects added, modified or deleted from ``before`` to this snapshot
        (``changes``: ``[{"type", "kind", "namespace", "name"}]``, empty when nothing a reader sees
        differs)."""
        return json.loads(self._s.changes_json(before._s))
