"""One declaration per knob: its type and default (the dataclass field) and its valid range.

Hydra's structured configs check key names and types at compose time; ranges ("workers >= 1",
"a share between 0 and 1") live in the same field as metadata, so the schema that Hydra
composes is also the one `xlebench.commands.validate` checks before any work, and there is no
second table of limits to keep in step.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from omegaconf import MISSING


@dataclass(frozen=True)
class Check:
    """Valid values of one knob; ``each`` applies the check to every element of a list or
    every value of a mapping."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    #: A tuple, or a mapping read live (its keys): a registry such as the VLM backends, to
    #: which a plug-in may add after this schema was defined.
    choices: tuple[Any, ...] | Mapping[Any, Any] | None = None
    each: bool = False
    #: A list that must hold at least one value (an empty one would silently make nothing).
    nonempty: bool = False

    def problem(self, value: Any) -> str | None:
        """What is wrong with one value, or None (None values are checked by their type)."""
        if value is None:
            return None
        if self.choices is not None:
            return None if value in self.choices else \
                f"expected one of {', '.join(map(str, self.choices))}"
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            return "expected a finite number"
        bounds = [(self.ge, value >= self.ge if self.ge is not None else True, ">="),
                  (self.gt, value > self.gt if self.gt is not None else True, ">"),
                  (self.le, value <= self.le if self.le is not None else True, "<="),
                  (self.lt, value < self.lt if self.lt is not None else True, "<")]
        if all(ok for _, ok, _ in bounds):
            return None
        return "expected a value " + " and ".join(
            f"{op} {_num(b)}" for b, _, op in bounds if b is not None)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def knob(default: Any = MISSING, *, factory: Callable[[], Any] | None = None,
         ge: float | None = None, gt: float | None = None, le: float | None = None,
         lt: float | None = None, choices: Sequence[Any] | None = None,
         each: bool = False, nonempty: bool = False) -> Any:
    """A dataclass field carrying its valid range (see `Check`)."""
    live = isinstance(choices, Mapping)
    check = Check(ge, gt, le, lt, choices if live or choices is None else tuple(choices), each,
                  nonempty)
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata={"check": check})
    return dataclasses.field(default=default, metadata={"check": check})


def check_of(field: dataclasses.Field) -> Check | None:
    return field.metadata.get("check")
