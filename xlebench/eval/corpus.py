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


def _slot_cider(details: Sequence[dict]) -> list[list[float]]:
    """Each row's role slots' sentence CIDEr-D, in the order of ``d["roles"]``. Document
    frequencies come from all the given rows; in a bootstrap resample they stay the cell's
    (the interval is over items, not over the IDF weights)."""
    from xlebench.eval.cider import cider_d

    slots = [slot for d in details for slot in d["roles"]]
    # every annotator's value is a reference (slot[4]: the others', where items carry them)
    scores = iter(cider_d([s[2] for s in slots],
                          [[s[1], *(s[4] if len(s) > 4 else [])] for s in slots]))
    return [[next(scores) for _ in d["roles"]] for d in details]


def _cider(details: Sequence[dict], key: int = 0) -> Prepared:
    """CIDEr-D per role slot, summed per argument type (``key`` 0) or per verb (3)."""
    per_row = [[(slot[key], v, 1.0) for slot, v in zip(d["roles"], row, strict=True)]
               for d, row in zip(details, _slot_cider(details), strict=True)]
    return _matrix(range(len(details)), lambda k: per_row[k])  # type: ignore[arg-type]


def _lea_soft(details: Sequence[dict]) -> Prepared:
    """Per row, LEA-soft F1 over its window's slots (slot[5]: the event's number), each
    response entity weighed by its mentions' CIDEr-D, averaged over the annotators' keys
    (``keys``, where the window has several; else the first annotator's); the metric is the
    mean over rows."""
    from xlebench.eval.lea import lea_soft

    def row(d: dict, cider: list[float]) -> list[tuple[str, float, float]]:
        keys = [{(k, r): v for k, r, v in key} for key in d.get("keys", [])] or [
            {(s[5], s[0]): s[1] for s in d["roles"]}]
        said = {(s[5], s[0]): s[2] for s in d["roles"] if s[2]}
        weights = {(s[5], s[0]): c for s, c in zip(d["roles"], cider, strict=True)}
        f1 = [lea_soft(key, said, weights) for key in keys]
        return [("all", sum(f1) / len(f1), 1.0)]
    per_row = [row(d, c) for d, c in zip(details, _slot_cider(details), strict=True)]
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
#: VidSitu's Lea-S: LEA with each response entity weighed by its mentions' CIDEr-D.
lea_soft_cider = CorpusMetric(_lea_soft, macro=False)
