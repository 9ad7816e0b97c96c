"""Does a benchmark answer itself? The reviewer's test of issue 41, before and after.

Compiles the demo twice through the real CLI — in the paper's forms (each log's items about a
reused video repeated, ``annotate.repeat_sources=true``; queries that print other items'
answers kept; single-summary periods that are the record's; the ordering query showing the
library summaries) and as xlebench compiles by default (each source asked once, one of each
printing pair dropped, padded periods, clip-level ordering texts) — and prints per subtask: the items kept, what the blind panel reaches when its learned
strategies are cross-fitted by **life log** (a reviewer who remembers other logs' answers:
constant, duration, question and option memory, priors), the printed floor (cross-fitted by
source video, with its interval), and what reading the other queries of an item's log gives.

    python benchmarks/leaks.py [--tasks object_retrieval,moment_retrieval,...]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from validity import GROUPS, pct, run

from xlebench.eval.panel.blind import panel_rows, strongest
from xlebench.eval.score import corpus_metrics
from xlebench.eval.scorers import ScoreSettings
from xlebench.eval.table import estimate
from xlebench.tasks.recipe.registry import load_recipe


def items_of(bench: Path) -> list[dict]:
    return [json.loads(x) for p in sorted((bench / "annotations").glob("*.jsonl"))
            for x in p.read_text().splitlines()]


def reviewer(items: list[dict]) -> dict[str, tuple[str | None, float | None]]:
    """Per subtask: the strongest blind member cross-fitted by life log, and its value."""
    subs = sorted({it["subtask"] for it in items})
    recipes = {s: load_recipe(s) for s in subs}
    corpus = corpus_metrics(recipes)
    panel = panel_rows(items, recipes, ScoreSettings(bertscore=False), seed=0, draws=8,
                       unit="life_log")
    out = {}
    for sub in subs:
        metric, cm = recipes[sub].primary, corpus.get(sub, {}).get(recipes[sub].primary)
        best, values = strongest(panel.rows[sub], metric,
                                 lambda rows, m, cm=cm: estimate(rows, m, 0, 0, cm)["mean"])
        out[sub] = (best, values.get(best) if best else None)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default=",".join(GROUPS["demo"]))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        benches = {}
        chosen = args.tasks.split(",")
        paper = ["annotate.repeat_sources=true", "annotate.printed_answers=keep",
                 # the paper's forms: repeats, printed answers, record periods,
                 *(["tasks.single_summary.period=record"]  # the ordering query's summaries
                   if "single_summary" in chosen else []),
                 *(["tasks.summary_ordering.texts=summaries"]
                   if "summary_ordering" in chosen else [])]
        for mode, extra in (("repeat", paper), ("once", [])):
            run(Path(tmp) / mode, f"tasks=[{args.tasks}]", "render=none", f"name={mode}",
                "stages=[library,persona,plan,simulate,annotate]", *extra)
            benches[mode] = Path(tmp) / mode / "benchmarks" / mode
        items = {m: items_of(b) for m, b in benches.items()}
        memory = {m: reviewer(v) for m, v in items.items()}
        stats = json.loads((benches["once"] / "stats" / "tasks.json").read_text())
    lines = ["| subtask | items (repeated → once) | reviewer's blind, repeated | reviewer's "
             "blind, once | printed floor, once [95% CI] | other queries of the log "
             "(best / any) |", "|---|---|---|---|---|---|"]
    for sub, v in sorted(stats["validity"].items()):
        n = {m: sum(it["subtask"] == sub for it in items[m]) for m in items}
        blind = v.get("blind") or {}
        ci = blind.get("ci95")
        ci = f" [{pct(ci[0])}, {pct(ci[1])}]" if ci else ""
        read = stats.get("other_queries", {}).get(sub)
        read = f"{pct(read['best'])} / {pct(read['uniform'])}" if read else "–"
        rev = {m: f"{pct(memory[m][sub][1])} {memory[m][sub][0] or ''}" for m in memory}
        lines.append(f"| {sub} | {n['repeat']} → {n['once']} | {rev['repeat']} | {rev['once']} "
                     f"| {pct(blind.get('mean'))}{ci} {blind.get('member') or ''} | {read} |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
