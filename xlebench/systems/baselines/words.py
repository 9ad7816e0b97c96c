"""Content words as the offline text-retrieval baseline matches them: lower-case, stop words
out, a light suffix stemmer, memoised word sets, and MiniLM neighbours for a query word no
caption holds."""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache

import numpy as np

_WORD = re.compile(r"[a-z]+")
STOP = frozenset("""a an the of in on at to for from with by and or is are was were be been
did do does i my me c what where when who how many which in into onto out up down this that
it its his her their record provided time period object objects state after before there
some any x y""".split())


def _stem(w: str) -> str:
    for suf in ("ing", "ed", "es", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            return w[: -len(suf)]
    return w


def words(text: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in STOP]


#: The words of Ego4D's NLQ templates, which say what is asked, not about what.
QUERY_FRAME = frozenset(words("""location see state colour color where was were many
leave left put use touch move before open closed talk who whom with"""))


@lru_cache(maxsize=1 << 17)
def word_set(text: str) -> frozenset[str]:
    """Content-word stems of a caption (memoised: captions are scored many times)."""
    return frozenset(words(text))


def similar_words(query: set[str], vocab: Collection[str], at_least: float
                  ) -> dict[str, float]:
    """The vocabulary words (caption stems) nearest to each query stem that the vocabulary
    lacks, with their cosine, where it is at least ``at_least`` (MiniLM, loaded only when a
    query word is missing)."""
    missing = sorted(query - set(vocab))
    if not missing or not vocab or at_least <= 0:
        return {}
    from xlebench.eval.metrics.encoder import sentence_encoder

    enc, pool = sentence_encoder(), sorted(vocab)
    a, b = enc.encode(missing), enc.encode(pool)
    sims = (a / np.linalg.norm(a, axis=1, keepdims=True)) @ (
        b / np.linalg.norm(b, axis=1, keepdims=True)).T
    found: dict[str, float] = {}
    for row in sims:
        for j in np.flatnonzero(row >= at_least):
            found[pool[j]] = max(found.get(pool[j], 0.0), float(row[j]))
    return found
