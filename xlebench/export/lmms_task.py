"""What lmms-eval calls for an exported xlebench task (``utils.py`` of each task folder only
binds these): the visual, the prompt, the target, and scoring by xlebench's own scorers, so
lmms-eval and ``xlebench stages=[evaluate]`` give the same numbers for the same replies.

Settings come from ``xlebench_tasks.json`` at the root of the exported folder (the benchmark
folder, each subtask's recipe, metrics and answer format, the evaluation settings of the run
that exported it). ``process_results`` scores one reply into xlebench's row; every metric's
aggregation then computes the table's point estimate from the rows (weighted means, pooled
counting accuracy, corpus metrics such as CIDEr-D), never a plain mean of something else.
"""

from __future__ import annotations

import json
import math
from functools import cached_property
from pathlib import Path
from typing import Any

from xlebench.clock import fmt_hhmmss
from xlebench.eval.score import ScoreSettings, score_items
from xlebench.export.hf import row_to_item
from xlebench.llm.prompts import load_prompt

SETTINGS = "xlebench_tasks.json"
PROMPT = "eval/lmms_video.v1"
#: Every task's headline under one name, so the xlebench group can aggregate it.
SCORE = "score"


def lmms_metric(metric: str) -> str:
    """lmms-eval reads ``name,filter`` in its result keys: ``R@5,0.3`` -> ``R@5_tIoU0.3``."""
    return metric.replace(",", "_tIoU")


def find_settings(start: str | Path) -> Path:
    """``xlebench_tasks.json`` in the folder of ``start`` or above it (subtask folders sit one
    level below the exported root)."""
    here = Path(start).resolve()
    for folder in (here if here.is_dir() else here.parent, *here.parents):
        if (folder / SETTINGS).is_file():
            return folder / SETTINGS
    raise FileNotFoundError(f"no {SETTINGS} above {start}: re-export the benchmark "
                            "(xlebench stages=[export])")


class LmmsTask:
    """The functions of every exported xlebench task, bound to one exported folder."""

    def __init__(self, settings_path: Path) -> None:
        self.path = settings_path
        self.settings: dict[str, Any] = json.loads(settings_path.read_text("utf-8"))
        # relative to this file's folder: the exported benchmark can be moved as a whole
        self.benchmark = (settings_path.parent / self.settings["benchmark_dir"]).resolve()

    @classmethod
    def find(cls, start: str | Path) -> LmmsTask:
        return cls(find_settings(start))

    # -- inputs -----------------------------------------------------------------------------

    @cached_property
    def schedules(self) -> dict[str, list[tuple[float, float]]]:
        import pyarrow.parquet as pq

        table = pq.read_table(self.benchmark / "export" / "hf" / "lifelogs.parquet",
                              columns=["lifelog_id", "segments"])
        return {r["lifelog_id"]: [(s["start_s"], s["end_s"]) for s in r["segments"]]
                for r in table.to_pylist()}

    def doc_to_visual(self, doc: dict) -> list[str]:
        """The rendered life-log video; a clear error when it was not rendered."""
        video = self.benchmark / doc["video"]
        if not video.is_file():
            raise FileNotFoundError(
                f"{video}: this life log was not rendered; compile with render.max_logs=null "
                "or rebuild the videos with xlebench-rebuild, then run lmms-eval again")
        return [str(video)]

    def doc_to_text(self, doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
        kw = lmms_eval_specific_kwargs or {}
        sub = self.settings["subtasks"][doc["subtask"]]
        schedule = "\n".join(f"[{k + 1}] {fmt_hhmmss(a)} - {fmt_hhmmss(b)}" for k, (a, b) in
                             enumerate(self.schedules[doc["lifelog_id"]]))
        system, user = load_prompt(PROMPT).render(
            schedule=schedule, question=doc["query"], answer_format=sub["answer_format"])
        return (f"{kw.get('pre_prompt', '')}{system['content']}\n{user['content']}"
                f"{kw.get('post_prompt', '')}")

    def doc_to_target(self, doc: dict) -> str:
        return doc["answer_text"]

    # -- scoring ----------------------------------------------------------------------------

    @cached_property
    def recipes(self) -> dict[str, Any]:
        from xlebench.tasks.recipe.registry import load_recipe

        return {name: load_recipe(name, sub.get("target"))
                for name, sub in self.settings["subtasks"].items()}

    @cached_property
    def score_settings(self) -> ScoreSettings:
        return ScoreSettings.from_eval(self.settings["eval"])

    @cached_property
    def bertscorer(self) -> Any:
        if not self.settings["eval"]["bertscore"]:
            return None
        from xlebench.eval.metrics.bertscore import BERTScorer

        return BERTScorer(self.settings["eval"].get("bertscore_model"),
                          self.settings["eval"].get("bertscore_layer"))

    def process_results(self, doc: dict, results: list[str]) -> dict[str, dict]:
        """One xlebench row per reply, under each of the subtask's metric names."""
        item = row_to_item(doc)
        reply = results[0] if results else None
        row, = score_items([item], {item["item_id"]: reply} if reply is not None else {},
                           self.recipes, self.score_settings, self.bertscorer)
        sub = self.settings["subtasks"][item["subtask"]]
        out = {lmms_metric(m): {"metric": m, "row": row, "item": item} for m in sub["metrics"]}
        out[SCORE] = {"metric": sub["primary"], "row": row, "item": item}
        return out

    def aggregate(self, payloads: list[dict]) -> float:
        """The results table's point estimate of one metric over the rows."""
        from xlebench.eval.score import corpus_metrics
        from xlebench.eval.table import point_estimate

        if not payloads:
            return math.nan
        metric = payloads[0]["metric"]
        rows = [p["row"] for p in payloads]
        scorer = self.recipes[rows[0]["subtask"]].scorer
        if metric in getattr(scorer, "set_metrics", ()):
            rows = self._over_the_set(scorer, payloads)
        corpus = corpus_metrics(self.recipes).get(rows[0]["subtask"], {}).get(metric)
        value = point_estimate(rows, metric, corpus)
        return math.nan if value is None else value

    def _over_the_set(self, scorer: Any, payloads: list[dict]) -> list[dict]:
        """Rows whose set metrics (window identification: each reply against the other
        items' references) are computed over every reply, as the evaluate stage does; each
        reply was scored alone in `process_results`."""
        from dataclasses import replace

        rows = [{**p["row"], "scores": dict(p["row"]["scores"])} for p in payloads]
        scorer.finish(rows, [p["item"] for p in payloads],
                      replace(self.score_settings, bertscore=False), None)
        return rows
