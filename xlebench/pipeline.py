"""From a composed config to stage specs, a run, exported files and a manifest.

This is the only place besides the CLI that reads the DictConfig: it turns each config
section into keyword arguments for plain stage classes, and picks the slice of config that
goes into each stage's fingerprint.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
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


def _persona_spec(cfg: DictConfig) -> StageSpec:
    from xlebench.stages.persona import PersonaStage

    pc = cfg.persona
    if pc.kind == "files":
        folder = Path(pc.dir)
        files = sorted(folder.glob(pc.glob))
        if not files:
            raise ConfigError(
                f"persona.dir={pc.dir}: no files match {pc.glob!r}; point persona.dir at a "
                "folder of persona YAML files (see personas/ in the repository)"
            )
        stage = PersonaStage(kind="files", files=files)
        digests = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}
        return StageSpec(stage, {"kind": "files", "files": digests})
    from xlebench.llm.setup import llm_fingerprint
    from xlebench.stages.plan import llm_planner

    llm = llm_planner(cfg, "planner=llm (persona profiles)")
    stage = PersonaStage(kind="grid", locations=list(pc.locations), mbti=list(pc.mbti), llm=llm)
    fp = _plain(pc)
    if llm is not None:
        fp["llm"] = llm_fingerprint(cfg, [llm.prompts.persona])
    return StageSpec(stage, fp)


def _library_spec(cfg: DictConfig) -> StageSpec:
    from xlebench.stages.library import build_library_stage

    return build_library_stage(cfg)


def _plan_spec(cfg: DictConfig) -> StageSpec:
    from xlebench.stages.plan import build_plan_stage

    return build_plan_stage(cfg)


def _simulate_spec(cfg: DictConfig) -> StageSpec:
    from xlebench.stages.simulate import build_simulate_stage

    return build_simulate_stage(cfg)


def _render_spec(cfg: DictConfig) -> StageSpec:
    from xlebench.stages.render import build_render_stage

    return build_render_stage(cfg)


def _annotate_spec(cfg: DictConfig) -> StageSpec:
    from xlebench.stages.annotate import build_annotate_stage

    return build_annotate_stage(cfg)


def _evaluate_spec(cfg: DictConfig) -> StageSpec:
    from xlebench.stages.evaluate import build_evaluate_stage

    return build_evaluate_stage(cfg)


BUILDERS: dict[str, Callable[[DictConfig], StageSpec]] = {
    "library": _library_spec,
    "persona": _persona_spec,
    "plan": _plan_spec,
    "simulate": _simulate_spec,
    "render": _render_spec,
    "annotate": _annotate_spec,
    "evaluate": _evaluate_spec,
}
#: Where each stage class lives; its `upstream` attribute says which stages it reads.
STAGE_CLASSES = {
    "library": "xlebench.stages.library:LibraryStage",
    "persona": "xlebench.stages.persona:PersonaStage",
    "plan": "xlebench.stages.plan:PlanStage",
    "simulate": "xlebench.stages.simulate:SimulateStage",
    "render": "xlebench.stages.render:RenderStage",
    "annotate": "xlebench.stages.annotate:AnnotateStage",
    "evaluate": "xlebench.stages.evaluate:EvaluateStage",
}


def _upstream(name: str) -> tuple[str, ...]:
    module, cls = STAGE_CLASSES[name].split(":")
    return tuple(getattr(importlib.import_module(module), cls).upstream)


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
