"""The results table in the paper's Table 5 layout: subtasks x (short, medium, long, all).

Each cell holds the **headline** — the metric over every item of the benchmark, replies that
are missing, unparseable, refusals or "no information" scoring a wrong answer's value — with
its n (all items) and a 95% bootstrap confidence interval clustered by source video (source
videos are resampled, not items: life logs reuse library videos, so items about one video —
often about one annotation — are not independent, whichever log holds them); the **paper protocol** (refusals
and no-information replies left out, missing ones kept) with its own n and interval; the
**floor**: the strongest member of the blind panel on the same items with the same metric and
bootstrap, named (`xlebench.eval.panel.blind`: answers that never see the video, cross-fitted by
source video), with every member's value; and the count of each failure status. Pooled metrics (counting accuracy) weigh each row by its
number of queried actions. AVG rows pool the subtasks of a task family over their items, which
is the paper's query-weighted average, with the same columns.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from xlebench.eval.metrics import REGISTRY, finite
from xlebench.eval.panel.blind import Panel, strongest
from xlebench.eval.score import PAPER_EXCLUDES, STATUSES

CATEGORIES = ("short", "medium", "long")
FAILURES = tuple(s for s in STATUSES if s != "ok")


def clustered_ci(values: Sequence[tuple[str, float, float]], n_boot: int, seed: int
                 ) -> tuple[float, float] | None:
    """95% percentile interval of a weighted mean, resampling clusters (source videos).

    ``values`` are (cluster, value, weight) triples; a cluster's weighted sum and total weight
    move together, so pooled metrics are resampled as ratios.
    """
    sums: dict[str, float] = defaultdict(float)
    totals: dict[str, float] = defaultdict(float)
    for cluster, v, w in values:
        sums[cluster] += v * w
        totals[cluster] += w
    if len(sums) < 2 or n_boot <= 0:
        return None
    keys = sorted(sums)
    s, t = np.array([sums[k] for k in keys]), np.array([totals[k] for k in keys])
    picks = np.random.default_rng(seed).integers(0, len(keys), size=(n_boot, len(keys)))
    denom = t[picks].sum(axis=1)
    return percentile_interval(s[picks].sum(axis=1) / np.where(denom > 0, denom, np.nan))


def percentile_interval(boots: np.ndarray) -> tuple[float, float] | None:
    """The 95% percentile interval of bootstrap values, NaN resamples (nothing of the metric
    drawn) left out; None where no resample has a value (VidSitu's ``verb_r5_th9`` on a
    benchmark where no verb occurs ten times): an interval of nothing is no interval, and
    NaN is not JSON."""
    boots = boots[np.isfinite(boots)]
    if not boots.size:
        return None
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return round(float(lo), 4), round(float(hi), 4)


def cluster(row: dict) -> str:
    """A row's resampling unit: its item's first source video (the life log for rows scored
    before items named their source)."""
    return row.get("cluster") or row["lifelog_id"]


def _values(rows: Sequence[dict], metric: str) -> list[tuple[str, float, float]]:
    return [(cluster(r), r["scores"][metric], r.get("weights", {}).get(metric, 1.0))
            for r in rows if finite(r["scores"].get(metric))]


def _corpus_estimate(rows: Sequence[dict], fn: Any, n_boot: int, seed: int
                     ) -> dict[str, Any]:
    """A metric of the whole set of rows (a `CorpusMetric`), its interval by resampling source
    videos: each resample sums the videos' prepared vectors (a matrix product) and divides."""
    details = [r.get("details", {}) for r in rows]  # expected values of a random strategy
    num, den = fn.prepare(details)                   # have none
    value = fn(details) if rows else float("nan")
    keys = sorted({cluster(r) for r in rows})
    ci = None
    if len(keys) >= 2 and n_boot > 0:
        index = {k: i for i, k in enumerate(keys)}
        member = np.zeros((len(keys), len(rows)))
        member[[index[cluster(r)] for r in rows], np.arange(len(rows))] = 1.0
        picks = np.random.default_rng(seed).integers(0, len(keys), size=(n_boot, len(keys)))
        weight = np.stack([np.bincount(p, minlength=len(keys)) for p in picks]) @ member
        ci = percentile_interval(fn.values(weight @ num, weight @ den))
    return {"mean": round(value, 4) if finite(value) else None, "n": len(rows), "ci95": ci}


