"""Equals: pycocoevalcap 1.2's corpus BLEU, ROUGE-L and METEOR 1.5, as VidSitu @ b794988
(`vidsitu_code/evl_fns.py`) and MultiHop-EgoQA @ ab32f81
(`benchmark/metrics/evaluate_answering.py`) call them.

Corpus BLEU, ROUGE-L and METEOR 1.5 over text segments, as pycocoevalcap scores them for
VidSitu's role values (every role slot a segment) and MultiHop-EgoQA's answer texts (every
answered item a segment), kept as per-row sums so a bootstrap resamples rows.

A row's segments come from its ``details`` through a function (`role_segments`,
`answer_segments`); a row that has none (a time-only question, a strategy that answers with
expected values) adds nothing, and a cell without segments has no value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from xlebench.eval.metrics import coco, meteor15
from xlebench.eval.metrics.corpus import CorpusMetric, Prepared, slot_references

Segment = tuple[str, tuple[str, ...]]  # (hypothesis, references)
Segments = Callable[[dict], list[Segment]]
_BLEU_N = 4


def role_segments(d: dict) -> list[Segment]:
    """Every role slot of a window: the predicted value ("" where none) and its references."""
    return [(s[2], tuple(slot_references(s))) for s in d.get("roles", [])]


def answer_segments(d: dict) -> list[Segment]:
    """The answer text and its reference, where the row has one."""
    return [(d["answer"][0], (d["answer"][1],))] if d.get("answer") else []


def _stats(details: Sequence[dict], segments: Segments,
           stat: Callable[[str, tuple[str, ...]], Sequence[float]], width: int) -> Prepared:
    num = np.zeros((len(details), width))
    for r, d in enumerate(details):
        for hyp, refs in segments(d):
            num[r] += stat(hyp, refs)
    return num, np.zeros_like(num)


def _bleu(n: int, segments: Segments) -> CorpusMetric:
    width = 2 + 2 * _BLEU_N

    def combine(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        out = coco.bleu_from_stats(num, _BLEU_N)[:, n - 1]
        return np.where(num[:, 1] > 0, out, np.nan)  # no reference words: no segment
    return CorpusMetric(lambda details: _stats(details, segments, coco.bleu_stats, width),
                        combine=combine)


def _rouge(segments: Segments) -> CorpusMetric:
    def prepare(details: Sequence[dict]) -> Prepared:
        scores = [[coco.rouge_l(h, r) for h, r in segments(d)] for d in details]
        return (np.array([[sum(s)] for s in scores]).reshape(-1, 1),
                np.array([[len(s)] for s in scores], dtype=float).reshape(-1, 1))
    return CorpusMetric(prepare, macro=False)


def _meteor(segments: Segments) -> CorpusMetric:
    def prepare(details: Sequence[dict]) -> Prepared:
        m = meteor15.scorer()
        rows = [[m.stats(h, r) for h, r in segments(d)] for d in details]
        width = max((len(s) for row in rows for s in row), default=1)
        num = np.array([np.sum(row, axis=0) if row else np.zeros(width) for row in rows]
                       ).reshape(len(details), width)
        return num, np.zeros_like(num)

    def combine(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        m = meteor15.scorer()
        return np.array([m.score(row) if row.any() else np.nan for row in num])
    return CorpusMetric(prepare, combine=combine, unavailable=meteor15.unavailable)


#: VidSitu's BLEU@1, BLEU@2, ROUGE-L and METEOR of role values (pycocoevalcap, every slot)
role_bleu1, role_bleu2 = _bleu(1, role_segments), _bleu(2, role_segments)
role_rouge, role_meteor = _rouge(role_segments), _meteor(role_segments)
#: MultiHop-EgoQA's BLEU-4, ROUGE-L and METEOR of answer texts
answer_bleu4, answer_rouge = _bleu(4, answer_segments), _rouge(answer_segments)
answer_meteor = _meteor(answer_segments)
