"""AFLite as a filter: drop the multiple-choice items, and the orders, a learner that never sees
the video predicts (Le Bras et al., ICML 2020, "Adversarial Filters of Dataset Biases").

The learned blind member of the recipe's answers (multiple choice:
`xlebench.eval.scorers.learned.learned_choice`, a logistic regression over the options' words,
their siblings, the clock and how often the rest of the benchmark names them; orders:
`xlebench.eval.scorers.order.learned_order`, a ridge regression of each shown text's place
in the day, scored by position accuracy) is fitted, in each of ``partitions`` seeded splits of the source videos
into folds, on the items of the other folds that share no video with the fold, and answers the
fold's items. An item's **predictability** is its mean accuracy over the partitions.

Multiple choice (``balance: true``, the default) drops only the excess: while the learner is
right more (or less) often than chance on what is kept, per third of its confidence the excess
of predictable (or unpredictable) items goes in a seeded draw, and the learner is refitted on
the rest, for at most ``rounds`` rounds (`xlebench.tasks.screening.balance`). Dropping every
predictable item, as AFLite does (``balance: false``: items at or above ``threshold``), leaves
the learner wrong on everything kept, and "not the learner's pick" then answers the benchmark
(issue 77). Orders keep AFLite's rule. Items about several videos each (a summary choice of a
day) are answered by a fit on the items that share none of their videos, once
(`xlebench.eval.panel.blind.own_videos`). It needs every life log's items and the whole
benchmark's text, so it runs at the end of the annotate stage (`AnnotateStage.finish`),
before the panel filter.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from xlebench.errors import ConfigError
from xlebench.eval.metrics import position_accuracy
from xlebench.eval.panel.folding import folds, own_videos, training
from xlebench.eval.panel.public import Public
from xlebench.eval.provenance import source_videos
from xlebench.eval.scorers.learned import choice_scores, fit_choice, top_options
from xlebench.eval.scorers.option_features import warm_features
from xlebench.eval.scorers.order import fit_order, order_guess
from xlebench.runner.cores import runs, spread
from xlebench.runner.rng import derive_seed
from xlebench.runner.tasks import task_key
from xlebench.tasks.screening.balance import (
    balanced,
    chance,
    confidence_strata,
    excess_drops,
    tag_strata,
)

KIND = "aflite"
#: Why an item left the benchmark (``stats`` of the annotate records, stats/tasks.json).
DROPPED = "dropped by the learned blind filter (AFLite: predictable without the video)"


def _choice_accuracy(item: dict, model: Any, public: Public) -> tuple[float, float]:
    """The learned member's accuracy on a multiple-choice item and its confidence (the
    margin of its top option's fitted probability over the next)."""
    if model is None:
        return 1.0 / len(item["answer"]["options"]), 0.0
    scores = choice_scores(item, model, public)
    tied = top_options(scores)
    ranked = sorted(scores, reverse=True)
    return float(item["answer"]["label"] in tied) / len(tied), ranked[0] - ranked[1]


def _order_accuracy(item: dict, model: Any, public: Public) -> tuple[float, float]:
    gt = item["answer"]["order"]
    return (position_accuracy(order_guess(item, model, public), gt) if gt else 0.0), 0.0


#: Per answer kind the filter reads: the learned member's fit, and its accuracy on an item
#: with its confidence.
LEARNERS: dict[str, tuple[Callable[..., Any],
                          Callable[[dict, Any, Public], tuple[float, float]]]] = {
    "choice": (fit_choice, _choice_accuracy), "order": (fit_order, _order_accuracy)}


def predictability(items: Sequence[dict], public: Public, partitions: int, seed: int,
                   kind: str = "choice") -> dict[str, tuple[float, float]]:
    """Per item: the learned member's mean accuracy on it over ``partitions`` splits, and its
    mean confidence. Each split's folds are fitted apart, spread over the run's cores
    (`xlebench.runner.cores.spread`) and summed in split order: the same sums whatever the
    count."""
    warm_features(items, public)  # the learner's option features, here once, not per child
    h = hashlib.blake2b(digest_size=16)
    for it in items:
        h.update(public.digest(it))
    named = partial(task_key, "aflite", kind, h.digest(), public.key)  # the stage's store
    if own_videos(items, "video"):
        chunks = runs(list(range(len(items))), _CHUNK)
        parts = spread([partial(_own_accuracy, items, ks, public, kind) for ks in chunks],
                       keys=[named("own", ks[0], len(ks)) for ks in chunks])
        return {items[k]["item_id"]: r for ks, part in zip(chunks, parts, strict=True)
                for k, r in zip(ks, part, strict=True)}
    splits = [folds(items, derive_seed(seed, "aflite", p)) for p in range(partitions)]
    keys = [(p, f) for p, fold_of in enumerate(splits) for f in sorted(set(fold_of.values()))]
    parts = spread([partial(_fold_accuracy, items, splits[p], f, public, kind)
                    for p, f in keys], keys=[named("fold", seed, p, f) for p, f in keys])
    total = {it["item_id"]: (0.0, 0.0) for it in items}
    for part in parts:
        for i, acc, conf in part:
            a, c = total[i]
            total[i] = (a + acc, c + conf)
    return {i: (a / partitions, c / partitions) for i, (a, c) in total.items()}


