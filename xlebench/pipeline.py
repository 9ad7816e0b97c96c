"""From a composed config to stage specs, a run, exported files and a manifest.

This is the only place besides the CLI that reads the DictConfig: it turns each config
section into keyword arguments for plain stage classes, and picks the slice of config that
goes into each stage's fingerprint.
"""

from __future__ import annotations

import importlib
import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from xlebench.config.schema import PIPELINE
from xlebench.errors import ConfigError, NotImplementedStageError
from xlebench.manifest import build_manifest
from xlebench.runner.atomic import write_json
from xlebench.runner.runner import Runner, RunnerOptions, RunSummary, StageSpec

log = logging.getLogger(__name__)

PLANNED = {
    "report": "dataset card, plots and viewer (report milestone)",
}


def _plain(node: Any) -> Any:
    return OmegaConf.to_container(node, resolve=True) if OmegaConf.is_config(node) else node


#: Stage name -> its class in ``xlebench.stages.<name>``; each module also defines
#: ``build_<name>_stage(cfg) -> StageSpec``. The class's `upstream` says which stages it reads.
STAGE_CLASSES = {
    "library": "LibraryStage",
    "persona": "PersonaStage",
    "plan": "PlanStage",
    "simulate": "SimulateStage",
    "render": "RenderStage",
    "annotate": "AnnotateStage",
    "evaluate": "EvaluateStage",
}


def _module(name: str):
    # Imported on demand: `xlebench --help` and cache hits never load torch or faiss.
    return importlib.import_module(f"xlebench.stages.{name}")


def _build(name: str, cfg: DictConfig) -> StageSpec:
    return getattr(_module(name), f"build_{name}_stage")(cfg)


BUILDERS: dict[str, Callable[[DictConfig], StageSpec]] = {
    name: partial(_build, name) for name in STAGE_CLASSES
}


def _upstream(name: str) -> tuple[str, ...]:
    return tuple(getattr(_module(name), STAGE_CLASSES[name]).upstream)


def resolve_stages(requested: list[str]) -> list[str]:
    """Validate requested stage names and add the stages they read from, in pipeline order."""
    unknown = [s for s in requested if s not in PIPELINE]
    if unknown:
        raise ConfigError(f"stages={unknown}: unknown stage; choose from {list(PIPELINE)}")
    missing = [s for s in requested if s not in BUILDERS]
    if missing:
        details = "; ".join(f"{s}: {PLANNED.get(s, 'planned')}" for s in missing)
        raise NotImplementedStageError(
            f"stage(s) {missing} are not implemented in this version of xlebench yet "
            f"({details}). Implemented stages: {list(BUILDERS)}. Run e.g. "
            f"stages=[{','.join(BUILDERS)}]"
        )
    wanted: set[str] = set()
    todo = list(requested)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(_upstream(name))
    return [s for s in PIPELINE if s in wanted]


@dataclass
class PipelineResult:
    summary: RunSummary
    benchmark_dir: Path | None
    counts: dict[str, Any] = field(default_factory=dict)


def run_pipeline(cfg: DictConfig, bench_subdir: str | None = None) -> PipelineResult:
    """Run the configured stages and publish the benchmark folder if every unit succeeded."""
    names = resolve_stages(list(cfg.stages))
    added = [n for n in names if n not in cfg.stages]
    if added:
        log.info("also running upstream stages %s (cached results are reused)", added)
    specs = [BUILDERS[name](cfg) for name in names]
    force = frozenset(cfg.force)
    if force - set(PIPELINE):
        raise ConfigError(f"force={sorted(force)}: unknown stage; choose from {list(PIPELINE)}")
    runner = Runner(
        RunnerOptions(
            cache_dir=Path(cfg.paths.cache),
            seed=int(cfg.seed),
            workers=int(cfg.workers),
            fail_fast=bool(cfg.fail_fast),
            retries=int(cfg.retries),
            force=force,
            progress=bool(cfg.progress),
        )
    )
    final = Path(cfg.paths.benchmarks) / str(cfg.name)
    if bench_subdir:
        final = final / bench_subdir
    staging = final.parent / f".{final.name}.staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    counts: dict[str, Any] = {}
    exporters = {spec.stage.name: spec.stage for spec in specs}

    def export(result) -> None:
        counts[result.name] = exporters[result.name].export(result, staging)

    try:
        summary = runner.run(specs, on_stage_done=export)
        if summary.failed:
            return PipelineResult(summary, None, counts)
        fingerprints = {c.stage: c.fingerprint for c in summary.counters}
        manifest = build_manifest(_plain(cfg), fingerprints, counts)
        write_json(staging / "manifest.json", manifest)
        _publish(staging, final)
        return PipelineResult(summary, final, counts)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _publish(staging: Path, final: Path) -> None:
    """Replace the benchmark folder with the staged one in two renames."""
    old = final.parent / f".{final.name}.old-{os.getpid()}"
    if final.exists():
        os.rename(final, old)
    os.rename(staging, final)
    shutil.rmtree(old, ignore_errors=True)
