"""The blind panel as a filter: keep only what a reader who never sees a frame cannot use.

EgoSchema drops questions a text-only model answers from the question and options; Neptune
drops those its QAD model ranks first. Both need a model. The offline counterpart is xlebench's
own blind panel (`xlebench.eval.panel.blind`): every strategy that reads the query, the
options, or other life logs' answers, cross-fitted by source video.

**Multiple choice is balanced** (``balance: true``, the default): dropping every item the panel
answers leaves the panel wrong on what is kept, and since the panel is open source, "not its
pick" then answers the benchmark (issue 77: 31.8 on `egoschema_mcq` against a floor of 22.3).
So in each of ``rounds`` rounds the panel is fitted on the items kept so far (``seeds`` fold
assignments, each member's accuracy averaged over them) and every member outside chance's
band — the learned member's inverse and the stacked reader of every member's pick among them —
loses only its excess of right (or wrong) picks, per stratum of its agreement with the others
(`xlebench.tasks.screening.balance`); last, the labels' positions are evened out the same way
(the position prior reads them). The floor printed beside
every score is the panel fitted again on what is published, by the evaluate stage.

**Short answers** (and ``balance: false``): each seed's strongest member (the floor that table
would print) answers the items, and an item it answers right in at least
``drop_if_correct_at_least`` seeds is dropped. Members that pick by position alone
(`Blind.positional`) never decide there: dropping the items whose label sits where such a
member points would leave that position empty — a skew the member then reads as accuracy.

It needs every life log's items, so it runs once at the end of the annotate stage
(`AnnotateStage.finish`), after the printed-answer pairs are resolved and AFLite;
``tasks.<name>.filters`` without it keeps such items, and the tables say so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xlebench.eval.panel.blind import REMEMBERED, panel_rows, strongest
from xlebench.runner.rng import derive_seed
from xlebench.tasks.screening.balance import balance_readers, chance, tag_strata

KIND = "panel"
#: Why an item left the benchmark (``stats`` of the annotate records, stats/tasks.json).
DROPPED = "dropped by the panel filter"
#: Rounds of balancing (each refits the panel on what the last kept) unless a spec says.
ROUNDS = 3
#: The member that reads nothing: its accuracy is chance by construction.
UNIFORM = "uniform"
#: A row the panel "answers right": its primary metric at its best value.
RIGHT = 1.0 - 1e-9


def panel_verdicts(items: Sequence[dict], recipe: Any, spec: Mapping[str, Any],
                   settings: Any, seed: int, public: Any = None) -> dict[str, dict[str, Any]]:
    """Per item whether it is kept, and why: balanced for multiple choice
    (`balanced_verdicts`, unless ``balance: false``), else dropped where the strongest member
    answers it (`strongest_verdicts`)."""
    if getattr(recipe.scorer, "kind", None) == "choice" and spec.get("balance", True):
        return balanced_verdicts(items, recipe, spec, settings, seed, public)
    return strongest_verdicts(items, recipe, spec, settings, seed, public)


def _readers(recipe: Any, panel: Any) -> dict[str, list[dict]]:
    """The panel's rows of every member that reads something (not nothing, not a position:
    positions are evened out directly, `_positions`) and that the filter balances
    (``Blind.screens``)."""
    where = {b.name for b in recipe.scorer.blind() if b.positional or not b.screens}
    return {m: r for m, r in panel.rows.get(recipe.name, {}).items()
            if m.removesuffix(REMEMBERED) not in where and m != UNIFORM}


def _positions(items: Sequence[dict], base: Mapping[str, float], tags: Mapping[str, str],
               seed: int) -> dict[str, str]:
    """Labels are shuffled uniformly, but what the filters keep need not be: a position
    holding more right options than chance gives is read by the position prior. Each
    position is balanced as a reader that always picks it (the excess of items whose label
    sits there dropped, seeded); the labels are fixed, so no refit moves them again."""
    if not items:  # the rounds left nothing (every item answered where the panel is sure)
        return {}
    ids = [it["item_id"] for it in items]
    width = max(len(it["answer"]["options"]) for it in items)
    at = {f"position {p}": {it["item_id"]: float(it["answer"]["label"] == p) for it in items}
          for p in range(width)}
    return balance_readers(ids, at, {}, base, tags, seed, "positions")


def balanced_verdicts(items: Sequence[dict], recipe: Any, spec: Mapping[str, Any],
                      settings: Any, seed: int, public: Any = None
                      ) -> dict[str, dict[str, Any]]:
    """Multiple choice: in each of ``rounds`` rounds, the panel is fitted on the items kept so
    far (``seeds`` fold assignments); every member — its inverse and the stacked reader among
    them — whose accuracy there is outside chance's band (`balance.balanced`) is balanced in
    turn, the furthest first: per stratum of its agreement with the others, the excess of its
    right (or wrong) picks is dropped (`balance.excess_drops`). Per item: the round and the
    member it was dropped for, or kept."""
    seeds, rounds = int(spec["seeds"]), int(spec.get("rounds", ROUNDS))
    base = {it["item_id"]: chance(it) for it in items}
    tags, out = tag_strata(items), {}
    left = list(items)
    for r in range(rounds):
        acc, picks = _panel_reading(left, recipe, settings, seed, r, seeds, public)
        drop = balance_readers([it["item_id"] for it in left], acc, picks, base, tags, seed,
                               "panel", r)
        out.update({i: {"round": r, "reader": m} for i, m in drop.items()})
        left = [it for it in left if it["item_id"] not in out]
        if not drop:
            break
    out.update({i: {"round": rounds, "reader": m}
                for i, m in _positions(left, base, tags, seed).items()})
    return {it["item_id"]: {"seeds": seeds, "rounds": rounds, "balanced": True,
                            **out.get(it["item_id"], {"round": None, "reader": None}),
                            "kept": it["item_id"] not in out} for it in items}


def _panel_reading(items: Sequence[dict], recipe: Any, settings: Any, seed: int, r: int,
                   seeds: int, public: Any) -> tuple[dict[str, dict[str, float]],
                                                    dict[str, dict[str, list[int]]]]:
    """Per member, each item's accuracy averaged over the seeds' fits, and its picks in the
    first."""
    acc: dict[str, dict[str, float]] = {}
    picks: dict[str, dict[str, list[int]]] = {}
    for k in range(seeds):
        salt = ("panel-filter", k) if r == 0 else ("panel-filter", r, k)
        panel = panel_rows(items, {recipe.name: recipe}, settings,
                           seed=derive_seed(seed, *salt), draws=8, public=public,
                           keep_fits=True)
        for m, rows in _readers(recipe, panel).items():
            cell = acc.setdefault(m, {})
            for row in rows:
                v = (row["scores"].get(recipe.primary) or 0.0) / seeds
                cell[row["item_id"]] = cell.get(row["item_id"], 0.0) + v
                if k == 0 and "picks" in row:
                    picks.setdefault(m, {})[row["item_id"]] = row["picks"]
    return acc, picks


def strongest_verdicts(items: Sequence[dict], recipe: Any, spec: Mapping[str, Any],
                       settings: Any, seed: int, public: Any = None
                       ) -> dict[str, dict[str, Any]]:
    """Per item: the strongest member of each seed's panel — on the items of its tag value
    (Neptune's capability) where those are many, as the per-tag floors are printed — how
    many seeds it was right in, and whether the item is kept."""
    seeds, need = int(spec["seeds"]), int(spec["drop_if_correct_at_least"])
    right = {it["item_id"]: 0 for it in items}
    strata = tag_strata(items)
    members: dict[str, list[str]] = {s: [] for s in set(strata.values())}
    for k in range(seeds):
        panel = panel_rows(items, {recipe.name: recipe}, settings,
                           seed=derive_seed(seed, "panel-filter", k), draws=8, public=public,
                           keep_fits=True)
        rows = _readers(recipe, panel)
        for stratum in sorted(members):
            mine = {m: [r for r in rs if strata[r["item_id"]] == stratum]
                    for m, rs in rows.items()}
            if not mine:
                continue
            best, _ = strongest(mine, recipe.primary, _mean)
            members[stratum].append(best)
            for r in mine[best]:
                if (r["scores"].get(recipe.primary) or 0.0) >= RIGHT:
                    right[r["item_id"]] += 1
    return {i: {"right": n, "seeds": seeds, "drop_if_correct_at_least": need,
                "members": members[strata[i]], "kept": n < need} for i, n in right.items()}


def _mean(rows: Sequence[dict], metric: str) -> float:  # the panel member's mean score
    return sum(r["scores"].get(metric) or 0.0 for r in rows) / max(1, len(rows))


#: Answer kinds a reader gets right or wrong, where the filter applies.
FILTERED_KINDS = ("choice", "short")


def filter_notes(items: Sequence[dict], records: Mapping[str, dict], recipes: Mapping[str, Any]
                 ) -> list[str]:
    """One line per evaluated multiple-choice or short-answer subtask: what the panel filter
    dropped before these items were scored, or that it was not applied."""
    dropped: dict[str, int] = {}
    for rec in records.values():
        dropped[rec["subtask"]] = dropped.get(rec["subtask"], 0) + \
            rec.get("stats", {}).get(DROPPED, 0)
    lines = []
    for sub in dict.fromkeys(it["subtask"] for it in items):
        if getattr(recipes[sub].scorer, "kind", None) not in FILTERED_KINDS:
            continue
        verdict = next((it["provenance"].get("filters", {}).get(KIND) for it in items
                        if it["subtask"] == sub and KIND in it["provenance"].get("filters", {})),
                       None)
        if verdict is None:
            lines.append(f"{sub}: no panel filter: items a video-blind reader answers right "
                         f"are kept (tasks.{sub}.filters).")
        elif verdict.get("balanced"):
            lines.append(f"{sub}: {dropped.get(sub, 0)} items dropped by the balanced panel "
                         f"filter ({verdict['rounds']} rounds of {verdict['seeds']} seeds), "
                         "so that on what is kept no member's pick (its inverse and the "
                         "stacked reader among them) is right more or less often than chance "
                         "allows; the floor is the strongest reader fitted again on these "
                         "items.")
        else:
            lines.append(f"{sub}: {dropped.get(sub, 0)} items the blind panel answered right "
                         f"in at least {verdict['drop_if_correct_at_least']} of "
                         f"{verdict['seeds']} seeds were dropped before scoring (panel filter).")
    return lines