#: Items per task where each item is answered by a fit of its own.
_CHUNK = 16


def _own_accuracy(items: Sequence[dict], ks: Sequence[int], public: Public, kind: str
                  ) -> list[tuple[float, float]]:
    """Items ``ks``, each answered by a fit on the items sharing none of its videos."""
    fit, accuracy = LEARNERS[kind]
    out = []
    for k in ks:
        it = items[k]
        train = [o for o in items if set(source_videos(o)).isdisjoint(source_videos(it))]
        out.append(accuracy(it, fit(train, public), public))
    return out


def _fold_accuracy(items: Sequence[dict], fold_of: Mapping[str, int], fold: int,
                   public: Public, kind: str) -> list[tuple[str, float, float]]:
    """The fold's items, answered by a fit on the items sharing no video with the fold."""
    fit, accuracy = LEARNERS[kind]
    model = fit(training(items, fold_of, fold), public)
    return [(it["item_id"], *accuracy(it, model, public)) for it in items
            if fold_of[it["item_id"]] == fold]


def aflite_verdicts(items: Sequence[dict], recipe: Any, spec: Mapping[str, Any],
                    public: Public, seed: int) -> dict[str, dict[str, Any]]:
    """Per item: its predictability in the last round it took part in, the threshold, the
    round it was dropped in (None if kept), and whether it is kept."""
    kind = getattr(recipe.scorer, "kind", None)
    if kind not in LEARNERS:
        raise ConfigError(f"tasks.{recipe.name}.filters: kind aflite filters multiple-choice "
                          "items and orders; this recipe's answers are neither")
    if kind == "choice" and spec.get("balance", True):
        return _balanced(items, spec, public, seed)
    threshold, rounds = float(spec["threshold"]), int(spec.get("rounds", 1))
    left, out = list(items), {}
    for r in range(rounds):
        scores = predictability(left, public, int(spec["partitions"]),
                                derive_seed(seed, "aflite-round", r), kind)
        for it in left:
            p = scores[it["item_id"]][0]
            out[it["item_id"]] = {"predictability": round(p, 4), "threshold": threshold,
                                  "round": r if p >= threshold else None,
                                  "kept": p < threshold}
        kept = [it for it in left if out[it["item_id"]]["kept"]]
        if len(kept) == len(left):
            break
        left = kept
    return out


def _balanced(items: Sequence[dict], spec: Mapping[str, Any], public: Public, seed: int
              ) -> dict[str, dict[str, Any]]:
    """Multiple choice: per round, the learned member's predictability of the items kept so
    far; where it is outside chance's band (`balance.balanced`), the excess of predictable
    (or, below chance, unpredictable) items is dropped per stratum of its confidence
    (`balance.excess_drops`), and the member is refitted on the rest."""
    base = {it["item_id"]: chance(it) for it in items}
    tags, rounds = tag_strata(items), int(spec.get("rounds", 1))
    left, out = list(items), {}
    for r in range(rounds):
        scores = predictability(left, public, int(spec["partitions"]),
                                derive_seed(seed, "aflite-round", r))
        live = [it["item_id"] for it in left]
        acc = {i: scores[i][0] for i in live}
        for i in live:
            out[i] = {"predictability": round(acc[i], 4), "balanced": True, "round": None,
                      "kept": True}
        if balanced(live, acc, base):
            break
        strata = confidence_strata(live, {i: scores[i][1] for i in live}, tags)
        for i in excess_drops(live, acc, base, strata, seed, "aflite", r):
            out[i].update(round=r, kept=False)
        left = [it for it in left if out[it["item_id"]]["kept"]]
    return out
