"""Report stage: static HTML under ``report/`` — an index (the dataset card in brief, plots,
a searchable and sortable table of life logs), one page per life log (the rendered video with
its WebVTT clock, the timeline of matched segments, persona and plan beside what was matched,
every item with answer spans that seek the video) and a results page (each system's table with
n, intervals and floors; a per-item browser filtered by system, subtask and status).

One unit per page (``index``, ``results``, each life log), so a rerun rebuilds only the pages
whose inputs changed. No network and no CDN: the pages open from disk or any static server,
and the same benchmark gives the same bytes.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

from omegaconf import DictConfig

from xlebench.library.view import LibraryView
from xlebench.render.render import VTT
from xlebench.report import pages, plots
from xlebench.runner.atomic import write_text
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext

STATIC = Path(__file__).resolve().parent.parent / "report" / "static"


def _items(ctx: StageContext) -> dict[str, list[dict]]:
    by: dict[str, list[dict]] = {}
    for rec in sorted(ctx["annotate"].records.values(),
                      key=lambda r: (r["subtask"], r["lifelog_id"])):
        by.setdefault(rec["subtask"], []).extend(rec["items"])
    return {s: sorted(v, key=lambda it: it["item_id"]) for s, v in by.items()}


class ReportStage(BaseStage):
    name: ClassVar[str] = "report"
    version: ClassVar[str] = "2"  # 2: clock and item browser from script files
    #: Not evaluate: the results page is written at export from every system's results in the
    #: benchmark folder (this run's and those published before), so scoring one more system
    #: refreshes it without recomputing anything else.
    upstream: ClassVar[tuple[str, ...]] = ("library", "persona", "plan", "simulate", "render",
                                           "annotate")
    outputs: ClassVar[tuple[str, ...]] = ("report",)
    uses_seed: ClassVar[bool] = False

    def __init__(self, *, bench_name: str) -> None:
        self.bench_name = bench_name
        self._videos: dict[str, Any] = {}
        self._result_items: dict[str, dict] | None = None

    def setup(self, ctx: StageContext) -> None:
        uid, _ = ctx["library"].only()
        self._videos = {v.video_uid: v for v in LibraryView(ctx["library"].unit_dir(uid)).videos}

    def units(self, ctx: StageContext) -> list[Unit]:
        logs = sorted(ctx["simulate"].records)
        return [Unit("index")] + [Unit(lid, {"lifelog": lid}) for lid in logs]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        out = ctx.workdir / "files"
        up = ctx.upstream
        if unit.id == "index":
            items = _items(up)
            self._index(out, up, items)
            # the items, for the results page written at export
            write_text(out / ".items.json", pages.as_json(
                {it["item_id"]: {"query": it["query"], "answer": {"text": it["answer"]["text"]}}
                 for its in items.values() for it in its}))
        else:
            self._lifelog(out, up, unit.payload["lifelog"])
        return {"paths": sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())}

    def _index(self, out: Path, up: StageContext, items: dict[str, list[dict]]) -> None:
        logs = [up["simulate"].records[k] for k in sorted(up["simulate"].records)]
        personas = dict(up["persona"].records)
        matched = [self._videos[s["video_uid"]] for log in logs for s in log["segments"]
                   if s["video_uid"] in self._videos]
        lib = list(self._videos.values())
        svgs = {
            "durations": plots.durations(logs),
            "reuse": plots.reuse(logs),
            "scenarios": plots.shares("Scenarios: library vs matched segments",
                                      Counter(s for v in lib for s in v.scenarios),
                                      Counter(s for v in matched for s in v.scenarios)),
            "scenes": plots.shares("Scenes", Counter(v.scene for v in lib),
                                   Counter(v.scene for v in matched)),
            "times": plots.shares("Time of day", Counter(v.time_period for v in lib),
                                  Counter(v.time_period for v in matched)),
            "relaxation": plots.counts("Relaxation level of each match", Counter(
                s.get("match", {}).get("relaxation", "?") for log in logs
                for s in log["segments"]), "segments", distinct=True),
            "items": plots.counts("Items per subtask", {s: len(v) for s, v in items.items()},
                                  "items"),
            "certificates": plots.certificates(items),
        }
        for key, svg in svgs.items():
            write_text(out / "plots" / f"{key}.svg", svg)
        write_text(out / "index.html", pages.index_page(
            name=self.bench_name, logs=logs, items=items, personas=personas,
            rendered=frozenset(up["render"].records)))

    @staticmethod
    def _results(dest: Path, items: dict[str, dict]) -> None:
        """Every system's results in the benchmark folder being published."""
        tables, scores = {}, {}
        for folder in sorted((dest / "results").glob("*/")):
            if (folder / "table.json").is_file():
                tables[folder.name] = json.loads((folder / "table.json").read_text("utf-8"))
                path = folder / "scores.jsonl"
                scores[folder.name] = [json.loads(x) for x in path.read_text("utf-8")
                                       .splitlines()] if path.is_file() else []
        board = dest / "results" / "leaderboard.json"
        leaderboard = json.loads(board.read_text("utf-8")) if board.is_file() else None
        stats = dest / "stats" / "tasks.json"
        validity = json.loads(stats.read_text("utf-8")).get("validity") \
            if stats.is_file() else None
        scripts = pages.results_items_scripts(scores, items)
        write_text(dest / "report" / "results.html",
                   pages.results_page(tables=tables, scores=scores, items=items,
                                      validity=validity, leaderboard=leaderboard,
                                      item_files=len(scripts)))
        for old in (dest / "report").glob("results-items*.js"):
            old.unlink()
        for k, script in enumerate(scripts):
            write_text(dest / "report" / pages.items_file(k), script)

    def _lifelog(self, out: Path, up: StageContext, lid: str) -> None:
        log = up["simulate"].records[lid]
        # this log's records only: every page would otherwise sort the whole benchmark's items
        items = sorted((it for rec in up["annotate"].records.values()
                        if rec["lifelog_id"] == lid for it in rec["items"]),
                       key=lambda it: (it["subtask"], it["item_id"]))
        render = up["render"].records.get(lid)
        vtt = up["render"].unit_dir(lid) / VTT
        write_text(out / "lifelogs" / f"{lid}.html", pages.lifelog_page(
            log=log, persona=up["persona"].records.get(log["persona_id"], {}),
            plan=up["plan"].records.get(log["persona_id"], {}), items=items, render=render,
            videos=self._videos))
        if render and vtt.is_file():
            write_text(out / "lifelogs" / f"{lid}.clock.js",
                       pages.clock_script(vtt.read_text("utf-8")))

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        n = 0
        for uid, rec in sorted(result.records.items()):
            src = result.unit_dir(uid) / "files"
            for rel in rec["paths"]:
                if rel == ".items.json":
                    continue
                target = dest / "report" / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src / rel, target)
                n += 1
        for asset in ("report.css", "report.js"):
            shutil.copyfile(STATIC / asset, dest / "report" / asset)
        items = json.loads((result.unit_dir("index") / "files" / ".items.json")
                           .read_text("utf-8"))
        self._result_items = items
        self._results(dest, items)
        return {"pages": n + 1, "lifelogs": len(result.records) - 1}

    def refresh(self, dest: Path) -> None:
        """Remake the results page from every system's results (after a concurrent
        evaluation's results were merged in at publication)."""
        if self._result_items is not None:
            self._results(dest, self._result_items)


def build_report_stage(cfg: DictConfig) -> StageSpec:
    return StageSpec(ReportStage(bench_name=str(cfg.name)), {
        "assets": {a: (STATIC / a).read_text("utf-8") for a in ("report.css", "report.js")}})
