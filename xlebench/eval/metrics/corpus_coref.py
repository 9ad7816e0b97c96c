"""Equals: TheShadow29/VidSitu @ b794988 (`vidsitu_code/evl_fns.py`) with coval @ 2be2d07.

VidSitu's co-reference table over a whole benchmark: LEA, LEA-soft, MUC, B³ and CEAFe as
``EvalFnCap.get_coref_from_orig_hyp_gts_dcts`` computes them (TheShadow29/VidSitu @ b794988,
``vidsitu_code/evl_fns.py``).

For each annotator j, the key of every window is annotator j's roles and the response is the
reply's values *at the key's slots* (a predicted slot the key lacks is no mention); each
window adds its counts (`xlebench.eval.metrics.lea`) to annotator j's sums, the F1 is taken of the
sums, and the score is the mean over annotators. Each row keeps its counts per annotator, so
a bootstrap resamples windows and takes the same F1s of resampled sums.

Where VidSitu's code stops, xlebench goes on and says how: a window with fewer annotators
than another (the official code takes the count from the first window and raises
``IndexError`` on a later window with fewer) uses its first annotator's key for the missing
ones — within a window, an event a later annotator did not describe uses its first
annotator's roles (`xlebench.eval.scorers.events.annotator_keys`) — and LEA-soft weighs a
mention that the first annotator has no slot for (``KeyError`` there) by CIDEr-D 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlebench.eval.metrics.corpus import CorpusMetric, Prepared, slot_cider
from xlebench.eval.metrics.lea import COUNTS, Slot, clusters, lea_soft_counts


def _keys(d: dict) -> list[dict[Slot, str]]:
    """The window's key per annotator (``keys``), else its first annotator's roles."""
    keys = [{(k, r): v for k, r, v in key} for key in d.get("keys", [])]
    return keys or [{(s[5], s[0]): s[1] for s in d["roles"]}]


def _said(d: dict) -> dict[Slot, str]:
    """Every slot the reply fills (``said``; older rows: the first annotator's slots)."""
    if "said" in d:
        return {(k, r): v for k, r, v in d["said"]}
    return {(s[5], s[0]): s[2] for s in d["roles"] if s[2]}


def _prepare(metric: str, details: Sequence[dict]) -> Prepared:
    """Per row, annotator by annotator: (recall, precision) numerators and denominators."""
    every = [_keys(d) for d in details]
    n = max((len(keys) for keys in every), default=1)
    num, den = np.zeros((len(details), 2 * n)), np.zeros((len(details), 2 * n))
    ciders = slot_cider(details) if metric == "lea_soft" else None
    for row, (d, keys) in enumerate(zip(details, every, strict=True)):
        said = _said(d)
        weights = ({(s[5], s[0]): c for s, c in zip(d["roles"], ciders[row], strict=True)}
                   if ciders is not None else {})
        for j in range(n):
            key = keys[j] if j < len(keys) else keys[0]
            k = clusters(key)
            r = clusters({slot: v for slot, v in said.items() if slot in key})
            pn, pd, rn, rd = (lea_soft_counts(k, r, weights) if metric == "lea_soft"
                              else COUNTS[metric](k, r))
            num[row, 2 * j:2 * j + 2] = rn, pn
            den[row, 2 * j:2 * j + 2] = rd, pd
    return num, den


def _mean_f1(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Per summed row, the F1 of each annotator's sums, averaged over annotators."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)
    r, p = ratio[:, 0::2], ratio[:, 1::2]
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)
    return np.where(den[:, 0::2].sum(1) > 0, f1.mean(1), np.nan)


def _metric(name: str) -> CorpusMetric:
    return CorpusMetric(lambda details: _prepare(name, details), combine=_mean_f1)


lea, lea_soft, muc, b_cubed, ceafe = (_metric(m) for m in
                                      ("lea", "lea_soft", "muc", "b3", "ceafe"))
