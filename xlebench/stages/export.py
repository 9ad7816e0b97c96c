"""Export stage: one unit per format, each written into its unit folder and copied to
``export/<format>/`` of the benchmark (`xlebench.export`). The formats, what each is and what
it reads, are declared in `xlebench.config.exports`; each has a writer ``_<format>`` here.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any, ClassVar

import yaml
from omegaconf import DictConfig, OmegaConf

from xlebench import __version__
from xlebench.config.exports import FORMATS
from xlebench.errors import ConfigError
from xlebench.eval.metrics import REGISTRY
from xlebench.eval.score import ScoreSettings, corpus_metrics
from xlebench.export.card import dataset_card, dataset_id
from xlebench.export.curation import curation_csv
from xlebench.export.egoschema import egoschema_files
from xlebench.export.hf import items_table, lifelogs_table, write_table
from xlebench.export.lmms import write_lmms_tasks
from xlebench.export.questions import answer_key, question_files, video_names
from xlebench.export.release import release_files
from xlebench.manifest import content_config
from xlebench.publish import benchmark_config
from xlebench.runner.atomic import write_json, write_jsonl, write_text
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext
from xlebench.split import log_split
from xlebench.stages.readers import configured_recipes
from xlebench.tasks.helpers.registry import Recipe

log = logging.getLogger(__name__)
#: The evaluation settings the lmms-eval tasks score with (those of the exporting run).
EVAL_KEYS = ("ks", "tious", "refusal_patterns", "no_information_patterns", "bertscore",
             "bertscore_model", "bertscore_layer")


def _items(ctx: StageContext, recipes: dict[str, Recipe]) -> dict[str, list[dict]]:
    """Items by subtask, recipe order; a subtask without items is left out of every export
    (the annotate stage announced it, with what gives it items)."""
    by: dict[str, list[dict]] = {name: [] for name in recipes}
    for rec in ctx["annotate"].records.values():
        if rec["subtask"] in by:
            by[rec["subtask"]] += rec["items"]
    return {s: sorted(v, key=lambda it: it["item_id"]) for s, v in by.items() if v}


def task_metrics(recipe: Recipe, item: dict | None, settings: ScoreSettings) -> list[str]:
    """A recipe's metric names as the results table lists them: the primary first."""
    names = set(recipe.scorer.worst(item, settings)) if item is not None else set()
    names |= set(corpus_metrics({recipe.name: recipe}).get(recipe.name, {}))
    return [recipe.primary] + sorted(names - {recipe.primary})


