"""The results table in the paper's Table 5 layout: subtasks x (short, medium, long, all).

Each cell: the mean of the subtask's primary metric over evaluated items (failed replies
excluded, as the paper does), its n, a 95% bootstrap confidence interval clustered by life log
(life logs are resampled, not items: items of one log are not independent), and the robust
mean (failed replies scored 0, over all items) with the failure count. AVG rows pool
subtasks by query count (sum of mean x n over sum of n), exactly as the paper's averages.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from xlebench.eval.metrics import PRIMARY, REGISTRY, finite, pooled

CATEGORIES = ("short", "medium", "long")
GROUPS = {
    "temporal localisation AVG": ("object_retrieval", "people_retrieval", "moment_retrieval"),
    "summarisation AVG": ("single_summary", "multi_summary", "holistic_summary"),
}


def clustered_ci(values: Sequence[tuple[str, float]], n_boot: int, seed: int
                 ) -> tuple[float, float] | None:
    """95% percentile interval of the mean, resampling clusters (life logs) with replacement."""
    per: dict[str, list[float]] = defaultdict(list)
    for cluster, v in values:
        per[cluster].append(v)
    if len(per) < 2 or n_boot <= 0:
        return None
    sums = np.array([sum(v) for v in per.values()])
    counts = np.array([len(v) for v in per.values()])
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(per), size=(n_boot, len(per)))
    means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return round(float(lo), 4), round(float(hi), 4)


def _cell(rows: list[dict], metric: str, n_boot: int, seed: int) -> dict[str, Any]:
    ok = [(r["lifelog_id"], r["scores"][metric]) for r in rows
          if r["status"] == "ok" and finite(r["scores"].get(metric))]
    robust = [r["robust"].get(metric) for r in rows]
    robust = [v for v in robust if finite(v)]
    mean = sum(v for _, v in ok) / len(ok) if ok else math.nan
    return {
        "metric": metric, "mean": round(mean, 4) if ok else None, "n": len(ok),
        "total": len(rows), "coverage": round(len(ok) / len(rows), 4) if rows else None,
        "failed": sum(1 for r in rows if r["status"] != "ok"),
        "robust_mean": round(sum(robust) / len(robust), 4) if robust else None,
        "ci95": clustered_ci(ok, n_boot, seed),
    }


def results_table(rows: Sequence[dict], *, n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        by[(r["subtask"], r["category"])].append(r)
        by[(r["subtask"], "all")].append(r)
    subtasks = [s for s in PRIMARY if any(k[0] == s for k in by)]
    table: dict[str, Any] = {"columns": [*CATEGORIES, "all"], "rows": {}, "extra": {}}
    for sub in subtasks:
        table["rows"][sub] = {c: _cell(by[(sub, c)], PRIMARY[sub], n_boot, seed)
                              for c in table["columns"]}
        metrics = sorted({m for r in by[(sub, "all")] for m in r["scores"]} - {PRIMARY[sub]})
        table["extra"][sub] = {m: {c: _cell(by[(sub, c)], m, n_boot, seed)
                                   for c in table["columns"]} for m in metrics}
    for name, members in GROUPS.items():
        present = [s for s in members if s in table["rows"]]
        if len(present) < 2:
            continue
        table["rows"][name] = {}
        for c in table["columns"]:
            cells = [table["rows"][s][c] for s in present if table["rows"][s][c]["n"]]
            mean, n = pooled([(x["mean"], x["n"]) for x in cells])
            table["rows"][name][c] = {"metric": "pooled", "mean": round(mean, 4) if n else None,
                                      "n": n, "members": present}
    table["metrics"] = {m: vars(REGISTRY[m]) for m in sorted(
        {PRIMARY[s] for s in subtasks} | {m for e in table["extra"].values() for m in e})
        if m in REGISTRY}
    return table


def _fmt(cell: dict[str, Any]) -> str:
    if cell.get("mean") is None:
        return "–"
    text = f"{100 * cell['mean']:.1f} (n={cell['n']})"
    if cell.get("ci95"):
        lo, hi = cell["ci95"]
        text += f" [{100 * lo:.1f}, {100 * hi:.1f}]"
    return text


def to_markdown(table: dict[str, Any], title: str = "") -> str:
    cols = table["columns"]
    lines = ([f"### {title}", ""] if title else []) + [
        "| subtask | metric | " + " | ".join(cols) + " | robust (all) | failed |",
        "|---|---|" + "---|" * len(cols) + "---|---|"]
    for sub, cells in table["rows"].items():
        metric = next(iter(cells.values()))["metric"]
        robust = cells["all"].get("robust_mean")
        lines.append(f"| {sub} | {metric} | " + " | ".join(_fmt(cells[c]) for c in cols)
                     + f" | {'' if robust is None else f'{100 * robust:.1f}'} | "
                     f"{cells['all'].get('failed', '')} |")
    extra = [(sub, m, cells["all"]) for sub, metrics in table.get("extra", {}).items()
             for m, cells in metrics.items() if cells["all"].get("mean") is not None]
    if extra:
        lines += ["", "| subtask | secondary metric | all |", "|---|---|---|"]
        lines += [f"| {sub} | {m} | {_fmt(c)} |" for sub, m, c in extra]
    if table.get("bertscore"):
        b = table["bertscore"]
        lines += ["", f"BERTScore: model {b['model']}, layer {b['layer']}, no idf, "
                  "no baseline rescaling."]
    lines += ["", "Scores x100; n = evaluated items (failed replies excluded); [95% CI, "
              "bootstrap over life logs]; robust = failed replies scored 0; AVG rows pool "
              "subtasks by query count."]
    return "\n".join(lines) + "\n"
