"""Annotate stage: one unit per (life log, subtask) -> task items with answers on the clock.

Changing one recipe's parameters recomputes only that recipe's units (its parameters are in
the unit payload and the fingerprint; every other unit is reused by the runner's cache).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, ClassVar

from omegaconf import DictConfig, OmegaConf

from xlebench.errors import ConfigError
from xlebench.library.view import LibraryView
from xlebench.llm.setup import llm_client, llm_fingerprint, prompt_files
from xlebench.runner.atomic import write_json, write_jsonl
from xlebench.runner.rng import unit_random
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext
from xlebench.tasks.aggregate import LLMAggregator, offline_aggregate
from xlebench.tasks.export import release_layout
from xlebench.tasks.items import SUBTASKS
from xlebench.tasks.recipes import RECIPES, Context
from xlebench.tasks.source import AnnotationIndex, load_annotations


class AnnotateStage(BaseStage):
    name: ClassVar[str] = "annotate"
    outputs: ClassVar[tuple[str, ...]] = (
        "annotations", "export/xlebench", "stats/tasks.json", "stats/llm_usage_annotate.json")
    version: ClassVar[str] = "2"
    upstream: ClassVar[tuple[str, ...]] = ("simulate", "library")

    def __init__(self, *, recipes: dict[str, dict], annotations_root: Path | None,
                 min_duration_s: float = 0.0, aggregator: LLMAggregator | None = None) -> None:
        unknown = sorted(set(recipes) - set(SUBTASKS))
        if unknown:
            raise ConfigError(f"tasks: {unknown} are not subtasks; choose from {list(SUBTASKS)}")
        self.recipes = recipes
        self.annotations_root = annotations_root
        self.min_duration_s = min_duration_s
        self.aggregator = aggregator
        if aggregator is not None:
            self.waits_on_network(aggregator.client.settings.max_concurrency)
        self._videos: dict = {}
        self._ann = AnnotationIndex()

    def prompt_files(self) -> list[Path]:
        return prompt_files([self.aggregator.prompt]) if self.aggregator else []

    def setup(self, ctx: StageContext) -> None:
        uid, _ = ctx["library"].only()
        self._videos = {v.video_uid: v for v in LibraryView(ctx["library"].unit_dir(uid)).videos}
        self._ann = stage_annotations(ctx, self.annotations_root, self.min_duration_s)

    def units(self, ctx: StageContext) -> list[Unit]:
        return [Unit(f"{lid}.{sub}", {"lifelog": lid, "subtask": sub})
                for lid in sorted(ctx["simulate"].records) for sub in self.recipes]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        log = ctx.upstream["simulate"].records[unit.payload["lifelog"]]
        sub = unit.payload["subtask"]
        rctx = Context(log, self._videos, self._ann, unit_random(ctx.seed, self.name, unit.id),
                       self.aggregator or offline_aggregate)
        built = RECIPES[sub](rctx, self.recipes[sub])
        uids = sorted({s["video_uid"] for s in log["segments"]} & set(self._ann.skips_by_uid))
        return {"subtask": sub, "lifelog_id": log["lifelog_id"], "category": log["category"],
                "items": built.items, "stats": dict(sorted(built.stats.items())),
                "annotation_skips": {u: dict(sorted(self._ann.skips_by_uid[u].items()))
                                     for u in uids}}

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        by_sub: dict[str, list] = defaultdict(list)
        by_log: dict[str, list] = defaultdict(list)
        counts: dict[str, Counter] = defaultdict(Counter)
        reasons: dict[str, Counter] = defaultdict(Counter)
        per_video: dict[str, dict] = {}
        for rec in result.records.values():
            per_video.update(rec.get("annotation_skips", {}))
            by_sub[rec["subtask"]] += rec["items"]
            by_log[rec["lifelog_id"]] += rec["items"]
            counts[rec["subtask"]][rec["category"]] += len(rec["items"])
            if not rec["items"]:
                counts[rec["subtask"]]["logs_without_items"] += 1
            reasons[rec["subtask"]].update(rec["stats"])
        for sub in self.recipes:
            write_jsonl(dest / "annotations" / f"{sub}.jsonl",
                        sorted(by_sub[sub], key=lambda it: it["item_id"]))
        simulate = dest / "lifelogs"
        for lid, items in sorted(by_log.items()):
            log = json.loads((simulate / f"{lid}.json").read_text("utf-8"))
            persona, category = log["persona_id"], log["category"]
            write_json(dest / "export" / "xlebench" /
                       f"simulation_{persona}_{category}_annotation.json",
                       release_layout(log, sorted(items, key=lambda it: it["item_id"])))
        stats = {"items": {s: dict(sorted(c.items())) for s, c in sorted(counts.items())},
                 "skipped": {s: dict(sorted(c.items())) for s, c in sorted(reasons.items())},
                 "annotation_skips": dict(sorted(sum(
                     (Counter(v) for v in per_video.values()), Counter()).items()))}
        write_json(dest / "stats" / "tasks.json", stats)
        return {"items": {s: len(v) for s, v in sorted(by_sub.items())},
                "skipped": stats["annotation_skips"]}


def stage_annotations(ctx: StageContext, root: Path | None, min_duration_s: float = 0.0
                      ) -> AnnotationIndex:
    """The Ego4D annotations of the videos the logs use (from the Ego4D root, or the synthetic
    corpus kept with the library; none for the X-LeBench release, whose logs then get no
    annotation-based items, counted)."""
    uid, _ = ctx["library"].only()
    lib_dir = ctx["library"].unit_dir(uid)
    root = root or (lib_dir / "corpus" if (lib_dir / "corpus").is_dir() else None)
    if root is None:
        return AnnotationIndex()
    uids = {s["video_uid"] for r in ctx["simulate"].records.values() for s in r["segments"]}
    return load_annotations(root, uids, min_duration_s)


def annotations_root(cfg: DictConfig) -> Path | None:
    lib = OmegaConf.to_container(cfg.library, resolve=True)
    return Path(lib["root"]) if lib["kind"] == "ego4d" else None


def build_annotate_stage(cfg: DictConfig) -> StageSpec:
    recipes = OmegaConf.to_container(cfg.tasks, resolve=True) or {}
    if not recipes:
        raise ConfigError("tasks is empty: choose recipes, e.g. tasks=[object_retrieval]")
    root = annotations_root(cfg)
    aggregator = None
    if cfg.aggregator == "llm":
        aggregator = LLMAggregator(llm_client(cfg, "aggregator=llm"),
                                   max_retries=int(cfg.llm.max_retries))
    elif cfg.aggregator != "offline":
        raise ConfigError(f"aggregator={cfg.aggregator}: choose offline or llm")
    stage = AnnotateStage(recipes=recipes, annotations_root=root, aggregator=aggregator)
    fp = {"tasks": recipes, "aggregator": str(cfg.aggregator),
          "llm": llm_fingerprint(cfg, [aggregator.prompt]) if aggregator else None}
    return StageSpec(stage, fp)
