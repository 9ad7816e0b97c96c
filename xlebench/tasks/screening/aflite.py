"""AFLite as a filter: drop the multiple-choice items, and the orders, a learner that never sees
the video predicts (Le Bras et al., ICML 2020, "Adversarial Filters of Dataset Biases").

The learned blind member of the recipe's answers (multiple choice:
`xlebench.eval.scorers.learned.learned_choice`, a logistic regression over the options' words,
their siblings, the clock and how often the rest of the benchmark names them; orders:
`xlebench.eval.scorers.order.learned_order`, a ridge regression of each shown text's place
in the day, scored by position accuracy) is fitted, in each of ``partitions`` seeded splits of the source videos
into folds, on the items of the other folds that share no video with the fold, and answers the
fold's items. An item's **predictability** is its mean accuracy over the partitions; items at
or above ``threshold`` are dropped and the learner is refitted on the rest, for at most
``rounds`` rounds (AFLite's iterations), since removing the easiest items changes what the
learner can pick up. Items about several videos each (a summary choice of a day) are answered
by a fit on the items that share none of their videos, once (`xlebench.eval.panel.blind.own_videos`).
It needs every life log's items and the whole benchmark's text, so it runs at the end of the
annotate stage (`AnnotateStage.finish`), after the panel filter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xlebench.errors import ConfigError
from xlebench.eval.metrics import position_accuracy
from xlebench.eval.panel.blind import folds, own_videos, training
from xlebench.eval.panel.public import Public
from xlebench.eval.provenance import source_videos
from xlebench.eval.scorers.learned import choice_scores, fit_choice
from xlebench.eval.scorers.order import fit_order, order_guess
from xlebench.runner.rng import derive_seed

KIND = "aflite"
#: Why an item left the benchmark (``stats`` of the annotate records, stats/tasks.json).
DROPPED = "dropped by the learned blind filter (AFLite: predictable without the video)"


def _choice_accuracy(item: dict, model: Any, public: Public) -> float:
    if model is None:
        return 1.0 / len(item["answer"]["options"])
    scores = choice_scores(item, model, public)
    top = max(scores)
    tied = [k for k, v in enumerate(scores) if v >= top - 1e-12]
    return float(item["answer"]["label"] in tied) / len(tied)


def _order_accuracy(item: dict, model: Any, public: Public) -> float:
    gt = item["answer"]["order"]
    return position_accuracy(order_guess(item, model, public), gt) if gt else 0.0


#: Per answer kind the filter reads: the learned member's fit and its accuracy on an item.
LEARNERS: dict[str, tuple[Callable[..., Any], Callable[[dict, Any, Public], float]]] = {
    "choice": (fit_choice, _choice_accuracy), "order": (fit_order, _order_accuracy)}


def predictability(items: Sequence[dict], public: Public, partitions: int, seed: int,
                   kind: str = "choice") -> dict[str, float]:
    """Per item: the learned member's mean accuracy on it over ``partitions`` splits."""
    fit, _accuracy = LEARNERS[kind]
    if own_videos(items, "video"):
        return {it["item_id"]: _accuracy(it, fit(
            [o for o in items if set(source_videos(o)).isdisjoint(source_videos(it))],
            public), public) for it in items}
    total = {it["item_id"]: 0.0 for it in items}
    for p in range(partitions):
        fold_of = folds(items, derive_seed(seed, "aflite", p))
        for f in sorted(set(fold_of.values())):
            model = fit(training(items, fold_of, f), public)
            for it in items:
                if fold_of[it["item_id"]] == f:
                    total[it["item_id"]] += _accuracy(it, model, public)
    return {i: v / partitions for i, v in total.items()}


def aflite_verdicts(items: Sequence[dict], recipe: Any, spec: Mapping[str, Any],
                    public: Public, seed: int) -> dict[str, dict[str, Any]]:
    """Per item: its predictability in the last round it took part in, the threshold, the
    round it was dropped in (None if kept), and whether it is kept."""
    kind = getattr(recipe.scorer, "kind", None)
    if kind not in LEARNERS:
        raise ConfigError(f"tasks.{recipe.name}.filters: kind aflite filters multiple-choice "
                          "items and orders; this recipe's answers are neither")
    threshold, rounds = float(spec["threshold"]), int(spec.get("rounds", 1))
    left, out = list(items), {}
    for r in range(rounds):
        scores = predictability(left, public, int(spec["partitions"]),
                                derive_seed(seed, "aflite-round", r), kind)
        for it in left:
            dropped = scores[it["item_id"]] >= threshold
            out[it["item_id"]] = {"predictability": round(scores[it["item_id"]], 4),
                                  "threshold": threshold, "round": r if dropped else None,
                                  "kept": not dropped}
        kept = [it for it in left if out[it["item_id"]]["kept"]]
        if len(kept) == len(left):
            break
        left = kept
    return out
