"""An order of shown items (summary ordering): position accuracy and Kendall's tau, and its
blind panel — orders guessed from the summaries' words alone."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

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
    return [text for _, text in sorted(((int(i), t) for i, t in _SHOWN.findall(item["query"])))]


def fit_word_positions(train: Sequence[dict]) -> dict[str, float]:
    """Per word, the mean relative position (0 first, 1 last) of the summaries that hold it
    on other life logs, shrunk toward the middle."""
    total: dict[str, float] = {}
    count: dict[str, int] = {}
    for it in train:
        texts, order = shown(it), it["answer"]["order"]
        n = len(order)
        for rank, k in enumerate(order):
            if k >= len(texts) or n < 2:
                continue
            for w in set(rouge_tokens(texts[k])):
                total[w] = total.get(w, 0.0) + rank / (n - 1)
                count[w] = count.get(w, 0) + 1
    return {w: (total[w] + 0.5 * SHRINK) / (count[w] + SHRINK) for w in total}


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


def _features_once(item: dict, k: int, text: str, public: Public) -> dict[str, float]:
    return public.memo(f"order-features|{item['item_id']}|{k}",
                       lambda: _text_features(item, text, public))


def fit_order(train: Sequence[dict], public: Public) -> Any:
    """Ridge regression of each shown text's relative place in its day (0 first, 1 last).
    A text's features do not depend on the fit, and items fitted apart share most of their
    training items: each is built once per panel (`Public.memo`)."""
    rows, places = [], []
    for it in by_id(train):
        texts, order = shown(it), it["answer"]["order"]
        for rank, k in enumerate(order):
            if k < len(texts) and len(order) > 1:
                rows.append(_features_once(it, k, texts[k], public))
                places.append(rank / (len(order) - 1))
    if not rows:
        return None
    from sklearn.linear_model import Ridge

    return Ridge(alpha=1.0).fit(hashed().transform(rows), places)


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
