"""Human performance, two ways, printed beside every system's headline with its n and interval.

* Where a recipe's source has several annotators (VidSitu reports one annotator's descriptions
  scored against the others' as the human row of its tables), a recipe declares
  ``Recipe.human``: for an item, the item as the other annotators describe it and one
  annotator's description as the reply, scored with the recipe's own scorer (corpus metrics
  over the items that have a second annotator).
* Where people answered a sample (MultiHop-EgoQA's 10% of the test split,
  `xlebench.tasks.multihop.human_eval`), ``eval.human_sheet`` gives their replies: every item
  of the sample is scored, one left blank as a wrong answer.
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


def sheet_agreement(items: Sequence[dict], drawn: Sequence[dict], replies: Mapping[str, str],
                    recipes: Mapping[str, Any], settings: Any, primary: Mapping[str, str],
                    n_boot: int, seed: int) -> dict[str, dict[str, Any]]:
    """Per subtask of the human-evaluation sample ``drawn`` (of ``items``): people's replies
    scored over the whole sample (blank rows as wrong answers), with how many they answered."""
    out = {}
    for sub in sorted({it["subtask"] for it in drawn} & set(recipes)):
        mine = [it for it in drawn if it["subtask"] == sub]
        rows = score_items(mine, {it["item_id"]: replies.get(it["item_id"], "") for it in mine},
                           {sub: recipes[sub]}, settings)
        out[sub] = {**estimate(rows, primary[sub], n_boot, seed), "metric": primary[sub],
                    "of": sum(it["subtask"] == sub for it in items),
                    "answered": sum(it["item_id"] in replies for it in mine),
                    "source": "sheet"}
    outside = len(set(replies) - {it["item_id"] for it in drawn})
    for cell in out.values():
        cell["outside_sample"] = outside  # rows of items this evaluation does not draw
    return out


def human_lines(human: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Notes under a results table: the human row of each subtask that has one."""
    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}"

    def ci(h: Mapping[str, Any]) -> str:
        return f" [{pct(h['ci95'][0])}, {pct(h['ci95'][1])}]" if h.get("ci95") else ""
    sheet = [f"Human ({sub}; MultiHop-EgoQA's human row: people answering a seeded 10% of the "
             f"test split, eval.human_sheet): {h['metric']} {pct(h['mean'])}{ci(h)} on "
             f"{h['n']} of its {h['of']} items, {h['answered']} answered (a blank row scores "
             "as a wrong answer)" + (f"; {h['outside_sample']} answered rows are of items "
                                     "outside the evaluated sample, not scored"
                                     if h.get("outside_sample") else "") + "."
             for sub, h in human.items() if h.get("source") == "sheet"]
    human = {sub: h for sub, h in human.items() if h.get("source") != "sheet"}
    return sheet + [f"Human agreement ({sub}; VidSitu's estimate: one annotator's description "
                    f"scored against the other annotators'): {h['metric']} {pct(h['mean'])}"
                    f"{ci(h)} on the {h['n']} of {h['of']} items with a second annotator."
                    for sub, h in human.items()]
