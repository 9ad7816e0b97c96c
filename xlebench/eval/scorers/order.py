"""An order of shown items (summary ordering): position accuracy and Kendall's tau, and its
blind panel — orders guessed from the summaries' words alone."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from xlebench.eval.metrics import kendall_tau, position_accuracy, rouge_tokens
from xlebench.eval.panel.public import Public, bigrams, content_words
from xlebench.eval.parse import parse_order
from xlebench.eval.scorers.base import Base, Blind, BlindContext, ScoreSettings
from xlebench.eval.scorers.learned import READS, by_id, hashed

_SHOWN = re.compile(r"Summary (\d+): (.*?)(?= Summary \d+: |$)")
#: Pseudo-count pulling a rare word's position toward the middle of the day.
SHRINK = 2.0


def shown(item: dict) -> list[str]:
    """The texts shown, in the order they are numbered in the query."""
    return list(_shown(item["query"]))


@lru_cache(maxsize=1 << 16)
def _shown(query: str) -> tuple[str, ...]:
    return tuple(text for _, text in sorted((int(i), t) for i, t in _SHOWN.findall(query)))


def fit_word_positions(train: Sequence[dict]) -> dict[str, float]:
    """Per word, the mean relative position (0 first, 1 last) of the summaries that hold it
    on other life logs, shrunk toward the middle. Each item's (word, position) pairs are
    listed once (`_placed_words`) and summed per word by ``bincount``, which adds in the
    order given, as the loop over items it replaces did: the same bits, where the loop was a
    day summary fit's largest cost (one fit per item)."""
    parts = [_placed_words(it["query"], tuple(it["answer"]["order"])) for it in train]
    if not parts:
        return {}
    ids = np.concatenate([p[0] for p in parts])
    at = np.concatenate([p[1] for p in parts])
    total = np.bincount(ids, weights=at, minlength=len(_WORDS))
    count = np.bincount(ids, minlength=len(_WORDS))
    seen = np.flatnonzero(count)
    mean = (total[seen] + 0.5 * SHRINK) / (count[seen] + SHRINK)
    return {_WORDS[k]: float(x) for k, x in zip(seen.tolist(), mean, strict=True)}


#: Every word `fit_word_positions` has met, numbered in the order met, and back.
_WORD_IDS: dict[str, int] = {}
_WORDS: list[str] = []


