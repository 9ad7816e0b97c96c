"""Equals: pycocoevalcap 1.2 (`cider/cider_scorer.py`), as VidSitu @ b794988 runs it through
TheShadow29/coco-caption @ ba713bf and MultiHop-EgoQA @ ab32f81 through pycocoevalcap.

CIDEr-D (Vedantam et al., 2015), computed locally: the role metric of VidSitu.

pycocoevalcap's ``CiderScorer`` splits the strings it is given on whitespace; VidSitu's and
MultiHop-EgoQA's evaluators give it their raw strings, and so does xlebench for the metrics
under those papers' names (``words=whitespace``). The default words lower-case and keep runs
of letters and digits (xlebench's own uses). Either way the computation is pycocoevalcap's
(tested side by side): for every candidate and its references, n-gram
(n = 1..4) vectors of raw term counts times log(N / document frequency), document frequency
counted over the reference sets of the whole corpus; the candidate's weights clipped by each
reference's; cosine times a Gaussian penalty (sigma 6) on the difference of the lengths, which
the reference code counts in bigrams; averaged over n and over references, times 10.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

_WORD = re.compile(r"[a-z0-9]+")
SIGMA = 6.0
Words = Callable[[str], list[str]]


def lower_words(text: str) -> list[str]:
    """Lower-cased runs of letters and digits."""
    return _WORD.findall(text.lower())


def whitespace(text: str) -> list[str]:
    """The words pycocoevalcap's scorers see in an untokenised string (``str.split``)."""
    return text.split()


def _ngrams(text: str, words_of: Words, n_max: int = 4) -> list[Counter]:
    words = words_of(text)
    return [Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))
            for n in range(1, n_max + 1)]


def cider_d(candidates: Sequence[str], references: Sequence[Sequence[str]],
            words: Words = lower_words) -> list[float]:
    """One CIDEr-D score per candidate (document frequencies from this corpus)."""
    refs = [[_ngrams(r, words) for r in rs] for rs in references]
    df: Counter = Counter()
    for rs in refs:
        df.update({g for r in rs for counts in r for g in counts})
    log_n = math.log(max(1, len(references)))
    return [_score(_ngrams(c, words), rs, c, refs_text, df, log_n, words)
            for c, rs, refs_text in zip(candidates, refs, references, strict=True)]


def _vector(counts: Counter, df: Counter, log_n: float) -> dict:
    """Raw term counts times log(N / df): no division by the text's length (clipping compares
    weights of the same scale, as the reference implementation does)."""
    return {g: k * (log_n - math.log(max(1.0, df[g]))) for g, k in counts.items()}


def _length(text: str, words_of: Words) -> int:
    """Length as the reference implementation measures it: the number of bigrams."""
    return max(0, len(words_of(text)) - 1)


def _score(cand: list[Counter], refs: list[list[Counter]], c_text: str,
           r_texts: Sequence[str], df: Counter, log_n: float, words_of: Words) -> float:
    if not refs:
        return 0.0
    c_len = _length(c_text, words_of)
    total = 0.0
    for n in range(4):
        vc = _vector(cand[n], df, log_n)
        norm_c = math.sqrt(sum(v * v for v in vc.values()))
        acc = 0.0
        for r, r_text in zip(refs, r_texts, strict=True):
            vr = _vector(r[n], df, log_n)
            norm_r = math.sqrt(sum(v * v for v in vr.values()))
            dot = sum(min(vc[g], vr[g]) * vr[g] for g in vc if g in vr)
            if norm_c > 0 and norm_r > 0:
                delta = c_len - _length(r_text, words_of)
                acc += dot / (norm_c * norm_r) * math.exp(-delta * delta / (2 * SIGMA ** 2))
        total += acc / len(refs)
    return round(10.0 * total / 4, 10)
