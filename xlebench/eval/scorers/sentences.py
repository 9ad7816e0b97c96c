"""A multiple-choice item's options read as sentences: their MiniLM vectors side by side.

Word overlap ties options that reorder the same words (EgoSchema's orders of three acts); a
sentence encoder does not, and a reviewer's MiniLM centroid (the option nearest its options'
mean vector) reached 35.4 against a printed floor of 22.2 (issue 68). So the panel has the
sentence centroid as a member beside the word centroid, and the learned member reads each
option's cosine to its siblings' mean vector among its features (`option_features.option_features`),
so that whatever the encoder's geometry gives away is learned, not listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from xlebench.eval.scorers.base import BlindContext, picked


def _unit(vecs: np.ndarray) -> np.ndarray:
    return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)


def _encode(texts: Sequence[str]) -> np.ndarray:
    from xlebench.eval.metrics.encoder import sentence_encoder

    return _unit(sentence_encoder().encode(list(texts)).astype(np.float64))


def _every_option(public: Any) -> dict[str, np.ndarray]:
    """Every option text the benchmark shows, encoded in one pass (once per public view)."""
    texts = sorted({str(o) for it in public.items.values()
                    for o in it.get("answer", {}).get("options") or ()})
    return dict(zip(texts, _encode(texts), strict=True)) if texts else {}


def warm_options(public: Any) -> None:
    """Every option of the public view encoded now (where it shows options), before a step
    spreads over processes that would each encode them again."""
    if any(it.get("answer", {}).get("options") for it in public.items.values()):
        public.memo("sentence-option-vectors", lambda: _every_option(public))


def option_vectors(item: dict, public: Any = None) -> np.ndarray:
    """Unit MiniLM vectors of the item's options, one row per option (looked up in the public
    view's table where it holds the item, else encoded now)."""
    options = [str(o) for o in item["answer"]["options"]]
    if public is not None and item["item_id"] in public.items:
        table = public.memo("sentence-option-vectors", lambda: _every_option(public))
        if all(o in table for o in options):
            return np.stack([table[o] for o in options])
    return _encode(options)


def sibling_cosines(vecs: np.ndarray) -> list[float]:
    """Each option's cosine to the mean vector of the other options."""
    n = len(vecs)
    if n < 2:
        return [0.0] * n
    total = vecs.sum(axis=0)
    out = []
    for k in range(n):
        rest = (total - vecs[k]) / (n - 1)
        norm = float(np.linalg.norm(rest))
        out.append(float(vecs[k] @ rest) / norm if norm else 0.0)
    return out


def sentence_centroid(item: dict, _model: None, ctx: BlindContext) -> dict[str, float]:
    """The option nearest its siblings' mean MiniLM vector (ties shared)."""
    sims = sibling_cosines(option_vectors(item, ctx.public))
    best = [k for k, v in enumerate(sims) if v >= max(sims) - 1e-6]
    return picked(item, best)