class ExportStage(BaseStage):
    name: ClassVar[str] = "export"
    version: ClassVar[str] = "3"  # 3: question ids keyed by the answers
    upstream: ClassVar[tuple[str, ...]] = ("annotate", "simulate", "render")
    outputs: ClassVar[tuple[str, ...]] = ("export",)
    uses_seed: ClassVar[bool] = False

    def __init__(self, *, formats: list[str], recipes: dict[str, Recipe], bench_name: str,
                 config_yaml: str, eval_settings: dict[str, Any], max_new_tokens: int,
                 targets: dict[str, str | None] | None = None,
                 library_kind: str = "ego4d", seed: int = 0, heldout: float = 0.0) -> None:
        for fmt in formats:
            missing = [n for n in FORMATS[fmt].needs if n not in formats]
            if missing:
                raise ConfigError(f"export.formats: {fmt} reads the {', '.join(missing)} "
                                  f"export; add it, e.g. export.formats=[{','.join(missing)},"
                                  f"{fmt}]")
        self.formats, self.recipes = formats, recipes
        self.targets = targets or {}
        self.bench_name, self.config_yaml = bench_name, config_yaml
        self.eval_settings, self.max_new_tokens = eval_settings, max_new_tokens
        self.library_kind = library_kind
        self.seed, self.heldout = seed, heldout

    def units(self, ctx: StageContext) -> list[Unit]:
        return [Unit(f) for f in self.formats]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        items = _items(ctx.upstream, self.recipes)
        logs = dict(sorted(ctx.upstream["simulate"].records.items()))
        held = {}
        if self.heldout > 0 and unit.id != "questions":  # answers of the test split stay out
            items, logs, held = self._dev(items, logs)
        out = ctx.workdir / "files"
        stats = {**self.writers()[unit.id](out, items, logs, ctx.upstream), **held}
        files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
        return {"format": unit.id, **stats, "paths": files}

    def writers(self) -> dict[str, Any]:
        """Each declared format's writer (`xlebench.config.exports`)."""
        return {name: getattr(self, f"_{name}") for name in FORMATS}

    def _dev(self, items: dict[str, list[dict]], logs: dict[str, dict]) -> tuple:
        """The dev split's items and life logs, and how many test ones were left out."""
        test = {lid for lid in logs if log_split(lid, self.seed, self.heldout) == "test"}
        kept = {sub: [it for it in its if it["lifelog_id"] not in test]
                for sub, its in items.items()}
        n = sum(len(its) for its in items.values()) - sum(len(its) for its in kept.values())
        return ({sub: its for sub, its in kept.items() if its},
                {lid: log for lid, log in logs.items() if lid not in test},
                {"held_out": {"lifelogs": len(test), "items": n}})

    def _hf(self, out: Path, items, logs, ctx: StageContext) -> dict[str, Any]:
        sizes = {}
        for sub, its in items.items():
            table = items_table(its)
            write_table(table, out / "data" / f"{sub}.parquet")
            sizes[sub] = table.nbytes
        table = lifelogs_table(logs.values())
        write_table(table, out / "lifelogs.parquet")
        sizes["lifelogs"] = table.nbytes
        fps = {s: ctx[s].fingerprint for s in ("simulate", "annotate")}
        write_text(out / "README.md", dataset_card(
            name=self.bench_name, items=items, logs=list(logs.values()),
            config_yaml=self.config_yaml, fingerprints=fps, version=__version__,
            library_kind=self.library_kind, rendered=len(ctx["render"].records),
            num_bytes=sizes))
        return {"rows": {s: len(v) for s, v in items.items()},
                "dataset": dataset_id(self.bench_name, fps)}

    def _lmms_eval(self, out: Path, items, logs, ctx: StageContext) -> dict[str, Any]:
        """Tasks over the items whose life log has a video (lmms-eval's models need it):
        their own parquet subsets under ``data/``; a subtask with none is left out."""
        s = self.eval_settings
        settings = ScoreSettings.from_eval(s)
        rendered = set(ctx["render"].records)
        served = {sub: [it for it in its if it["lifelog_id"] in rendered]
                  for sub, its in items.items()}
        served = {sub: its for sub, its in served.items() if its}
        n_items = sum(len(v) for v in items.values())
        if not served:
            log.warning("export/lmms_eval: no life log is rendered (its models need the "
                        "video), so no task is written; render them (render.max_logs=null)")
            return {"tasks": [], "items": {}, "of": n_items}
        if sum(len(v) for v in served.values()) < n_items:
            log.warning("export/lmms_eval: %d of %d items have a rendered video and are "
                        "exported; render every life log (render.max_logs=null) to export "
                        "all", sum(len(v) for v in served.values()), n_items)
        for sub, its in served.items():
            write_table(items_table(its), out / "data" / f"{sub}.parquet")
        subtasks = {}
        for name, its in served.items():
            recipe = self.recipes[name]
            metrics = task_metrics(recipe, its[0], settings)
            subtasks[name] = {
                "metrics": metrics, "answer_format": recipe.answer_format,
                "primary": recipe.primary, "target": self.targets.get(name),
                "higher_is_better": {m: REGISTRY[m].higher_is_better if m in REGISTRY
                                     else True for m in metrics}}
        names = write_lmms_tasks(out, subtasks=subtasks, eval_settings=s,
                                 max_new_tokens=self.max_new_tokens)
        return {"tasks": names, "items": {sub: len(v) for sub, v in served.items()},
                "of": n_items}

    def _questions(self, out: Path, items, logs, ctx: StageContext) -> dict[str, Any]:
        key = answer_key(it for its in items.values() for it in its)
        for name, rows in question_files(items, set(ctx["render"].records), key).items():
            write_jsonl(out / name, rows)
        # kept in the cache for the links below, never written into the view
        return {"questions": {s: len(v) for s, v in items.items()},
                "video_names": video_names(items, key)}

    def _xlebench(self, out: Path, items, logs, ctx: StageContext) -> dict[str, Any]:
        files, stats = release_files(logs, [it for v in items.values() for it in v])
        for name, layout in files.items():
            write_json(out / name, layout)
        return stats

    def _egoschema(self, out: Path, items, logs, ctx: StageContext) -> dict[str, Any]:
        files = egoschema_files((it for v in items.values() for it in v), logs)
        if files["questions.json"]:
            for name, obj in files.items():
                write_json(out / name, obj)
        return {"questions": len(files["questions.json"])}

    def _curation(self, out: Path, items, logs, ctx: StageContext) -> dict[str, Any]:
        every = [it for v in items.values() for it in v]
        write_text(out / "items.csv", curation_csv(every, logs))
        return {"items": len(every)}

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        counts = {}
        for fmt, rec in sorted(result.records.items()):
            src = result.unit_dir(fmt) / "files"
            for rel in rec["paths"]:
                target = dest / "export" / fmt / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src / rel, target)
            counts[fmt] = {k: v for k, v in rec.items()
                           if k not in ("format", "paths", "video_names")}
        if "hf" in result.records and self.library_kind == "synthetic":
            # generated footage can travel with its dataset (Ego4D's cannot: the card says
            # how to rebuild it into videos/ beside itself)
            for video in sorted((dest / "videos").glob("*.mp4")):
                _link(video, dest / "export" / "hf" / "videos" / video.name)
        if "questions" in result.records:  # the view's videos, under their opaque names
            names = result.records["questions"].get("video_names", {})
            for video in sorted((dest / "videos").glob("*.mp4")):
                if video.stem in names:
                    _link(video, dest / "export" / "questions" / "videos" / names[video.stem])
        off = counts.get("xlebench", {}).get("segment_starts_not_whole_minutes", 0)
        if off:
            log.info("export/xlebench: %d of %d segment starts are not whole minutes, so "
                        "their HH:MM is not where they start (answers stay right for readers "
                        "that subtract HH:MM); compile with simulation.start_resolution_s=60 "
                        "(experiment=paper) for the release's clock",
                        off, counts["xlebench"]["segments"])
        return counts


def _link(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.unlink(missing_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def build_export_stage(cfg: DictConfig) -> StageSpec:
    ec = OmegaConf.to_container(cfg.export, resolve=True)
    tasks = OmegaConf.to_container(cfg.tasks, resolve=True) or {}
    recipes = {name: r for name, (r, _) in configured_recipes(cfg).items()}
    evs = {k: v for k, v in OmegaConf.to_container(cfg.eval, resolve=True).items()
           if k in EVAL_KEYS}
    config = benchmark_config(content_config(OmegaConf.to_container(cfg, resolve=True)))
    stage = ExportStage(formats=list(dict.fromkeys(ec["formats"])), recipes=recipes,
                        targets={n: (tasks[n] or {}).get("_target_") for n in recipes},
                        bench_name=str(cfg.name),
                        config_yaml=yaml.safe_dump(config, sort_keys=True, width=100),
                        eval_settings=evs, max_new_tokens=int(ec["max_new_tokens"]),
                        library_kind=str(cfg.library.kind), seed=int(cfg.seed),
                        heldout=float(cfg.annotate.heldout))
    held = {"heldout": float(cfg.annotate.heldout)} if cfg.annotate.heldout else {}
    return StageSpec(stage, {"export": ec, "eval": evs, "config": config, **held})
