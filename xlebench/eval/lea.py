"""LEA, the link-based entity-aware co-reference metric (Moosavi and Strube, 2016), as VidSitu
scores co-reference across the roles of a window's events (seed 002, section 6.1).

Mentions are role slots (event, role); an entity is the set of slots one value fills —
exactly the same string, as VidSitu links predicted arguments. For key entities K (the
annotation's) and response entities R (the reply's)::

    link(e)        = |e| (|e| - 1) / 2        (a singleton links to itself: 1)
    resolution(k)  = sum over r of link(k & r) / link(k)
    recall         = sum over k of |k| resolution(k) / sum over k of |k|
    precision      = the same with K and R swapped;  F1 their harmonic mean

A singleton key is resolved when the response holds the same singleton. **LEA-soft**
(VidSitu's Lea-S) weighs every match by how well the response entity's value fits the key's;
VidSitu's supplement, which defines its weight by CIDEr, is not in the text we have, so the
weight here is the ROUGE-L F-measure of the two values (1 for the same string) and the metric
is named for what it is in the README.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

Slot = tuple[int, str]


def entities(values: Mapping[Slot, str]) -> dict[str, frozenset[Slot]]:
    """Slots grouped by the value that fills them (scene roles left out: a place shared by a
    whole window is not an entity)."""
    out: dict[str, set[Slot]] = {}
    for slot, value in values.items():
        if value and slot[1] != "AScn":
            out.setdefault(value.strip().lower(), set()).add(slot)
    return {v: frozenset(s) for v, s in out.items()}


def _link(n: int) -> float:
    return n * (n - 1) / 2


def _side(a: Mapping[str, frozenset[Slot]], b: Mapping[str, frozenset[Slot]],
          weight: Callable[[str, str], float]) -> float:
    total = sum(len(e) for e in a.values())
    if not total:
        return 0.0
    score = 0.0
    for va, ea in a.items():
        if len(ea) == 1:
            res = max((weight(va, vb) for vb, eb in b.items() if eb == ea), default=0.0)
        else:
            res = sum(_link(len(ea & eb)) * weight(va, vb) for vb, eb in b.items()) / _link(len(ea))
        score += len(ea) * res
    return score / total


def lea(key: Mapping[Slot, str], response: Mapping[Slot, str],
        weight: Callable[[str, str], float] | None = None) -> float:
    """LEA F1 of the response's co-reference against the key's (``weight``: LEA-soft)."""
    k, r = entities(key), entities(response)
    w = weight or (lambda _a, _b: 1.0)
    recall = _side(k, r, w)
    precision = _side(r, k, lambda a, b: w(b, a))
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def lea_soft(key: Mapping[Slot, str], response: Mapping[Slot, str]) -> float:
    from xlebench.eval.metrics import rouge_l

    return lea(key, response, lambda a, b: 1.0 if a == b else rouge_l(b, a))
