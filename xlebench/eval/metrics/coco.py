"""Equals: pycocoevalcap 1.2 (`bleu/bleu_scorer.py`, `rouge/rouge.py`), as VidSitu @ b794988
(TheShadow29/coco-caption @ ba713bf) and MultiHop-EgoQA @ ab32f81 call it.

BLEU and ROUGE-L as pycocoevalcap computes them, the captioning scores that VidSitu's and
MultiHop-EgoQA's official evaluators print (VidSitu ``vidsitu_code/evl_fns.py`` over role
values, MultiHop-EgoQA ``benchmark/metrics/evaluate_answering.py`` over answer texts; both pass
their strings untokenised, so words are what ``str.split`` makes of them, case kept).

**BLEU** is a corpus score: every segment adds its length, its "closest" reference length
(the reference nearest in length, the shorter on a tie) and, per n, its n-gram count and its
count clipped by the references' maxima; the score is the geometric mean of the summed
precisions times the brevity penalty of the summed lengths. The sums are kept per segment
(`bleu_stats`) so a bootstrap resamples them (`bleu_from_stats`) instead of re-scoring.

**ROUGE-L** is per segment, the best precision and the best recall of the longest common
subsequence over the references, combined with beta = 1.2, averaged over segments (tokens of
``str.split(" ")``, as pycocoevalcap splits them).

Equality with pycocoevalcap 1.2 is tested side by side (``tests/eval/test_answer_metrics.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

#: pycocoevalcap's guards: a zero count stays near 0, a zero length never divides.
_TINY, _SMALL = 1e-15, 1e-9
ROUGE_BETA = 1.2


def _grams(words: Sequence[str], n: int) -> Counter:
    return Counter(tuple(words[i:i + k]) for k in range(1, n + 1)
                   for i in range(len(words) - k + 1))


def bleu_stats(hypothesis: str, references: Sequence[str], n: int = 4) -> list[float]:
    """One segment's BLEU sums: ``[length, closest reference length, n-grams guessed (1..n),
    n-grams right (1..n)]``."""
    words = hypothesis.split()
    longest: Counter = Counter()
    lengths = []
    for ref in references:
        ref_words = ref.split()
        lengths.append(len(ref_words))
        for gram, count in _grams(ref_words, n).items():
            longest[gram] = max(longest[gram], count)
    closest = min((abs(length - len(words)), length) for length in lengths)[1]
    right = [0] * n
    for gram, count in _grams(words, n).items():
        right[len(gram) - 1] += min(longest.get(gram, 0), count)
    guessed = [max(0, len(words) - k) for k in range(n)]
    return [float(len(words)), float(closest), *map(float, guessed), *map(float, right)]


def bleu_from_stats(stats: np.ndarray, n: int = 4) -> np.ndarray:
    """BLEU-1..n of each row of summed `bleu_stats` (rows x (2 + 2n)) -> rows x n."""
    stats = np.atleast_2d(np.asarray(stats, dtype=float))
    length, ref_length = stats[:, 0], stats[:, 1]
    guessed, right = stats[:, 2:2 + n], stats[:, 2 + n:2 + 2 * n]
    log_p = np.log((right + _TINY) / (guessed + _SMALL))
    bleus = np.exp(np.cumsum(log_p, axis=1) / np.arange(1, n + 1))
    ratio = (length + _TINY) / (ref_length + _SMALL)
    with np.errstate(divide="ignore", over="ignore"):
        penalty = np.where(ratio < 1, np.exp(1 - 1 / ratio), 1.0)
    return bleus * penalty[:, None]


def bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]], n: int = 4
         ) -> list[float]:
    """Corpus BLEU-1..n of the segments (pycocoevalcap's ``Bleu(n)`` with "closest")."""
    stats = np.array([bleu_stats(h, r, n) for h, r in zip(hypotheses, references,
                                                          strict=True)]).reshape(-1, 2 + 2 * n)
    return [float(v) for v in bleu_from_stats(stats.sum(0), n)[0]]


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, start=1):
            prev, row[j] = row[j], prev + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def rouge_l(hypothesis: str, references: Sequence[str]) -> float:
    """One segment's ROUGE-L (pycocoevalcap's ``Rouge``): best LCS precision and recall over
    the references, F with beta = 1.2."""
    cand = hypothesis.split(" ")
    precision = recall = 0.0
    for ref in references:
        ref_words = ref.split(" ")
        common = _lcs(ref_words, cand)
        precision = max(precision, common / len(cand))
        recall = max(recall, common / len(ref_words))
    if not precision or not recall:
        return 0.0
    b2 = ROUGE_BETA ** 2
    return (1 + b2) * precision * recall / (recall + b2 * precision)
