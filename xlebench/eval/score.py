"""Score replies against task items: one row per item of the benchmark, whatever the reply.

Every item gets a status: ``ok`` (parsed and scored), ``missing`` (no reply), ``unparseable``
(nothing its recipe's scorer can read), ``transport_error`` (an HTTP error page where a reply
should be), ``no_information`` ("There is no information
available…") or ``refusal`` (by the configured patterns). A row that is not ``ok`` carries each
metric's worst value, so the **headline** — the mean over every item of the benchmark — counts
it as a wrong answer: a system cannot score higher by answering less. The paper's protocol,
which leaves no-information replies and refusals out (never missing ones), is a second,
labelled column computed from the same rows (`xlebench.eval.table`).

Rows also carry a weight per metric: counting accuracy is pooled over queried actions as the
paper does (an item of five actions weighs five). How each answer kind is read and scored is
its recipe's scorer (`xlebench.eval.scorers`); the floor beside each score is the strongest
of the scorers' video-blind strategies (`xlebench.eval.panel.blind`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from xlebench.eval.metrics import REGISTRY, finite
from xlebench.eval.parse import reply_status
from xlebench.eval.provenance import cluster_of
from xlebench.eval.scorers import ScoreSettings
from xlebench.runner.cores import spread

#: The metrics a model computes (`Scorer.model_metrics`), on only with ``eval.bertscore``.
MODEL_METRICS = ("bertscore_f1", "sent_sim")

#: Statuses the paper's protocol leaves out of its averages.
PAPER_EXCLUDES = ("no_information", "refusal")
STATUSES = ("ok", "missing", "unparseable", "transport_error", "no_information", "refusal")

__all__ = ["PAPER_EXCLUDES", "STATUSES", "ScoreSettings", "make_row", "score_items",
           "score_spread"]


def make_row(item: dict, recipe: Any, status: str, scores: dict[str, float],
         response: str | None) -> dict[str, Any]:
    row = {"item_id": item["item_id"], "subtask": item["subtask"],
           "lifelog_id": item["lifelog_id"], "cluster": cluster_of(item),
           "category": item["category"],
           "primary": recipe.primary, "status": status, "scores": scores,
           "weights": recipe.scorer.weights(item), "response": response}
    if item.get("tags"):  # what results are broken down by (Neptune's capability)
        row["tags"] = dict(item["tags"])
    return row


def score_items(items: Sequence[dict], responses: Mapping[str, str], recipes: Mapping[str, Any],
                s: ScoreSettings, bertscorer: Any = None, models: bool = True
                ) -> list[dict[str, Any]]:
    """One row per item: status, metric values (worst values unless ``ok``), weights.

    ``recipes`` maps each subtask to its declaration (`xlebench.tasks.recipe.registry.Recipe`);
    ``models=False`` leaves out the metrics a model computes, for `model_metrics` later."""
    rows = []
    for item in items:
        recipe = recipes[item["subtask"]]
        response = responses.get(item["item_id"])
        status = reply_status(response, s.refusal_patterns, s.no_information_patterns)
        scores = None if status else recipe.scorer.score(item, response, s)
        if status is None and scores is None:
            status = "unparseable"
        if scores is None:
            scores = recipe.scorer.worst(item, s)
            if status == "missing":
                scores = absent_reply(scores)
        row = make_row(item, recipe, status or "ok", scores, response)
        if hasattr(recipe.scorer, "details"):  # what corpus-level metrics are computed from
            reply = response if scores is not None else None
            row["details"] = recipe.scorer.details(item, reply)
        rows.append(row)
    _finish(rows, items, recipes, s, bertscorer, models)
    return rows


def score_spread(items: Sequence[dict], responses: Mapping[str, str],
                 recipes: Mapping[str, Any], s: ScoreSettings, bertscorer: Any = None
                 ) -> list[dict[str, Any]]:
    """`score_items`'s rows, each subtask's scored in one of the run's cores
    (`xlebench.runner.cores.spread`), the metrics a model computes added here, where the
    model's threads live. A row reads only its item, its reply and the other items of its
    subtask (window identification's rivals, CIDEr-D's document frequencies), so a subtask
    is a unit, and the rows are those of one call (tests/eval/test_score_spread.py): a whole
    benchmark's system or oracle was scored on one core (the ten-times grid's oracle, 8 s of
    the validity check)."""
    by = _by_subtask(items)
    warm_scorers([items], recipes)
    parts = spread([partial(score_items, [items[k] for k in ks], responses, recipes, s,
                            models=False) for ks in by.values()],
                   [len(ks) for ks in by.values()])
    rows: list[dict[str, Any]] = [{} for _ in items]
    for ks, part in zip(by.values(), parts, strict=True):
        for k, row in zip(ks, part, strict=True):
            rows[k] = row
    model_metrics(rows, items, recipes, s, bertscorer)
    _null_undefined(rows)
    return rows


def warm_scorers(lists: Sequence[Sequence[dict]], recipes: Mapping[str, Any]) -> None:
    """Each scorer's `warm` on each subtask's items of each distinct list, as `score_items`
    will split them, before they are scored in forked children."""
    for items in {id(its): its for its in lists}.values():
        for sub, ks in _by_subtask(items).items():
            warm = getattr(recipes[sub].scorer, "warm", None)
            if warm is not None:
                warm([items[k] for k in ks])


def absent_reply(worst: Mapping[str, float]) -> dict[str, float]:
    """A missing reply's scores: wrong on every metric. A scorer's worst values leave some
    metrics undefined where the paper's evaluator leaves a *given* reply out of a mean
    (MultiHop's mIoU over a reply without spans); a reply never given is no such reply, so
    it scores the metric's worst (0) in every layout and protocol."""
    out = dict(worst)
    for metric, value in worst.items():
        known = REGISTRY.get(metric)
        if not finite(value) and (known is None or known.higher_is_better):
            out[metric] = 0.0
    return out


def _finish(rows: list[dict], items: Sequence[dict], recipes: Mapping[str, Any],
            s: ScoreSettings, bertscorer: Any, models: bool) -> None:
    """Batch metrics per recipe (window identification, CIDEr-D, and with ``models``
    BERTScore and Sent.Sim), then undefined values (tau over < 2 items) become null, never
    NaN."""
    for sub, idx in _by_subtask(items).items():
        recipes[sub].scorer.finish([rows[k] for k in idx], [items[k] for k in idx], s,
                                   bertscorer)
    if models:
        model_metrics(rows, items, recipes, s, bertscorer)
    _null_undefined(rows)


def _null_undefined(rows: Sequence[dict]) -> None:
    for row in rows:
        row["scores"] = {m: (v if finite(v) else None) for m, v in row["scores"].items()}


def model_metrics(rows: Sequence[dict], items: Sequence[dict], recipes: Mapping[str, Any],
                  s: ScoreSettings, bertscorer: Any) -> None:
    """The metrics a model computes (`Scorer.model_metrics`) of rows scored with
    ``models=False``, added in place, a pass per subtask over every row given: one batched
    pass for the blind panel's members, whose other metrics are computed in forked children
    (a forward pass belongs to the process that holds the model's threads)."""
    for sub, idx in _by_subtask(items).items():
        recipes[sub].scorer.model_metrics([rows[k] for k in idx], [items[k] for k in idx], s,
                                          bertscorer)


def _by_subtask(items: Sequence[dict]) -> dict[str, list[int]]:
    by: dict[str, list[int]] = defaultdict(list)
    for k, it in enumerate(items):
        by[it["subtask"]].append(k)
    return by


def corpus_metrics(recipes: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per recipe, its metrics that are not means of item values (macro recalls, CIDEr-D,
    class-averaged accuracy): name -> function of the rows' ``details``."""
    return {name: r.scorer.corpus() for name, r in recipes.items()
            if hasattr(r.scorer, "corpus")}
