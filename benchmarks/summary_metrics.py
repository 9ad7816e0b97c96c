"""Which metric measures what a summary says? Each candidate side by side, on the demo and the
paper grid.

For the three summary subtasks, per candidate metric: the floor (the strongest video-blind
member of the panel on that metric, named), the skeleton's score (a string of frequent words
fitted on other logs' references for ROUGE-L), the oracle baseline (``oracle_text_retrieval``,
which reads the narrations; none on the authors' library, which has none) and the range
(baseline minus floor). Candidates: ROUGE-L (the paper's), ROUGE-L over content words,
BERTScore F1 and Sent.Sim (the paper's model metrics), CIDEr-D (its IDF discounts words every
reference has; computed here over each subtask's replies) and window identification (is the
reply nearer its own record's reference than its rivals'?).

    python benchmarks/summary_metrics.py [--video-info ../shared/data/xlebench_video_info.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import fields
from pathlib import Path

from xlebench.config.schema import EvalConfig
from xlebench.eval.metrics.bertscore import BERTScorer
from xlebench.eval.metrics.cider import cider_d
from xlebench.eval.panel.blind import panel_rows
from xlebench.eval.score import ScoreSettings
from xlebench.eval.scorers.text import reference
from xlebench.tasks.recipe.registry import load_recipe

ROOT = Path(__file__).resolve().parents[1]
SUMMARIES = ["single_summary", "multi_summary", "holistic_summary"]
METRICS = ["rougeL", "rougeL_content", "bertscore_f1", "sent_sim", "cider_d", "window_id"]


def compile_summaries(out: Path, name: str, *args: str) -> Path:
    cmd = [sys.executable, "-m", "xlebench", f"paths.outputs={out}", "progress=false",
           f"tasks=[{','.join(SUMMARIES)}]", "render=none", "eval.bertscore=false",
           "stages=[library,persona,plan,simulate,annotate,evaluate]", f"name={name}", *args]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"xlebench failed:\n{proc.stderr[-3000:]}")
    return out / "benchmarks" / name


def _means(rows: list[dict], items: list[dict]) -> dict[str, float]:
    out = {m: statistics.mean(r["scores"].get(m) or 0.0 for r in rows)
           for m in METRICS if m != "cider_d"}
    replies = [r["response"] or "" for r in rows]
    out["cider_d"] = statistics.mean(cider_d(replies, [[reference(it)] for it in items]))
    return out


def measure(bench: Path, with_baseline: bool) -> dict[str, dict]:
    defaults = {f.name: f.default_factory() if callable(f.default_factory) else f.default
                for f in fields(EvalConfig)}
    settings = ScoreSettings.from_eval({**defaults, "bertscore": True})
    scorer = BERTScorer()
    items = [json.loads(x) for sub in SUMMARIES
             for x in (bench / "annotations" / f"{sub}.jsonl").read_text().splitlines()]
    recipes = {sub: load_recipe(sub) for sub in SUMMARIES}
    panel = panel_rows(items, recipes, settings, seed=0, draws=8, bertscorer=scorer)
    baseline = {}
    if with_baseline:
        from xlebench.eval.score import score_items

        scores = [json.loads(x) for x in (bench / "results" / "oracle_text_retrieval"
                                          / "scores.jsonl").read_text().splitlines()]
        replies = {r["item_id"]: r["response"] or "" for r in scores}
        baseline = {"rows": score_items(items, replies, recipes, settings, scorer)}
    out = {}
    for sub in SUMMARIES:
        its = [it for it in items if it["subtask"] == sub]
        members = {m: _means(rows, its) for m, rows in panel.rows.get(sub, {}).items()}
        base = None
        if baseline:
            rows = [r for r in baseline["rows"] if r["subtask"] == sub]
            base = _means(rows, its)
        out[sub] = {"n": len(its), "members": members, "baseline": base}
    return out


def table(results: dict[str, dict], title: str) -> list[str]:
    lines = [f"### {title}", "", "| subtask | n | metric | floor (member) | skeleton | oracle "
             "baseline | range |", "|---|---|---|---|---|---|---|"]
    for sub, r in results.items():
        for m in METRICS:
            best = max(r["members"], key=lambda k: r["members"][k][m])
            floor = r["members"][best][m]
            skel = r["members"].get("skeleton", {}).get(m)
            base = r["baseline"][m] if r["baseline"] else None
            rng = f"{100 * (base - floor):+.1f}" if base is not None else "–"
            lines.append(f"| {sub} | {r['n']} | {m} | {100 * floor:.1f} ({best}) | "
                         f"{'–' if skel is None else f'{100 * skel:.1f}'} | "
                         f"{'n/a' if base is None else f'{100 * base:.1f}'} | {rng} |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--video-info", type=Path, default=None)
    args = ap.parse_args()
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        demo = compile_summaries(Path(tmp) / "demo", "demo")
        lines += table(measure(demo, True), "Demo (144 short logs)") + [""]
        if args.video_info and args.video_info.is_file():
            paper = compile_summaries(Path(tmp) / "paper", "paper", "experiment=paper",
                                      "library=xlebench_release",
                                      f"library.path={args.video_info}")
            lines += table(measure(paper, False),
                           "Paper grid on the authors' library (432 logs; no narrations)")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
