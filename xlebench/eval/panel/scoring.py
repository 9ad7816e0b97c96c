"""The blind panel's answers, scored: each member's rows as `xlebench.eval.score.score_items`
shapes a system's, in item order (`xlebench.eval.panel.blind.panel_rows` computes the answers).

Scoring is the other half of the panel's cost: ROUGE-L, window identification and CIDEr-D
are Python, about half the evaluate stage's panel on one core, so the members are scored in
the run's cores (`xlebench.runner.cores.spread`); the metrics a model computes (BERTScore,
Sent.Sim) are added in this process, where the model and its threads live — a forked child
must not enter the OpenMP runtime its parent's threads left behind. A row's values read only
its own reply and item, so the rows are those of one process scoring each member whole.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from xlebench.eval.score import (
    MODEL_METRICS,
    make_row,
    model_metrics,
    score_items,
    warm_scorers,
)
from xlebench.eval.scorers.base import PICKS, ScoreSettings
from xlebench.runner.cores import spread
from xlebench.runner.progress import timed

log = logging.getLogger(__name__)


def member_rows(items: Sequence[Sequence[dict]], answers: Sequence[Sequence[Any]],
                recipes: Mapping[str, Any], s: ScoreSettings, bertscorer: Any,
                models: Collection[str] | None = None) -> list[list[dict]]:
    """Each member's rows (``items[k]`` answered by ``answers[k]``, one subtask each): scored
    in the run's cores, then the model metrics added here, every member's replies in one call
    a subtask (a row's value reads only its reply and item): one member's pairs were too few
    to spread their products, and members that reply alike (a constant, another log's
    reference) share their pairs. ``models``: the subtasks whose rows get the model metrics
    (None: every one); the others' rows are scored as with ``eval.bertscore=false``."""
    warm_scorers(items, recipes)
    settings = [s if models is None or not its or its[0]["subtask"] in models
                else replace(s, bertscore=False) for its in items]
    rows = spread([partial(_rows, its, a, recipes, sk)
                   for its, a, sk in zip(items, answers, settings, strict=True)],
                  [len(its) for its in items])
    replied = [(mine[k], its[k]) for its, a, mine, sk in zip(items, answers, rows, settings,
                                                              strict=True)
               if sk.bertscore for k, x in enumerate(a) if isinstance(x, str)]
    with timed(log, "blind panel: model metrics"):
        if replied:
            model_metrics([r for r, _ in replied], [it for _, it in replied], recipes, s,
                          bertscorer)
    return rows


def model_subtasks(rows: Sequence[dict], recipes: Mapping[str, Any]) -> set[str]:
    """The subtasks whose blind panel needs the model metrics: those of a system's rows (its
    table prints a floor beside each metric) and those whose validity verdict reads one (a
    recipe's primary or check metric). Elsewhere they would be computed and never read: at
    ten times the paper grid, 280 s of MiniLM passes for a system with no summary to score."""
    return {r["subtask"] for r in rows} | {
        n for n, r in recipes.items()
        if {r.primary, r.check or r.primary} & set(MODEL_METRICS)}


def _rows(items: Sequence[dict], answers: Sequence[Any], recipes: Mapping[str, Any],
          s: ScoreSettings) -> list[dict]:
    """A member's rows without the model metrics: its replies scored, its expected scores as
    rows."""
    replies = {it["item_id"]: a for it, a in zip(items, answers, strict=True)
               if isinstance(a, str)}
    scored = {r["item_id"]: r for r in score_items(
        [it for it in items if it["item_id"] in replies], replies, recipes, s, models=False)}
    return [scored[it["item_id"]] if it["item_id"] in scored
            else expected_row(it, a, recipes, s) for it, a in zip(items, answers, strict=True)]


def expected_row(item: dict, answer: Mapping[str, Any], recipes: Mapping[str, Any],
                 s: ScoreSettings) -> dict:
    """The row of a member's expected scores; the options it picked (`PICKS`), where it
    names them, go to the row's ``picks``. Answers are computed with the model metrics on,
    whatever ``s`` says, and those are left out here where it has them off: so an answer
    reads nothing of ``s.bertscore``, and the evaluate stage's panel (on) may reuse the
    validity check's answers (off) without losing a metric (`blind._answers_key`)."""
    scores = {k: v for k, v in answer.items()
              if k != PICKS and (s.bertscore or k not in MODEL_METRICS)}
    row = make_row(item, recipes[item["subtask"]], "ok", scores, None)
    if PICKS in answer:
        row["picks"] = list(answer[PICKS])
    return row
