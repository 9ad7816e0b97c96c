"""Does a recipe measure the video? Its full-information oracle against its blind panel.

Two numbers per recipe, on the same items:

* the **oracle** — the recipe's own `Recipe.oracle`, which re-derives every answer from exactly
  the annotations the item was built from. It is a consistency check, not a baseline: it must
  reach ``CONSISTENT`` (95%) of the maximum on its check metric (R@1 at the strictest tIoU for
  spans, exact counts and orders, option accuracy, ROUGE-L for extractive text), otherwise the
  recipe's answers disagree with their own sources — a ground-truth bug.
* the **blind** floor — the strongest member of the blind panel (`xlebench.eval.panel.blind`).

The gap between them is what the recipe can measure; a recipe whose oracle does not beat its
blind panel says so in words, in ``stats/tasks.json``, every results table and the report.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from xlebench.eval.panel.blind import Panel, panel_rows, strongest
from xlebench.eval.score import ScoreSettings, corpus_metrics, score_spread
from xlebench.eval.table import estimate
from xlebench.runner.progress import timed

log = logging.getLogger(__name__)

#: The oracle must reach this share of the maximum on its check metric.
CONSISTENT = 0.95


def _mean(rows: Sequence[dict], metric: str, corpus: Mapping[str, Any]) -> dict[str, Any]:
    return estimate(rows, metric, 200, 0, corpus.get(metric))


def recipe_validity(recipe: Any, items: Sequence[dict], oracle_rows: Sequence[dict],
                    members: Mapping[str, Sequence[dict]], corpus: Mapping[str, Any]
                    ) -> dict[str, Any]:
    """The oracle's check and primary scores, the strongest blind member, and the verdicts."""
    primary, check = recipe.primary, recipe.check or recipe.primary
    best, values = strongest(members, primary, lambda rows, m: _mean(rows, m, corpus)["mean"])
    blind = {**_mean(members[best], primary, corpus), "member": best} if best else None
    out: dict[str, Any] = {"items": len(items), "metric": primary,
                           "blind": blind, "panel": values}
    if getattr(recipe.scorer, "kind", None) == "choice" and items:
        out["chance"] = chance_band(items, members, primary)
    if recipe.oracle is None or not oracle_rows:
        out.update(oracle=None, consistent=None, headroom=None,
                   verdict="no full-information oracle for this recipe offline")
        return out
    ora = _mean(oracle_rows, primary, corpus)
    checked = _mean(oracle_rows, check, corpus)["mean"]
    consistent = checked is not None and checked >= CONSISTENT
    top = (blind or {}).get("ci95") or [None, (blind or {}).get("mean")]
    headroom = ora["mean"] is not None and (top[1] is None or ora["mean"] > top[1])
    out.update(oracle={**ora, "check_metric": check, "check": checked},
               consistent=consistent, headroom=headroom,
               verdict=_verdict(consistent, headroom, check, checked, blind, ora))
    return out


def chance_band(items: Sequence[dict], members: Mapping[str, Sequence[dict]], metric: str
                ) -> dict[str, Any]:
    """Multiple choice: a uniform guess's mean and its 95% interval on these items (binomial,
    1/k per item), and the members whose mean lies outside it — above is a floor, below an
    inverse a submitter reads ("not its pick"): a filter that leaves a fingerprint shows
    here."""
    base = [1.0 / len(it["answer"]["options"]) for it in items]
    mean = sum(base) / len(base)
    half = 1.96 * math.sqrt(sum(c * (1 - c) for c in base)) / len(base)
    means = {m: sum(r["scores"].get(metric) or 0.0 for r in rows) / len(rows)
             for m, rows in members.items() if rows}
    return {"mean": mean, "ci95": [mean - half, mean + half],
            "outside": {m: v for m, v in sorted(means.items())
                        if not mean - half <= v <= mean + half}}


def _verdict(consistent: bool, headroom: bool, check: str, checked: float | None,
             blind: dict | None, ora: dict) -> str:
    if not consistent:
        return (f"ANSWERS DISAGREE WITH THEIR SOURCES: the full-information oracle reaches "
                f"{_pct(checked)} on {check}, below {CONSISTENT:.0%}")
    if not headroom:
        return (f"DOES NOT MEASURE THE VIDEO: the strongest blind strategy "
                f"({blind['member'] if blind else '?'}, {_pct((blind or {}).get('mean'))}) "
                f"reaches the full-information oracle ({_pct(ora['mean'])})")
    return (f"measures the video: oracle {_pct(ora['mean'])} vs strongest blind "
            f"{blind['member']} {_pct(blind['mean'])}" if blind else "measures the video")


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def validity(items: Sequence[dict], oracle: Mapping[str, str], recipes: Mapping[str, Any],
             s: ScoreSettings, *, seed: int, draws: int, panel: Panel | None = None,
             script: Mapping[str, Sequence[dict]] | None = None) -> dict[str, dict[str, Any]]:
    """Per recipe (of the items' subtasks): `recipe_validity`. ``oracle`` maps item ids to
    the oracle's replies; ``panel`` is computed here unless given (``script``: the life
    logs' plans it reads, `panel_rows`)."""
    panel = panel or panel_rows(items, recipes, s, seed=seed, draws=draws, script=script)
    have = [it for it in items if it["item_id"] in oracle]
    with timed(log, "validity: the oracle's scores"):
        rows = score_spread(have, dict(oracle), recipes, s)
    corpus = corpus_metrics(recipes)
    by_sub: dict[str, list[dict]] = {}
    for it in items:
        by_sub.setdefault(it["subtask"], []).append(it)
    return {sub: recipe_validity(recipes[sub], its, [r for r in rows if r["subtask"] == sub],
                                 panel.rows.get(sub, {}), corpus.get(sub, {}))
            for sub, its in by_sub.items()}