def estimate(rows: Sequence[dict], metric: str, n_boot: int, seed: int,
             corpus: Any = None) -> dict[str, Any]:
    """The metric's value over rows, its n and interval. A corpus metric that cannot run on
    this machine (METEOR 1.5 without Java) has no value and says why (``unavailable``)."""
    if corpus is not None:
        reason = corpus.unavailable() if getattr(corpus, "unavailable", None) else None
        if reason:
            return {"mean": None, "n": len(rows), "ci95": None, "unavailable": reason}
        return _corpus_estimate(rows, corpus, n_boot, seed)
    vals = _values(rows, metric)
    total = sum(w for _, _, w in vals)
    mean = sum(v * w for _, v, w in vals) / total if total else None
    return {"mean": round(mean, 4) if mean is not None else None, "n": len(rows),
            "ci95": clustered_ci(vals, n_boot, seed) if vals else None}


def point_estimate(rows: Sequence[dict], metric: str, corpus: Any = None) -> float | None:
    """The table's value of one metric over rows (no interval): what lmms-eval's aggregation
    of an exported task reports."""
    return estimate(rows, metric, 0, 0, corpus)["mean"]


def _floor(members: Mapping[str, list[dict]], metric: str, n_boot: int, seed: int,
           corpus: Any = None) -> dict[str, Any]:
    """The strongest blind member on these rows (named, with its interval) and every
    member's value."""
    best, values = strongest(members, metric,
                             lambda rows, m: estimate(rows, m, 0, seed, corpus)["mean"])
    if best is None:
        return {"mean": None, "n": 0, "ci95": None, "member": None, "panel": values}
    return {**estimate(members[best], metric, n_boot, seed, corpus), "member": best,
            "panel": values}


def _cell(rows: list[dict], members: Mapping[str, list[dict]], metric: str, n_boot: int,
          seed: int, corpus: Any = None) -> dict[str, Any]:
    paper = [r for r in rows if r["status"] not in PAPER_EXCLUDES]
    cell = {"metric": metric, **estimate(rows, metric, n_boot, seed, corpus),
            "paper": estimate(paper, metric, n_boot, seed, corpus),
            "floor": _floor(members, metric, n_boot, seed, corpus)}
    cell.update({status: sum(r["status"] == status for r in rows) for status in FAILURES})
    return cell


def _by_cell(rows: Sequence[dict]) -> dict[tuple[str, str], list[dict]]:
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        out[(r["subtask"], r["category"])].append(r)
        out[(r["subtask"], "all")].append(r)
    return out


def _categories(rows: Sequence[dict]) -> list[str]:
    """The paper's three lengths first, then any custom length (``n7``), then ``all``."""
    seen = {r["category"] for r in rows}
    return [c for c in CATEGORIES if c in seen] + sorted(seen - set(CATEGORIES)) + ["all"]


def _members_by_cell(panel: Panel) -> dict[str, dict[str, dict[tuple[str, str], list[dict]]]]:
    return {sub: {m: _by_cell(rows) for m, rows in members.items()}
            for sub, members in panel.rows.items()}


def _pooled_floor(present: Sequence[str], pby: Mapping, c: str, metric: str, seed: int
                  ) -> list[dict]:
    """An AVG row's floor rows: each member subtask's strongest member in this cell."""
    out: list[dict] = []
    for sub in present:
        members = {m: cells[(sub, c)] for m, cells in pby.get(sub, {}).items()}
        best, _ = strongest(members, metric,
                            lambda rows, m: estimate(rows, m, 0, seed)["mean"])
        out += members[best] if best else []
    return out


