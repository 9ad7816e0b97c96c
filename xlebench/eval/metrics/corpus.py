"""Equals: TheShadow29/VidSitu @ b794988 (`vidsitu_code/evl_fns.py`: `EvalFnCap`, `EvalB`):
verb Recall@5 and Acc@k, relation accuracy, CIDEr-D per slot, argument and verb.

Corpus metrics: metrics of a whole set of rows rather than means of item values.

VidSitu's verb Recall@5 (macro over verbs), its relation accuracy (averaged over classes) and
CIDEr-D (micro over role slots, or averaged per argument type) are all ratios of sums over
keys: each row adds a numerator and a denominator per key (verb, class, argument type), and
the metric divides either the totals (micro) or each key's sums and averages over the keys
that occur (macro). Keeping rows as vectors makes a table cell one ``prepare`` and makes the
bootstrap interval, which resamples life logs, a matrix product instead of recomputing the
metric a thousand times.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: rows x keys numerators, rows x keys denominators
Prepared = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class CorpusMetric:
    """``prepare(details)`` gives per-row numerators and denominators over keys; ``macro``
    averages per-key ratios over keys whose denominator exceeds ``threshold``, else the
    totals are divided. A metric of sums that is no ratio (corpus BLEU, an F1 of summed
    counts) gives ``combine``, a function of the summed rows."""

    prepare: Callable[[Sequence[dict]], Prepared]
    macro: bool = True
    #: VidSitu's ``recall_macro_1_th_9`` keeps the verbs of more than 9 events
    threshold: float = 0.0
    combine: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    #: why the metric cannot be computed on this machine (one line), or None
    unavailable: Callable[[], str | None] | None = None

    def __call__(self, details: Sequence[dict]) -> float:
        num, den = self.prepare(details)
        return float(self.values(num.sum(0, keepdims=True), den.sum(0, keepdims=True))[0])

    def values(self, num: np.ndarray, den: np.ndarray) -> np.ndarray:
        """The metric of each row of summed (num, den) matrices; NaN where nothing occurs."""
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.combine is not None:
                return self.combine(num, den)
            if not self.macro:
                return num.sum(1) / den.sum(1)
            seen = den > self.threshold
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
    """Per verb v: the events where two or more annotators name v (VidSitu's ``gt1_counts``:
    ``Counter(gt1)`` entries of 2 or more), and those of them with v in the top k
    predicted. ``gt`` is every annotator's verbs, a verb once per annotator naming it."""
    return _matrix(details, lambda d: [(v, float(v in pred[:k]), 1.0)
                                       for gt, pred in d["events"]
                                       for v, n in sorted(Counter(gt).items()) if n >= 2])


def _event_hits(k: int) -> Callable[[Sequence[dict]], Prepared]:
    """Per row: its events with any annotator's verb among the top k predicted, over all its
    events (an event without a verb is a miss, as VidSitu's ``Per_Ev_Top_k`` counts it)."""
    return lambda details: _matrix(details, lambda d: [
        ("events", float(sum(bool(set(pred[:k]) & set(gt)) for gt, pred in d["events"])),
         float(len(d["events"])))])


def _relations(details: Sequence[dict]) -> Prepared:
    """Per true class: right and all events, each weighed by the labellers who gave its
    majority label (the third field; 1 in rows that lack it)."""
    return _matrix(details, lambda d: [(r[0], float(r[0] == r[1]) * _votes(r), _votes(r))
                                       for r in d["relations"]])


def _votes(relation: Sequence) -> float:
    return float(relation[2]) if len(relation) > 2 else 1.0


def slot_references(slot: Sequence) -> list[str]:
    """A role slot's references: its value, then the other annotators' (``slot[4]``, where
    items carry them), in annotator order."""
    return [slot[1], *(slot[4] if len(slot) > 4 else [])]


def slot_cider(details: Sequence[dict], key: int | None = None) -> list[list[float]]:
    """Each row's role slots' sentence CIDEr-D (pycocoevalcap's, on whitespace words), in the
    order of ``d["roles"]``. Document frequencies come from the given rows' slots, or with
    ``key`` from the slots of the same group (``slot[key]``: VidSitu reruns CIDEr inside each
    argument type and verb for C-Arg and C-Vb); in a bootstrap resample they stay the cell's
    (the interval is over items, not over the IDF weights)."""
    from xlebench.eval.metrics.cider import cider_d, whitespace

    groups: dict[object, list[tuple[int, int]]] = {}
    for r, d in enumerate(details):
        for j, slot in enumerate(d["roles"]):
            groups.setdefault(None if key is None else slot[key], []).append((r, j))
    out = [[0.0] * len(d["roles"]) for d in details]
    for members in groups.values():
        slots = [details[r]["roles"][j] for r, j in members]
        scores = cider_d([s[2] for s in slots], [slot_references(s) for s in slots],
                         words=whitespace)
        for (r, j), v in zip(members, scores, strict=True):
            out[r][j] = v
    return out


def _cider(details: Sequence[dict], key: int | None = None) -> Prepared:
    """CIDEr-D per role slot, summed over every slot (``key`` None) or per argument type (0)
    or verb (3), each group's CIDEr computed within the group."""
    per_row = [[("all" if key is None else slot[key], v, 1.0)
                for slot, v in zip(d["roles"], row, strict=True)]
               for d, row in zip(details, slot_cider(details, key), strict=True)]
    return _matrix(range(len(details)), lambda k: per_row[k])  # type: ignore[arg-type]


#: VidSitu's macro verb Recall@5: per verb, the share of its events with it in the top 5
#: (``recall_macro_1_th_0``), and over the verbs of more than 9 events (``..._th_9``).
verb_recall_macro = CorpusMetric(_verbs)
verb_recall_macro_th9 = CorpusMetric(_verbs, threshold=9)
#: VidSitu's ``Per_Ev_Top_1`` / ``Per_Ev_Top_5``: events with a true verb in the top k.
event_acc1 = CorpusMetric(_event_hits(1), macro=False)
event_acc5 = CorpusMetric(_event_hits(5), macro=False)
#: VidSitu's relation metrics: top-1 accuracy per true class averaged over classes
#: (``Macro_Top_1``), and over events (``Top_1``).
class_averaged_accuracy = CorpusMetric(_relations)
relation_top1 = CorpusMetric(_relations, macro=False)
#: CIDEr-D over every role slot (VidSitu's micro average).
cider_micro = CorpusMetric(_cider, macro=False)
#: CIDEr-D within each argument type, averaged over types (VidSitu's C-Arg).
cider_by_argument = CorpusMetric(lambda details: _cider(details, key=0))
#: CIDEr-D within each verb, averaged over verbs (VidSitu's C-Vb).
cider_by_verb = CorpusMetric(lambda details: _cider(details, key=3))
