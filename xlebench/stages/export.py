"""Export stage: one unit per format, each written into its unit folder and copied to
``export/<format>/`` of the benchmark (`xlebench.export`). Each format is declared in its own
module with its writer (`xlebench.config.exports`); this stage runs the writers, one unit each.
"""

from __future__ import annotations

import importlib
import logging
import os
import shutil
from pathlib import Path
from typing import Any, ClassVar

import yaml
from omegaconf import DictConfig, OmegaConf

from xlebench.config.exports import FORMATS, WRITERS
from xlebench.errors import ConfigError
from xlebench.export.job import ExportJob
from xlebench.manifest import benchmark_config, content_config
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext
from xlebench.split import log_split
from xlebench.stages.readers import configured_recipes
from xlebench.tasks.recipe.registry import Recipe

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

    def remember(self, published: Path) -> None:
        """The files people fill in place (a format's ``FILLED``, e.g. the human sheet), as
        published, read by the format's ``filled_rows``: `export` merges them into the fresh
        files rather than replace them."""
        self._filled: dict[tuple[str, str], Any] = {}
        for fmt in self.formats:
            module = importlib.import_module(WRITERS[fmt])
            for rel in getattr(module, "FILLED", ()):
                path = published / "export" / fmt / rel
                if path.is_file():
                    self._filled[fmt, rel] = module.filled_rows(path, _shown(published, fmt,
                                                                             rel))

    def _carry_over(self, dest: Path) -> None:
        filled, self._filled = getattr(self, "_filled", {}), {}
        for (fmt, rel), rows in filled.items():
            fresh = dest / "export" / fmt / rel
            if fresh.is_file():
                importlib.import_module(WRITERS[fmt]).carry_over(rows, fresh,
                                                                 _shown(dest, fmt, rel))

    def owned_paths(self) -> list[str]:
        """Each written format's own folder: a run adding one export over a published
        benchmark keeps the exports published before."""
        return [f"export/{fmt}" for fmt in self.formats]

    def units(self, ctx: StageContext) -> list[Unit]:
        return [Unit(f) for f in self.formats]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        items = _items(ctx.upstream, self.recipes)
        logs = dict(sorted(ctx.upstream["simulate"].records.items()))
        held = {}
        if self.heldout > 0 and unit.id != "questions":  # answers of the test split stay out
            items, logs, held = self._dev(items, logs)
        out = ctx.workdir / "files"
        stats = {**self.writers()[unit.id](out, items, logs, self._job(ctx.upstream)), **held}
        files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
        return {"format": unit.id, **stats, "paths": files}

    def writers(self) -> dict[str, Any]:
        """Each declared format's writer: ``write`` of the module declaring it
        (`xlebench.config.exports`)."""
        return {name: importlib.import_module(WRITERS[name]).write for name in FORMATS}

    def _job(self, upstream: StageContext) -> ExportJob:
        return ExportJob(bench_name=self.bench_name, config_yaml=self.config_yaml,
                         recipes=self.recipes, targets=self.targets,
                         eval_settings=self.eval_settings, max_new_tokens=self.max_new_tokens,
                         library_kind=self.library_kind, upstream=upstream)

    def _dev(self, items: dict[str, list[dict]], logs: dict[str, dict]) -> tuple:
        """The dev split's items and life logs, and how many test ones were left out."""
        test = {lid for lid in logs if log_split(lid, self.seed, self.heldout) == "test"}
        kept = {sub: [it for it in its if it["lifelog_id"] not in test]
                for sub, its in items.items()}
        n = sum(len(its) for its in items.values()) - sum(len(its) for its in kept.values())
        return ({sub: its for sub, its in kept.items() if its},
                {lid: log for lid, log in logs.items() if lid not in test},
                {"held_out": {"lifelogs": len(test), "items": n}})

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
        self._carry_over(dest)
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


def _shown(folder: Path, fmt: str, rel: str) -> Path:
    """The published path of a format's file, for error lines: ``folder`` may be the staging
    copy (``.<name>.staging-*``) a run writes before it publishes."""
    if folder.name.startswith(".") and ".staging" in folder.name:
        folder = folder.parent / folder.name[1:].split(".staging")[0]
    return folder / "export" / fmt / rel
