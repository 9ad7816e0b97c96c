"""Corpus metrics: metrics of a whole set of rows rather than means of item values.

VidSitu's verb Recall@5 (macro over verbs), its relation accuracy (averaged over classes) and
CIDEr-D (micro over role slots, or averaged per argument type) are all ratios of sums over
keys: each row adds a numerator and a denominator per key (verb, class, argument type), and
the metric divides either the totals (micro) or each key's sums and averages over the keys
that occur (macro). Keeping rows as vectors makes a table cell one ``prepare`` and makes the
bootstrap interval, which resamples life logs, a matrix product instead of recomputing the
metric a thousand times.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: rows x keys numerators, rows x keys denominators
Prepared = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class CorpusMetric:
    """``prepare(details)`` gives per-row numerators and denominators over keys; ``macro``
    averages per-key ratios over keys with a denominator, else the totals are divided."""

    prepare: Callable[[Sequence[dict]], Prepared]
    macro: bool = True

    def __call__(self, details: Sequence[dict]) -> float:
        num, den = self.prepare(details)
        return float(self.values(num.sum(0, keepdims=True), den.sum(0, keepdims=True))[0])

    def values(self, num: np.ndarray, den: np.ndarray) -> np.ndarray:
        """The metric of each row of summed (num, den) matrices; NaN where nothing occurs."""
        with np.errstate(invalid="ignore", divide="ignore"):
            if not self.macro:
                return num.sum(1) / den.sum(1)
            seen = den > 0
            ratios = np.where(seen, num / np.where(seen, den, 1), 0.0)
            return ratios.sum(1) / seen.sum(1)


def _matrix(details: Sequence[dict], pairs: Callable[[dict], list[tuple[str, float, float]]]
            ) -> Prepared:
    per_row = [pairs(d) for d in details]
    keys = {k: i for i, k in enumerate(sorted({k for row in per_row for k, _, _ in row}))}
    num = np.zeros((len(details), len(keys)))
    den = np.zeros((len(details), len(keys)))
    for r, row in enumerate(per_row):
        for key, n, d in row:
            num[r, keys[key]] += n
            den[r, keys[key]] += d
    return num, den


def _verbs(details: Sequence[dict], k: int = 5) -> Prepared:
    """Per verb v: events whose true verbs hold v, and those with v in the top-k predicted."""
    return _matrix(details, lambda d: [(v, float(v in pred[:k]), 1.0)
                                       for gt, pred in d["events"] for v in set(gt)])


def _relations(details: Sequence[dict]) -> Prepared:
    return _matrix(details, lambda d: [(gt, float(gt == pred), 1.0)
                                       for gt, pred in d["relations"]])


def _cider(details: Sequence[dict], key: int = 0) -> Prepared:
    """CIDEr-D per role slot, summed per argument type (``key`` 0) or per verb (3).
    Document frequencies come from all the given rows; in a bootstrap resample they stay
    the cell's (the interval is over items, not over the IDF weights)."""
    from xlebench.eval.cider import cider_d

    slots = [(k, slot) for k, d in enumerate(details) for slot in d["roles"]]
    # every annotator's value is a reference (slot[4]: the others', where items carry them)
    scores = cider_d([s[2] for _, s in slots],
                     [[s[1], *(s[4] if len(s) > 4 else [])] for _, s in slots]) if slots else []
    per_row: list[list[tuple[str, float, float]]] = [[] for _ in details]
    for (k, slot), v in zip(slots, scores, strict=True):
        per_row[k].append((slot[key], v, 1.0))
    return _matrix(range(len(details)), lambda k: per_row[k])  # type: ignore[arg-type]


#: VidSitu's macro verb Recall@5: per verb, the share of its events with it in the top 5.
verb_recall_macro = CorpusMetric(_verbs)
#: VidSitu's relation metric: top-1 accuracy per true class, averaged over classes.
class_averaged_accuracy = CorpusMetric(_relations)
#: CIDEr-D over every role slot (VidSitu's micro average).
cider_micro = CorpusMetric(_cider, macro=False)
#: CIDEr-D averaged per argument type, then over types (VidSitu's C-Arg).
cider_by_argument = CorpusMetric(_cider)
#: CIDEr-D averaged per verb, then over verbs (VidSitu's C-Vb).
cider_by_verb = CorpusMetric(lambda details: _cider(details, key=3))