def results_table(rows: Sequence[dict], panel: Panel, *,
                  groups: Mapping[str, Sequence[str]] | None = None,
                  corpus: Mapping[str, Mapping[str, Any]] | None = None, n_boot: int = 1000,
                  seed: int = 0, paper: Mapping[str, Sequence[str]] | None = None
                  ) -> dict[str, Any]:
    """Rows come from `score_items`, in the order subtasks should be listed; ``panel`` from
    `xlebench.eval.panel.blind.panel_rows` over the same items; ``groups`` names the AVG rows
    (``{"temporal localisation AVG": [subtasks]}``, from the recipes' families); ``corpus``
    the per-subtask metrics computed over whole sets of rows; ``paper`` each subtask's
    paper metrics (`Recipe.paper_layout`): an AVG row pools the ones its members share too,
    as the paper's Table 5 averages its own metric."""
    by, pby = _by_cell(rows), _members_by_cell(panel)
    primary = {r["subtask"]: r["primary"] for r in rows}
    subtasks = list(primary)
    cols = _categories(rows)
    table: dict[str, Any] = {"columns": cols, "rows": {}, "extra": {}}

    def members(sub: str, c: str) -> dict[str, list[dict]]:
        return {m: cells[(sub, c)] for m, cells in pby.get(sub, {}).items()}
    for sub in subtasks:
        fns = dict((corpus or {}).get(sub, {}))
        table["rows"][sub] = {c: _cell(by[(sub, c)], members(sub, c), primary[sub], n_boot,
                                       seed, fns.get(primary[sub])) for c in cols}
        metrics = sorted(({m for r in by[(sub, "all")] for m in r["scores"]} | set(fns))
                         - {primary[sub]})
        table["extra"][sub] = {m: {c: _cell(by[(sub, c)], members(sub, c), m, n_boot, seed,
                                            fns.get(m)) for c in cols} for m in metrics}
    for name, group in (groups or {}).items():
        present = [s for s in group if s in table["rows"]]
        if len(present) < 2 or len({primary[s] for s in present}) != 1:
            continue  # pooling needs one shared metric
        metric = primary[present[0]]
        table["rows"][name] = {c: {**_cell(
            [r for s in present for r in by[(s, c)]],
            {"strongest per subtask": _pooled_floor(present, pby, c, metric, seed)},
            metric, n_boot, seed), "members": present} for c in cols}
        # the members' shared item metrics pooled too: the paper's AVG row in its own metric
        # (``eval.layout=paper``: the summaries' ROUGE-L, not the validity headline)
        shared = set.intersection(*(set(table["extra"][s]) & set((paper or {}).get(s, ()))
                                    for s in present)) - {
            m for s in present for m in (corpus or {}).get(s, {})}
        if shared:
            table["extra"][name] = {m: {c: _cell(
                [r for s in present for r in by[(s, c)]],
                {"strongest per subtask": _pooled_floor(present, pby, c, m, seed)},
                m, n_boot, seed) for c in cols} for m in sorted(shared)}
    table["by_tag"] = tag_breakdown(rows, panel, primary, n_boot, seed)
    table["panel"] = {sub: {"sees": dict(panel.sees.get(sub, {})),
                            "skipped": dict(panel.skipped.get(sub, {}))} for sub in subtasks}
    table["metrics"] = {m: vars(REGISTRY[m]) for m in sorted(
        set(primary.values()) | {m for e in table["extra"].values() for m in e})
        if m in REGISTRY}
    return table


def tag_breakdown(rows: Sequence[dict], panel: Panel, primary: Mapping[str, str], n_boot: int,
                  seed: int) -> dict[str, dict[str, dict[str, dict[str, Any]]]]:
    """Per subtask whose items carry ``tags`` (Neptune's capability, MultiHop's category):
    per tag and value, the primary metric's cell — its n, interval and the strongest blind
    member on the same items."""
    out: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    for sub, metric in primary.items():
        tagged = [r for r in rows if r["subtask"] == sub and r.get("tags")]
        for tag in sorted({t for r in tagged for t in r["tags"]}):
            for value in sorted({r["tags"][tag] for r in tagged if tag in r["tags"]}):
                def has(r: dict, tag: str = tag, value: str = value) -> bool:
                    return r.get("tags", {}).get(tag) == value
                members = {m: [r for r in mrows if has(r)]
                           for m, mrows in panel.rows.get(sub, {}).items()}
                out.setdefault(sub, {}).setdefault(tag, {})[value] = _cell(
                    [r for r in tagged if has(r)], members, metric, n_boot, seed)
    return out
