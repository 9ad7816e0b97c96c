"""The blind panel: what a benchmark's items yield to answers that never see a frame.

Every scorer declares video-blind strategies (`xlebench.eval.scorers.base.Blind`): a constant
summary, the query echoed back, option-only rules, count and position priors... This module
runs them over a set of items and scores their answers like any system's replies. Strategies
that learn from answers are **cross-fitted by life log**: the logs are split into folds, and
the items of one fold are answered by a strategy fitted on the other folds only, so no
strategy ever sees the answer of an item it is scored on (nor any answer from the same day).

The printed floor of a results cell is the strongest member of the panel on that cell's items
(`xlebench.eval.table`), named beside it: the honest answer to "how much of this score could a
system get without the video?".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xlebench.eval.score import make_row, score_items
from xlebench.eval.scorers.base import Blind, BlindContext, ScoreSettings
from xlebench.runner.rng import derive_seed, unit_rng

#: Life logs are split into this many folds (fewer when there are fewer logs).
FOLDS = 5


@dataclass
class Panel:
    """Rows of every strategy, per subtask: ``rows[subtask][member]`` has one row per item of
    the subtask, in item order, shaped as `xlebench.eval.score.score_items` rows."""

    rows: dict[str, dict[str, list[dict]]] = field(default_factory=dict)
    sees: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Strategies that could not run, with why (a learned one on a single life log).
    skipped: dict[str, dict[str, str]] = field(default_factory=dict)


def folds(lifelogs: Sequence[str], seed: int, k: int = FOLDS) -> dict[str, int]:
    """Fold of each life log: logs in a seeded order, dealt round-robin (balanced)."""
    order = sorted(set(lifelogs), key=lambda lid: (derive_seed(seed, "blind-fold", lid), lid))
    n = max(1, min(k, len(order)))
    return {lid: i % n for i, lid in enumerate(order)}


def _answers(blind: Blind, items: Sequence[dict], fold_of: Mapping[str, int], s: ScoreSettings,
             seed: int, draws: int, models: dict[tuple[Any, int], Any]) -> list[Any]:
    """Each item's answer; ``models`` caches fits per (fit function, fold), shared by the
    strategies that learn the same thing."""
    out = []
    for it in items:
        model = None
        if blind.fit is not None:
            key = (blind.fit, fold_of[it["lifelog_id"]])
            if key not in models:
                models[key] = blind.fit([o for o in items if fold_of[o["lifelog_id"]] != key[1]])
            model = models[key]
        ctx = BlindContext(s, unit_rng(seed, "blind", blind.name, it["item_id"]), draws)
        out.append(blind.answer(it, model, ctx))
    return out


def _rows(items: Sequence[dict], answers: Sequence[Any], recipes: Mapping[str, Any],
          s: ScoreSettings, bertscorer: Any) -> list[dict]:
    replies = {it["item_id"]: a for it, a in zip(items, answers, strict=True)
               if isinstance(a, str)}
    scored = {r["item_id"]: r for r in score_items(
        [it for it in items if it["item_id"] in replies], replies, recipes, s, bertscorer)}
    return [scored[it["item_id"]] if it["item_id"] in scored else
            make_row(it, recipes[it["subtask"]], "ok", dict(a), None)
            for it, a in zip(items, answers, strict=True)]


def panel_rows(items: Sequence[dict], recipes: Mapping[str, Any], s: ScoreSettings, *,
               seed: int, draws: int, bertscorer: Any = None) -> Panel:
    """Every subtask's blind strategies over ``items``, scored. Learned strategies need at
    least two life logs (one to learn from, one to answer)."""
    by_sub: dict[str, list[dict]] = {}
    for it in items:
        by_sub.setdefault(it["subtask"], []).append(it)
    fold_of = folds([it["lifelog_id"] for it in items], seed)
    n_folds = len(set(fold_of.values()))
    panel = Panel()
    for sub, its in by_sub.items():
        rows, sees, skipped, models = {}, {}, {}, {}
        for blind in recipes[sub].scorer.blind():
            if blind.fit is not None and n_folds < 2:
                skipped[blind.name] = "learns from other life logs: needs at least two"
                continue
            answers = _answers(blind, its, fold_of, s, seed, draws, models)
            rows[blind.name] = _rows(its, answers, recipes, s, bertscorer)
            sees[blind.name] = blind.sees
        panel.rows[sub], panel.sees[sub] = rows, sees
        if skipped:
            panel.skipped[sub] = skipped
    return panel


def strongest(members: Mapping[str, Sequence[dict]], metric: str, estimate: Any
              ) -> tuple[str | None, dict[str, float | None]]:
    """The member with the highest ``estimate(rows, metric)`` (the first declared on ties),
    and every member's value."""
    values = {m: estimate(rows, metric) for m, rows in members.items()}
    best = None
    for m, v in values.items():
        if v is not None and (best is None or v > values[best]):
            best = m
    return best, values
