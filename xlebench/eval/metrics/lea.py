"""Equals: TheShadow29/coval @ 2be2d07 (`coval/eval/evaluator.py`), pinned by VidSitu @ b794988.

Co-reference scores of role values across a window's events, as VidSitu's evaluator
computes them with its pinned CoNLL scorer (TheShadow29/coval @ 2be2d07; seed 002, section
6.1 and supplement E.1).

Mentions are role slots (event, role), every role VidSitu scores, the scene (AScn) included;
an entity is the set of slots one value fills, exactly the same string (VidSitu links
predicted arguments by exact match). Each score is a pair of sums per document (window) —
precision's numerator and denominator over the response's entities, recall's over the key's
— and the corpus score is the F1 of the sums over every window (`f1`), as coval's
``Evaluator`` accumulates them:

- **LEA** (Moosavi and Strube, 2016): an entity of n mentions weighs n and is resolved by the
  share of its n(n-1)/2 links the other side keeps (a singleton: 1 when the other side holds
  the same singleton).
- **LEA-soft** (VidSitu's Lea-S): recall as LEA's; in precision a response entity's numerator
  is the sum of its mentions' CIDEr-D times n times its resolution and its denominator n x n
  (coval's ``lea_soft``: "the sum of cider scores in the numerator and len of cider scores in
  the denominator"), so an entity linked right with wrong words scores low.
- **MUC** (links kept), **B³** (per mention, the share of its entity the other side's holds)
  and **CEAFe** (entities aligned one to one for the most phi4 = 2|k & r| / (|k| + |r|), over
  the number of entities of each side). Luo's (2005) example scores MUC 94.7, B³ 86.5, CEAFe
  73.3 (tests/eval/test_coref.py).

`lea`, `muc`, ... score one document; `xlebench.eval.metrics.corpus_coref` sums windows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import numpy as np

Slot = tuple[int, str]
Cluster = list[Slot]
#: (precision numerator, precision denominator, recall numerator, recall denominator)
Counts = tuple[float, float, float, float]


def clusters(values: Mapping[Slot, str]) -> list[Cluster]:
    """Slots grouped by the exact value that fills them, in first-seen order."""
    out: dict[str, Cluster] = {}
    for slot, value in values.items():
        out.setdefault(value, []).append(slot)
    return list(out.values())


def _owner(side: Sequence[Cluster]) -> dict[Slot, int]:
    return {m: i for i, c in enumerate(side) for m in c}


def _lea_side(a: Sequence[Cluster], b: Sequence[Cluster],
              cider: Mapping[Slot, float] | None = None) -> tuple[float, float]:
    """LEA's sums of ``a``'s entities resolved by ``b``; with ``cider``, LEA-soft's."""
    owner = _owner(b)
    num = den = 0.0
    for c in a:
        if len(c) == 1:
            links, kept = 1.0, float(c[0] in owner and len(b[owner[c[0]]]) == 1)
        else:
            links = len(c) * (len(c) - 1) / 2
            kept = float(sum(m in owner and m2 in owner and owner[m] == owner[m2]
                             for i, m in enumerate(c) for m2 in c[i + 1:]))
        if cider is None:
            num, den = num + len(c) * kept / links, den + len(c)
        else:
            weight = sum(cider.get(m, 0.0) for m in c)
            num, den = num + weight * len(c) * kept / links, den + len(c) * len(c)
    return num, den


def _muc_side(a: Sequence[Cluster], b: Sequence[Cluster]) -> tuple[float, float]:
    owner = _owner(b)
    kept = links = 0
    for c in a:
        links += len(c) - 1
        kept += len(c) - len({owner.get(m, ("alone", m)) for m in c})
    return float(kept), float(links)


def _b3_side(a: Sequence[Cluster], b: Sequence[Cluster]) -> tuple[float, float]:
    owner = _owner(b)
    num = den = 0.0
    for c in a:
        shared = Counter(owner[m] for m in c if m in owner)
        num += sum(k * k for k in shared.values()) / len(c)
        den += len(c)
    return num, den


def _ceafe(key: Sequence[Cluster], response: Sequence[Cluster]) -> Counts:
    from scipy.optimize import linear_sum_assignment

    phi = np.array([[2 * len(set(k) & set(r)) / (len(k) + len(r)) for r in response]
                    for k in key]).reshape(len(key), len(response))
    rows, cols = linear_sum_assignment(-phi)
    best = float(phi[rows, cols].sum())
    return best, float(len(response)), best, float(len(key))


def _sides(side: Callable[[Sequence[Cluster], Sequence[Cluster]], tuple[float, float]]
           ) -> Callable[[Sequence[Cluster], Sequence[Cluster]], Counts]:
    return lambda k, r: (*side(r, k), *side(k, r))


#: one document's counts per metric, from (key clusters, response clusters)
COUNTS: dict[str, Callable[[Sequence[Cluster], Sequence[Cluster]], Counts]] = {
    "lea": _sides(_lea_side), "muc": _sides(_muc_side), "b3": _sides(_b3_side),
    "ceafe": _ceafe}


def lea_soft_counts(key: Sequence[Cluster], response: Sequence[Cluster],
                    cider: Mapping[Slot, float]) -> Counts:
    """LEA-soft's counts: precision weighed by the response's mentions' CIDEr-D."""
    return (*_lea_side(response, key, cider), *_lea_side(key, response))


def f1(p_num: float, p_den: float, r_num: float, r_den: float) -> float:
    """coval's F1 of summed counts (0 where a side is empty)."""
    p = p_num / p_den if p_den else 0.0
    r = r_num / r_den if r_den else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def _one(metric: str) -> Callable[[Mapping[Slot, str], Mapping[Slot, str]], float]:
    def score(key: Mapping[Slot, str], response: Mapping[Slot, str]) -> float:
        return f1(*COUNTS[metric](clusters(key), clusters(response)))
    score.__name__ = metric
    score.__doc__ = f"{metric} F1 of one document's response against its key."
    return score


lea, muc, b_cubed, ceaf_e = _one("lea"), _one("muc"), _one("b3"), _one("ceafe")


def lea_soft(key: Mapping[Slot, str], response: Mapping[Slot, str],
             cider: Mapping[Slot, float]) -> float:
    """LEA-soft F1 of one document; only the key's slots are the response's mentions, as
    VidSitu's evaluator builds them."""
    said = {slot: v for slot, v in response.items() if slot in key}
    return f1(*lea_soft_counts(clusters(key), clusters(said), cider))