@lru_cache(maxsize=1 << 16)
def _placed_words(query: str, order: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """One item's words (as `_WORD_IDS` numbers) and the relative position of the summary
    holding each, summary by summary in the answer's order."""
    texts, n = _shown(query), len(order)
    ids: list[int] = []
    at: list[float] = []
    for rank, k in enumerate(order):
        if k >= len(texts) or n < 2:
            continue
        for w in set(rouge_tokens(texts[k])):
            if w not in _WORD_IDS:
                _WORD_IDS[w] = len(_WORDS)
                _WORDS.append(w)
            ids.append(_WORD_IDS[w])
            at.append(rank / (n - 1))
    return np.array(ids, dtype=np.int64), np.array(at, dtype=np.float64)


def _by_words(item: dict, model: dict[str, float], ctx: BlindContext) -> str:
    texts = shown(item)

    def when(k: int) -> float:
        # sorted: a float sum in set order depends on the process's string hashing, and a
        # near tie between two texts then orders them differently from run to run
        words = sorted(set(rouge_tokens(texts[k])))
        return sum(model.get(w, 0.5) for w in words) / max(1, len(words))
    ranked = sorted(range(len(texts)), key=lambda k: (when(k), k))
    return "Correct order of the summaries: " + ", ".join(map(str, ranked))


def _by_plan(item: dict, _model: None, ctx: BlindContext) -> str:
    """The summaries in the order of the plan chunks each reads most like (shown order
    where none is like one): the plan is public, and records follow it."""
    texts = shown(item)
    chunks = [ctx.public.chunk_like(item, t) if ctx.public is not None else None
              for t in texts]
    when = [float(c["start_s"]) if c else float("inf") for c in chunks]
    ranked = sorted(range(len(texts)), key=lambda k: (when[k], k))
    return "Correct order of the summaries: " + ", ".join(map(str, ranked))


def _random(item: dict, _model: None, ctx: BlindContext) -> dict[str, float]:
    gt = item["answer"]["order"]
    acc = tau = 0.0
    for _ in range(ctx.draws):
        guess = [int(x) for x in ctx.rng.permutation(len(gt))]
        acc += position_accuracy(guess, gt)
        tau += kendall_tau(guess, gt)
    return {"position_acc": acc / ctx.draws, "kendall_tau": tau / ctx.draws}


def _as_shown(item: dict, _model: None, ctx: BlindContext) -> str:
    return "Correct order of the summaries: " + ", ".join(map(str, range(len(shown(item)))))


def _text_features(item: dict, text: str, public: Public) -> dict[str, float]:
    """A shown text's words and word pairs, and where the log's other items that share most
    of its words sit in the day (`Public.placed`)."""
    ws = content_words(text)
    at = public.placed(item, text)
    return ({f"w={w}": 1.0 for w in set(ws)} | {f"b={b}": 1.0 for b in bigrams(ws)}
            | {"placed": 0.0 if at is None else at, "unplaced": float(at is None)})


def fit_order(train: Sequence[dict], public: Public) -> Any:
    """Ridge regression of each shown text's relative place in its day (0 first, 1 last).
    An item's rows do not depend on the fit, and items fitted apart share most of their
    training items: each item's hashed rows are built once per panel (`Public.memo`) and
    stacked, the same matrix as hashing every row at each fit."""
    blocks = [b for b in (_hashed_rows(it, public) for it in by_id(train)) if b is not None]
    if not blocks:
        return None
    import scipy.sparse as sp
    from sklearn.linear_model import Ridge

    rows = sp.vstack([b for b, _ in blocks], format="csr")
    return Ridge(alpha=1.0).fit(rows, [p for _, places in blocks for p in places])


def _hashed_rows(item: dict, public: Public) -> tuple[Any, list[float]] | None:
    """An item's shown texts as hashed feature rows (`_text_features`), in the answer's
    order, with each one's relative place; None where it places none."""
    def build() -> tuple[Any, list[float]] | None:
        texts, order = shown(item), item["answer"]["order"]
        ranked = [(rank, k) for rank, k in enumerate(order) if k < len(texts) and len(order) > 1]
        if not ranked:
            return None
        rows = [_text_features(item, texts[k], public) for _, k in ranked]
        return hashed().transform(rows), [rank / (len(order) - 1) for rank, _ in ranked]
    return public.memo(f"order-rows|{item['item_id']}", build)


def order_guess(item: dict, model: Any, public: Public) -> list[int]:
    """The shown texts ranked by their fitted places (ties: as shown)."""
    texts = shown(item)
    places = [0.5] * len(texts)
    if model is not None and texts:
        rows = [_text_features(item, t, public) for t in texts]
        places = list(model.predict(hashed().transform(rows)))
    return sorted(range(len(texts)), key=lambda k: (places[k], k))


def _order(item: dict, model: Any, ctx: BlindContext) -> str:
    ranked = order_guess(item, model, ctx.public)
    return "Correct order of the summaries: " + ", ".join(map(str, ranked))


def learned_order() -> Blind:
    return Blind("learned", READS + "; ridge regression of where other days put texts like "
                 "them and where the log's other questions about the same words sit", _order,
                 fit_order, public=True)


class OrderAccuracy(Base):
    """An order of shown items: position accuracy and Kendall's tau. Blind panel: a random
    permutation (expected value), the order shown, and the order of the words' typical
    positions in other logs' days (breakfast early, bed late)."""

    kind = "order"

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        gt = item["answer"]["order"]
        # Numbers that are not indices of shown items (a clock time, a year) make no order.
        order = [i for i in parse_order(reply) if 0 <= i < len(gt)]
        if not order:
            return None
        return {"position_acc": position_accuracy(order, gt), "kendall_tau": kendall_tau(order, gt)}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"position_acc": 0.0, "kendall_tau": -1.0}

    def blind(self) -> Sequence[Blind]:
        return (Blind("random_order", "nothing", _random),
                Blind("shown_order", "the summaries as numbered", _as_shown),
                Blind("word_time_prior", "the summaries; where other logs' days put their words",
                      _by_words, fit_word_positions),
                learned_order(),
                Blind("plan_order", "the summaries and the life log's plan (public): the "
                      "order of the plan chunks they read most like", _by_plan, public=True))
