"""DRA CEL device selectors, as kube-scheduler evaluates them (cel-go semantics, the Kubernetes CEL
libraries, the cost limit of 1000000).

>>> s = draforge.cel.compile('device.attributes["gpu.example.com"].model == "a100"')
>>> s.matches({"driver": "gpu.example.com", "attributes": {"model": {"string": "a100"}}})
True

Compile errors and runtime errors are InvalidInputError (a ValueError); the message says which
("compilation failed: ..." or "runtime error: ..."). Exceeding the cost limit is LimitError.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

from . import _draforge

Features = Union[None, str, Mapping[str, bool]]


def _gates(features: Features) -> str:
    from . import _gates as gates  # one conversion for the whole package

    return gates(features)


@dataclass(frozen=True)
class SelectorResult:
    """One evaluation: whether the device matches, and the CEL runtime cost."""

    matches: bool
    cost: int

    def __bool__(self) -> bool:
        return self.matches


@dataclass(frozen=True)
class Value:
    """The result of :func:`evaluate`: the value as a CEL literal, its checked type and costs."""

    value: str
    type: str
    cost: int
    estimated_cost: int

    def to_dict(self) -> dict:
        return {"value": self.value, "type": self.type, "cost": self.cost, "estimatedCost": self.estimated_cost}


class Selector:
    """A compiled selector: immutable, may be evaluated from several threads."""

    def __init__(self, native: "_draforge.Selector") -> None:
        self._s = native

    @property
    def expression(self) -> str:
        return self._s.expression

    @property
    def estimated_cost(self) -> int:
        """The worst-case cost estimate (cel-go's estimator for the DRA environment)."""
        return self._s.estimated_cost

    def evaluate(self, device: Mapping[str, Any]) -> SelectorResult:
        """Evaluates the selector on ``device``: the resource.k8s.io/v1 Device fields plus ``driver``
        ({"driver": ..., "attributes": {"model": {"string": "a100"}}, "capacity": {...}})."""
        matches, cost = self._s.evaluate(json.dumps(dict(device)))
        return SelectorResult(matches, cost)

    def matches(self, device: Mapping[str, Any]) -> bool:
        """Whether the selector is true for ``device``."""
        return self.evaluate(device).matches

    def __repr__(self) -> str:
        return f"Selector({self.expression!r})"


def compile(expression: str, *, features: Features = None, check_estimated_cost: bool = False,
            cost_limit: int = 0) -> Selector:
    """Compiles a selector (a bool expression over ``device``). ``check_estimated_cost`` rejects
    expressions whose worst-case estimate exceeds the limit, as API validation does (LimitError).
    ``cost_limit``: runtime limit, 0 for Kubernetes' 1000000."""
    return Selector(_draforge.Selector(expression, _gates(features), check_estimated_cost, cost_limit))


def evaluate(expression: str, *, features: Features = None, cost_limit: int = 0) -> Value:
    """Compiles and evaluates an expression of any type with ``device`` unbound (reading it is a
    runtime error), as ``draforge cel eval`` does."""
    d = json.loads(_draforge.cel_evaluate(expression, _gates(features), cost_limit))
    return Value(value=d["value"], type=d["type"], cost=int(d["cost"]), estimated_cost=int(d["estimatedCost"]))
