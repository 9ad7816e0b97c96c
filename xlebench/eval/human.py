"""Human performance where a recipe's source has several annotators (VidSitu reports one
annotator's descriptions scored against the others' as the human row of its tables).

A recipe declares ``Recipe.human``: for an item, the item as the other annotators describe it
and one annotator's description as the reply. The evaluate stage scores those replies with the
recipe's own scorer (corpus metrics over the items that have a second annotator) and prints
the headline with its n and interval beside every system's, in each results table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xlebench.eval.score import score_items
from xlebench.eval.table import estimate


def human_rows(items: Sequence[dict], recipes: Mapping[str, Any], settings: Any
               ) -> dict[str, list[dict]]:
    """Per subtask whose recipe declares ``human``: the scored rows of its human replies."""
    out: dict[str, list[dict]] = {}
    for name, recipe in recipes.items():
        if getattr(recipe, "human", None) is None:
            continue
        pairs = [made for it in items if it["subtask"] == name
                 if (made := recipe.human(it)) is not None]
        if pairs:
            out[name] = score_items([it for it, _ in pairs],
                                    {it["item_id"]: reply for it, reply in pairs},
                                    {name: recipe}, settings)
    return out


def human_agreement(items: Sequence[dict], recipes: Mapping[str, Any], settings: Any,
                    primary: Mapping[str, str], corpus: Mapping[str, Any], n_boot: int,
                    seed: int) -> dict[str, dict[str, Any]]:
    """Per subtask: the human estimate of its headline (mean, CI over source videos, n) and
    how many of the subtask's items had a second annotator."""
    out = {}
    for sub, rows in human_rows(items, recipes, settings).items():
        metric = primary[sub]
        cell = estimate(rows, metric, n_boot, seed, corpus.get(sub, {}).get(metric))
        out[sub] = {**cell, "metric": metric,
                    "of": sum(it["subtask"] == sub for it in items)}
    return out


def human_lines(human: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Notes under a results table: the human row of each subtask that has one."""
    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}"
    return [f"Human agreement ({sub}; VidSitu's estimate: one annotator's description scored "
            f"against the other annotators'): {h['metric']} {pct(h['mean'])}"
            + (f" [{pct(h['ci95'][0])}, {pct(h['ci95'][1])}]" if h.get("ci95") else "")
            + f" on the {h['n']} of {h['of']} items with a second annotator."
            for sub, h in human.items()]
