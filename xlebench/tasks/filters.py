"""Filters any recipe can list after its items are built: ``tasks.<name>.filters``.

A filter keeps or drops each item, writes its verdict into the item's
``provenance.filters.<kind>``, and counts what it dropped (reported in ``stats/tasks.json``),
so a long-term or shortcut-free variant of any recipe is one config line away::

    tasks.object_retrieval.filters=[{kind: certificate, min_s: 30}]

Kinds: ``certificate`` (keep items whose temporal certificate is at least ``min_s``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xlebench.errors import ConfigError


@dataclass
class RecipeParams:
    """Base of every recipe's parameter schema: the filters applied to its items."""

    #: e.g. [{kind: certificate, min_s: 30}]
    filters: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class FilterContext:
    """What a filter may use besides the items (an LLM for model-based filters)."""

    llm: Any = None
    rng: Any = None


Verdict = tuple[bool, dict[str, Any]]


def _certificate(item: dict, spec: Mapping[str, Any], fctx: FilterContext) -> Verdict:
    seconds = item["certificate"]["seconds"]
    return seconds >= float(spec["min_s"]), {"seconds": seconds, "min_s": float(spec["min_s"])}


FILTERS: dict[str, tuple[Callable[[dict, Mapping, FilterContext], Verdict], tuple[str, ...]]] = {
    "certificate": (_certificate, ("min_s",)),
}


def check_filters(name: str, specs: Sequence[Mapping[str, Any]]) -> None:
    """Unknown kinds and missing parameters are configuration errors, before any work."""
    for i, spec in enumerate(specs):
        kind = spec.get("kind") if isinstance(spec, Mapping) else None
        if kind not in FILTERS:
            raise ConfigError(f"tasks.{name}.filters[{i}]: kind {kind!r} is not a filter; "
                              f"choose from {sorted(FILTERS)}")
        missing = [k for k in FILTERS[kind][1] if k not in spec]
        if missing:
            raise ConfigError(f"tasks.{name}.filters[{i}] ({kind}): give {missing}")


def apply_filters(items: list[dict], specs: Sequence[Mapping[str, Any]],
                  fctx: FilterContext) -> tuple[list[dict], Counter]:
    """Items every filter keeps (in order), and per-filter drop counts."""
    dropped: Counter = Counter()
    kept = []
    for item in items:
        ok = True
        for spec in specs:
            passed, verdict = FILTERS[spec["kind"]][0](item, spec, fctx)
            item["provenance"].setdefault("filters", {})[spec["kind"]] = {
                **verdict, "kept": passed}
            if not passed:
                dropped[f"dropped by the {spec['kind']} filter"] += 1
                ok = False
                break
        if ok:
            kept.append(item)
    return kept, dropped
