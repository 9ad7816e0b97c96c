"""Report stage: static HTML under ``report/`` — an index (the dataset card in brief, plots,
a searchable and sortable table of life logs) and one page per life log (the rendered video with
its WebVTT clock, the timeline of matched segments, persona and plan beside what was matched,
every item with answer spans that seek the video). The results page (each system's table with
n, intervals and floors; a per-item browser) is derived at publication from every system's
results (`xlebench.report.results`).

One unit per page (``index``, each life log), so a rerun rebuilds only the pages whose inputs
changed. No network and no CDN: the pages open from disk or any static server, and the same
benchmark gives the same bytes.
"""

from __future__ import annotations

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


def _items_by_log(ctx: StageContext) -> dict[str, list[dict]]:
    """Each life log's items, by subtask and id: indexed once per stage, since a page that
    scanned every annotate record for its own made the stage quadratic in life logs (71 of
    its 88 s at ten times the paper grid)."""
    by: dict[str, list[dict]] = {}
    for rec in ctx["annotate"].records.values():
        by.setdefault(rec["lifelog_id"], []).extend(rec["items"])
    return {lid: sorted(v, key=lambda it: (it["subtask"], it["item_id"])) for lid, v in by.items()}


class ReportStage(BaseStage):
    name: ClassVar[str] = "report"
    #: 2: clock and item browser from script files; 3: the results page derived at publication
    version: ClassVar[str] = "3"
    #: Not evaluate: the results page is derived at publication from every system's results
    #: in the benchmark folder (`xlebench.report.results`), so scoring one more system
    #: remakes it without running this stage.
    upstream: ClassVar[tuple[str, ...]] = ("library", "persona", "plan", "simulate", "render",
                                           "annotate")
    outputs: ClassVar[tuple[str, ...]] = ("report",)
    uses_seed: ClassVar[bool] = False

    def __init__(self, *, bench_name: str) -> None:
        self.bench_name = bench_name
        self._videos: dict[str, Any] = {}
        self._by_log: dict[str, list[dict]] = {}

    def setup(self, ctx: StageContext) -> None:
        uid, _ = ctx["library"].only()
        self._videos = {v.video_uid: v for v in LibraryView(ctx["library"].unit_dir(uid)).videos}
        self._by_log = _items_by_log(ctx)

    def units(self, ctx: StageContext) -> list[Unit]:
        logs = sorted(ctx["simulate"].records)
        return [Unit("index")] + [Unit(lid, {"lifelog": lid}) for lid in logs]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        out = ctx.workdir / "files"
        up = ctx.upstream
        if unit.id == "index":
            items = _items(up)
            self._index(out, up, items)
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

    def _lifelog(self, out: Path, up: StageContext, lid: str) -> None:
        log = up["simulate"].records[lid]
        items = self._by_log.get(lid, [])
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
                target = dest / "report" / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src / rel, target)
                n += 1
        for asset in ("report.css", "report.js"):
            shutil.copyfile(STATIC / asset, dest / "report" / asset)
        return {"pages": n + 1, "lifelogs": len(result.records) - 1}


def build_report_stage(cfg: DictConfig) -> StageSpec:
    return StageSpec(ReportStage(bench_name=str(cfg.name)), {
        "assets": {a: (STATIC / a).read_text("utf-8") for a in ("report.css", "report.js")}})
